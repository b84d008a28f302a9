"""Shared helpers for op modules: build-time broadcasting, samples, layouts. Paddle's
run-time axis broadcasting is refimpl/broadcasting.py (the kernels use it too)."""
import numpy as np

from ..xp import to_host

FLOATS = ("float16", "float32", "float64")
COMPLEX = ("complex64", "complex128")


def conj(a):
    """a's complex conjugate; a itself when real (no copy on the float paths). Gradients of
    complex ops carry it: for a real loss L, dL/dx = dL/dRe x + i dL/dIm x (as Paddle), so
    z = x * y gives dx = dz * conj(y)."""
    return a.conj() if a.dtype.kind == "c" else a


def complex_promotion(x, y):
    """The dtype of an op mixing a complex operand with a float32 / float64 / other complex
    one, as Paddle 2.0's IndicateOrPromoteVarDataTypes promotes them (float32 with
    complex64 is complex64, any other such pair complex128; 3.3.1 measured the same), else
    None: operands of one dtype, or a pair with no complex or with another dtype."""
    names = (x.dtype.name, y.dtype.name)
    if x.dtype == y.dtype or not set(names) & set(COMPLEX) or \
            not set(names) <= {"float32", "float64"} | set(COMPLEX):
        return None
    return np.promote_types(*names)


def grads_in_operand_dtypes(grads, *operands):
    """The gradients of a promoted op's operands in their own dtypes: a real operand's is
    the real part of its complex gradient (Paddle 2.0's real-complex gradients), a
    complex64 one's the complex128 gradient narrowed."""
    return tuple(g if g.dtype == a.dtype else
                 (g.real if a.dtype.kind != "c" else g).astype(a.dtype)
                 for g, a in zip(grads, operands))


def broadcast_shape(a, b, where):
    """numpy broadcast of two build-time shapes with -1 = unknown."""
    n = max(len(a), len(b))
    a = (1,) * (n - len(a)) + tuple(a)
    b = (1,) * (n - len(b)) + tuple(b)
    out = []
    for da, db in zip(a, b):
        if da == 1:
            out.append(db)
        elif db == 1 or da == db or db == -1:
            out.append(da)
        elif da == -1:
            out.append(db)
        else:
            where.fail("shapes %s and %s do not broadcast" % (list(a), list(b)))
    return tuple(out)


def shapes_agree(shape, expected):
    """The same rank, and each dim equal wherever both are known (-1: set at run time)."""
    return len(shape) == len(expected) and all(
        a < 0 or b < 0 or a == b for a, b in zip(shape, expected))


def numel(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def float32_root(p):
    """The exponent Paddle's p-norm kernels raise a sum of |x|^p to: 1.0f / p, worked
    out in float32 (1.8.5's and 3.3.1's p_norm, 3.3.1's dist, measured in float64)."""
    return float(np.float32(1) / np.float32(p))


def rand(rng, *shape, dtype="float64", low=-1.0, high=1.0):
    return rng.uniform(low, high, size=shape).astype(dtype)


def region_index(ndim, axes, starts, ends, steps=None):
    """The index of starts[i]:ends[i]:steps[i] on axes[i] (steps None: 1), whole dims
    elsewhere: the region of slice, strided_slice and set_value."""
    steps = [None] * len(axes) if steps is None else steps
    index = [slice(None)] * ndim
    for a, s, e, st in zip(axes, starts, ends, steps):
        index[a] = slice(s, e, st)
    return tuple(index)


def plane_axes(ctx):
    """(axis1, axis2) of Input's planes (trace, diagonal): Input of rank >= 2, the two
    attrs distinct dims of it, made non-negative."""
    x = ctx.input_var("Input")
    ctx.expect(len(x.shape) >= 2, "Input %r must have rank >= 2, got shape %s"
               % (x.name, list(x.shape)))
    a1 = ctx.check_axis("Input", ctx.attr("axis1"), attr="axis1")
    a2 = ctx.check_axis("Input", ctx.attr("axis2"), attr="axis2")
    ctx.expect(a1 != a2, "axis1 and axis2 must differ, both are dim %d" % a1)
    return a1, a2


def take_along(x, index, axis):
    """X's slices Index (any shape, read flat) along `axis`: gather / index_select."""
    return np.take(x, index.reshape(-1), axis=axis)


def take_along_grad(x, index, dout, axis):
    """dX of take_along: dOut's slices added back where they were read (repeats add up)."""
    dx = np.zeros_like(x)
    np.add.at(np.moveaxis(dx, axis, 0), index.reshape(-1), np.moveaxis(dout, axis, 0))
    return dx


def runtime_ints(tensor=None, tensor_list=None, attr=()):
    """An int-list attribute that an op may take at run time (Paddle's `XTensor` /
    `XTensorList` inputs): the elements of a list of 1-element int tensors, else of a 1-D
    int tensor, else the attribute."""
    if tensor_list:
        return [int(np.asarray(to_host(t)).reshape(-1)[0]) for t in tensor_list]
    if tensor is not None:
        return [int(v) for v in np.asarray(to_host(tensor)).reshape(-1)]
    return [int(v) for v in attr]


def runtime_rank(ctx, tensor_slot, list_slot, attr):
    """How many ints a runtime int-list attribute has, as known when the program is built:
    the list's length, the tensor's (dim 0, -1 if unknown), else the attribute's."""
    if ctx.has_input(list_slot):
        return ctx.input_count(list_slot)
    if ctx.has_input(tensor_slot):
        shape = ctx.input_shape(tensor_slot)
        return shape[0] if shape else 1
    return len(attr)


def built_shape(ctx):
    """The output shape a creation op (attr `shape`, ShapeTensor / ShapeTensorList inputs)
    has when the program is built: the attr while it matches the run-time rank (it keeps the
    dims known when built), else -1 for every dim of that rank."""
    shape = list(ctx.attr("shape"))
    if ctx.has_input("ShapeTensor") or ctx.has_input("ShapeTensorList"):
        n = runtime_rank(ctx, "ShapeTensor", "ShapeTensorList", shape)
        shape = shape if len(shape) == n else [-1] * max(n, 0)
    return shape


def channels_first(x, data_format):
    """x in a channels-last layout (NHWC, NDHWC, NLC) as a channels-first view."""
    return x.transpose((0, x.ndim - 1) + tuple(range(1, x.ndim - 1))) \
        if data_format[-1] == "C" else x


def channels_last(x, data_format):
    """The inverse of channels_first, contiguous (a new array when it moves axes)."""
    if data_format[-1] != "C":
        return x
    return x.transpose((0,) + tuple(range(2, x.ndim)) + (1,)).copy()
