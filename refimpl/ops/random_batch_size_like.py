"""uniform_random_batch_size_like, gaussian_random_batch_size_like: random tensors of
`shape` whose dim output_dim_idx is the input's dim input_dim_idx (the batch size), as
fill_constant_batch_size_like; a nonzero seed gives the same values every run."""
from ..framework.random import minstd_normal, uniform
from .registry import OpDef, register


def batch_size_like_shape(shape, input_shape, input_dim_idx, output_dim_idx):
    shape = list(shape)
    shape[output_dim_idx] = input_shape[input_dim_idx]
    return shape


class BatchSizeLike(OpDef):
    inputs = ("Input",)
    outputs = ("Out",)

    def infer_shape(self, ctx):
        ctx.set_output("Out", batch_size_like_shape(
            ctx.attr("shape"), ctx.input_var("Input").shape, ctx.attr("input_dim_idx"),
            ctx.attr("output_dim_idx")), ctx.attr("dtype"))


@register
class UniformRandomBatchSizeLike(BatchSizeLike):
    type = "uniform_random_batch_size_like"
    attrs = {"shape": [], "input_dim_idx": 0, "output_dim_idx": 0, "min": -1.0, "max": 1.0,
             "seed": 0, "dtype": "float32"}

    @staticmethod
    def forward(x, shape=(), input_dim_idx=0, output_dim_idx=0, min=-1.0, max=1.0, seed=0,
                dtype="float32"):
        shape = batch_size_like_shape(shape, x.shape, input_dim_idx, output_dim_idx)
        return uniform(seed, min, max, shape, dtype)


@register
class GaussianRandomBatchSizeLike(BatchSizeLike):
    type = "gaussian_random_batch_size_like"
    attrs = {"shape": [], "input_dim_idx": 0, "output_dim_idx": 0, "mean": 0.0, "std": 1.0,
             "seed": 0, "dtype": "float32"}

    @staticmethod
    def forward(x, shape=(), input_dim_idx=0, output_dim_idx=0, mean=0.0, std=1.0, seed=0,
                dtype="float32"):
        shape = batch_size_like_shape(shape, x.shape, input_dim_idx, output_dim_idx)
        return minstd_normal(seed, mean, std, shape, dtype)
