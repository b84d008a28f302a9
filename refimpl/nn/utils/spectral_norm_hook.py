"""paddle.nn.utils.spectral_norm (Paddle 3; paddle.nn.spectral_norm too): a layer's
parameter `name` re-expressed as name_orig / sigma before each forward, sigma the largest
singular value of name_orig seen as a matrix (dim `dim` as its rows, the others flattened),
estimated by power iteration from the buffers name_u [rows] and name_v [columns]. As 3.3.1's
hook (measured and read): u and v start as N(0, 1) draws, normalized; in training mode each
forward first runs n_power_iterations steps v = normalize(W^T u), u = normalize(W v) (no
gradient, the buffers updated in place), then sigma = u . (W v); in eval mode u and v stay.
dim None: 1 for Linear and the transposed convolutions (their weights' output dim), else 0.
Eager (dygraph) only."""
from ...framework import mode
from ...layers.creation import assign, gaussian
from ...layers.functional_loss import normalize
from ...layers.linalg import mv
from ...layers.math import dot, matmul
from ...layers.tensor import reshape, transpose
from ..layer.base import Layer
from ..layer.common import Linear
from ..layer.conv import Conv1DTranspose, Conv2DTranspose, Conv3DTranspose

__all__ = ["spectral_norm"]


class SpectralNorm:
    """The forward pre-hook spectral_norm registers: sets layer.<name> from <name>_orig."""

    def __init__(self, name, n_power_iterations, dim, eps):
        if n_power_iterations <= 0:
            raise ValueError("spectral_norm: n_power_iterations must be positive, got %r"
                             % (n_power_iterations,))
        self.name, self.n_power_iterations, self.dim, self.eps = \
            name, n_power_iterations, dim, eps

    def matrix(self, weight):
        """weight as [shape[dim], the product of the other dims]."""
        rank = len(weight.shape)
        if self.dim:
            weight = transpose(weight, [self.dim] + [d for d in range(rank) if d != self.dim])
        return reshape(weight, [weight.shape[0], -1])

    def compute_weight(self, layer, do_power_iteration):
        weight = getattr(layer, self.name + "_orig")
        u, v = getattr(layer, self.name + "_u"), getattr(layer, self.name + "_v")
        w = self.matrix(weight)
        if do_power_iteration:
            with mode.no_grad():
                for _ in range(self.n_power_iterations):
                    assign(normalize(matmul(w, u, transpose_x=True), axis=0,
                                     epsilon=self.eps), v)
                    assign(normalize(mv(w, v), axis=0, epsilon=self.eps), u)
            u, v = assign(u), assign(v)   # copies: the buffers change in the next forward
        return weight / dot(u, mv(w, v))

    def __call__(self, layer, inputs):
        setattr(layer, self.name, self.compute_weight(layer, layer.training))


def spectral_norm(layer, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    """Applies spectral normalization to layer.<name>; returns the layer."""
    if not isinstance(layer, Layer):
        raise TypeError("spectral_norm: expected a paddle.nn.Layer, got %s"
                        % type(layer).__name__)
    if not mode.in_dynamic_mode():
        raise RuntimeError("spectral_norm: a forward pre-hook of dynamic mode (as Paddle's)")
    if dim is None:
        transposed = (Linear, Conv1DTranspose, Conv2DTranspose, Conv3DTranspose)
        dim = 1 if isinstance(layer, transposed) else 0
    if any(isinstance(hook, SpectralNorm) and hook.name == name
           for hook in layer._forward_pre_hooks.values()):
        raise RuntimeError("spectral_norm: %s.%s already has a spectral_norm hook"
                           % (layer.full_name(), name))
    hook = SpectralNorm(name, n_power_iterations, dim, eps)
    weight = layer._parameters.get(name)
    if weight is None:
        raise ValueError("spectral_norm: %s has no parameter %r" % (layer.full_name(), name))
    with mode.no_grad():
        rows, columns = hook.matrix(weight).shape
        u, v = (normalize(gaussian([size], dtype=weight.dtype), axis=0, epsilon=eps)
                for size in (rows, columns))
    del layer._parameters[name]
    layer.add_parameter(name + "_orig", weight)
    setattr(layer, name, weight * 1.0)
    layer.register_buffer(name + "_u", u)
    layer.register_buffer(name + "_v", v)
    layer.register_forward_pre_hook(hook)
    return layer
