"""hierarchical_sigmoid: a binary-tree softmax. Each label has a path of inner nodes and
bits; with p = clip(W[node] . X[n] + Bias[node], -40, 40) per path step and 0 past the
path's end, PreOut [N, width] holds softplus(p) (as Paddle's, whose gradient recovers
sigmoid(p) = 1 - exp(-PreOut) from it) and Out[n] = sum over all `width` columns of
softplus(p) - bit p. As in Paddle, a path shorter than the width thus adds log 2 per
missing step (a constant: no gradient). width: (num_classes - 1).bit_length() for the
default tree, PathTable's columns for a custom one.
Default tree (num_classes leaves): code = label + num_classes; step j visits node
(code >> (j+1)) - 1 with bit (code >> j) & 1, for j < bit_length(code) - 1. A custom tree
gives PathTable (node ids, -1 ends a path) and PathCode (bits) per sample."""
import numpy as np

from ._common import FLOATS, rand
from .pointwise_loss import stable_softplus
from .registry import OpDef, Sample, register

PRE_OUT_CLIP = 40.0


def default_paths(label, num_classes, n=None):
    """(nodes [N, L], bits [N, L], valid [N, L]) of the default complete tree. Sample i's
    class is the i-th value of Label read flat (as Paddle's kernel reads it: a [N, k]
    Label gives its first N values); `n`: N, the rows of X (default: every label)."""
    flat = label.reshape(-1)
    if n is not None:
        if flat.size < n:
            raise ValueError("Label holds %d values, fewer than the %d rows of X"
                             % (flat.size, n))
        flat = flat[:n]
    codes = flat.astype(np.int64) + num_classes
    j = np.arange((num_classes - 1).bit_length())
    nodes = (codes[:, None] >> (j + 1)) - 1
    bits = (codes[:, None] >> j) & 1
    valid = j < np.array([int(c).bit_length() - 1 for c in codes])[:, None]
    return np.where(valid, nodes, 0), np.where(valid, bits, 0), valid


def _paths(label, path_table, path_code, num_classes, n=None):
    if path_table is None:
        return default_paths(label, num_classes, n)
    valid = path_table >= 0
    return (np.where(valid, path_table, 0).astype(np.int64),
            np.where(valid, path_code, 0).astype(np.int64), valid)


@register
class HierarchicalSigmoid(OpDef):
    type = "hierarchical_sigmoid"
    inputs = ("X", "W", "Label", "PathTable?", "PathCode?", "Bias?")
    # W_Out: Paddle's op requires it (its sparse-parameter path, bound to W by the layer);
    # accepted, never written here, like batch_norm's ReserveSpace
    outputs = ("Out", "PreOut", "W_Out?")
    attrs = {"num_classes": 2, "is_sparse": False}
    no_grad = ("Label", "PathTable", "PathCode")
    grad_inputs = ("X", "W", "Label", "PathTable?", "PathCode?", "Bias?", "PreOut",
                   "Out@GRAD")

    def infer_shape(self, ctx):
        x, w = ctx.input_var("X"), ctx.input_var("W")
        ctx.check_dtype("X", FLOATS)
        ctx.expect(len(x.shape) == 2 and len(w.shape) == 2 and w.shape[1] == x.shape[1],
                   "X %r %s must be [N, D] and W %r %s [nodes, D]"
                   % (x.name, list(x.shape), w.name, list(w.shape)))
        ctx.expect(ctx.has_input("PathTable") == ctx.has_input("PathCode"),
                   "PathTable and PathCode come together (a custom tree)")
        if not ctx.has_input("PathTable"):
            ctx.expect(ctx.attr("num_classes") >= 2, "num_classes must be >= 2, got %d"
                       % ctx.attr("num_classes"))
        width = ctx.input_var("PathTable").shape[1] if ctx.has_input("PathTable") else \
            (ctx.attr("num_classes") - 1).bit_length()
        ctx.set_output("Out", (x.shape[0], 1), x.dtype)
        ctx.set_output("PreOut", (x.shape[0], width), x.dtype)
        if ctx.has_output("W_Out"):
            ctx.set_output("W_Out", w.shape, w.dtype)      # declared, never written

    @staticmethod
    def _pre(x, w, bias, nodes, valid):
        pre = np.einsum("nd,nld->nl", x, w[nodes])
        if bias is not None:
            pre = pre + bias.reshape(-1)[nodes]
        return np.where(valid, np.clip(pre, -PRE_OUT_CLIP, PRE_OUT_CLIP), 0)

    @staticmethod
    def forward(x, w, label, path_table, path_code, bias, num_classes=2, is_sparse=False):
        nodes, bits, valid = _paths(label, path_table, path_code, num_classes, len(x))
        pre = HierarchicalSigmoid._pre(x, w, bias, nodes, valid)
        softplus = stable_softplus(pre)
        loss = (softplus - bits * pre).sum(1, keepdims=True)
        return loss.astype(x.dtype), softplus.astype(x.dtype), None

    @staticmethod
    def backward(x, w, label, path_table, path_code, bias, softplus, dout, num_classes=2,
                 is_sparse=False):
        nodes, bits, valid = _paths(label, path_table, path_code, num_classes, len(x))
        sigmoid_pre = -np.expm1(-softplus)
        dpre = np.where(valid, sigmoid_pre - bits, 0) * dout.reshape(-1, 1)
        dx = np.einsum("nl,nld->nd", dpre, w[nodes])
        dw = np.zeros_like(w)
        np.add.at(dw, nodes, dpre[..., None] * x[:, None, :])
        dbias = None
        if bias is not None:
            dbias = np.zeros(bias.size, bias.dtype)
            np.add.at(dbias, nodes, dpre)
            dbias = dbias.reshape(bias.shape)
        return dx.astype(x.dtype), dw, dbias

    def samples(self, rng):
        yield Sample({"X": rand(rng, 4, 3), "W": rand(rng, 5, 3),
                      "Label": rng.randint(0, 6, (4, 1)).astype("int64"),
                      "Bias": rand(rng, 5, 1)}, {"num_classes": 6}, name="default_tree")
        # a [N, 2] Label: its first N values, read flat, are the classes (Paddle 1.8.5)
        yield Sample({"X": rand(rng, 2, 3), "W": rand(rng, 3, 3),
                      "Label": np.array([[2, 1], [3, 0]], "int64")}, {"num_classes": 4},
                     name="label_read_flat")
        table = np.array([[0, 1, -1], [0, 2, 3], [0, 1, -1]], "int64")
        code = np.array([[1, 0, 0], [0, 1, 1], [1, 1, 0]], "int64")
        yield Sample({"X": rand(rng, 3, 2), "W": rand(rng, 4, 2),
                      "Label": np.zeros((3, 1), "int64"), "PathTable": table,
                      "PathCode": code}, {"num_classes": 5}, name="custom_tree")
