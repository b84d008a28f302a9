"""Paddle 3's window functions at the top level (paddle.hann_window, hamming_window,
blackman_window, bartlett_window, kaiser_window; 3.3.1's paddle.audio.functional.window
composes them): constants of `window_length` values. A periodic window is the symmetric
one of window_length + 1 values without its last (3.3.1's); computed in float64 and cast
to dtype."""
import numpy as np

from . import creation


def _symmetric_cosines(length, coefficients):
    """sum_k (-1)^k a_k cos(2 pi k n / (length - 1)), n = 0 .. length - 1."""
    phase = 2 * np.pi * np.arange(length) / max(length - 1, 1)
    return sum((-1) ** k * a * np.cos(k * phase) for k, a in enumerate(coefficients))


def _bartlett(length):
    return 1 - np.abs(2 * np.arange(length) / max(length - 1, 1) - 1)


def _window(values, window_length, periodic, dtype, requires_grad):
    """values(length) of the symmetric window as a constant tensor of dtype."""
    if window_length < 0:
        raise ValueError("window_length must be >= 0, got %d" % window_length)
    if window_length <= 1:
        array = np.ones(window_length)
    else:
        array = values(window_length + 1)[:-1] if periodic else values(window_length)
    value = np.asarray(array, dtype)
    out = creation.exact_constant(value)
    out.stop_gradient = not requires_grad
    return out


def hann_window(window_length, periodic=True, *, dtype="float32", layout=None, device=None,
                pin_memory=False, requires_grad=False):
    return _window(lambda n: _symmetric_cosines(n, (0.5, 0.5)), window_length, periodic,
                   dtype, requires_grad)


def hamming_window(window_length, periodic=True, alpha=0.54, beta=0.46, *, dtype="float32",
                   layout=None, device=None, pin_memory=False, requires_grad=False):
    return _window(lambda n: _symmetric_cosines(n, (alpha, beta)), window_length, periodic,
                   dtype, requires_grad)


def blackman_window(window_length, periodic=True, *, dtype="float32", layout=None,
                    device=None, pin_memory=False, requires_grad=False):
    return _window(lambda n: _symmetric_cosines(n, (0.42, 0.5, 0.08)), window_length,
                   periodic, dtype, requires_grad)


def bartlett_window(window_length, periodic=True, *, dtype="float32", layout=None,
                    device=None, pin_memory=False, requires_grad=False):
    return _window(_bartlett, window_length, periodic, dtype, requires_grad)


def kaiser_window(window_length, periodic=True, beta=12.0, *, dtype="float32", layout=None,
                  device=None, pin_memory=False, requires_grad=False):
    return _window(lambda n: np.kaiser(n, beta), window_length, periodic, dtype,
                   requires_grad)


EXPORTS = {"paddle": {"hann_window": hann_window, "hamming_window": hamming_window,
                      "blackman_window": blackman_window, "bartlett_window": bartlett_window,
                      "kaiser_window": kaiser_window}}
