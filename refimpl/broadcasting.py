"""Paddle's elementwise `axis` broadcasting on arrays, and the gradient's reduction back to
an input's shape. A leaf: the op references (refimpl.ops) and the kernels
(refimpl._kernels) share this one copy of the rule."""

__all__ = ["y_view_shape", "align", "sum_to_shape", "unbroadcast"]


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
