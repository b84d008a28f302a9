"""shuffle_batch (Paddle 1.8 contrib): X's rows (the vectors along its last dim, over all
leading dims) in a random order: Out[i] = X[ShuffleIdx[i]]. The permutation comes from the
seed in the optional Seed input (int64 [1]), else from the startup_seed attr; SeedOut is the
next seed drawn, which the layer feeds back into Seed so that each run shuffles anew. The
stream is refimpl's (numpy's RandomState), not Paddle's std::default_random_engine, so a
seed gives another permutation than in Paddle. The grad puts Out@GRAD's rows back."""
import numpy as np

from ..framework.dtypes import get_dtype
from ._common import rand
from .registry import OpDef, Sample, register, share_lod


def _rows(x):
    return x.reshape(-1, x.shape[-1]) if x.ndim else x.reshape(1, 1)


@register
class ShuffleBatch(OpDef):
    type = "shuffle_batch"
    inputs = ("X", "Seed?")
    outputs = ("Out", "ShuffleIdx", "SeedOut?")
    attrs = {"startup_seed": 0}
    no_grad = ("Seed",)
    grad_inputs = ("ShuffleIdx", "Out@GRAD")
    lod_outputs = {"Out": share_lod("X")}

    def infer_shape(self, ctx):
        x = ctx.input_var("X")
        ctx.expect(len(x.shape) >= 1, "input X %r must have at least one dim" % x.name)
        lead = x.shape[:-1]
        rows = -1 if any(d < 0 for d in lead) else int(np.prod(lead, dtype=np.int64))
        ctx.same_as("X", "Out")
        ctx.set_output("ShuffleIdx", [rows], get_dtype("int64"))
        if ctx.has_output("SeedOut"):
            ctx.set_output("SeedOut", [1], get_dtype("int64"))

    @staticmethod
    def forward(x, seed=None, startup_seed=0):
        start = startup_seed if seed is None else int(np.asarray(seed).reshape(-1)[0])
        rng = np.random.RandomState(start % 2 ** 32)
        rows = _rows(x)
        index = rng.permutation(len(rows)).astype(np.int64)
        seed_out = np.array([rng.randint(0, 2 ** 31 - 1)], np.int64)
        return rows[index].reshape(x.shape), index, seed_out

    @staticmethod
    def backward(index, dout, startup_seed=0):
        rows = _rows(dout)
        dx = np.empty_like(rows)
        dx[index] = rows
        return dx.reshape(dout.shape)

    def samples(self, rng):
        yield Sample({"X": rand(rng, 6, 3), "Seed": np.array([5], np.int64)})
        yield Sample({"X": rand(rng, 2, 3, 4)}, {"startup_seed": 9})
