"""Optimizer update ops. Each updates Param and its accumulators IN PLACE (the outputs are
the same variables as the inputs), so no parameter-sized buffer is allocated per step.
The formulas are Paddle's; `lr` is the [1] LearningRate tensor."""
import numpy as np

from .. import versions
from ._common import rand
from .registry import OpDef, Sample, register


def _lr(lr, like):
    return _as(lr.reshape(-1)[0], like)


def _as(value, like):
    """A scalar computed from [1] tensors in the dtype of `like`, without leaving the
    device (a 0-d CuPy array on a GPU: `like.dtype.type(...)` would copy it to the host)."""
    return value.astype(like.dtype)


def beta_values(beta1_tensor, beta2_tensor, beta1, beta2):
    """Adam's betas: the [1] Beta1Tensor / Beta2Tensor inputs' values where given (they win
    over the attributes, as in Paddle), else the attributes."""
    if beta1_tensor is not None:
        beta1 = float(beta1_tensor.reshape(-1)[0])
    if beta2_tensor is not None:
        beta2 = float(beta2_tensor.reshape(-1)[0])
    return beta1, beta2


def adam_rate(lr, b1p, b2p, like):
    """Adam's step size lr sqrt(1 - b2p) / (1 - b1p) in the dtype of `like`, and
    sqrt(1 - b2p) (b1p, b2p: the [1] beta powers)."""
    corr2 = np.sqrt(1 - b2p.reshape(-1)[0])
    return _lr(lr, like) * _as(corr2 / (1 - b1p.reshape(-1)[0]), like), corr2


# Sample float attributes are exact in float32: Paddle stores float attrs as float32, so
# values like 0.9 would make its float64 updates differ from the reference by ~1e-8.
BETA1, BETA2 = 0.875, 1 - 2.0 ** -10


class _Update(OpDef):
    """Outputs mirror inputs: <Slot>Out has the shape/dtype of <Slot>."""

    def infer_shape(self, ctx):
        p, g = ctx.input_var("Param"), ctx.input_var("Grad")
        if p.shape is not None and g.shape is not None and tuple(p.shape) != tuple(g.shape):
            ctx.fail("Grad %r has shape %s but Param %r has %s"
                     % (g.name, list(g.shape), p.name, list(p.shape)))
        for out in self.output_slots:
            if ctx.has_output(out):     # an optional one may be left out (rmsprop's MeanGrad)
                ctx.same_as(out[:-len("Out")], out)


@register
class Momentum(_Update):
    type = "momentum"
    inputs = ("Param", "Grad", "Velocity", "LearningRate")
    outputs = ("ParamOut", "VelocityOut")
    attrs = {"mu": 0.9, "use_nesterov": False, "regularization_method": "",
             "regularization_coeff": 0.0}

    @staticmethod
    def forward(param, grad, velocity, lr, mu=0.9, use_nesterov=False,
                regularization_method="", regularization_coeff=0.0):
        lr, t = _lr(lr, param), param.dtype.type
        # Paddle's order of the sums (3.3.1's kernel: mu v + c p + g, then g + c p + mu v),
        # so a fused L2Decay's float64 result matches to the last digit; without one no
        # zero term (0 added turns a -0.0 into 0.0, which 1.8.5's and 3.3.1's do not)
        velocity *= t(mu)
        decay = None
        if regularization_method == "l2_decay":
            decay = t(regularization_coeff) * param
            velocity += decay
        velocity += grad
        if use_nesterov:
            param -= ((grad if decay is None else grad + decay) + t(mu) * velocity) * lr
        else:
            param -= lr * velocity
        return param, velocity

    def samples(self, rng):
        for nesterov in (False, True):
            yield Sample({"Param": rand(rng, 3, 4), "Grad": rand(rng, 3, 4),
                          "Velocity": rand(rng, 3, 4), "LearningRate": np.array([0.1])},
                         {"mu": 0.75, "use_nesterov": nesterov})


@register
class LarsMomentum(_Update):
    """Momentum with a layer-wise rate (LARS): local_lr = lr * lars_coeff * ||p|| /
    (||g|| + lars_weight_decay * ||p||) when both norms are positive, else lr;
    v = mu v + local_lr (g + lars_weight_decay p); p -= v."""
    type = "lars_momentum"
    inputs = ("Param", "Grad", "Velocity", "LearningRate")
    outputs = ("ParamOut", "VelocityOut")
    attrs = {"mu": 0.9, "lars_coeff": 0.001, "lars_weight_decay": 0.0005}
    float_attrs = ("mu", "lars_coeff", "lars_weight_decay")    # 1.8's lars_momentum_op.cc

    @staticmethod
    def forward(param, grad, velocity, lr, mu=0.9, lars_coeff=0.001, lars_weight_decay=0.0005):
        t = param.dtype.type
        p_norm, g_norm = np.linalg.norm(param), np.linalg.norm(grad)
        local_lr = _lr(lr, param)
        if p_norm > 0 and g_norm > 0:
            local_lr = local_lr * t(lars_coeff) * p_norm / (g_norm + t(lars_weight_decay) * p_norm)
        velocity *= t(mu)
        velocity += local_lr * (grad + t(lars_weight_decay) * param)
        param -= velocity
        return param, velocity

    def samples(self, rng):
        yield Sample({"Param": rand(rng, 3, 4), "Grad": rand(rng, 3, 4),
                      "Velocity": rand(rng, 3, 4), "LearningRate": np.array([0.1])},
                     {"mu": 0.75, "lars_coeff": 0.5, "lars_weight_decay": 0.125})


@register
class Adam(_Update):
    """m1 = b1 m1 + (1-b1) g; m2 = b2 m2 + (1-b2) g^2;
    lr_t = lr sqrt(1-b2^t)/(1-b1^t); p -= lr_t m1 / (sqrt(m2) + eps sqrt(1-b2^t)) (Paddle
    2.0, 3) or p -= lr_t m1 / (sqrt(m2) + eps) (1.8): the `adam_epsilon` switch; then the
    beta powers advance. b1, b2: the Beta1Tensor / Beta2Tensor inputs' values when given
    (Adam(beta1=Variable)), else the beta1 / beta2 attributes."""
    type = "adam"
    inputs = ("Param", "Grad", "LearningRate", "Moment1", "Moment2", "Beta1Pow", "Beta2Pow",
              "Beta1Tensor?", "Beta2Tensor?")
    outputs = ("ParamOut", "Moment1Out", "Moment2Out", "Beta1PowOut", "Beta2PowOut")
    attrs = {"beta1": 0.9, "beta2": 0.999, "epsilon": 1e-8, "lazy_mode": False}
    eager_double_attrs = ("beta1", "beta2", "epsilon")   # Paddle 3's eager adam_: Scalars
    # 1000: Paddle's declared default, which its optimizers also set (1.8.5 and 3.3.1)
    inert_attrs = {"min_row_size_to_use_multithread": 1000}
    sample_attrs = {"": {"beta1": BETA1, "beta2": BETA2, "epsilon": 2.0 ** -26}}   # by name

    @staticmethod
    def forward(param, grad, lr, m1, m2, b1p, b2p, b1t=None, b2t=None, beta1=0.9,
                beta2=0.999, epsilon=1e-8, lazy_mode=False):
        beta1, beta2 = beta_values(b1t, b2t, beta1, beta2)
        t = param.dtype.type
        m1 *= t(beta1)
        m1 += (1 - t(beta1)) * grad
        m2 *= t(beta2)
        m2 += (1 - t(beta2)) * grad * grad
        lr_t, corr2 = adam_rate(lr, b1p, b2p, param)
        epsilon = epsilon * corr2 if versions.switch("adam_epsilon") == "scaled" \
            else np.float64(epsilon)
        param -= lr_t * (m1 / (np.sqrt(m2) + _as(epsilon, param)))
        b1p *= t(beta1)
        b2p *= t(beta2)
        return param, m1, m2, b1p, b2p

    @staticmethod
    def decay_rows(param, m1, m2, lr, b1p, b2p, beta1, beta2, epsilon):
        """The rows a SelectedRows Grad does not list, without lazy_mode: the update with a
        zero gradient, epsilon unscaled in every profile (Paddle's sparse kernel updates
        them in a loop of its own, measured on 1.8.5 and 3.3.1; specs/selected_rows.md).
        In place; b1p, b2p are only read."""
        t = param.dtype.type
        m1 *= t(beta1)
        m2 *= t(beta2)
        param -= adam_rate(lr, b1p, b2p, param)[0] * (m1 / (np.sqrt(m2) + t(epsilon)))

    def samples(self, rng):
        for name, attrs in self.sample_attrs.items():
            yield Sample({"Param": rand(rng, 3, 4), "Grad": rand(rng, 3, 4),
                          "LearningRate": np.array([0.1]), "Moment1": rand(rng, 3, 4) * 0.1,
                          "Moment2": rng.uniform(0, 0.1, (3, 4)), "Beta1Pow": np.array([0.9]),
                          "Beta2Pow": np.array([0.999])}, dict(attrs), name=name)


@register
class AdamW(Adam):
    """Adam with decoupled weight decay: p -= lr * coeff * p before the Adam step."""
    type = "adamw"
    attrs = dict(Adam.attrs, coeff=0.01, lr_ratio=1.0, with_decay=False)   # Paddle's defaults
    # lr_ratio on a sample of its own: Paddle's CPU kernel scales only the decay by it
    sample_attrs = {"decay": dict(Adam.sample_attrs[""], coeff=2.0 ** -7, with_decay=True),
                    "lr_ratio": dict(Adam.sample_attrs[""], coeff=2.0 ** -7, with_decay=True,
                                     lr_ratio=0.5)}

    @staticmethod
    def forward(param, grad, lr, m1, m2, b1p, b2p, b1t=None, b2t=None, beta1=0.9,
                beta2=0.999, epsilon=1e-8, lazy_mode=False, coeff=0.01, lr_ratio=1.0,
                with_decay=False):
        lr = lr * lr_ratio
        if with_decay:
            param -= _lr(lr, param) * param.dtype.type(coeff) * param
        return Adam.forward(param, grad, lr, m1, m2, b1p, b2p, b1t, b2t, beta1, beta2, epsilon)


@register
class RMSProp(_Update):
    type = "rmsprop"
    inputs = ("Param", "MeanSquare", "MeanGrad?", "LearningRate", "Grad", "Moment")
    outputs = ("ParamOut", "MomentOut", "MeanSquareOut", "MeanGradOut?")
    attrs = {"epsilon": 1e-10, "decay": 0.9, "momentum": 0.0, "centered": False}

    @staticmethod
    def forward(param, ms, mg, lr, grad, moment, epsilon=1e-10, decay=0.9, momentum=0.0,
                centered=False):
        t = param.dtype.type
        ms *= t(decay)
        ms += t(1 - decay) * grad * grad
        denom = ms + t(epsilon)
        if centered:
            mg *= t(decay)
            mg += t(1 - decay) * grad
            denom = denom - mg * mg
        moment *= t(momentum)
        moment += _lr(lr, param) * grad / np.sqrt(denom)
        param -= moment
        return param, moment, ms, mg

    def samples(self, rng):
        for centered in (False, True):
            yield Sample({"Param": rand(rng, 3, 4), "MeanSquare": rng.uniform(0.5, 1, (3, 4)),
                          "MeanGrad": rand(rng, 3, 4) * 0.1, "LearningRate": np.array([0.1]),
                          "Grad": rand(rng, 3, 4), "Moment": rand(rng, 3, 4)},
                         {"centered": centered, "momentum": 0.5, "decay": BETA1,
                          "epsilon": 2.0 ** -30})


@register
class Adagrad(_Update):
    type = "adagrad"
    inputs = ("Param", "Grad", "Moment", "LearningRate")
    outputs = ("ParamOut", "MomentOut")
    attrs = {"epsilon": 1e-6}

    @staticmethod
    def forward(param, grad, moment, lr, epsilon=1e-6):
        moment += grad * grad
        param -= _lr(lr, param) * grad / (np.sqrt(moment) + param.dtype.type(epsilon))
        return param, moment

    def samples(self, rng):
        yield Sample({"Param": rand(rng, 3, 4), "Grad": rand(rng, 3, 4),
                      "Moment": rng.uniform(0, 1, (3, 4)), "LearningRate": np.array([0.1])})


@register
class DecayedAdagrad(_Update):
    """moment = decay moment + (1 - decay) g^2; p -= lr g / (sqrt(moment) + epsilon)."""
    type = "decayed_adagrad"
    inputs = ("Param", "Grad", "Moment", "LearningRate")
    outputs = ("ParamOut", "MomentOut")
    attrs = {"decay": 0.95, "epsilon": 1e-6}

    @staticmethod
    def forward(param, grad, moment, lr, decay=0.95, epsilon=1e-6):
        t = param.dtype.type
        moment *= t(decay)
        moment += t(1 - decay) * grad * grad
        param -= _lr(lr, param) * grad / (np.sqrt(moment) + t(epsilon))
        return param, moment

    def samples(self, rng):
        yield Sample({"Param": rand(rng, 3, 4), "Grad": rand(rng, 3, 4),
                      "Moment": rng.uniform(0, 1, (3, 4)), "LearningRate": np.array([0.1])},
                     {"decay": 0.75, "epsilon": 2.0 ** -20})


@register
class Ftrl(_Update):
    """FTRL-Proximal. n = squared + g^2; linear += g - (n^-lr_power - squared^-lr_power) /
    lr * p (sqrt for lr_power = -0.5); p = (l1 sign(linear) - linear) / (n^-lr_power / lr
    + 2 l2) where |linear| > l1, else 0; squared = n."""
    type = "ftrl"
    inputs = ("Param", "SquaredAccumulator", "LinearAccumulator", "Grad", "LearningRate")
    outputs = ("ParamOut", "SquaredAccumOut", "LinearAccumOut")
    attrs = {"l1": 0.0, "l2": 0.0, "lr_power": -0.5}

    def infer_shape(self, ctx):
        for slot, out in (("Param", "ParamOut"), ("SquaredAccumulator", "SquaredAccumOut"),
                          ("LinearAccumulator", "LinearAccumOut")):
            ctx.same_as(slot, out)

    @staticmethod
    def forward(param, squared, linear, grad, lr, l1=0.0, l2=0.0, lr_power=-0.5):
        t = param.dtype.type
        lr = _lr(lr, param)
        new_squared = squared + grad * grad
        if lr_power == -0.5:
            root_new, root_old = np.sqrt(new_squared), np.sqrt(squared)
        else:
            root_new, root_old = new_squared ** t(-lr_power), squared ** t(-lr_power)
        linear += grad - (root_new - root_old) / lr * param
        shrunk = (t(l1) * np.sign(linear) - linear) / (root_new / lr + t(2 * l2))
        param[...] = np.where(np.abs(linear) > t(l1), shrunk, t(0))
        squared[...] = new_squared
        return param, squared, linear

    def samples(self, rng):
        for lr_power in (-0.5, -0.25):
            yield Sample({"Param": rand(rng, 3, 4), "SquaredAccumulator":
                          rng.uniform(0.1, 1, (3, 4)), "LinearAccumulator": rand(rng, 3, 4),
                          "Grad": rand(rng, 3, 4), "LearningRate": np.array([0.1])},
                         {"l1": 0.125, "l2": 0.25, "lr_power": lr_power}, grad=False)


@register
class Dpsgd(OpDef):
    """Differentially private SGD: the gradient scaled down to L2 norm `clip` when longer,
    plus one Gaussian number N(0, sigma^2) / batch_size: p -= lr (g / max(1, ||g|| / clip)
    + noise / batch_size). `seed` (0: a fresh one each run) seeds the noise."""
    type = "dpsgd"
    inputs = ("Param", "Grad", "LearningRate")
    outputs = ("ParamOut",)
    attrs = {"clip": 10.0, "batch_size": 16.0, "sigma": 1.0, "seed": 0}

    def infer_shape(self, ctx):
        ctx.same_as("Param", "ParamOut")

    @staticmethod
    def forward(param, grad, lr, clip=10.0, batch_size=16.0, sigma=1.0, seed=0):
        t = param.dtype.type
        norm = np.linalg.norm(grad)
        scale = norm / clip if norm > clip else 1.0
        rng = np.random.default_rng(seed if seed else None)
        noise = rng.normal(0.0, sigma) if sigma else 0.0
        param -= _lr(lr, param) * (grad / t(scale) + t(noise / batch_size))
        return param

    def samples(self, rng):
        yield Sample({"Param": rand(rng, 3, 4), "Grad": rand(rng, 3, 4) * 10,
                      "LearningRate": np.array([0.1])},
                     {"clip": 2.0, "batch_size": 4.0, "sigma": 0.0}, grad=False)


@register
class Lamb(_Update):
    """Adam moments, bias-corrected (Paddle 2.0, 3) or not (1.8): `lamb_bias_correction`;
    then a layer-wise trust ratio ||p|| / ||update||: always (1.8, 2.0), or only with a
    weight_decay > 0 or always_adapt (3): `lamb_trust_ratio`."""
    type = "lamb"
    inputs = ("Param", "Grad", "LearningRate", "Moment1", "Moment2", "Beta1Pow", "Beta2Pow")
    outputs = ("ParamOut", "Moment1Out", "Moment2Out", "Beta1PowOut", "Beta2PowOut")
    attrs = {"weight_decay": 0.01, "beta1": 0.9, "beta2": 0.999, "epsilon": 1e-6,
             "always_adapt": False}
    # weight_decay has no default in Paddle: its Lamb optimizer always sets it
    sample_attrs = {"": {"weight_decay": 2.0 ** -7, "beta1": BETA1, "beta2": BETA2,
                         "epsilon": 2.0 ** -20}}

    @staticmethod
    def forward(param, grad, lr, m1, m2, b1p, b2p, weight_decay=0.01, beta1=0.9, beta2=0.999,
                epsilon=1e-6, always_adapt=False):
        t = param.dtype.type
        m1 *= t(beta1)
        m1 += t(1 - beta1) * grad
        m2 *= t(beta2)
        m2 += t(1 - beta2) * grad * grad
        m1_hat, m2_hat = m1, m2
        if versions.switch("lamb_bias_correction"):
            m1_hat = m1 / (1 - b1p.reshape(-1)[0])
            m2_hat = m2 / (1 - b2p.reshape(-1)[0])
        update = m1_hat / (np.sqrt(m2_hat) + t(epsilon)) + t(weight_decay) * param
        p_norm, u_norm = np.linalg.norm(param), np.linalg.norm(update)
        adapts = versions.switch("lamb_trust_ratio") == "always" or weight_decay > 0 or \
            always_adapt
        ratio = p_norm / u_norm if adapts and p_norm > 0 and u_norm > 0 else 1.0
        param -= (_lr(lr, param) * t(ratio) * update).astype(param.dtype)
        b1p *= t(beta1)
        b2p *= t(beta2)
        return param, m1, m2, b1p, b2p

    samples = Adam.samples


@register
class Adamax(_Update):
    """m = b1 m + (1-b1) g; u = max(b2 u + eps, |g|); p -= lr / (1 - b1^t) * m / u.
    Beta1Pow is read only: the optimizer advances it with a scale op (as Paddle)."""
    type = "adamax"
    inputs = ("Param", "Grad", "LearningRate", "Moment", "InfNorm", "Beta1Pow")
    outputs = ("ParamOut", "MomentOut", "InfNormOut")
    attrs = {"beta1": 0.9, "beta2": 0.999, "epsilon": 1e-8}

    @staticmethod
    def forward(param, grad, lr, moment, inf_norm, b1p, beta1=0.9, beta2=0.999, epsilon=1e-8):
        t = param.dtype.type
        moment *= t(beta1)
        moment += t(1 - beta1) * grad
        np.maximum(inf_norm * t(beta2) + t(epsilon), np.abs(grad), out=inf_norm)
        lr_t = _lr(lr, param) / _as(1 - b1p.reshape(-1)[0], param)
        param -= lr_t * moment / inf_norm
        return param, moment, inf_norm

    def samples(self, rng):
        yield Sample({"Param": rand(rng, 3, 4), "Grad": rand(rng, 3, 4),
                      "LearningRate": np.array([0.1]), "Moment": rand(rng, 3, 4) * 0.1,
                      "InfNorm": rng.uniform(0.1, 1, (3, 4)), "Beta1Pow": np.array([0.81])},
                     {"beta1": BETA1, "beta2": BETA2, "epsilon": 2.0 ** -26})


def _proximal_step(param, prox, lr, l1, l2):
    """Proximal operator of lr (l1 |p| + l2/2 p^2) applied to prox = the plain step's
    result: soft-threshold by lr l1 (only when l1 > 0), then shrink by 1 / (1 + lr l2).
    Written into param."""
    t = param.dtype.type
    if l1 > 0:
        prox = np.sign(prox) * np.maximum(np.abs(prox) - lr * t(l1), t(0))
    param[...] = prox / (t(1) + lr * t(l2))
    return param


@register
class ProximalGd(_Update):
    """Proximal gradient descent: p = prox(p - lr g) (see _proximal_step)."""
    type = "proximal_gd"
    inputs = ("Param", "Grad", "LearningRate")
    outputs = ("ParamOut",)
    attrs = {"l1": 0.0, "l2": 0.0}

    @staticmethod
    def forward(param, grad, lr, l1=0.0, l2=0.0):
        lr = _lr(lr, param)
        return _proximal_step(param, param - lr * grad, lr, l1, l2)

    def samples(self, rng):
        for l1 in (0.0, 0.25):
            yield Sample({"Param": rand(rng, 3, 4), "Grad": rand(rng, 3, 4),
                          "LearningRate": np.array([0.5])}, {"l1": l1, "l2": 0.125},
                         grad=False)


@register
class ProximalAdagrad(_Update):
    """Proximal Adagrad: m += g^2; p = prox(p - lr g / sqrt(m)) (see _proximal_step; no
    epsilon, as Paddle's kernel)."""
    type = "proximal_adagrad"
    inputs = ("Param", "Moment", "Grad", "LearningRate")
    outputs = ("ParamOut", "MomentOut")
    attrs = {"l1": 0.0, "l2": 0.0}

    @staticmethod
    def forward(param, moment, grad, lr, l1=0.0, l2=0.0):
        lr = _lr(lr, param)
        moment += grad * grad
        return _proximal_step(param, param - lr * grad / np.sqrt(moment), lr, l1, l2), moment

    def samples(self, rng):
        for l1 in (0.0, 0.25):
            yield Sample({"Param": rand(rng, 3, 4), "Moment": rng.uniform(0.1, 1, (3, 4)),
                          "Grad": rand(rng, 3, 4), "LearningRate": np.array([0.5])},
                         {"l1": l1, "l2": 0.125}, grad=False)
