"""update_loss_scaling (Paddle 2.0's AMP op, refimpl/fluid/contrib/mixed_precision/
amp_nn.py): dynamic loss scaling's step. Out is X, or zeros when FoundInfinite; unless
stop_update, a finite step counts good steps (bad ones reset) and the incr_every_n_steps-th
multiplies the scaling by incr_ratio (kept when that overflows) and resets the count; a
non-finite step counts bad steps (good ones reset) and the decr_every_n_nan_or_inf-th
multiplies it by decr_ratio (at least 1) and resets the count. Otherwise LossScaling is
PrevLossScaling (amp_nn binds each output to its input). A StopUpdate tensor (Paddle 3's
op tests give one; 3.3.1's kernel reads it in place of the attr) decides stop_update when
given. No gradient."""
import numpy as np

from ._common import rand
from .registry import OpDef, Sample, register


@register
class UpdateLossScaling(OpDef):
    type = "update_loss_scaling"
    inputs = ("X*", "FoundInfinite", "PrevLossScaling", "InGoodSteps", "InBadSteps",
              "StopUpdate?")
    outputs = ("Out*", "LossScaling", "OutGoodSteps", "OutBadSteps")
    attrs = {"incr_every_n_steps": 1000, "decr_every_n_nan_or_inf": 2, "incr_ratio": 2.0,
             "decr_ratio": 0.5, "stop_update": False}

    def infer_shape(self, ctx):
        ctx.expect(ctx.attr("incr_ratio") > 1.0, "'incr_ratio' should be greater than 1, "
                   "but the received is %f" % ctx.attr("incr_ratio"))
        ctx.expect(0.0 < ctx.attr("decr_ratio") < 1.0, "'decr_ratio' should be between 0 "
                   "and 1, but the received is %f" % ctx.attr("decr_ratio"))
        for i, v in enumerate(ctx.input_vars("X")):
            ctx.set_output("Out", v.shape, v.dtype, i)
        ctx.same_as("PrevLossScaling", "LossScaling")
        ctx.set_output("OutGoodSteps", [1], "int32")
        ctx.set_output("OutBadSteps", [1], "int32")

    @staticmethod
    def forward(xs, found_inf, prev_scaling, good_in, bad_in, stop_tensor=None,
                incr_every_n_steps=1000, decr_every_n_nan_or_inf=2, incr_ratio=2.0,
                decr_ratio=0.5, stop_update=False):
        if stop_tensor is not None:
            stop_update = bool(stop_tensor.reshape(-1)[0])
        if found_inf.size != 1:
            raise ValueError("update_loss_scaling: FoundInfinite must hold one value, got %d"
                             % found_inf.size)
        found = bool(found_inf.reshape(-1)[0])
        outs = [np.zeros_like(x) if found else x for x in xs]
        scaling = prev_scaling.copy()
        good, bad = good_in.astype(np.int32).copy(), bad_in.astype(np.int32).copy()
        if stop_update:
            return outs, scaling, good, bad
        dtype = scaling.dtype.type
        if found:
            good[...], bad[...] = 0, bad + 1
            if bad.reshape(-1)[0] == decr_every_n_nan_or_inf:
                scaling[...] = np.maximum(scaling * dtype(decr_ratio), dtype(1))
                bad[...] = 0
        else:
            good[...], bad[...] = good + 1, 0
            if good.reshape(-1)[0] == incr_every_n_steps:
                grown = scaling * dtype(incr_ratio)
                scaling[...] = np.where(np.isfinite(grown), grown, scaling)
                good[...] = 0
        return outs, scaling, good, bad

    def samples(self, rng):
        steps = lambda n: np.array([n], np.int32)
        xs = [rand(rng, 3, 2, dtype="float32"), rand(rng, 4, dtype="float32")]
        attrs = {"incr_every_n_steps": 3, "decr_every_n_nan_or_inf": 2, "incr_ratio": 2.0,
                 "decr_ratio": 0.5}
        scaling = np.array([1024.0], np.float32)
        yield Sample({"X": xs, "FoundInfinite": np.array([False]), "PrevLossScaling": scaling,
                      "InGoodSteps": steps(2), "InBadSteps": steps(1)}, attrs, grad=False,
                     name="grow")
        yield Sample({"X": xs, "FoundInfinite": np.array([True]), "PrevLossScaling": scaling,
                      "InGoodSteps": steps(2), "InBadSteps": steps(1)}, attrs, grad=False,
                     name="shrink")
        yield Sample({"X": xs, "FoundInfinite": np.array([False]), "PrevLossScaling": scaling,
                      "InGoodSteps": steps(0), "InBadSteps": steps(1)}, attrs, grad=False,
                     name="count")
