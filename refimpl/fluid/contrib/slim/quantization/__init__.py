"""paddle.fluid.contrib.slim.quantization: the graph passes that insert fake-quantize ops.
Quantization is out of refimpl's scope (specs/paddle18_scope.md out-quantization): the
names import, as scripts import them beside code that never quantizes (2.0's
ir/inference/inference_pass_test.py), and making a pass says so."""

__all__ = ["QuantizationTransformPass", "QuantizationFreezePass"]


class _OutOfScopePass:
    def __init__(self, *args, **kwargs):
        raise NotImplementedError(
            "fluid.contrib.slim.quantization.%s: quantization (fake-quantize ops and the "
            "passes inserting them) is not implemented in refimpl" % type(self).__name__)


class QuantizationTransformPass(_OutOfScopePass):
    pass


class QuantizationFreezePass(_OutOfScopePass):
    pass
