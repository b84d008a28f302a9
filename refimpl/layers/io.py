"""Graph inputs: paddle.static.data and fluid.layers.data."""
from ..framework.mode import static_only_api
from ..framework.dtypes import convert_dtype
from ..framework.program import default_main_program

__all__ = ["data", "fluid_data"]


def data(name, shape, dtype="float32", lod_level=0):
    """paddle.static.data / fluid.data: `shape` as given (None or -1 = any size); fed
    values are checked against it."""
    if not isinstance(name, str):
        raise TypeError("data: name must be a str, got %s" % type(name).__name__)
    static_only_api()
    shape = [-1 if d is None else int(d) for d in shape]
    return default_main_program().global_block().create_var(
        name=name, shape=shape, dtype=convert_dtype(dtype), lod_level=lod_level,
        stop_gradient=True, is_data=True, need_check_feed=True)


def fluid_data(name, shape, append_batch_size=True, dtype="float32", lod_level=0,
               type=None, stop_gradient=True):
    """fluid.layers.data: prepends a -1 batch dim unless append_batch_size=False or the
    shape already has an unknown dim."""
    static_only_api()
    shape = [-1 if d is None else int(d) for d in shape]
    if append_batch_size and -1 not in shape:
        shape = [-1] + shape
    return default_main_program().global_block().create_var(
        name=name, shape=shape, dtype=convert_dtype(dtype), lod_level=lod_level,
        stop_gradient=stop_gradient, is_data=True)


EXPORTS = {
    "static": {"data": data},
    "fluid": {"data": data},
    "fluid.layers": {"data": fluid_data},
}
