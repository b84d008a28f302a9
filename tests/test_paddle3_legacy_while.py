"""Paddle 3's static while_loop follows FLAGS_enable_pir_api: with it off (the legacy IR
the early-2024 unittest files run under, pir_utils.OldIrGuard) the loop updates the
caller's variables in place and while_grad keeps a body-overwritten variable's gradient
for the steps before, as 2.0; with it on (3.3.1's default, PIR) the caller's variables
keep their values and the gradient is the chain rule's. Values measured on 3.3.1 where its
legacy IR builds the program (the in-place loop), hand-derived otherwise."""
import numpy as np
import pytest

import refimpl as paddle
from refimpl.static import append_backward

pytestmark = pytest.mark.paddle("3")


def _loop():
    """i counts 0 .. 10 with i + 1: (i after the loop, the loop's i)."""
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        i = paddle.full([1], 0, "int64")
        ten = paddle.full([1], 10, "int64")
        out, = paddle.static.nn.while_loop(lambda i: paddle.less_than(i, ten),
                                           lambda i: [i + 1], [i])
    return paddle.static.Executor(paddle.CPUPlace()).run(main, fetch_list=[i, out])


def _square_loop_grad():
    """x = i * i, i += 1 while i < 11, from i = 1: mean(x) and d mean / d i."""
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        i = paddle.static.data(name="i", shape=[1], dtype="float32")
        x = paddle.static.data(name="x", shape=[1], dtype="float32")
        i.stop_gradient = x.stop_gradient = False
        eleven = paddle.full([1], 11.0, "float32")

        def body(i, x):
            x = paddle.multiply(i, i)
            return [paddle.increment(i), x]
        out = paddle.static.nn.while_loop(lambda i, x: paddle.less_than(i, eleven), body,
                                          [i, x])
        mean = paddle.mean(out[1])
        append_backward(mean)
    return paddle.static.Executor(paddle.CPUPlace()).run(
        main, feed={"i": np.ones(1, "float32"), "x": np.ones(1, "float32")},
        fetch_list=[mean, i.grad_name])


def test_while_loop_follows_the_pir_flag():
    with paddle.pir_utils.OldIrGuard():
        before, after = _loop()
        assert before[0] == 10 and after[0] == 10      # 3.3.1, flag off: [10], [10]
        mean, grad = _square_loop_grad()
        # x = 10 * 10; the legacy while_grad adds 2 i for every step: 2 (1 + ... + 10)
        assert mean == pytest.approx(100.0) and grad[0] == pytest.approx(110.0)
    before, after = _loop()
    assert before[0] == 0 and after[0] == 10           # 3.3.1, flag on: [0], [10]
    mean, grad = _square_loop_grad()
    assert mean == pytest.approx(100.0) and grad[0] == pytest.approx(20.0)   # 2 * 10
