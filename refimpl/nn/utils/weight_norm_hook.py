"""paddle.nn.utils.weight_norm: a layer's parameter `name` re-expressed as
name_g * name_v / ||name_v||, the norm taken over every axis but `dim` (all axes when dim
is None or -1), recomputed before each forward. Paddle 2.0 semantics: name_v starts as the
weight, name_g as its norm ([shape[dim]], or the scalar shape for the whole-tensor norm:
[1], [] under the 3 profile); the weight
stops being a parameter and name_v, name_g are appended to the layer's parameters in that
order. Eager (dygraph) only: the initial g is the norm of the weight's current value."""
import numpy as np

from ... import versions
from ...framework import mode
from ...framework.initializer import NumpyArrayInitializer
from ...framework.param_attr import ParamAttr
from ...layers.common import append_op_out
from ...layers.functional_loss import normalize
from ...layers.tensor import reshape, transpose
from ..layer.base import Layer

__all__ = ["weight_norm", "remove_weight_norm"]

_EPSILON = 1e-12   # F.normalize's floor on the norm, as Paddle's hook uses it


def _normalized_except(v, dim):
    """v / ||v|| with the norm over every axis but `dim` (dim -1: over all of v)."""
    shape = list(v.shape)
    if dim == -1:
        return reshape(normalize(reshape(v, [1, -1]), axis=1, epsilon=_EPSILON), shape)
    perm = list(range(len(shape)))
    perm[0], perm[dim] = dim, 0
    moved = transpose(v, perm) if dim else v
    rows = normalize(reshape(moved, [shape[dim], -1]), axis=1, epsilon=_EPSILON)
    rows = reshape(rows, [shape[i] for i in perm])
    return transpose(rows, perm) if dim else rows


def _norm_except(value, dim):
    if dim == -1:
        return np.sqrt(np.sum(np.square(value), dtype=np.float64)).reshape(
            versions.switch("scalar_shape"))
    moved = np.moveaxis(value, dim, 0).reshape(value.shape[dim], -1)
    return np.sqrt(np.sum(np.square(moved, dtype=np.float64), axis=1))


class WeightNorm:
    """The forward pre-hook weight_norm registers: sets layer.<name> from <name>_g, _v."""

    def __init__(self, name, dim):
        self.name, self.dim = name, dim

    def compute_weight(self, layer):
        g = getattr(layer, self.name + "_g")
        v = getattr(layer, self.name + "_v")
        return append_op_out("elementwise_mul", {"X": [_normalized_except(v, self.dim)],
                                                 "Y": [g]},
                             {"axis": 0 if self.dim == -1 else self.dim})

    def __call__(self, layer, inputs):
        setattr(layer, self.name, self.compute_weight(layer))


def _hook_of(layer, name):
    for handle_id, hook in layer._forward_pre_hooks.items():
        if isinstance(hook, WeightNorm) and hook.name == name:
            return handle_id, hook
    return None, None


def weight_norm(layer, name="weight", dim=0):
    """Applies weight normalization to layer.<name>; returns the layer."""
    if not isinstance(layer, Layer):
        raise TypeError("weight_norm: expected a paddle.nn.Layer, got %s"
                        % type(layer).__name__)
    if not mode.in_dynamic_mode():
        raise RuntimeError("weight_norm: refimpl applies it in dynamic mode only (the "
                           "initial g is the norm of the weight's value)")
    if _hook_of(layer, name)[1] is not None:
        raise RuntimeError("weight_norm: %s.%s already has weight_norm applied"
                           % (layer.full_name(), name))
    weight = layer._parameters.get(name)
    if weight is None:
        raise ValueError("weight_norm: %s has no parameter %r" % (layer.full_name(), name))
    rank = len(weight.shape)
    dim = -1 if dim is None else dim
    if not -rank <= dim < rank:
        raise ValueError("weight_norm: dim must be in [-%d, %d) for %s of shape %s, got %r"
                         % (rank, rank, name, list(weight.shape), dim))
    if dim != -1:
        dim %= rank
    value = weight.numpy()
    del layer._parameters[name]
    for suffix, initial in (("_v", value), ("_g", _norm_except(value, dim))):
        initial = initial.astype(value.dtype)
        layer.add_parameter(name + suffix, layer.create_parameter(
            initial.shape, ParamAttr(initializer=NumpyArrayInitializer(initial)),
            dtype=weight.dtype))
    hook = WeightNorm(name, dim)
    setattr(layer, name, hook.compute_weight(layer))
    layer.register_forward_pre_hook(hook)
    return layer


def remove_weight_norm(layer, name="weight"):
    """Folds <name>_g and <name>_v back into a parameter <name>; returns the layer."""
    handle_id, hook = _hook_of(layer, name)
    if hook is None:
        raise ValueError("remove_weight_norm: %s.%s has no weight_norm applied"
                         % (layer.full_name(), name))
    value = hook.compute_weight(layer).numpy()
    del layer._parameters[name + "_g"], layer._parameters[name + "_v"]
    del layer._forward_pre_hooks[handle_id]
    delattr(layer, name)      # the computed weight: a non-persistable buffer (2.0's Layer)
    layer.add_parameter(name, layer.create_parameter(
        value.shape, ParamAttr(initializer=NumpyArrayInitializer(value)), dtype=value.dtype))
    return layer
