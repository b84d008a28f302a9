"""Executor.run(use_prune=True) and Program._prune / _prune_with_input (Paddle 1.8): a run
computes only what its fetches and update ops need (specs/executor.md, Pruning)."""
import warnings

import numpy as np
import pytest

from refimpl import fluid

X = np.array([[1.0, 2.0], [3.0, -1.0]], "float32")


def _two_losses(lr=0.5):
    """loss_k = mean(x @ w_k), w_k all ones, each minimized by its own SGD."""
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = fluid.data("x", [None, 2], "float32")
        losses, trains = [], []
        for k in (1, 2):
            attr = fluid.ParamAttr(name="w%d" % k, initializer=fluid.initializer.Constant(1.0))
            loss = fluid.layers.mean(fluid.layers.fc(x, 1, param_attr=attr, bias_attr=False))
            loss.persistable = True
            losses.append(loss)
            trains.append(fluid.optimizer.SGD(lr).minimize(loss)[0])
    return main, startup, x, losses, trains


def _run(fetch_list, **kwargs):
    main, startup, x, losses, trains = _two_losses()
    scope, exe = fluid.Scope(), fluid.Executor(fluid.CPUPlace())
    with fluid.scope_guard(scope):
        exe.run(startup)
        out = exe.run(main, feed={"x": X}, fetch_list=fetch_list(losses, trains), **kwargs)
    return scope, losses, out


def _weight(scope, name):
    return np.array(scope.find_var(name).get_tensor()).ravel()


def test_fetching_one_optimizers_ops_runs_only_its_update():
    scope, losses, (loss1,) = _run(lambda losses, trains: [losses[0], trains[0]])
    assert loss1 == pytest.approx(2.5)           # mean(x @ [1, 1]) = mean(3, 2)
    # d mean / d w1 = mean of x's rows = [2, 0.5]; w1 = 1 - 0.5 * grad
    np.testing.assert_allclose(_weight(scope, "w1"), [0.0, 0.75])
    np.testing.assert_allclose(_weight(scope, "w2"), [1.0, 1.0])
    assert scope.find_var(losses[1].name) is None


def test_use_prune_keeps_every_update_op_when_none_is_fetched():
    scope, losses, _ = _run(lambda losses, trains: [losses[0]], use_prune=True)
    # w2's update needs loss2's backward, hence loss2 itself: both weights move
    np.testing.assert_allclose(_weight(scope, "w1"), [0.0, 0.75])
    np.testing.assert_allclose(_weight(scope, "w2"), [0.0, 0.75])


def test_without_prune_every_op_runs():
    scope, losses, _ = _run(lambda losses, trains: [losses[0]])
    assert np.array(scope.find_var(losses[1].name).get_tensor()) == pytest.approx(2.5)


def test_feeding_an_intermediate_skips_the_ops_computing_it():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = fluid.data("x", [None, 2], "float32")
        y = fluid.layers.scale(x, 10.0)
        total = fluid.layers.reduce_sum(y)
    exe = fluid.Executor(fluid.CPUPlace())
    with fluid.scope_guard(fluid.Scope()), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        (got,) = exe.run(main, feed={"x": X, y.name: X}, fetch_list=[total], use_prune=True)
    assert got == pytest.approx(X.sum())         # the fed y, not 10 * x
    assert any("The variable x is not found in program" in str(w.message) for w in caught)


def test_pruned_program_is_cached_per_fetch_list():
    main, startup, x, losses, trains = _two_losses()
    exe = fluid.Executor(fluid.CPUPlace())
    calls = []
    prune = exe._prune_program
    exe._prune_program = lambda *args: calls.append(args[2]) or prune(*args)
    with fluid.scope_guard(fluid.Scope()):
        exe.run(startup)
        for fetch in ([losses[0], trains[0]], [losses[0], trains[1]]) * 3:
            exe.run(main, feed={"x": X}, fetch_list=fetch)
    assert calls == [[losses[0]], [losses[0]]]


def test_a_failing_pruned_run_leaves_its_persistable_outputs_declared():
    main, startup, x, losses, trains = _two_losses()
    scope, exe = fluid.Scope(), fluid.Executor(fluid.CPUPlace())
    with fluid.scope_guard(scope):
        exe.run(startup)
        with pytest.raises(Exception, match="'x' has no value"):
            exe.run(main, feed={}, fetch_list=[losses[0], trains[0]])
    assert not scope.find_var(losses[0].name).is_initialized()
    assert scope.find_var(losses[1].name) is None


def test_prune_targets_ops_and_variables():
    main, startup, x, losses, trains = _two_losses()
    types = lambda p: [op.type for op in p.global_block().ops]   # noqa: E731
    assert types(main._prune(losses[0])) == ["mul", "mean"]
    # mean_grad reads mean's input, not its output (as Paddle 1.8.5 prunes it)
    assert types(main._prune(trains[0])) == ["mul", "fill_constant", "mean_grad", "mul_grad",
                                             "sgd"]
    assert types(main._prune_with_input([losses[0].name], [losses[0]])) == []
    with pytest.raises(ValueError, match="can only be Variable or Operator"):
        main._prune(None)
    with pytest.raises(ValueError, match="associated operator that generates it"):
        main._prune("w1")      # only an update op writes it
    with pytest.raises(TypeError, match="not an optimizer's update op"):
        fluid.Executor().run(main, feed={"x": X}, fetch_list=[main.global_block().ops[0]])


def test_a_single_variable_fetch_list_is_pruned_for():
    # Paddle 3's test_elementwise_heaviside_op passes fetch_list=out with use_prune=True
    # (it was iterated, appending slice ops to the default program)
    _, _, out = _run(lambda losses, trains: losses[0], use_prune=True)
    np.testing.assert_allclose(out[0], np.mean(X.sum(axis=1)))
