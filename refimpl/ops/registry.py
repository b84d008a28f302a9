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
  lod_lengths / lod_outputs   how the op reads and passes on LoD (specs/lod.md)
  float_attrs / eager_double_attrs / pir_double_attrs   which attrs are 32-bit floats,
                     as Paddle holds its FLOAT attrs (round_float32_attrs; its eager API
                     and its PIR ops keep some doubles; specs/ops/README.md)
Compiled kernels, out and in-place variants and what a forward hands its grad op are the
kernel table's (refimpl/_kernels/table.py); refimpl.dispatch picks the function that runs.
Control-flow ops are BlockOpDefs: their semantics run a sub-block.
"""
import difflib
import functools
import importlib
import pkgutil

import numpy as np

from .. import versions
from ..framework.errors import OpError, OpTypeError
from ..framework.lod import as_plain, describe_lod, lod_of, with_lod
from ..xp import to_device, to_host
from ._xp_generic import XP_GENERIC

__all__ = ["OpDef", "BlockOpDef", "register", "get_op_def", "all_op_types", "Sample",
           "bilinear_grad_of_grad", "bilinear_grad_op",
           "InferContext", "LoDRule", "share_lod", "pool_lod", "lengths_lod", "lod_reaching",
           "with_lod_rules", "lod_fills", "fill_lengths", "lod_results", "result_lod",
           "first_level", "float32_attrs", "kernel_attrs", "round_attrs", "round_float32_attrs"]

_OPS = {}
_GRAD_OF_GRAD = {}   # "<type>_grad_grad" -> its _GradOfGradOpDef, made on first use
GRAD_OF_GRAD_KERNEL = [None]   # what runs them: backward/double_grad.py's grad_of_grad
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

    def set_output_type(self, slot, var_type):
        """The output variables' kind (a VarType: a tensor array's slice is an array), as
        Paddle's VarTypeInference sets it."""
        for name in self.op.outputs.get(slot, ()):
            self._var(name).type = var_type

    def same_as(self, in_slot, out_slot):
        v = self.input_var(in_slot)
        self.set_output(out_slot, v.shape, v.dtype)

    def fail(self, message, kind=OpError):
        # named with the category of Paddle's build-time checks (PADDLE_ENFORCE with
        # errors::InvalidArgument), which Paddle's messages and tests look for; `kind`: an
        # OpError subclass where Paddle's check raises another Python type (an IndexError)
        raise kind(self.op.type, "InvalidArgumentError: " + message, self.op.created_at)

    def expect(self, cond, message, kind=OpError):
        if not cond:
            self.fail(message, kind)

    def check_axis(self, slot, axis, rank_extra=0, attr="axis"):
        """`axis` (attribute `attr`) as a dim of input `slot`, in [0, rank); fails unless it
        is in [-rank, rank). `rank_extra`: dims the op adds (stack's and unsqueeze's new
        axis may be one past X's last)."""
        v = self.input_var(slot)
        rank = max(len(v.shape), 1) + rank_extra   # a 0-D tensor's one axis is 0 or -1
        self.expect(-rank <= axis < rank, "%s %d is out of range for %s %r of rank %d "
                    "(expected in [%d, %d))" % (attr, axis, slot, v.name, len(v.shape),
                                                -rank, rank))
        return axis % rank

    def check_positive(self, *attrs):
        """Each of the int-list attributes `attrs` (strides, ksize, ...) is all > 0."""
        for name in attrs:
            values = list(self.attr(name))
            self.expect(all(v > 0 for v in values), "%s %s must be positive" % (name, values))

    def check_same_dtype(self, *slots):
        """All the variables of `slots` have one dtype (Paddle's kernels take one)."""
        vs = [v for slot in slots for v in self.input_vars(slot) if v.dtype is not None]
        for v in vs[1:]:
            if v.dtype != vs[0].dtype:
                raise OpTypeError(self.op.type, "inputs %r (%s) and %r (%s) must have the same "
                                  "dtype" % (vs[0].name, vs[0].dtype.name, v.name, v.dtype.name),
                                  self.op.created_at)

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
    tolerances = {"float32": (1e-4, 1e-5), "float64": (1e-7, 1e-9)}
    # Grad check: relative step for finite differences and its tolerance.
    fd_tolerance = (1e-3, 1e-4)
    # The forward and backward compute with the array module of their inputs (refimpl.xp):
    # on a GPU they run on CuPy arrays as they are; the others run on host copies there.
    # Listed in ops/_xp_generic.py (or set True by the class).
    xp_generic = False
    # LoD (specs/lod.md). lod_lengths {kernel input slot: source input slot}: a slot that is
    # no variable of a program; the kernel gets there the lengths of the source's run-time
    # LoD at its last level, or at the level the attr named after a colon gives
    # ("Y:ref_level"), or the level a number after it gives ("Ids:0"); "X|Out": the
    # first of these the op (or its grad op) reads. An optional slot ("XLength?") gets
    # None when the source has no LoD, a required one fails. lod_outputs {output slot:
    # LoDRule}: the LoD the output carries (share_lod, pool_lod, lengths_lod); outputs
    # without a rule carry none. lod_only: input slots read only for their LoD (Paddle's
    # Y of sequence_expand), not passed to the kernel; grad_lod_only: the same for the
    # grad op's inputs.
    lod_lengths = {}
    lod_outputs = {}
    lod_only = ()
    grad_lod_only = ()
    # lod_whole: input slots whose kernel argument keeps its whole LoD (a LoDArray, or a
    # list of them for a tensor array), for the ops that read more than one level (the
    # rank-table family); a result_lod rule passes on what such a kernel's result carries.
    # tensor_arrays: input slots holding a tensor array, whose gradient (also an array)
    # carries each element's LoD
    lod_whole = ()
    tensor_arrays = ()
    # grad_shape_only: input slots whose values the grad op reads only for their shape and
    # dtype (Paddle's no-need-buffer variables): the executor keeps a buffer-less stand-in
    # for them after their last other use (executor.py, Plan._free_lists)
    grad_shape_only = ()
    # bilinear: (A, B), two input slots in each of which the one output is linear (conv's
    # Input and Filter); the grad op then reads (A, B, Out@GRAD) and its own gradient
    # follows from the op and its grad op (bilinear_grad_of_grad), to any order
    bilinear = ()
    # statistic_grads: input slots whose "gradient" is a statistic the grad op reports for
    # an optimizer to apply (data_norm's batch counters), not a derivative: the
    # finite-difference checks leave them out
    statistic_grads = ()
    # Outputs Paddle declares intermediate whose contents are the kernel's own business
    # (what its backward saves, laid out as the kernel likes): the conformance cases bind
    # them, as Paddle's grad op needs them, but compare nothing of them
    internal_outputs = ()
    # FLOAT attributes (Paddle's OpMaker AddAttr<float>: 32 bits in an OpDesc, so a
    # float64 op computes with float32(0.1); float32_attrs): those paddle_op_facts.json's
    # attr_types declare, and float_attrs for an op it holds no proto of (Paddle's source).
    # eager_double_attrs: those Paddle 3's eager API takes as double or Scalar, exact there;
    # pir_double_attrs: those Paddle 3's PIR op holds as a double (a program built while
    # FLAGS_enable_pir_api is on: switch static_float_attrs), exact there
    float_attrs = ()
    eager_double_attrs = ()
    pir_double_attrs = ()
    # {input slot: input slot}: inputs a program feeds with the other's LoD (Paddle checks
    # that a label carries its emissions' sequences); kernels read the LoD of one only
    lod_alike = {}

    def infer_shape(self, ctx):
        raise NotImplementedError("op %s has no infer_shape" % self.type)

    def samples(self, rng):
        return []

    def saved_outputs(self, ins, saved, attrs):
        """The outputs a backward reads without taking their gradient (`saved`: slot ->
        the value the forward made), computed again from the inputs the grad op reads
        (`ins`: slot -> value, stand-ins of a double backward among them), so that their
        dependence on those inputs is recorded; None: the forward reference recomputes
        them from every input (dygraph/double_backward.py's recomputed_outputs)."""
        return None

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
            if not is_optional(s) and not op.inputs.get(slot_name(s)) and \
                    slot_name(s) not in self.lod_lengths and slot_name(s) not in self.lod_only:
                raise op.error("missing required input %r" % slot_name(s))

    def run_infer_shape(self, op):
        ctx = InferContext(op)
        optional = self.optional_grad_slots
        for slot, names in op.inputs.items():
            for n in names:
                if slot not in optional or op.block._find_var_recursive(n) is not None:
                    ctx._var(n)
        self.infer_shape(ctx)
        self.infer_lod_level(op)

    @functools.cached_property
    def optional_grad_slots(self):
        """Optional gradient inputs: one naming a variable of another program (Paddle 1.8's
        tests pass one so) is absent when the op runs, as in Paddle."""
        return {slot_name(s) for s in self.inputs
                if is_optional(s) and slot_name(s).endswith("@GRAD")}

    @property
    def lengths_results(self):
        """Output slots that only carry the lengths an output's LoD is built from (no
        program binds them where the input has a LoD)."""
        return {slot for rule in self.lod_outputs.values() for slot in
                ((rule.reads,) if isinstance(rule.reads, str) else rule.reads or ())
                if slot in self.output_slots}

    def infer_lod_level(self, op):
        """Build time: each output with a LoD rule gets the lod_level the rule gives."""
        if not self.lod_outputs:
            return
        levels = {slot: [getattr(op.block._find_var_recursive(n), "lod_level", 0) or 0
                         for n in names] for slot, names in op.inputs.items()}
        for slot, rule in self.lod_outputs.items():
            level = rule.level(levels)
            for n in op.outputs.get(slot, ()):
                v = op.block._find_var_recursive(n)
                if v is not None:
                    v.lod_level = level

    # Attributes Paddle's op has that only tune how its kernel runs (threading, MKL-DNN,
    # int8 scales): every op of the type carries them with these defaults (as Paddle's
    # op descs), programs and fluid.op.Operator may set them; they change no result on
    # refimpl's kernels and reach no function
    inert_attrs = {}
    # the inert attributes that are MKL-DNN's (oneDNN's) and its int8 scales: in Paddle 1.8
    # and 2.0's op descs, gone from Paddle 3's (switch op_desc_attrs; desc_inert_attrs)
    mkldnn_attrs = {}

    @classmethod
    def desc_inert_attrs(cls):
        """The inert attributes Paddle's op desc of this type holds in the profile's
        release: the MKL-DNN ones only before Paddle 3."""
        if cls.mkldnn_attrs and versions.switch("op_desc_attrs") == "mkldnn":
            return dict(cls.inert_attrs, **cls.mkldnn_attrs)
        return cls.inert_attrs

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

        @functools.wraps(fn)     # it still names the function it runs
        def shaped(*args, **kwargs):
            result = fn(*args, **kwargs)
            if single:
                return result.reshape(shape) if result.ndim == 0 else result
            result = list(result)
            for i in positions:
                if result[i] is not None and result[i].ndim == 0:
                    result[i] = result[i].reshape(shape)
            return tuple(result)
        return shaped

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
                for s in self.inputs if slot_name(s) not in self.no_grad and
                slot_name(s) not in self.lod_only and slot_name(s) not in self.lod_lengths]

    def static_grad_op(self, inputs, outputs, attrs):
        """(type, inputs, outputs, attrs) of the grad op append_backward writes for this
        op; "<type>_grad" with the grad slots by default (Paddle's print writes a second
        print instead)."""
        return self.type + "_grad", inputs, outputs, attrs


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
        # the grad op reads lengths from the same inputs; X@GRAD has X's LoD
        mine = {slot_name(s) for s in self.inputs}
        self.lod_lengths = {slot: src for slot, src in fwd.lod_lengths.items()
                            if slot in mine and
                            mine.intersection(src.partition(":")[0].split("|"))}
        missing = [slot for slot in fwd.lod_lengths if slot in mine and slot not in
                   self.lod_lengths]
        if missing:
            raise ValueError("op %s: its grad op reads %s but not the input whose LoD they "
                             "come from" % (fwd.type, missing))
        self.lod_only = tuple(fwd.lod_only) + tuple(fwd.grad_lod_only)
        self.lod_whole = tuple(s for s in fwd.lod_whole if s in mine)
        self.shape_only = tuple(fwd.grad_shape_only)
        self.lod_outputs = {slot_name(s): share_lod(
            slot_name(s)[:-len("@GRAD")],
            each=is_duplicable(s) or slot_name(s)[:-len("@GRAD")] in fwd.tensor_arrays)
            for s in self.outputs if slot_name(s)[:-len("@GRAD")] in mine}
        # differentiating this grad op (static gradients of gradients, _GradOfGradOpDef):
        # its inputs and its outputs' gradients in, gradients of its inputs out
        self.no_grad = tuple(s for s in fwd.no_grad if s in mine)
        self.grad_inputs = tuple(self.inputs) + tuple(
            slot_name(s) + "@GRAD" + s[len(slot_name(s)):] for s in self.outputs)

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

        @functools.wraps(fn)
        def unshaped(*args, **kwargs):
            args = list(args)
            for i in positions:
                if args[i] is not None and args[i].size == 1:
                    args[i] = args[i].reshape(())
            return fn(*args, **kwargs)
        return unshaped

    def forward(self, *args, **attrs):
        return self.fwd.backward(*args, **attrs)

    def has_grad(self):
        return False     # no registered grad op: _GradOfGradOpDef is made on first use

    def backward(self, *args, **attrs):
        """This grad op's gradient (what its "<type>_grad_grad" runs): no second copy of any
        op's gradient maths, the forward op's `backward` is run on recorded eager tensors
        and that record differentiated (refimpl/backward/double_grad.py, the machinery of
        paddle.grad(create_graph=True), which installs itself here: it sits above the op
        definitions)."""
        return GRAD_OF_GRAD_KERNEL[0](self, args, attrs)


class _GradOfGradOpDef(_GradOpDef):
    """"<type>_grad_grad": the gradient of a grad op, for static gradients of gradients
    (`fluid.gradients` of an expression of an earlier gradient). Second order only."""

    def __init__(self, grad_def):
        super().__init__(grad_def)
        self.no_grad = ()


def bilinear_grad_of_grad(forward, backward, a, b, dout, grad_da, grad_db, attrs):
    """The gradient of the grad op of an op whose output is linear in each of its inputs
    (a, b) (OpDef.bilinear): with dA = B_a^T dOut and dB = B_b^T dOut, and grad_da,
    grad_db the gradients reaching dA and dB,
        d/d dOut = B(grad_da, b) + B(a, grad_db)
        d/dA = B_a^T dOut, taken with grad_db in place of b
        d/dB = B_b^T dOut, taken with grad_da in place of a
    `forward(a, b, **attrs)` and `backward(a, b, dout, **attrs)` compute the op and its
    grad op, on arrays or recorded on eager tensors (then differentiable again).
    (gradient of a, of b, of dOut); None where none flows."""
    if dout is None:
        return None, None, None
    grad_a = grad_b = grad_dout = None
    if grad_da is not None:
        grad_b = backward(grad_da, b, dout, **attrs)[1]
        grad_dout = forward(grad_da, b, **attrs)
    if grad_db is not None:
        grad_a = backward(a, grad_db, dout, **attrs)[0]
        through_b = forward(a, grad_db, **attrs)
        grad_dout = through_b if grad_dout is None else grad_dout + through_b
    return grad_a, grad_b, grad_dout


def bilinear_grad_op(op_def):
    """Whether `op_def` is the grad op of a bilinear op (its gradient has a closed form)."""
    return type(op_def) is _GradOpDef and bool(op_def.fwd.bilinear)


def differentiable_grad_op(op_def):
    """Whether `op_def` is a grad op whose gradient _GradOfGradOpDef computes (second
    order: the gradient of a grad-of-grad op is not recorded)."""
    return type(op_def) is _GradOpDef and not isinstance(op_def.fwd, BlockOpDef)


class LoDRule:
    """How an output's LoD follows from the op's inputs and results: `lod(lods, values,
    attrs)` at run time (lods: input slot -> LoD, a list of LoDs for a list slot; values:
    slot -> array, inputs and results), `level(levels)` at build time (input slot -> list
    of lod_levels). `creates`: the rule gives a LoD even when no input has one. `reads`:
    the kernel result (an output slot no program binds) whose lengths the rule reads."""

    def __init__(self, lod, level, creates=False, reads=None):
        self.lod, self.level, self.creates, self.reads = lod, level, creates, reads


def _first(x):
    return x[0] if isinstance(x, list) else x


def first_level(levels, slot):
    """The lod_level of `slot`'s first variable in a LoD rule's `levels` (0 when absent)."""
    return (levels.get(slot) or [0])[0]


def share_lod(slot, each=False):
    """The output carries input `slot`'s LoD (the first variable's for a list slot), as
    Paddle's ShareLoD; `each`: a list output, variable j carrying variable j's."""
    if each:
        return LoDRule(lambda lods, values, attrs: list(lods.get(slot, ())),
                       lambda levels: first_level(levels, slot))
    return LoDRule(lambda lods, values, attrs: _first(lods.get(slot, ())),
                   lambda levels: first_level(levels, slot))



def share_lod_if_rows_kept(slot, out_slot):
    """share_lod(slot) when `out_slot` keeps the first dim of `slot` (its rows), else no
    LoD: Paddle 1.8's reshape2, squeeze2, unsqueeze2 and flatten2 ShareLoD only then."""
    def lod(lods, values, attrs):
        if values[out_slot].shape[:1] != values[slot].shape[:1]:
            return ()
        return _first(lods.get(slot, ()))
    return LoDRule(lod, lambda levels: first_level(levels, slot))

def pool_lod(slot):
    """The output has one row per sequence of `slot`: its LoD without the last level."""
    return LoDRule(lambda lods, values, attrs: _first(lods.get(slot, ()))[:-1],
                   lambda levels: max(first_level(levels, slot) - 1, 0))


def lengths_lod(lengths_slot, under=None, if_lod=None):
    """The output's last LoD level is the lengths vector in `lengths_slot` (an input, or a
    result of the kernel that is no program variable), under the upper levels of input
    `under`'s LoD; with `if_lod`, only when that input has a LoD (else none)."""
    def lod(lods, values, attrs):
        if if_lod is not None and not _first(lods.get(if_lod, ())):
            return ()
        upper = _first(lods.get(under, ()))[:-1] if under else ()
        return upper + (tuple(int(n) for n in np.asarray(to_host(values[lengths_slot])).reshape(-1)),)

    def level(levels):
        if if_lod is not None and not first_level(levels, if_lod):
            return 0
        return max(first_level(levels, under), 1) if under else 1
    return LoDRule(lod, level, creates=if_lod is None, reads=lengths_slot)


def result_lod(slot, level):
    """The output carries the LoD its kernel gave its result `slot` (a LoDArray; for a
    tensor array, each element its own), for kernels that build whole LoDs (lod_whole);
    `level(levels)`: the build-time lod_level."""
    def lod(lods, values, attrs):
        value = values[slot]
        return [lod_of(v) for v in value] if isinstance(value, list) else lod_of(value)
    return LoDRule(lod, level, creates=True)


def lod_reaching(ops, seeds):
    """(names that may carry a LoD at run time, indices of the ops that touch one): from
    `seeds` (fed LoD values, variables declared with lod_level > 0) through each op's
    lod_outputs. Only those ops pay for LoD handling (with_lod_rules)."""
    names, touching = set(seeds), []
    for i, op in enumerate(ops):
        op_def = op.op_def
        if op_def.lod_lengths or any(n in names for n in op.input_arg_names) or any(
                rule.creates for rule in op_def.lod_outputs.values()):
            touching.append(i)
            for slot in op_def.lod_outputs:
                names.update(op.outputs.get(slot, ()))
    return names, touching


def lod_fills(op_def, bound):
    """The lod_lengths slots of `op_def` that the op leaves unbound (`bound(slot)`: whether
    it binds one): (slot, source input slot, spec, optional) each; the kernel gets there
    the lengths of the source's run-time LoD."""
    in_slots = [slot_name(s) for s in op_def.inputs]
    fills = []
    for s in op_def.inputs:
        slot = slot_name(s)
        spec = op_def.lod_lengths.get(slot)
        if spec is not None and not bound(slot):
            source = next(c for c in spec.partition(":")[0].split("|") if c in in_slots)
            fills.append((slot, source, spec, is_optional(s)))
    return fills


def fill_lengths(op_def, fill, lod, attrs, name):
    """The lengths array (a list of them for a list slot) that lod_lengths `fill` (one of
    lod_fills) gives for its source's LoD `lod`; None for an optional one without a LoD.
    `name`: the source variable's, for the errors."""
    slot, source, spec, optional = fill
    if isinstance(lod, list):
        return [_lengths(op_def, one, source, spec, attrs, name) for one in lod]
    if lod or not optional:
        return _lengths(op_def, lod, source, spec, attrs, name)
    return None


def _lengths(op_def, lod, source, spec, attrs, name):
    if not lod:
        raise ValueError(
            "input %s %r carries no LoD, but %s reads its sequences from it: feed a "
            "LoDTensor (fluid.create_lod_tensor) or an (array, recursive sequence "
            "lengths) pair, or declare the variable with lod_level=1"
            % (source, name, op_def.type))
    level_attr = spec.partition(":")[2]
    level = int(level_attr) if level_attr.lstrip("-").isdigit() else \
        attrs.get(level_attr, -1) if level_attr else -1
    if not -len(lod) <= level < len(lod):
        raise ValueError("input %s %r has a LoD of %d level(s) %s; %s = %d is out of "
                         "range" % (source, name, len(lod), describe_lod(lod),
                                    level_attr, level))
    return np.asarray(lod[level], dtype=np.int64)


def lod_results(op_def, lods, values, attrs, result):
    """The op's results (a list in output-slot order, changed in place) carrying the LoD
    their lod_outputs rules give; `lods`: input slot -> LoD, `values`: slot -> plain
    array, inputs and results."""
    out_slots = [slot_name(s) for s in op_def.outputs]
    for slot, rule in op_def.lod_outputs.items():
        i = out_slots.index(slot) if slot in out_slots else None
        if i is None or result[i] is None:
            continue
        lod = rule.lod(lods, values, attrs)
        if isinstance(result[i], list):   # a list output: one LoD each, or the same
            each = lod if isinstance(lod, list) else [lod] * len(result[i])
            result[i] = [v if v is None else with_lod(v, one)
                         for v, one in zip(result[i], each)]
        else:
            result[i] = with_lod(result[i], lod)
    return result


def with_lod_rules(fn, op_def, inputs, attrs, device="cpu"):
    """`fn` (a kernel of `op_def`, bound to an op whose input slots name `inputs`) run on
    plain arrays, with its lod_lengths slots filled from its inputs' LoD, its lod_only
    inputs left out, and its outputs carrying the LoD their lod_outputs rules give.
    On a GPU (`device` "gpu") values with a LoD live on the host (with_lod), so the
    arguments go to the device here, whatever kernel `fn` is."""
    to_plain = (lambda v: v if v is None else to_device(as_plain(v))) if device == "gpu" \
        else as_plain
    in_slots = [slot_name(s) for s in op_def.inputs]
    out_slots = [slot_name(s) for s in op_def.outputs]
    fills = [(in_slots.index(fill[0]), fill, (inputs.get(fill[1]) or [None])[0])
             for fill in lod_fills(op_def, lambda slot: inputs.get(slot))]
    passed = [i for i, slot in enumerate(in_slots) if slot not in op_def.lod_only]
    has_rules = any(slot in out_slots for slot in op_def.lod_outputs)
    single = len(out_slots) == 1

    def run(*args, **kw):
        lods, plain = {}, []
        for slot, a in zip(in_slots, args):
            plain_arg = _keep_lod if slot in op_def.lod_whole else to_plain
            if isinstance(a, list):
                lods[slot] = [lod_of(v) for v in a]
                plain.append([plain_arg(v) for v in a])
            else:
                lods[slot] = lod_of(a)
                plain.append(plain_arg(a))
        for pos, fill, name in fills:
            lengths = fill_lengths(op_def, fill, lods[fill[1]], attrs, name)
            if lengths is not None:
                plain[pos] = [to_plain(one) for one in lengths] \
                    if isinstance(lengths, list) else to_plain(lengths)
        result = fn(*[plain[i] for i in passed], **kw)
        if not has_rules:
            return result
        result = list((result,) if single else result)
        values = dict(zip(in_slots, plain), **dict(zip(out_slots, result)))
        lod_results(op_def, lods, values, attrs, result)
        return result[0] if single else tuple(result)
    return run


def _keep_lod(value):
    """A lod_whole argument: the value with its LoD (on the host, where a LoD value lives)."""
    return value


def float32_attrs(op_def, eager=False, profile=None):
    """The names of `op_def`'s attributes Paddle holds as 32-bit floats under `profile`
    (default: the current one): those its release declares FLOAT (a grad op: its forward
    op's), in dynamic mode under switch eager_float_attrs "api" less the op's
    eager_double_attrs, in a program under switch static_float_attrs "pir" while
    FLAGS_enable_pir_api is on (when the program is bound) less its pir_double_attrs."""
    profile = profile or versions.current()
    return _float32_attrs(op_def.type, eager, profile,
                          None if eager else versions.switch_for("static_float_attrs", profile))


@functools.lru_cache(maxsize=None)
def _float32_attrs(op_type, eager, profile, static_rule):
    from ..framework.paddle_formats.program_desc import declared_attr_types
    op_def = get_op_def(op_type)
    while getattr(op_def, "fwd", None) is not None:     # grad ops copy the forward's attrs
        op_def = op_def.fwd
    declared = declared_attr_types(profile).get(op_def.type, {})
    if eager:
        kept = op_def.eager_double_attrs \
            if versions.SWITCHES["eager_float_attrs"][profile] == "api" else ()
    else:
        kept = op_def.pir_double_attrs if static_rule == "pir" else ()
    return tuple(name for name in op_def.attrs
                 if (declared.get(name) == "FLOAT" or name in op_def.float_attrs)
                 and name not in kept)


def round_float32_attrs(op_def, attrs, eager=False):
    """Round `attrs` (a dict of keyword arguments, changed in place) to 32-bit floats where
    Paddle holds them so (float32_attrs), once, where an op is bound (the executor) or
    traced (the tracer): its references and kernels then compute with Paddle's value."""
    return round_attrs(float32_attrs(op_def, eager), attrs)


def kernel_attrs(op_def, attrs):
    """The keyword arguments `op_def`'s kernel or reference is called with: its attrs that
    `attrs` holds, the FLOAT ones rounded (round_float32_attrs)."""
    return round_float32_attrs(op_def, {k: attrs[k] for k in op_def.attrs if k in attrs})


def round_attrs(names, attrs):
    """round_float32_attrs for the attrs `names` (float32_attrs), known to the caller."""
    for name in names:
        value = attrs.get(name)
        if type(value) is float or type(value) is int:     # (an eager op's hot path)
            rounded = _FLOAT32.get(value)
            if rounded is None:
                if len(_FLOAT32) > 4096:
                    _FLOAT32.clear()
                rounded = _FLOAT32[value] = float(np.float32(value))
            attrs[name] = rounded
        elif isinstance(value, (float, np.floating, np.integer)):
            attrs[name] = float(np.float32(value))
    return attrs


_FLOAT32 = {}   # Python number -> float32 of it, as a float


def register(cls):
    """Class decorator: instantiate and register an OpDef (and its grad op)."""
    op_def = cls()
    op_def.xp_generic = op_def.xp_generic or op_def.type in XP_GENERIC
    if op_def.type in _OPS:
        raise ValueError("op type %r registered twice" % op_def.type)
    _OPS[op_def.type] = op_def
    if op_def.bilinear:
        out = slot_name(op_def.outputs[0])
        if len(op_def.outputs) != 1 or op_def.grad_input_slots() != \
                list(op_def.bilinear) + [out + "@GRAD"]:
            raise ValueError("op %r: a bilinear op has one output and its grad op reads "
                             "%s, Out@GRAD" % (op_def.type, list(op_def.bilinear)))
    if op_def.has_grad():
        grad = _GradOpDef(op_def)
        _OPS[grad.type] = grad
    return cls


def register_variant(base, op_type, **members):
    """Register the op `op_type` of class `base` with `members` set (a family's function,
    e.g. fn=np.less; a function is kept as a staticmethod), named like the op type and
    defined, for its source (`python -m refimpl ops`), in base's module."""
    members = {k: staticmethod(v) if callable(v) and not isinstance(v, type) else v
               for k, v in members.items()}
    return register(type(op_type.title().replace("_", ""), (base,),
                         dict(members, type=op_type, __module__=base.__module__)))


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
        made = _GRAD_OF_GRAD.get(op_type)
        if made is not None:
            return made
        grad_def = _OPS.get(op_type[:-len("_grad")]) if op_type.endswith("_grad") else None
        if grad_def is not None and differentiable_grad_op(grad_def):
            made = _GRAD_OF_GRAD[op_type] = _GradOfGradOpDef(grad_def)
            return made
        close = difflib.get_close_matches(op_type, _OPS, n=3)
        hint = "; did you mean %s?" % ", ".join(close) if close else ""
        raise OpError(op_type, "no such operator is registered%s" % hint) from None


def all_op_types():
    _load_all()
    return sorted(_OPS)
