"""paddle.nn.functional, and its submodules as Paddle has them (common, loss, pooling, ...:
paddle.nn.functional.common.interpolate); membership measured on Paddle 3.3.1 (the module
each function is defined in), limited to the functions refimpl has."""
from ..layers import exports
from ..submodules import group

globals().update(exports("nn.functional"))
__all__ = sorted(exports("nn.functional"))

SUBMODULES = {
    "activation": ["celu", "elu", "elu_", "gelu", "glu", "gumbel_softmax", "hardshrink",
                   "hardsigmoid", "hardswish", "hardtanh", "hardtanh_", "leaky_relu",
                   "leaky_relu_", "log_sigmoid", "log_softmax", "logsigmoid", "maxout",
                   "mish", "prelu", "relu", "relu6", "relu_", "rrelu", "selu", "sigmoid",
                   "silu", "softmax", "softmax_", "softplus", "softshrink", "softsign",
                   "swiglu", "swish", "tanh", "tanh_", "tanhshrink", "thresholded_relu",
                   "thresholded_relu_"],
    "common": ["alpha_dropout", "bilinear", "cosine_similarity", "dropout", "dropout1d",
               "dropout2d", "dropout3d", "feature_alpha_dropout", "fold", "interpolate",
               "label_smooth", "linear", "pad", "unfold", "upsample", "zeropad2d"],
    "conv": ["conv1d", "conv1d_transpose", "conv2d", "conv2d_transpose", "conv3d",
             "conv3d_transpose"],
    "distance": ["pairwise_distance", "pdist"],
    "extension": ["diag_embed", "gather_tree", "sequence_mask", "temporal_shift"],
    "input": ["embedding", "one_hot"],
    "loss": ["adaptive_log_softmax_with_loss", "binary_cross_entropy",
             "binary_cross_entropy_with_logits", "cosine_embedding_loss", "cross_entropy",
             "ctc_loss", "dice_loss", "gaussian_nll_loss", "hinge_embedding_loss",
             "hsigmoid_loss", "kl_div", "l1_loss", "log_loss", "margin_ranking_loss",
             "mse_loss", "multi_label_margin_loss", "multi_label_soft_margin_loss",
             "multi_margin_loss", "nll_loss", "npair_loss", "poisson_nll_loss",
             "sigmoid_focal_loss", "smooth_l1_loss", "soft_margin_loss",
             "softmax_with_cross_entropy", "square_error_cost", "triplet_margin_loss",
             "triplet_margin_with_distance_loss"],
    "norm": ["batch_norm", "group_norm", "instance_norm", "layer_norm",
             "local_response_norm", "normalize"],
    "pooling": ["adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d",
                "adaptive_max_pool1d", "adaptive_max_pool2d", "adaptive_max_pool3d",
                "avg_pool1d", "avg_pool2d", "avg_pool3d", "fractional_max_pool2d",
                "fractional_max_pool3d", "lp_pool1d", "lp_pool2d", "max_pool1d", "max_pool2d",
                "max_pool3d", "max_unpool1d", "max_unpool2d", "max_unpool3d"],
    "sdpa": ["scaled_dot_product_attention"],   # Paddle 3's F.sdpa is this module
    "vision": ["affine_grid", "channel_shuffle", "grid_sample", "pixel_shuffle",
               "pixel_unshuffle"],
    "transformer": [],      # 2.0's module of that name is empty
}
globals().update(group(__name__, globals(), SUBMODULES))
