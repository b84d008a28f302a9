"""fill_any_like (specs/ops/tensor.md): X's shape, the value, X's dtype or the one the
dtype attr names (a name or Paddle's VarType code); out-of-range values are refused as in
Paddle 1.8.5."""
import numpy as np
import pytest

from refimpl.fluid import core
from refimpl.fluid.op import Operator

PLACE = core.CPUPlace()


def _fill(x, **attrs):
    scope = core.Scope()
    scope.var("x").get_tensor().set(x, PLACE)
    Operator("fill_any_like", X="x", Out="out", **attrs).run(scope, PLACE)
    return np.array(scope.find_var("out").get_tensor())


def test_fill_keeps_x_dtype_or_takes_the_named_one():
    x = np.arange(6, dtype="int32").reshape(2, 3)
    out = _fill(x, value=7.0)
    assert out.dtype == np.int32 and out.tolist() == [[7] * 3] * 2
    for dtype in (int(core.VarDesc.VarType.FP32), core.VarDesc.VarType.FP32, "float32"):
        out = _fill(x, value=0.5, dtype=dtype)
        assert out.dtype == np.float32 and out.shape == (2, 3) and (out == 0.5).all()


@pytest.mark.parametrize("dtype,value", [("int32", 1e100), ("float32", 1e100),
                                         ("float32", 3.5e38), ("float64", float("nan")),
                                         ("int64", -1e19)])
def test_a_value_the_dtype_cannot_hold_is_an_error(dtype, value):
    # Paddle 1.8.5: EnforceNotMet "filled value is out of range for targeted type"
    with pytest.raises(core.EnforceNotMet, match="out of range"):
        _fill(np.zeros(3, dtype), value=value)
    assert _fill(np.zeros(3, dtype), value=-3.0).tolist() == [-3.0] * 3


def _run(op_type, x=None, **attrs):
    """Run `op_type` on X = x (no input when None) and return Out."""
    scope = core.Scope()
    slots = {}
    if x is not None:
        scope.var("x").get_tensor().set(x, PLACE)
        slots["X"] = "x"
    Operator(op_type, Out="out", **slots, **attrs).run(scope, PLACE)
    return np.array(scope.find_var("out").get_tensor())


def test_fill_zeros_like2_takes_its_dtype_attribute():
    # Paddle 2.0's fill_zeros_like2: X's shape, the dtype attr's type (FP32 by default)
    x = np.arange(6, dtype="float64").reshape(2, 3)
    out = _run("fill_zeros_like2", x)
    assert out.dtype == np.float32 and out.tolist() == [[0.0] * 3] * 2
    out = _run("fill_zeros_like2", x, dtype=int(core.VarDesc.VarType.INT64))
    assert out.dtype == np.int64 and out.shape == (2, 3) and not out.any()


def test_fill_writes_float32_values_in_row_major_order():
    # Paddle 2.0's fill: the vector<float> attribute converted to dtype, so a float64 Out
    # holds 0.1's float32 rounding; reshaped row-major to `shape`
    out = _run("fill", value=[0.1, 2.0, -3.0, 4.5, 5.0, 6.0], shape=[2, 3],
               dtype=int(core.VarDesc.VarType.FP64))
    assert out.dtype == np.float64 and out.shape == (2, 3)
    assert out[0, 0] == float(np.float32(0.1)) != 0.1
    assert out.ravel()[1:].tolist() == [2.0, -3.0, 4.5, 5.0, 6.0]
    out = _run("fill", value=[1.9, -2.9], shape=[2], dtype="int32")
    assert out.dtype == np.int32 and out.tolist() == [1, -2]     # C++ casts truncate
    with pytest.raises(Exception, match="fewer than the 4"):
        _run("fill", value=[1.0, 2.0, 3.0], shape=[2, 2])
