"""Paddle 3's distances and second moments, composed as 3.3.1 composes them: cdist (the
p_norm of broadcast differences), pdist (of each pair of rows i < j), vecdot (sum of
conj(x) * y), cov (numpy's weighted covariance) and corrcoef (cov scaled by the standard
deviations). Gradients come from the ops they build."""
import numpy as np

from ..dygraph.tensor import Tensor
from ..framework.dtypes import FLOAT_DTYPES
from . import creation, math, tensor
from .common import check_dtype, check_static_dtype, check_variable, paddle_api
from .functional_loss import p_norm



def cdist(x, y, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary", name=None):
    """The p-norm distance of each row of x [..., M, D] to each row of y [..., N, D]:
    [..., M, N] (leading dims broadcast). compute_mode only chooses 3.3.1's CUDA path."""
    check_dtype(x, "x", "cdist", FLOAT_DTYPES)
    check_dtype(y, "y", "cdist", FLOAT_DTYPES)
    if len(x.shape) < 2 or len(y.shape) < 2 or x.shape[-1] != y.shape[-1]:
        raise ValueError("cdist: x and y must be at least 2-D with the same last dimension, "
                         "got x %s and y %s" % (list(x.shape), list(y.shape)))
    difference = paddle_api("subtract")(tensor.unsqueeze(x, [len(x.shape) - 1]),
                                        tensor.unsqueeze(y, [len(y.shape) - 2]))
    return p_norm(difference, float(p), -1, name=name)


def pdist(x, p=2.0, name=None):
    """The p-norm distances of the rows i < j of x [N, M], in row-major order: N(N-1)/2."""
    check_dtype(x, "x", "pdist", FLOAT_DTYPES)
    if len(x.shape) != 2 or x.shape[0] < 0:
        raise ValueError("pdist: x must be 2-D with a known number of rows, got shape %s"
                         % list(x.shape))
    first, second = (np.asarray(i, np.int64) for i in np.triu_indices(x.shape[0], 1))
    difference = paddle_api("subtract")(tensor.gather(x, creation.exact_constant(first)),
                                        tensor.gather(x, creation.exact_constant(second)))
    return p_norm(difference, float(p), -1, name=name)


def vecdot(x, y, axis=-1, name=None):
    """sum(conj(x) * y) along `axis`, x and y broadcast."""
    check_variable(x, "x", "vecdot")
    check_variable(y, "y", "vecdot")
    if x.dtype.name.startswith("complex"):
        x = paddle_api("conj")(x)
    return paddle_api("sum")(paddle_api("multiply")(x, y), axis, name=name)


def _weights(fweights, aweights, n, dtype):
    """fweights * aweights in `dtype` (either may be missing: None when both are), checked
    as 3.3.1 checks them: 1-D of the n observations, aweights float, and (values known, in
    dynamic mode) none negative, fweights whole numbers, a nonzero sum."""
    w = None
    for arg, v in (("fweights", fweights), ("aweights", aweights)):
        if v is None:
            continue
        check_variable(v, arg, "cov")
        if arg == "aweights":     # (3.3.1 checks a static one's dtype only)
            check_static_dtype(v, arg, "cov", ("float32", "float64"))
        if len(v.shape) != 1 or v.shape[0] not in (-1, n):
            raise ValueError("cov: %s must be 1-D of the %d observations, got shape %s"
                             % (arg, n, list(v.shape)))
        if isinstance(v, Tensor):
            values = v.numpy()
            if values.size and values.min() < 0:
                raise ValueError("cov: the values of %s cannot be negative, got min %s"
                                 % (arg, values.min()))
            if arg == "fweights" and not np.array_equal(values, np.round(values)):
                raise ValueError("cov: fweights must hold integers")
        v = math.cast(v, dtype)
        w = v if w is None else paddle_api("multiply")(w, v)
    if isinstance(w, Tensor) and w.numpy().sum() == 0:
        raise ValueError("cov: the sum of the weights is zero, it cannot be normalized")
    return w


def cov(x, rowvar=True, ddof=True, fweights=None, aweights=None, name=None):
    """The covariance matrix of the variables of x (rows; columns with rowvar=False; a 1-D
    x is one variable: a 0-D result), observations weighted by fweights * aweights, the
    normalisation numpy's (ddof True: one degree of freedom; at least 0, as 3.3.1)."""
    check_variable(x, "x", "cov")
    if not 1 <= len(x.shape) <= 2:
        raise ValueError("cov: x must be 1-D or 2-D, got shape %s" % list(x.shape))
    check_dtype(x, "x", "cov", ("float32", "float64"))
    one = len(x.shape) == 1
    x = tensor.reshape(x, [1, -1]) if one else x if rowvar else tensor.transpose(x, [1, 0])
    n = x.shape[1]
    w = _weights(fweights, aweights, n, x.dtype.name)
    if w is None:
        mean = paddle_api("mean")(x, 1, keepdim=True)
        count = creation.exact_constant(np.array(n - int(ddof), x.dtype.name))
    else:
        total = paddle_api("sum")(w)
        mean = paddle_api("divide")(paddle_api("sum")(paddle_api("multiply")(x, w), 1,
                                                      keepdim=True), total)
        count = total
        if ddof:
            correction = (creation.exact_constant(np.array(1, x.dtype.name)) if aweights is None else
                          paddle_api("divide")(paddle_api("sum")(paddle_api("multiply")(
                              w, math.cast(aweights, x.dtype.name))), total))
            count = math.clip(paddle_api("subtract")(total, correction), 0.0, None)
    centred = paddle_api("subtract")(x, mean)
    left = centred if w is None else paddle_api("multiply")(centred, w)
    product = paddle_api("matmul")(left, tensor.transpose(centred, [1, 0]))
    out = paddle_api("divide")(product, count)
    return tensor.reshape(out, [], name=name) if one else out


def corrcoef(x, rowvar=True, name=None):
    """The correlation coefficients: cov(x) / sqrt(var_i var_j), limited to [-1, 1]."""
    check_dtype(x, "x", "corrcoef", FLOAT_DTYPES)
    c = cov(x, rowvar)
    if not c.shape:
        return paddle_api("divide")(c, c, name=name)
    spread = paddle_api("sqrt")(paddle_api("diag")(c))
    scaled = paddle_api("divide")(paddle_api("divide")(c, tensor.unsqueeze(spread, [1])),
                                  tensor.unsqueeze(spread, [0]))
    return math.clip(scaled, -1.0, 1.0, name=name)


EXPORTS = {
    "paddle": {"cdist": cdist, "pdist": pdist},
    "nn.functional": {"pdist": pdist},
    # paddle.linalg (s19linalg's namespace) and the Tensor methods cov / corrcoef
    "linalg": {"cov": cov, "corrcoef": corrcoef, "vecdot": vecdot},
    # paddle.tensor (and its linalg submodule) has them too
    "tensor": {"cov": cov, "corrcoef": corrcoef, "vecdot": vecdot},
}
