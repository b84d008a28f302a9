"""refimpl/dygraph/program_runner.py, the one eager runner of a static program's ops, through
its three users: fluid.dygraph.StaticModelRunner, paddle.jit.load's TranslatedLayer and
dy2static's PartialProgramLayer (specs/jit.md, specs/static_model_runner.md): a while
loop's values and gradients, and a loop whose condition never turns false stopping with
the while op's error after its max_steps."""
import numpy as np
import pytest

import refimpl as paddle
from refimpl import fluid, versions
from refimpl.dygraph.program_runner import run_ops
from refimpl.framework.errors import OpError
from refimpl.jit.partial_program import partial_program_from
from refimpl.ops.control_flow import DEFAULT_MAX_STEPS


def _save_doubling(model_dir, ends=True, max_steps=None):
    """x -> 2x + 1 while i < 3 (i += 1 when `ends`, else i stays 0: the loop never ends),
    saved by save_inference_model; the while op's Condition name. Built as 2.0 builds it:
    1.8.5's while_loop returns the loop variables themselves, here the feed x, so the saved
    program would compute nothing (measured: no op but a scale, the output x)."""
    main, startup = fluid.Program(), fluid.Program()
    with versions.use("2.0"), fluid.program_guard(main, startup):
        x = fluid.data("x", [None, 2], "float32")
        i = fluid.layers.fill_constant([1], "int64", 0)
        n = fluid.layers.fill_constant([1], "int64", 3)
        # the loop runs on a copy of the feed: under profiles 1.8 and 2.0 while_loop writes
        # its loop variables in place, and a fetch target that is the feed itself would
        # prune the loop away (as Paddle 1.8.5's save_inference_model does)
        _, out = fluid.layers.while_loop(lambda i, h: i < n,
                                         lambda i, h: [i + 1 if ends else i, h * 2 + 1],
                                         [i, x * 1.0])
    loop = next(op for op in main.global_block().ops if op.type == "while")
    assert loop.attrs["max_steps"] == DEFAULT_MAX_STEPS
    if max_steps is not None:
        loop._set_attr("max_steps", max_steps)
    fluid.io.save_inference_model(model_dir, ["x"], [out], fluid.Executor(), main)
    return loop.input("Condition")[0]


_LOADERS = {
    "StaticModelRunner": fluid.dygraph.StaticModelRunner,
    "TranslatedLayer": lambda d: paddle.jit.load(d, model_filename="__model__"),
}


@pytest.mark.filterwarnings("ignore:no variable in your model")
@pytest.mark.parametrize("loader", sorted(_LOADERS))
@pytest.mark.parametrize("training", [True, False])
def test_a_loop_runs_its_steps_with_gradients(tmp_path, loader, training):
    _save_doubling(str(tmp_path))
    with fluid.dygraph.guard():
        net = _LOADERS[loader](str(tmp_path))
        net.train() if training else net.eval()
        x = paddle.to_tensor(np.array([[1.0, 2.0], [0.0, -1.0]], "float32"))
        x.stop_gradient = False
        y = net(x)
        y.sum().backward()
        # three steps of 2x + 1: 1 -> 3 -> 7 -> 15, 2 -> 5 -> 11 -> 23, 0 -> 7, -1 -> -1;
        # dy/dx = 2 * 2 * 2
        np.testing.assert_array_equal(y.numpy(), [[15.0, 23.0], [7.0, -1.0]])
        np.testing.assert_array_equal(x.grad, np.full([2, 2], 8.0))
        np.testing.assert_array_equal(x.numpy(), [[1.0, 2.0], [0.0, -1.0]])


@pytest.mark.filterwarnings("ignore:no variable in your model")
@pytest.mark.parametrize("loader", sorted(_LOADERS))
def test_a_loop_that_never_ends_stops_at_max_steps(tmp_path, loader):
    condition = _save_doubling(str(tmp_path), ends=False, max_steps=25)
    with fluid.dygraph.guard():
        net = _LOADERS[loader](str(tmp_path))
        with pytest.raises(OpError, match=r"^\[operator while\] the loop ran 25 steps and its "
                           r"condition '%s' is still true \(max_steps=25\)" % condition):
            net(np.ones([1, 2], "float32"))


def _doubling(x):
    i = paddle.zeros([1], "int64")
    n = paddle.full([1], 3, "int64")
    while i < n:
        x = x * 2 + 1
        i = i + 1
    return x


def _doubling_endlessly(x):
    i = paddle.zeros([1], "int64")
    n = paddle.full([1], 3, "int64")
    while i < n:
        x = x * 2 + 1
    return x


def test_partial_program_layer_runs_the_recorded_loop_and_its_bound(dygraph):
    spec = [paddle.static.InputSpec([None, 2], "float32", "x")]
    ending = paddle.jit.to_static(_doubling, input_spec=spec)
    endless = paddle.jit.to_static(_doubling_endlessly, input_spec=spec)
    x = paddle.to_tensor(np.array([[1.0, 2.0]], "float32"))
    x.stop_gradient = False
    y = partial_program_from(ending.concrete_program)([x])
    y.sum().backward()
    np.testing.assert_array_equal(y.numpy(), [[15.0, 23.0]])
    np.testing.assert_array_equal(x.grad, [[8.0, 8.0]])
    concrete = endless.concrete_program
    loop = next(op for op in concrete.main_program.global_block().ops if op.type == "while")
    loop._set_attr("max_steps", 7)
    with pytest.raises(OpError, match=r"the loop ran 7 steps and its condition '%s' is still "
                       r"true \(max_steps=7\)" % loop.input("Condition")[0]):
        partial_program_from(concrete)([x])


# built in static mode: under 2.0 a program_guard entered in dygraph mode stays dygraph
def test_an_op_reading_a_name_nothing_wrote_names_the_caller_op_and_names():
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        fluid.layers.relu(fluid.data("x", [None, 2], "float32"))
    with pytest.raises(RuntimeError, match=r"^StaticModelRunner: op relu reads \['x'\], which "
                       "no earlier op of the model wrote"):
        run_ops(main.global_block().ops, {}, caller="StaticModelRunner")
