"""paddle.metric (static-graph subset)."""
from ..layers import exports

globals().update(exports("metric"))
__all__ = sorted(exports("metric"))
