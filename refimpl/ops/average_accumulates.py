"""average_accumulates: ModelAverage's running sums of a parameter (Paddle 1.8's op;
facts measured on 1.8.5). Each run:
  num_updates += 1; num_accumulates += 1; sum_1 += param
  every 16384 updates sum_1 moves into sum_2 (so float sums stay short)
  once num_accumulates >= min_average_window and
       num_accumulates >= min(max_average_window, int(num_updates * average_window)):
    sum_3 = sum_1 + sum_2; sum_1 = sum_2 = 0
    old_num_accumulates = num_accumulates; num_accumulates = 0
The average is then (sum_1 + sum_2 + sum_3) / (num_accumulates + old_num_accumulates).
Every output is its input variable (updated in place)."""
import numpy as np

from .registry import OpDef, Sample, register

MAX_NUM_ACCUMULATES = 16384
_SUMS = ("sum_1", "sum_2", "sum_3")
_COUNTS = ("num_accumulates", "old_num_accumulates", "num_updates")


@register
class AverageAccumulates(OpDef):
    type = "average_accumulates"
    inputs = ("param",) + tuple("in_" + n for n in _SUMS + _COUNTS)
    outputs = tuple("out_" + n for n in _SUMS + _COUNTS)
    attrs = {"average_window": 0.0, "min_average_window": 10000,
             "max_average_window": 10000}

    def infer_shape(self, ctx):
        param = ctx.input_var("param")
        for name in _SUMS:
            shape = ctx.input_shape("in_" + name)
            if param.shape is not None and shape is not None and \
                    tuple(shape) != tuple(param.shape):
                ctx.fail("in_%s has shape %s but param %r has %s"
                         % (name, list(shape), param.name, list(param.shape)))
        for name in _SUMS + _COUNTS:
            ctx.same_as("in_" + name, "out_" + name)

    @staticmethod
    def forward(param, sum_1, sum_2, sum_3, num_accumulates, old_num_accumulates,
                num_updates, average_window=0.0, min_average_window=10000,
                max_average_window=10000):
        num_updates += 1
        num_accumulates += 1
        sum_1 += param
        updates, accumulates = int(num_updates.reshape(-1)[0]), int(num_accumulates.reshape(-1)[0])
        if updates % MAX_NUM_ACCUMULATES == 0:
            sum_2 += sum_1
            sum_1[...] = 0
        if accumulates >= min_average_window and accumulates >= min(
                max_average_window, int(updates * average_window)):
            sum_3[...] = sum_1 + sum_2
            sum_1[...] = 0
            sum_2[...] = 0
            old_num_accumulates[...] = num_accumulates
            num_accumulates[...] = 0
        return sum_1, sum_2, sum_3, num_accumulates, old_num_accumulates, num_updates

    def samples(self, rng):
        counts = {"in_num_accumulates": np.array([1], np.int64),
                  "in_old_num_accumulates": np.array([0], np.int64),
                  "in_num_updates": np.array([1], np.int64)}
        sums = {"in_" + n: rng.uniform(-1, 1, (2, 3)) for n in _SUMS}
        # the window closes (2 >= 2) and stays open (2 < 3)
        for window in (2, 3):
            yield Sample(dict({"param": rng.uniform(-1, 1, (2, 3))}, **sums, **counts),
                         {"average_window": 1.0, "min_average_window": window,
                          "max_average_window": 10}, grad=False)
