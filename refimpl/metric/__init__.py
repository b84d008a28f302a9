"""paddle.metric: the streaming Metric classes (specs/metric.md) and the static-graph
`accuracy` layer."""
from ..layers import exports
from .metrics import Accuracy, Auc, Metric, Precision, Recall

globals().update(exports("metric"))
__all__ = sorted(exports("metric")) + ["Metric", "Accuracy", "Precision", "Recall", "Auc"]
