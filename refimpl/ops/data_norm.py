"""data_norm (Paddle 1.8): normalizes X [N, C] by running statistics that the op itself
keeps as parameters, BatchSize, BatchSum and BatchSquareSum [C]:
  Means = BatchSum / BatchSize, Scales = sqrt(BatchSize / BatchSquareSum),
  Y = (X - Means) * Scales (then * scale_w + bias when enable_scale_and_shift).
With slot_dim > 0 each row is cut into slots of slot_dim columns; a slot whose first value
is 0 (|x| < 1e-7: the feature is absent) gives zeros in Y.

The grad op reports, beside X@GRAD = Y@GRAD * Scales (* scale_w), the batch's statistics as
the three counters' "gradients" (statistic_grads, not derivatives), which an optimizer then
applies (SGD: BatchSize -= lr * N, ...), as Paddle 1.8.5's CPU kernel does:
  slot_dim <= 0: BatchSize@GRAD = N, BatchSum@GRAD = sum_n x, BatchSquareSum@GRAD =
                 sum_n (x - Means)^2 + N * epsilon;
  slot_dim > 0:  over the n rows where the column's slot is present: 1, sum / n and
                 sum (x - Means)^2 / n + n * epsilon (all 0 where n = 0).
With enable_scale_and_shift and slot_dim > 0, X@GRAD, scale_w@GRAD and bias@GRAD are zero
in absent slots; without scale and shift X@GRAD is not masked (1.8.5 measured both)."""
import numpy as np

from ._common import rand
from .registry import OpDef, Sample, register

ABSENT_BELOW = 1e-7       # Paddle's min_precision: a slot's first value this small is absent


def _present(x, slot_dim):
    """[N, C] bool: the columns whose slot is present in each row (all when slot_dim <= 0)."""
    if slot_dim <= 0:
        return np.ones(x.shape, bool)
    first = x[:, ::slot_dim]
    return np.repeat(np.abs(first) >= ABSENT_BELOW, slot_dim, axis=1)[:, :x.shape[1]]


def _means_and_scales(batch_size, batch_sum, batch_square_sum):
    return batch_sum / batch_size, np.sqrt(batch_size / batch_square_sum)


@register
class DataNorm(OpDef):
    type = "data_norm"
    inputs = ("X", "BatchSize", "BatchSum", "BatchSquareSum", "scale_w?", "bias?")
    outputs = ("Y", "Means", "Scales")
    attrs = {"epsilon": 1e-4, "slot_dim": -1, "enable_scale_and_shift": False,
             "sync_stats": False, "summary_decay_rate": 0.9999999, "data_layout": "NCHW",
             "use_mkldnn": False}
    grad_inputs = ("X", "BatchSize", "BatchSum", "BatchSquareSum", "scale_w?", "bias?",
                   "Y@GRAD")
    statistic_grads = ("BatchSize", "BatchSum", "BatchSquareSum")
    tolerances = {"float32": (1e-4, 1e-5), "float64": (1e-7, 1e-9)}

    def infer_shape(self, ctx):
        x = ctx.input_var("X")
        # Paddle 1.8.5 builds any rank >= 2 (channels: dim 1, or the last under NHWC);
        # its kernel and this one compute on [N, C] only
        ctx.expect(len(x.shape) >= 2, "input X %r: expected [N, C], got %s"
                   % (x.name, list(x.shape)))
        channels = x.shape[-1 if ctx.attr("data_layout") == "NHWC" else 1]
        for slot in ("BatchSize", "BatchSum", "BatchSquareSum", "scale_w", "bias"):
            v = ctx.input_var(slot)
            if v is not None:
                ctx.expect(list(v.shape) in ([channels], [-1]) or channels < 0,
                           "input %s %r: expected [%d] (X's channels), got %s"
                           % (slot, v.name, channels, list(v.shape)))
        if ctx.attr("enable_scale_and_shift"):
            ctx.expect(ctx.has_input("scale_w") and ctx.has_input("bias"),
                       "enable_scale_and_shift needs the inputs scale_w and bias")
        ctx.same_as("X", "Y")
        ctx.set_output("Means", [channels], x.dtype)
        ctx.set_output("Scales", [channels], x.dtype)

    @staticmethod
    def forward(x, batch_size, batch_sum, batch_square_sum, scale_w=None, bias=None,
                slot_dim=-1, enable_scale_and_shift=False, **_recorded_attrs):
        if x.ndim != 2:
            raise ValueError("data_norm: input X must be [N, C], got shape %s" % (x.shape,))
        means, scales = _means_and_scales(batch_size, batch_sum, batch_square_sum)
        y = (x - means) * scales
        if enable_scale_and_shift:
            y = y * scale_w + bias
        y = np.where(_present(x, slot_dim), y, 0).astype(x.dtype)
        return y, means, scales

    @staticmethod
    def backward(x, batch_size, batch_sum, batch_square_sum, scale_w, bias, dy,
                 epsilon=1e-4, slot_dim=-1, enable_scale_and_shift=False, **_recorded_attrs):
        means, scales = _means_and_scales(batch_size, batch_sum, batch_square_sum)
        present = _present(x, slot_dim)
        centered = np.where(present, x - means, 0)
        count = present.sum(axis=0).astype(x.dtype)
        total, squares = np.where(present, x, 0).sum(axis=0), (centered ** 2).sum(axis=0)
        if slot_dim > 0:
            seen = np.maximum(count, 1)
            d_size = (count > 0).astype(x.dtype)
            d_sum, d_square = total / seen, np.where(count > 0, squares / seen + count * epsilon, 0)
        else:
            d_size, d_sum, d_square = count, total, squares + count * epsilon
        if not enable_scale_and_shift:
            return dy * scales, d_size, d_sum, d_square.astype(x.dtype), None, None
        dy = np.where(present, dy, 0) if slot_dim > 0 else dy
        return (dy * scales * scale_w, d_size, d_sum, d_square.astype(x.dtype),
                (dy * centered * scales).sum(axis=0), dy.sum(axis=0))

    def samples(self, rng):
        def stats(c):
            return {"BatchSize": rng.uniform(50, 100, c), "BatchSum": rand(rng, c) * 10,
                    "BatchSquareSum": rng.uniform(100, 200, c)}
        yield Sample({"X": rand(rng, 4, 3), **stats(3)}, {"epsilon": 1e-5})
        scale_and_shift = {"scale_w": rand(rng, 4) + 2, "bias": rand(rng, 4)}
        x = rand(rng, 5, 4, low=0.1)
        yield Sample({"X": x, **stats(4), **scale_and_shift},
                     {"slot_dim": 2, "enable_scale_and_shift": True})
        x = x.copy()
        x[1, 0] = x[3, 2] = 0.0      # absent slots: Y jumps there, no finite differences
        yield Sample({"X": x, **stats(4), **scale_and_shift},
                     {"slot_dim": 2, "enable_scale_and_shift": True}, grad=False)
        yield Sample({"X": x, **stats(4)}, {"slot_dim": 2}, grad=False)
