"""paddle.fluid.layer_helper: LayerHelper (what layer functions and the conformance
checker build ops with; in dynamic mode its append_op runs the op at once)."""
from ..framework.layer_helper import LayerHelper

__all__ = ["LayerHelper"]
