"""Initializers add the op that fills a parameter to the startup program: in front of the
ops already there (Paddle 1.8, 2.0) or after them (3), the `startup_init_order` switch."""
import math
import warnings

import numpy as np

from . import mode

__all__ = ["Initializer", "Constant", "Uniform", "Normal", "TruncatedNormal", "XavierUniform",
           "XavierNormal", "Xavier", "MSRA", "KaimingNormal", "KaimingUniform",
           "NumpyArrayInitializer", "Assign", "ConstantInitializer", "UniformInitializer",
           "NormalInitializer", "TruncatedNormalInitializer", "XavierInitializer",
           "MSRAInitializer", "Bilinear", "BilinearInitializer", "set_global_initializer",
           "value_attrs"]

# assign_value keeps its values in one attr per dtype (Paddle's format)
VALUE_ATTR = {"float32": "fp32_values", "float64": "fp64_values", "int32": "int32_values",
              "int64": "int64_values", "bool": "bool_values"}


def value_attrs(array):
    """The assign_value attrs holding `array` (used by initializers and layers)."""
    array = np.asarray(array)
    dtype = array.dtype.name
    if dtype not in VALUE_ATTR:
        raise TypeError("assign_value cannot hold dtype %s; use one of %s"
                        % (dtype, sorted(VALUE_ATTR)))
    return {"shape": list(array.shape), "dtype": dtype, VALUE_ATTR[dtype]: array.ravel().tolist()}


def _fans(shape):
    """(fan_in, fan_out) as Paddle computes them: fc weight [in, out]; conv [out, in, kh, kw]."""
    if len(shape) == 0:
        return 1, 1
    if len(shape) == 1:
        return shape[0], shape[0]
    if len(shape) == 2:
        return shape[0], shape[1]
    receptive = int(np.prod(shape[2:]))
    return shape[1] * receptive, shape[0] * receptive


def _is_eager(var):
    """Whether `var` is an eager Tensor (filled now) rather than a static Variable."""
    return mode.eager is not None and isinstance(var, mode.eager.Tensor)


class Initializer:
    op_type = None
    # the dtypes filled in float32 and cast (the init ops have no kernels of their own)
    through_float32 = ("float16",)

    def _attrs(self, var):
        raise NotImplementedError

    def __call__(self, var, block=None):
        """Add the op filling `var` to `block` (Block.create_parameter passes its own, as
        in Paddle), by default to the startup program's global block; an eager Tensor is
        filled now."""
        if _is_eager(var):
            return self._fill_now(var)
        from .program import default_startup_program
        startup = block if block is not None else default_startup_program().global_block()
        if not startup.has_var(var.name):
            startup.create_var(name=var.name, shape=var.shape, dtype=var.dtype,
                               persistable=True)
        if var.dtype.name in self.through_float32:
            return self._through_float32(var, startup)
        attrs = self._op_attrs(var, startup.program.random_seed)
        return add_init_op(startup, self.op_type, {"Out": [var.name]}, attrs)

    def _op_attrs(self, var, program_seed, dtype=None):
        """The init op's attributes for `var`; a random op without a seed of its own takes
        `program_seed`, the random_seed of the program it goes to, as Paddle's initializers
        take it."""
        attrs = {"shape": list(var.shape), "dtype": dtype or var.dtype.name}
        attrs.update(self._attrs(var))
        if "seed" in attrs and not attrs["seed"]:
            attrs["seed"] = program_seed
        return attrs

    def _through_float32(self, var, block):
        """A float16 variable (and one of the initializer's other through_float32 dtypes)
        is filled in float32 and cast, as Paddle does (its init ops have no float16
        kernels)."""
        from . import unique_name
        tmp = block.create_var(name=unique_name.generate(".".join(
            [self.op_type, var.name, "tmp"])), shape=var.shape, dtype="float32")
        attrs = self._op_attrs(tmp, block.program.random_seed, "float32")
        op = add_init_op(block, self.op_type, {"Out": [tmp.name]}, attrs)
        block.append_op(type="cast", inputs={"X": [tmp]}, outputs={"Out": [var.name]},
                        attrs={"in_dtype": "float32", "out_dtype": var.dtype.name})
        return op

    def _fill_now(self, var):
        """Dynamic mode: run the same op now and give `var` (an eager parameter, whose
        shape and dtype are declared) its value. Random ops with seed 0 draw from the
        global generator, which paddle.seed resets."""
        from .. import versions
        from .program import default_main_program
        # Paddle 1.8 and 2.0: the main program's seed (their dynamic parameters are made
        # in the main program's block); 3: the generator, but the main program's seed
        # while FLAGS_enable_pir_api is off (3.3.1's legacy IR, measured) -- switch
        # eager_init_program_seed, one of versions.PIR_FLAG_SWITCHES
        main_seed = versions.switch("eager_init_program_seed") == "main"
        attrs = self._op_attrs(var, default_main_program().random_seed if main_seed else 0)
        out = mode.eager.Tensor._placeholder()
        mode.eager.run_op(self.op_type, None, {"Out": [out]}, attrs)
        var._value = out._value


# the initializer ops Paddle's initializers append with an (empty) inputs dict, so that
# their descs list the OpProto's inputs (Operator.lists_proto_inputs; 1.8.5, measured)
_GIVEN_INPUTS = ("uniform_random",)


def filled_value(value):
    """What a fill_constant initializer of `value` holds (a float): the value itself where
    it also writes its text (switch init_str_value, Paddle 3), else its 32-bit FLOAT attr's
    (Paddle 1.8 / 2.0). For what refimpl's eager mode makes without the op (an optimizer's
    learning rate and accumulators)."""
    from .. import versions
    return float(value) if versions.switch("init_str_value") else float(np.float32(value))


def add_init_op(startup_block, op_type, outputs, attrs):
    """An initializing op in a startup block, where the version profile puts it; a
    fill_constant's value also as its text under switch init_str_value (Paddle 3's
    initializers: a float64 Constant(0.1) is 0.1, not the FLOAT attr's float32(0.1))."""
    from .. import versions
    inputs = {} if op_type in _GIVEN_INPUTS else None
    if op_type == "fill_constant" and "str_value" not in attrs and \
            versions.switch("init_str_value"):     # the value exact, not its 32-bit attr
        attrs = dict(attrs, str_value=str(float(attrs.get("value", 0.0))))
    if versions.switch("startup_init_order") == "prepend":
        return startup_block._prepend_op(type=op_type, inputs=inputs, outputs=outputs,
                                         attrs=attrs)
    return startup_block.append_op(type=op_type, inputs=inputs, outputs=outputs, attrs=attrs)


class Constant(Initializer):
    op_type = "fill_constant"

    def __init__(self, value=0.0, force_cpu=False):
        self.value = float(value)

    def _attrs(self, var):
        return {"value": self.value}


class Uniform(Initializer):
    """U(low, high); diag_num > 0 (Paddle 1.8) then sets the flat elements i (diag_step + 1),
    i < diag_num, to diag_val."""
    op_type = "uniform_random"

    def __init__(self, low=-1.0, high=1.0, seed=0, diag_num=0, diag_step=0, diag_val=1.0,
                 name=None):
        if isinstance(diag_num, str):       # 2.0's fourth positional argument is `name`
            diag_num = 0
        self.low, self.high, self.seed = float(low), float(high), seed
        self.diag = {"diag_num": int(diag_num), "diag_step": int(diag_step),
                     "diag_val": float(diag_val)}

    def _attrs(self, var):
        attrs = {"min": self.low, "max": self.high, "seed": self.seed}
        if self.diag["diag_num"] > 0:
            attrs.update(self.diag)
        return attrs


class Normal(Initializer):
    op_type = "gaussian_random"

    def __init__(self, mean=0.0, std=1.0, seed=0, name=None, loc=None, scale=None):
        self.mean = float(loc if loc is not None else mean)
        self.std = float(scale if scale is not None else std)
        self.seed = seed

    def _attrs(self, var):
        return {"mean": self.mean, "std": self.std, "seed": self.seed}


class TruncatedNormal(Normal):
    """N(mean, std) truncated: within 2 std of the mean (2.0), or within [a, b] (3.3.1's
    TruncatedNormal(mean, std, a=-2.0, b=2.0): the op's attrs a and b, switch
    truncated_normal_bounds)."""
    op_type = "truncated_gaussian_random"

    def __init__(self, mean=0.0, std=1.0, seed=0, name=None, loc=None, scale=None, a=-2.0,
                 b=2.0):
        super().__init__(mean, std, seed, name, loc, scale)
        self.a, self.b = float(a), float(b)

    def _attrs(self, var):
        from .. import versions
        attrs = super()._attrs(var)
        if versions.switch("truncated_normal_bounds") == "attrs":
            attrs.update(a=self.a, b=self.b)
        return attrs


class XavierUniform(Initializer):
    """U(-x, x), x = sqrt(6 / (fan_in + fan_out))."""
    op_type = "uniform_random"

    def __init__(self, fan_in=None, fan_out=None, seed=0, name=None):
        self.fan_in, self.fan_out, self.seed = fan_in, fan_out, seed

    def _limit(self, var, gain):
        fi, fo = _fans(var.shape)
        fi = self.fan_in if self.fan_in is not None else fi
        fo = self.fan_out if self.fan_out is not None else fo
        return math.sqrt(gain / float(fi + fo))

    def _attrs(self, var):
        x = self._limit(var, 6.0)
        return {"min": -x, "max": x, "seed": self.seed}


class XavierNormal(XavierUniform):
    """N(0, sqrt(2 / (fan_in + fan_out)))."""
    op_type = "gaussian_random"

    def _attrs(self, var):
        return {"mean": 0.0, "std": self._limit(var, 2.0), "seed": self.seed}


def Xavier(uniform=True, fan_in=None, fan_out=None, seed=0):
    cls = XavierUniform if uniform else XavierNormal
    return cls(fan_in=fan_in, fan_out=fan_out, seed=seed)


class KaimingUniform(Initializer):
    """U(-x, x), x = sqrt(6 / fan_in)."""
    op_type = "uniform_random"

    def __init__(self, fan_in=None, seed=0, name=None):
        self.fan_in, self.seed = fan_in, seed

    def _fan_in(self, var):
        return self.fan_in if self.fan_in is not None else _fans(var.shape)[0]

    def _attrs(self, var):
        x = math.sqrt(6.0 / self._fan_in(var))
        return {"min": -x, "max": x, "seed": self.seed}


class KaimingNormal(KaimingUniform):
    """N(0, sqrt(2 / fan_in))."""
    op_type = "gaussian_random"

    def _attrs(self, var):
        return {"mean": 0.0, "std": math.sqrt(2.0 / self._fan_in(var)),
                "seed": self.seed}


def MSRA(uniform=True, fan_in=None, seed=0):
    cls = KaimingUniform if uniform else KaimingNormal
    return cls(fan_in=fan_in, seed=seed)


class NumpyArrayInitializer(Initializer):
    op_type = "assign_value"

    def __init__(self, value):
        self.value = np.asarray(value)

    def _attrs(self, var):
        if tuple(self.value.shape) != tuple(var.shape):
            # Paddle (1.8.5 and 3.3.1 measured) gives the variable the value's shape; said
            # out loud here, since a mismatch is usually a mistake
            warnings.warn("initializer value for %r has shape %s, the parameter %s: the "
                          "parameter takes the value's shape, as in Paddle"
                          % (var.name, list(self.value.shape), list(var.shape)),
                          stacklevel=3)
            if not _is_eager(var):
                var._shape = tuple(self.value.shape)
        return value_attrs(self.value.astype(var.dtype.np))


Assign = NumpyArrayInitializer
ConstantInitializer = Constant
UniformInitializer = Uniform
NormalInitializer = Normal
TruncatedNormalInitializer = TruncatedNormal
XavierInitializer = Xavier
MSRAInitializer = MSRA


class Bilinear(Initializer):
    """Bilinear upsampling weights for conv2d_transpose, built on the host in float32:
    float16 and float64 weights are filled in float32 and cast (Paddle 2.0, 3.3.1), other
    dtypes refused with a TypeError."""
    op_type = "assign_value"
    through_float32 = ("float16", "float64")

    def _attrs(self, var):
        shape = var.shape
        if len(shape) != 4 or shape[2] != shape[3]:
            raise ValueError("Bilinear initializer needs a [C_out, C_in, k, k] weight, got %s"
                             % list(shape))
        if var.dtype.name not in ("float32",) + self.through_float32:
            raise TypeError("Bilinear initializer: unsupported dtype %s of %r (float16, "
                            "float32 or float64)" % (var.dtype.name, var.name))
        k = shape[3]
        f = math.ceil(k / 2.0)
        c = (2 * f - 1 - f % 2) / (2.0 * f)
        # Paddle's weights (1.8.5 and 3.3.1 measured): element i of the flat weight has
        # x = i % k and y = (i / k) % k, a true division, so y runs through fractions
        # rather than the row index of a separable kernel
        i = np.arange(int(np.prod(shape)))
        x, y = i % k, (i / k) % k
        w = (1 - np.abs(x / f - c)) * (1 - np.abs(y / f - c))
        return value_attrs(w.reshape(shape).astype("float32").astype(var.dtype.np))


BilinearInitializer = Bilinear


_global_weight_init = None
_global_bias_init = None


def set_global_initializer(weight_init, bias_init=None):
    global _global_weight_init, _global_bias_init
    _global_weight_init, _global_bias_init = weight_init, bias_init


def global_initializers():
    return _global_weight_init, _global_bias_init
