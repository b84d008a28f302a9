"""Inputs a grad op reads only for their shape (grad_shape_only, Paddle's no-need-buffer
variables: elementwise_add's and elementwise_sub's X and Y): after their last other use
the Plan keeps a buffer-less stand-in of the same shape and dtype, so the activations fed
to a bias or residual add are freed in the forward; training results are bit-identical."""
import numpy as np

import refimpl as paddle
from refimpl import static
from refimpl.executor import executor as executor_module, folded_chains
from refimpl.executor.executor import Plan
from refimpl.framework import unique_name
from refimpl.framework.scope import Scope


def _net():
    """x -> fc (mul, then a bias add: mul's output is read later only for its shape) ->
    residual add with a relu branch -> mean of squares; Momentum."""
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup), unique_name.guard():
        attr = paddle.ParamAttr(initializer=paddle.nn.initializer.Uniform(-0.5, 0.5, seed=3))
        x = static.data("x", [None, 32], "float32")
        h = static.nn.fc(x, 32, weight_attr=attr)
        s = paddle.add(h, paddle.nn.functional.relu(static.nn.fc(h, 32, weight_attr=attr)))
        loss = paddle.mean(s * s)
        paddle.optimizer.Momentum(0.05, momentum=0.9).minimize(loss)
    return main, startup, loss


def _train(steps=3):
    main, startup, loss = _net()
    scope, exe = Scope(), static.Executor()
    exe.run(startup, scope=scope)
    x = np.random.RandomState(0).randn(16, 32).astype("float32")
    losses = [exe.run(main, feed={"x": x}, fetch_list=[loss], scope=scope)[0]
              for _ in range(steps)]
    return losses, {p.name: np.array(scope.find_var(p.name).get_tensor())
                    for p in main.all_parameters()}


def test_the_bias_add_input_is_kept_as_a_stand_in_only():
    main, _, loss = _net()
    plan = Plan(main, ["x"], [loss.name])
    ops = plan.ops
    first_add = next(i for i, op in enumerate(ops) if op.type == "elementwise_add")
    mul_out = ops[first_add].input("X")[0]
    assert mul_out in plan.shrink_after[first_add]
    # freed for good at its shape-only reader, the bias add's grad op
    dead_at = next(i for i, names in enumerate(plan.free_after) if mul_out in names)
    assert ops[dead_at].type == "elementwise_add_grad"
    assert mul_out in ops[dead_at].input("X")


def test_stand_ins_hold_no_buffer_and_lower_the_peak(monkeypatch):
    # the fc chains run as ops (folded, mul's output is never made: folded_chains.py)
    monkeypatch.setattr(folded_chains, "select_folded_chain", lambda *args: None)
    main, _, loss = _net()
    env = {"x": np.ones((256, 32), "float32")}
    for v in main.global_block().vars.values():
        if v.persistable:
            env[v.name] = np.full([d if d > 0 else 1 for d in v.shape], 0.1, "float32")
    plan = Plan(main, ["x"], [loss.name])
    with_stand_ins = plan.run_measuring_memory(dict(env))
    plan.shrink_after = [()] * len(plan.ops)
    without = plan.run_measuring_memory(dict(env))
    # the fc's mul output [256, 32] float32 was held through the forward
    assert without - with_stand_ins >= 256 * 32 * 4, (without, with_stand_ins)
    env = dict(env)
    executor_module._keep_shape_only(env, "x")
    assert env["x"].shape == (256, 32) and env["x"].dtype == np.float32
    assert env["x"].strides == (0, 0) and not env["x"].flags.writeable


def test_training_is_bit_identical_without_stand_ins(monkeypatch):
    losses, params = _train()
    monkeypatch.setattr(executor_module, "_keep_shape_only", lambda env, name: None)
    plain_losses, plain_params = _train()
    np.testing.assert_array_equal(losses, plain_losses)
    for k in params:
        np.testing.assert_array_equal(params[k], plain_params[k], err_msg=k)
