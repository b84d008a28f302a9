"""paddle.fluid.backward's program walks (_get_stop_gradients_, _find_op_path_,
_find_no_grad_vars, the grad-suffix helpers) against Paddle 1.8.5's answers on the same
net (measured with paddlepaddle 1.8.5, CPU)."""
import pytest

from refimpl import fluid
from refimpl.fluid import backward


def _net():
    x = fluid.data("x", [4, 3], "float32")
    label = fluid.data("lbl", [4, 1], "float32")
    hidden = fluid.layers.fc(x, 2, act="relu")
    fluid.layers.fc(x, 2)                       # off the loss's path
    total = fluid.layers.reduce_sum(hidden, dim=1, keep_dim=True)
    loss = fluid.layers.mean(fluid.layers.square_error_cost(total, label))
    return hidden, loss


@pytest.mark.paddle("1.8")
def test_program_walks_match_paddle_1_8():
    hidden, loss = _net()
    program = fluid.default_main_program()
    block = program.global_block()
    assert backward._get_stop_gradients_(program) == {0: {"lbl@GRAD", "x@GRAD"}}
    path = backward._find_op_path_(block, [loss], [], set())
    assert [op.type for op in path] == ["mul", "elementwise_add", "relu", "reduce_sum",
                                        "elementwise_sub", "square", "mean"]
    no_grad = set()
    from_hidden = backward._find_op_path_(block, [loss], [hidden], no_grad)
    assert [op.type for op in from_hidden] == ["reduce_sum", "elementwise_sub", "square",
                                               "mean"]
    assert no_grad == {"lbl"}
    assert backward._find_no_grad_vars(block, path, [loss], set()) == set()


def test_find_no_grad_vars_names_outputs_nothing_reads():
    x = fluid.data("x", [4, 3], "float32")
    x.stop_gradient = False
    parts = fluid.layers.split(x, num_or_sections=[1, 2], dim=1)
    loss = fluid.layers.mean(parts[0])
    block = fluid.default_main_program().global_block()
    path = backward._find_op_path_(block, [loss], [], set())
    assert [op.type for op in path] == ["split", "mean"]
    assert backward._find_no_grad_vars(block, path, [loss], set()) == {parts[1].name}


def test_grad_suffix_helpers():
    assert backward._strip_grad_suffix_("y@GRAD@RENAME@1") == "y"
    assert backward._strip_grad_suffix_("y") == "y"
    assert backward._append_grad_suffix_("x") == "x@GRAD"
    assert backward._as_list(None) == [] and backward._as_list((1, 2)) == [1, 2]
    assert backward._as_list("x") == ["x"]


def test_gradients_takes_one_target_gradient_without_a_list():
    # Paddle's gradient_checker passes one dy Variable for one target
    import numpy as np
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = fluid.data("x", [2, 3], "float32")
        x.stop_gradient = False
        y = x * x
        dy = main.global_block().create_var(name="dy", shape=[2, 3], dtype="float32")
        dx, = fluid.gradients(y, x, dy)
        with pytest.raises(ValueError, match="2 target_gradients for 1 targets"):
            fluid.gradients([y], [x], [dy, dy])
    xv = np.arange(6, dtype="float32").reshape(2, 3)
    dyv = np.full((2, 3), 0.5, "float32")
    got, = fluid.Executor(fluid.CPUPlace()).run(main, feed={"x": xv, "dy": dyv},
                                                fetch_list=[dx])
    np.testing.assert_allclose(got, 2 * xv * dyv)
