"""Optimizer updates in place, one element-wise pass each (Paddle's formulas, as the
references in refimpl/ops/optimizer_ops.py): sgd, momentum, adam."""
import cupy

from .source import elementwise

__all__ = ["sgd", "momentum", "adam"]

_sgd = elementwise("T g, raw T lr", "T p", "p -= lr[0] * g", "refimpl_sgd")
_momentum = elementwise(
    "T g, raw T lr, T mu, bool nesterov, T l2", "T p, T v",
    "T grad = g + l2 * p; v = v * mu + grad; p -= nesterov ? (grad + mu * v) * lr[0] "
    ": lr[0] * v", "refimpl_momentum")
_adam = elementwise(
    "T g, T lr_t, T beta1, T beta2, T eps", "T p, T m1, T m2",
    "m1 = beta1 * m1 + ((T)1 - beta1) * g; m2 = beta2 * m2 + ((T)1 - beta2) * g * g; "
    "p -= lr_t * (m1 / (sqrt(m2) + eps))", "refimpl_adam")


def _scalar(a, dtype):
    return a.reshape(-1)[:1].astype(dtype, copy=False)


def sgd(param, lr, grad):
    _sgd(grad, _scalar(lr, param.dtype), param)
    return param


def momentum(param, grad, velocity, lr, mu=0.9, use_nesterov=False, regularization_method="",
             regularization_coeff=0.0):
    t = param.dtype.type
    l2 = t(regularization_coeff if regularization_method == "l2_decay" else 0)
    _momentum(grad, _scalar(lr, param.dtype), t(mu), bool(use_nesterov), l2, param, velocity)
    return param, velocity


def adam(param, grad, lr, m1, m2, b1p, b2p, b1t=None, b2t=None, beta1=0.9, beta2=0.999,
         epsilon=1e-8, lazy_mode=False):
    if b1t is not None:     # Beta1Tensor / Beta2Tensor win over the attributes
        beta1 = float(b1t.reshape(-1)[0])
    if b2t is not None:
        beta2 = float(b2t.reshape(-1)[0])
    # the bias corrections are a few scalar kernels on the [1] beta powers, no host sync
    t = param.dtype.type
    corr2 = cupy.sqrt(1 - b2p.reshape(-1)[0])
    lr_t = (lr.reshape(-1)[0] * (corr2 / (1 - b1p.reshape(-1)[0]))).astype(param.dtype)
    eps = (t(epsilon) * corr2).astype(param.dtype)
    _adam(grad, lr_t, t(beta1), t(beta2), eps, param, m1, m2)
    b1p *= t(beta1)
    b2p *= t(beta2)
    return param, m1, m2, b1p, b2p
