"""AutoMixedPrecisionLists (Paddle 1.8): which op types run in float16 (white), stay in
float32 (black), or follow the ops that produce their inputs (gray); every other op type
counts as black. The three default sets are Paddle 1.8.5's."""
import copy

__all__ = ["CustomOpLists", "AutoMixedPrecisionLists"]

WHITE_LIST = {"conv2d", "matmul", "mul"}
BLACK_LIST = {"exp", "square", "log", "mean", "sum", "cos_sim", "softmax",
              "softmax_with_cross_entropy", "sigmoid_cross_entropy_with_logits",
              "cross_entropy", "cross_entropy2"}
GRAY_LIST = {"elementwise_add", "elementwise_sub", "elementwise_mul", "elementwise_div",
             "elementwise_max", "elementwise_min", "elementwise_pow", "elementwise_mod",
             "elementwise_floordiv", "batch_norm", "tanh", "sigmoid", "lookup_table", "top_k",
             "pool2d", "pool3d", "dropout", "relu", "relu6", "leaky_relu", "soft_relu",
             "flatten2", "stack", "unstack", "uniform_random_batch_size_like",
             "gaussian_random", "gaussian_random_batch_size_like", "slice", "rank", "scale",
             "transpose2", "reshape2", "gather", "fill_constant",
             "get_tensor_from_selected_rows", "sign", "cast"}


# op types pure-float16 training (Paddle 2.0's cast_model_to_fp16) keeps in float32: no
# float16 kernel in Paddle 2.0 (its unsupported_fp16_list)
UNSUPPORTED_LIST = {
    "send", "send_barrier", "recv", "fetch_barrier", "create_py_reader",
    "create_double_buffer_reader", "read", "load", "increment", "less_than", "less_equal",
    "greater_than", "greater_equal", "equal", "not_equal", "read_from_array",
    "shrink_rnn_memory", "lod_array_length", "logical_and", "logical_or", "logical_xor",
    "logical_not", "print", "conditional_block", "while", "ifelse", "is_empty", "lstm",
    "cudnn_lstm", "lstmp", "gru", "gru_unit", "linear_chain_crf", "crf_decoding",
    "bpr_loss", "chunk_eval", "sequence_conv", "sequence_softmax", "depthwise_conv2d",
    "conv3d", "sequence_pool", "sequence_concat", "sequence_slice", "data_norm",
    "group_norm", "spectral_norm", "depthwise_conv2d_transpose", "sequence_expand",
    "conv_transposed2d", "conv_transposed3d", "sequence_expand_as", "sequence_pad",
    "sequence_unpad", "sequence_erase", "beam_search", "beam_search_decode", "lstm_unit",
    "reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_prod", "reduce_all",
    "reduce_any", "split", "edit_distance", "ctc_align", "warpctc", "sequence_reshape",
    "nce", "hierarchical_sigmoid", "im2sequence", "row_conv", "multiplex", "sample_logits",
    "one_hot", "smooth_l1_loss", "squeeze2", "unsqueeze2", "lod_reset", "lrn", "pad",
    "pad_constant_like", "label_smooth", "scatter", "sequence_scatter", "random_crop",
    "mean_iou", "selu", "crop", "affine_grid", "rank_loss", "margin_rank_loss", "pad2d",
    "elu", "pow", "stanh", "hard_sigmoid", "swish", "prelu", "brelu", "sequence_enumerate",
    "sequence_mask", "expand", "sampling_id", "maxout", "space_to_depth",
    "sequence_reverse", "similarity_focus", "hash", "grid_sampler", "log_loss",
    "teacher_student_sigmoid_loss", "add_position_encoding", "bilinear_tensor_product",
    "shuffle_channel", "temporal_shift", "psroi_pool", "huber_loss", "kldiv_loss",
    "tree_conv", "pixel_shuffle", "fsp", "cvm", "affine_channel", "roi_pool", "roi_align",
    "anchor_generator", "generate_proposals", "generate_proposal_labels",
    "generate_mask_labels",
}


class AutoMixedPrecisionLists:
    """The default lists with custom_white_list's op types moved to white and
    custom_black_list's to black (both naming one type: ValueError); custom_black_varnames:
    ops reading or writing one of these variables stay in float32."""

    def __init__(self, custom_white_list=None, custom_black_list=None,
                 custom_black_varnames=None):
        self._custom_white_list = custom_white_list
        self._custom_black_list = custom_black_list
        self.white_list = copy.copy(WHITE_LIST)
        self.black_list = copy.copy(BLACK_LIST)
        self.gray_list = copy.copy(GRAY_LIST)
        self.unsupported_list = copy.copy(UNSUPPORTED_LIST)
        self.black_varnames = copy.copy(custom_black_varnames)
        self._update_list()

    def _update_list(self):
        white, black = self._custom_white_list or (), self._custom_black_list or ()
        if set(white) & set(black):
            raise ValueError("Custom white list overlap custom black list")
        for op_type in white:
            self.black_list.discard(op_type)
            self.gray_list.discard(op_type)
            self.white_list.add(op_type)
        for op_type in black:
            self.white_list.discard(op_type)
            self.gray_list.discard(op_type)
            self.black_list.add(op_type)
            self.unsupported_list.add(op_type)     # Paddle 2.0: pure float16 keeps them too


CustomOpLists = AutoMixedPrecisionLists     # Paddle 2.0 name
