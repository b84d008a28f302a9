"""SpectralNorm: a weight divided by its spectral norm (the spectral_norm op)."""
from ...framework.initializer import Normal
from ...framework.param_attr import ParamAttr
from ...layers.common import append_op_out
from .base import Layer

__all__ = ["SpectralNorm"]


class SpectralNorm(Layer):
    """paddle.nn.SpectralNorm(weight_shape, dim=0, power_iters=1, eps=1e-12): forward(weight)
    returns weight / sigma, sigma estimated by power iteration from weight_u [h] and
    weight_v [w] (h = weight_shape[dim], w = the product of the other dims). weight_u and
    weight_v are non-trainable parameters drawn from N(0, 1); the op does not update them."""

    def __init__(self, weight_shape, dim=0, power_iters=1, eps=1e-12, dtype="float32"):
        super().__init__(dtype=dtype)
        weight_shape = [int(d) for d in weight_shape]
        if not 0 <= dim < len(weight_shape):
            raise ValueError("SpectralNorm: dim must be in [0, %d) for weight_shape %s, got %r"
                             % (len(weight_shape), weight_shape, dim))
        if power_iters < 0:
            raise ValueError("SpectralNorm: power_iters must be >= 0, got %r" % (power_iters,))
        self._weight_shape, self._dim = weight_shape, dim
        self._power_iters, self._eps = power_iters, eps
        h = weight_shape[dim]
        w = 1
        for i, d in enumerate(weight_shape):
            if i != dim:
                w *= d
        self.weight_u, self.weight_v = [
            self.create_parameter([size], ParamAttr(initializer=Normal(0.0, 1.0),
                                                    trainable=False))
            for size in (h, w)]
        self.weight_u.stop_gradient = self.weight_v.stop_gradient = True

    def forward(self, weight):
        self._expect_input(weight, "weight", dtypes=("float32", "float64"))
        if list(weight.shape) != self._weight_shape and -1 not in weight.shape:
            raise ValueError("%s: input %r has shape %s, expected weight_shape %s"
                             % (self._where(), weight.name, list(weight.shape),
                                self._weight_shape))
        return append_op_out("spectral_norm",
                             {"Weight": [weight], "U": [self.weight_u], "V": [self.weight_v]},
                             {"dim": self._dim, "power_iters": self._power_iters,
                              "eps": float(self._eps)})

    def extra_repr(self):
        return "weight_shape=%s, dim=%d, power_iters=%d" % (
            self._weight_shape, self._dim, self._power_iters)
