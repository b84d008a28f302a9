"""The forward -> grad hand-off (SavedForGrad): the compiled conv2d's im2col columns and max
pooling's window argmax computed in the forward are reused by the grad ops. Which ops the
executor links, that the grad op really uses what was saved (and only when it was saved
from its own input), that recompute links the recomputed copy, and that memory measurement
counts what is held. The numpy references recompute: with REFIMPL_KERNELS=numpy nothing is
linked."""
import numpy as np
import pytest

import refimpl as paddle
from refimpl import fluid, static
from refimpl.framework import unique_name
from refimpl.dispatch import select_kernel
from refimpl.executor import Plan, bind_op
from refimpl.executor.hand_off import SavedForGrad, link_saved_for_grad
from refimpl.framework.scope import Scope

paddle.enable_static()

COMPILED = select_kernel("conv2d", "forward").compiled
needs_compiled = pytest.mark.skipif(not COMPILED, reason="the hand-off is the compiled "
                                    "kernels'; compiled kernels disabled or not built")


def _lenet_like(recompute=False):
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup), unique_name.guard():
        x = static.data("x", [None, 1, 8, 8], "float32")
        y = static.data("y", [None, 1], "int64")
        h1 = fluid.layers.conv2d(x, 3, 3, act="relu")
        h2 = fluid.layers.conv2d(h1, 4, 3, act="relu")
        logits = static.nn.fc(paddle.nn.functional.max_pool2d(h2, 2, 2), 2)
        loss = paddle.mean(fluid.layers.softmax_with_cross_entropy(logits, y))
        opt = fluid.optimizer.SGD(0.1)
        if recompute:
            opt = fluid.optimizer.RecomputeOptimizer(opt)
            opt._set_checkpoints([h1])
        opt.minimize(loss)
    return main, startup, loss


def _pairs(ops):
    links = link_saved_for_grad(ops)
    by_holder = {}
    for i, h in links.items():
        by_holder.setdefault(id(h), []).append(i)
    return sorted((ops[a].type, ops[b].type, a, b) for a, b in map(sorted, by_holder.values()))


@needs_compiled
def test_each_conv_and_pool_is_linked_to_its_grad_op():
    main, _, _ = _lenet_like()
    ops = main.global_block().ops
    pairs = _pairs(ops)
    assert [(f, g) for f, g, _, _ in pairs] == [("conv2d", "conv2d_grad")] * 2 + \
        [("pool2d", "pool2d_grad")]
    for _, _, a, b in pairs:
        assert ops[a].input("Input") == ops[b].input("Input")
        assert ops[a].input("Filter") == ops[b].input("Filter")


@needs_compiled
def test_an_op_rewriting_the_input_in_between_breaks_the_link():
    main, _, _ = _lenet_like()
    block = main.global_block()
    ops = list(block.ops)
    conv = next(op for op in ops if op.type == "conv2d")
    grad_at = next(i for i, op in enumerate(ops) if op.type == "conv2d_grad"
                   and op.input("Input") == conv.input("Input"))
    rewrite = block._insert_op(grad_at, type="scale", inputs={"X": conv.input("Input")},
                               outputs={"Out": conv.input("Input")}, attrs={"scale": 2.0})
    ops = list(block.ops)
    assert rewrite in ops
    linked = [ops[i].input("Input") for i in link_saved_for_grad(ops)]
    assert conv.input("Input") not in linked


@needs_compiled
def test_recompute_links_the_recomputed_copy_not_the_original():
    """With checkpoint h1, conv1 (before it) is recomputed in the backward pass; the copy
    reads the same fed x as the original, and the nearer copy must get the link, or the
    original would hold its columns through the whole forward pass."""
    main, _, _ = _lenet_like(recompute=True)
    ops = main.global_block().ops
    pairs = _pairs(ops)
    assert len(pairs) == 3
    first_grad = min(i for i, op in enumerate(ops) if op.type.endswith("_grad"))
    conv1_copies = [i for i, op in enumerate(ops) if op.type == "conv2d"
                    and op.input("Input") == ["x"]]
    assert len(conv1_copies) == 2 and conv1_copies[1] > first_grad
    linked = {fwd_at for _, _, fwd_at, _ in pairs}
    assert conv1_copies[1] in linked and conv1_copies[0] not in linked


def _kernels(op_type):
    """(forward, backward): the op's compiled kernels."""
    return select_kernel(op_type, "forward").fn, select_kernel(op_type, "backward").fn


@needs_compiled
def test_the_grad_op_uses_what_its_forward_saved():
    forward, backward = _kernels("conv2d")
    rng = np.random.RandomState(0)
    x = rng.randn(2, 3, 6, 6)
    f = rng.randn(4, 3, 3, 3)
    saved = SavedForGrad()
    y = forward(x, f, saved=saved)
    dy = rng.randn(*y.shape)
    dx_ref, df_ref = backward(x, f, dy)
    assert saved.nbytes > 0
    # Spoil what was saved: a grad op that used it gives a zero filter gradient.
    spoiled = np.zeros_like(saved.value)
    saved.put(x, spoiled)
    _, df = backward(x, f, dy, saved=saved)
    np.testing.assert_array_equal(df, np.zeros_like(df))
    assert saved.value is None   # released once taken
    # Saved from another array: not used, the columns are recomputed.
    saved.put(x.copy(), spoiled)
    dx, df = backward(x, f, dy, saved=saved)
    np.testing.assert_allclose(df, df_ref, rtol=1e-12)
    np.testing.assert_allclose(dx, dx_ref, rtol=1e-12)


@needs_compiled
def test_max_pool_grad_uses_the_argmax_its_forward_saved():
    forward, backward = _kernels("pool2d")
    attrs = {"pooling_type": "max", "ksize": [2, 2], "strides": [2, 2]}
    x = np.random.RandomState(0).randn(2, 3, 4, 6)
    saved = SavedForGrad()
    y = forward(x, saved=saved, **attrs)
    dy = np.arange(1.0, y.size + 1).reshape(y.shape)
    dx_ref = backward(x, y, dy, **attrs)
    assert saved.nbytes > 0
    np.testing.assert_array_equal(backward(x, y, dy, saved=saved, **attrs), dx_ref)
    # A saved argmax naming every window's last cell moves every gradient there.
    forward(x, saved=saved, **attrs)
    saved.put(x, np.full_like(saved.value, 3))   # one cell code per window
    dx = backward(x, y, dy, saved=saved, **attrs)
    np.testing.assert_array_equal(dx[:, :, 1::2, 1::2], dy)
    assert dx.sum() == dy.sum()


def _plan(main, feed, loss, linked):
    """A Plan with the hand-off (the executor's) or with every op bound unlinked."""
    plan = Plan(main, list(feed), [loss.name])
    if not linked:
        plan.runs = [bind_op(op) for op in plan.ops]
        plan.saved_for_grad = []
    return plan


def test_training_with_the_hand_off_equals_training_without():
    main, startup, loss = _lenet_like()
    rng = np.random.RandomState(1)
    feed = {"x": rng.randn(4, 1, 8, 8).astype("float32"),
            "y": rng.randint(0, 2, (4, 1)).astype("int64")}
    initial = Scope()
    static.Executor().run(startup, scope=initial)
    results = []
    for linked in (True, False):
        env = {name: value.copy() for name, value in initial._values.items()}
        plan = _plan(main, feed, loss, linked)
        losses = []
        for _ in range(3):
            env.update(feed)
            plan.run(env)
            losses.append(env[loss.name].item())
            plan.drop_temporaries(env)
        results.append((losses, {p.name: env[p.name].copy() for p in main.all_parameters()}))
    (a, pa), (b, pb) = results
    assert a == b and a[2] < a[0]
    for name in pa:
        np.testing.assert_array_equal(pa[name], pb[name])


@needs_compiled
def test_memory_measurement_counts_what_forwards_hold_for_grads():
    main, startup, loss = _lenet_like()
    feed = {"x": np.ones((4, 1, 8, 8), "float32"), "y": np.zeros((4, 1), "int64")}
    peaks = []
    for linked in (True, False):
        scope = Scope()
        static.Executor().run(startup, scope=scope)
        scope._values.update(feed)
        peaks.append(_plan(main, feed, loss, linked).run_measuring_memory(scope._values))
    # the two convs' im2col matrices ([1*3*3, 4*6*6] and [3*3*3, 4*4*4]) and the pool's
    # argmax (one value per window, 4*4*2*2), float32
    held = 4 * (9 * 144 + 27 * 64 + 64)
    assert 0 < peaks[0] - peaks[1] <= held


def test_memory_optimize_true_keeps_nothing_for_grad_ops():
    """memory_optimize=True trades the large hand-offs for memory: conv2d_grad recomputes
    the columns (pool2d's argmax, no larger than its output, is still kept), and the
    training is the same bit for bit."""
    main, startup, loss = _lenet_like()
    initial = Scope()
    static.Executor().run(startup, scope=initial)
    feed = {"x": np.random.RandomState(2).randn(4, 1, 8, 8).astype("float32"),
            "y": np.zeros((4, 1), "int64")}
    losses = {}
    for memory_optimize, linked in ((None, 3), (False, 3), (True, 1)):
        strategy = static.BuildStrategy()
        strategy.memory_optimize = memory_optimize
        program = static.CompiledProgram(main, build_strategy=strategy).with_data_parallel(
            loss.name, places=[paddle.CPUPlace()])
        scope = Scope()
        scope._values.update({k: v.copy() for k, v in initial._values.items()})
        exe = static.Executor()
        losses[memory_optimize] = [exe.run(program, feed=feed, fetch_list=[loss],
                                           scope=scope)[0].item() for _ in range(3)]
        place_plans, = program._device_sets[id(scope)].plans.values()
        assert len(place_plans.plans[0].saved_for_grad) == (linked if COMPILED else 0)
    assert losses[None] == losses[False] == losses[True]
    assert losses[True][2] < losses[True][0]
