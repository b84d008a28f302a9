"""Autograd in dynamic mode: Tensor.backward and paddle.grad against hand-derived
gradients, accumulation, retain_graph, leaves and non-leaves, hooks, no_grad, detach /
clone, in-place rules, and the errors (each naming what went wrong)."""
import numpy as np
import pytest

import refimpl as paddle
import refimpl.nn.functional as F
from refimpl import versions
from refimpl.framework import mode

pytestmark = pytest.mark.usefixtures("dygraph")


def t(values, stop_gradient=False, dtype="float64"):
    return paddle.to_tensor(np.asarray(values, dtype), stop_gradient=stop_gradient)


def test_backward_of_a_polynomial_matches_its_derivative():
    x = t([1.0, 2.0, 3.0])
    y = paddle.sum(x * x * x + 2.0 * x)       # dy/dx = 3x^2 + 2
    y.backward()
    np.testing.assert_allclose(x.gradient(), [5.0, 14.0, 29.0])
    assert x.is_leaf and not y.is_leaf


def test_a_tensor_used_twice_gets_both_contributions():
    x = t([[1.0, 2.0], [3.0, 4.0]])
    w = t([[0.5], [-1.0]])
    y = paddle.matmul(x, w)                     # [2, 1]
    loss = paddle.sum(y * y) + paddle.sum(x)    # d/dx = 2 y w^T + 1
    loss.backward()
    yv = x.numpy() @ w.numpy()
    np.testing.assert_allclose(x.gradient(), 2 * yv @ w.numpy().T + 1)
    np.testing.assert_allclose(w.gradient(), 2 * x.numpy().T @ yv)


def test_gradients_accumulate_over_backward_calls_until_cleared():
    x = t([2.0])
    for _ in range(3):
        (x * x).backward()
    np.testing.assert_allclose(x.gradient(), [12.0])
    x.clear_grad()
    np.testing.assert_allclose(x.gradient(), [0.0])      # zeros, as Paddle
    (x * 3.0).backward()
    np.testing.assert_allclose(x.gradient(), [3.0])
    x.clear_grad(set_to_zero=False)
    assert x.gradient() is None


def test_backward_twice_needs_retain_graph():
    x = t([1.0, 2.0])
    y = paddle.sum(F.sigmoid(x))
    y.backward(retain_graph=True)
    y.backward()
    s = 1 / (1 + np.exp(-x.numpy()))
    np.testing.assert_allclose(x.gradient(), 2 * s * (1 - s))
    with pytest.raises(RuntimeError, match="a second time.*retain_graph=True"):
        y.backward()


def test_backward_seeds_with_grad_tensor_and_checks_its_shape():
    x = t([1.0, 2.0])
    y = x * 3.0
    y.backward(t([1.0, -2.0], stop_gradient=True))
    np.testing.assert_allclose(x.gradient(), [3.0, -6.0])
    with pytest.raises(ValueError, match=r"shape \[3\], the tensor \[2\]"):
        (x * 2.0).backward(t([1.0, 1.0, 1.0]))


def test_stop_gradient_leaves_get_no_gradient_and_cut_the_graph():
    x = t([1.0, 2.0])
    c = t([3.0, 4.0], stop_gradient=True)
    y = paddle.sum(x * c)
    y.backward()
    assert c.gradient() is None
    np.testing.assert_allclose(x.gradient(), [3.0, 4.0])
    z = paddle.sum(c * c)                      # nothing needs a gradient
    assert z.stop_gradient
    z.backward()                               # nothing to do, as Paddle
    assert c.gradient() is None


def test_non_leaf_gradients_follow_the_version_profile():
    x = t([1.0, 2.0])
    h = x * 2.0
    loss = paddle.sum(h * h)
    h2 = h * 1.0
    old = mode.legacy_grads
    try:
        loss.backward(retain_graph=True)
        # Paddle 2.0 keeps every gradient (legacy_grads); 2.1+ only after retain_grads()
        if old:
            np.testing.assert_allclose(h.gradient(), 2 * h.numpy())
        else:
            assert h.gradient() is None
        assert h2.gradient() is None           # not on the path to loss
    finally:
        mode.legacy_grads = old


def test_one_number_results_take_each_profiles_shape_in_one_process():
    # the tracer caches the kernel it picked per op; a kernel gives vector . vector in its
    # profile's shape, so one picked under 2.0 ([1]) must not serve profile 3 (0-D)
    from refimpl import versions
    a = t([1.0, 2.0, 3.0])
    for profile, shape in (("2.0", [1]), ("3", []), ("2.0", [1])):
        with versions.use(profile):
            out = paddle.matmul(a, a)
            assert out.shape == shape, profile
            np.testing.assert_allclose(out.numpy().reshape(-1), [14.0])


def test_retain_grads_keeps_a_non_leaf_gradient():
    old = mode.legacy_grads
    mode.legacy_grads = False
    try:
        x = t([1.0, -1.0])
        h = x * 3.0
        h.retain_grads()
        paddle.sum(h * h).backward()
        np.testing.assert_allclose(h.gradient(), 2 * h.numpy())
        assert isinstance(h.grad, paddle.Tensor)
    finally:
        mode.legacy_grads = old


def test_grad_returns_gradients_without_touching_dot_grad():
    x = t([1.0, 2.0])
    y = t([3.0])
    out = paddle.sum(x * x) * y
    gx, gy = paddle.grad(out, [x, y])
    np.testing.assert_allclose(gx.numpy(), 2 * x.numpy() * 3.0)
    np.testing.assert_allclose(gy.numpy(), [5.0])
    assert x.gradient() is None and y.gradient() is None
    assert gx.stop_gradient


def test_grad_of_an_intermediate_and_with_grad_outputs():
    x = t([1.0, 2.0, 3.0])
    h = x * x
    out = h * 2.0
    gh, = paddle.grad([out], [h], grad_outputs=[t([1.0, 0.0, -1.0])])
    np.testing.assert_allclose(gh.numpy(), [2.0, 0.0, -2.0])


def test_grad_unused_inputs_are_an_error_unless_allowed():
    x, z = t([1.0]), t([2.0])
    c = t([1.0], stop_gradient=True)
    out = x * 2.0
    with pytest.raises(ValueError, match="does not appear in the backward graph.*allow_unused"):
        paddle.grad(out, [x, z], retain_graph=True)
    gx, gz = paddle.grad(out, [x, z], allow_unused=True, retain_graph=True)
    assert gz is None and np.allclose(gx.numpy(), [2.0])
    with pytest.raises(ValueError, match="does not appear"):
        paddle.grad(paddle.sum(c * 2.0 + x), c)


def test_grad_no_grad_vars_block_the_path_through_them():
    x = t([2.0])
    a = x * 3.0
    b = x * x
    out = a + b
    gx, = paddle.grad(out, x, no_grad_vars=[a])
    np.testing.assert_allclose(gx.numpy(), [4.0])       # only through b = x^2


def test_leaf_hook_sees_the_whole_gradient_and_can_replace_it():
    x = t([1.0, 2.0])
    seen = []

    def hook(g):
        seen.append(g.numpy())
        return g * 10.0
    handle = x.register_hook(hook)
    out = paddle.sum(x * 2.0) + paddle.sum(x * x)       # two paths: 2 + 2x
    out.backward()
    np.testing.assert_allclose(seen[0], [4.0, 6.0])
    np.testing.assert_allclose(x.gradient(), [40.0, 60.0])
    handle.remove()
    x.clear_grad()
    paddle.sum(x * 2.0).backward()
    np.testing.assert_allclose(x.gradient(), [2.0, 2.0])
    assert len(seen) == 1


def test_non_leaf_hook_changes_what_flows_on():
    x = t([1.0, 2.0])
    h = x * 3.0
    h.register_hook(lambda g: g * 0.0 + 1.0)             # replace dL/dh by ones
    paddle.sum(h * h).backward()
    np.testing.assert_allclose(x.gradient(), [3.0, 3.0])


def test_hook_on_a_tensor_that_stops_gradient_is_an_error():
    with pytest.raises(ValueError, match="stops gradient"):
        t([1.0], stop_gradient=True).register_hook(lambda g: g)


def test_no_grad_context_and_decorator_record_nothing():
    x = t([1.0, 2.0])
    with paddle.no_grad():
        y = x * 2.0
    assert y.stop_gradient and y.is_leaf

    @paddle.no_grad()
    def double(v):
        return v * 2.0
    assert double(x).stop_gradient
    assert not (x * 2.0).stop_gradient


def test_detach_shares_the_value_and_cuts_the_graph_clone_keeps_it():
    x = t([1.0, 2.0])
    d = x.detach()
    assert d.stop_gradient and np.shares_memory(d._value, x._value)
    c = x.clone()
    paddle.sum(c * 3.0 + d).backward()
    np.testing.assert_allclose(x.gradient(), [3.0, 3.0])


def test_in_place_on_a_leaf_that_needs_a_gradient_is_refused():
    x = t([1.0, 2.0])
    with pytest.raises(ValueError, match="Leaf Tensor .* can't use an in-place"):
        paddle.tanh_(x)
    with paddle.no_grad():
        paddle.tanh_(x)                      # allowed without recording, as in Paddle
    np.testing.assert_allclose(x.numpy(), np.tanh([1.0, 2.0]))


def test_in_place_on_a_non_leaf_keeps_gradients_right():
    """Changed in place before an op reads it: the gradient goes through the in-place op;
    changed after an op saved it for its gradient: backward refuses, as Paddle 2.0 and
    3.3.1 (measured on 3.3.1: 'Its version is 1 but the expected version is 0')."""
    x = t([0.5, -1.0])
    h = x * 2.0
    out = paddle.tanh_(h)
    assert out is h
    paddle.sum(h * h).backward()
    hv = x.numpy() * 2.0
    np.testing.assert_allclose(x.gradient(), 2 * 2 * np.tanh(hv) * (1 - np.tanh(hv) ** 2))
    h = x * 2.0
    before = paddle.sum(h * h)                # elementwise_mul saved h at version 0
    paddle.tanh_(h)
    if versions.switch("inplace_version") is None:
        return                  # Paddle 1.8.5 has no in-place versions to check (measured)
    with pytest.raises(RuntimeError, match="received tensor_version:1 != "
                                           "wrapper_version_snapshot:0"):
        (before + paddle.sum(h)).backward()


def test_reshape_in_place_keeps_the_object_and_the_gradient():
    x = t(np.arange(6.0).reshape(2, 3))
    h = x * 1.0
    r = paddle.reshape_(h, [3, 2])
    assert r is h and h.shape == [3, 2]
    paddle.sum(h * t(np.arange(6.0).reshape(3, 2), stop_gradient=True)).backward()
    np.testing.assert_allclose(x.gradient(), np.arange(6.0).reshape(2, 3))


def test_backward_through_multi_output_ops_fills_unused_outputs_with_zeros():
    x = t(np.arange(6.0).reshape(2, 3))
    a, b, c = paddle.split(x, 3, axis=1)
    paddle.sum(b * 2.0).backward()
    np.testing.assert_allclose(x.gradient(), [[0, 2, 0], [0, 2, 0]])


def test_integer_and_bool_results_stop_gradient():
    x = t([1.0, -2.0])
    assert paddle.argmax(x).stop_gradient
    assert (x > 0).stop_gradient


def test_mixing_eager_tensors_and_static_variables_is_an_error():
    from refimpl import static
    from refimpl.framework import mode
    from refimpl.framework.program import Program, program_guard
    # program_guard leaves the mode as it is (2.0): build the Variable in static mode
    with mode.dygraph_guard(False), program_guard(Program(), Program()):
        v = static.data("v", [2], "float64")
    with pytest.raises(ValueError, match="mixes an eager Tensor .* static Variable"):
        paddle.add(t([1.0, 2.0]), v)


def test_errors_of_kernels_name_the_op_inputs_and_the_line():
    a = t(np.ones((2, 3)))
    b = t(np.ones((4, 5)))
    with pytest.raises(ValueError, match=r"\[operator matmul_v2\].*inner dims 3 and 4 "
                                         r".*test_dygraph_autograd.py"):
        paddle.matmul(a, b)
    with pytest.raises(ValueError, match=r"\[operator elementwise_add\].*same dtype.*"
                                         r"float64 and float32"):
        paddle.add(a, paddle.to_tensor(np.ones((2, 3), "float32")))


def test_tensor_basics_follow_paddle():
    x = paddle.to_tensor([[1.0, 2.0], [3.0, 4.0]])
    assert x.shape == [2, 2] and x.dtype == paddle.float32 and x.stop_gradient
    assert x.ndim == 2 and x.size == 4 and len(x) == 2
    assert paddle.to_tensor(3).dtype == paddle.int64
    assert paddle.to_tensor(np.float64(3.0)).dtype == paddle.float64
    assert paddle.to_tensor(True).dtype == paddle.bool
    assert paddle.to_tensor([2.5]).item() == 2.5
    np.testing.assert_array_equal(np.asarray(x), [[1, 2], [3, 4]])
    place = "Place(cpu)" if versions.switch("place_repr") == "place" else "CPUPlace"
    assert repr(x) == ("Tensor(shape=[2, 2], dtype=float32, place=%s, "
                       "stop_gradient=True,\n       [[1., 2.],\n        [3., 4.]])" % place)
    with pytest.raises(ValueError, match="one element"):
        x.item()
    y = x.numpy()
    y[0, 0] = 9
    assert x.numpy()[0, 0] == 1.0              # numpy() is a copy
    x.set_value(np.zeros((2, 2)))
    assert x.numpy().sum() == 0 and x.dtype == paddle.float32
    with pytest.raises(ValueError, match=r"shape \[3\] given, the tensor has \[2, 2\]"):
        x.set_value([1, 2, 3])


def test_the_shared_method_table_runs_eagerly():
    """Variable's methods, operators and indexing (tensor_methods) on eager Tensors."""
    a = np.arange(12.0).reshape(3, 4)
    x = t(a)
    np.testing.assert_allclose(x.sum().numpy(), a.sum())
    np.testing.assert_allclose(x.mean(axis=1).numpy(), a.mean(1))
    assert x.reshape([4, 3]).shape == [4, 3] and x.T.shape == [4, 3] and x.size == 12
    # Paddle 2.0 scalars are [1], 3's 0-D (scalar_shape)
    assert x[0, 0].shape == list(versions.switch("scalar_shape"))
    for key in (1, (slice(None), slice(1, 3)), (None, Ellipsis, 0), ([0, 0, 2], slice(1, None)),
                (slice(None, None, -1), 2)):
        np.testing.assert_array_equal(x[key].numpy(), a[key])
    np.testing.assert_array_equal(x[x > 5.0].numpy(), a[a > 5.0])
    paddle.sum(x[[0, 0, 2], 1:]).backward()
    np.testing.assert_array_equal(x.gradient(), [[0, 2, 2, 2], [0, 0, 0, 0], [0, 1, 1, 1]])
    np.testing.assert_array_equal([r.numpy() for r in t(a[:2])], a[:2])


def test_setitem_writes_in_place_and_keeps_gradients_right():
    x, v = t([1.0, 2.0, 3.0]), t([10.0])
    h = x * 2.0
    h[1:2] = v * 3.0
    if versions.switch("inplace_version") is not None:     # 1.8.5 has none (measured)
        assert h.inplace_version == 1
    np.testing.assert_allclose(h.numpy(), [2.0, 30.0, 6.0])
    (paddle.sum(h * h) + paddle.sum(h)).backward()
    # d/dx: 2h * 2 + 2 where h still is 2x (positions 0 and 2); d/dv: 2h * 3 + 3
    np.testing.assert_allclose(x.gradient(), [8.0 + 2, 0.0, 24.0 + 2])
    np.testing.assert_allclose(v.gradient(), [183.0])
    # a leaf needing a gradient: 3.3.1 refuses the write (2.0 writes it unrecorded: switch
    # eager_setitem_leaf, tests/test_dygraph_inplace_versions.py)
    with versions.use("3"), pytest.raises(ValueError, match="Leaf Tensor"):
        x[0] = 5.0
    h = x * 2.0
    before = paddle.sum(h * h)                       # saved h at version 0
    h[1:2] = v * 3.0
    if versions.switch("inplace_version") is None:
        return
    with pytest.raises(RuntimeError, match="Its version is 1 but the expected version is 0"):
        (before + paddle.sum(h)).backward()


def test_no_grad_vars_cut_a_path_shared_by_the_others():
    # y feeds both a (blocked) and b: y's gradient must still come through b alone
    x = t([2.0])
    y = x * 2.0
    a = y * 3.0
    b = y * y
    gx, = paddle.grad(a + b, x, no_grad_vars=[a])
    np.testing.assert_allclose(gx.numpy(), [2 * 4.0 * 2])      # d(4x^2)/dx = 8x


def test_ready_hooks_fire_as_each_leaf_is_complete_during_backward():
    from refimpl.dygraph.autograd import register_ready_hook
    x = t([[1.0, -2.0]], stop_gradient=True)
    w1, w2 = t([[0.5, 1.0], [2.0, -1.0]]), t([[1.0], [3.0]])
    loss = paddle.sum(paddle.matmul(F.relu(paddle.matmul(x, w1)) * 1.0, w2) ** 2)
    loss = loss + paddle.sum(w2)                 # w2 reached twice: one hook call, whole
    events = []
    register_ready_hook(w2, lambda p: events.append(("w2", p.gradient().copy(),
                                                    w1.gradient())))
    handle = register_ready_hook(w1, lambda p: events.append(("w1", None, None)))
    loss.backward()
    assert [e[0] for e in events] == ["w2", "w1"]
    # w2's hook saw its whole gradient while w1's was still to be computed
    assert events[0][2] is None
    np.testing.assert_allclose(events[0][1], w2.gradient())
    h = np.maximum(x.numpy() @ w1.numpy(), 0)
    np.testing.assert_allclose(w2.gradient(), 2 * h.T @ (h @ w2.numpy()) + 1)
    handle.remove()
    events.clear()
    paddle.grad(paddle.sum(w1 * w2.T), [w1])     # paddle.grad leaves .grad: no hooks
    assert events == []


def test_queued_callbacks_run_once_the_backward_has_ended():
    from refimpl.dygraph.autograd import queue_callback, register_ready_hook
    w = t([1.0, 2.0])
    seen = []
    register_ready_hook(w, lambda p: queue_callback(lambda: seen.append(p.gradient().copy())))
    paddle.sum(w * w).backward()
    np.testing.assert_allclose(seen[0], [2.0, 4.0])
    with pytest.raises(RuntimeError, match="no backward is running"):
        queue_callback(lambda: None)


def _three_consumers(x):
    # x's gradient is 1 + 1e8 - 1e8: in float32 1.0 when the latest consumer's part comes
    # first ((-1e8 + 1e8) + 1), as static backward's sum op adds, but 0.0 in the order the
    # graph reaches them from the loss ((1e8 + 1) - 1e8)
    one, big, minus_big = paddle.scale(x, 1.0), paddle.scale(x, 1e8), paddle.scale(x, -1e8)
    return minus_big + (one + big)


def test_gradients_reaching_one_tensor_add_up_latest_op_first_as_static_backward():
    x = t([2.0], dtype="float32")
    _three_consumers(x).sum().backward()
    main, startup = paddle.static.Program(), paddle.static.Program()
    mode.enable_static()
    with paddle.static.program_guard(main, startup):
        xs = paddle.static.data("x", [1], "float32")
        xs.stop_gradient = False
        grad, = paddle.static.gradients([paddle.sum(_three_consumers(xs))], [xs])
    static, = paddle.static.Executor().run(main, feed={"x": np.array([2.0], "float32")},
                                           fetch_list=[grad])
    assert x.gradient().tolist() == static.tolist() == [1.0]
