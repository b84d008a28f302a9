"""fleet.metrics (Paddle 2.0): metrics over every worker of the job, from each worker's
statistics -- a numpy array, a static Variable or a variable's name (read from `scope`,
default the global scope) -- summed (or maxed, minned) by fleet.util's all_reduce
(specs/distributed.md#fleet)."""
import math

import numpy as np

from ...framework.program import Variable
from ...ops.auc import roc_area

__all__ = ["sum", "max", "min", "auc", "mae", "rmse", "mse", "acc"]


def _value(stat, scope):
    """The array `stat` names: itself, or a scope variable's value."""
    if isinstance(stat, (Variable, str)):
        if scope is None:
            from ...framework.scope import global_scope
            scope = global_scope()
        name = stat.name if isinstance(stat, Variable) else stat
        found = scope.find_var(name)
        if found is None:
            raise ValueError("fleet.metrics: the scope has no variable %r" % name)
        return np.array(found.get_tensor())
    return np.asarray(stat)


def _over_workers(stat, mode, scope, util):
    if util is None:
        from . import util
    value = _value(stat, scope)
    return np.asarray(util.all_reduce(value, mode)).reshape(value.shape)


def sum(input, scope=None, util=None):
    """The element-wise sum of every worker's `input`."""
    return _over_workers(input, "sum", scope, util)


def max(input, scope=None, util=None):
    """The element-wise maximum of every worker's `input`."""
    return _over_workers(input, "max", scope, util)


def min(input, scope=None, util=None):
    """The element-wise minimum of every worker's `input`."""
    return _over_workers(input, "min", scope, util)


def _ratio(numerator, denominator, scope, util):
    """(sum of the numerators' first element) / (sum of the denominators' first)."""
    top = _over_workers(numerator, "sum", scope, util).reshape(-1)
    bottom = _over_workers(denominator, "sum", scope, util).reshape(-1)
    return float(top[0]) / float(bottom[0])


def auc(stat_pos, stat_neg, scope=None, util=None):
    """The ROC AUC of the workers' summed auc-op statistics ([1, buckets] positive and
    negative counts per threshold bucket), as the auc op computes it (ops/auc.py); 0.5
    when there are no positives or no negatives."""
    pos_counts = _over_workers(stat_pos, "sum", scope, util).reshape(-1)
    neg_counts = _over_workers(stat_neg, "sum", scope, util).reshape(-1)
    if pos_counts.sum() * neg_counts.sum() == 0:
        return 0.5
    return roc_area(pos_counts, neg_counts)


def mae(abserr, total_ins_num, scope=None, util=None):
    """Mean absolute error: the workers' summed absolute errors over their instances."""
    return _ratio(abserr, total_ins_num, scope, util)


def mse(sqrerr, total_ins_num, scope=None, util=None):
    """Mean squared error: the workers' summed squared errors over their instances."""
    return _ratio(sqrerr, total_ins_num, scope, util)


def rmse(sqrerr, total_ins_num, scope=None, util=None):
    """The square root of mse."""
    return math.sqrt(_ratio(sqrerr, total_ins_num, scope, util))


def acc(correct, total, scope=None, util=None):
    """Accuracy: the workers' summed correct counts over their summed totals."""
    return _ratio(correct, total, scope, util)

