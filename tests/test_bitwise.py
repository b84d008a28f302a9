"""The bitwise ops (refimpl/ops/bitwise.py) and their API: paddle.bitwise_and / or / xor /
not, the Tensor methods and the & | ^ ~ operators; values as Paddle 3.3.1's (checked
there) and numpy's."""
import numpy as np
import pytest

import refimpl as paddle
from refimpl import static

X = np.array([5, -3, 12], "int32")
Y = np.array([3, 6, -7], "int32")


def test_operators_in_dynamic_mode():
    paddle.disable_static()
    x, y = paddle.to_tensor(X), paddle.to_tensor(Y)
    np.testing.assert_array_equal((x & y).numpy(), [1, 4, 8])      # Paddle 3.3.1's
    np.testing.assert_array_equal((x | y).numpy(), [7, -1, -3])
    np.testing.assert_array_equal((x ^ y).numpy(), [6, -5, -11])
    np.testing.assert_array_equal((~x).numpy(), [-6, 2, -13])
    assert (x & y).dtype == paddle.int32
    b = paddle.to_tensor(np.array([True, False]))
    np.testing.assert_array_equal((~b).numpy(), [False, True])
    assert (b ^ b).dtype == paddle.bool
    u = paddle.to_tensor(np.array([200, 3], "uint8"))
    np.testing.assert_array_equal(paddle.bitwise_not(u).numpy(), [55, 252])
    # broadcast like numpy, as a method too
    col = paddle.to_tensor(np.array([[1], [2]], "int64"))
    np.testing.assert_array_equal(col.bitwise_and(paddle.to_tensor(np.array([3, 1], "int64")))
                                  .numpy(), [[1, 1], [2, 0]])


def test_static_program_and_dtype_checks():
    paddle.enable_static()
    try:
        main = static.Program()
        with static.program_guard(main, static.Program()):
            x = static.data("x", [2, 3], "int16")
            y = static.data("y", [3], "int16")
            outs = [x & y, x | y, x ^ y, ~x, paddle.tensor.logic.bitwise_xor(x, y)]
            assert outs[0].dtype == paddle.int16 and outs[0].shape == (2, 3)
            with pytest.raises(TypeError, match="bitwise_and: x must have dtype"):
                paddle.bitwise_and(static.data("f", [3], "float32"), y)
        rng = np.random.RandomState(0)
        xv = rng.randint(-300, 300, (2, 3)).astype("int16")
        yv = rng.randint(-300, 300, (3,)).astype("int16")
        got = static.Executor().run(main, feed={"x": xv, "y": yv}, fetch_list=outs)
        for out, want in zip(got, [xv & yv, xv | yv, xv ^ yv, ~xv, xv ^ yv]):
            np.testing.assert_array_equal(out, want)
    finally:
        paddle.disable_static()


def test_the_op_refuses_mixed_dtypes():
    paddle.disable_static()
    with pytest.raises(Exception, match="one dtype"):
        paddle.bitwise_or(paddle.to_tensor(X), paddle.to_tensor(Y.astype("int64")))
