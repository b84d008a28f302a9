"""Random sampling layers: multinomial, bernoulli, randperm, normal (paddle.*) and sampling_id,
random_crop (fluid.layers). Outputs stop gradients. `seed` 0 draws from the global
generator (paddle.seed); a nonzero seed replays the same draw every run."""
from ..framework import mode, unique_name
from ..framework.dtypes import convert_dtype
from ..framework.layer_helper import LayerHelper
from ..framework.random import rng_for
from ..framework.program import Variable
from . import creation
from .common import append_op_out, check_variable
from .math import cast
from .tensor import reshape, shape as shape_of


def _sample(op_type, x, attrs, out_dtype=None):
    check_variable(x, "x", op_type)
    return append_op_out(op_type, {"X": [x]}, attrs, out_dtype=out_dtype, stop_gradient=True)


def multinomial(x, num_samples=1, replacement=False, name=None, seed=0):
    """`num_samples` category ids per row of the (unnormalized) weights x."""
    return _sample("multinomial", x, {"num_samples": int(num_samples),
                                      "replacement": bool(replacement), "seed": int(seed)},
                   "int64")


def bernoulli(x, name=None, seed=0):
    """1 with probability x, else 0, elementwise."""
    return _sample("bernoulli", x, {"seed": int(seed)})


RANDPERM_DTYPES = ("float32", "float64", "int32", "int64")


def randperm(n, dtype="int64", name=None, seed=0):
    dtype = convert_dtype(dtype)
    if dtype not in RANDPERM_DTYPES:     # 2.0 and 3.3.1 refuse int8 (measured on 3.3.1)
        raise TypeError("randperm: dtype must be one of %s, got %s" % (RANDPERM_DTYPES, dtype))
    return creation._source_op("randperm", {"n": int(n), "dtype": dtype, "seed": int(seed)},
                               dtype, name)


def sampling_id(x, min=0.0, max=1.0, seed=0, dtype="float32"):
    """A column id per row of the probabilities x (int64)."""
    return _sample("sampling_id", x, {"min": float(min), "max": float(max), "seed": int(seed)},
                   "int64")


def random_crop(x, shape, seed=None):
    """Static mode (Paddle 1.8's layer): a persistable int64 seed variable is the op's Seed
    and SeedOut, so each run crops with the seed the run before left (the first, its
    variable not yet set, with startup_seed: `seed`, or without one a draw in [-65536,
    65536) when the layer is built)."""
    if seed is not None and not isinstance(seed, int):
        raise NotImplementedError("random_crop: a Variable seed is not supported; pass an int")
    if seed is None:     # Paddle: numpy's randint(-65536, 65536); here paddle.seed's stream
        seed = int(rng_for(0).randint(-65536, 65536))
    attrs = {"shape": [int(d) for d in shape], "startup_seed": seed}
    if mode.dynamic:
        return _sample("random_crop", x, attrs)
    check_variable(x, "x", "random_crop")
    helper = LayerHelper("random_crop")
    out = helper.create_variable_for_type_inference(x.dtype, stop_gradient=True)
    seed_var = helper.create_variable(name=unique_name.generate("random_crop_seed"),
                                      dtype="int64", persistable=True)
    helper.append_op(type="random_crop", inputs={"X": [x], "Seed": [seed_var]},
                     outputs={"Out": [out], "SeedOut": [seed_var]}, attrs=attrs)
    return out


def normal(mean=0.0, std=1.0, shape=None, name=None):
    """N(mean, std) of `shape` for number mean and std. A float32/float64 Tensor mean or
    std gives the shape and dtype instead (the mean's; a Tensor std is cast to it and
    reshaped to the mean's shape) and the draw is standard normal * std + mean, as Paddle
    2.0 composes it; the result stops gradients."""
    for arg, value in (("mean", mean), ("std", std)):
        if isinstance(value, Variable):
            if value.dtype.name not in ("float32", "float64"):
                raise TypeError("normal: a Tensor %s must be float32 or float64, got %s"
                                % (arg, value.dtype.name))
        elif isinstance(value, bool) or not isinstance(value, (int, float)):
            raise TypeError("normal: %s must be a number or a Tensor, got %s"
                            % (arg, type(value).__name__))
    if not isinstance(mean, Variable) and not isinstance(std, Variable):
        return creation.fluid_gaussian_random([1] if shape is None else shape, mean, std,
                                              dtype=creation.get_default_dtype(), name=name)
    like = mean if isinstance(mean, Variable) else std
    if isinstance(mean, Variable) and isinstance(std, Variable):
        std = reshape(std if std.dtype == mean.dtype else cast(std, mean.dtype),
                      shape_of(mean))
    out = creation.fluid_gaussian_random(shape_of(like), dtype=like.dtype.name, name=name)
    out = out * std + mean
    out.stop_gradient = True
    return out


EXPORTS = {
    "paddle": {"multinomial": multinomial, "bernoulli": bernoulli, "randperm": randperm,
               "normal": normal},
    "fluid.layers": {"sampling_id": sampling_id, "random_crop": random_crop},
}
