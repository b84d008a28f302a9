"""paddle.fluid.op: build one operator outside any Program and run it on a Scope.

`Operator("mul", X="x", Y="y", Out="out", x_num_col_dims=1)` names the op's variables (the
values live in the scope) and sets its attributes; `op.run(scope, place)` runs it, reading
its inputs from the scope and writing its outputs there. Paddle's OpTest computes numeric
gradients this way. Each run goes through the Executor: a one-op Program whose variables
take their shapes from the scope's values (built once per input shapes and dtypes), run by
one Executor per device, which keeps its plan: a numeric gradient runs the op twice per
input element.
"""
import numpy as np

from ..executor import Executor
from .op_proto import get_op_proto
from ..framework.place import device_of
from ..framework.program import Program
from ..framework.scope import LoDTensorArray
from ..framework.selected_rows import RowsValue

__all__ = ["Operator", "get_all_op_protos", "RecurrentOp", "DynamicRecurrentOp", "CondOp"]


class _Operator:
    """One op: its type, slots ({slot: [variable names]}) and attributes."""

    def __init__(self, op_type, inputs, outputs, attrs):
        self._type = op_type
        self._inputs = inputs
        self._outputs = outputs
        self._attrs = attrs
        self._programs = {}
        self._executors = {}    # device -> Executor

    def type(self):
        return self._type

    def input(self, slot):
        return list(self._inputs.get(slot, []))

    def output(self, slot):
        return list(self._outputs.get(slot, []))

    def inputs(self):
        return {k: list(v) for k, v in self._inputs.items()}

    def outputs(self):
        return {k: list(v) for k, v in self._outputs.items()}

    def input_vars(self):
        return [n for names in self._inputs.values() for n in names]

    def output_vars(self):
        return [n for names in self._outputs.values() for n in names]

    def attr(self, name):
        return self._attrs[name]

    def has_attr(self, name):
        return name in self._attrs

    def support_gpu(self):
        from .core import op_support_gpu
        return op_support_gpu(self._type)

    def _program(self, scope):
        """The one-op program for the current input values in `scope`."""
        values = {}
        for name in self.input_vars():
            value = scope._values.get(name)
            if value is None:
                raise ValueError("Operator %s: input %r has no value in the scope"
                                 % (self._type, name))
            values[name] = value
        key = tuple(map(_signature, values.values()))
        program = self._programs.get(key)
        if program is None:
            program = Program()
            block = program.global_block()
            for name, value in values.items():
                if isinstance(value, list):
                    block.create_var(name=name, type="LOD_TENSOR_ARRAY", persistable=True)
                elif isinstance(value, RowsValue):
                    block.create_var(name=name, type="SELECTED_ROWS", shape=value.shape,
                                     dtype=value.dtype, persistable=True)
                else:
                    block.create_var(name=name, shape=np.shape(value), dtype=value.dtype,
                                     persistable=True)
            for name in self.output_vars():
                # persistable: outputs stay in the scope after the run, as in Paddle; a
                # variable the user made a SelectedRows receives one
                if name in values:
                    continue
                owner = scope._find_owner(name)
                rows = owner is not None and isinstance(owner._values[name], RowsValue)
                block.create_var(name=name, persistable=True,
                                 type="SELECTED_ROWS" if rows else "LOD_TENSOR")
            block.append_op(self._type, self._inputs, self._outputs, self._attrs)
            self._programs[key] = program
        return program

    def run(self, scope, place):
        device = device_of(place)
        if device not in self._executors:
            self._executors[device] = Executor(place)
        self._executors[device].run(self._program(scope), scope=scope)

    def __repr__(self):
        return "Operator(%s, inputs=%s, outputs=%s)" % (self._type, self._inputs,
                                                        self._outputs)


def _signature(value):
    if type(value) is np.ndarray:   # the common case first: a numeric gradient's every run
        return (value.shape, value.dtype)
    if isinstance(value, LoDTensorArray) or isinstance(value, list):
        return ("array", len(value))
    if isinstance(value, RowsValue):
        return ("rows", value.shape, value.dtype.str)
    if not isinstance(value, np.ndarray):
        value = np.asarray(value)
    return (value.shape, value.dtype)


def _names(value):
    if isinstance(value, (list, tuple)):
        return [str(v) for v in value]
    return [str(value)]


class OperatorFactory:
    """`Operator(type, **slots_and_attrs)`, and the slots and attributes of each type."""

    def __call__(self, op_type, **kwargs):
        proto = get_op_proto(op_type)
        inputs = {v.name: _names(kwargs.pop(v.name)) for v in proto.inputs
                  if v.name in kwargs}
        outputs = {v.name: _names(kwargs.pop(v.name)) for v in proto.outputs
                   if v.name in kwargs}
        attr_names = {a.name for a in proto.attrs}
        unknown = sorted(set(kwargs) - attr_names)
        if unknown:
            raise TypeError("Operator %s: unknown arguments %s; its inputs are %s, outputs %s, "
                            "attributes %s" % (op_type, unknown, [v.name for v in proto.inputs],
                                               [v.name for v in proto.outputs],
                                               sorted(attr_names)))
        return _Operator(op_type, inputs, outputs, kwargs)

    @staticmethod
    def types():
        from ..ops.registry import all_op_types
        return all_op_types()

    @staticmethod
    def get_op_inputs(op_type):
        return [(v.name, v.duplicable) for v in get_op_proto(op_type).inputs]

    @staticmethod
    def get_op_outputs(op_type):
        return [(v.name, v.duplicable) for v in get_op_proto(op_type).outputs]

    @staticmethod
    def get_op_input_names(op_type):
        return [v.name for v in get_op_proto(op_type).inputs]

    @staticmethod
    def get_op_output_names(op_type):
        return [v.name for v in get_op_proto(op_type).outputs]

    @staticmethod
    def get_op_attr_names(op_type):
        return [a.name for a in get_op_proto(op_type).attrs]


Operator = OperatorFactory()


class _CoreLessOpFactory:
    """fluid.op's RecurrentOp / DynamicRecurrentOp / CondOp: names Paddle 1.8 still exports
    from its 0.x operator classes, which its core no longer has; calling one fails there as
    here (scripts import them, none can use them)."""

    def __init__(self, name):
        self._name = name

    def __call__(self, *args, **kwargs):
        raise TypeError("fluid.op.%s: Paddle 1.8's core has no %s operator class (the name "
                        "is left from Paddle 0.x); build the loop with fluid.layers.While, "
                        "StaticRNN or DynamicRNN" % (self._name, self._name))


RecurrentOp = _CoreLessOpFactory("RecurrentOp")
DynamicRecurrentOp = _CoreLessOpFactory("DynamicRecurrentOp")
CondOp = _CoreLessOpFactory("CondOp")


def get_all_op_protos():
    from .op_proto import get_all_op_protos as protos
    return protos()


def operator_from_desc(data):
    """core.Operator.create(bytes): the Operator a serialized OpDesc describes (Paddle 3's
    test helper op.py builds one so: its slots' variable names and typed attributes)."""
    from ..framework.paddle_formats import wire
    from ..framework.paddle_formats.program_desc import SCHEMA, op_attrs
    from ..ops.registry import get_op_def
    desc = wire.decode(bytes(data), SCHEMA["OpDesc"])
    op_type = desc["type"]
    attrs = op_attrs(get_op_def(op_type), desc, "OpDesc of %s" % op_type)

    def slots(kind):
        return {v["parameter"]: list(v.get("arguments", [])) for v in desc.get(kind, [])}
    return _Operator(op_type, slots("inputs"), slots("outputs"), attrs)
