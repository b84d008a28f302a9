"""The static-graph IR: Program -> Block -> (Variable, Operator).

A Program is a list of Blocks; block 0 is the global block. Operators refer to
variables by name, like Paddle's ProgramDesc, so a Program can be cloned or
rewritten by passes without chasing Python object references.
"""
import contextlib
import copy
import numbers
import warnings

from .. import versions
from . import mode, unique_name
from .dataflow import block_io
from .dtypes import convert_dtype, dtype_attr_is_a_name, get_dtype
from .errors import DygraphOnlyError, EnforceNotMet, OpError, user_frame
from .paddle_formats.op_facts import undeclared_attr_defaults

__all__ = ["OpRole", "Variable", "Parameter", "Operator", "Block", "Program",
           "default_main_program", "default_startup_program", "program_guard",
           "switch_main_program", "switch_startup_program", "name_scope",
           "grad_var_name", "GRAD_SUFFIX", "EMPTY_VAR_NAME"]

GRAD_SUFFIX = "@GRAD"
EMPTY_VAR_NAME = "@EMPTY@"  # an output slot entry that is not written


def grad_var_name(name):
    return name + GRAD_SUFFIX


class OpRole:
    Forward = 0
    Backward = 1
    Optimize = 2
    RPC = 4
    Dist = 8
    LRSched = 16
    Loss = 256


_OP_ROLE_ATTR = "op_role"
_OP_ROLE_VAR_ATTR = "op_role_var"
_OP_DEVICE_ATTR = "op_device"

# Ops Paddle 1.8 runs without a kernel (they run sub-blocks, feed, fetch or wait on
# streams): device_guard cannot place them and warns (framework.Operator.OP_WITHOUT_KERNEL_SET)
OPS_WITHOUT_KERNEL = frozenset({
    "feed", "fetch", "recurrent", "go", "rnn_memory_helper_grad", "conditional_block",
    "while", "send", "recv", "listen_and_serv", "fl_listen_and_serv", "ncclInit", "select",
    "checkpoint_notify", "gen_nccl_id", "c_gen_nccl_id", "c_comm_init", "c_sync_calc_stream",
    "c_sync_comm_stream"})

_current_device = [None]   # device_guard's device ('cpu', 'gpu', 'gpu:N'), None outside


def _device_for(op_type):
    """The op_device attr of a new op: device_guard's device, '' outside a guard or for an
    op without a kernel (with Paddle's warning)."""
    device = _current_device[0]
    if device is None:
        return ""
    if op_type in OPS_WITHOUT_KERNEL:
        warnings.warn("The Op(%s) is not support to set device." % op_type)
        return ""
    return device


def warn_force_cpu(op_type):
    """Paddle 1.8's and 2.0's warning for an op given force_cpu (fill_constant's True,
    less_than's any value) inside a device_guard, whose device wins."""
    if _current_device[0] is not None:
        warnings.warn("The Attr(force_cpu) of Op(%s) will be deprecated in the future, please "
                      "use 'device_guard' instead. 'device_guard' has higher priority when "
                      "they are used at the same time." % op_type)


@contextlib.contextmanager
def current_device(device):
    """Ops built inside, in any program, get op_device = `device` (None: not set)."""
    before = _current_device[0]
    _current_device[0] = device
    try:
        yield
    finally:
        _current_device[0] = before


# op type -> its definition (signature, attrs, infer_shape: refimpl.ops.registry.OpDef),
# and the list of op types. refimpl.ops installs its registry's when it loads; the IR never
# imports the ops.
_op_definition = None
_op_types = None


def install_op_definitions(lookup, types):
    """Make `lookup(op_type) -> definition` the source of every Operator's op_def, and
    `types() -> [op type]` the list of op types there are."""
    global _op_definition, _op_types
    _op_definition, _op_types = lookup, types


def op_definition(op_type):
    """The definition of `op_type` (an error naming close types when there is none)."""
    return _op_definition(op_type)


def op_types():
    """Every op type there is a definition for."""
    return _op_types()


def _shape_tuple(shape):
    if shape is None:
        return None
    return tuple(-1 if d is None else int(d) for d in shape)


# the Variable methods Paddle 1.8.5 and 2.0 declare fake_interface_only (AssertionError in
# static mode, its text compared by their test_detach: versions switch dygraph_only_error),
# and what the text advises in each
_FAKE_INTERFACES = frozenset({"detach", "numpy", "set_value", "backward", "gradient",
                              "clear_gradient"})
_FAKE_INTERFACE_ADVICE = {
    "guard": "use fluid.dygraph.guard() as context to run it in imperative mode",
    "enable_static": "run it in dygraph mode. You can turn off paddle.enable_static() if you "
                     "are in static mode, or turn off ProgramTranslator if you are using "
                     "@paddle.jit.to_static"}


class Variable:
    """A named tensor slot in a Block. Build-time shape may hold -1 for unknown dims."""

    _declared_in_dygraph = False
    # the VarDesc's own attributes ({name: int, str or [int]}; VarDesc._set_attr), or None
    desc_attrs = None
    # False for a variable a Block declared with a shape but no dtype (1.8's VarDesc then has
    # no data_type, which Program.to_string(throw_on_error=True) reports) until it gets one
    _dtype_declared = True


    # Block.create_var without persistable: Paddle's VarDesc then holds none (its Python
    # sets the field only when given; create_variable_for_type_inference gives False)
    persistable_given = True
    def __init__(self, block, name=None, shape=None, dtype="float32", type="LOD_TENSOR",
                 lod_level=0, persistable=False, stop_gradient=False, is_data=False,
                 need_check_feed=False, **_ignored):
        self.block = block
        self.name = name if name is not None else unique_name.generate("_generated_var")
        self._shape = _shape_tuple(shape)
        self._dtype = get_dtype(dtype) if dtype is not None else None
        self.type = type
        self.lod_level = lod_level or 0
        self.persistable = persistable
        self.stop_gradient = stop_gradient
        self.is_data = is_data
        self.need_check_feed = need_check_feed
        self._declared_in_dygraph = mode.dynamic

    def __bool__(self):
        """True, as any object (Paddle's Variable defines no truth value), except while a
        dygraph-to-static translation records a program: there a Python `if` / `while` on
        a tensor value that the conversion left as Python (refimpl/jit/dy2static) cannot
        be recorded, and a `while` would never end."""
        if mode.in_translation():
            raise TypeError("the truth value of static Variable %r is not known while "
                            "paddle.jit.to_static records a program: refimpl converts an "
                            "`if` / `while` on tensor values into cond / while_loop ops only "
                            "without return / break / continue in its body (use "
                            "paddle.static.nn.cond / while_loop)" % self.name)
        return True

    @property
    def shape(self):
        return self._shape

    @property
    def dtype(self):
        return self._dtype

    @property
    def ndim(self):
        return len(self._shape)

    @property
    def desc(self):
        """Paddle's VarDesc view of this variable (framework/desc.py)."""
        from .desc import VarDesc
        return VarDesc(self)

    @property
    def op(self):
        """The last op of the variable's block that writes it (Paddle's Variable.op), or
        None."""
        for op in reversed(self.block.ops):
            if self.name in op.output_arg_names:
                return op
        return None

    @property
    def grad_name(self):
        """The name of this variable's gradient (`x@GRAD`)."""
        return self.name + GRAD_SUFFIX

    def _set_error_clip(self, error_clip):
        """The error clip (fluid.clip.ErrorClipByValue) that backward's error_clip_callback
        applies to this variable's gradient (Paddle's Variable._set_error_clip)."""
        self.error_clip = error_clip

    def _set_info(self, key, value):
        """Keep a value under `key` on this variable (Paddle's key-value annotations,
        which no op reads)."""
        self.__dict__.setdefault("_info", {})[key] = value

    def _get_info(self, key):
        """The value _set_info kept under `key`, or None."""
        return self.__dict__.get("_info", {}).get(key)

    def _set_shape_dtype(self, shape, dtype):
        self._shape = _shape_tuple(shape)
        if dtype is not None:
            self._dtype = get_dtype(dtype)
            self._dtype_declared = True

    def _to_readable_code(self):
        kind = "persist " if self.persistable else ""
        shape = ", ".join(str(d) for d in (self._shape or ()))
        return "%svar %s : %s.shape(%s).dtype(%s).stop_gradient(%s)" % (
            kind, self.name, self.type, shape, self._dtype.name if self._dtype else "?",
            self.stop_gradient)

    __str__ = _to_readable_code

    def __repr__(self):
        return self._to_readable_code()

    def _clone_into(self, block):
        new = copy.copy(self)
        new.block = block
        if self.desc_attrs is not None:
            new.desc_attrs = dict(self.desc_attrs)
        return new

    # Python operators, indexing and Paddle 2.0's tensor methods (x.sum(), x[0], x.T) are
    # attached from one table shared with other tensor classes: refimpl/tensor_methods.py

    # Paddle 1.8's dygraph-only methods (an eager Tensor has them): a static Variable's
    # value is fetched with Executor.run instead. A Variable declared in a Program
    # (block.create_var) inside dygraph mode holds no value: EnforceNotMet there, as 1.8.5
    # raises for its uninitialized tensor (ValueError for its gradient)
    def _dygraph_only(self, method, error=EnforceNotMet):
        if mode.dynamic and self._declared_in_dygraph:
            raise error("Variable.%s(): %r was declared in a Program (block.create_var) and "
                        "holds no value; in dygraph mode values are eager tensors "
                        "(fluid.dygraph.to_variable)" % (method, self.name))
        advice = _FAKE_INTERFACE_ADVICE.get(versions.switch("dygraph_only_error"))
        if method in _FAKE_INTERFACES and advice is not None:
            raise AssertionError("'%s' should be called by imperative Varible in imperative "
                                 "mode, please %s" % (method, advice))
        raise DygraphOnlyError("Variable.%s() is only available in dygraph mode (on eager "
                               "tensors, e.g. inside fluid.dygraph.guard()); in static mode "
                               "fetch %r with Executor.run" % (method, self.name))

    def numpy(self):
        self._dygraph_only("numpy", {"EnforceNotMet": EnforceNotMet, "ValueError": ValueError}[
            versions.switch("declared_var_numpy_error")])

    def value(self):
        self._dygraph_only("value")

    def gradient(self):
        self._dygraph_only("gradient", ValueError)

    def backward(self, backward_strategy=None):
        self._dygraph_only("backward")

    def detach(self):
        self._dygraph_only("detach")

    def set_value(self, value):
        self._dygraph_only("set_value")

    def clear_gradient(self):
        self._dygraph_only("clear_gradient")

    __hash__ = object.__hash__


def check_new_parameter_shape(name, shape):
    """A parameter being declared (not one read back from a saved program) is 0-D only
    where the profile's Paddle has 0-D parameters: 1.8 and 2.0 refuse shape [] with a
    ValueError, 3 takes it."""
    if shape is not None and len(shape) == 0 and not versions.switch("zero_dim_parameters"):
        raise ValueError("parameter %r: the shape must have at least one dimension, got [] "
                         "(Paddle %s has no 0-D parameters)" % (name, versions.release()))
    for i, d in enumerate(shape or ()):
        if isinstance(d, bool) or not isinstance(d, numbers.Integral) or d < 0:
            raise ValueError("parameter %r must have a fully known shape of ints >= 0, got "
                             "%s (dim %d is %r)" % (name, list(shape), i, d))


class Parameter(Variable):
    """A persistable, trainable Variable owned by the global block."""

    def __init__(self, block, shape, dtype, name=None, trainable=True, regularizer=None,
                 optimize_attr=None, do_model_average=None, need_clip=True, **kwargs):
        if shape is None or dtype is None:
            raise ValueError("parameter %r: the %s must not be None"
                             % (name, "shape" if shape is None else "dtype"))
        for d in shape:
            if d is None or d < 0:
                raise ValueError("parameter %r must have a fully known shape, got %s"
                                 % (name, list(shape)))
        kwargs.pop("persistable", None)
        kwargs.pop("stop_gradient", None)
        super().__init__(block, name=name, shape=shape, dtype=dtype, persistable=True,
                         stop_gradient=not trainable, **kwargs)
        self.trainable = trainable
        self.regularizer = regularizer
        self.optimize_attr = optimize_attr or {"learning_rate": 1.0}
        self.do_model_average = do_model_average
        self.need_clip = need_clip

    def _to_readable_code(self):
        return "param " + super()._to_readable_code()[len("persist "):] + \
            ".trainable(%s)" % self.trainable

    __str__ = _to_readable_code


def _names(value):
    """Normalize an op input/output argument to a list of variable names."""
    if value is None:
        return []
    if isinstance(value, (list, tuple)):
        return [v.name if isinstance(v, Variable) else v for v in value]
    return [value.name if isinstance(value, Variable) else value]


def _current_attr_names(op_def, attrs):
    """`attrs` (a new dict) with the names an older Paddle gave them (Paddle 1.8's flip
    `dims`) replaced by the op's."""
    attrs = dict(attrs or {})
    for old, new in op_def.renamed_attrs.items():
        if old in attrs:
            attrs.setdefault(new, attrs.pop(old))
    return attrs


class Operator:
    """One op in a Block: a type, named input/output slots holding variable names, attrs."""

    # Paddle's Python Operator lists in the desc every input its OpProto declares (absent
    # ones empty) when given an inputs dict, none when given none (initializers, the
    # constants of a Variable's operators); the ProgramDesc writer follows it
    lists_proto_inputs = True

    def __init__(self, block, type, inputs=None, outputs=None, attrs=None, infer=True):
        self.block = block
        self.type = type
        self.op_def = op_definition(type)
        if inputs is None:
            self.lists_proto_inputs = False
        self.inputs = {k: _names(v) for k, v in (inputs or {}).items()}
        self.outputs = {k: _names(v) for k, v in (outputs or {}).items()}
        # as Paddle's Operator, an attribute given as None is not set: its default applies
        attrs = {k: v for k, v in _current_attr_names(self.op_def, attrs).items()
                 if v is not None}
        if "dtype" in attrs and dtype_attr_is_a_name(self.op_def.attrs, attrs["dtype"]):
            attrs["dtype"] = convert_dtype(attrs["dtype"])
        for k, v in self.op_def.attrs.items():
            attrs.setdefault(k, v)
        # Paddle's op desc holds every attribute its proto declares, the inert ones too,
        # and in 1.8 those refimpl's op does not declare (use_mkldnn, x_data_format, ...);
        # Paddle 3's, with_quant_attr too (switch op_desc_attrs)
        for k, v in self.op_def.desc_inert_attrs().items():
            attrs.setdefault(k, copy.copy(v))
        if versions.switch("op_desc_attrs") == "with_quant_attr":
            attrs.setdefault("with_quant_attr", False)
        if versions.switch("undeclared_op_attrs"):
            for k, v in undeclared_attr_defaults(versions.release(), type).items():
                attrs.setdefault(k, copy.copy(v))
        program = block.program
        attrs.setdefault(_OP_ROLE_ATTR, program._current_role)
        attrs.setdefault(_OP_ROLE_VAR_ATTR, list(program._current_role_vars))
        attrs.setdefault("op_namescope", "/" + "".join(s + "/" for s in program._name_scope_stack))
        attrs.setdefault(_OP_DEVICE_ATTR, _device_for(type))
        if "op_callstack" not in attrs:
            attrs["op_callstack"] = user_frame()
        self.attrs = attrs
        self.op_def.check_slots(self)
        if infer:
            self.op_def.run_infer_shape(self)

    # -- Paddle's accessors
    def input(self, slot):
        return self.inputs.get(slot, [])

    def output(self, slot):
        return self.outputs.get(slot, [])

    @property
    def input_names(self):
        return list(self.inputs)

    @property
    def output_names(self):
        return list(self.outputs)

    @property
    def input_arg_names(self):
        return [n for names in self.inputs.values() for n in names]

    @property
    def output_arg_names(self):
        return [n for names in self.outputs.values() for n in names]

    def attr(self, name):
        return self.attrs[name]

    def has_attr(self, name):
        return name in self.attrs

    def _set_attr(self, name, value):
        self.attrs[name] = value
        self.block.program._bump()

    _update_desc_attr = _set_attr

    def all_attrs(self):
        return dict(self.attrs)

    @property
    def attr_names(self):
        return list(self.attrs)

    def attr_type(self, name):
        """Paddle's AttrType code of attribute `name` (framework/desc.py)."""
        return self.desc.attr_type(name)

    @property
    def idx(self):
        """The op's position in its block."""
        try:
            return self.block.ops.index(self)     # Operator has no __eq__: by identity
        except ValueError:
            raise ValueError("op %s is not in its block %d"
                             % (self.type, self.block.idx)) from None

    def _is_optimize_op(self):
        """Whether an optimizer made this op (op_role has the Optimize bit)."""
        return bool(self.attrs.get(_OP_ROLE_ATTR, OpRole.Forward) & OpRole.Optimize)

    @property
    def created_at(self):
        return self.attrs.get("op_callstack", "")

    def _rename_input(self, old, new):
        for names in self.inputs.values():
            names[:] = [new if n == old else n for n in names]
        self.block.program._bump()

    def _rename_output(self, old, new):
        for names in self.outputs.values():
            names[:] = [new if n == old else n for n in names]
        self.block.program._bump()

    def error(self, message):
        return OpError(self.type, message, self.created_at)

    @property
    def desc(self):
        """Paddle's OpDesc view of this op (framework/desc.py)."""
        from .desc import OpDesc
        desc = self.__dict__.get("_desc")
        if desc is None:
            desc = self._desc = OpDesc(self)
        return desc

    def _clone_into(self, block):
        new = object.__new__(Operator)
        new.block = block
        new.type = self.type
        new.op_def = self.op_def
        new.inputs = {k: list(v) for k, v in self.inputs.items()}
        new.outputs = {k: list(v) for k, v in self.outputs.items()}
        new.attrs = copy.deepcopy(self.attrs)
        new.lists_proto_inputs = self.lists_proto_inputs
        return new

    def _to_readable_code(self):
        def slots(d):
            return ", ".join("%s=[%s]" % (k, ", ".join(v)) for k, v in d.items())
        shown = {k: v for k, v in self.attrs.items() if k not in ("op_callstack", "op_namescope")
                 and not (k == _OP_DEVICE_ATTR and v == "")}
        attrs = ", ".join("%s = %r" % (k, shown[k]) for k in sorted(shown))
        return "{%s} = %s(inputs={%s}, %s)" % (slots(self.outputs), self.type,
                                               slots(self.inputs), attrs)

    __str__ = __repr__ = _to_readable_code


# ops that write a parameter without initializing it: Paddle 1.8's startup programs
# broadcast each initialized parameter (c_broadcast, then c_sync_comm_stream)
_NOT_INITIALIZERS = ("c_broadcast", "c_sync_comm_stream")


def _check_registered(op_type):
    """Paddle's errors for an op appended without a type or of an unknown type (refimpl's
    guesses at the type meant follow as a note)."""
    if op_type is None:
        raise ValueError("`type` to initialized an Operator can not be None.")
    try:
        op_definition(op_type)
    except OpError as unknown:
        error = ValueError('Operator "%s" has not been registered.' % op_type)
        error.add_note(str(unknown))
        raise error from None


def _check_redeclared(var, kwargs):
    """Declaring an existing variable again must agree with its shape and dtype (as in
    Paddle: a ValueError naming both)."""
    shape, dtype = kwargs.get("shape"), kwargs.get("dtype")
    if shape is not None and var.shape is not None:
        new = tuple(-1 if d is None else int(d) for d in shape)
        if new != tuple(var.shape):
            raise ValueError("Variable %s has been created before. the previous shape is %s; "
                             "the new shape is %s. They are not matched."
                             % (var.name, tuple(var.shape), new))
    if dtype is not None and var.dtype is not None and convert_dtype(dtype) != var.dtype.name:
        raise ValueError("Variable %s has been created before. The previous data type is %s; "
                         "the new data type is %s. They are not matched."
                         % (var.name, var.dtype.name, convert_dtype(dtype)))


class Block:
    def __init__(self, program, idx, parent_idx=-1):
        self.program = program
        self.idx = idx
        self.parent_idx = parent_idx
        self.vars = {}
        self.ops = []
        self.forward_block_idx = -1
        self._pending_descs = []    # desc.append_op() results not yet synced into ops

    @property
    def desc(self):
        """Paddle's BlockDesc view of this block (framework/desc.py)."""
        from .desc import BlockDesc
        return BlockDesc(self)

    @property
    def parent_block(self):
        return self.program.block(self.parent_idx) if self.parent_idx >= 0 else None

    def var(self, name):
        if not isinstance(name, str):
            raise TypeError("var() takes a variable name (str), got %s" % type(name).__name__)
        v = self._find_var_recursive(name)
        if v is None:
            raise ValueError("variable %r is not in block %d of this program" % (name, self.idx))
        return v

    def has_var(self, name):
        return name in self.vars

    def _find_var_recursive(self, name):
        block = self
        while block is not None:
            if name in block.vars:
                return block.vars[name]
            block = block.parent_block
        return None

    def create_var(self, **kwargs):
        if mode.dynamic and mode.eager is not None and self.program is default_main_program():
            # as Paddle 1.8's dygraph: an eager tensor, its value to come
            return mode.eager.placeholder(kwargs.get("dtype"), kwargs.get("shape"),
                                          kwargs.get("stop_gradient", False),
                                          kwargs.get("name"), kwargs.get("persistable", False))
        name = kwargs.get("name")
        if name is not None and name in self.vars:
            old = self.vars[name]
            _check_redeclared(old, kwargs)
            return old
        v = Variable(self, **kwargs)
        if kwargs.get("persistable") is None:
            v.persistable_given = False
        if kwargs.get("shape") is not None and kwargs.get("dtype") is None:
            v._dtype_declared = False
        self.vars[v.name] = v
        self.program._bump()
        return v

    def create_parameter(self, *args, **kwargs):
        """A Parameter of the global block (shape and dtype may come positionally, as
        Parameter's; keywords it does not know, such as a ParamAttr `attr`, are ignored as
        Paddle's Variable ignores them); `initializer` adds its init op to this block,
        unless an op of the global block already writes it (Paddle 1.8: a parameter is
        initialized once however often it is declared; its broadcast is no initializer)."""
        initializer = kwargs.pop("initializer", None)
        check_new_parameter_shape(kwargs.get("name"), args[0] if args else kwargs.get("shape"))
        global_block = self.program.global_block()
        p = Parameter(global_block, *args, **kwargs)
        global_block.vars[p.name] = p
        if initializer is not None:
            writers = [op for op in global_block.ops if p.name in op.output_arg_names
                       and op.type not in _NOT_INITIALIZERS]
            if len(writers) > 1:
                raise RuntimeError("parameter %r is initialized by several ops: %s"
                                   % (p.name, [op.type for op in writers]))
            if not writers:
                initializer(p, self)
        self.program._bump()
        return p

    def all_parameters(self):
        return [v for v in self.vars.values() if isinstance(v, Parameter)]

    def iter_parameters(self):
        return iter(self.all_parameters())

    def append_op(self, type=None, inputs=None, outputs=None, attrs=None, **_ignored):
        _check_registered(type)
        if mode.dynamic and mode.eager is not None and (
                mode.eager.has_eager_input(inputs) or mode.eager.has_eager_input(outputs)):
            # as Paddle 1.8's dygraph tracer: an op on eager tensors runs now (its
            # attributes may have their older names, as in a program)
            return mode.eager.append_op(self, type, inputs, outputs,
                                        _current_attr_names(op_definition(type), attrs))
        op = Operator(self, type, inputs, outputs, attrs)
        self.ops.append(op)
        self.program._bump()
        return op

    def _insert_op(self, index, type=None, inputs=None, outputs=None, attrs=None, **_ignored):
        _check_registered(type)
        op = Operator(self, type, inputs, outputs, attrs)
        self.ops.insert(index, op)
        self.program._bump()
        return op

    def _prepend_op(self, *args, **kwargs):
        return self._insert_op(0, *args, **kwargs)

    def _remove_op(self, index):
        del self.ops[index]
        self.program._bump()

    def _remove_var(self, name):
        del self.vars[name]
        self.program._bump()

    def _rename_var(self, old, new):
        v = self.vars.pop(old)
        v.name = new
        self.vars[new] = v
        for op in self.ops:
            op._rename_input(old, new)
            op._rename_output(old, new)
        return v

    def _copy_param_info_from(self, other):
        """Each Parameter of block `other` that this block holds as a variable of the same
        name becomes a Parameter here, with `other`'s trainable, optimize_attr,
        regularizer, ... and this block's shape and dtype (Paddle 1.8: a pruned or
        deserialized program gets its parameters back so)."""
        if not isinstance(other, Block):
            raise TypeError("_copy_param_info_from should be invoked with Block, got %s"
                            % type(other).__name__)
        for p in other.iter_parameters():
            v = self.vars.get(p.name)
            if v is None:     # pruned away
                continue
            self.vars[p.name] = Parameter(
                self, v.shape, v.dtype, name=v.name, type=v.type, lod_level=v.lod_level,
                trainable=p.trainable, regularizer=p.regularizer,
                optimize_attr=p.optimize_attr, do_model_average=p.do_model_average,
                need_clip=p.need_clip)
        self.program._bump()

    def _to_readable_code(self):
        lines = ["{ // block %d" % self.idx]
        lines += ["    " + v._to_readable_code() for v in self.vars.values()]
        lines.append("")
        lines += ["    " + op._to_readable_code() for op in self.ops]
        lines.append("}")
        return "\n".join(lines)

    __str__ = __repr__ = _to_readable_code


# the random_seed new Programs start with (Program.global_seed sets it)
_global_program_seed = [0]


class Program:
    """A whole static graph: blocks of ops over named variables."""
    # Paddle 1.8's parameter-server transpiler information (_copy_dist_param_info_from
    # carries it from program to program; refimpl runs no parameter servers)
    _DIST_INFO = ("_is_distributed", "_is_chief", "_parameters_on_pservers", "_endpoints",
                  "_ps_endpoint", "_distributed_lookup_table")
    _is_distributed = _is_chief = False
    _parameters_on_pservers = _ps_endpoint = _distributed_lookup_table = None
    _endpoints = ()

    def __init__(self):
        self.blocks = [Block(self, 0)]
        self._current_block_idx = 0
        self._seed = _global_program_seed[0]
        self._version = 0
        self._current_role = OpRole.Forward
        self._current_role_vars = []
        self._name_scope_stack = []
        self._is_test = False
        self.lr_scheduler = None
        # backward passes appended so far (gradients of gradients rename what would clash
        # with an earlier pass's gradients: refimpl/backward)
        self._appending_grad_times = 0
        # a ProgramDesc's version and op version maps, when it was read from one (written
        # back as they were: framework/paddle_formats/program_desc.py)
        self.paddle_desc_versions = None
        # ProgramDesc.flush() / cached_hash_str(): the version flushed, and (version, hash)
        self.desc_flushed_version = None
        self.desc_hash = None

    def _bump(self):
        """Any structural change invalidates compiled executor plans."""
        self._version += 1

    @property
    def desc(self):
        """Paddle's ProgramDesc view of this program (framework/desc.py)."""
        from .desc import ProgramDesc
        return ProgramDesc(self)

    @staticmethod
    def parse_from_string(binary_str):
        """The Program in ProgramDesc bytes (`program.desc.serialize_to_string()`, a
        `__model__` file's content)."""
        from .model_formats import program_from_bytes
        return program_from_bytes(binary_str, "parse_from_string")[0]

    def _sync_with_cpp(self):
        """Turn OpDescs appended through `block.desc.append_op()` into Operators (shapes
        are not inferred: the variables they name may be created afterwards)."""
        for block in self.blocks:
            for desc in block._pending_descs:
                inputs, outputs, attrs = desc._fields
                op = Operator(block, desc.type(), inputs, outputs, attrs, infer=False)
                op.lists_proto_inputs = False      # a desc made in C++ holds only its own
                desc._op = op
                op._desc = desc
                block.ops.append(op)
            if block._pending_descs:
                block._pending_descs = []
                self._bump()

    # -- blocks
    def global_block(self):
        return self.blocks[0]

    def block(self, index):
        return self.blocks[index]

    def current_block(self):
        return self.blocks[self._current_block_idx]

    @property
    def num_blocks(self):
        return len(self.blocks)

    def _create_block(self, parent_idx=None):
        parent = self._current_block_idx if parent_idx is None else parent_idx
        block = Block(self, len(self.blocks), parent)
        self.blocks.append(block)
        self._current_block_idx = block.idx
        return block

    def _rollback(self):
        self._current_block_idx = self.current_block().parent_idx

    # -- variables
    def list_vars(self):
        for block in self.blocks:
            yield from block.vars.values()

    def all_parameters(self):
        return self.global_block().all_parameters()

    def global_seed(self, seed=0):
        """This program's random_seed and that of every Program made from now on (Paddle
        1.8.5 and 2.0: new Programs start with the global seed)."""
        self.random_seed = seed
        _global_program_seed[0] = seed

    @property
    def random_seed(self):
        return self._seed

    @random_seed.setter
    def random_seed(self, seed):
        if not isinstance(seed, int):
            raise ValueError("Program.random_seed must be an int, got %r" % (seed,))
        self._seed = seed

    # -- roles (what append_backward / optimizers mark their ops with)
    @contextlib.contextmanager
    def _role_guard(self, role, role_vars=()):
        old = self._current_role, self._current_role_vars
        self._current_role, self._current_role_vars = role, list(role_vars)
        try:
            yield
        finally:
            self._current_role, self._current_role_vars = old

    def _optimized_guard(self, param_and_grads):
        names = [v.name if isinstance(v, Variable) else v for v in param_and_grads]
        return self._role_guard(OpRole.Optimize, names)

    def _backward_role_guard(self):
        return self._role_guard(OpRole.Backward)

    def _lr_schedule_guard(self):
        return self._role_guard(OpRole.LRSched)

    # -- copying
    def clone(self, for_test=False):
        """Deep copy. for_test=True drops backward/optimize/LR ops and sets is_test attrs."""
        p = Program()
        p._seed = self._seed
        p.lr_scheduler = self.lr_scheduler
        p._appending_grad_times = self._appending_grad_times
        p.blocks = []
        for b in self.blocks:
            nb = Block(p, b.idx, b.parent_idx)
            nb.forward_block_idx = b.forward_block_idx
            nb.vars = {n: v._clone_into(nb) for n, v in b.vars.items()}
            nb.ops = [op._clone_into(nb) for op in b.ops]
            p.blocks.append(nb)
        if for_test:
            p._is_test = True
            p.lr_scheduler = None
            grad_blocks, pruned = set(), set()
            for b in p.blocks:
                grad_blocks.update(op.attrs["sub_block"] for op in b.ops
                                   if not _is_forward_op(op) and "sub_block" in op.attrs)
                forward = [op for op in b.ops if _is_forward_op(op)]
                if len(forward) < len(b.ops):
                    pruned.add(b.idx)
                b.ops = forward
                for op in b.ops:
                    if "is_test" in op.attrs:
                        op.attrs["is_test"] = True
            p._narrow_control_slots(pruned)
            for b in p.blocks:
                used = {n for op in b.ops for n in op.input_arg_names + op.output_arg_names}
                b.vars = {n: v for n, v in b.vars.items()
                          if n in used or isinstance(v, Parameter) or v.is_data}
            p._drop_blocks(grad_blocks)
        return p

    def _narrow_control_slots(self, pruned):
        """After clone(for_test=True) dropped the backward / optimizer ops of the blocks
        `pruned` (an optimizer's minimize inside a cond branch puts them there), the
        control ops running those blocks list only the enclosing names the remaining ops
        read and write, as Paddle 1.8's branch, whose gradient ops live in a block of
        their own, lists only its forward reads. Inner blocks first: a nested control
        op's slots are its block's data flow."""
        for b in reversed(self.blocks):
            for op in b.ops:
                slots = getattr(op.op_def, "io_slots", None)
                if slots is None or op.attrs["sub_block"] not in pruned:
                    continue
                (reads_slot, writes_slot), (reads, writes) = slots, block_io(
                    self.blocks[op.attrs["sub_block"]])
                for names, slot, kept in ((op.inputs, reads_slot, reads),
                                          (op.outputs, writes_slot, writes)):
                    if slot in names:
                        narrowed = [n for n in names[slot] if n in kept]
                        if narrowed != names[slot]:
                            pruned.add(b.idx)
                        names[slot] = narrowed

    def _drop_blocks(self, indices):
        """Remove the blocks `indices` and the blocks inside them, renumbering the rest
        (parent_idx, forward_block_idx, sub_block attrs): what clone(for_test=True) does
        with the gradient blocks of conditional_block_grad / while_grad, as Paddle 1.8's
        prune_backward (its test_program_prune_backward compares the block counts)."""
        dropped = set(indices)
        for b in self.blocks:       # a child block follows its parent
            if b.parent_idx in dropped:
                dropped.add(b.idx)
        if not dropped:
            return
        kept = [b for b in self.blocks if b.idx not in dropped]
        new_index = {b.idx: i for i, b in enumerate(kept)}
        for b in kept:
            b.idx = new_index[b.idx]
            b.parent_idx = new_index.get(b.parent_idx, -1)
            b.forward_block_idx = new_index.get(b.forward_block_idx, -1)
            for op in b.ops:
                if "sub_block" in op.attrs:
                    op.attrs["sub_block"] = new_index[op.attrs["sub_block"]]
        self.blocks = kept

    def _inference_optimize(self, prune_read_op=True):
        """A copy for inference, as Paddle 1.8's: every op kept (backward and optimizer ops
        too), `is_test` attrs set True; with prune_read_op the leading reader ops up to
        the first `read` and the READER variables are dropped."""
        res = self.clone()
        block = res.global_block()
        if prune_read_op:
            reads = [i for i, op in enumerate(block.ops) if op.type == "read"]
            if reads:
                del block.ops[:reads[0] + 1]
            block.vars = {n: v for n, v in block.vars.items() if v.type != "READER"}
        for b in res.blocks:
            for op in b.ops:
                if "is_test" in op.attrs:
                    op.attrs["is_test"] = True
        res._bump()
        return res

    def _check_is_program(self, other, fn):
        if not isinstance(other, Program):
            raise TypeError("Function Program.%s() needs to pass in a source Program, but "
                            "received %s" % (fn, type(other).__name__))

    def _copy_param_info_from(self, other):
        """The Parameters of `other`'s global block (Block._copy_param_info_from)."""
        self._check_is_program(other, "_copy_param_info_from")
        self.global_block()._copy_param_info_from(other.global_block())

    def _copy_data_info_from(self, other, pruned_origin_block_id_map=None):
        """Each variable of this program's blocks takes is_data, need_check_feed and
        stop_gradient (when set) from the same-named variable of `other`'s block that
        `pruned_origin_block_id_map` maps it to (block i to block i by default): a clone or
        pruned copy gets its data variables back so (Paddle 1.8 / 2.0). A variable missing
        from that block is a ValueError."""
        self._check_is_program(other, "_copy_data_info_from")
        block_map = pruned_origin_block_id_map or {i: i for i in range(len(self.blocks))}
        for i, block in enumerate(self.blocks):
            source = other.blocks[block_map[i]]
            for name, var in block.vars.items():
                origin = source.vars.get(name)
                if origin is None:
                    raise ValueError("_copy_data_info_from: variable %r of block %d is not in "
                                     "block %d of the source program" % (name, i, source.idx))
                var.is_data = var.is_data or origin.is_data
                var.need_check_feed = var.need_check_feed or origin.need_check_feed
                var.stop_gradient = var.stop_gradient or origin.stop_gradient

    def _copy_dist_param_info_from(self, other):
        self._check_is_program(other, "_copy_dist_param_info_from")
        for name in self._DIST_INFO:
            setattr(self, name, getattr(other, name))

    def _prune(self, targets):
        """_prune_with_input with nothing fed (Paddle 1.8's Program._prune)."""
        return self._prune_with_input([], targets)

    def _prune_with_input(self, feeded_var_names, targets):
        """A copy with only the ops that compute `targets` (Variables, names, or ops of the
        global block, e.g. an optimizer's update ops) from the variables named
        `feeded_var_names` and the persistables, and only the variables they use (Paddle
        1.8's Program._prune_with_input; save_inference_model and Executor.run(use_prune)
        prune so). As in Paddle 1.8.5, a target may need a variable that is not fed (its
        test_rnn_decode_api prunes a program it never runs): running it says so."""
        names = feeded_var_names if isinstance(feeded_var_names, list) else [feeded_var_names]
        for name in names:
            if not isinstance(name, str):
                raise ValueError("All feeded_var_names of Program._prune_with_input() can only "
                                 "be str, but received %s." % type(name))
        targets = targets if isinstance(targets, list) else [targets]
        block = self.global_block()
        fetches, target_ops = [], []
        for t in targets:
            if isinstance(t, Operator):
                if t.block is not block:
                    raise ValueError("Program._prune_with_input: target op %s is not in the "
                                     "program's global block" % t.type)
                target_ops.append(t.idx)
                continue
            if not isinstance(t, (Variable, str)):
                raise ValueError("All targets of Program._prune_with_input() can only be "
                                 "Variable or Operator, but received %s." % type(t))
            name = t.name if isinstance(t, Variable) else t
            if name in names:      # fed: nothing computes it
                continue
            if not any(name in op.output_arg_names and (_kept_for_outputs(op) or op in targets)
                       for op in block.ops):
                raise ValueError("The target variable used for pruning should have an "
                                 "associated operator that generates it (%r has none)" % name)
            fetches.append(name)
        pruned = self.clone()
        pruned._prune_in_place(list(names), fetches, "Program._prune_with_input",
                               check_inputs=False, target_ops=target_ops, keep_feeds=False)
        return pruned

    def _prune_in_place(self, feeds, fetches, fn, check_inputs=True, target_ops=(),
                        keep_feeds=True):
        """Keep the global block's ops that compute `fetches` from `feeds`, and the ops at
        the indices `target_ops` with what they need; without `keep_feeds` a feed that no
        kept op reads goes too (Paddle 1.8's prune, whose executor then drops that feed)."""
        block = self.global_block()
        for name in feeds + fetches:
            if name not in block.vars:
                raise ValueError("%s: %r is not a variable of the program's global block"
                                 % (fn, name))
        targets = set(target_ops)
        needed, kept = set(fetches) - set(feeds), []
        for i in reversed(range(len(block.ops))):
            op = block.ops[i]
            if i in targets or (_kept_for_outputs(op)
                                and needed.intersection(op.output_arg_names)):
                kept.append(op)
                needed.update(n for n in op.input_arg_names if n not in feeds)
        kept.reverse()
        produced = {n for op in kept for n in op.output_arg_names}
        for name in (needed - produced) if check_inputs else ():
            var = block.vars.get(name)
            if var is None or not var.persistable:
                raise ValueError("%s: the fetch targets need %r, which is neither fed, nor "
                                 "computed from the feeds, nor persistable" % (fn, name))
        used = set(fetches) | {n for op in kept for n in op.input_arg_names +
                               op.output_arg_names}
        if keep_feeds:
            used.update(feeds)
        block.ops = kept
        block.vars = {n: v for n, v in block.vars.items() if n in used}
        self._bump()

    # -- values (Paddle 2.x: what paddle.save / paddle.load exchange for a static program)
    def _state_vars(self, mode, fn):
        from .dtypes import VarType
        kinds = {"param": (True,), "opt": (False,), "all": (True, False)}
        if mode not in kinds:
            raise ValueError("%s: mode must be 'param', 'opt' or 'all', got %r" % (fn, mode))
        skipped = (VarType.FEED_MINIBATCH, VarType.FETCH_LIST, VarType.READER, VarType.RAW)
        return [v for v in self.global_block().vars.values()
                if v.persistable and not v.is_data and v.type not in skipped
                and isinstance(v, Parameter) in kinds[mode]]

    def state_dict(self, mode="all", scope=None):
        """{name: LoDTensor} of the persistable variables' values in `scope` (default the
        global scope): 'param' Parameters, 'opt' the other persistables (optimizer state,
        learning rate), 'all' both."""
        from .scope import Tensor, global_scope
        scope = scope if scope is not None else global_scope()
        out = {}
        for var in self._state_vars(mode, "Program.state_dict"):
            owner = scope._find_owner(var.name)
            if owner is None or owner._values.get(var.name) is None:
                raise ValueError("Program.state_dict: persistable variable %r has no value in "
                                 "the scope (run the startup program first)" % var.name)
            out[var.name] = Tensor(scope=owner, name=var.name)
        return out

    def set_state_dict(self, state_dict, scope=None):
        """Set the values of `state_dict` (name -> array or LoDTensor) into `scope` (default
        the global scope), all checked against their variables' shape and dtype before any
        is set; names that are not persistables of this program are skipped with a
        warning."""
        import warnings
        from .scope import checked_value, global_scope
        if not isinstance(state_dict, dict):
            raise TypeError("Program.set_state_dict: state_dict must be a dict, got %s"
                            % type(state_dict).__name__)
        scope = scope if scope is not None else global_scope()
        known = {v.name: v for v in self._state_vars("all", "Program.set_state_dict")}
        for name in state_dict:
            if name not in known:
                warnings.warn("Program.set_state_dict: skipped %r, not a persistable variable "
                              "of the program" % name, stacklevel=2)
        # every value checked before any is set: a bad entry changes nothing
        scope.set_values({name: checked_value(known[name], value, "Program.set_state_dict",
                                              "state_dict", copy=True)
                          for name, value in state_dict.items() if name in known})

    def _to_readable_code(self):
        return "\n".join(b._to_readable_code() for b in self.blocks)

    def to_string(self, throw_on_error=False, with_details=False):
        """The program in Paddle's ProgramDesc text format (program_text.py); with_details
        adds each variable's Python-side fields. throw_on_error: a ValueError naming the
        required fields left unset, as Paddle's: the data type of a variable declared with
        a shape and no dtype."""
        from .program_text import program_to_text   # it imports this module
        for arg, value in (("throw_on_error", throw_on_error), ("with_details", with_details)):
            if not isinstance(value, bool):
                raise TypeError("Program.to_string: %s must be a bool, got %r" % (arg, value))
        if throw_on_error:
            unset = ["blocks[%d].vars[%d].type.lod_tensor.tensor.data_type (variable %s)"
                     % (b.idx, i, v.name) for b in self.blocks
                     for i, v in enumerate(b.vars.values()) if not v._dtype_declared]
            if unset:
                raise ValueError("Program.to_string: %s are not initialized: declare those "
                                 "variables with a dtype" % unset)
        return program_to_text(self, with_details)

    def to_json(self):
        """The program as refimpl's readable JSON (specs/io.md: everything refimpl keeps,
        Parameter details included); savers write Paddle's ProgramDesc."""
        from .serialization import program_to_bytes
        return program_to_bytes(self).decode("utf-8")

    def __str__(self):
        # Paddle 1.8 prints a Program as to_string(True); 2.0 as its readable code
        if versions.switch("fluid_debug_text"):
            return self.to_string(True)
        return self._to_readable_code()

    __repr__ = __str__


def _variable_to_string(self, throw_on_error=False, with_details=False):
    """The variable in Paddle's VarDesc text format, as Program.to_string prints it."""
    from .paddle_formats.program_desc import block_writers
    from .program_text import _var_lines
    for arg, value in (("throw_on_error", throw_on_error), ("with_details", with_details)):
        if not isinstance(value, bool):
            raise TypeError("Variable.to_string: %s must be a bool, got %r" % (arg, value))
    writer = block_writers(self.block).get(self.name) if self.block is not None else None
    return "\n".join(_var_lines(self, writer, with_details)) + "\n"


Variable.to_string = _variable_to_string


def _kept_for_outputs(op):
    """Whether pruning keeps `op` for a needed output. Not an optimizer's update op (Paddle
    1.8's prune): it writes the parameters the forward ops read, which is no reason to run
    it; it is kept only as a target."""
    return not op._is_optimize_op()


def _is_forward_op(op):
    role = op.attrs.get(_OP_ROLE_ATTR, 0)
    return not role & (OpRole.Backward | OpRole.Optimize | OpRole.LRSched)


_main_program = Program()
_startup_program = Program()


def default_main_program():
    return _main_program


def default_startup_program():
    return _startup_program


def switch_main_program(program):
    global _main_program
    old, _main_program = _main_program, program
    return old


def switch_startup_program(program):
    global _startup_program
    old, _startup_program = _startup_program, program
    return old


@contextlib.contextmanager
def program_guard(main_program, startup_program=None):
    if not isinstance(main_program, Program):
        raise TypeError("program_guard: main_program must be a Program, got %s"
                        % type(main_program).__name__)
    if startup_program is not None and not isinstance(startup_program, Program):
        raise TypeError("program_guard: startup_program must be a Program, got %s"
                        % type(startup_program).__name__)
    old_main = switch_main_program(main_program)
    old_startup = switch_startup_program(startup_program) if startup_program is not None else None
    try:
        with mode.program_guard_scope(versions.switch("program_guard_mode") == "static"):
            yield
    finally:
        switch_main_program(old_main)
        if startup_program is not None:
            switch_startup_program(old_startup)


@contextlib.contextmanager
def name_scope(prefix=None):
    """Ops built inside get op_namescope '/outer/prefix/'; a prefix used again under the
    same scope becomes prefix_1, prefix_2, ... (as Paddle numbers its name scopes)."""
    stack = default_main_program()._name_scope_stack
    prefix = prefix or ""
    key = (tuple(stack), prefix)
    used = _name_scope_uses.get(key, 0)
    _name_scope_uses[key] = used + 1
    stack.append(prefix if used == 0 else "%s_%d" % (prefix, used))
    try:
        yield
    finally:
        stack.pop()


_name_scope_uses = {}   # (enclosing scopes, prefix) -> times entered
