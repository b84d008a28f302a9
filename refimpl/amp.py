"""paddle.amp (2.0): automatic mixed precision in dynamic mode, `auto_cast` and
`GradScaler`. Paddle 2.0 turns both on only on a GPU place: on a CPU place they warn and
do nothing (operators keep float32, the loss is not scaled, `minimize` is the optimizer's).
refimpl runs no float16 autocast, so on a GPU place it refuses them instead of silently
training in float32."""
import contextlib
import warnings

from .framework import mode
from .framework.place import current_place
from .submodules import group

__all__ = ["auto_cast", "GradScaler"]


def _enabled(enable, api):
    """Whether `api` takes effect: only in dynamic mode (an AssertionError otherwise, as
    Paddle's dygraph_only), never on a CPU place (a warning there, as Paddle). It never
    does here: on a GPU place it is refused."""
    assert mode.dynamic, ("We only support '%s()' in dynamic graph mode, please call "
                          "'paddle.disable_static()' to enter dynamic graph mode." % api)
    if not enable:
        return False
    place = current_place()
    if not place.is_gpu_place():
        warnings.warn("%s can only be enabled on CUDAPlace, current place is %s, so it makes "
                      "no effect." % (api, place))
        return False
    raise NotImplementedError("%s: refimpl has no float16 autocast or loss scaling on %s; "
                              "pass enable=False or run on the CPU place" % (api, place))


def _check_lists(custom_white_list, custom_black_list):
    overlap = set(custom_white_list or ()) & set(custom_black_list or ())
    if overlap:
        raise ValueError("auto_cast: custom white list overlaps custom black list: %s"
                         % ", ".join(sorted(overlap)))


@contextlib.contextmanager
def auto_cast(enable=True, custom_white_list=None, custom_black_list=None):
    """A context in which float16-safe operators (Paddle's white list: conv2d, matmul,
    matmul_v2, mul, with the custom lists' changes) would run in float16."""
    _check_lists(custom_white_list, custom_black_list)
    _enabled(enable, "auto_cast")
    yield


class GradScaler:
    """Scales the loss (init_loss_scaling) before backward and unscales the gradients in
    minimize, adapting the scale to overflows; disabled (scale returns the loss, minimize
    is optimizer.minimize) where Paddle disables it."""

    def __init__(self, enable=True, init_loss_scaling=2.**15, incr_ratio=2.0,
                 decr_ratio=0.5, incr_every_n_steps=1000, decr_every_n_nan_or_inf=2,
                 use_dynamic_loss_scaling=True):
        _enabled(enable, "GradScaler")

    def scale(self, var):
        return var

    def minimize(self, optimizer, *args, **kwargs):
        return optimizer.minimize(*args, **kwargs)


# Paddle 2.0's submodule paddle.amp.grad_scaler (not its amp.auto_cast, whose name is the
# function's here: importing it would set the attribute to the module)
globals().update(group(__name__, globals(), {"grad_scaler": ["GradScaler"]}))
