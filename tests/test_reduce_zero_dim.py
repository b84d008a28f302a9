"""Reductions of a 0-D tensor (Paddle 3): dim 0 or -1 reduce it to itself, another dim is
3.3.1's ValueError "When input 0D Tensor, the axis can only be -1, 0, None or []"
(measured: paddle.sum(paddle.to_tensor(3.), axis=0) is 3.0 of shape [])."""
import numpy as np
import pytest

import refimpl as paddle

pytestmark = pytest.mark.paddle("3")


def test_reducing_a_0d_tensor_over_dim_0_or_minus_1():
    paddle.disable_static()
    x = paddle.to_tensor(3.0, stop_gradient=False)
    for out in (paddle.sum(x, axis=0), paddle.sum(x, axis=-1), paddle.mean(x, axis=0),
                paddle.sum(x)):
        assert out.shape == [] and float(out) == 3.0
    (paddle.sum(x, axis=0) * 2.0).backward()
    assert x.gradient() == pytest.approx(2.0)
    with pytest.raises(ValueError, match="the axis can only be -1, 0, None or"):
        paddle.sum(x, axis=1)


def test_static_sum_of_a_0d_loss():
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data(name="x", shape=[4], dtype="float32")
        total = paddle.sum(paddle.sum(x), axis=0)
    got, = paddle.static.Executor(paddle.CPUPlace()).run(
        main, feed={"x": np.array([1., 2., 3., 4.], "float32")}, fetch_list=[total])
    assert got.shape == () and got == 10.0
