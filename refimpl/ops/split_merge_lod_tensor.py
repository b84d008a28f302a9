"""split_lod_tensor / merge_lod_tensor (and merge_lod_tensor_infer): the row routing behind
fluid.layers.IfElse. The boolean Mask ([N, 1]) has one entry per sequence of X's LoD level
`level` (per row when X has no LoD): the sequences (rows) where it is true go to OutTrue,
the others to OutFalse, in order, each with its sub-LoD (the levels from `level` down, as
Paddle 1.8.5 gives them). merge puts InTrue's and InFalse's sequences back in mask order;
its Out carries the joined sub-LoD (specs/control_flow.md)."""
import numpy as np

from ..framework.lod import lod_of, with_lod
from ._rank_table import child_count, gather_children
from .registry import OpDef, Sample, register, result_lod


def _mask(mask, entries, what):
    m = np.asarray(mask)
    if m.dtype != np.bool_:
        raise TypeError("Mask must be bool, got %s" % m.dtype)
    m = m.reshape(-1)
    if len(m) != entries:
        raise ValueError("Mask has %d entries but %s has %d" % (len(m), what, entries))
    return m


def _routes(x, mask, level):
    """(Mask, (rows, LoD) of the true entries, of the false ones) for X."""
    lod = lod_of(x)
    if lod and not 0 <= level < len(lod):
        raise ValueError("level %d is not one of X's %d LoD levels" % (level, len(lod)))
    below = lod[level:] if lod else ()
    entries = child_count(below, len(x))
    m = _mask(mask, entries, "X's LoD level %d" % level if lod else "X (rows)")
    return m, gather_children(below, len(x), np.flatnonzero(m)), \
        gather_children(below, len(x), np.flatnonzero(~m))


def _merged(mask, in_true, in_false, level):
    """(Out's rows in order of [InTrue rows, InFalse rows], Out's LoD)."""
    m = np.asarray(mask).reshape(-1)
    parts = []
    for part in (in_true, in_false):
        lod = lod_of(part)
        below = lod[level:] if len(lod) > level else lod
        parts.append((below, child_count(below, len(part))))
    if (parts[0][1], parts[1][1]) != (int(m.sum()), int((~m.astype(bool)).sum())):
        raise ValueError("Mask selects %d true and %d false entries, but InTrue has %d and "
                         "InFalse %d" % (m.sum(), (~m.astype(bool)).sum(), parts[0][1],
                                         parts[1][1]))
    _mask(mask, len(m), "Mask")
    # each output entry k is the next entry of InTrue or InFalse; rows of the two parts
    # are numbered one after the other
    taken, rows, levels = [0, 0], [], None
    for k in m:
        side = 0 if k else 1
        below, _ = parts[side]
        r, sub = gather_children(below, len((in_true, in_false)[side]), [taken[side]])
        rows.append(r + (0 if side == 0 else len(in_true)))
        levels = sub if levels is None else tuple(a + b for a, b in zip(levels, sub))
        taken[side] += 1
    rows = np.concatenate(rows) if rows else np.zeros(0, np.int64)
    return rows, levels or ()


def _mask_sample(rng):
    return (rng.rand(5, 1) > 0.5) | (np.arange(5) == 0)[:, None]


def _row_shapes(ctx, rows_of):
    x = ctx.input_var(rows_of)
    return (-1,) + tuple(x.shape[1:])


@register
class SplitLodTensor(OpDef):
    type = "split_lod_tensor"
    inputs = ("X", "Mask")
    outputs = ("OutTrue", "OutFalse")
    attrs = {"level": 0}
    no_grad = ("Mask",)
    grad_inputs = ("X", "Mask", "OutTrue@GRAD", "OutFalse@GRAD")
    lod_whole = ("X",)
    lod_outputs = {slot: result_lod(slot, lambda levels: (levels.get("X") or [0])[0])
                   for slot in ("OutTrue", "OutFalse")}

    def infer_shape(self, ctx):
        x = ctx.input_var("X")
        ctx.set_output("OutTrue", _row_shapes(ctx, "X"), x.dtype)
        ctx.set_output("OutFalse", _row_shapes(ctx, "X"), x.dtype)

    @staticmethod
    def forward(x, mask, level=0):
        _, (t_rows, t_lod), (f_rows, f_lod) = _routes(x, mask, level)
        data = np.asarray(x)
        return with_lod(data[t_rows], t_lod), with_lod(data[f_rows], f_lod)

    @staticmethod
    def backward(x, mask, dtrue, dfalse, level=0):
        _, (t_rows, _), (f_rows, _) = _routes(x, mask, level)
        dx = np.zeros(np.shape(x), np.asarray(x).dtype)
        if dtrue is not None:
            dx[t_rows] = dtrue
        if dfalse is not None:
            dx[f_rows] = dfalse
        return dx

    def samples(self, rng):
        yield Sample({"X": rng.rand(5, 3), "Mask": _mask_sample(rng)})
        yield Sample({"X": with_lod(rng.rand(10, 2), ((3, 6, 1),)),
                      "Mask": np.array([[False], [True], [False]])}, name="sequences")


@register
class MergeLodTensor(OpDef):
    type = "merge_lod_tensor"
    inputs = ("X", "Mask", "InTrue", "InFalse")
    outputs = ("Out",)
    attrs = {"level": 0}
    no_grad = ("X", "Mask")
    grad_inputs = ("Mask", "InTrue", "InFalse", "Out@GRAD")
    lod_whole = ("InTrue", "InFalse")
    lod_outputs = {"Out": result_lod("Out", lambda levels: (levels.get("InTrue") or [0])[0])}

    def infer_shape(self, ctx):
        t, f = ctx.input_var("InTrue"), ctx.input_var("InFalse")
        ctx.expect(t.dtype == f.dtype and tuple(t.shape[1:]) == tuple(f.shape[1:]),
                   "InTrue %r (%s %s) and InFalse %r (%s %s) must have the same dtype and "
                   "row shape" % (t.name, t.dtype.name, list(t.shape), f.name, f.dtype.name,
                                  list(f.shape)))
        rows = ctx.input_var("X").shape[0] if ctx.input_var("X").shape else -1
        ctx.set_output("Out", (rows,) + tuple(t.shape[1:]), t.dtype)

    @staticmethod
    def forward(x, mask, in_true, in_false, level=0):
        rows, lod = _merged(mask, in_true, in_false, level)
        joined = np.concatenate([np.asarray(in_true), np.asarray(in_false)])
        return with_lod(joined[rows], lod)

    @staticmethod
    def backward(mask, in_true, in_false, dout, level=0):
        rows, _ = _merged(mask, in_true, in_false, level)
        djoined = np.zeros((len(in_true) + len(in_false),) + np.shape(dout)[1:],
                           np.asarray(dout).dtype)
        djoined[rows] = dout
        return djoined[:len(in_true)], djoined[len(in_true):]

    def samples(self, rng):
        mask = _mask_sample(rng)
        n = int(mask.sum())
        yield Sample({"X": rng.rand(5, 1), "Mask": mask, "InTrue": rng.rand(n, 3),
                      "InFalse": rng.rand(5 - n, 3)})
        yield Sample({"X": rng.rand(10, 1), "Mask": np.array([[False], [True], [False]]),
                      "InTrue": with_lod(rng.rand(6, 2), ((6,),)),
                      "InFalse": with_lod(rng.rand(4, 2), ((3, 1),))}, name="sequences")


@register
class MergeLodTensorInfer(MergeLodTensor):
    """merge_lod_tensor for inference programs (Paddle's IfElse there): no gradient."""
    type = "merge_lod_tensor_infer"
    grad_inputs = None
    backward = None     # (MergeLodTensor's would offer a kernel for a grad op none has)

    def has_grad(self):
        return False
