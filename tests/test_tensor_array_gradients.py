"""Gradients through tensor arrays (specs/control_flow.md#gradients): array_write /
array_read / tensor_array_to_tensor in a program and in while loops, against numpy and
finite differences; while_loop's in-place loop variables (switch while_loop_in_place,
measured on Paddle 1.8.5 and 3.3.1); dynamic_decode run to completion by a while op."""
import numpy as np
import pytest

from refimpl import fluid, versions
from refimpl.framework.errors import OpError

from helpers import central_differences

L = fluid.layers


def _loss_and_grads(main, loss, feed, wrt):
    exe = fluid.Executor(fluid.CPUPlace())
    out = exe.run(main, feed=feed, fetch_list=[loss] + [v.grad_name for v in wrt])
    return float(np.asarray(out[0]).ravel()[0]), out[1:]


def test_gradient_through_array_write_and_read_is_the_read_elements():
    """x -> two slots of an array; reading slot 1 twice and slot 0 once: x@GRAD adds the
    reads' gradients of the slots x went to (y in slot 1 gets its own)."""
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        x = fluid.data("x", [2, 3], "float64")
        y = fluid.data("y", [2, 3], "float64")
        x.stop_gradient = y.stop_gradient = False
        zero = L.fill_constant([1], "int64", 0)
        one = L.fill_constant([1], "int64", 1)
        array = L.array_write(x * 2.0, zero)
        L.array_write(y, one, array=array)
        copy = L.assign(array)        # an array's assign passes its gradient on
        total = L.array_read(array, one) * 3.0 + L.array_read(copy, zero) + \
            L.array_read(array, one)
        loss = L.reduce_sum(total)
        fluid.backward.append_backward(loss)
    rng = np.random.RandomState(0)
    feed = {"x": rng.rand(2, 3), "y": rng.rand(2, 3)}
    value, (gx, gy) = _loss_and_grads(main, loss, feed, [x, y])
    assert value == pytest.approx(4 * feed["y"].sum() + 2 * feed["x"].sum())
    np.testing.assert_allclose(gx, np.full((2, 3), 2.0))
    np.testing.assert_allclose(gy, np.full((2, 3), 4.0))


@pytest.mark.parametrize("use_stack", [True, False])
def test_tensor_array_to_tensor_gradient_cuts_out_each_elements_part(use_stack):
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        a = fluid.data("a", [2, 3], "float32")
        b = fluid.data("b", [2, 3], "float32")
        a.stop_gradient = b.stop_gradient = False
        array = L.array_write(a, L.fill_constant([1], "int64", 0))
        L.array_write(b, L.fill_constant([1], "int64", 1), array=array)
        out, _ = L.tensor_array_to_tensor(array, axis=1, use_stack=use_stack)
        weights = np.arange(12, dtype="float32").reshape([2, 2, 3] if use_stack else [2, 6])
        loss = L.reduce_sum(out * L.assign(weights))
        fluid.backward.append_backward(loss)
    feed = {"a": np.ones((2, 3), "float32"), "b": np.ones((2, 3), "float32")}
    _, (ga, gb) = _loss_and_grads(main, loss, feed, [a, b])
    # stacked on axis 1, element k is weights[:, k]; concatenated, columns 3k to 3k + 2
    np.testing.assert_allclose(ga, weights[:, 0] if use_stack else weights[:, :3])
    np.testing.assert_allclose(gb, weights[:, 1] if use_stack else weights[:, 3:])


def _recurrence(x, h0):
    """While loop: h = tanh(h * h + x[t]), each h written to an array, loss sum(out^2)
    over the stacked array."""
    t = L.fill_constant([1], "int64", 0)
    n = L.fill_constant([1], "int64", 3)
    more = L.less_than(t, n)
    h = L.assign(h0)
    array = L.create_array("float64")
    loop = L.While(more)
    with loop.block():
        step = L.tanh(h * h + L.squeeze(L.gather(x, t), [0]))
        L.array_write(step, t, array=array)
        L.assign(step, h)
        L.assign(L.less_than(t + 1, n), more)
        L.assign(t + 1, t)
    out, _ = L.tensor_array_to_tensor(array, axis=0, use_stack=True)
    return L.reduce_sum(out * out)


def test_while_gradient_through_an_array_it_writes_matches_finite_differences():
    """The body writes one element per step and carries h: the gradient of the array's
    earlier elements reaches the earlier steps."""
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        x = fluid.data("x", [3, 2], "float64")
        h0 = fluid.data("h0", [2], "float64")
        x.stop_gradient = h0.stop_gradient = False
        loss = _recurrence(x, h0)
        fluid.backward.append_backward(loss)
    rng = np.random.RandomState(1)
    xv, hv = rng.rand(3, 2), rng.rand(2)
    _, (gx, gh) = _loss_and_grads(main, loss, {"x": xv, "h0": hv}, [x, h0])

    def f(xv, hv):
        h, total = hv, 0.0
        for row in xv:
            h = np.tanh(h * h + row)
            total += (h * h).sum()
        return total
    np.testing.assert_allclose(gx, central_differences(lambda v: f(v, hv), xv), rtol=1e-6)
    np.testing.assert_allclose(gh, central_differences(lambda v: f(xv, v), hv), rtol=1e-6)


def _nested_array_loops(steps):
    """Paddle 1.8.5's test_while_loop_op nested case, small: an outer while_loop reads
    data[i] and mem[i], writes their sum plus x to mem[i + 1], and runs an inner loop doing
    the same over j; afterwards mem[j] is read (j, i and mem updated in place, as 1.8)."""
    d = [fluid.data("d%d" % k, [3], "float64") for k in range(3)]
    x = fluid.data("x", [3], "float64")
    x.stop_gradient = False
    i = L.zeros([1], "int64")
    mem = L.array_write(L.zeros([3], "float64"), i)
    data = L.array_write(d[0], i)
    for k in (1, 2):
        L.array_write(d[k], L.fill_constant([1], "int64", k), array=data)
    i = L.zeros([1], "int64")
    j = L.fill_constant([1], "int64", 1)
    outer_end = L.fill_constant([1], "int64", 1)
    inner_end = L.fill_constant([1], "int64", steps)

    def add_step(k, x, mem):
        total = L.array_read(data, k) + L.array_read(mem, k) + x
        k = L.increment(k, in_place=True)
        L.array_write(total, k, array=mem)
        return k

    def outer(i, j, x, mem):
        i = add_step(i, x, mem)
        j, x, mem = L.while_loop(lambda j, x, mem: L.less_than(j, inner_end),
                                 lambda j, x, mem: [add_step(j, x, mem), x, mem],
                                 [j, x, mem])
        return [i, j, x, mem]
    L.while_loop(lambda i, j, x, mem: L.less_than(i, outer_end), outer, [i, j, x, mem])
    result = L.array_read(mem, j)
    loss = L.mean(result)
    fluid.backward.append_backward(loss)
    return d, x, result, loss


@pytest.mark.paddle("1.8")
def test_nested_while_loops_over_an_array_under_paddle_1_8():
    """x is added once per step (3 steps): result = d0 + d1 + d2 + 3x, x@GRAD = 3 / 3
    (1.8.5's test gives the same: data_sum and 0.3 for 10 elements)."""
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        d, x, result, loss = _nested_array_loops(3)
    rng = np.random.RandomState(2)
    feed = {"d%d" % k: rng.rand(3) for k in range(3)}
    feed["x"] = np.ones(3)
    exe = fluid.Executor(fluid.CPUPlace())
    got, gx = exe.run(main, feed=feed, fetch_list=[result, x.grad_name])
    np.testing.assert_allclose(got, feed["d0"] + feed["d1"] + feed["d2"] + 3 * feed["x"])
    np.testing.assert_allclose(gx, np.full(3, 1.0))


def _in_place_probe():
    i = L.zeros([1], "int64")
    x = L.fill_constant([1], "float32", 1.0)
    array = L.array_write(x, i)
    n = L.fill_constant([1], "int64", 2)

    def body(i, x, array):
        doubled = L.scale(x, 2.0)
        i = L.increment(i, in_place=False)
        L.array_write(doubled, i, array=array)
        return [i, doubled, array]
    out = L.while_loop(lambda i, x, array: L.less_than(i, n), body, [i, x, array])
    return [i, x, L.array_length(array), out[0], out[1]]


@pytest.mark.parametrize("profile, caller", [("1.8", [2, 4.0, 3]), ("3", [0, 1.0, 3])])
def test_while_loop_updates_the_callers_variables_as_each_paddle_does(paddle_version,
                                                                      profile, caller):
    """Measured: Paddle 1.8.5 gives i 2, x 4 (the caller's variables are the loop's), 3.3.1
    i 0, x 1 (copies); both extend the caller's array to 3 elements."""
    with paddle_version(profile):
        main = fluid.Program()
        with fluid.program_guard(main, fluid.Program()):
            fetch = _in_place_probe()
        got = fluid.Executor(fluid.CPUPlace()).run(main, fetch_list=fetch)
    assert [float(np.asarray(v).ravel()[0]) for v in got] == caller + [2, 4.0]


@pytest.mark.parametrize("profile, expected", [("1.8", 110.0), ("2.0", 110.0), ("3", 20.0)])
def test_while_loop_gradient_through_a_variable_the_body_overwrites_unread(
        paddle_version, profile, expected):
    """test_while_loop_op's test_while_loop_backward: x = i * i; i += 1 from i = 1 while
    i < 11. Only the last step's x reaches the output: 2 * 10 = 20, the finite difference,
    which Paddle 3.3.1 (PIR) gives. 1.8.5 (measured) and 2.0 (its test expects it) give
    i@GRAD 110 = sum(2 i) over the 10 steps: their while_grad links x's outer gradient
    into every step, the body never reading x (so no grad op replaces it); switch
    while_grad_keeps_unread_out_grads."""
    with paddle_version(profile):
        main = fluid.Program()
        with fluid.program_guard(main, fluid.Program()):
            i = fluid.data("i", [1], "float32")
            x = fluid.data("x", [1], "float32")
            i.stop_gradient = x.stop_gradient = False
            eleven = L.fill_constant([1], "float32", 11)

            def body(i, x):
                x = L.elementwise_mul(i, i)
                return [L.increment(i), x]
            out = L.while_loop(lambda i, x: L.less_than(i, eleven), body, [i, x])
            loss = L.mean(out[1])
            fluid.backward.append_backward(loss)
        value, (gi,) = _loss_and_grads(main, loss, {"i": np.ones(1, "float32"),
                                                    "x": np.ones(1, "float32")}, [i])
    assert value == 100.0
    np.testing.assert_allclose(gi, [expected])


@pytest.mark.parametrize("profile, expected", [("1.8", (18.0, 12.0)), ("3", (6.0, 6.0))])
def test_while_loop_unread_loop_variable_adds_every_steps_gradient_to_what_it_reads(
        paddle_version, profile, expected):
    """x = 2 (i * w); i += 1 from i = 1 while i < 4 (x never read): Paddle 1.8.5 gives
    i@GRAD 18 = 3 * 2w and w@GRAD 12 = sum(2 i) (measured), every step seeing x's outer
    gradient; the chain rule (3.3.1's PIR while, measured) 6 and 2 * 3 = 6."""
    with paddle_version(profile):
        main = fluid.Program()
        with fluid.program_guard(main, fluid.Program()):
            i, x, w = (fluid.data(n, [1], "float32") for n in "ixw")
            i.stop_gradient = x.stop_gradient = w.stop_gradient = False
            four = L.fill_constant([1], "float32", 4)

            def body(i, x):
                x = L.elementwise_mul(i, w) * 2.0
                L.increment(i)
                return [i, x]
            out = L.while_loop(lambda i, x: L.less_than(i, four), body, [i, x])
            loss = L.mean(out[1])
            fluid.backward.append_backward(loss)
        value, grads = _loss_and_grads(main, loss, {n: np.array([v], "float32") for n, v in
                                                    zip("ixw", (1.0, 2.0, 3.0))}, [i, w])
    assert value == 18.0
    assert tuple(float(np.asarray(g).ravel()[0]) for g in grads) == expected


def _decoder_program(max_step_num):
    main, startup = fluid.Program(), fluid.Program()
    main.random_seed = startup.random_seed = 7
    with fluid.program_guard(main, startup):
        x = fluid.data("x", [None, None, 4], "float64")
        x.stop_gradient = False
        lengths = fluid.data("lengths", [None], "int64")
        cell = L.GRUCell(hidden_size=3, dtype="float64")
        decoder = L.BasicDecoder(cell, L.TrainingHelper(x, lengths))
        init = L.fill_constant_batch_size_like(x, [-1, 3], "float64", 0.0)
        out, _, steps = L.dynamic_decode(decoder, inits=init, max_step_num=max_step_num,
                                         impute_finished=True, return_length=True)
        loss = L.reduce_sum(out.cell_outputs * out.cell_outputs)
        fluid.backward.append_backward(loss)
    return main, startup, x, out.cell_outputs, steps, loss


def test_dynamic_decode_without_max_step_num_runs_until_every_entry_finished():
    """A while op decodes until the longest entry finishes: the outputs, lengths and the
    gradient equal the unrolled decoding's over as many steps, and the gradient matches
    finite differences."""
    rng = np.random.RandomState(3)
    feed = {"x": rng.rand(2, 3, 4), "lengths": np.array([2, 3], "int64")}
    results = []
    for max_step_num in (None, 2):
        main, startup, x, outputs, steps, loss = _decoder_program(max_step_num)
        exe = fluid.Executor(fluid.CPUPlace())
        exe.run(startup)
        results.append(exe.run(main, feed=feed, fetch_list=[outputs, steps, loss,
                                                            x.grad_name]))
    (out, steps, _, gx), unrolled = results
    assert out.shape == (2, 3, 3)
    np.testing.assert_array_equal(steps, [2, 3])
    for got, want in zip(results[0], unrolled):
        np.testing.assert_allclose(got, want, rtol=1e-12)

    def f(v):
        return float(exe.run(main, feed={"x": v, "lengths": feed["lengths"]},
                             fetch_list=[loss])[0].ravel()[0])
    np.testing.assert_allclose(gx, central_differences(f, feed["x"]), rtol=1e-5, atol=1e-9)


def test_prune_with_input_keeps_ops_needing_unfed_variables():
    """Paddle 1.8.5 prunes to the targets even when they need a variable that is not fed
    (its test_rnn_decode_api builds such a program it never runs)."""
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        a = fluid.data("a", [2], "float32")
        b = fluid.data("b", [2], "float32")
        out = a + b
        L.mean(out)
    pruned = main._prune_with_input(["a"], [out])
    assert [op.type for op in pruned.global_block().ops] == ["elementwise_add"]


def test_read_gradients_see_the_index_an_in_place_increment_later_moved():
    """Paddle 1.8.5's test_array_read_write_op pattern: one counter, incremented in place
    between the writes and between the reads. Backward undoes the increments (as 1.8's
    increment grad op does), so each read's gradient goes to the element it read."""
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        xs = [fluid.data("x%d" % k, [2], "float32") for k in range(2)]
        for x in xs:
            x.stop_gradient = False
        i = L.zeros([1], "int64")
        array = L.array_write(xs[0], i)
        L.array_write(xs[1], L.increment(i), array=array)
        j = L.zeros([1], "int64")
        first = L.array_read(array, j)
        second = L.array_read(array, L.increment(j))
        loss = L.sums([L.reduce_sum(first), L.reduce_sum(second) * 3.0])
        fluid.backward.append_backward(loss)
    ones = np.ones(2, "float32")
    g0, g1 = fluid.Executor(fluid.CPUPlace()).run(
        main, feed={"x0": ones, "x1": ones}, fetch_list=[x.grad_name for x in xs])
    np.testing.assert_array_equal(g0, [1.0, 1.0])
    np.testing.assert_array_equal(g1, [3.0, 3.0])


def test_an_integer_counter_needing_gradients_is_incremented_in_place_eagerly():
    """1.8 scripts set stop_gradient False on int64 counters and increment them in place
    under dygraph (1.8.5's test_array_read_write_op): integers carry no gradient."""
    with fluid.dygraph.guard():
        i = L.zeros([1], "int64")
        i.stop_gradient = False
        L.increment(i)
        assert i.numpy()[0] == 1


def test_a_fresh_integer_result_keeps_its_gradient_eagerly():
    """Only an in-place integer write skips the tape: Paddle 1.8.5's dygraph gives int64
    x ** y gradients (its test_elementwise_pow_op: x [1, 3, 6], y [1, 1, 1] -> dOut ones,
    dX = y x^(y-1) = [1, 1, 1])."""
    with fluid.dygraph.guard():
        x = fluid.dygraph.to_variable(np.array([1, 3, 6], "int64"))
        y = fluid.dygraph.to_variable(np.array([1, 1, 1], "int64"))
        x.stop_gradient = y.stop_gradient = False
        out = x ** y
        out.backward()
        if versions.switch("legacy_grads"):       # 3: a non-leaf keeps no gradient
            np.testing.assert_array_equal(out.gradient(), [1, 1, 1])
        np.testing.assert_array_equal(x.gradient(), [1, 1, 1])


def _sliced_array_program(take):
    """x0, x1, x2 (3x4 each) times 1, 2, 3 written to an array; `take(array)` gives a
    tensor (an element) or an array (stacked on axis 0); loss sum(out * out)."""
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        xs = [fluid.data("x%d" % k, [3, 4], "float64") for k in range(3)]
        array = L.create_array("float64")
        for k, x in enumerate(xs):
            x.stop_gradient = False
            L.array_write(x * float(k + 1), L.array_length(array), array=array)
        taken = take(array)
        out = L.tensor_array_to_tensor(taken, axis=0, use_stack=True)[0] \
            if taken.type == "LOD_TENSOR_ARRAY" else taken
        fluid.backward.append_backward(L.reduce_sum(out * out))
    rng = np.random.RandomState(1)
    feed = {"x%d" % k: rng.rand(3, 4) for k in range(3)}
    exe = fluid.Executor(fluid.CPUPlace())
    values = exe.run(main, feed=feed, fetch_list=[out] + [x.grad_name for x in xs])
    return taken, feed, values[0], values[1:]


def _expected_grads(feed, taken):
    """d sum(out^2) / d x_k for out made of the scaled elements `taken`: 2 (k+1)^2 x_k."""
    return [2.0 * (k + 1) ** 2 * feed["x%d" % k] if k in taken else np.zeros((3, 4))
            for k in range(3)]


@pytest.mark.parametrize("index", [1, -1, "variable"])
def test_an_array_subscripted_by_an_int_is_its_element_and_only_it_gets_a_gradient(index):
    """arr[i] (Paddle 2.0): a slice op with decrease_axis giving a tensor of the array's
    element shape; slice_grad puts Out@GRAD at element i of the array's gradient."""
    def take(array):
        return array[L.fill_constant([1], "int64", 1) if index == "variable" else index]
    taken, feed, out, grads = _sliced_array_program(take)
    k = 2 if index == -1 else 1
    assert taken.type == "LOD_TENSOR" and tuple(taken.shape) == (3, 4)
    np.testing.assert_allclose(out, feed["x%d" % k] * (k + 1))
    for got, want in zip(grads, _expected_grads(feed, {k})):
        np.testing.assert_allclose(got, want)


@pytest.mark.parametrize("bounds,taken_elements", [
    ((0, "length - 1"), [0, 1]), ((-2, None), [1, 2]), ((1, 2 ** 31), [1, 2])])
def test_an_array_sliced_is_an_array_of_those_elements_with_their_gradients(
        bounds, taken_elements):
    """arr[a:b]: an array (the Out variable a LOD_TENSOR_ARRAY with the elements' shape),
    bounds as Python's (negative from the end, the end clipped at the length), the end
    possibly an int64 Variable known at run time only."""
    def take(array):
        start, end = bounds
        if end == "length - 1":
            end = L.array_length(array) - 1
        elif end is not None and end > 2 ** 31 - 1:
            end = L.fill_constant([1], "int64", end)
        return array[start:end]
    taken, feed, out, grads = _sliced_array_program(take)
    assert taken.type == "LOD_TENSOR_ARRAY" and tuple(taken.shape) == (3, 4)
    np.testing.assert_allclose(out, np.stack([feed["x%d" % k] * (k + 1)
                                              for k in taken_elements]))
    for got, want in zip(grads, _expected_grads(feed, set(taken_elements))):
        np.testing.assert_allclose(got, want)


def test_an_empty_array_slice_is_refused_when_the_program_runs():
    """Paddle 2.0's kernel requires end > start once both are clipped to the length."""
    with pytest.raises(OpError, match=r"Attr\(ends\) should be greater than attr\(starts\)"
                       r".*received end = 1, start = 2"):
        _sliced_array_program(lambda array: array[2:1])


def test_slice_kernel_on_an_array_and_its_gradient():
    """The kernels themselves: elements 1..2 of 4 (None: an unwritten slot passes as it
    is); the gradient is as long as the array, None (zero) outside the slice."""
    from refimpl.ops.tensor_ops import Slice
    a = [np.full((2,), float(k)) for k in range(4)]
    a[2] = None
    out = Slice.forward(a, axes=[0], starts=[1], ends=[-1])
    assert len(out) == 2 and out[1] is None
    np.testing.assert_array_equal(out[0], a[1])
    element = Slice.forward(a, axes=[0], starts=[-1], ends=[2 ** 31 - 1], decrease_axis=[0])
    np.testing.assert_array_equal(element, a[3])
    g = [np.ones(2), np.full((2,), 5.0)]
    grad = Slice.backward(a, None, None, None, None, g, axes=[0], starts=[1], ends=[3])
    assert len(grad) == 4 and grad[0] is None and grad[3] is None
    assert grad[1] is g[0] and grad[2] is g[1]
    grad = Slice.backward(a, None, None, None, None, g[1], axes=[0], starts=[-1], ends=[4],
                          decrease_axis=[0])
    assert grad[:3] == [None] * 3
    np.testing.assert_array_equal(grad[3], g[1])


_ACTIVATIONS = {
    "softmax": lambda z: np.exp(z - z.max(1, keepdims=True)) /
    np.exp(z - z.max(1, keepdims=True)).sum(1, keepdims=True),
    "relu": lambda z: np.maximum(z, 0.0),
    "tanh": np.tanh,
}


def _two_steps(layer, start, w):
    """while_loop: 2 steps of p = layer(p w) from start; the final p."""
    i = L.fill_constant([1], "int64", 0)
    two = L.fill_constant([1], "int64", 2)
    _, out = L.while_loop(lambda i, p: L.less_than(i, two),
                          lambda i, p: [L.increment(i), layer(L.matmul(p, w))], [i, start])
    return out


def _assert_loss_and_differences(forward, feed, value, grads):
    """value is forward(**feed), and grads ({feed name: gradient}) its central differences."""
    np.testing.assert_allclose(value, forward(**feed), rtol=1e-10)
    for name, got in grads.items():
        def f(v, name=name):
            return forward(**dict(feed, **{name: v}))
        np.testing.assert_allclose(got, central_differences(f, feed[name]), rtol=1e-5,
                                   atol=1e-9)


@pytest.mark.parametrize("profile", ["1.8", "2.0", "3"])
@pytest.mark.parametrize("act", ["softmax", "relu", "tanh", "read before the loop"])
def test_while_loop_on_an_ops_output_keeps_the_chain_rule(paddle_version, profile, act):
    """act(img W0) -> 2 steps of p = act(p W1) -> mean(p * c): under 1.8 and 2.0 the loop
    runs in place on act's output variable, yet act's grad op reads its pre-loop output
    (specs/control_flow.md#execution), so W0@GRAD and W1@GRAD are the central
    differences in every profile. "read before the loop": 2 steps of p = tanh(p W1) run
    on h = img W0 itself, which h * h read before the loop (its grad op reads h)."""
    read_before = act == "read before the loop"
    name = "tanh" if read_before else act
    rng = np.random.RandomState(3)
    feed = {"img": rng.randn(2, 3), "w0": rng.randn(3, 3), "w1": rng.randn(3, 3),
            "c": rng.randn(2, 3)}

    def start_of(h):
        return h if read_before else _ACTIVATIONS[name](h)

    def forward(img, w0, w1, c):
        h = img @ w0
        p = start_of(h)
        for _ in range(2):
            p = _ACTIVATIONS[name](p @ w1)
        return (p * c).mean() + ((h * h).mean() if read_before else 0.0)

    with paddle_version(profile):
        main = fluid.Program()
        with fluid.program_guard(main, fluid.Program()):
            img, w0, w1, c = (fluid.data(n, list(feed[n].shape), "float64")
                              for n in ("img", "w0", "w1", "c"))
            w0.stop_gradient = w1.stop_gradient = False
            h = L.matmul(img, w0)
            layer = getattr(L, name)
            p = h if read_before else layer(h)
            square = L.mean(h * h)
            out = _two_steps(layer, p, w1)
            loss = L.mean(out * c) + square if read_before else L.mean(out * c)
            fluid.backward.append_backward(loss)
        value, (g0, g1) = _loss_and_grads(main, loss, feed, [w0, w1])
        caller, final = fluid.Executor(fluid.CPUPlace()).run(main, feed=feed,
                                                             fetch_list=[p, out])
    _assert_loss_and_differences(forward, feed, value, {"w0": g0, "w1": g1})
    # the caller's variable: the loop's final value in place (1.8, 2.0), its own under 3
    start = start_of(feed["img"] @ feed["w0"])
    np.testing.assert_allclose(caller, final if profile != "3" else start, rtol=1e-10)
    assert not np.allclose(final, start)


@pytest.mark.parametrize("profile", ["1.8", "2.0", "3"])
def test_while_loop_on_a_fed_variable_read_before_the_loop_keeps_the_chain_rule(
        paddle_version, profile):
    """x fed, s = mean(x * w0) before the loop, then 2 steps of x = tanh(x W1) in place:
    mul's grad op reads the x fed (a copy made before s), so x, w0 and w1 get the central
    differences' gradients in every profile."""
    rng = np.random.RandomState(5)
    feed = {"x": rng.randn(2, 3), "w0": rng.randn(2, 3), "w1": rng.randn(3, 3),
            "c": rng.randn(2, 3)}

    def forward(x, w0, w1, c):
        s = (x * w0).mean()
        for _ in range(2):
            x = np.tanh(x @ w1)
        return (x * c).mean() + s

    with paddle_version(profile):
        main = fluid.Program()
        with fluid.program_guard(main, fluid.Program()):
            x, w0, w1, c = (fluid.data(n, list(feed[n].shape), "float64")
                            for n in ("x", "w0", "w1", "c"))
            x.stop_gradient = w0.stop_gradient = w1.stop_gradient = False
            s = L.mean(x * w0)
            loss = L.mean(_two_steps(L.tanh, x, w1) * c) + s
            fluid.backward.append_backward(loss)
        value, grads = _loss_and_grads(main, loss, feed, [x, w0, w1])
    _assert_loss_and_differences(forward, feed, value, dict(zip(("x", "w0", "w1"), grads)))
