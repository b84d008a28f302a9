"""Fetched values as the version profile hands them to the user (Executor.run's results,
an eager Tensor's numpy())."""
import numpy as np

from .. import versions

__all__ = ["FetchedArray", "as_fetched"]


class FetchedArray(np.ndarray):
    """A fetched array whose one-element parts convert to a Python number (float(loss),
    '%f' % loss, int(clip_ids[i]) of a [N, 1] array) as numpy 1.x arrays did, which Paddle
    1.8 / 2.0 scripts rely on for their [1]-shaped losses and labels; numpy 2 refuses it.
    Everything else is plain ndarray behaviour."""

    def __float__(self):
        return float(self._one_element("float"))

    def __int__(self):
        return int(self._one_element("int"))

    def _one_element(self, to):
        if self.size != 1:      # numpy 1.x's own refusal
            raise TypeError("only size-1 arrays can be converted to Python scalars (%s() of "
                            "an array of shape %s)" % (to, list(self.shape)))
        return np.asarray(self).reshape(())

    def __repr__(self):
        return repr(np.asarray(self))

    def __reduce_ex__(self, protocol):
        """Pickled as the plain ndarray it stands for: a script pickling `tensor.numpy()`
        itself (PaddleGAN's checkpoints) writes a file that Paddle, numpy alone and
        paddle.load's restricted unpickler read."""
        return np.asarray(self).__reduce_ex__(protocol)


def as_fetched(value):
    """A fetched array as the version profile hands it to the user (FetchedArray where
    `size1_arrays_are_scalars`, so that its one-element parts convert too)."""
    value = np.asarray(value)
    if value.ndim and value.size and versions.switch("size1_arrays_are_scalars"):
        return value.view(FetchedArray)
    return value
