"""Shared helpers for op modules: Paddle's axis broadcasting and gradient reduction."""
import numpy as np

FLOATS = ("float16", "float32", "float64")
COMPLEX = ("complex64", "complex128")
# the real dtype of each complex one (|x|, real(x), imag(x))
REAL_OF = {"complex64": "float32", "complex128": "float64"}


def conj(a):
    """a's complex conjugate; a itself when real (no copy on the float paths). Gradients of
    complex ops carry it: for a real loss L, dL/dx = dL/dRe x + i dL/dIm x (as Paddle), so
    z = x * y gives dx = dz * conj(y)."""
    return a.conj() if a.dtype.kind == "c" else a


def y_view_shape(x_ndim, y_shape, axis):
    """Shape Y is viewed as to broadcast against X under Paddle's `axis` rule:
    Y's dims line up with X's dims starting at `axis` (-1: right-aligned, numpy-style)."""
    y_shape = tuple(y_shape)
    if axis == -1 or len(y_shape) == x_ndim:
        return y_shape
    # Paddle drops trailing 1s of Y before aligning it at `axis`.
    while len(y_shape) > 1 and y_shape[-1] == 1 and axis + len(y_shape) > x_ndim:
        y_shape = y_shape[:-1]
    return (1,) * axis + y_shape + (1,) * (x_ndim - axis - len(y_shape))


def align(x, y, axis):
    """(x, y) viewed so numpy broadcasting implements Paddle's elementwise `axis`."""
    if axis == -1 or x.ndim == y.ndim:
        return x, y
    if y.ndim < x.ndim:
        return x, y.reshape(y_view_shape(x.ndim, y.shape, axis))
    return x.reshape(y_view_shape(y.ndim, x.shape, axis)), y


def sum_to_shape(g, shape):
    """Sum a broadcast gradient back down to `shape` (the input's shape)."""
    shape = tuple(shape)
    if g.shape == shape:
        return g
    lead = g.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(i + lead for i, d in enumerate(shape)
                                       if d == 1 and g.shape[i + lead] != 1)
    return g.sum(axis=axes, keepdims=True).reshape(shape) if axes else g.reshape(shape)


def unbroadcast(dout, x, y, axis):
    """(dX, dY) from dOut for an op that broadcast X and Y under Paddle's `axis` rule."""
    xv, yv = align(x, y, axis)
    return (sum_to_shape(dout, xv.shape).reshape(x.shape),
            sum_to_shape(dout, yv.shape).reshape(y.shape))


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


def numel(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def rand(rng, *shape, dtype="float64", low=-1.0, high=1.0):
    return rng.uniform(low, high, size=shape).astype(dtype)


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
        return [int(np.asarray(t).reshape(-1)[0]) for t in tensor_list]
    if tensor is not None:
        return [int(v) for v in np.asarray(tensor).reshape(-1)]
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
