"""The Plan runs each optimize-phase op right after the last op it depends on
(refimpl/executor/op_order.py), so a parameter's gradient dies at its update instead of
at the end of the backward; the trained values are bit-identical to the program's order."""
import numpy as np

import refimpl as paddle
from refimpl import static
from refimpl.executor import executor as executor_module
from refimpl.executor.op_order import with_updates_early
from refimpl.framework import unique_name
from refimpl.framework.program import OpRole
from refimpl.framework.scope import Scope


def _mlp(optimizer):
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup), unique_name.guard():
        attr = paddle.ParamAttr(initializer=paddle.nn.initializer.Uniform(-0.5, 0.5, seed=3))
        h = static.data("x", [None, 8], "float32")
        for _ in range(3):
            h = static.nn.fc(h, 8, activation="relu", weight_attr=attr)
        loss = paddle.mean(static.nn.fc(h, 1, weight_attr=attr))
        optimizer().minimize(loss)
    return main, startup, loss


def _train(optimizer, steps=3):
    main, startup, loss = _mlp(optimizer)
    scope, exe = Scope(), static.Executor()
    exe.run(startup, scope=scope)
    x = np.random.RandomState(0).rand(4, 8).astype("float32")
    losses = [exe.run(main, feed={"x": x}, fetch_list=[loss], scope=scope)[0]
              for _ in range(steps)]
    params = {p.name: np.array(scope.find_var(p.name).get_tensor())
              for p in main.all_parameters()}
    return main, losses, params


OPTIMIZERS = {
    "momentum": lambda: paddle.optimizer.Momentum(0.1, momentum=0.9),
    # regularization and clipping ops in the optimize phase, and a learning-rate schedule
    "adam_decay_clip": lambda: paddle.optimizer.Adam(
        paddle.optimizer.lr.StepDecay(0.01, step_size=1), weight_decay=0.01,
        grad_clip=paddle.nn.ClipGradByGlobalNorm(1.0)),
}


def test_results_are_those_of_the_program_order(monkeypatch):
    early = {name: _train(make) for name, make in OPTIMIZERS.items()}
    monkeypatch.setattr(executor_module, "with_updates_early", list)
    for name, make in OPTIMIZERS.items():
        _, losses, params = _train(make)
        _, early_losses, early_params = early[name]
        np.testing.assert_array_equal(early_losses, losses)
        for k in params:
            np.testing.assert_array_equal(early_params[k], params[k], err_msg=k)


def test_an_update_runs_right_after_its_gradient_is_made():
    main, _, _ = _train(OPTIMIZERS["momentum"], steps=0)
    ops = main.global_block().ops
    order = with_updates_early(ops)
    assert sorted(map(id, order)) == sorted(map(id, ops))
    assert [op.type for op in ops][-8:] == ["momentum"] * 8   # the program's order
    made = {}
    for i, op in enumerate(order):
        for n in op.output_arg_names:
            made.setdefault(n, i)
    updates = [(i, op) for i, op in enumerate(order) if op.type == "momentum"]
    for i, op in updates:
        grad = op.input("Grad")[0]
        assert i == made[grad] + 1 or order[i - 1].type == "momentum", (op, grad)
    # the last layer's weight is updated before the first layer's gradient is made
    first_grad = next(op.input("Grad")[0] for _, op in updates if op.input("Param")[0]
                      == "fc_0.w_0")
    last_update = next(i for i, op in updates if op.input("Param")[0] == "fc_3.w_0")
    assert last_update < made[first_grad]


def test_an_op_drawing_random_numbers_keeps_its_place():
    main = static.Program()
    with static.program_guard(main, static.Program()):
        x = static.data("x", [2, 3], "float32")
        paddle.scale(x, 2.0)
        with main._role_guard(OpRole.Optimize):
            paddle.uniform([2, 3], seed=1)   # reads nothing, but draws from a stream
            paddle.scale(x, 3.0)             # reads only the feed: moves to the front
    moved = with_updates_early(main.global_block().ops)
    assert [(op.type, op.attrs.get("scale")) for op in moved] == [
        ("scale", 3.0), ("scale", 2.0), ("uniform_random", None)]


def test_ops_placed_after_the_same_op_and_a_barrier():
    """Each optimize-phase op goes right after the latest op it conflicts with, ahead of
    the ops placed there before it; nothing moves above a collective."""
    main = static.Program()
    with static.program_guard(main, static.Program()):
        x = static.data("x", [2, 3], "float32")
        a = paddle.scale(x, 2.0)
        b = paddle.scale(a, 3.0)
        with main._role_guard(OpRole.Optimize):
            u1 = paddle.scale(a, 4.0)    # after the op making `a`
            paddle.scale(a, 5.0)         # after it too, ahead of the one above
        c = paddle.scale(b, 6.0)
        with main._role_guard(OpRole.Optimize):
            paddle.scale(u1, 7.0)        # right after the op making u1
        main.global_block().append_op(type="c_allreduce_sum", inputs={"X": [c]},
                                      outputs={"Out": [c]}, attrs={"ring_id": 0})
        with main._role_guard(OpRole.Optimize):
            paddle.scale(x, 8.0)         # reads only the feed, but stays below the collective
    moved = with_updates_early(main.global_block().ops)
    assert [op.attrs.get("scale", op.type) for op in moved] == [
        2.0, 5.0, 4.0, 7.0, 3.0, 6.0, "c_allreduce_sum", 8.0]
