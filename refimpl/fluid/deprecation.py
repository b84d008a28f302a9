"""Deprecation notes: Paddle 2.0's `paddle.utils.deprecated` puts a paragraph
'Warning: API "module.name" is deprecated since 2.0.0, and will be removed in future
versions. Please use "paddle.x" instead.' on top of the API's docstring (2.0 returns the
function itself, warning nothing when called). DEPRECATED_IN_2 lists the fluid and
fluid.layers APIs 2.0's source marks so (python/paddle/fluid/data.py, input.py, whose
functions fluid exports too, and fluid/layers/*.py); fluid.io's save / load_inference_model,
also marked there, are not noted here."""
import functools

# fluid namespace -> {name: (since, update_to, reason)}
DEPRECATED_IN_2 = {
    "fluid": {
        "data": ("2.0.0", "paddle.static.data", ""),
    },
    "fluid.input": {         # also fluid.one_hot / fluid.embedding, the same functions
        "one_hot": ("2.0.0", "paddle.nn.functional.one_hot", ""),
        "embedding": ("2.0.0", "paddle.nn.functional.embedding", ""),
    },
    "fluid.layers": {
        "embedding": ("2.0.0", "paddle.nn.functional.embedding", ""),
        "dropout": ("2.0.0", "paddle.nn.functional.dropout", ""),
        "softmax": ("2.0.0", "paddle.nn.functional.softmax", ""),
        "adaptive_pool2d": ("2.0.0", "", ""),
        "adaptive_pool3d": ("2.0.0", "", ""),
        "reduce_mean": ("2.0.0", "paddle.mean", ""),
        "matmul": ("2.0.0", "paddle.matmul", ""),
        "one_hot": ("2.0.0", "paddle.nn.functional.one_hot", ""),
        "gather": ("2.0.0", "paddle.gather", ""),
        "gather_nd": ("2.0.0", "paddle.gather_nd", ""),
        "scatter": ("2.0.0", "paddle.scatter", ""),
        "relu": ("2.0.0", "paddle.nn.functional.relu", ""),
        "selu": ("2.0.0", "paddle.nn.functional.selu", ""),
        "elu": ("2.0.0", "paddle.nn.functional.elu", ""),
        "relu6": ("2.0.0", "paddle.nn.functional.relu6", ""),
        "prelu": ("2.0.0", "paddle.static.nn.prelu", ""),
        "leaky_relu": ("2.0.0", "paddle.nn.functional.leaky_relu", ""),
        "expand": ("2.0.0", "paddle.expand", ""),
        "expand_as": ("2.0.0", "paddle.expand_as", ""),
        "uniform_random_batch_size_like": ("1.8.0", "paddle.uniform", ""),
        "gaussian_random": ("2.0.0", "paddle.normal", ""),
        "gaussian_random_batch_size_like": ("1.8.0", "paddle.normal", ""),
        "strided_slice": ("2.0.0", "paddle.strided_slice", ""),
        "size": ("2.0.0", "paddle.numel", ""),
        "elementwise_div": ("2.0.0", "paddle.divide", ""),
        "elementwise_mul": ("2.0.0", "paddle.multiply", ""),
        "elementwise_mod": ("2.0.0", "paddle.remainder", ""),
        "elementwise_floordiv": ("2.0.0", "paddle.floor_divide", ""),
        "mean": ("2.0.0", "paddle.mean", ""),
        "maxout": ("2.0.0", "paddle.nn.functional.maxout", ""),
        "sign": ("2.0.0", "paddle.sign", ""),
        "shard_index": ("2.0.0", "paddle.shard_index", ""),
        "uniform_random": ("2.0.0", "paddle.uniform", ""),
        "hard_shrink": ("2.0.0", "paddle.nn.functional.hardshrink", ""),
        "cumsum": ("2.0.0", "paddle.cumsum", "New APIs for Paddle 2.0 are coming."),
        "gelu": ("2.0.0", "paddle.nn.functional.gelu", ""),
        "kldiv_loss": ("2.0.0", "paddle.nn.functional.kl_div", ""),
        "fill_constant_batch_size_like": ("1.8.0", "paddle.fluid.layers.fill_constant", ""),
        "diag": ("2.0.0", "paddle.diag", ""),
        "triu": ("2.0.0", "paddle.triu", ""),
        "yolov3_loss": ("2.0.0", "paddle.vision.ops.yolo_loss", ""),
        "yolo_box": ("2.0.0", "paddle.vision.ops.yolo_box", ""),
        "lstm": ("2.0.0", "paddle.nn.LSTM", "This API may occur CUDNN errors."),
    },
}


def deprecation_message(func, since="", update_to="", reason=""):
    """Paddle's text: 'API "module.name" is deprecated[ since S], and will be removed in
    future versions.[ Please use "U" instead.][\\n reason: R]'."""
    message = 'API "%s.%s" is deprecated' % (func.__module__, func.__name__)
    if since:
        message += " since %s" % since
    message += ", and will be removed in future versions."
    if update_to:
        message += ' Please use "%s" instead.' % update_to
    if reason:
        message += "\n reason: %s" % reason
    return message


def with_note(doc, message):
    """`doc` with Paddle's deprecation paragraph on top (a function without a docstring
    keeps none, as in Paddle)."""
    return "\n\nWarning: %s\n%s" % (message, doc) if doc else doc


def noted(func, since="", update_to="", reason=""):
    """`func` under a wrapper whose docstring carries the deprecation note (func itself,
    maybe shared with a paddle.* API, keeps its own)."""
    @functools.wraps(func)
    def deprecated_api(*args, **kwargs):
        return func(*args, **kwargs)
    deprecated_api.__doc__ = with_note(func.__doc__,
                                       deprecation_message(func, since, update_to, reason))
    return deprecated_api


def mark(namespace, names):
    """{name: obj} of `namespace` with the APIs 2.0 deprecates there wrapped by noted()."""
    table = DEPRECATED_IN_2.get(namespace, {})
    return {name: noted(obj, *table[name]) if name in table and callable(obj) else obj
            for name, obj in names.items()}
