"""fluid.core.PassVersionChecker.IsCompatible(pass): whether an inference IR pass's
op-version conditions hold for the op definitions of the release (Paddle 2.0's
REGISTER_PASS_CAPABILITY: a pass is compatible when one of its combinations of op-version
comparisons all hold; a pass registered without a capability is not compatible).

The tables are facts of Paddle 2.0 (commit 2967624b: framework/ir/*_pass.cc, and the
operators' REGISTER_OP_VERSION checkpoints, an op without one at version 0). They describe
Paddle's passes; refimpl's predictor does not run them (specs/inference.md#passes)."""
import operator

__all__ = ["PassVersionChecker", "PASS_CAPABILITIES", "OP_VERSIONS"]

# the versions of the ops the passes below name (2.0: one checkpoint each, fill_constant 2)
OP_VERSIONS = {"conv2d": 1, "conv2d_transpose": 1, "elementwise_add": 1,
               "elementwise_mul": 1, "elementwise_sub": 1, "fill_constant": 2, "matmul": 1,
               "fusion_gru": 1, "leaky_relu": 1, "lookup_table_v2": 1,
               "fake_channel_wise_quantize_abs_max": 1}

_EQ, _LE = operator.eq, operator.le
_CONV_ADD = (("conv2d", _LE, 1), ("elementwise_add", _LE, 1))
# pass: its one combination of (op, comparison, version); every pass of a CPU build (no
# MKLDNN, no TensorRT: their passes are not built there, and so not registered)
PASS_CAPABILITIES = {
    "adaptive_pool2d_convert_global_pass": (("pool2d", _EQ, 0),),
    # (2.0 spells it "elementweise_add": an op without a checkpoint, version 0)
    "embedding_eltwise_layernorm_fuse_pass": (("lookup_table", _EQ, 0),
                                              ("elementweise_add", _EQ, 0)),
    "multihead_matmul_fuse_pass_v2": (("mul", _EQ, 0), ("elementwise_add", _LE, 1),
                                      ("reshape2", _EQ, 0), ("transpose2", _EQ, 0),
                                      ("scale", _EQ, 0), ("matmul", _LE, 1),
                                      ("softmax", _EQ, 0)),
    "quant_conv2d_dequant_fuse_pass": (("conv2d", _LE, 1), ("fc", _EQ, 0),
                                       ("conv2d_transpose", _LE, 1),
                                       ("fake_quantize_abs_max", _EQ, 0),
                                       ("fake_quantize_range_abs_max", _EQ, 0),
                                       ("fake_quantize_moving_average_abs_max", _EQ, 0),
                                       ("fake_channel_wise_quantize_abs_max", _LE, 1),
                                       ("fake_dequantize_max_abs", _EQ, 0)),
    "seqconv_eltadd_relu_fuse_pass": (("sequence_conv", _EQ, 0), ("elementwise_add", _LE, 1),
                                      ("relu", _EQ, 0)),
    "shuffle_channel_detect_pass": (("reshape2", _EQ, 0), ("transpose2", _EQ, 0)),
    "skip_layernorm_fuse_pass": (("elementwise_add", _LE, 1), ("layer_norm", _EQ, 0)),
    "unsqueeze2_eltwise_fuse_pass": (("unsqueeze2", _EQ, 0), ("elementwise_mul", _LE, 1)),
    "conv_affine_channel_fuse_pass": (("conv2d", _LE, 1), ("affine_channel", _EQ, 0)),
    "conv_eltwiseadd_affine_channel_fuse_pass": _CONV_ADD + (("affine_channel", _EQ, 0),),
    "conv_bn_fuse_pass": (("conv2d", _LE, 1), ("batch_norm", _EQ, 0)),
    "conv_eltwiseadd_bn_fuse_pass": _CONV_ADD + (("batch_norm", _EQ, 0),),
    "conv_elementwise_add_fuse_pass": _CONV_ADD,
    "conv_elementwise_add_act_fuse_pass": _CONV_ADD + (("relu", _EQ, 0),
                                                       ("identity", _EQ, 0)),
    "conv_elementwise_add2_act_fuse_pass": _CONV_ADD + (("relu", _EQ, 0),
                                                        ("identity", _EQ, 0)),
    "fc_fuse_pass": (("mul", _EQ, 0), ("elementwise_add", _LE, 1), ("relu", _EQ, 0),
                     ("fc", _EQ, 0)),
    "fc_gru_fuse_pass": (("mul", _EQ, 0), ("elementwise_add", _LE, 1), ("gru", _EQ, 0),
                         ("fusion_gru", _LE, 1)),
    "mul_gru_fuse_pass": (("mul", _EQ, 0), ("gru", _EQ, 0), ("fusion_gru", _LE, 1)),
    "fc_lstm_fuse_pass": (("mul", _EQ, 0), ("elementwise_add", _LE, 1), ("lstm", _EQ, 0),
                          ("fusion_lstm", _EQ, 0)),
    "mul_lstm_fuse_pass": (("mul", _EQ, 0), ("lstm", _EQ, 0), ("fusion_lstm", _EQ, 0)),
    "embedding_fc_lstm_fuse_pass": (("lookup_table_v2", _EQ, 0), ("mul", _EQ, 0),
                                    ("elementwise_add", _LE, 1), ("lstm", _EQ, 0),
                                    ("fused_embedding_fc_lstm", _EQ, 0)),
    "repeated_fc_relu_fuse_pass": (("fc", _EQ, 0), ("relu", _EQ, 0)),
    "seq_concat_fc_fuse_pass": (("sequence_expand", _EQ, 0), ("concat", _EQ, 0),
                                ("mul", _EQ, 0), ("elementwise_add", _LE, 1),
                                ("sigmoid", _EQ, 0), ("tanh", _EQ, 0), ("relu", _EQ, 0),
                                ("identity", _EQ, 0),
                                ("fusion_seqexpand_concat_fc", _EQ, 0)),
    "squared_mat_sub_fuse_pass": (("matmul", _LE, 1), ("matmul_v2", _EQ, 0),
                                  ("square", _EQ, 0), ("elementwise_mul", _LE, 1),
                                  ("elementwise_sub", _LE, 1), ("fill_constant", _LE, 2),
                                  ("fusion_squared_mat_sub", _EQ, 0)),
    "transpose_flatten_concat_fuse_pass": (("transpose", _EQ, 0), ("transpose2", _EQ, 0),
                                           ("flatten", _EQ, 0), ("concat", _EQ, 0),
                                           ("fusion_transpose_flatten_concat", _EQ, 0)),
    "map_matmul_to_mul_pass": (("matmul", _LE, 1), ("mul", _EQ, 0)),
    "squeeze2_matmul_fuse_pass": (("matmul", _LE, 1), ("squeeze2", _EQ, 0), ("mul", _EQ, 0)),
    "reshape2_matmul_fuse_pass": (("matmul", _LE, 1), ("reshape2", _EQ, 0), ("mul", _EQ, 0)),
    "flatten2_matmul_fuse_pass": (("matmul", _LE, 1), ("flatten2", _EQ, 0), ("mul", _EQ, 0)),
}


class PassVersionChecker:
    @staticmethod
    def IsCompatible(pass_name):
        conditions = PASS_CAPABILITIES.get(pass_name)
        if conditions is None:
            return False
        return all(compare(OP_VERSIONS.get(op, 0), version)
                   for op, compare, version in conditions)
