"""Paddle 3's paddle.range (both ends included, 3.3.1's deprecated API: arange to end +
step) and paddle.logspace (the logspace op, as 3.3.1's kernel)."""
from ..dygraph.tensor import Tensor
from ..framework.dtypes import convert_dtype, get_default_dtype
from ..framework.program import Variable
from . import creation
from .common import append_op_out


def range(start=0, end=None, step=1, dtype=None, *, out=None, device=None,
          requires_grad=False, name=None):
    """start, start + step, ... up to and including end (end None: 0 .. start), in dtype
    (the default float dtype unless given)."""
    if end is None:
        start, end = 0, start
    result = creation.arange(start, end + step, step, dtype or get_default_dtype())
    result.stop_gradient = not requires_grad
    return result


_LOGSPACE_DTYPES = ("float16", "float32", "float64", "int32", "int64")


def _logspace_input(value, arg, dtype):
    """A 1-element tensor of a number, or the tensor given (of dtype: 3.3.1's ValueError
    otherwise); Num is int32."""
    if isinstance(value, Variable):
        wanted = "int32" if arg == "num" else dtype
        if convert_dtype(value.dtype) != wanted:
            error = TypeError if arg == "num" else ValueError
            raise error("logspace: the dtype of %s must be %s, got %s"
                        % (arg, wanted, convert_dtype(value.dtype)))
        return value
    number = (int,) if arg == "num" else (int, float)
    if isinstance(value, bool) or not isinstance(value, number):
        raise TypeError("logspace: %s must be %s or a Tensor, got %s %r"
                        % (arg, "an int" if arg == "num" else "a number",
                           type(value).__name__, value))
    if arg == "num" and value <= 0:
        raise ValueError("logspace: num must be > 0, got %d" % value)
    return creation.fill_constant([1], "int32" if arg == "num" else dtype, value)


def logspace(start, stop, num, base=10.0, dtype=None, name=None):
    """base ** e for num exponents e evenly spaced from start to stop (the logspace op), in
    dtype (the default float dtype unless given)."""
    dtype = convert_dtype(dtype or get_default_dtype())
    if dtype not in _LOGSPACE_DTYPES:
        raise TypeError("logspace: dtype must be one of %s, got %s" % (_LOGSPACE_DTYPES, dtype))
    inputs = {slot: [_logspace_input(value, slot.lower(), dtype)]
              for slot, value in (("Start", start), ("Stop", stop), ("Num", num),
                                  ("Base", base))}
    out = append_op_out("logspace", inputs, {"dtype": dtype}, name, out_dtype=dtype,
                        stop_gradient=True)
    if isinstance(num, int) and not isinstance(out, Tensor):
        out._set_shape_dtype([num], None)      # known when built, as 3.3.1's [num]
    return out


EXPORTS = {"paddle": {"range": range, "logspace": logspace}}
