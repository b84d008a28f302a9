"""The dtype of a Python operator's result (switches int_tensor_scalar_to_float32 and
operator_operand_cast): the values measured on Paddle 1.8.5 and 3.3.1, the same
expressions on eager Tensors and on static Variables (specs/tensor_methods.md)."""
import numpy as np
import pytest

import refimpl as paddle
from refimpl import static
from refimpl.framework import mode
from refimpl.framework.program import Program, program_guard

REFUSED = "refused"

# (left, operator, right) with tensors as (dtype, fill value), each [2] long ->
# {profile: (dtype, values)}. 1.8: Paddle 1.8.5 (static programs; its dygraph casts the
# same way in its source), 2.0: Paddle 2.0's math_op_patch and its own
# test_tensor_scalar_type_promotion_*, 3: Paddle 3.3.1 (eager and static alike).
CASES = [
    (("int64", 3), "*", 2, {"1.8": ("int64", 6), "2.0": ("int64", 6), "3": ("int64", 6)}),
    (("int64", 3), "+", 1.5, {"1.8": AssertionError, "2.0": ("float32", 4.5),
                              "3": ("float32", 4.5)}),
    (1.5, "-", ("int64", 3), {"1.8": AssertionError, "2.0": ("float32", -1.5),
                              "3": ("float32", -1.5)}),
    (("int64", 3), "*", 2.0, {"1.8": ("int64", 6), "2.0": ("float32", 6), "3": ("float32", 6)}),
    (("int64", 3), "/", 2, {"1.8": ("int64", 1), "2.0": ("float32", 1.5),
                            "3": ("float32", 1.5)}),
    (2, "/", ("int64", 3), {"1.8": ("int64", 0), "2.0": ("float32", 2 / 3),
                            "3": ("float32", 2 / 3)}),
    (("int64", 3), "/", 1.5, {"1.8": ("int64", 3), "2.0": ("float32", 2), "3": ("float32", 2)}),
    (("int64", 3), "**", 2.0, {"1.8": ("int64", 9), "2.0": ("float32", 9),
                               "3": ("float32", 9)}),
    (1.5, "**", ("int64", 3), {"1.8": ("int64", 1), "2.0": ("float32", 3.375),
                               "3": ("float32", 3.375)}),
    (("int64", 3), "//", 1.5, {"1.8": ("int64", 3), "2.0": ("float32", 2),
                               "3": ("float32", 2)}),
    (("int64", 3), "%", 2.0, {"1.8": ("int64", 1), "2.0": ("float32", 1), "3": ("float32", 1)}),
    (("int64", 3), "%", 2, {"1.8": ("int64", 1), "2.0": ("int64", 1), "3": ("int64", 1)}),
    (("float32", 3), "+", ("float16", 2), {"1.8": ("float32", 5), "2.0": ("float32", 5),
                                           "3": ("float32", 5)}),
    (("float16", 3), "+", ("float32", 2), {"1.8": ("float16", 5), "2.0": ("float16", 5),
                                           "3": ("float32", 5)}),
    (("float32", 3), "+", ("float64", 2), {"1.8": ("float32", 5), "2.0": ("float32", 5),
                                           "3": ("float64", 5)}),
    (("int32", 7), "/", ("int64", 2), {"1.8": ("int32", 3), "2.0": ("int32", 3),
                                       "3": REFUSED}),
    (("float32", 3), "/", ("int64", 2), {"1.8": ("float32", 1.5), "2.0": ("float32", 1.5),
                                         "3": REFUSED}),
    (("int64", 3), "*", ("float32", 2), {"1.8": ("int64", 6), "2.0": ("int64", 6),
                                         "3": REFUSED}),
]

OPERATORS = {"+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
             "/": lambda a, b: a / b, "**": lambda a, b: a ** b, "//": lambda a, b: a // b,
             "%": lambda a, b: a % b}


def _operand(spec):
    return paddle.full([2], spec[1], spec[0]) if isinstance(spec, tuple) else spec


def _eager(left, op, right):
    mode.disable_static()
    try:
        return OPERATORS[op](_operand(left), _operand(right)).numpy()
    finally:
        mode.enable_static()


def _static(left, op, right):
    main = Program()
    with program_guard(main, Program()):
        out = OPERATORS[op](_operand(left), _operand(right))
    return static.Executor().run(main, fetch_list=[out])[0]


@pytest.mark.parametrize("version", ["1.8", "2.0", "3"])
@pytest.mark.parametrize("compute", [_eager, _static], ids=["eager", "static"])
@pytest.mark.parametrize("left, op, right, expected", CASES,
                         ids=["%s %s %s" % (l, o, r) for l, o, r, _ in CASES])
def test_operator_result_dtype_by_version(paddle_version, version, compute, left, op, right,
                                          expected):
    with paddle_version(version):
        want = expected[version]
        if want is AssertionError:
            with pytest.raises(AssertionError, match="float value 1.5 cannot convert to "
                                                     "integer"):
                compute(left, op, right)
        elif want is REFUSED:
            with pytest.raises(Exception, match="same dtype"):
                compute(left, op, right)
        else:
            got = compute(left, op, right)
            assert got.dtype == np.dtype(want[0])
            np.testing.assert_allclose(got, [want[1]] * 2, rtol=1e-6)


def test_numpy_operands_hand_over_to_the_tensor(dygraph):
    """`np.float64 * x` and `array - x` give Tensors, as Paddle 2.0 (`__array_ufunc__ =
    None`) and 3.3.1 do (3.3.1: Tensor float32 [2, 4] and [-0.5, -1.5]); an array operand
    becomes a constant of the tensor's dtype."""
    x = paddle.to_tensor(np.array([1.0, 2.0], "float32"))
    doubled = np.sqrt(4.0) * x
    assert isinstance(doubled, paddle.Tensor) and doubled.dtype == paddle.float32
    np.testing.assert_array_equal(doubled.numpy(), [2.0, 4.0])
    for got, want in ((np.array([0.5, 0.5]) - x, [-0.5, -1.5]),
                      (x - np.array([0.5, 0.5]), [0.5, 1.5])):
        assert isinstance(got, paddle.Tensor) and got.dtype == paddle.float32
        np.testing.assert_array_equal(got.numpy(), want)


def test_numpy_operand_of_a_static_variable():
    main = Program()
    with program_guard(main, Program()):
        x = paddle.full([2], 3, "int64")
        out = np.array([10, 20]) - x
    assert out.dtype == paddle.int64
    assert static.Executor().run(main, fetch_list=[out])[0].tolist() == [7, 17]


def test_reverse_is_flip(dygraph):
    x = paddle.to_tensor(np.arange(6, dtype="float32").reshape(2, 3))
    np.testing.assert_array_equal(x.reverse([0, 1]).numpy(), [[5, 4, 3], [2, 1, 0]])
    assert paddle.reverse is paddle.flip
