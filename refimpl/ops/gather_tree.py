"""gather_tree (beam search backtracking, forward only): Ids and Parents [T, B, beam];
the last step keeps its ids, and each earlier step takes the id of the beam the later
step's parent pointer names: Out[t, b, k] = Ids[t, b, p_t], p_{T-1} = k,
p_t = Parents[t + 1, b, p_{t+1}]."""
import numpy as np

from .registry import OpDef, Sample, register


@register
class GatherTree(OpDef):
    type = "gather_tree"
    inputs = ("Ids", "Parents")
    outputs = ("Out",)

    def infer_shape(self, ctx):
        ids, parents = ctx.input_var("Ids"), ctx.input_var("Parents")
        ctx.check_dtype("Ids", ("int32", "int64"))
        ctx.check_dtype("Parents", ("int32", "int64"))
        ctx.expect(len(ids.shape) == 3, "Ids %r must be [T, B, beam], got %s"
                   % (ids.name, list(ids.shape)))
        ctx.expect(tuple(ids.shape) == tuple(parents.shape),
                   "Parents %r %s must have Ids %r's shape %s"
                   % (parents.name, list(parents.shape), ids.name, list(ids.shape)))
        ctx.same_as("Ids", "Out")

    @staticmethod
    def forward(ids, parents):
        steps, batch, beam = ids.shape
        out = np.empty_like(ids)
        beam_of = np.broadcast_to(np.arange(beam), (batch, beam)).copy()
        rows = np.arange(batch)[:, None]
        for t in range(steps - 1, -1, -1):
            out[t] = ids[t][rows, beam_of]
            beam_of = parents[t][rows, beam_of]
        return out

    def samples(self, rng):
        yield Sample({"Ids": rng.randint(0, 10, (4, 2, 3)).astype("int64"),
                      "Parents": rng.randint(0, 3, (4, 2, 3)).astype("int64")}, grad=False)
