"""The op types whose references compute with the array module of their inputs
(refimpl.xp.array_module, or numpy functions that dispatch to it): on a GPU they run on CuPy
arrays as they are, the others on host copies (specs/gpu.md). tests/test_gpu_shim.py runs
every listed op's samples, forward and backward, on GPU-like arrays that refuse the host; a
reference that starts making host arrays fails there before it fails on a GPU."""

XP_GENERIC = frozenset((
    "abs", "acos", "adagrad", "adam", "adamax", "adamw", "addmm", "affine_channel", "argsort",
    "asin", "assign", "atan", "batch_fc", "batch_norm", "bce_loss", "bilinear_tensor_product",
    "bmm",
    "brelu", "ceil", "clip", "cos", "cosh", "cross", "cvm", "dropout", "elementwise_add",
    "elementwise_div", "elementwise_max", "elementwise_min", "elementwise_mul",
    "elementwise_pow", "elementwise_sub", "elu", "equal", "exp", "expand", "flatten2",
    "flatten_contiguous_range", "floor", "fsp", "greater_equal", "greater_than", "group_norm",
    "gru_unit", "hard_shrink", "hard_sigmoid", "hard_swish", "histogram", "huber_loss",
    "increment", "instance_norm", "iou_similarity", "isfinite_v2", "isinf_v2", "isnan_v2",
    "kron", "layer_norm", "leaky_relu", "less_equal", "less_than", "log", "log10", "log1p",
    "log2", "log_softmax", "logsigmoid", "logsumexp", "lookup_table", "lookup_table_v2",
    "lstm_unit", "matmul", "matmul_v2", "maxout", "mean", "momentum", "mul", "mv", "norm",
    "not_equal", "p_norm", "pad_constant_like", "pow", "reciprocal", "reduce_all",
    "reduce_any", "reduce_max", "reduce_mean", "reduce_min", "reduce_prod", "reduce_sum",
    "relu", "relu6", "reshape2", "rmsprop", "rnn", "roll", "round", "rsqrt", "scale", "selu",
    "sgd", "sigmoid", "sign", "sin", "sinh", "smooth_l1_loss", "soft_relu", "softmax",
    "softplus", "softshrink", "softsign", "sqrt", "square", "squeeze2", "stanh", "sum",
    "swish", "tan", "tanh", "tanh_shrink", "teacher_student_sigmoid_loss", "thresholded_relu",
    "tile", "transpose2", "unsqueeze2",
))
