"""assert (Paddle 2.0's fluid.layers.Assert): when the one-element bool Cond is false,
print each of Data (print.py's format, its first `summarize` values, -1: all) and fail the
run with a ValueError naming Cond. No outputs: it runs for its check."""
import numpy as np

from ..xp import to_host
from .print import print_tensor
from ._common import rand
from .registry import OpDef, Sample, register


@register
class Assert(OpDef):
    type = "assert"
    inputs = ("Cond", "Data*?")
    attrs = {"summarize": -1, "cond_name": "", "data_names": []}

    def infer_shape(self, ctx):
        ctx.check_dtype("Cond", ("bool",))

    @staticmethod
    def forward(cond, data=(), summarize=-1, cond_name="", data_names=()):
        cond = np.asarray(to_host(cond))
        if cond.shape != (1,):
            raise ValueError("Cond %r must have shape [1], got %s"
                             % (cond_name, list(cond.shape)))
        if cond[0]:
            return ()
        for value, name in zip(data or (), data_names):
            print_tensor(value, name, summarize)
        raise ValueError("the condition %r is false" % cond_name)

    def samples(self, rng):
        yield Sample({"Cond": np.array([True]), "Data": [rand(rng, 2, 3)]},
                     {"cond_name": "cond", "data_names": ["x"]}, grad=False)
