"""Control flow (specs/control_flow.md): values against plain Python / numpy, gradients
against finite differences, and the errors."""
import inspect

import numpy as np
import pytest

import refimpl as paddle
from refimpl import fluid
from refimpl.framework.errors import OpError

from helpers import central_differences

L = fluid.layers


def _build(fn):
    main, start = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, start):
        out = fn()
    return main, start, out


def _run(main, feed, fetch, start=None):
    exe = fluid.Executor()
    if start is not None:
        exe.run(start)
    return exe.run(main, feed=feed, fetch_list=fetch)


def test_while_loop_sums_i_below_10():
    def build():
        i = L.fill_constant([1], "int64", 0)
        s = L.fill_constant([1], "int64", 0)
        ten = L.fill_constant([1], "int64", 10)
        return L.while_loop(lambda i, s: i < ten, lambda i, s: [i + 1, s + i], [i, s])
    main, _, (i, s) = _build(build)
    iv, sv = _run(main, {}, [i, s])
    assert iv[0] == 10 and sv[0] == sum(range(10))


def test_while_loop_over_nested_loop_vars_the_body_may_reshape():
    """Dicts and lists of Variables as loop_vars; the body may change the containers it
    gets (the returned ones are fresh) and a loop variable's shape (as Paddle allows)."""
    def build():
        i = L.fill_constant([1], "int64", 0)
        ten = L.fill_constant([1], "int64", 3)
        state = {"b": L.fill_constant([1], "float32", 1.0),
                 "a": [L.fill_constant([1, 2], "float32", 0.5)]}

        def body(i, state):
            state["b"] = state["b"] * 2.0
            state["a"][0] = L.reshape(state["a"][0], [2, -1]) + 1.0
            return [i + 1, state]
        return L.while_loop(lambda i, state: i < ten, body, [i, state])
    main, _, (i, state) = _build(build)
    assert sorted(state) == ["a", "b"] and list(state["a"][0].shape) == [-1, -1]
    iv, b, a = _run(main, {}, [i, state["b"], state["a"][0]])
    assert iv[0] == 3 and b[0] == 8.0
    np.testing.assert_array_equal(a, np.full((2, 1), 3.5, "float32"))


def test_while_loop_argument_errors_as_paddle():
    i = L.fill_constant([1], "int64", 0)
    with pytest.raises(ValueError, match="non-empty"):
        L.while_loop(lambda: i < 1, lambda: [], [])
    with pytest.raises(TypeError, match="list or tuple"):
        L.while_loop(lambda i: i < 1, lambda i: i + 1, i)
    with pytest.raises(ValueError, match="structure of loop_vars"):
        L.while_loop(lambda i: i < 1, lambda i: [i + 1, i], [i])


@pytest.mark.parametrize("taken", [True, False])
def test_cond_runs_only_the_taken_branch(taken):
    def build():
        p = fluid.data("p", [1], "bool")
        x = fluid.data("x", [3], "float64")
        return x, L.cond(p, lambda: (x * 2.0, x + 1.0), lambda: (x - 1.0, x * x))
    main, _, (x, (a, b)) = _build(build)
    xv = np.array([1.0, -2.0, 3.0])
    av, bv = _run(main, {"p": np.array([taken]), "x": xv}, [a, b])
    np.testing.assert_allclose(av, xv * 2 if taken else xv - 1)
    np.testing.assert_allclose(bv, xv + 1 if taken else xv * xv)
    # static.nn exports the same function (Paddle 2.0's paddle.static.nn.cond); fluid.layers
    # wraps it with Paddle 1.8's argument checks
    assert paddle.static.nn.cond is inspect.unwrap(L.cond)
    assert paddle.static.nn.while_loop is inspect.unwrap(L.while_loop)


def test_nested_cond_in_while():
    """sum over i < 6 of (i if i is even else -1)."""
    def build():
        i = L.fill_constant([1], "int64", 0)
        s = L.fill_constant([1], "int64", 0)
        six = L.fill_constant([1], "int64", 6)
        two = L.fill_constant([1], "int64", 2)
        zero = L.fill_constant([1], "int64", 0)
        minus = L.fill_constant([1], "int64", -1)

        def body(i, s):
            even = L.equal(L.elementwise_mod(i, two), zero)
            return [i + 1, s + L.cond(even, lambda: i * 1, lambda: minus * 1)]
        return L.while_loop(lambda i, s: i < six, body, [i, s])
    main, _, (_, s) = _build(build)
    assert _run(main, {}, [s])[0][0] == sum(i if i % 2 == 0 else -1 for i in range(6))


def test_while_class_api_and_arrays():
    """1.8's While with less_than(cond=...), writing each i*i into an array."""
    def build():
        i = L.fill_constant([1], "int64", 0)
        n = L.fill_constant([1], "int64", 4)
        arr = L.create_array("float32")
        cond = L.less_than(i, n)
        loop = L.While(cond)
        with loop.block():
            sq = L.cast(i * i, "float32")
            L.array_write(sq, i, array=arr)
            L.increment(i, 1, in_place=True)
            L.less_than(i, n, cond=cond)
        two = L.fill_constant([1], "int64", 2)
        out, index = L.tensor_array_to_tensor(arr, axis=0)
        return L.array_length(arr), L.array_read(arr, two), out, index
    main, _, outs = _build(build)
    length, second, whole, index = _run(main, {}, list(outs))
    assert length[0] == 4
    np.testing.assert_array_equal(second, [4.0])
    np.testing.assert_array_equal(whole, [0.0, 1.0, 4.0, 9.0])
    np.testing.assert_array_equal(index, [1, 1, 1, 1])


def test_tensor_array_to_tensor_stack():
    def build():
        x = fluid.data("x", [2, 3], "float32")
        zero = L.fill_constant([1], "int64", 0)
        one = L.fill_constant([1], "int64", 1)
        arr = L.array_write(x, zero)
        L.array_write(x * 2.0, one, array=arr)
        return L.tensor_array_to_tensor(arr, axis=1, use_stack=True)
    main, _, (out, index) = _build(build)
    xv = np.arange(6, dtype="float32").reshape(2, 3)
    ov, iv = _run(main, {"x": xv}, [out, index])
    np.testing.assert_array_equal(ov, np.stack([xv, xv * 2], 1))
    np.testing.assert_array_equal(iv, [1, 1])


@pytest.mark.parametrize("step,expected", [(0, 10.0), (5, 20.0), (8, 30.0), (12, 40.0)])
def test_switch_takes_the_first_true_case(step, expected):
    def build():
        s = fluid.data("s", [1], "float32")
        lr = L.create_global_var([1], 0.0, "float32", persistable=True, name="lr")
        with L.Switch() as switch:
            with switch.case(s < 3.0):
                L.assign(np.array([10.0], "float32"), lr)
            with switch.case(s < 7.0):
                L.assign(np.array([20.0], "float32"), lr)
            with switch.case(s < 10.0):
                L.assign(np.array([30.0], "float32"), lr)
            with switch.default():
                L.assign(np.array([40.0], "float32"), lr)
        return lr
    main, start, lr = _build(build)
    scope = fluid.Scope()
    with fluid.scope_guard(scope):
        got, = _run(main, {"s": np.array([step], "float32")}, [lr], start)
    assert got[0] == expected


def test_ifelse_routes_rows_by_mask():
    def build():
        x = fluid.data("x", [-1, 2], "float64")
        limit = L.fill_constant([1], "float64", 0.0)
        c = L.less_than(L.reduce_sum(x, dim=1, keep_dim=True), limit)
        ie = L.IfElse(c)
        with ie.true_block():
            ie.output(ie.input(x) * 10.0)
        with ie.false_block():
            ie.output(ie.input(x) - 1.0)
        return x, ie()[0]
    main, _, (x, out) = _build(build)
    xv = np.array([[1.0, 2.0], [-3.0, 1.0], [0.5, -0.1], [-1.0, -1.0]])
    got, = _run(main, {"x": xv}, [out])
    neg = xv.sum(1, keepdims=True) < 0
    np.testing.assert_allclose(got, np.where(neg, xv * 10, xv - 1))


def test_ifelse_checks_its_arguments_and_outputs():
    """Paddle 2.0's checks (its fluid/tests/test_if_else_op): TypeErrors."""
    def build():
        x = fluid.data("x", [-1, 1], "float32")
        c = L.less_than(x, L.fill_constant([1], "float32", 1.0))
        with pytest.raises(TypeError, match="cond must be a bool Variable"):
            L.IfElse(set())
        with pytest.raises(TypeError, match="name must be a str or None, got set"):
            L.IfElse(c, set())
        ie = L.IfElse(c)
        with ie.true_block():
            with pytest.raises(TypeError, match="output 0 must be a Variable, got list"):
                ie.output([])
        return ()
    _build(build)


@pytest.mark.parametrize("taken", [True, False])
def test_cond_gradient_matches_finite_differences(taken):
    def build():
        p = fluid.data("p", [1], "bool")
        x = fluid.data("x", [3], "float64")
        x.stop_gradient = False
        y = L.cond(p, lambda: L.tanh(x) * x, lambda: L.exp(x) + x)
        loss = L.reduce_sum(y * x)     # x also outside the branch: gradients add up
        return loss, paddle.static.gradients([loss], [x])[0]
    main, _, (loss, gx) = _build(build)
    xv = np.array([0.3, -0.7, 1.1])

    def f(v):
        y = np.tanh(v) * v if taken else np.exp(v) + v
        return (y * v).sum()
    got, = _run(main, {"p": np.array([taken]), "x": xv}, [gx])
    np.testing.assert_allclose(got, central_differences(f, xv), rtol=1e-6, atol=1e-8)


def test_while_loop_gradient_matches_finite_differences():
    def build():
        x = fluid.data("x", [3], "float64")
        w = fluid.data("w", [3], "float64")
        x.stop_gradient = w.stop_gradient = False
        i = L.fill_constant([1], "int64", 0)
        n = L.fill_constant([1], "int64", 3)
        _, h = L.while_loop(lambda i, h: i < n,
                            lambda i, h: [i + 1, L.tanh(h * w + 0.5)], [i, x])
        loss = L.reduce_sum(h * h)
        return loss, paddle.static.gradients([loss], [x, w])
    main, _, (loss, (gx, gw)) = _build(build)
    xv, wv = np.array([0.1, 0.2, -0.3]), np.array([0.5, -1.0, 2.0])

    def f(xv, wv):
        h = xv
        for _ in range(3):
            h = np.tanh(h * wv + 0.5)
        return (h * h).sum()
    got_x, got_w = _run(main, {"x": xv, "w": wv}, [gx, gw])
    np.testing.assert_allclose(got_x, central_differences(lambda v: f(v, wv), xv), rtol=1e-6)
    np.testing.assert_allclose(got_w, central_differences(lambda v: f(xv, v), wv), rtol=1e-6)


@pytest.mark.paddle("3")      # 1.8 / 2.0: fluid.layers.cond's own check (argument_checks)
def test_non_boolean_condition_is_refused():
    def build():
        x = fluid.data("x", [1], "float32")
        return L.cond(x, lambda: x, lambda: x)
    # the layer's check ("'pred' in cond must be ['bool']") or refimpl's ("cond: pred ...")
    with pytest.raises(TypeError, match="pred.*bool"):
        _build(build)


@pytest.mark.parametrize("taken", [True, False])
def test_branch_outputs_may_differ_in_shape(taken):
    """As in Paddle, the output takes the taken branch's shape ([3] or [2, 2])."""
    def build():
        p = fluid.data("p", [1], "bool")
        a = fluid.data("a", [3], "float32")
        b = fluid.data("b", [2, 2], "float32")
        return L.cond(p, lambda: a * 1.0, lambda: b * 2.0)
    main, _, out = _build(build)
    assert out.shape is None
    (value,) = _run(main, {"p": np.array([taken]), "a": np.ones(3, "float32"),
                           "b": np.ones((2, 2), "float32")}, [out])
    np.testing.assert_array_equal(value, np.ones(3) if taken else np.full((2, 2), 2.0))


@pytest.mark.paddle("3")
def test_branch_outputs_of_different_dtypes_name_both():
    def build():
        p = fluid.data("p", [1], "bool")
        a = fluid.data("a", [3], "float32")
        b = fluid.data("b", [3], "float64")
        return L.cond(p, lambda: a * 1.0, lambda: b * 1.0)
    with pytest.raises(ValueError, match=r"true_fn returns .*float32.*false_fn returns .*64"):
        _build(build)


def test_while_stops_after_max_steps_with_a_clear_error():
    def build():
        i = L.fill_constant([1], "int64", 0)
        n = L.fill_constant([1], "int64", 1)
        out = L.while_loop(lambda i: i < n, lambda i: [i * 1], [i])
        main = fluid.default_main_program()
        [op for op in main.global_block().ops if op.type == "while"][0]._set_attr(
            "max_steps", 50)
        return out
    main, _, (i,) = _build(build)
    with pytest.raises(OpError, match="ran 50 steps"):
        _run(main, {}, [i])


def test_runtime_condition_with_several_elements_is_refused():
    def build():
        p = fluid.data("p", [-1], "bool")
        x = fluid.data("x", [1], "float32")
        return L.cond(p, lambda: x * 1.0, lambda: x * 2.0)
    main, _, y = _build(build)
    with pytest.raises(OpError, match="one element"):
        _run(main, {"p": np.array([True, False]), "x": np.ones(1, "float32")}, [y])


@pytest.mark.parametrize("version", ["1.8", "2.0"])
@pytest.mark.parametrize("taken", [True, False])
def test_branch_outputs_of_different_dtypes_under_paddle_1_8(taken, version, paddle_version):
    """Paddle 1.8.5 (its test_cond's test_return_var_tuple, and 2.0's, which asserts the
    same): branches returning int32 / bool and float32 / int64 give the taken branch's
    values; the Variables have false_fn's dtypes (measured: FP32 and INT64 whichever
    branch runs)."""
    main = fluid.Program()
    with paddle_version(version), fluid.program_guard(main, fluid.Program()):
        pred = L.fill_constant([1], "bool", taken)
        out = L.cond(pred, lambda: (L.fill_constant([1, 2], "int32", 1),
                                    L.fill_constant([2, 3], "bool", True)),
                     lambda: (L.fill_constant([3, 4], "float32", 3),
                              L.fill_constant([4, 5], "int64", 2)))
    assert [o.dtype.name for o in out] == ["float32", "int64"]
    first, second = fluid.Executor(fluid.CPUPlace()).run(main, fetch_list=list(out))
    if taken:
        np.testing.assert_array_equal(first, np.ones((1, 2), np.int32))
        assert first.dtype == np.int32 and second.dtype == bool and second.shape == (2, 3)
    else:
        np.testing.assert_array_equal(first, np.full((3, 4), 3, np.float32))
        assert second.dtype == np.int64 and second.shape == (4, 5)


def test_gradient_of_a_constant_made_differentiable_through_cond():
    """Paddle 1.8.5's test_extremely_simple_net_with_op_in_condition: fill_constant
    outputs with stop_gradient set False are leaves; the untaken branch's gets zeros."""
    a = L.fill_constant([1], "float32", 1.23)
    a.stop_gradient = False
    b = L.fill_constant([1], "float32", 1.25)
    b.stop_gradient = False
    out = L.cond(a - b < -1.0, lambda: a, lambda: b)
    fluid.backward.append_backward(out)
    got = fluid.Executor(fluid.CPUPlace()).run(fetch_list=[out, a.grad_name, b.grad_name])
    assert [g[0] for g in got] == [np.float32(1.25), 0.0, 1.0]


def test_incompatible_branch_structures_are_named_as_paddle():
    p = fluid.data("p", [1], "bool")
    with pytest.raises(ValueError, match="Incompatible return values of true_fn and "
                                         "false_fn in cond"):
        L.cond(p, lambda: None, lambda: L.fill_constant([1], "int32", 3))


@pytest.mark.parametrize("i", [1, 4, 6, 9])
def test_gradient_through_nested_conds(i):
    """d/dx of the four branches of i < 5 ? (i >= 3 ? x + x : x - x) : (i < 8 ? x * x :
    x / x) at x = 3 (Paddle 1.8.5's test_cond_inside_cond, with x a differentiable feed)."""
    iv = fluid.data("i", [1], "float32")
    x = fluid.data("x", [1], "float32")
    x.stop_gradient = False
    out = L.cond(iv < 5.0,
                 lambda: L.cond(iv >= 3.0, lambda: x + x, lambda: x - x),
                 lambda: L.cond(iv < 8.0, lambda: x * x, lambda: x / x))
    fluid.backward.append_backward(L.mean(out))
    got = fluid.Executor(fluid.CPUPlace()).run(
        feed={"i": np.float32([i]), "x": np.float32([3])}, fetch_list=[out, x.grad_name])
    want = {1: (0, 0), 4: (6, 2), 6: (9, 6), 9: (1, 0)}[i]
    assert (got[0][0], got[1][0]) == want


@pytest.mark.parametrize("nested", [False, True])
def test_cond_branch_holding_batch_norm(nested):
    """A branch with batch_norm (its moving statistics are written outside the branch, so
    the grad op does not rerun it): the gradient uses the values the forward run kept and
    matches finite differences; one training run moves the statistics once."""
    main, start = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, start):
        p = fluid.data("p", [1], "bool")
        x = fluid.data("x", [4, 3], "float64")
        x.stop_gradient = False

        def branch():
            h = L.batch_norm(x * 2.0, momentum=0.5, moving_mean_name="mm",
                             param_attr=fluid.ParamAttr(initializer=fluid.initializer
                                                        .Constant(1.5)))
            return L.reduce_sum(L.tanh(h) * x)
        other = lambda: L.reduce_sum(x * x)      # noqa: E731
        if nested:
            loss = L.cond(p, lambda: L.cond(p, branch, other), other)
        else:
            loss = L.cond(p, branch, other)
        gx = paddle.static.gradients([loss], [x])[0]
    xv = np.random.RandomState(2).rand(4, 3)

    def f(v):
        u = 2.0 * v
        h = 1.5 * (u - u.mean(0)) / np.sqrt(u.var(0) + 1e-5)
        return (np.tanh(h) * v).sum()
    exe = fluid.Executor()
    scope = fluid.Scope()
    exe.run(start, scope=scope)
    got, = exe.run(main, feed={"p": np.array([True]), "x": xv}, fetch_list=[gx], scope=scope)
    np.testing.assert_allclose(got, central_differences(f, xv), rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(np.array(scope.find_var("mm").get_tensor()),
                               0.5 * (2.0 * xv).mean(0), rtol=1e-12)


def test_split_and_merge_route_whole_sequences_as_paddle_18():
    """Paddle 1.8.5 (test_split_and_merge_lod_tensor_op): rows 0..9 with LoD [[3, 6, 1]]
    and mask [0, 1, 0] split into [3..8] (LoD [[6]]) and [0, 1, 2, 9] (LoD [[3, 1]]);
    merging gives the input back, LoD included; the mask may come from a variable declared
    float32 and fed bool (1.8.5 checks no dtype when building)."""
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        x = fluid.layers.data("x", shape=[1], dtype="float32")
        x.stop_gradient = False
        mask = fluid.layers.data("mask", shape=[1])
        out_true, out_false = fluid.layers.split_lod_tensor(x, mask)
        merged = fluid.layers.merge_lod_tensor(out_true, out_false, x, mask)
        weight = fluid.layers.assign(np.arange(10, dtype=np.float32).reshape(10, 1))
        fluid.backward.append_backward(
            fluid.layers.reduce_sum(fluid.layers.elementwise_mul(merged, weight)))
    place = fluid.CPUPlace()
    x_np = np.arange(10, dtype=np.float32).reshape(10, 1)
    t, f, m, g = fluid.Executor(place).run(
        main, feed={"x": fluid.create_lod_tensor(x_np, [[3, 6, 1]], place),
                    "mask": np.array([[False], [True], [False]])},
        fetch_list=[out_true, out_false, merged, "x@GRAD"], return_numpy=False)
    assert np.array(t).ravel().tolist() == [3, 4, 5, 6, 7, 8]
    assert t.recursive_sequence_lengths() == [[6]]
    assert np.array(f).ravel().tolist() == [0, 1, 2, 9]
    assert f.recursive_sequence_lengths() == [[3, 1]]
    np.testing.assert_array_equal(np.array(m), x_np)
    assert m.recursive_sequence_lengths() == [[3, 6, 1]]
    np.testing.assert_array_equal(np.array(g), x_np)    # d sum(merged * w) / dx = w
    with pytest.raises(TypeError):
        fluid.layers.split_lod_tensor(x, set())
    with pytest.raises(TypeError):
        fluid.layers.merge_lod_tensor(set(), out_false, x, mask)


@pytest.mark.parametrize("rows", [3, 0])
def test_conditional_block_over_inputs_runs_when_every_input_has_an_element(rows):
    """Paddle 1.8's fluid.layers.control_flow.ConditionalBlock(inputs): not a scalar
    condition, the block runs when no input is empty (x: the first `rows` rows of y); its
    gradient reaches the input."""
    from refimpl.fluid.layers.control_flow import ConditionalBlock
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        y = fluid.data("y", [3, 2], "float32")
        y.stop_gradient = False
        x = L.slice(y, axes=[0], starts=[0], ends=[rows])
        out = L.create_tensor("float32") if rows else L.fill_constant([1], "float32", -1.0)
        block = ConditionalBlock(inputs=[x])
        with block.block():
            L.assign(L.reduce_sum(x * 3.0, dim=[0, 1], keep_dim=False), out)
        if rows:
            fluid.backward.append_backward(L.mean(out * 2.0))
    yv = np.arange(6, dtype="float32").reshape(3, 2)
    if not rows:
        np.testing.assert_allclose(_run(main, {"y": yv}, [out])[0], [-1.0])
        return
    got, gy = _run(main, {"y": yv}, [out, y.grad_name])
    np.testing.assert_allclose(got, [3.0 * yv.sum()])
    np.testing.assert_allclose(gy, np.full((3, 2), 6.0))


def test_select_output_then_select_input_route_one_branch_and_its_gradient():
    from refimpl.fluid.layers.control_flow import select_input, select_output
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        x = fluid.data("x", [2, 3], "float32")
        x.stop_gradient = False
        w = fluid.data("w", [2, 3], "float32")
        mask = fluid.data("mask", [1], "int32")
        branches = [main.current_block().create_var(dtype="float32") for _ in range(3)]
        select_output(x, branches, mask)
        y = select_input(branches, mask)
        loss = paddle.mean(y * w)
        fluid.backward.append_backward(loss)
    xv = np.arange(6, dtype="float32").reshape(2, 3)
    wv = np.linspace(-1, 1, 6, dtype="float32").reshape(2, 3)
    for k in range(3):
        got_y, got_grad, *got_branches = _run(
            main, {"x": xv, "w": wv, "mask": np.array([k], "int32")},
            [y, x.grad_name] + branches)
        np.testing.assert_array_equal(got_y, xv)
        # the chosen branch holds x, the others zeros (Paddle leaves them unwritten)
        for i, b in enumerate(got_branches):
            np.testing.assert_array_equal(b, xv if i == k else np.zeros_like(xv))
        np.testing.assert_allclose(got_grad, wv / 6, rtol=1e-6)
    with pytest.raises(ValueError, match=r"select_output: Mask is 3, but there are 3 "
                                         r"branches \(0 to 2\)"):
        _run(main, {"x": xv, "w": wv, "mask": np.array([3], "int32")}, [y])


def test_select_layers_check_their_arguments():
    from refimpl.fluid.layers.control_flow import select_input, select_output
    with fluid.program_guard(fluid.Program(), fluid.Program()):
        x = fluid.data("x", [1], "int32")
        mask = fluid.data("mask", [1], "int32")
        with pytest.raises(TypeError, match="inputs must be a list or tuple"):
            select_input(x, mask)
        with pytest.raises(TypeError, match=r"mask must have dtype in \['int32'\], got float32"):
            select_input([x], fluid.data("m32", [1], "float32"))
        with pytest.raises(TypeError, match="outputs must be a list or tuple"):
            select_output(x, x, mask)
        with pytest.raises(TypeError, match="argument 'input' must be a static Variable"):
            select_output(1, [x], mask)


def test_select_input_op_reads_an_int32_mask_only():
    # Paddle 1.8.5 and 3.3.1 both fail on an int64 Mask (their kernel reads int32)
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        xs = [fluid.data("x%d" % i, [2], "float32") for i in range(2)]
        mask = fluid.data("mask", [1], "int64")
        out = main.current_block().create_var(name="out", dtype="float32")
        with pytest.raises(TypeError, match=r"select_input.*input Mask 'mask': expected dtype "
                                            r"in \['int32'\], got int64"):
            main.current_block().append_op(type="select_input", inputs={"X": xs, "Mask": [mask]},
                                           outputs={"Out": [out]})


def _minimize_in_case_branches():
    """fc (w = 0.5) then case: SGD on mean(y * y) when flag == 1, else Adam on mean(y)."""
    x = fluid.data("x", [1, 3], "float32")
    y = L.fc(x, 2, param_attr=fluid.ParamAttr(name="w", initializer=fluid.initializer.Constant(
        0.5)), bias_attr=False)
    flag = fluid.data("flag", [1], "int32")

    def sgd_branch():
        loss = L.mean(y * y)
        fluid.optimizer.SGD(0.1).minimize(loss)
        return loss

    def adam_branch():
        loss = L.mean(y)
        fluid.optimizer.Adam(0.1).minimize(loss)
        return loss
    return x, L.case([(flag == L.fill_constant([1], "int32", 1), sgd_branch)], adam_branch)


def test_minimize_in_a_case_branch_updates_when_the_branch_runs():
    """Paddle 1.8.5 (values recorded): the backward and the updates of a minimize called
    in a branch run with the branch, through the ops before it (the fc's mul)."""
    main, start, (_, loss) = _build(_minimize_in_case_branches)
    exe = fluid.Executor()
    exe.run(start)
    got = []
    for flag in (1, 0, 1):
        value, = exe.run(main, feed={"x": np.ones((1, 3), "float32"),
                                     "flag": np.array([flag], "int32")}, fetch_list=[loss])
        got.append((value.item(), np.array(fluid.global_scope().find_var("w")
                                              .get_tensor())))
    for (value, w), (want_value, want_w) in zip(got, [(2.25, 0.35), (1.05, 0.25000006),
                                                      (0.5625003, 0.17500004)]):
        np.testing.assert_allclose(value, want_value, rtol=1e-5)
        np.testing.assert_allclose(w, np.full((3, 2), want_w), rtol=1e-5)


def test_cond_without_outputs_still_runs_its_branch():
    """cond / case whose functions return None: the taken branch's ops run (Paddle 1.8.5)."""
    def build():
        counter = L.fill_constant([1], "float32", 0.0, force_cpu=True)

        def add(step):
            L.increment(counter, step)       # returns nothing: no output to merge
        L.cond(L.fill_constant([1], "bool", True), lambda: add(2.0), lambda: add(5.0))
        return counter
    main, start, counter = _build(build)
    np.testing.assert_array_equal(_run(main, {}, [counter])[0], [2.0])


@pytest.mark.parametrize("taken", [True, False])
def test_cond_branches_may_return_dicts_of_other_keys(taken):
    """Paddle's nest check without types (1.8.5 and 3.3.1, measured: accepted) pairs the
    values by sorted key; the result is keyed as true_fn's (3.3.1's; 1.8.5 keys it as
    false_fn's). Leaves must still be Variables or None alike."""
    def build():
        x, y = L.fill_constant([1], "float32", 1.0), L.fill_constant([1], "float32", 2.0)
        return L.cond(L.fill_constant([1], "bool", taken), lambda: {"a": x, "m": None},
                      lambda: {"b": y, "n": None})
    main, start, out = _build(build)
    assert sorted(out) == ["a", "m"] and out["m"] is None
    np.testing.assert_array_equal(_run(main, {}, [out["a"]])[0], [1.0 if taken else 2.0])
    with pytest.raises(ValueError, match="Incompatible return values"):
        _build(lambda: L.cond(L.fill_constant([1], "bool", True),
                              lambda: {"a": L.fill_constant([1], "float32", 1.0)},
                              lambda: {"b": None}))


def test_data_parallel_training_with_an_optimizer_in_a_branch_is_refused():
    """Paddle 1.8.5's CompiledProgram: NotImplementedError on more than one place."""
    main, start, (x, loss) = _build(_minimize_in_case_branches)
    exe = fluid.Executor()
    exe.run(start)
    compiled = fluid.CompiledProgram(main).with_data_parallel(
        loss_name=loss.name, places=fluid.cpu_places(2))
    with pytest.raises(NotImplementedError, match="optimizer is used in control flow"):
        exe.run(compiled, feed={"x": np.ones((2, 3), "float32"),
                                "flag": np.array([1], "int32")}, fetch_list=[loss])


def test_switch_case_takes_a_uint8_index():
    """switch_case compares a uint8 / int32 branch_index as int64 (Paddle casts it; uint8
    constants are no fill_constant dtype): index 1 picks the second branch, 7 the default."""
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        index = fluid.data("index", [1], "uint8")
        out = fluid.layers.switch_case(index, {0: lambda: fluid.layers.fill_constant(
            [1], "float32", 10.), 1: lambda: fluid.layers.fill_constant([1], "float32", 11.)},
            default=lambda: fluid.layers.fill_constant([1], "float32", -1.))
    for value, expected in ((1, 11.), (7, -1.)):
        got, = _run(main, {"index": np.array([value], "uint8")}, [out])
        assert got.tolist() == [expected]
