"""The op registry: every op type is one `OpDef` subclass in its own module of refimpl.ops.

An OpDef declares
  inputs / outputs   slot names; "X*" = a list of variables, "Bias?" = optional
  attrs              attribute defaults (only these reach the kernels, as keywords)
  infer_shape(ctx)   build-time shape/dtype inference (-1 = unknown dim)
  forward(...)       the numpy reference: inputs positionally in slot order, attrs as
                     keywords; returns one array, or a tuple in output-slot order
  backward(...)      optional; its presence registers "<type>_grad", whose inputs are
                     `grad_inputs` (default: inputs, outputs, "<Out>@GRAD" per output)
                     and whose outputs are "<In>@GRAD" for each input not in `no_grad`
  kernels            {"forward": "module:function", "backward": ...}: compiled drop-ins
                     from refimpl._kernels with the same signature as the reference
                     (also "forward_out" / "backward_out" for the variants below)
  forward_out(..., alloc)  optional (and backward_out for the grad op): forward with
                     each output written into `alloc(shape, dtype)`, a buffer that
                     memory_optimize may reuse; bit-identical to forward
  samples(rng)       sample inputs for the generic OpInfo-style tests
"""
import difflib
import importlib
import pkgutil

import numpy as np

from .. import versions
from ..framework.errors import OpError, OpTypeError

__all__ = ["OpDef", "register", "get_op_def", "all_op_types", "Sample", "InferContext"]

_OPS = {}
_loaded = False


def scalar_shape():
    """The shape of a one-number result: [1] in Paddle 1.8 and 2.0, 0-D in 3."""
    return versions.switch("scalar_shape")


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
        if shape is not None and len(shape) == 0 and slot in self.op.op_def.scalar_outputs:
            shape = scalar_shape()
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
                raise OpTypeError(self.op.type, "input %s %r: expected dtype in %s, got %s"
                                  % (slot, v.name, list(allowed), v.dtype.name),
                                  self.op.created_at)


class OpDef:
    type = None
    inputs = ()
    outputs = ()
    attrs = {}
    grad_inputs = None
    no_grad = ()
    kernels = {}
    tolerances = {"float32": (1e-4, 1e-5), "float64": (1e-7, 1e-9)}
    # Grad check: relative step for finite differences and its tolerance.
    fd_tolerance = (1e-3, 1e-4)
    # True when `backward` takes `need=(bool, ...)`: which input grads the grad op must
    # produce (e.g. no dX for a data input), so the kernel can skip the others' work.
    partial_grads = False
    # True for ops that talk to the other devices: every device must issue them in the same
    # order, so the thread-pool scheduler chains them in program order.
    collective = False
    # True when the forward can hand work to its grad op within a run (conv2d's im2col
    # columns): the executor then passes both the same SavedForGrad as `saved=`.
    # saves_little: what it hands over is no larger than its output (pooling's argmax),
    # so memory_optimize=True keeps it, while it drops larger hand-offs (conv's columns).
    saves_for_grad = False
    saves_little = False

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

    # -- kernels
    def kernel(self, which="forward", attrs=None, dtype=None):
        """The function the executor binds: a compiled drop-in if enabled and `fast_ok` for
        these attrs and dtype (both fixed when an op is bound), else the reference."""
        from .._kernels import load_kernel
        fn = getattr(self, which)
        spec = self.kernels.get(which)
        if spec and (attrs is None or self.fast_ok(dict(self.attrs, **attrs), dtype)):
            fast = load_kernel(spec)
            if fast is not None:
                fn = fast
        return self.with_version_shapes(fn)

    # {attribute name in an older Paddle: its name here}: programs built with the old
    # name (Paddle 1.8's flip `dims`) mean this attribute
    renamed_attrs = {}

    # Outputs that hold one number (a full reduction, a vector dot product). Kernels return
    # them 0-D; scalar_shape() is the shape Paddle gives them, [1] or () by version.
    scalar_outputs = ()

    def with_version_shapes(self, fn):
        """`fn` with its 0-D scalar outputs reshaped to scalar_shape()."""
        if not self.scalar_outputs or scalar_shape() == ():
            return fn
        slots = [slot_name(s) for s in self.outputs]
        positions = [slots.index(s) for s in self.scalar_outputs]
        shape = scalar_shape()
        single = len(slots) == 1

        def shaped(*args, **kwargs):
            result = fn(*args, **kwargs)
            if single:
                return result.reshape(shape) if np.ndim(result) == 0 else result
            result = list(result)
            for i in positions:
                if result[i] is not None and np.ndim(result[i]) == 0:
                    result[i] = result[i].reshape(shape)
            return tuple(result)
        return shaped

    def fast_ok(self, attrs, dtype):
        """Whether the compiled kernels cover this configuration (default: float32/64)."""
        return dtype in (None, "float32", "float64")

    def bound_attrs(self, op):
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


class SavedForGrad:
    """A forward kernel's hand-off to its grad op within one run: `value` was computed
    from the input array `key`. The grad op takes it only if its own input is that very
    array, else it recomputes (the executor links only pairs whose inputs nothing
    rewrites in between, so this is a second guard)."""
    __slots__ = ("key", "value")

    def __init__(self):
        self.key = self.value = None

    def put(self, key, value):
        self.key, self.value = key, value

    def take(self, key):
        """The saved value if it was computed from `key`, else None; either way it is
        released, so it lives no longer than from the forward to the grad op."""
        value = self.value if self.key is key else None
        self.key = self.value = None
        return value

    @property
    def nbytes(self):
        """Bytes of the arrays held (an array, or arrays inside tuples, lists and dicts)."""
        def count(v):
            if isinstance(v, dict):
                v = list(v.values())
            if isinstance(v, (tuple, list)):
                return sum(count(item) for item in v)
            return getattr(v, "nbytes", 0)
        return count(self.value)


def link_saved_for_grad(ops, little_only=False):
    """{op index: SavedForGrad} pairing each grad op whose forward `saves_for_grad` with
    the nearest earlier forward op of that type reading the same inputs with the same
    attrs, provided no op in between writes any of those inputs. Nearest: a recomputed
    copy of the forward (RecomputeOptimizer) hands over, not the original, which would
    hold its columns through the whole forward pass. `little_only`: only forwards that
    `saves_little`."""
    links = {}
    for j, grad in enumerate(ops):
        fwd = getattr(grad.op_def, "fwd", None)
        if fwd is None or not fwd.saves_for_grad or (little_only and not fwd.saves_little):
            continue
        reads = {s: grad.inputs.get(s) for s in fwd.input_slots}
        read_names = {n for names in reads.values() if names for n in names}
        for i in range(j - 1, -1, -1):
            op = ops[i]
            if (op.op_def is fwd and i not in links
                    and all(op.inputs.get(s) == names for s, names in reads.items())
                    and all(op.attrs.get(k) == grad.attrs.get(k) for k in fwd.attrs)):
                links[i] = links[j] = SavedForGrad()
                break
            if read_names.intersection(op.output_arg_names):
                break
    return links


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
        self.kernels = {mine: fwd.kernels[its] for mine, its in
                        (("forward", "backward"), ("forward_out", "backward_out"))
                        if its in fwd.kernels}
        self.fast_ok = fwd.fast_ok
        if hasattr(fwd, "backward_out"):
            self.forward_out = fwd.backward_out
        self.collective = fwd.collective
        self.tolerances = fwd.tolerances

    def infer_shape(self, ctx):
        # "X@GRAD" has the shape of the forward input X, whose var the backward pass created.
        pass

    def with_version_shapes(self, fn):
        """The forward's backward sees its scalar outputs (and their gradients) 0-D, as
        its kernels returned them, whatever scalar_shape() made of them in between."""
        fwd_scalars = set(self.fwd.scalar_outputs)
        if not fwd_scalars or scalar_shape() == ():
            return fn
        positions = [i for i, s in enumerate(self.inputs)
                     if slot_name(s) in fwd_scalars or
                     slot_name(s)[:-len("@GRAD")] in fwd_scalars and
                     slot_name(s).endswith("@GRAD")]

        def unshaped(*args, **kwargs):
            args = list(args)
            for i in positions:
                if args[i] is not None and np.size(args[i]) == 1:
                    args[i] = args[i].reshape(())
            return fn(*args, **kwargs)
        return unshaped

    def bound_attrs(self, op):
        """Extra keyword arguments fixed when the grad op is bound (see partial_grads)."""
        if not self.fwd.partial_grads:
            return {}
        return {"need": tuple(bool(op.outputs.get(slot_name(s))) for s in self.outputs)}

    def forward(self, *args, **attrs):
        return self.fwd.backward(*args, **attrs)


def register(cls):
    """Class decorator: instantiate and register an OpDef (and its grad op)."""
    op_def = cls()
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
