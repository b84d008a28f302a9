"""Pieces the vision models share: the conv + batch norm + activation block, the pooled
classifier head, and loading pretrained weights from Paddle's cache directory (refimpl downloads nothing)."""
import os

from ... import nn
from ...framework.initializer import NumpyArrayInitializer
from ...framework.program import default_startup_program
from ...layers.tensor import flatten

WEIGHTS_HOME = os.path.join("~", ".cache", "paddle", "hapi", "weights")
WEIGHTS_URL = "https://paddle-hapi.bj.bcebos.com/models/"


class ConvNormActivation(nn.Sequential):
    """Conv2D (no bias) -> BatchNorm2D -> activation (None: no activation); padding
    keeps the size at stride 1."""

    def __init__(self, in_channels, out_channels, kernel_size=3, stride=1, groups=1,
                 activation_layer=nn.ReLU):
        layers = [nn.Conv2D(in_channels, out_channels, kernel_size, stride=stride,
                            padding=(kernel_size - 1) // 2, groups=groups, bias_attr=False),
                  nn.BatchNorm2D(out_channels)]
        if activation_layer is not None:
            layers.append(activation_layer())
        super().__init__(*layers)


def pooled_classifier_head(model, x, pool, classifier):
    """The models' head on the features x: the sublayer named `pool` (adaptive average
    pool) where model.with_pool, then the one named `classifier` on the flattened result
    where model.num_classes > 0. The names differ per model: they are Paddle's
    state_dict keys."""
    if model.with_pool:
        x = getattr(model, pool)(x)
    if model.num_classes > 0:
        x = getattr(model, classifier)(flatten(x, 1))
    return x


def load_pretrained(model, arch, file_name):
    """Make `model`'s parameters start from the weights of `arch`: the startup program's
    initializer of each one is replaced by its pretrained value. The file must already be
    at Paddle's cache path; it is read with paddle.load (its pickle never run)."""
    if file_name is None:
        raise ValueError("%s(pretrained=True): Paddle publishes no pretrained weights for "
                         "%s; pass pretrained=False" % (arch, arch))
    path = os.path.expanduser(os.path.join(WEIGHTS_HOME, file_name))
    if not os.path.exists(path):
        raise FileNotFoundError(
            "%s(pretrained=True): the weights file %s is absent, and refimpl downloads "
            "nothing. Put Paddle's %s there (published at %s%s), or pass pretrained=False"
            % (arch, path, file_name, WEIGHTS_URL, file_name))
    from ...framework.model_formats import load
    state = load(path)
    params = model.state_dict()
    missing = sorted(set(params) - set(state))
    if missing:
        raise ValueError("%s(pretrained=True): %s lacks %d of the model's weights, e.g. %s"
                         % (arch, path, len(missing), missing[:3]))
    startup = default_startup_program().global_block()
    for key, var in params.items():
        for index in reversed(range(len(startup.ops))):
            if var.name in startup.ops[index].output_arg_names:
                startup._remove_op(index)
        NumpyArrayInitializer(state[key])(var)
    return model
