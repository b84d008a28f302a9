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
