"""Graph inputs: paddle.static.data and fluid.layers.data; fluid.layers.load (a tensor file
into a variable)."""
from .. import versions
from ..framework.mode import static_only_api
from ..framework.dtypes import convert_dtype, get_default_dtype
from ..framework.program import default_main_program
from .common import check_variable

__all__ = ["data", "fluid_data", "load"]


def _check_name_and_shape(name, shape, layer):
    if not isinstance(name, str):
        raise TypeError("%s: name must be a str, got %s" % (layer, type(name).__name__))
    if not isinstance(shape, (list, tuple)):
        raise TypeError("%s: shape must be a list or tuple, got %s"
                        % (layer, type(shape).__name__))


def data(name, shape, dtype="float32", lod_level=0):
    """fluid.data: `shape` as given (None or -1 = any size); fed values are checked
    against it."""
    _check_name_and_shape(name, shape, "data")
    static_only_api()
    shape = [-1 if d is None else int(d) for d in shape]
    if min(shape, default=0) < -1 and versions.switch("data_dims_below_minus_one") == "refused":
        raise ValueError("data: only -1 (or None) marks an unknown dim of %r, got shape %s"
                         % (name, shape))
    return default_main_program().global_block().create_var(
        name=name, shape=shape, dtype=convert_dtype(dtype), lod_level=lod_level,
        stop_gradient=True, is_data=True, need_check_feed=True, persistable=False)


def static_data(name, shape, dtype=None, lod_level=0):
    """paddle.static.data: fluid.data whose dtype defaults to paddle.get_default_dtype()
    (Paddle 2.0's static/input.py)."""
    return data(name, shape, dtype or get_default_dtype(), lod_level)


def fluid_data(name, shape, append_batch_size=True, dtype="float32", lod_level=0,
               type=None, stop_gradient=True):
    """fluid.layers.data: prepends a -1 batch dim unless append_batch_size=False or the
    shape already has an unknown dim."""
    _check_name_and_shape(name, shape, "fluid.layers.data")
    static_only_api()
    shape = [-1 if d is None else int(d) for d in shape]
    if append_batch_size and -1 not in shape:
        shape = [-1] + shape
    return default_main_program().global_block().create_var(
        name=name, shape=shape, dtype=convert_dtype(dtype), lod_level=lod_level,
        stop_gradient=stop_gradient, is_data=True, persistable=False)


def load(out, file_path, load_as_fp16=None):
    """fluid.layers.load (1.8): appends a load op that fills `out` from the tensor file
    `file_path` (ops/load.py) each run; returns None. Paddle 1.8.5's own layer passes the
    op's outputs under a misspelt keyword and fails when called (specs/fluid_io.md)."""
    check_variable(out, "out", "load")
    if not isinstance(file_path, str) or not file_path:
        raise TypeError("load: file_path must be a non-empty str, got %r" % (file_path,))
    attrs = {"file_path": file_path}
    if load_as_fp16 is not None:
        attrs["load_as_fp16"] = bool(load_as_fp16)
    default_main_program().current_block().append_op(
        type="load", inputs={}, outputs={"Out": [out]}, attrs=attrs)


EXPORTS = {
    "static": {"data": static_data},
    "fluid": {"data": data},
    "fluid.layers": {"data": fluid_data, "load": load},
}
