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


CustomOpLists = AutoMixedPrecisionLists     # Paddle 2.0 name
