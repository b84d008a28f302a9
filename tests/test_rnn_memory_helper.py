"""rnn_memory_helper (Paddle 1.8's memory copy) and its grad op driven directly, as 1.8's
own test does: a gradient input naming a variable of another program is absent, so X@GRAD
is zeros (specs/ops/rnn.md)."""
import numpy as np

from refimpl import fluid

RNG = np.random.RandomState(3)


def _run_op(op_type, inputs, outputs, feed, foreign=()):
    program, elsewhere = fluid.Program(), fluid.Program()
    block = program.global_block()
    make = {n: (elsewhere if n in foreign else program).global_block().create_var(
        name=n, shape=[2, 3], dtype="float32") for n in inputs + outputs}
    block.append_op(type=op_type, inputs={n: make[n] for n in inputs},
                    outputs={n: make[n] for n in outputs})
    return fluid.Executor(fluid.CPUPlace()).run(program, feed=feed,
                                                fetch_list=[make[outputs[0]]])[0]


def test_forward_copies_x():
    x = RNG.randn(2, 3).astype("float32")
    np.testing.assert_array_equal(_run_op("rnn_memory_helper", ["X"], ["Out"], {"X": x}), x)


def test_grad_passes_out_grad_on():
    feed = {n: RNG.randn(2, 3).astype("float32") for n in ("X", "Out", "Out@GRAD")}
    got = _run_op("rnn_memory_helper_grad", ["X", "Out", "Out@GRAD"], ["X@GRAD"], feed)
    np.testing.assert_array_equal(got, feed["Out@GRAD"])


def test_grad_without_out_grad_is_zeros():
    feed = {n: RNG.randn(2, 3).astype("float32") for n in ("X", "Out")}
    got = _run_op("rnn_memory_helper_grad", ["X", "Out", "Out@GRAD"], ["X@GRAD"], feed,
                  foreign=("Out@GRAD",))
    np.testing.assert_array_equal(got, np.zeros((2, 3), "float32"))
