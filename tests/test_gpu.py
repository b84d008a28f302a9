"""On a GPU (`python -m pytest -m gpu`; every test skips without one): each CuPy kernel
against its numpy reference on the same inputs (hypothesis), every op's OpInfo samples run
through the GPU dispatch, and training on CUDAPlaces (static programs and eager Layers)
against the CPU run."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from helpers import train_eager, train_small_cnn
import refimpl as paddle
from refimpl import fluid, testing
from refimpl.dispatch import select_kernel
from refimpl.framework.lod import lod_of
from refimpl.framework.place import device_count, is_compiled_with_cuda
from refimpl.ops.registry import BlockOpDef, all_op_types, get_op_def
from refimpl.xp import run_deferred_checks

pytestmark = [pytest.mark.gpu, pytest.mark.skipif(
    not is_compiled_with_cuda(), reason="no GPU usable here (CuPy and a CUDA device needed)")]

if is_compiled_with_cuda():
    import cupy


def _on_gpu(v):
    """`v` on the GPU; a value carrying a LoD stays on the host, where it lives."""
    if isinstance(v, np.ndarray) and not lod_of(v):
        return cupy.asarray(v)
    if isinstance(v, list):
        return [_on_gpu(x) for x in v]
    return v


def _host(v):
    if isinstance(v, (list, tuple)):
        return [_host(x) for x in v]
    return cupy.asnumpy(v) if isinstance(v, cupy.ndarray) else v


def _compare(op_type, which, inputs, attrs, dtype, args_for):
    """The GPU kernel's result on `inputs` (numpy) equals the reference's on the host."""
    op_def = get_op_def(op_type)
    full = dict(op_def.attrs, **attrs)
    kernel = select_kernel(op_type, which, full, dtype, device="gpu")
    reference = getattr(op_def, which)
    want = reference(*args_for(inputs), **full)
    extra = {"need": (True,) * 2} if "need" in kernel.keywords else {}
    got = kernel.fn(*[_on_gpu(a) for a in args_for(inputs)], **full, **extra)
    rtol, atol = op_def.tolerances[dtype]
    testing.assert_close(_host([g for g, w in zip(_pair(got), _pair(want)) if w is not None]),
                         [w for w in _pair(want) if w is not None], rtol * 10, atol * 10,
                         "%s %s" % (op_type, which))
    return kernel


def _pair(v):
    return list(v) if isinstance(v, (list, tuple)) else [v]


dtypes = st.sampled_from(["float32", "float64"])


@settings(max_examples=25, deadline=None)
@given(dtypes, st.integers(1, 5), st.integers(1, 3), st.integers(3, 9), st.integers(1, 4),
       st.integers(1, 3), st.integers(1, 2), st.integers(0, 2), st.integers(1, 2))
def test_conv2d_kernel(dtype, n, c, hw, m, k, stride, pad, dilation):
    rng = np.random.RandomState(0)
    x = rng.randn(n, c, hw, hw).astype(dtype)
    f = rng.randn(m, c, k, k).astype(dtype)
    attrs = {"strides": [stride] * 2, "paddings": [pad] * 2, "dilations": [dilation] * 2}
    if (hw + 2 * pad - dilation * (k - 1) - 1) < 0:
        return
    assert _compare("conv2d", "forward", (x, f), attrs, dtype, lambda a: a).compiled
    dy = rng.randn(*get_op_def("conv2d").forward(x, f, **dict(get_op_def("conv2d").attrs,
                                                              **attrs)).shape).astype(dtype)
    _compare("conv2d", "backward", (x, f, dy), attrs, dtype, lambda a: a)


@settings(max_examples=25, deadline=None)
@given(dtypes, st.sampled_from(["max", "avg"]), st.integers(1, 3), st.integers(1, 3),
       st.integers(0, 1), st.booleans(), st.booleans())
def test_pool2d_kernel(dtype, kind, k, s, p, exclusive, ceil_mode):
    rng = np.random.RandomState(1)
    x = rng.randn(2, 3, 7, 6).astype(dtype)
    attrs = {"pooling_type": kind, "ksize": [k + p, k + p], "strides": [s, s],
             "paddings": [p, p], "exclusive": exclusive, "ceil_mode": ceil_mode}
    full = dict(get_op_def("pool2d").attrs, **attrs)
    out = get_op_def("pool2d").forward(x, **full)
    _compare("pool2d", "forward", (x,), attrs, dtype, lambda a: a)
    _compare("pool2d", "backward", (x, out, rng.randn(*out.shape).astype(dtype)), attrs,
             dtype, lambda a: a)


@settings(max_examples=15, deadline=None)
@given(dtypes, st.sampled_from(["max", "avg"]), st.integers(1, 7), st.integers(1, 6))
def test_adaptive_pool2d_kernel(dtype, kind, ho, wo):
    rng = np.random.RandomState(2)
    x = rng.randn(2, 3, 7, 6).astype(dtype)
    attrs = {"pooling_type": kind, "ksize": [ho, wo], "adaptive": True}
    out = get_op_def("pool2d").forward(x, **dict(get_op_def("pool2d").attrs, **attrs))
    _compare("pool2d", "forward", (x,), attrs, dtype, lambda a: a)
    _compare("pool2d", "backward", (x, out, rng.randn(*out.shape).astype(dtype)), attrs,
             dtype, lambda a: a)


@settings(max_examples=25, deadline=None)
@given(dtypes, st.integers(1, 300), st.integers(1, 1000))
def test_softmax_with_cross_entropy_kernel(dtype, rows, classes):
    rng = np.random.RandomState(2)
    logits = (rng.randn(rows, classes) * 4).astype(dtype)
    label = rng.randint(0, classes, (rows, 1)).astype("int64")
    label[::3] = -100                      # ignore_index rows: loss 0, no gradient
    _compare("softmax_with_cross_entropy", "forward", (logits, label), {}, dtype, lambda a: a)
    softmax, _ = get_op_def("softmax_with_cross_entropy").forward(logits, label)
    _compare("softmax_with_cross_entropy", "backward",
             (label, softmax, rng.rand(rows, 1).astype(dtype)), {}, dtype, lambda a: a)


@settings(max_examples=25, deadline=None)
@given(dtypes, st.sampled_from([(4, 3), (4, 3, 2, 2), (2, 5, 3, 1)]), st.booleans())
def test_batch_norm_kernel(dtype, shape, is_test):
    rng = np.random.RandomState(3)
    c = shape[1]
    args = (rng.randn(*shape).astype(dtype), rng.uniform(0.5, 1.5, c).astype(dtype),
            rng.randn(c).astype(dtype), rng.randn(c).astype(dtype),
            rng.uniform(0.5, 1.5, c).astype(dtype))
    _compare("batch_norm", "forward", args, {"is_test": is_test}, dtype, lambda a: a)
    y, _, _, saved_mean, saved_inv, _ = get_op_def("batch_norm").forward(
        *args, **dict(get_op_def("batch_norm").attrs, is_test=is_test))
    _compare("batch_norm", "backward", (args[0], args[1], saved_mean, saved_inv,
                                        rng.randn(*shape).astype(dtype)),
             {"is_test": is_test}, dtype, lambda a: a)


@settings(max_examples=25, deadline=None)
@given(dtypes, st.integers(1, 64), st.integers(1, 64), st.integers(1, 64))
def test_mul_and_matmul_kernels(dtype, m, k, n):
    rng = np.random.RandomState(4)
    x, y = rng.randn(m, k).astype(dtype), rng.randn(k, n).astype(dtype)
    _compare("mul", "forward", (x, y), {}, dtype, lambda a: a)
    _compare("mul", "backward", (x, y, rng.randn(m, n).astype(dtype)), {}, dtype, lambda a: a)
    _compare("matmul_v2", "forward", (x, y.T.copy()), {"trans_y": True}, dtype, lambda a: a)


@settings(max_examples=25, deadline=None)
@given(dtypes, st.integers(1, 2000), st.booleans())
def test_activation_kernels(dtype, size, approximate):
    rng = np.random.RandomState(5)
    x, d = rng.randn(size).astype(dtype), rng.randn(size).astype(dtype)
    _compare("relu", "forward", (x,), {}, dtype, lambda a: a)
    _compare("relu", "backward", (np.maximum(x, 0), d), {}, dtype, lambda a: a)
    _compare("gelu", "forward", (x,), {"approximate": approximate}, dtype, lambda a: a)
    _compare("gelu", "backward", (x, d), {"approximate": approximate}, dtype, lambda a: a)


@settings(max_examples=25, deadline=None)
@given(dtypes, st.integers(1, 50), st.integers(1, 50), st.booleans())
def test_optimizer_kernels(dtype, rows, cols, nesterov):
    rng = np.random.RandomState(6)

    def state():
        return rng.randn(rows, cols).astype(dtype)
    lr = np.array([0.1], dtype)
    _compare("sgd", "forward", (state(), lr, state()), {}, dtype, lambda a: [x.copy() for x in a])
    _compare("momentum", "forward", (state(), state(), state(), lr),
             {"mu": 0.75, "use_nesterov": nesterov}, dtype, lambda a: [x.copy() for x in a])
    _compare("adam", "forward", (state(), state(), lr, state(), np.abs(state()),
                                 np.array([0.9], dtype), np.array([0.999], dtype)),
             {"beta1": 0.875}, dtype, lambda a: [x.copy() for x in a])


def test_fused_add_relu_kernel():
    for sample in get_op_def("fused_elemwise_add_relu").samples(np.random.RandomState(7)):
        _compare("fused_elemwise_add_relu", "forward", (sample.inputs["X"],), sample.attrs,
                 "float64", lambda a: [list(a[0])])


# row lengths around the kernels' block sizes (a warp, MAX_ROW_BLOCK 512) and longer rows
ROW_LENGTHS = st.sampled_from([1, 2, 31, 32, 33, 100, 511, 512, 513, 1000, 4097])


@settings(max_examples=40, deadline=None)
@given(dtypes, st.sampled_from([1, 2, 7, 64, 1000]), ROW_LENGTHS, st.booleans(), st.booleans(),
       st.sampled_from([1, 2]))
def test_layer_norm_kernel(dtype, rows, cols, with_scale, with_bias, begin_norm_axis):
    # X [rows, 2, cols]: normalized over 2 * cols (axis 1) or cols (axis 2, 2 * rows rows);
    # offset from 0, so a one-pass variance would lose digits
    rng = np.random.RandomState(8)
    x = (rng.randn(rows, 2, cols) * 3 + 50).astype(dtype)
    n = 2 * cols if begin_norm_axis == 1 else cols
    scale = rng.uniform(0.5, 1.5, n).astype(dtype) if with_scale else None
    bias = rng.randn(n).astype(dtype) if with_bias else None
    attrs = {"begin_norm_axis": begin_norm_axis, "epsilon": 1e-5}
    assert _compare("layer_norm", "forward", (x, scale, bias), attrs, dtype,
                    lambda a: a).compiled
    op_def = get_op_def("layer_norm")
    _, mean, var = op_def.forward(x, scale, bias, **attrs)
    dy = rng.randn(*x.shape).astype(dtype)
    _compare("layer_norm", "backward", (x, scale, bias, mean, var, dy), attrs, dtype,
             lambda a: a)


@settings(max_examples=40, deadline=None)
@given(dtypes, st.sampled_from([1, 3, 50]), ROW_LENGTHS, st.sampled_from([1.0, 30.0]),
       st.sampled_from([-1, 2, 1, 0]))
def test_softmax_kernel(dtype, rows, cols, spread, axis):
    # spread 30: shifts below the reference's floor of -64; axes 0 and 1 run the reference
    rng = np.random.RandomState(9)
    x = (rng.randn(rows, 2, cols) * spread).astype(dtype)
    if cols > 3:
        x[0, 0, 0] = np.nan          # its row (axis -1) stays NaN, as numpy's
    kernel = _compare("softmax", "forward", (x,), {"axis": axis}, dtype, lambda a: a)
    assert kernel.compiled
    out = get_op_def("softmax").forward(x, axis=axis)
    _compare("softmax", "backward", (out, rng.randn(*x.shape).astype(dtype)), {"axis": axis},
             dtype, lambda a: a)


@settings(max_examples=30, deadline=None)
@given(dtypes, st.sampled_from([0.0, 0.3, 0.5, 1.0]), st.booleans(),
       st.sampled_from(["downgrade_in_infer", "upscale_in_train"]),
       st.sampled_from([(1, 1), (3, 5), (7, 33), (64, 1000)]), st.booleans())
def test_dropout_kernel_is_the_reference_to_the_bit(dtype, p, is_test, implementation, shape,
                                                     seed_input):
    # the same mask (the reference's draw) and the same arithmetic: equal, not close
    rng = np.random.RandomState(10)
    x, dout = rng.randn(*shape).astype(dtype), rng.randn(*shape).astype(dtype)
    seed = np.array([5], "int32") if seed_input else None
    op_def = get_op_def("dropout")
    attrs = dict(op_def.attrs, dropout_prob=p, is_test=is_test, fix_seed=True, seed=11,
                 dropout_implementation=implementation)
    kernel = select_kernel("dropout", "forward", attrs, dtype, device="gpu")
    assert kernel.compiled
    want_out, want_mask = op_def.forward(x, seed, **attrs)
    got_out, got_mask = kernel.fn(cupy.asarray(x), _on_gpu(seed), **attrs)
    np.testing.assert_array_equal(cupy.asnumpy(got_mask), want_mask)
    np.testing.assert_array_equal(cupy.asnumpy(got_out), want_out)
    assert got_out.dtype == want_out.dtype
    grad = select_kernel("dropout", "backward", attrs, dtype, device="gpu")
    want = op_def.backward(want_mask, dout, **attrs)
    got = grad.fn(cupy.asarray(want_mask), cupy.asarray(dout), **attrs)
    np.testing.assert_array_equal(cupy.asnumpy(got), want)


@settings(max_examples=30, deadline=None)
@given(dtypes, st.sampled_from(["lookup_table", "lookup_table_v2"]), st.integers(1, 6),
       st.sampled_from([1, 3, 64, 257]), st.sampled_from([1, 5, 2000]),
       st.sampled_from([-1, 0, 2]))
def test_lookup_table_kernels(dtype, op_type, rows, width, ids, padding_idx):
    # few rows, many ids: most rows get many atomic adds in the gradient
    rng = np.random.RandomState(11)
    w = rng.randn(rows, width).astype(dtype)
    flat = rng.randint(0, rows, ids).astype("int64")
    index = flat.reshape(-1, 1) if op_type == "lookup_table" else flat.reshape(1, -1)
    attrs = {"padding_idx": padding_idx}
    assert _compare(op_type, "forward", (w, index), attrs, dtype, lambda a: a).compiled
    run_deferred_checks()        # the ids' range check (all inside: passes)
    dout = rng.randn(*get_op_def(op_type).forward(w, index).shape).astype(dtype)
    assert _compare(op_type, "backward", (w, index, dout), attrs, dtype, lambda a: a).compiled


def _bad_feed_fails_only_its_run(build, feed, name, good, match):
    """Run `build()`'s loss on the GPU with `feed`, whose `name`[1] is out of range: that
    run raises IndexError(match); with `good` there instead, the next run succeeds (no
    stale deferred check left behind)."""
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        loss = build()
    exe, scope = fluid.Executor(fluid.CUDAPlace(0)), fluid.Scope()
    with fluid.scope_guard(scope):
        exe.run(startup)
        with pytest.raises(IndexError, match=match):
            exe.run(main, feed=feed, fetch_list=[loss])
        feed[name][1] = good
        got, = exe.run(main, feed=feed, fetch_list=[loss])
    assert np.isfinite(got).all()


def test_an_out_of_range_id_fails_the_run_that_fed_it():
    # (read as zeros and reported when the run ends, as softmax-CE's labels)
    def build():
        ids = fluid.data("ids", [None, 1], "int64")
        loss = fluid.layers.mean(fluid.layers.embedding(ids, [5, 3]))
        fluid.optimizer.SGD(0.1).minimize(loss)
        return loss
    _bad_feed_fails_only_its_run(build, {"ids": np.array([[1], [7]], "int64")}, "ids", 4,
                                 "id 7 is out of range for W with 5 rows")


OPS = sorted(t for t in all_op_types() if not t.endswith("_grad")
             and not isinstance(get_op_def(t), BlockOpDef))


@pytest.mark.parametrize("op_type", OPS)
def test_op_samples_on_the_gpu(op_type):
    """The OpInfo harness on a GPU: each sample's forward through the GPU dispatch (CuPy
    kernel, array-generic reference or host staging) equals the reference on the host."""
    op_def = get_op_def(op_type)
    try:
        samples = list(op_def.samples(np.random.RandomState(0)))
    except NotImplementedError:
        pytest.skip("no samples")
    for sample in samples:
        full = dict(op_def.attrs, **sample.attrs)
        kernel = select_kernel(op_type, "forward", full, None, device="gpu")
        if kernel is None or "group" in kernel.keywords:
            continue
        want = testing.call_forward(op_def, sample.inputs, sample.attrs)
        got = testing.call_forward(op_def, {k: _on_gpu(v) for k, v in sample.inputs.items()},
                                   sample.attrs, fn=kernel.fn)
        for w, g in zip(want, got):
            if isinstance(w, np.ndarray):
                assert lod_of(g) == lod_of(w), op_type
                assert lod_of(g) or not isinstance(g, np.ndarray), \
                    "%s: a host result on a GPU" % op_type
                testing.assert_close(_host(g), w, *op_def.tolerances.get(
                    w.dtype.name, (1e-5, 1e-6)), what=op_type)


def _train(place, places=None):
    return train_small_cnn(place, places, steps=5, batch=8, size=8, filters=4, classes=5)[0]


def test_training_on_cuda_place_matches_the_cpu():
    gpu = _train(fluid.CUDAPlace(0))
    assert all(isinstance(v, np.ndarray) for v in gpu)
    np.testing.assert_allclose(gpu, _train(fluid.CPUPlace()), rtol=2e-4, atol=1e-5)


@pytest.mark.skipif(device_count() < 2, reason="needs 2 GPUs")
def test_data_parallel_over_two_gpus_matches_two_cpu_places():
    gpu = _train(fluid.CUDAPlace(0), [fluid.CUDAPlace(0), fluid.CUDAPlace(1)])
    cpu = _train(fluid.CPUPlace(), [fluid.CPUPlace()] * 2)
    np.testing.assert_allclose(gpu, cpu, rtol=2e-4, atol=1e-5)


def test_nccl_clique_of_one_gpu_sums_to_itself():
    from refimpl.parallel.nccl import NcclClique, nccl_available
    if not nccl_available():
        pytest.skip("CuPy has no NCCL here")
    a = cupy.arange(6, dtype="float32").reshape(2, 3)
    b = cupy.linspace(0, 1, 5)
    got = NcclClique([0]).allreduce(0, [a, b])
    assert all(isinstance(g, cupy.ndarray) for g in got)
    np.testing.assert_array_equal(_host(got[0]), _host(a))
    np.testing.assert_array_equal(_host(got[1]), _host(b))


def test_data_parallel_over_one_gpu_is_the_plain_run():
    losses, _, program = train_small_cnn(fluid.CUDAPlace(0), [fluid.CUDAPlace(0)], steps=4,
                                         batch=8, size=8, filters=4, classes=5)
    runner, = program._device_sets.values()
    assert runner.nccl is None        # one place: nothing to reduce, no clique
    np.testing.assert_allclose(losses, _train(fluid.CUDAPlace(0))[:4], rtol=1e-5, atol=1e-6)


def test_an_out_of_range_label_fails_the_run_that_fed_it():
    # (checked when the run ends, not by a device-to-host wait inside the kernel)
    def build():
        x = fluid.data("x", [None, 4], "float32")
        y = fluid.data("y", [None, 1], "int64")
        return fluid.layers.mean(fluid.layers.softmax_with_cross_entropy(
            fluid.layers.fc(x, 3), y))
    _bad_feed_fails_only_its_run(
        build, {"x": np.ones((2, 4), "float32"), "y": np.array([[1], [7]], "int64")}, "y",
        2, "class 7 is out of range for 3 classes")


@pytest.mark.parametrize("model", ["mlp", "cnn"])
def test_eager_training_on_cuda_place_matches_the_cpu(dygraph, model):
    cpu_losses, cpu_state, _, _ = train_eager(model, "cpu", steps=5)
    losses, state, net, optimizer = train_eager(model, "gpu:0", steps=5)
    assert all(isinstance(v._value, cupy.ndarray) for v in net.state_dict().values())
    assert all(isinstance(v._value, cupy.ndarray) for v in optimizer.state_dict().values()
               if isinstance(v, paddle.Tensor))
    np.testing.assert_allclose(losses, cpu_losses, rtol=2e-4, atol=1e-5)
    assert losses[-1] < losses[0]
    for name in cpu_state:
        np.testing.assert_allclose(state[name], cpu_state[name], rtol=2e-4, atol=1e-5,
                                   err_msg=name)


def test_an_eager_out_of_range_label_raises_at_backward(dygraph):
    paddle.set_device("gpu:0")
    try:
        logits = paddle.to_tensor(np.ones((2, 3), "float32"), stop_gradient=False)
        label = paddle.to_tensor(np.array([[1], [7]], "int64"))
        loss = paddle.nn.functional.cross_entropy(logits, label)
        with pytest.raises(IndexError, match="class 7 is out of range for 3 classes"):
            loss.backward()
        label = paddle.to_tensor(np.array([[1], [2]], "int64"))
        loss = paddle.nn.functional.cross_entropy(logits, label)
        loss.backward()                      # no stale check left behind
        assert isinstance(logits._grad, cupy.ndarray) and np.isfinite(loss.item())
    finally:
        paddle.set_device("cpu")
