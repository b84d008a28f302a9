"""match_matrix_tensor (fluid.contrib, Paddle 1.8): for every pair b of sequences X_b
[lx_b, h] and Y_b [ly_b, h] (sequence b of each input's LoD) and channel t of W [h, dim_t, h],
the bilinear match matrix
    Out_b[t, i, j] = X_b[i] . W[:, t, :] . Y_b[j]
Out [sum dim_t * lx_b * ly_b, 1] holds them one after another ((t, i, j) order) with that
LoD; Tmp [sum lx_b * dim_t * h, 1] the products X_b W ((i, t, k) order), as Paddle keeps
them. Gradients to X, Y and W."""
import numpy as np

from ._common import rand
from ._sequence import lengths_of, segments
from .registry import OpDef, Sample, lengths_lod, register


def _pairs(x, y, x_len, y_len):
    """[(rows of X_b, rows of Y_b)] as slices."""
    xs = segments(lengths_of(x_len, len(x), "match_matrix_tensor"))
    ys = segments(lengths_of(y_len, len(y), "match_matrix_tensor", "YLength"))
    if len(xs) != len(ys):
        raise ValueError("match_matrix_tensor: X holds %d sequences and Y %d; they match in "
                         "pairs" % (len(xs), len(ys)))
    return [(slice(*a), slice(*b)) for a, b in zip(xs, ys)]


@register
class MatchMatrixTensor(OpDef):
    type = "match_matrix_tensor"
    inputs = ("X", "Y", "W", "XLength", "YLength")
    outputs = ("Out", "Tmp", "OutLength")
    attrs = {"dim_t": 1}
    lod_lengths = {"XLength": "X", "YLength": "Y"}
    lod_outputs = {"Out": lengths_lod("OutLength")}
    no_grad = ("XLength", "YLength")
    grad_inputs = ("X", "Y", "W", "XLength", "YLength", "Out@GRAD")

    def infer_shape(self, ctx):
        ctx.check_dtype("X", ("float32", "float64"))
        x, y, w = (ctx.input_var(s) for s in ("X", "Y", "W"))
        ctx.expect(len(x.shape) == 2 and len(y.shape) == 2,
                   "X %r and Y %r must be packed sequences [rows, h], got %s and %s"
                   % (x.name, y.name, list(x.shape), list(y.shape)))
        h = x.shape[1]
        ctx.expect(h < 0 or y.shape[1] in (h, -1), "X %r and Y %r must have the same width, "
                   "got %d and %d" % (x.name, y.name, h, y.shape[1]))
        ctx.expect(list(w.shape) == [h, ctx.attr("dim_t"), y.shape[1]] or h < 0,
                   "W %r must be [h, dim_t, h] = %s, got %s"
                   % (w.name, [h, ctx.attr("dim_t"), y.shape[1]], list(w.shape)))
        ctx.set_output("Out", (-1, 1), x.dtype)
        ctx.set_output("Tmp", (-1, 1), x.dtype)
        ctx.set_output("OutLength", (-1,), "int64")

    @staticmethod
    def forward(x, y, w, x_length, y_length, dim_t=1):
        outs, tmps, lengths = [], [], []
        for xs, ys in _pairs(x, y, x_length, y_length):
            xw = np.einsum("ih,htk->itk", x[xs], w)                       # [lx, T, h]
            out = np.einsum("itk,jk->tij", xw, y[ys])                     # [T, lx, ly]
            tmps.append(xw.reshape(-1))
            outs.append(out.reshape(-1))
            lengths.append(out.size)
        empty = np.zeros(0, x.dtype)
        return (np.concatenate(outs + [empty]).reshape(-1, 1).astype(x.dtype),
                np.concatenate(tmps + [empty]).reshape(-1, 1).astype(x.dtype),
                np.array(lengths, np.int64))

    @staticmethod
    def backward(x, y, w, x_length, y_length, dout, dim_t=1):
        dx, dy, dw = np.zeros_like(x), np.zeros_like(y), np.zeros_like(w)
        start = 0
        for xs, ys in _pairs(x, y, x_length, y_length):
            xb, yb = x[xs], y[ys]
            g = dout[start:start + dim_t * len(xb) * len(yb)].reshape(dim_t, len(xb), len(yb))
            start += g.size
            dx[xs] += np.einsum("tij,htk,jk->ih", g, w, yb)
            dy[ys] += np.einsum("tij,ih,htk->jk", g, xb, w)
            dw += np.einsum("tij,ih,jk->htk", g, xb, yb)
        return dx, dy, dw

    def samples(self, rng):
        yield Sample({"X": rand(rng, 5, 3), "Y": rand(rng, 6, 3), "W": rand(rng, 3, 2, 3),
                      "XLength": np.array([1, 0, 4], np.int64),
                      "YLength": np.array([2, 3, 1], np.int64)}, {"dim_t": 2})
