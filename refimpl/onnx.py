"""paddle.onnx (2.0): `export` hands a Layer to the separate paddle2onnx package, which
converts Paddle's own programs; refimpl's it cannot read, so export says which is missing."""
from .utils import try_import

__all__ = ["export"]


def export(layer, path, input_spec=None, opset_version=9, **configs):
    try_import("paddle2onnx")  # Paddle's error where the package is not installed
    raise NotImplementedError("paddle.onnx.export: paddle2onnx converts Paddle's programs, "
                              "not refimpl's; save with paddle.jit.save instead")
