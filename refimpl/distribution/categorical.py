"""paddle.distribution.Categorical (Paddle 2.0): sample / probs / log_prob read `logits` as
unnormalized probabilities (Paddle 2.0's multinomial and its division by the sum); entropy
and kl_divergence read them as logits (softmax), as Paddle does. Built from paddle
functions, so log_prob and entropy carry gradients to the logits."""
import numpy as np

from ..layers import exports
from ..layers import distributions as formulas
from ..versions import switch
from .distribution import Distribution, check_other, constant, is_tensor

_paddle = exports("paddle")
_softmax = exports("nn.functional")["softmax"]


class Categorical(Distribution):
    """Categories along the last axis of `logits`. Each method names its result
    `<name>_<method>` (name defaults to "Categorical")."""

    def __init__(self, logits, name=None):
        if not isinstance(logits, (list, tuple, np.ndarray)) and not is_tensor(logits):
            raise TypeError("Categorical: logits must be a list, tuple, numpy.ndarray or "
                            "Tensor, got %s" % type(logits).__name__)
        if is_tensor(logits):
            self.logits = logits
        else:
            array = np.asarray(logits)
            dtype = array.dtype if isinstance(logits, np.ndarray) and \
                array.dtype in (np.float32, np.float64) else np.dtype("float32")
            self.logits = constant(array.astype("float32"), dtype)
        self.name = name or "Categorical"
        self.dtype = self.logits.dtype

    def sample(self, shape):
        """Category ids of shape `shape + logits.shape[:-1]`: sample[..., j] is drawn from
        distribution j (the weights of the last axis, or their softmax under Paddle 3)."""
        if not isinstance(shape, (list, tuple)) or not all(
                isinstance(d, (int, np.integer)) and d > 0 for d in shape):
            raise TypeError("Categorical.sample: shape must be a list of positive ints, got %r"
                            % (shape,))
        count = int(np.prod(shape))
        batch = list(self.logits.shape[:-1])
        weights = _paddle["reshape"](self.logits, [-1, self.logits.shape[-1]])
        if switch("categorical_sample_from") == "softmax":
            weights = _softmax(weights, axis=-1)
        draws = _paddle["multinomial"](weights, count, True)    # [distributions, count]
        return _paddle["reshape"](_paddle["transpose"](draws, [1, 0]), list(shape) + batch,
                                  name=self.name + "_sample")

    def probs(self, value):
        """The probability (logits / their sum) of the category ids `value`. With 1-D logits
        any shape of value; with [..., K] logits value is [..., M] (or [M], used for every
        distribution) and the result is [..., M]."""
        name = self.name + "_probs"
        prob = self.logits / _paddle["sum"](self.logits, axis=-1, keepdim=True)
        shape, value_shape = list(prob.shape), list(value.shape)
        if len(shape) == 1:
            picked = _paddle["gather"](prob, _paddle["reshape"](value, [-1]))
            return _paddle["reshape"](picked, value_shape, name=name)
        batch = shape[:-1]
        if len(value_shape) == 1:
            value = _paddle["expand"](_paddle["unsqueeze"](value, [0]),
                                      [int(np.prod(batch)), value_shape[0]])
            value_shape = batch + value_shape
        elif value_shape[:-1] != batch:
            raise ValueError("Categorical.probs: value's leading shape %s must match the "
                             "logits' %s" % (value_shape[:-1], batch))
        rows = _paddle["reshape"](prob, [-1, shape[-1]])
        index = _paddle["reshape"](value, [rows.shape[0], -1])
        return _paddle["reshape"](_paddle["index_sample"](rows, index), value_shape, name=name)

    def log_prob(self, value):
        """log(probs(value))."""
        return _paddle["log"](self.probs(value), name=self.name + "_log_prob")

    def entropy(self):
        """-sum p log p of softmax(logits); the last axis is kept as size 1 (2.0) or
        dropped (3)."""
        entropy = formulas.categorical_entropy(self.logits, self.name + "_entropy")
        if switch("categorical_entropy_keeps_last_dim"):
            return entropy
        return _paddle["squeeze"](entropy, [-1], name=self.name + "_entropy")

    def kl_divergence(self, other):
        """sum p (log p - log q) of the two softmaxes, the last axis kept as size 1."""
        check_other("Categorical", other, Categorical)
        return formulas.categorical_kl_divergence(self.logits, other.logits,
                                                  self.name + "_kl_divergence")
