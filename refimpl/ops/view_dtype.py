"""view_dtype (Paddle 3: x.view(dtype)): x's bytes read as `dtype`; the last dim scales by
the ratio of the two item sizes (it must divide evenly, and a 0-D x has none to scale).
The gradient is dOut's bytes read back as x's dtype (3.3.1, measured)."""
import numpy as np

from ..framework.dtypes import to_numpy_dtype
from ._common import rand
from .registry import OpDef, Sample, register


def _viewed_last_dim(n, source, target):
    """The last dim n of a `source` array viewed as `target`, or None if it cannot be."""
    size, new = np.dtype(source).itemsize, np.dtype(target).itemsize
    return n * size // new if n * size % new == 0 else None


@register
class ViewDtype(OpDef):
    type = "view_dtype"
    inputs = ("input",)
    outputs = ("out",)
    attrs = {"dtype": "float32"}
    grad_inputs = ("input", "out@GRAD")

    def infer_shape(self, ctx):
        x = ctx.input_var("input")
        target = to_numpy_dtype(ctx.attr("dtype"))
        source = to_numpy_dtype(x.dtype)
        shape = list(x.shape)
        if np.dtype(source).itemsize != np.dtype(target).itemsize:
            ctx.expect(len(shape) > 0, "a 0-D input %r cannot be viewed as %s from %s"
                       % (x.name, np.dtype(target).name, np.dtype(source).name))
            if shape[-1] >= 0:
                last = _viewed_last_dim(shape[-1], source, target)
                ctx.expect(last is not None, "the last dim of input %r (%d) cannot hold whole "
                           "%s elements of its %s bytes" % (x.name, shape[-1],
                                                           np.dtype(target).name,
                                                           np.dtype(source).name))
                shape[-1] = last
        ctx.set_output("out", shape, ctx.attr("dtype"))

    @staticmethod
    def forward(x, dtype="float32"):
        return np.ascontiguousarray(x).view(to_numpy_dtype(dtype))

    @staticmethod
    def backward(x, dout, dtype="float32"):
        return np.ascontiguousarray(dout).view(x.dtype).reshape(x.shape)

    def samples(self, rng):
        # no finite differences: a byte view is not a smooth function (its gradient is
        # checked against 3.3.1's in tests/test_paddle3_index.py)
        yield Sample({"input": rand(rng, 2, 4)}, {"dtype": "int64"}, grad=False)
        yield Sample({"input": rand(rng, 3, 2, dtype="float32")}, {"dtype": "float64"},
                     grad=False)
