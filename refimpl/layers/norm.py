"""batch_norm, layer_norm, dropout, embedding layers."""
import numpy as np

from ..framework.initializer import Constant
from ..framework.layer_helper import LayerHelper
from ..framework.param_attr import ParamAttr
from .common import append_op_out, check_variable


def batch_norm(input, act=None, is_test=False, momentum=0.9, epsilon=1e-05, param_attr=None,
               bias_attr=None, data_layout="NCHW", in_place=False, name=None,
               moving_mean_name=None, moving_variance_name=None,
               do_model_average_for_mean_and_var=True, use_global_stats=False):
    """Scale (init 1) and Bias (init 0) are trainable; the running mean/variance are
    persistable non-trainable parameters (`<name>.w_1`, `.w_2`) updated by the op."""
    check_variable(input, "input", "batch_norm")
    helper = LayerHelper("batch_norm", name=name)
    c = input.shape[1] if data_layout == "NCHW" and len(input.shape) > 2 else input.shape[-1]
    dtype = input.dtype
    scale = helper.create_parameter(param_attr, [c], dtype, default_initializer=Constant(1.0))
    bias = helper.create_parameter(bias_attr, [c], dtype, is_bias=True)
    mean = helper.create_parameter(ParamAttr(name=moving_mean_name, trainable=False), [c],
                                   dtype, default_initializer=Constant(0.0))
    var = helper.create_parameter(ParamAttr(name=moving_variance_name, trainable=False), [c],
                                  dtype, default_initializer=Constant(1.0))
    y = helper.create_variable_for_type_inference(dtype)
    saved_mean = helper.create_variable_for_type_inference(dtype, stop_gradient=True)
    saved_var = helper.create_variable_for_type_inference(dtype, stop_gradient=True)
    helper.append_op(type="batch_norm",
                     inputs={"X": [input], "Scale": [scale], "Bias": [bias], "Mean": [mean],
                             "Variance": [var]},
                     outputs={"Y": [y], "MeanOut": [mean], "VarianceOut": [var],
                              "SavedMean": [saved_mean], "SavedVariance": [saved_var]},
                     attrs={"momentum": float(momentum), "epsilon": float(epsilon),
                            "is_test": is_test, "data_layout": data_layout,
                            "use_global_stats": use_global_stats})
    return helper.append_activation(y, act)


def static_batch_norm(input, act=None, is_test=False, momentum=0.9, epsilon=1e-05,
                      param_attr=None, bias_attr=None, data_layout="NCHW", in_place=False,
                      name=None, moving_mean_name=None, moving_variance_name=None,
                      do_model_average_for_mean_and_var=True, use_global_stats=False):
    return batch_norm(input, act, is_test, momentum, epsilon, param_attr, bias_attr,
                      data_layout, in_place, name, moving_mean_name, moving_variance_name,
                      do_model_average_for_mean_and_var, use_global_stats)


def layer_norm(input, scale=True, shift=True, begin_norm_axis=1, epsilon=1e-05,
               param_attr=None, bias_attr=None, act=None, name=None):
    check_variable(input, "input", "layer_norm")
    helper = LayerHelper("layer_norm", name=name)
    size = int(np.prod(input.shape[begin_norm_axis:]))
    inputs = {"X": [input]}
    if scale:
        inputs["Scale"] = [helper.create_parameter(param_attr, [size], input.dtype,
                                                   default_initializer=Constant(1.0))]
    if shift:
        inputs["Bias"] = [helper.create_parameter(bias_attr, [size], input.dtype,
                                                  is_bias=True)]
    y = helper.create_variable_for_type_inference(input.dtype)
    m = helper.create_variable_for_type_inference(input.dtype, stop_gradient=True)
    v = helper.create_variable_for_type_inference(input.dtype, stop_gradient=True)
    helper.append_op(type="layer_norm", inputs=inputs,
                     outputs={"Y": [y], "Mean": [m], "Variance": [v]},
                     attrs={"epsilon": float(epsilon), "begin_norm_axis": begin_norm_axis})
    return helper.append_activation(y, act)


def fluid_dropout(x, dropout_prob, is_test=False, seed=None, name=None,
                  dropout_implementation="downgrade_in_infer"):
    out, _ = append_op_out("dropout", {"X": [x]},
                           {"dropout_prob": float(dropout_prob), "is_test": is_test,
                            "fix_seed": seed is not None, "seed": seed or 0,
                            "dropout_implementation": dropout_implementation},
                           name, extra_outputs=[("Mask", "uint8")])
    return out


def dropout(x, p=0.5, axis=None, training=True, mode="upscale_in_train", name=None):
    if axis is not None:
        raise NotImplementedError("dropout: `axis` is not supported")
    mode = {"downscale_in_infer": "downgrade_in_infer"}.get(mode, mode)
    return fluid_dropout(x, p, is_test=not training, name=name, dropout_implementation=mode)


def embedding(input, size, is_sparse=False, is_distributed=False, padding_idx=None,
              param_attr=None, dtype="float32"):
    """fluid.layers.embedding: Ids [N, 1] -> [N, size[1]] (lookup_table)."""
    return _embedding("lookup_table", input, size, padding_idx, param_attr, dtype)


def static_embedding(input, size, is_sparse=False, is_distributed=False, padding_idx=None,
                     param_attr=None, dtype="float32"):
    """paddle.static.nn.embedding: Ids of any shape -> shape + [size[1]] (lookup_table_v2)."""
    return _embedding("lookup_table_v2", input, size, padding_idx, param_attr, dtype)


def _embedding(op_type, ids, size, padding_idx, param_attr, dtype):
    helper = LayerHelper("embedding")
    w = helper.create_parameter(param_attr, list(size), dtype)
    pad = -1 if padding_idx is None else (padding_idx if padding_idx >= 0
                                          else size[0] + padding_idx)
    return append_op_out(op_type, {"W": [w], "Ids": [ids]}, {"padding_idx": pad},
                         out_dtype=dtype)


def functional_embedding(x, weight, padding_idx=None, sparse=False, name=None):
    pad = -1 if padding_idx is None else padding_idx
    return append_op_out("lookup_table_v2", {"W": [weight], "Ids": [x]}, {"padding_idx": pad},
                         name, out_dtype=weight.dtype)


EXPORTS = {
    "fluid.layers": {"batch_norm": batch_norm, "layer_norm": layer_norm,
                     "dropout": fluid_dropout, "embedding": embedding},
    "static.nn": {"batch_norm": static_batch_norm, "layer_norm": layer_norm,
                  "embedding": static_embedding},
    "nn.functional": {"dropout": dropout, "embedding": functional_embedding},
}
