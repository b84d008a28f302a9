"""The progress line of paddle.Model's ProgBarLogger, in Paddle's format (specs/hapi_model.md,
"Progress output"):

    verbose=2:  step 10/100 - loss: 0.1234 - acc: 0.9000 - 5ms/step
    verbose=1:  step 10/100 [==>...........................] - loss: 0.1234 - ETA: 1s - 5ms/step

verbose=1 rewrites one line in place on a terminal (backspaces and a carriage return, then
a newline once the count is reached); to a file or pipe every update is a line of its own.
"""
import shutil
import sys
import time

import numpy as np

__all__ = ["ProgressBar"]


def format_value(value):
    """A logged number as Paddle prints it: 4 decimals, or 4-digit scientific notation when
    its magnitude is at most 1e-3; anything else as str()."""
    if isinstance(value, np.ndarray) and value.size == 1 and value.dtype.kind == "f":
        value = value.item()
    if isinstance(value, (float, np.floating)):
        return "%.4f" % value if abs(value) > 1e-3 else "%.4e" % value
    return str(value)


def format_values(values):
    """' - name: v1 v2' for each (name, value or list of values)."""
    text = ""
    for name, value in values:
        text += " - %s:" % name
        for v in value if isinstance(value, (list, tuple)) else [value]:
            text += " " + format_value(v)
    return text


def _time_per_unit(seconds, name):
    if seconds >= 1 or seconds == 0:
        return " - %.0fs/%s" % (seconds, name)
    if seconds >= 1e-3:
        return " - %.0fms/%s" % (seconds * 1e3, name)
    return " - %.0fus/%s" % (seconds * 1e6, name)


def _eta(seconds):
    seconds = int(seconds)
    if seconds > 3600:
        return "%d:%02d:%02d" % (seconds // 3600, (seconds % 3600) // 60, seconds % 60)
    if seconds > 60:
        return "%d:%02d" % (seconds // 60, seconds % 60)
    return "%ds" % seconds


class ProgressBar:
    """Progress of `num` units (None: unknown), named `name` ('step'). update(current,
    values) prints the state after `current` units; the time per unit is measured from
    construction (or start())."""

    def __init__(self, num=None, width=30, verbose=1, start=True, file=None, name="step"):
        if num is not None and (not isinstance(num, (int, np.integer)) or num <= 0):
            raise TypeError("ProgressBar: num must be None or a positive int, got %r" % (num,))
        if verbose not in (0, 1, 2, 3):
            raise ValueError("ProgressBar: verbose must be 0 (silent), 1 (a bar) or 2 / 3 (a "
                             "line per update), got %r" % (verbose,))
        self._num = num
        columns = shutil.get_terminal_size().columns
        columns = columns if columns > 0 else 80
        self._width = max(min(width, int(columns * 0.6), columns - 50), 0)
        self._verbose = verbose
        self._file = file
        self._name = name
        self._start = time.time() if start else None
        self._drawn_width = 0    # characters of the line drawn last (in-place mode)

    @property
    def file(self):
        return self._file if self._file is not None else sys.stdout

    def start(self):
        self.file.flush()
        self._start = time.time()

    def _in_place(self):
        isatty = getattr(self.file, "isatty", None)
        return bool(isatty and isatty())

    def update(self, current_num, values=()):
        if self._verbose == 0:
            return
        per_unit = (time.time() - self._start) / current_num if current_num else 0.0
        rate = _time_per_unit(per_unit, self._name)
        if self._verbose in (2, 3):
            self._write(self._count(current_num) + format_values(values) + rate + "\n")
            return
        bar = self._bar(current_num)
        info = format_values(values)
        if self._num is not None and current_num < self._num:
            info += " - ETA: " + _eta(per_unit * (self._num - current_num))
        info += rate
        finished = self._num is None or current_num >= self._num
        if not self._in_place():
            self._write(bar + info + "\n")
            return
        width = len(bar) + len(info)
        erase = "\b" * self._drawn_width + "\r"
        padding = " " * max(self._drawn_width - width, 0)
        self._drawn_width = width
        self._write(erase + bar + info + padding + ("\n" if finished else ""))

    def _count(self, current_num):
        if self._num is None:
            return "%s %3d" % (self._name, current_num)
        digits = len(str(self._num))
        return "%s %*d/%d" % (self._name, digits, current_num, self._num)

    def _bar(self, current_num):
        if self._num is None:
            return self._count(current_num)
        filled = int(self._width * current_num / self._num)
        bar = ""
        if filled > 0:
            bar = "=" * (filled - 1) + (">" if current_num < self._num else "=")
        return self._count(current_num) + " [" + bar + "." * (self._width - filled) + "]"

    def _write(self, text):
        self.file.write(text)
        self.file.flush()
