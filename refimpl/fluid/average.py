"""paddle.fluid.average (Paddle 1.8, deprecated there for fluid.metrics.Accuracy):
WeightedAverage, a running weighted mean of numbers or arrays; specs/fluid_metrics.md."""
import warnings

from .metrics import check_value_and_weight

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
        check_value_and_weight("WeightedAverage.add", value, weight)
        if self.numerator is None:
            self.numerator, self.denominator = value * weight, weight
        else:
            self.numerator += value * weight
            self.denominator += weight

    def eval(self):
        if self.numerator is None:
            raise ValueError("There is no data to be averaged in WeightedAverage.")
        return self.numerator / self.denominator
