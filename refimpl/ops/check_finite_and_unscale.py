"""check_finite_and_unscale (Paddle 2.0's AMP op, refimpl/fluid/contrib/mixed_precision/
amp_nn.py): FoundInfinite ([1] bool) says whether any tensor of X holds an inf or a NaN;
Out[i] = X[i] / Scale while none was found. As Paddle's CPU kernel, the tensors are taken
in order: from the first one holding a non-finite value on, Out is X * 0 (its values are
not to be used). No gradient."""
import numpy as np

from ._common import rand
from .registry import OpDef, Sample, register


@register
class CheckFiniteAndUnscale(OpDef):
    type = "check_finite_and_unscale"
    inputs = ("X*", "Scale")
    outputs = ("Out*", "FoundInfinite")

    def infer_shape(self, ctx):
        xs = ctx.input_vars("X")
        ctx.expect(len(xs) == len(ctx.op.outputs.get("Out", ())),
                   "X holds %d tensors but Out %d" % (len(xs), len(ctx.op.outputs.get("Out", ()))))
        for i, v in enumerate(xs):
            ctx.set_output("Out", v.shape, v.dtype, i)
        ctx.set_output("FoundInfinite", [1], "bool")

    @staticmethod
    def forward(xs, scale):
        inverse = 1 / scale.reshape(-1)[0]
        found = False
        outs = []
        for x in xs:
            found = found or not np.isfinite(x).all()
            with np.errstate(invalid="ignore"):       # inf * 0: NaN, as Paddle's, unwarned
                outs.append(x * x.dtype.type(0) if found else (x * inverse).astype(x.dtype))
        return outs, np.array([found])

    def samples(self, rng):
        finite = [rand(rng, 3, 4), rand(rng, 5)]
        yield Sample({"X": finite, "Scale": np.array([4.0])}, grad=False, name="finite")
        with_inf = [rand(rng, 2, 2), rand(rng, 3), rand(rng, 2)]
        with_inf[1][1] = np.inf
        yield Sample({"X": with_inf, "Scale": np.array([2.0])}, grad=False, name="inf")
