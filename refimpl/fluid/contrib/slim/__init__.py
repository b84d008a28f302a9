"""paddle.fluid.contrib.slim: model compression. Only its quantization package's names
exist (quantization is out of refimpl's scope, specs/paddle18_scope.md out-quantization)."""
from . import quantization

__all__ = ["quantization"]
