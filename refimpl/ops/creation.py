"""Ops that make tensors: assign_value, gaussian_random, truncated_gaussian_random, randint,
fill_constant_batch_size_like, range, linspace, increment."""
import numpy as np

from ..framework.initializer import VALUE_ATTR
from ..framework.random import integers, normal, truncated_normal
from ._common import built_shape, rand, runtime_ints
from .registry import OpDef, Sample, register
from .random_batch_size_like import BatchSizeLike, batch_size_like_shape


@register
class AssignValue(OpDef):
    """A constant from attrs; Paddle keeps the values in a per-dtype attr (fp32_values, ...)."""
    type = "assign_value"
    inputs = ()
    outputs = ("Out",)
    attrs = {"shape": [], "dtype": "float32", "fp32_values": [], "fp64_values": [],
             "int32_values": [], "int64_values": [], "bool_values": []}

    def infer_shape(self, ctx):
        ctx.set_output("Out", ctx.attr("shape"), ctx.attr("dtype"))

    @staticmethod
    def forward(shape=(), dtype="float32", **values):
        return np.array(values[VALUE_ATTR[dtype]], dtype=dtype).reshape(shape)


class _Random(OpDef):
    inputs = ()
    outputs = ("Out",)

    def infer_shape(self, ctx):
        ctx.set_output("Out", ctx.attr("shape"), ctx.attr("dtype"))


class _RuntimeShapeRandom(_Random):
    """A random op whose shape may come when it runs: the ShapeTensor (a 1-D int tensor) or
    ShapeTensorList (1-element int tensors) inputs, as in Paddle 1.8, else attr shape."""
    inputs = ("ShapeTensor?", "ShapeTensorList*?")

    def infer_shape(self, ctx):
        shape = built_shape(ctx)
        ctx.set_output("Out", shape, ctx.attr("dtype"))


@register
class GaussianRandom(_RuntimeShapeRandom):
    type = "gaussian_random"
    attrs = {"shape": [1], "mean": 0.0, "std": 1.0, "seed": 0, "dtype": "float32"}

    @staticmethod
    def forward(shape_tensor=None, shape_list=None, shape=(1,), mean=0.0, std=1.0, seed=0,
                dtype="float32"):
        shape = runtime_ints(shape_tensor, shape_list, shape)
        return normal(seed, mean, std, shape, dtype)


@register
class TruncatedGaussianRandom(_Random):
    """Normal(mean, std) truncated to within 2 std of the mean (2.0) or to [a, b] (3.3.1's
    attrs; switch truncated_normal_bounds)."""
    type = "truncated_gaussian_random"
    attrs = {"shape": [1], "mean": 0.0, "std": 1.0, "seed": 0, "dtype": "float32",
             "a": -2.0, "b": 2.0}

    @staticmethod
    def forward(shape=(1,), mean=0.0, std=1.0, seed=0, dtype="float32", a=-2.0, b=2.0):
        return truncated_normal(seed, mean, std, a, b, shape, dtype)


@register
class Randint(_RuntimeShapeRandom):
    """Integers drawn uniformly from [low, high)."""
    type = "randint"
    attrs = {"shape": [1], "low": 0, "high": 1, "seed": 0, "dtype": "int64"}

    def infer_shape(self, ctx):
        ctx.expect(ctx.attr("low") < ctx.attr("high"),
                   "low %s must be < high %s" % (ctx.attr("low"), ctx.attr("high")))
        super().infer_shape(ctx)

    @staticmethod
    def forward(shape_tensor=None, shape_list=None, shape=(1,), low=0, high=1, seed=0,
                dtype="int64"):
        shape = runtime_ints(shape_tensor, shape_list, shape)
        return integers(seed, low, high, shape, dtype)


@register
class FillConstantBatchSizeLike(BatchSizeLike):
    type = "fill_constant_batch_size_like"
    attrs = {"shape": [], "value": 0.0, "dtype": "float32", "input_dim_idx": 0,
             "output_dim_idx": 0}
    pir_double_attrs = ("value",)     # Paddle 3's PIR full_batch_size_like: a double Scalar

    @staticmethod
    def forward(x, shape=(), value=0.0, dtype="float32", input_dim_idx=0, output_dim_idx=0):
        shape = batch_size_like_shape(shape, x.shape, input_dim_idx, output_dim_idx)
        return np.full(shape, value, dtype=dtype)

    def samples(self, rng):
        yield Sample({"Input": rand(rng, 5, 2)}, {"shape": [-1, 3], "value": 2.0,
                                                 "dtype": "float64"}, grad=False)


@register
class Range(OpDef):
    type = "range"
    inputs = ("Start", "End", "Step")
    outputs = ("Out",)

    def infer_shape(self, ctx):
        ctx.set_output("Out", [-1], ctx.input_var("Start").dtype)

    @staticmethod
    def forward(start, end, step):
        if step.item() == 0:
            raise ValueError("Step must not be 0 (Start %s, End %s)" % (start.item(), end.item()))
        return np.arange(start.item(), end.item(), step.item(), dtype=start.dtype)

    def samples(self, rng):
        yield Sample({"Start": np.array([1.0]), "End": np.array([4.0]),
                      "Step": np.array([0.5])}, grad=False)


@register
class Linspace(OpDef):
    """Num evenly spaced values from Start to Stop, both included."""
    type = "linspace"
    inputs = ("Start", "Stop", "Num")
    outputs = ("Out",)
    attrs = {"dtype": "float32"}

    def infer_shape(self, ctx):
        ctx.set_output("Out", [-1], ctx.attr("dtype"))

    @staticmethod
    def forward(start, stop, num, dtype="float32"):
        if num.item() < 0:
            raise ValueError("Num must be >= 0, got %d" % num.item())
        return np.linspace(start.item(), stop.item(), int(num.item())).astype(dtype)

    def samples(self, rng):
        yield Sample({"Start": np.array([-1.0]), "Stop": np.array([2.0]),
                      "Num": np.array([7], "int32")}, {"dtype": "float64"}, grad=False)
        yield Sample({"Start": np.array([5.0]), "Stop": np.array([5.0]),
                      "Num": np.array([1], "int32")}, {"dtype": "float64"}, grad=False)


@register
class Logspace(OpDef):
    """Num values Base ** e, e evenly spaced from Start to Stop (both included), computed
    in float64 and cast to dtype (numpy's logspace: Paddle 3's test_logspace compares with
    it exactly)."""
    type = "logspace"
    inputs = ("Start", "Stop", "Num", "Base")
    outputs = ("Out",)
    attrs = {"dtype": "float32"}

    def infer_shape(self, ctx):
        ctx.set_output("Out", [-1], ctx.attr("dtype"))

    @staticmethod
    def forward(start, stop, num, base, dtype="float32"):
        if num.item() <= 0:
            raise ValueError("Num must be > 0, got %d" % num.item())
        exponents = np.linspace(float(start.item()), float(stop.item()), int(num.item()))
        return np.power(float(base.item()), exponents).astype(dtype)

    def samples(self, rng):
        yield Sample({"Start": np.array([0.0]), "Stop": np.array([3.0]),
                      "Num": np.array([4], "int32"), "Base": np.array([10.0])},
                     {"dtype": "float64"}, grad=False)
        yield Sample({"Start": np.array([1.5], "float32"), "Stop": np.array([-2.0], "float32"),
                      "Num": np.array([5], "int32"), "Base": np.array([2.0], "float32")},
                     {"dtype": "float32"}, grad=False)


@register
class Increment(OpDef):
    """X + step; used for step counters (learning-rate schedules)."""
    type = "increment"
    inputs = ("X",)
    outputs = ("Out",)
    attrs = {"step": 1.0}

    def infer_shape(self, ctx):
        ctx.same_as("X", "Out")

    grad_inputs = ("Out@GRAD",)

    @staticmethod
    def forward(x, step=1.0):
        return x + x.dtype.type(step)

    @staticmethod
    def backward(dout, step=1.0):
        """x + step passes its gradient unchanged (Paddle 3.3.1 too: a float loop counter
        squared in a while_loop gets 2 i; 1.8.5's "grad" of increment only undid it)."""
        return dout

    def samples(self, rng):
        yield Sample({"X": np.array([3.0])}, {"step": 2.0})
