"""unpool, unpool3d: max unpooling (Paddle's unpool op, unpooling_type "max", and Paddle 3's
unpool3d). X [N, C, *S] holds pooled maxima, Indices (int32 or int64, X's shape) the flat
position of each in its output plane (volume) [*O]: output_size when given (Paddle 3's
attr), else O_i = (S_i - 1) strides[i] - 2 paddings[i] + ksize[i]. Out is zero but for
Out[n, c].flat[Indices[n, c, ...]] = X[n, c, ...] (a repeated index: the later element, as
Paddle's loop). Gradient: dX = dOut at the indices. An index outside the plane is an error
naming it."""
import numpy as np

from .registry import OpDef, Sample, register


def _out_size(size, k, s, p):
    return (size - 1) * s - 2 * p + k if size >= 0 else -1


def _out_spatial(spatial, ksize, strides, paddings, output_size):
    if output_size:
        return list(output_size)
    return [_out_size(d, k, s, p) for d, k, s, p in zip(spatial, ksize, strides, paddings)]


def _planes(x, indices, plane, op_type):
    """(x, indices) as [N C, prod(S)] rows, after checking the indices fit `plane` cells."""
    flat = indices.reshape(x.shape[0] * x.shape[1], -1).astype(np.int64)
    bad = (flat < 0) | (flat >= plane)
    if bad.any():
        raise ValueError("%s: Indices holds %d: an index should less than output plane "
                         "size %d (Paddle's words)" % (op_type, flat[bad][0], plane))
    return x.reshape(flat.shape), flat


class _Unpool(OpDef):
    inputs = ("X", "Indices")
    outputs = ("Out",)
    grad_inputs = ("X", "Indices", "Out@GRAD")
    no_grad = ("Indices",)
    rank = 4

    def infer_shape(self, ctx):
        x = ctx.input_var("X")
        ctx.expect(len(x.shape) == self.rank, "X %r must be %d-D [N, C, ...], got shape %s"
                   % (x.name, self.rank, list(x.shape)))
        ctx.expect(tuple(ctx.input_shape("Indices")) == tuple(x.shape), "Indices must have "
                   "X's shape %s, got %s" % (list(x.shape), list(ctx.input_shape("Indices"))))
        ctx.check_dtype("Indices", ("int32", "int64"))
        if "unpooling_type" in self.attrs:
            ctx.expect(ctx.attr("unpooling_type") == "max", "unpooling_type must be 'max', "
                       "got %r" % (ctx.attr("unpooling_type"),))
        ctx.expect(ctx.attr("data_format") in ("NCHW", "NCDHW"), "data_format must be "
                   "channels first, got %r" % (ctx.attr("data_format"),))
        spatial = _out_spatial(x.shape[2:], ctx.attr("ksize"), ctx.attr("strides"),
                               ctx.attr("paddings"), ctx.attr("output_size"))
        ctx.set_output("Out", list(x.shape[:2]) + spatial, x.dtype)

    def forward(self, x, indices, ksize=(2, 2), strides=(1, 1), paddings=(0, 0),
                output_size=(), data_format="NCHW", unpooling_type="max"):
        spatial = _out_spatial(x.shape[2:], ksize, strides, paddings, output_size)
        plane = int(np.prod(spatial))
        rows, flat = _planes(x, indices, plane, self.type)
        out = np.zeros((len(rows), plane), x.dtype)
        out[np.arange(len(rows))[:, None], flat] = rows
        return out.reshape(x.shape[:2] + tuple(spatial))

    def backward(self, x, indices, dout, **attrs):
        _, flat = _planes(x, indices, int(np.prod(dout.shape[2:])), self.type)
        planes = dout.reshape(len(flat), -1)
        return np.take_along_axis(planes, flat, axis=1).reshape(x.shape)

    def samples(self, rng):
        # indices of a 2 x ... / stride 2 max pool: one cell per window
        shape = (2, 3) + (2, 3, 2)[:self.rank - 2]
        picks = [2 * np.arange(d).reshape([-1 if a == i else 1 for a in range(len(shape) - 2)])
                 + rng.randint(0, 2, shape) for i, d in enumerate(shape[2:])]
        out = [2 * d for d in shape[2:]]
        flat = np.ravel_multi_index(picks, out)
        nd = self.rank - 2
        attrs = {"ksize": [2] * nd, "strides": [2] * nd, "paddings": [0] * nd}
        if self.type == "unpool":   # spelled out: Paddle 3.3.1 requires it set
            attrs["unpooling_type"] = "max"
        yield Sample({"X": rng.uniform(-1, 1, shape), "Indices": flat.astype("int32")}, attrs)
        # Paddle 3's output_size: one more row and column than the formula's
        yield Sample({"X": rng.uniform(-1, 1, shape),
                      "Indices": np.ravel_multi_index(picks, [o + 1 for o in out])
                      .astype("int64")}, dict(attrs, output_size=[o + 1 for o in out]),
                     name="output_size")


@register
class Unpool(_Unpool):
    type = "unpool"
    attrs = {"ksize": [2, 2], "strides": [1, 1], "paddings": [0, 0], "output_size": [],
             "data_format": "NCHW", "unpooling_type": "max"}


@register
class Unpool3D(_Unpool):
    type = "unpool3d"
    rank = 5
    attrs = {"ksize": [2, 2, 2], "strides": [1, 1, 1], "paddings": [0, 0, 0],
             "output_size": [], "data_format": "NCDHW"}
