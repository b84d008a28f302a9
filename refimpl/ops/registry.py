"""The op registry: every op type is one `OpDef` subclass in its own module of refimpl.ops.

An OpDef is the op's specification, nothing about how it is run:
  inputs / outputs   slot names; "X*" = a list of variables, "Bias?" = optional
  attrs              attribute defaults (only these reach the functions, as keywords)
  infer_shape(ctx)   build-time shape/dtype inference (-1 = unknown dim)
  forward(...)       the numpy reference: inputs positionally in slot order, attrs as
                     keywords; returns one array, or a tuple in output-slot order
  backward(...)      optional; its presence registers "<type>_grad", whose inputs are
                     `grad_inputs` (default: inputs, outputs, "<Out>@GRAD" per output)
                     and whose outputs are "<In>@GRAD" for each input not in `no_grad`
  samples(rng)       sample inputs for the generic OpInfo-style tests and the goldens
  tolerances         per dtype, and fd_tolerance for the finite-difference check
Compiled kernels, out and in-place variants and what a forward hands its grad op are the
kernel table's (refimpl/_kernels/table.py); refimpl.dispatch picks the function that runs.
Control-flow ops are BlockOpDefs: their semantics run a sub-block.
"""
import difflib
import importlib
import pkgutil

import numpy as np

from ..framework.errors import OpError
from ._xp_generic import XP_GENERIC

__all__ = ["OpDef", "BlockOpDef", "register", "get_op_def", "all_op_types", "Sample",
           "InferContext"]

_OPS = {}
_loaded = False


def slot_name(slot):
    return slot.rstrip("*?")


def is_duplicable(slot):
    # suffixes combine: a grad op's "X@GRAD*?" is a list that may be absent
    return slot.rstrip("?").endswith("*")


def is_optional(slot):
    return slot.rstrip("*").endswith("?")


class Sample:
    """One test case for an op: inputs by slot name (array, or list for 'X*') and attrs."""

    def __init__(self, inputs, attrs=None, grad=True, name=""):
        self.inputs = inputs
        self.attrs = attrs or {}
        self.grad = grad
        self.name = name

    def __repr__(self):
        shapes = {k: (np.shape(v) if not isinstance(v, list) else [np.shape(a) for a in v])
                  for k, v in self.inputs.items()}
        return "Sample(%s %s %s)" % (self.name, shapes, self.attrs)


class InferContext:
    """What infer_shape sees: the op's input vars and attrs; it sets output shape/dtype."""

    def __init__(self, op):
        self.op = op
        self.block = op.block

    def _var(self, name):
        v = self.block._find_var_recursive(name)
        if v is None:
            raise self.op.error("variable %r is not in the program" % name)
        return v

    def has_input(self, slot):
        return bool(self.op.inputs.get(slot))

    def has_output(self, slot):
        return bool(self.op.outputs.get(slot))

    def input_count(self, slot):
        return len(self.op.inputs.get(slot, ()))

    def input_var(self, slot, i=0):
        names = self.op.inputs.get(slot)
        return self._var(names[i]) if names else None

    def input_vars(self, slot):
        return [self._var(n) for n in self.op.inputs.get(slot, ())]

    def input_shape(self, slot, i=0):
        return tuple(self.input_var(slot, i).shape)

    def input_dtype(self, slot, i=0):
        return self.input_var(slot, i).dtype

    def attr(self, name):
        return self.op.attrs[name]

    def set_output(self, slot, shape, dtype, i=None):
        names = self.op.outputs.get(slot, ())
        for j, name in enumerate(names):
            if i is not None and j != i:
                continue
            v = self.block._find_var_recursive(name)
            if v is None:
                v = self.block.create_var(name=name, shape=shape, dtype=dtype)
            v._set_shape_dtype(shape, dtype)

    def same_as(self, in_slot, out_slot):
        v = self.input_var(in_slot)
        self.set_output(out_slot, v.shape, v.dtype)

    def fail(self, message):
        raise self.op.error(message)

    def expect(self, cond, message):
        if not cond:
            self.fail(message)

    def check_dtype(self, slot, allowed):
        for i, v in enumerate(self.input_vars(slot)):
            if v.dtype is not None and v.dtype.name not in allowed:
                self.fail("input %s %r: expected dtype in %s, got %s"
                          % (slot, v.name, list(allowed), v.dtype.name))


class OpDef:
    type = None
    inputs = ()
    outputs = ()
    attrs = {}
    grad_inputs = None
    no_grad = ()
    tolerances = {"float32": (1e-4, 1e-5), "float64": (1e-7, 1e-9)}
    # Grad check: relative step for finite differences and its tolerance.
    fd_tolerance = (1e-3, 1e-4)
    # The forward and backward compute with the array module of their inputs (refimpl.xp):
    # on a GPU they run on CuPy arrays as they are; the others run on host copies there.
    # Listed in ops/_xp_generic.py (or set True by the class).
    xp_generic = False

    def infer_shape(self, ctx):
        raise NotImplementedError("op %s has no infer_shape" % self.type)

    def samples(self, rng):
        return []

    # -- declared structure
    @property
    def input_slots(self):
        return [slot_name(s) for s in self.inputs]

    @property
    def output_slots(self):
        return [slot_name(s) for s in self.outputs]

    def check_slots(self, op):
        declared_in = {slot_name(s): s for s in self.inputs}
        declared_out = {slot_name(s): s for s in self.outputs}
        for kind, given, declared in (("input", op.inputs, declared_in),
                                      ("output", op.outputs, declared_out)):
            for slot, names in given.items():
                if slot not in declared:
                    raise op.error("unknown %s slot %r; the op declares %s"
                                   % (kind, slot, sorted(declared)))
                if len(names) > 1 and not is_duplicable(declared[slot]):
                    raise op.error("%s slot %r takes one variable, got %d: %s"
                                   % (kind, slot, len(names), names))
        for s in self.inputs:
            if not is_optional(s) and not op.inputs.get(slot_name(s)):
                raise op.error("missing required input %r" % slot_name(s))

    def run_infer_shape(self, op):
        ctx = InferContext(op)
        for names in op.inputs.values():
            for n in names:
                ctx._var(n)
        self.infer_shape(ctx)

    def bound_attrs(self, op):
        """Extra keyword arguments of the reference that come from the program, not from
        attrs (py_func: its outputs' shapes and dtypes); fixed when the op is bound."""
        return {}

    # -- gradients
    def has_grad(self):
        return hasattr(self, "backward")

    def grad_input_slots(self):
        if self.grad_inputs is not None:
            return list(self.grad_inputs)
        outs = [slot_name(s) for s in self.outputs]
        return list(self.inputs) + list(self.outputs) + [o + "@GRAD" for o in outs]

    def grad_output_slots(self):
        return [slot_name(s) + "@GRAD" + ("*" if is_duplicable(s) else "") + "?"
                for s in self.inputs if slot_name(s) not in self.no_grad]


class BlockOpDef(OpDef):
    """A control-flow op: it runs a sub-block of the program (attr `sub_block`). Instead of
    `forward` it has `bind_control(op, compile_ops) -> run(env)`, where the executor's
    `compile_ops(ops, keep)` makes a nested plan over `ops` run on the same dict of values,
    freeing what the ops make except the names in `keep`."""

    def bind_control(self, op, compile_ops):
        raise NotImplementedError("op %s has no bind_control" % self.type)


def _grad_input_slot(fwd, slot):
    """A grad op's input slot: a forward input or output named bare in `grad_inputs` is a
    list or optional there as it is in the forward; an output's gradient may be absent."""
    if is_optional(slot) or is_duplicable(slot):
        return slot
    if "@GRAD" in slot:
        return slot + "?"
    declared = {slot_name(s): s for s in tuple(fwd.inputs) + tuple(fwd.outputs)}
    return declared.get(slot, slot)


class _GradOpDef(OpDef):
    """Auto-generated "<type>_grad": runs the forward op's `backward`."""

    def __init__(self, fwd):
        self.fwd = fwd
        self.type = fwd.type + "_grad"
        self.inputs = tuple(_grad_input_slot(fwd, s) for s in fwd.grad_input_slots())
        self.outputs = tuple(fwd.grad_output_slots())
        self.attrs = fwd.attrs
        self.tolerances = fwd.tolerances
        self.xp_generic = fwd.xp_generic

    def infer_shape(self, ctx):
        # "X@GRAD" has the shape of the forward input X, whose var the backward pass created.
        pass

    def forward(self, *args, **attrs):
        return self.fwd.backward(*args, **attrs)


def register(cls):
    """Class decorator: instantiate and register an OpDef (and its grad op)."""
    op_def = cls()
    op_def.xp_generic = op_def.xp_generic or op_def.type in XP_GENERIC
    if op_def.type in _OPS:
        raise ValueError("op type %r registered twice" % op_def.type)
    _OPS[op_def.type] = op_def
    if op_def.has_grad():
        grad = _GradOpDef(op_def)
        _OPS[grad.type] = grad
    return cls


def _load_all():
    global _loaded
    if _loaded:
        return
    _loaded = True
    package = importlib.import_module("refimpl.ops")
    for info in pkgutil.iter_modules(package.__path__):
        if info.name not in ("registry",) and not info.name.startswith("_"):
            importlib.import_module("refimpl.ops." + info.name)


def get_op_def(op_type):
    _load_all()
    try:
        return _OPS[op_type]
    except KeyError:
        close = difflib.get_close_matches(op_type, _OPS, n=3)
        hint = "; did you mean %s?" % ", ".join(close) if close else ""
        raise OpError(op_type, "no such operator is registered%s" % hint) from None


def all_op_types():
    _load_all()
    return sorted(_OPS)
