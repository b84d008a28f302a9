"""fluid.dygraph.TracedLayer (Paddle 1.8): the program of one eager call, run by an
Executor on the layer's current values, equal across traces, with the tensors the layer
holds as persistables, and saved as an inference model."""
import os

import numpy as np

from refimpl import fluid
from refimpl.versions import use


class _Net(fluid.dygraph.Layer):
    def __init__(self):
        super().__init__()
        self.fc = fluid.dygraph.Linear(3, 2, act="tanh")
        self.weights = [self.create_parameter([2, 2])]      # a parameter in a plain list
        self.offset = fluid.dygraph.to_variable(np.full((4, 2), 0.5, "float32"))

    def forward(self, x):
        return fluid.layers.matmul(self.fc(x), self.weights[0]) + self.offset


def test_traced_program_matches_eager_and_follows_training(tmp_path):
    x = np.random.RandomState(3).randn(4, 3).astype("float32")
    with fluid.dygraph.guard():
        net = _Net()
        sgd = fluid.optimizer.SGD(0.1, parameter_list=net.parameters())
        out, traced = fluid.dygraph.TracedLayer.trace(net, [fluid.dygraph.to_variable(x)])
        np.testing.assert_allclose(traced([x])[0], out.numpy(), rtol=1e-6)
        persistables = {v.name for v in traced.program.list_vars() if v.persistable}
        assert persistables == {net.fc.weight.name, net.fc.bias.name, net.weights[0].name,
                                net.offset.name}
        fluid.layers.reduce_mean(out).backward()      # the eager outputs keep their graph
        sgd.minimize(fluid.layers.reduce_mean(out))
        after = net(fluid.dygraph.to_variable(x)).numpy()
        np.testing.assert_allclose(traced([x])[0], after, rtol=1e-6)
        _, again = fluid.dygraph.TracedLayer.trace(net, [fluid.dygraph.to_variable(x)])
        # (the readable code: str is 1.8's desc text, with each op's call stack, under 1.8:
        # switch fluid_debug_text)
        assert again.program._to_readable_code() == traced.program._to_readable_code()
        traced.save_inference_model(str(tmp_path / "model"))
    assert persistables <= set(os.listdir(tmp_path / "model"))
    exe = fluid.Executor(fluid.CPUPlace())
    scope = fluid.Scope()
    with fluid.scope_guard(scope):
        program, feeds, fetches = fluid.io.load_inference_model(str(tmp_path / "model"), exe)
        got = exe.run(program, feed={feeds[0]: x}, fetch_list=fetches)[0]
    np.testing.assert_allclose(got, after, rtol=1e-6)


def test_private_trace_gives_paddle_20s_five_values():
    # Paddle 2.0's fluid.dygraph.jit._trace (2.0's test_model takes [1], the program):
    # (eager outputs, program, feed names, fetch names, the persistable tensors)
    from refimpl.fluid.dygraph import jit
    x = np.random.RandomState(4).randn(4, 3).astype("float32")
    with fluid.dygraph.guard():
        net = _Net()
        out, program, feeds, fetches, params = jit._trace(net, [fluid.dygraph.to_variable(x)])
        assert feeds == ["feed_0"] and len(fetches) == 1
        assert {p.name for p in params} == {net.fc.weight.name, net.fc.bias.name,
                                            net.weights[0].name, net.offset.name}
        _, traced = fluid.dygraph.TracedLayer.trace(net, [fluid.dygraph.to_variable(x)])
        assert program._to_readable_code() == traced.program._to_readable_code()
        np.testing.assert_allclose(traced([x])[0], out.numpy(), rtol=1e-6)


def test_paddle_20_module_paths_of_declarative_and_the_translator():
    from refimpl.fluid.dygraph import dygraph_to_static, jit
    from refimpl.fluid.dygraph.dygraph_to_static import program_translator
    assert jit.declarative is dygraph_to_static.declarative
    assert program_translator.ProgramTranslator() is fluid.dygraph.ProgramTranslator()
def test_argument_errors_in_paddle_2s_words(tmp_path):
    import pytest
    where = "fluid.dygraph.jit.TracedLayer"
    with fluid.dygraph.guard():
        x = fluid.dygraph.to_variable(np.ones((4, 3), "float32"))
        net = _Net()
        with pytest.raises(AssertionError) as e:
            fluid.dygraph.TracedLayer.trace(None, [x])
        assert str(e.value) == ("The type of 'layer' in %s.trace must be fluid.dygraph.Layer, "
                                "but received <class 'NoneType'>." % where)
        with pytest.raises(TypeError) as e:
            fluid.dygraph.TracedLayer.trace(net, [True, 1])
        assert str(e.value) == ("The type of 'each element of inputs' in %s.trace must be "
                                "fluid.Variable, but received <class 'bool'>." % where)
        _, traced = fluid.dygraph.TracedLayer.trace(net, x)
        with pytest.raises(AssertionError) as e:
            traced.set_strategy(1, fluid.ExecutionStrategy())
        assert str(e.value) == ("The type of 'build_strategy' in %s.set_strategy must be "
                                "fluid.BuildStrategy, but received <class 'int'>." % where)
        with use("2.0"):     # switch traced_layer_save_checks
            with pytest.raises(TypeError) as e:
                traced.save_inference_model(str(tmp_path), [0], False)
            assert str(e.value) == (
                "The type of 'fetch' in %s.save_inference_model must be (<class 'NoneType'>, "
                "<class 'list'>), but received <class 'bool'>. " % where)
            with pytest.raises(TypeError, match=r"'each element of feed' in .* must be <class "
                                                r"'int'>, but received <class 'NoneType'>\. $"):
                traced.save_inference_model(str(tmp_path), [None], [0])
            traced.save_inference_model(str(tmp_path))
        assert os.path.exists(os.path.join(str(tmp_path), "__model__"))
        with use("1.8"):     # 1.8.5 takes any sequence of positions (its test_imperative_ptb_rnn)
            traced.save_inference_model(str(tmp_path / "ranged"), feed=range(1))
        assert os.path.exists(os.path.join(str(tmp_path / "ranged"), "__model__"))
