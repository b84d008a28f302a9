"""unpool: max unpooling (Paddle's unpool op, unpooling_type "max"). X [N, C, H, W] holds
pooled maxima, Indices (int32, X's shape) the flat position of each in its [Ho, Wo] output
plane, Ho = (H - 1) strides[0] - 2 paddings[0] + ksize[0] (Wo likewise). Out is zero but
for Out[n, c].flat[Indices[n, c, h, w]] = X[n, c, h, w] (a repeated index: the later
element, as Paddle's loop). Gradient: dX = dOut at the indices. An index outside the plane
is an error naming it."""
import numpy as np

from .registry import OpDef, Sample, register


def _out_size(size, k, s, p):
    return (size - 1) * s - 2 * p + k if size >= 0 else -1


def _planes(x, indices, plane):
    """(x, indices) as [N C, H W] rows, after checking the indices fit `plane` cells."""
    flat = indices.reshape(x.shape[0] * x.shape[1], -1).astype(np.int64)
    bad = (flat < 0) | (flat >= plane)
    if bad.any():
        raise ValueError("unpool: Indices holds %d, outside the output plane of %d cells"
                         % (flat[bad][0], plane))
    return x.reshape(flat.shape), flat


@register
class Unpool(OpDef):
    type = "unpool"
    inputs = ("X", "Indices")
    outputs = ("Out",)
    attrs = {"ksize": [2, 2], "strides": [1, 1], "paddings": [0, 0], "unpooling_type": "max"}
    grad_inputs = ("X", "Indices", "Out@GRAD")
    no_grad = ("Indices",)

    def infer_shape(self, ctx):
        x = ctx.input_var("X")
        ctx.expect(len(x.shape) == 4, "X %r must be 4-D [N, C, H, W], got shape %s"
                   % (x.name, list(x.shape)))
        ctx.expect(tuple(ctx.input_shape("Indices")) == tuple(x.shape), "Indices must have "
                   "X's shape %s, got %s" % (list(x.shape), list(ctx.input_shape("Indices"))))
        ctx.check_dtype("Indices", ("int32",))
        ctx.expect(ctx.attr("unpooling_type") == "max", "unpooling_type must be 'max', got %r"
                   % (ctx.attr("unpooling_type"),))
        spatial = [_out_size(d, k, s, p) for d, k, s, p in zip(
            x.shape[2:], ctx.attr("ksize"), ctx.attr("strides"), ctx.attr("paddings"))]
        ctx.set_output("Out", list(x.shape[:2]) + spatial, x.dtype)

    @staticmethod
    def forward(x, indices, ksize=(2, 2), strides=(1, 1), paddings=(0, 0),
                unpooling_type="max"):
        ho, wo = (_out_size(d, k, s, p) for d, k, s, p in zip(x.shape[2:], ksize, strides,
                                                               paddings))
        rows, flat = _planes(x, indices, ho * wo)
        out = np.zeros((len(rows), ho * wo), x.dtype)
        out[np.arange(len(rows))[:, None], flat] = rows
        return out.reshape(x.shape[:2] + (ho, wo))

    @staticmethod
    def backward(x, indices, dout, ksize=(2, 2), strides=(1, 1), paddings=(0, 0),
                 unpooling_type="max"):
        _, flat = _planes(x, indices, dout.shape[2] * dout.shape[3])
        planes = dout.reshape(len(flat), -1)
        return np.take_along_axis(planes, flat, axis=1).reshape(x.shape)

    def samples(self, rng):
        # indices of a 2x2 / stride 2 max pool of a [2, 3, 4, 6] input: one cell per window
        n, c, h, w = 2, 3, 2, 3
        r = rng.randint(0, 2, (n, c, h, w))
        s = rng.randint(0, 2, (n, c, h, w))
        rows = 2 * np.arange(h)[:, None] + r
        cols = 2 * np.arange(w)[None, :] + s
        yield Sample({"X": rng.uniform(-1, 1, (n, c, h, w)),
                      "Indices": (rows * (2 * w) + cols).astype("int32")},
                     # unpooling_type spelled out: Paddle 3.3.1 requires it set
                     {"ksize": [2, 2], "strides": [2, 2], "unpooling_type": "max"})
