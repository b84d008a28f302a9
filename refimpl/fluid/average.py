"""paddle.fluid.average (Paddle 1.8, deprecated there for fluid.metrics.Accuracy):
WeightedAverage, a running weighted mean of numbers or arrays; specs/fluid_metrics.md."""
import warnings

from .metrics import _is_number, _is_number_or_array

__all__ = ["WeightedAverage"]


class WeightedAverage:
    """add(value, weight) accumulates value * weight and weight; eval() is their ratio
    (ValueError before any add)."""

    def __init__(self):
        warnings.warn("The WeightedAverage is deprecated, please use fluid.metrics.Accuracy "
                      "instead.", Warning)
        self.reset()

    def reset(self):
        self.numerator = None
        self.denominator = None

    def add(self, value, weight):
        if not _is_number_or_array(value):
            raise ValueError("WeightedAverage.add: value must be a number or numpy ndarray, "
                             "got %s" % type(value).__name__)
        if not _is_number(weight):
            raise ValueError("WeightedAverage.add: weight must be a number (int, float), got "
                             "%s" % type(weight).__name__)
        if self.numerator is None:
            self.numerator, self.denominator = value * weight, weight
        else:
            self.numerator += value * weight
            self.denominator += weight

    def eval(self):
        if self.numerator is None:
            raise ValueError("There is no data to be averaged in WeightedAverage.")
        return self.numerator / self.denominator
