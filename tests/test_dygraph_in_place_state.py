"""Eager ops that update state in place (an optimizer's Param -> ParamOut, batch_norm's
Mean -> MeanOut) leave an input alone when its output is another tensor, as Paddle's
kernels do: Paddle 1.8's OpTest passes its own ParamOut, with inputs that share the test's
numpy arrays (to_variable's zero_copy, which shares them under 1.8 only)."""
import numpy as np
import pytest

from refimpl import fluid
from refimpl.dygraph import tracer
from refimpl.dygraph.tensor import Tensor

pytestmark = pytest.mark.paddle("1.8")


def _t(a):
    return fluid.dygraph.to_variable(np.asarray(a, "float32"))


def test_momentum_into_other_tensors_keeps_its_inputs():
    param, grad = np.array([1.0, 2.0], "float32"), np.array([0.5, -1.0], "float32")
    velocity = np.array([0.1, 0.2], "float32")
    with fluid.dygraph.guard():
        p, v = _t(param), _t(velocity)
        p_out, v_out = Tensor._placeholder(), Tensor._placeholder()
        tracer.run_op("momentum", {"Param": p, "Grad": _t(grad), "Velocity": v,
                                   "LearningRate": _t([0.1])},
                      {"ParamOut": p_out, "VelocityOut": v_out}, {"mu": 0.5})
        want_v = 0.5 * velocity + grad
        np.testing.assert_allclose(v_out.numpy(), want_v, rtol=1e-6)
        np.testing.assert_allclose(p_out.numpy(), param - 0.1 * want_v, rtol=1e-6)
        # the inputs (and the arrays they share) keep their values
        np.testing.assert_array_equal(p.numpy(), param)
        np.testing.assert_array_equal(v.numpy(), velocity)
        np.testing.assert_array_equal(param, np.array([1.0, 2.0], "float32"))


def test_sgd_into_the_parameter_itself_updates_it_in_place():
    with fluid.dygraph.guard():
        p = _t([1.0, 2.0])
        buffer = p._value
        tracer.run_op("sgd", {"Param": p, "LearningRate": _t([0.5]), "Grad": _t([2.0, 4.0])},
                      {"ParamOut": p}, {})
        np.testing.assert_array_equal(p.numpy(), [0.0, 0.0])
        assert p._value is buffer     # no parameter-sized copy per step


def test_only_state_updating_ops_pair_inputs_with_outputs():
    assert [tracer.layout("ftrl").ins[i][0] for i, _ in tracer.layout("ftrl").state_pairs] \
        == ["Param", "SquaredAccumulator", "LinearAccumulator"]
    for op in ("relu", "elementwise_add", "matmul_v2", "softmax_with_cross_entropy"):
        assert tracer.layout(op).state_pairs == []
