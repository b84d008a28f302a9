"""split_lod_tensor / merge_lod_tensor: the row routing behind fluid.layers.IfElse. Rows
of X where the boolean Mask ([N, 1]) is true go to OutTrue, the others to OutFalse (in
order); merge puts InTrue's and InFalse's rows back in X's row order. Level-0 rows only
(refimpl has no LoD; specs/control_flow.md)."""
import numpy as np

from .registry import OpDef, Sample, register


def _mask(mask):
    return np.asarray(mask).reshape(-1).astype(bool)


def _check_mask(ctx, rows_of):
    m = ctx.input_var("Mask")
    ctx.expect(m.dtype is None or m.dtype.name == "bool",
               "Mask %r: expected dtype bool, got %s" % (m.name, m.dtype.name))
    x = ctx.input_var(rows_of)
    if m.shape and x.shape and m.shape[0] >= 0 and x.shape[0] >= 0:
        ctx.expect(m.shape[0] == x.shape[0], "Mask %r has %d rows but %s %r has %d"
                   % (m.name, m.shape[0], rows_of, x.name, x.shape[0]))


def _split_rows(x, mask):
    m = _mask(mask)
    if len(m) != len(x):
        raise ValueError("Mask has %d rows but X has %d" % (len(m), len(x)))
    return x[m], x[~m]


def _merge_rows(mask, in_true, in_false):
    m = _mask(mask)
    if (len(in_true), len(in_false)) != (m.sum(), (~m).sum()):
        raise ValueError("Mask selects %d true and %d false rows, but InTrue has %d and "
                         "InFalse %d" % (m.sum(), (~m).sum(), len(in_true), len(in_false)))
    out = np.empty((len(m),) + in_true.shape[1:], dtype=in_true.dtype)
    out[m] = in_true
    out[~m] = in_false
    return out


def _mask_sample(rng):
    return (rng.rand(5, 1) > 0.5) | (np.arange(5) == 0)[:, None]


@register
class SplitLodTensor(OpDef):
    type = "split_lod_tensor"
    inputs = ("X", "Mask")
    outputs = ("OutTrue", "OutFalse")
    attrs = {"level": 0}
    no_grad = ("Mask",)
    grad_inputs = ("X", "Mask", "OutTrue@GRAD", "OutFalse@GRAD")

    def infer_shape(self, ctx):
        _check_mask(ctx, "X")
        x = ctx.input_var("X")
        rows = (-1,) + tuple(x.shape[1:])
        ctx.set_output("OutTrue", rows, x.dtype)
        ctx.set_output("OutFalse", rows, x.dtype)

    @staticmethod
    def forward(x, mask, level=0):
        return _split_rows(x, mask)

    @staticmethod
    def backward(x, mask, dtrue, dfalse, level=0):
        m = _mask(mask)
        dx = np.zeros_like(x)
        if dtrue is not None:
            dx[m] = dtrue
        if dfalse is not None:
            dx[~m] = dfalse
        return dx

    def samples(self, rng):
        yield Sample({"X": rng.rand(5, 3), "Mask": _mask_sample(rng)})


@register
class MergeLodTensor(OpDef):
    type = "merge_lod_tensor"
    inputs = ("X", "Mask", "InTrue", "InFalse")
    outputs = ("Out",)
    attrs = {"level": 0}
    no_grad = ("X", "Mask")
    grad_inputs = ("Mask", "Out@GRAD")

    def infer_shape(self, ctx):
        _check_mask(ctx, "X")
        t, f = ctx.input_var("InTrue"), ctx.input_var("InFalse")
        ctx.expect(t.dtype == f.dtype and tuple(t.shape[1:]) == tuple(f.shape[1:]),
                   "InTrue %r (%s %s) and InFalse %r (%s %s) must have the same dtype and "
                   "row shape" % (t.name, t.dtype.name, list(t.shape), f.name, f.dtype.name,
                                  list(f.shape)))
        rows = ctx.input_var("X").shape[0] if ctx.input_var("X").shape else -1
        ctx.set_output("Out", (rows,) + tuple(t.shape[1:]), t.dtype)

    @staticmethod
    def forward(x, mask, in_true, in_false, level=0):
        return _merge_rows(mask, in_true, in_false)

    @staticmethod
    def backward(mask, dout, level=0):
        return _split_rows(dout, mask)

    def samples(self, rng):
        mask = _mask_sample(rng)
        n = int(mask.sum())
        yield Sample({"X": rng.rand(5, 1), "Mask": mask, "InTrue": rng.rand(n, 3),
                      "InFalse": rng.rand(5 - n, 3)})
