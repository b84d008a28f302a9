"""batch_norm, layer_norm, group_norm and dropout layers (fluid.layers 1.8, static.nn and
nn.functional 2.0 spellings). Variables are created in Paddle's order, so names match
(batch_norm_0.w_0 scale, .b_0 bias, .w_1 running mean, .w_2 running variance)."""
import numpy as np

from ..framework import mode
from ..framework.initializer import Constant
from ..framework.layer_helper import LayerHelper
from ..framework.param_attr import ParamAttr
from ..framework.program import Variable
from .. import versions
from .common import append_op_out, check_variable, real_arg

# paddle.nn.functional.batch_norm's data_format values -> the op's data_layout
_CHANNEL_FIRST = ("NC", "NCL", "NCHW", "NCDHW")
_CHANNEL_LAST = ("NLC", "NHWC", "NDHWC")


def _append_batch_norm(helper, x, scale, bias, mean, variance, attrs, op_type="batch_norm"):
    """The batch_norm op (or sync_batch_norm, same slots) writing the running stats back
    into `mean`/`variance`; returns Y."""
    saved_mean = helper.create_variable_for_type_inference(x.dtype, stop_gradient=True)
    saved_variance = helper.create_variable_for_type_inference(x.dtype, stop_gradient=True)
    y = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op(type=op_type,
                     inputs={"X": [x], "Scale": [scale], "Bias": [bias], "Mean": [mean],
                             "Variance": [variance]},
                     outputs={"Y": [y], "MeanOut": [mean], "VarianceOut": [variance],
                              "SavedMean": [saved_mean], "SavedVariance": [saved_variance]},
                     attrs=attrs)
    return y


def _momentum_value(momentum):
    """The momentum attr. A Variable momentum is ignored by Paddle 1.8.5's layer (it hands
    the op a misspelt MomentumTensor slot, so the op keeps its default 0.9); refimpl has no
    MomentumTensor input elsewhere (the batch_norm_momentum_variable switch)."""
    if not isinstance(momentum, Variable):
        return float(momentum)
    if versions.switch("batch_norm_momentum_variable") == "ignored":
        return 0.9
    raise TypeError("batch_norm: momentum %r is a Variable; refimpl's batch_norm takes a "
                    "Python float momentum" % momentum.name)


def batch_norm(input, act=None, is_test=False, momentum=0.9, epsilon=1e-05, param_attr=None,
               bias_attr=None, data_layout="NCHW", in_place=False, name=None,
               moving_mean_name=None, moving_variance_name=None,
               do_model_average_for_mean_and_var=True, use_global_stats=False):
    """fluid.layers.batch_norm / paddle.static.nn.batch_norm. Scale (init 1) and Bias (init
    0) are trainable; the running mean (init 0) and variance (init 1) are persistable
    non-trainable parameters the op updates. `in_place` is accepted; Y is always a new
    variable (X is needed by the gradient)."""
    return named_batch_norm("batch_norm", input, act, is_test, momentum, epsilon, param_attr,
                            bias_attr, data_layout, name, moving_mean_name,
                            moving_variance_name, do_model_average_for_mean_and_var,
                            use_global_stats)


def named_batch_norm(layer, input, act, is_test, momentum, epsilon, param_attr, bias_attr,
                     data_layout, name, moving_mean_name, moving_variance_name,
                     do_model_average_for_mean_and_var, use_global_stats):
    """batch_norm's program, its variables named after `layer` (fluid.layers.inplace_abn's
    are inplace_abn_N.*, as in Paddle)."""
    check_variable(input, "input", layer)
    if data_layout not in ("NCHW", "NHWC"):
        raise ValueError("%s: data_layout must be 'NCHW' or 'NHWC', got %r"
                         % (layer, data_layout))
    helper = LayerHelper(layer, name=name)
    c = input.shape[1] if data_layout == "NCHW" else input.shape[-1]
    if c < 0:
        raise ValueError("%s: the channel dim of input %r %s must be known"
                         % (layer, input.name, list(input.shape)))
    dtype = input.dtype
    scale = helper.create_parameter(param_attr, [c], dtype, default_initializer=Constant(1.0))
    bias = helper.create_parameter(bias_attr, [c], dtype, is_bias=True)
    running = [helper.create_parameter(
        ParamAttr(name=stat_name, initializer=Constant(init), trainable=False,
                  do_model_average=do_model_average_for_mean_and_var), [c], dtype)
        for stat_name, init in ((moving_mean_name, 0.0), (moving_variance_name, 1.0))]
    y = _append_batch_norm(helper, input, scale, bias, *running,
                           {"momentum": _momentum_value(momentum), "epsilon": float(epsilon),
                            "is_test": is_test, "data_layout": data_layout,
                            "use_global_stats": use_global_stats})
    return helper.append_activation(y, act)


def functional_batch_norm(x, running_mean, running_var, weight, bias, training=False,
                          momentum=0.9, epsilon=1e-05, data_format="NCHW",
                          use_global_stats=None, name=None):
    """paddle.nn.functional.batch_norm on given variables. use_global_stats=None means
    "running stats unless training"; an explicit value also sets trainable_statistics
    to its opposite, as Paddle 2.0 does."""
    check_variable(x, "x", "batch_norm")
    if data_format not in _CHANNEL_FIRST + _CHANNEL_LAST:
        raise ValueError("batch_norm: data_format must be one of %s, got %r"
                         % (list(_CHANNEL_FIRST + _CHANNEL_LAST), data_format))
    if use_global_stats is None:
        use_global_stats, trainable_statistics = not training, False
    else:
        trainable_statistics = not use_global_stats
    helper = LayerHelper("batch_norm", name=name)
    return _append_batch_norm(
        helper, x, weight, bias, running_mean, running_var,
        {"momentum": float(momentum), "epsilon": float(epsilon), "is_test": not training,
         "data_layout": "NCHW" if data_format in _CHANNEL_FIRST else "NHWC",
         "use_global_stats": use_global_stats, "trainable_statistics": trainable_statistics})


def _append_layer_norm(helper, x, scale, bias, begin_norm_axis, epsilon):
    inputs = {"X": [x]}
    if scale is not None:
        inputs["Scale"] = [scale]
    if bias is not None:
        inputs["Bias"] = [bias]
    mean = helper.create_variable_for_type_inference(x.dtype, stop_gradient=True)
    variance = helper.create_variable_for_type_inference(x.dtype, stop_gradient=True)
    y = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op(type="layer_norm", inputs=inputs,
                     outputs={"Y": [y], "Mean": [mean], "Variance": [variance]},
                     attrs={"epsilon": float(epsilon), "begin_norm_axis": begin_norm_axis})
    return y


def layer_norm(input, scale=True, shift=True, begin_norm_axis=1, epsilon=1e-05,
               param_attr=None, bias_attr=None, act=None, name=None):
    """fluid.layers.layer_norm / paddle.static.nn.layer_norm: Scale (init 1) and Bias
    (init 0) of size prod(input.shape[begin_norm_axis:])."""
    check_variable(input, "input", "layer_norm")
    helper = LayerHelper("layer_norm", name=name)
    normalized = input.shape[begin_norm_axis:]
    if any(d < 0 for d in normalized):
        raise ValueError("layer_norm: dims %s of input %r (from begin_norm_axis=%d) must be "
                         "known" % (list(normalized), input.name, begin_norm_axis))
    size = int(np.prod(normalized))
    g = helper.create_parameter(param_attr, [size], input.dtype,
                                default_initializer=Constant(1.0)) if scale else None
    b = helper.create_parameter(bias_attr, [size], input.dtype, is_bias=True) if shift else None
    y = _append_layer_norm(helper, input, g, b, begin_norm_axis, epsilon)
    return helper.append_activation(y, act)


def functional_layer_norm(x, normalized_shape, weight=None, bias=None, epsilon=1e-05,
                          name=None):
    """paddle.nn.functional.layer_norm over the trailing `normalized_shape` dims. As Paddle
    2.x and 3.3.1, a `normalized_shape` that is no int, list or tuple is refused (ValueError)
    before `x` is looked at."""
    if not isinstance(normalized_shape, (int, np.integer, list, tuple)):
        raise ValueError("layer_norm: normalized_shape must be an int, a list or a tuple of "
                         "ints, got %r" % (normalized_shape,))
    check_variable(x, "x", "layer_norm")
    if isinstance(normalized_shape, (int, np.integer)):
        normalized_shape = [normalized_shape]
    if list(x.shape[len(x.shape) - len(normalized_shape):]) != list(normalized_shape):
        raise ValueError("layer_norm: normalized_shape %s is not the trailing dims of x %r %s"
                         % (list(normalized_shape), x.name, list(x.shape)))
    helper = LayerHelper("layer_norm", name=name)
    return _append_layer_norm(helper, x, weight, bias, len(x.shape) - len(normalized_shape),
                              epsilon)


def group_norm(input, groups, epsilon=1e-05, param_attr=None, bias_attr=None, act=None,
               data_layout="NCHW", name=None):
    """fluid.layers.group_norm / paddle.static.nn.group_norm. As Paddle 1.8.5 and 3.3.1
    (measured): the Scale (ones) and Bias (zeros) of [channels] exist only when param_attr /
    bias_attr is given (truthy); by default the groups are normalized and nothing more.
    Channels on axis 1 ('NCHW') or last ('NHWC')."""
    check_variable(input, "input", "group_norm")
    if len(input.shape) < 2:
        raise ValueError("group_norm: input %r needs at least 2 dims (batch, channels, ...), "
                         "got shape %s" % (input.name, list(input.shape)))
    if data_layout not in ("NCHW", "NHWC"):
        raise ValueError("group_norm: data_layout must be 'NCHW' or 'NHWC', got %r"
                         % (data_layout,))
    channels = input.shape[1] if data_layout == "NCHW" else input.shape[-1]
    helper = LayerHelper("group_norm", name=name)
    inputs = {"X": [input]}
    if param_attr:
        inputs["Scale"] = [helper.create_parameter(param_attr, [channels], input.dtype,
                                                   default_initializer=Constant(1.0))]
    if bias_attr:
        inputs["Bias"] = [helper.create_parameter(bias_attr, [channels], input.dtype,
                                                  is_bias=True)]
    y = helper.create_variable_for_type_inference(input.dtype)
    mean, variance = (helper.create_variable_for_type_inference(input.dtype,
                                                                stop_gradient=True)
                      for _ in range(2))
    helper.append_op(type="group_norm", inputs=inputs,
                     outputs={"Y": [y], "Mean": [mean], "Variance": [variance]},
                     attrs={"epsilon": float(epsilon), "groups": int(groups),
                            "data_layout": data_layout})
    return helper.append_activation(y, act)


_GROUP_NORM_LAYOUTS = ("NCL", "NCHW", "NCDHW", "NLC", "NHWC", "NDHWC")


def functional_group_norm(*args, **kwargs):
    """paddle.nn.functional.group_norm (Paddle 3), in its two call forms as 3.3.1 tells
    them apart: (x, num_groups, epsilon=1e-05, weight=None, bias=None, data_format='NCHW',
    name=None), or torch's (input, num_groups, weight=None, bias=None, eps=1e-05) when a
    third positional argument is no float (or input= / eps= are given by name)."""
    if len(args) + len(kwargs) < 2:
        raise TypeError("group_norm: too few arguments: takes (x, num_groups, epsilon, "
                        "weight, bias, data_format, name) or (input, num_groups, weight, "
                        "bias, eps)")
    for torch_name, name in (("input", "x"), ("eps", "epsilon")):
        if torch_name in kwargs:
            if name in kwargs:
                raise TypeError("group_norm: got multiple values for argument %r" % name)
            kwargs[name] = kwargs.pop(torch_name)
    if len(args) >= 3 and not isinstance(args[2], float):
        for name, value in zip(("weight", "bias", "epsilon"), args[2:]):
            if name in kwargs:
                raise TypeError("group_norm: got multiple values for argument %r" % name)
            kwargs[name] = value
        args = args[:2]
    return _group_norm(*args, **kwargs)


def _group_norm(x, num_groups, epsilon=1e-05, weight=None, bias=None, data_format="NCHW",
                name=None):
    check_variable(x, "x", "group_norm")
    if data_format not in _GROUP_NORM_LAYOUTS:
        raise ValueError("group_norm: data_format must be one of %s, got %r"
                         % (list(_GROUP_NORM_LAYOUTS), data_format))
    inputs = {"X": [x]}
    if weight is not None:
        inputs["Scale"] = [weight]
    if bias is not None:
        inputs["Bias"] = [bias]
    return append_op_out("group_norm", inputs,
                         {"epsilon": float(epsilon), "groups": int(num_groups),
                          "data_layout": "NCHW" if data_format[1] == "C" else "NHWC"},
                         name, out_slot="Y", extra_outputs=[("Mean", None),
                                                            ("Variance", None)])[0]


def fluid_dropout(x, dropout_prob, is_test=None, seed=None, name=None,
                  dropout_implementation="downgrade_in_infer"):
    """fluid.layers.dropout. With no `seed`, a nonzero Program.random_seed fixes it, as in
    Paddle; a fixed seed draws the same mask every run. is_test None (2.0's default; 1.8's
    is False): eagerly, the tracer's train mode decides (Layer.eval() turns dropout off),
    in a program it is False (the op's default), as in Paddle 2.0."""
    if is_test is None:
        eager = mode.eager is not None and isinstance(x, mode.eager.Tensor)
        is_test = eager and not mode.train_mode
    check_variable(x, "x", "dropout")
    if dropout_implementation not in ("downgrade_in_infer", "upscale_in_train"):
        raise ValueError("dropout: dropout_implementation must be 'downgrade_in_infer' or "
                         "'upscale_in_train', got %r" % (dropout_implementation,))
    helper = LayerHelper("dropout", name=name)     # one dropout_N name, as Paddle's
    program_seed = helper.main_program.random_seed
    if not seed and program_seed:
        seed = program_seed
    out, _ = append_op_out("dropout", {"X": [x]},
                           {"dropout_prob": real_arg("dropout", "dropout_prob", dropout_prob),
                            "is_test": is_test,
                            "fix_seed": seed is not None, "seed": seed or 0,
                            "dropout_implementation": dropout_implementation},
                           helper.name, extra_outputs=[("Mask", "uint8")])
    return out


def check_dropout_mode(api, mode):
    if mode not in ("upscale_in_train", "downscale_in_infer"):
        raise ValueError("%s: mode must be 'upscale_in_train' or 'downscale_in_infer', got %r"
                         % (api, mode))


def dropout(x, p=0.5, axis=None, training=True, mode="upscale_in_train", name=None):
    """paddle.nn.functional.dropout. p = 0 returns x itself and adds no op, as Paddle 2.x /
    3 do (a Transformer built with dropout 0 then pays for no dropout ops, forward or
    backward). `axis` (an int or a list) drops whole slices: one uniform draw per index of
    those axes, broadcast over the others, as Paddle 2.0 composes it."""
    p = real_arg("dropout", "p", p)
    if p == 0:
        return x
    check_dropout_mode("dropout", mode)
    if axis is not None:
        return _dropout_along(x, p, axis, training, mode, name)
    impl = "downgrade_in_infer" if mode == "downscale_in_infer" else mode
    return fluid_dropout(x, p, is_test=not training, name=name, dropout_implementation=impl)


def _dropout_along(x, p, axis, training, mode, name):
    from .creation import full, uniform
    from .math import cast, scale
    check_variable(x, "x", "dropout")
    shape = list(x.shape)
    axes = [axis] if isinstance(axis, int) else list(axis)
    if not axes or len(axes) > len(shape) or not all(
            isinstance(a, int) and 0 <= a < len(shape) for a in axes):
        raise ValueError("dropout: axis must be ints in [0, %d) for x %r of shape %s, got %r"
                         % (len(shape), x.name, shape, axis))
    if not training:
        return x if mode == "upscale_in_train" else scale(x, 1.0 - p, name=name)
    mask_shape = [shape[i] if i in axes else 1 for i in range(len(shape))]
    if any(d < 0 for d in mask_shape):
        raise ValueError("dropout: x %r has shape %s; the axes %s to drop along must be known"
                         % (x.name, shape, axes))
    keep = append_op_out("greater_equal", {"X": [uniform(mask_shape, "float32", 0.0, 1.0)],
                                           "Y": [full([1], p, "float32")]}, {"axis": -1})
    kept = x if mode == "downscale_in_infer" else scale(x, 1.0 / (1.0 - p))
    return append_op_out("elementwise_mul", {"X": [kept], "Y": [cast(keep, x.dtype)]},
                         {"axis": -1}, name)


# data_norm's parameters: (suffix, key of a dict param_attr, default)
DATA_NORM_STATS = (("batch_size", "batch_size", 1e4), ("batch_sum", "batch_sum", 0.0),
                   ("batch_square_sum", "batch_square", 1e4))


def data_norm(input, act=None, epsilon=1e-05, param_attr=None, data_layout="NCHW",
              in_place=False, name=None, moving_mean_name=None, moving_variance_name=None,
              do_model_average_for_mean_and_var=True, slot_dim=-1, sync_stats=False,
              summary_decay_rate=0.9999999, enable_scale_and_shift=False):
    """fluid.layers.data_norm (1.8): the data_norm op (ops/data_norm.py) on input [N, C]
    with trainable parameters `<name>.batch_size` / `.batch_sum` / `.batch_square_sum` [C]
    (name defaults to "dn", so unnamed data_norms share them, as in Paddle 1.8), initialized
    from a dict param_attr's batch_size / batch_sum / batch_square (1e4, 0, 1e4); with
    enable_scale_and_shift also `.scale_w` and `.bias` (its scale_w / bias, 1 and 0). An
    optimizer's step applies the statistics the grad op reports to them."""
    check_variable(input, "input", "data_norm")
    if data_layout not in ("NCHW", "NHWC"):
        raise ValueError("data_norm: unsupported data layout %r (NCHW or NHWC)" % (data_layout,))
    if len(input.shape) < 2:
        raise ValueError("data_norm: input %r must be [N, C], got shape %s"
                         % (input.name, list(input.shape)))
    helper = LayerHelper("data_norm", name=name)
    channels = input.shape[1] if data_layout == "NCHW" else input.shape[-1]
    values = param_attr if isinstance(param_attr, dict) else {}
    name = name or "dn"

    def parameter(suffix, default):
        return helper.create_parameter(
            ParamAttr(name="%s.%s" % (name, suffix), initializer=Constant(float(default)),
                      trainable=True), [channels], input.dtype)
    inputs = {"X": [input]}
    if enable_scale_and_shift:      # made first, as Paddle 1.8 orders its parameters
        inputs["scale_w"] = [parameter("scale_w", values.get("scale_w", 1.0))]
        inputs["bias"] = [parameter("bias", values.get("bias", 0.0))]
    for slot, (suffix, key, default) in zip(("BatchSize", "BatchSum", "BatchSquareSum"),
                                            DATA_NORM_STATS):
        inputs[slot] = [parameter(suffix, values.get(key, default))]
    dtype = input.dtype
    y = input if in_place else helper.create_variable_for_type_inference(dtype)
    means, scales = (helper.create_variable_for_type_inference(dtype, stop_gradient=True)
                     for _ in range(2))
    attrs = {"epsilon": float(epsilon), "sync_stats": bool(sync_stats),
             "summary_decay_rate": float(summary_decay_rate), "data_layout": data_layout,
             "slot_dim": int(slot_dim), "enable_scale_and_shift": bool(enable_scale_and_shift)}
    helper.append_op(type="data_norm", inputs=inputs,
                     outputs={"Y": [y], "Means": [means], "Scales": [scales]}, attrs=attrs)
    return helper.append_activation(y, act)


EXPORTS = {
    "fluid.layers": {"batch_norm": batch_norm, "layer_norm": layer_norm, "data_norm": data_norm,
                     "group_norm": group_norm, "dropout": fluid_dropout},
    "static.nn": {"batch_norm": batch_norm, "layer_norm": layer_norm, "group_norm": group_norm},
    "nn.functional": {"dropout": dropout, "batch_norm": functional_batch_norm,
                      "layer_norm": functional_layer_norm, "group_norm": functional_group_norm},
    # Paddle 3's top-level names of the functional norms
    "paddle": {"layer_norm": functional_layer_norm, "group_norm": functional_group_norm},
}
