"""lod_reset: Out = X's data with a new LoD: Y's LoD when Y has one, else one level of
offsets from Y's data (such as [0, 4, 6], as Paddle reads a non-LoD Y), else from the
target_lod attr. The offsets must start at 0, never decrease and end at X's row count.
`append` (lod_append) puts the new level under X's LoD. The kernel returns the new level's
lengths as OutLength (no program variable)."""
import numpy as np

from ._common import rand
from ._sequence import lengths_of
from .registry import LoDRule, OpDef, Sample, register


def lengths_from_offsets(offsets, rows, op="lod_reset"):
    off = np.asarray(offsets, np.int64).reshape(-1)
    if len(off) < 1 or off[0] != 0 or (np.diff(off) < 0).any() or off[-1] != rows:
        raise ValueError("%s: the target LoD must be offsets starting at 0, never decreasing "
                         "and ending at X's %d rows, got %s" % (op, rows, off.tolist()))
    return np.diff(off)


def _reset_lod(lods, values, attrs):
    """Out's LoD: Y's whole LoD when Y has one, else the one new level (OutLength); with
    `append`, X's LoD with the new level (Y's last) below it."""
    new = (tuple(int(n) for n in values["OutLength"]),)
    if attrs.get("append"):
        return lods["X"] + new
    return lods.get("Y") or new


@register
class LoDReset(OpDef):
    type = "lod_reset"
    inputs = ("X", "Y?", "YLength?")
    outputs = ("Out", "OutLength")
    attrs = {"target_lod": [], "append": False}
    no_grad = ("Y", "YLength")
    grad_inputs = ("X", "Out@GRAD")
    lod_lengths = {"YLength": "Y"}
    lod_outputs = {"Out": LoDRule(_reset_lod, lambda levels: max(levels.get("Y", [1])[0], 1),
                                  creates=True, reads="OutLength")}

    def infer_lod_level(self, op):
        """With `append` Out has one level more than X (the rule's level is for a reset)."""
        super().infer_lod_level(op)
        if op.attrs.get("append"):
            x = op.block._find_var_recursive(op.inputs["X"][0])
            for name in op.outputs.get("Out", ()):
                op.block._find_var_recursive(name).lod_level = (x.lod_level or 0) + 1

    def infer_shape(self, ctx):
        ctx.expect(ctx.has_input("Y") or ctx.has_input("YLength") or ctx.attr("target_lod"),
                   "give Y or a non-empty target_lod")
        ctx.same_as("X", "Out")
        ctx.set_output("OutLength", (-1,), "int64")

    @staticmethod
    def forward(x, y, y_length, target_lod=(), append=False):
        if y_length is not None:
            return x, lengths_of(y_length, len(x), "lod_reset", "YLength")
        return x, lengths_from_offsets(target_lod if y is None else y, len(x))

    @staticmethod
    def backward(x, dout, target_lod=(), append=False):
        return dout

    def samples(self, rng):
        yield Sample({"X": rand(rng, 6, 2)}, {"target_lod": [0, 4, 4, 6]})
        yield Sample({"X": rand(rng, 3, 2), "Y": np.array([0, 1, 3], np.int32)})
        yield Sample({"X": rand(rng, 3), "YLength": np.array([2, 1], np.int64)})
