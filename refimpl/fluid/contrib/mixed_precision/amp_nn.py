"""fluid.contrib.mixed_precision.amp_nn (Paddle 2.0): the layer functions of its AMP ops
check_finite_and_unscale and update_loss_scaling (refimpl/ops), which write their results
into their inputs' variables, as Paddle's do."""
from ....framework.layer_helper import LayerHelper
from ....layers.common import check_dtype

__all__ = ["check_finite_and_unscale", "update_loss_scaling"]

_FLOATS = ("float16", "float32", "float64")


def _check_list(x, layer):
    if not isinstance(x, (list, tuple)):
        raise TypeError("%s: x must be a list or tuple of Variables, got %s"
                        % (layer, type(x).__name__))
    for e in x:
        check_dtype(e, "x", layer, _FLOATS)


def check_finite_and_unscale(x, scale, name=None):
    """(x divided by scale in place, found_inf: a [1] bool Variable, True when a value of
    x is inf or NaN)."""
    _check_list(x, "check_finite_and_unscale")
    helper = LayerHelper("check_finite_and_unscale", name=name)
    found_inf = helper.create_variable_for_type_inference(dtype="bool")
    helper.append_op(type="check_finite_and_unscale",
                     inputs={"X": list(x), "Scale": [scale]},
                     outputs={"Out": list(x), "FoundInfinite": [found_inf]})
    return x, found_inf


def update_loss_scaling(x, found_inf, prev_loss_scaling, num_good_steps, num_bad_steps,
                        incr_every_n_steps, decr_every_n_nan_or_inf, incr_ratio, decr_ratio,
                        stop_update=False, name=None):
    """x (zeroed in place when found_inf); prev_loss_scaling, num_good_steps and
    num_bad_steps are updated in place."""
    check_dtype(prev_loss_scaling, "prev_loss_scaling", "update_loss_scaling",
                ("float32", "float64"))
    _check_list(x, "update_loss_scaling")
    for e in x:
        wanted = "float32" if e.dtype.name == "float16" else e.dtype.name
        if prev_loss_scaling.dtype.name != wanted:
            raise AssertionError("update_loss_scaling: prev_loss_scaling is %s, x %r is %s: "
                                 "it should be %s" % (prev_loss_scaling.dtype.name, e.name,
                                                      e.dtype.name, wanted))
    helper = LayerHelper("update_loss_scaling", name=name)
    helper.append_op(
        type="update_loss_scaling",
        inputs={"X": list(x), "FoundInfinite": [found_inf],
                "PrevLossScaling": [prev_loss_scaling], "InGoodSteps": [num_good_steps],
                "InBadSteps": [num_bad_steps]},
        outputs={"Out": list(x), "LossScaling": [prev_loss_scaling],
                 "OutGoodSteps": [num_good_steps], "OutBadSteps": [num_bad_steps]},
        attrs={"incr_every_n_steps": incr_every_n_steps,
               "decr_every_n_nan_or_inf": decr_every_n_nan_or_inf,
               "incr_ratio": float(incr_ratio), "decr_ratio": float(decr_ratio),
               "stop_update": stop_update})
    return x
