"""fluid.dygraph.layer_object_helper: the module Paddle 1.8 / 2.0 code imports the dygraph
Layer's helper from (`Layer._helper` is one: specs/nn_layer.md)."""
from ...framework.layer_helper import LayerObjectHelper

__all__ = ["LayerObjectHelper"]
