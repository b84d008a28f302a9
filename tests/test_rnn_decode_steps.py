"""Eager dynamic_decode hands its decoder the step as an int64 [1] tensor (as Paddle 2.0's
and 3.3.1's dygraph decode do: a helper may read time.dtype), and an RNN cell's
get_initial_states takes a nested batch_ref (an encoder's (outputs, states)) by its first
tensor, as Paddle's flatten(batch_ref)[0]."""
import numpy as np

import refimpl as paddle
import refimpl.nn as nn


class _Helper(paddle.fluid.layers.TrainingHelper):
    times = []

    def next_inputs(self, time, outputs, states, sample_ids):
        self.times.append((time.dtype.name, list(time.shape), int(time.numpy()[0])))
        return super().next_inputs(time, outputs, states, sample_ids)


def test_eager_decode_steps_are_int64_tensors():
    paddle.disable_static()
    paddle.seed(1)
    cell = nn.GRUCell(3, 4)
    x = paddle.to_tensor(np.random.RandomState(0).rand(2, 3, 3).astype("float32"))
    lengths = paddle.to_tensor(np.array([3, 3], "int64"))
    helper = _Helper(x, lengths)
    decoder = paddle.fluid.layers.BasicDecoder(cell, helper)
    outputs, _ = nn.dynamic_decode(decoder, inits=cell.get_initial_states(x))
    assert helper.times == [("int64", [1], 0), ("int64", [1], 1), ("int64", [1], 2)]
    # teacher forcing reads x's steps: the cell's outputs equal the cell run over x
    h = cell.get_initial_states(x)
    for t in range(3):
        y, h = cell(x[:, t], h)
        np.testing.assert_allclose(outputs.cell_outputs.numpy()[:, t], y.numpy(), rtol=1e-6)


def test_initial_states_from_a_nested_batch_ref():
    paddle.disable_static()
    cell = nn.LSTMCell(3, 4)
    ref = (paddle.zeros([5, 7, 3]), (paddle.zeros([9, 4]), paddle.zeros([9, 4])))
    h, c = cell.get_initial_states(ref)
    assert h.shape == [5, 4] and c.shape == [5, 4]
