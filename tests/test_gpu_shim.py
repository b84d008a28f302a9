"""The GPU code paths on a machine without a GPU: tests/numpy_gpu.py stands in for CuPy
(device arrays that refuse the host as CuPy's do), so placement, fetches, host staging,
the array-generic references and data parallelism over CUDAPlaces run for real here. What
it cannot show, that CuPy's kernels compute the same numbers, tests/test_gpu.py checks on a
GPU."""
import numpy as np
import pytest

import numpy_gpu
from helpers import conformance_results_on_gpu, train_small_cnn
import refimpl as paddle
from refimpl import fluid, testing
from refimpl.dispatch import select_kernel
from refimpl.ops.registry import all_op_types, get_op_def


@pytest.fixture
def one_gpu(monkeypatch):
    """One stand-in GPU; set_device back to the CPU after (a test may choose the GPU)."""
    monkeypatch.setenv("REFIMPL_KERNELS", "numpy")   # CuPy's own kernels need a real GPU
    with numpy_gpu.installed(1) as module:
        try:
            yield module
        finally:
            paddle.set_device("cpu")


def _device(v):
    if isinstance(v, np.ndarray):
        return numpy_gpu.asarray(v)
    if isinstance(v, list):
        return [_device(x) for x in v]
    return v


def _host(v):
    return v.get() if isinstance(v, numpy_gpu.ndarray) else v


XP_GENERIC = sorted(t for t in all_op_types() if not t.endswith("_grad")
                    and get_op_def(t).xp_generic)


def test_most_hot_references_are_array_generic():
    assert len(XP_GENERIC) >= 100
    assert {"mul", "matmul", "elementwise_add", "batch_norm", "adam", "momentum", "sgd",
            "softmax", "relu"} <= set(XP_GENERIC)


@pytest.mark.parametrize("op_type", XP_GENERIC)
def test_array_generic_reference_stays_on_the_device(one_gpu, op_type):
    """Each sample, in float32 and float64, forward and backward: results are device arrays
    equal to the numpy run's."""
    op_def = get_op_def(op_type)
    for sample in op_def.samples(np.random.RandomState(0)):
        for dtype in (np.float64, np.float32):
            inputs = {k: v.astype(dtype) if isinstance(v, np.ndarray) and v.dtype.kind == "f"
                      else v for k, v in sample.inputs.items()}
            expected = testing.call_forward(op_def, inputs, sample.attrs)
            got = testing.call_forward(op_def, {k: _device(v) for k, v in inputs.items()},
                                       sample.attrs)
            for e, g in zip(expected, got):
                if isinstance(e, np.ndarray):
                    assert isinstance(g, numpy_gpu.ndarray), (op_type, type(g))
                    np.testing.assert_allclose(_host(g), e, rtol=1e-6, atol=1e-6)
            if not op_def.has_grad() or not sample.grad:
                continue
            cot = {s: np.ones_like(o) if isinstance(o, np.ndarray) and o.dtype.kind == "f"
                   else None for s, o in zip(op_def.output_slots, expected)}
            want = testing.call_backward(op_def, inputs, sample.attrs, expected, cot)
            have = testing.call_backward(
                op_def, {k: _device(v) for k, v in inputs.items()}, sample.attrs,
                [_device(o) for o in expected], {k: _device(v) for k, v in cot.items()})
            for e, g in zip(want, have):
                if isinstance(e, np.ndarray):
                    assert isinstance(g, numpy_gpu.ndarray), (op_type, "grad", type(g))
                    np.testing.assert_allclose(_host(g), e, rtol=1e-6, atol=1e-6)


def test_other_references_run_on_host_copies(one_gpu):
    assert not get_op_def("gather").xp_generic
    kernel = select_kernel("gather", "forward", {}, "float32", device="gpu")
    assert kernel.fn.__wrapped__ == get_op_def("gather").forward
    table = np.arange(12.0).reshape(4, 3)
    out = kernel.fn(numpy_gpu.asarray(table), numpy_gpu.asarray(np.array([3, 1])),
                    **get_op_def("gather").attrs)
    assert isinstance(out, numpy_gpu.ndarray)
    np.testing.assert_array_equal(out.get(), table[[3, 1]])


def test_gpu_has_no_out_or_inplace_variants(one_gpu):
    assert select_kernel("relu", "forward_out", {}, "float32", device="gpu") is None
    assert select_kernel("relu", "forward_inplace", {}, "float32", device="gpu") is None
    assert select_kernel("relu", "forward_out", {}, "float32") is not None


def test_cuda_place_trains_on_the_device_like_the_cpu(monkeypatch):
    cpu, _, _ = train_small_cnn(fluid.CPUPlace())
    monkeypatch.setenv("REFIMPL_KERNELS", "numpy")
    with numpy_gpu.installed(1):
        gpu, scope, _ = train_small_cnn(fluid.CUDAPlace(0))
    # fetches come back as numpy (one-element ones as the profile's FetchedArray)
    assert all(isinstance(v, np.ndarray) and not isinstance(v, numpy_gpu.ndarray)
               for v in gpu)
    weights = [v for n, v in scope._values.items() if n.endswith(".w_0")]
    assert weights and all(isinstance(w, numpy_gpu.ndarray) for w in weights)
    np.testing.assert_allclose(gpu, cpu, rtol=1e-5)
    assert gpu[-1] < gpu[0]


def test_data_parallel_over_two_gpus_keeps_each_place_on_its_device(monkeypatch):
    cpu, _, _ = train_small_cnn(fluid.CPUPlace(), [fluid.CPUPlace()] * 2)
    monkeypatch.setenv("REFIMPL_KERNELS", "numpy")
    with numpy_gpu.installed(2):
        gpu, _, program = train_small_cnn(fluid.CUDAPlace(0), [fluid.CUDAPlace(0), fluid.CUDAPlace(1)])
        runner, = program._device_sets.values()
        for d, env in enumerate(runner.envs):
            params = [v for n, v in env.items() if n.endswith(".w_0")]
            assert params and all(p.device_id == d for p in params)
    np.testing.assert_allclose(gpu, cpu, rtol=1e-5)   # gradients allreduced via the host


def _train_sequence_model(place, places=None, steps=3):
    """Embedding -> sum sequence_pool -> fc on a 1-level LoD batch (4 sequences), SGD.
    Returns the losses and the fetched pooled LoD-free rows and the embedding's LoD output."""
    main, startup = fluid.Program(), fluid.Program()
    main.random_seed = startup.random_seed = 7
    with fluid.program_guard(main, startup):
        words = fluid.data("words", [None, 1], "int64", lod_level=1)
        label = fluid.data("label", [None, 1], "float32")
        emb = fluid.embedding(words, size=[20, 6])
        pooled = fluid.layers.sequence_pool(emb, "sum")
        loss = fluid.layers.mean(fluid.layers.square(fluid.layers.fc(pooled, 1) - label))
        fluid.optimizer.SGD(0.1).minimize(loss)
    ids = np.array([[3], [1], [4], [1], [5], [9], [2], [6], [5], [3]], "int64")
    feed = {"words": fluid.create_lod_tensor(ids, [[2, 3, 1, 4]], fluid.CPUPlace()),
            "label": np.array([[1.0], [-1.0], [0.5], [2.0]], "float32")}
    exe, scope = fluid.Executor(place), fluid.Scope()
    program = main if places is None else fluid.CompiledProgram(main).with_data_parallel(
        loss_name=loss.name, places=places)
    with fluid.scope_guard(scope):
        exe.run(startup)
        losses = [np.ravel(exe.run(program, feed=feed, fetch_list=[loss])[0]).mean()
                  for _ in range(steps)]
        emb_out, = exe.run(main, feed=feed, fetch_list=[emb], return_numpy=False)
    return losses, emb_out


def test_lod_programs_run_on_the_gpu_like_the_cpu(monkeypatch):
    cpu, cpu_emb = _train_sequence_model(fluid.CPUPlace())
    monkeypatch.setenv("REFIMPL_KERNELS", "numpy")
    with numpy_gpu.installed(1):
        gpu, gpu_emb = _train_sequence_model(fluid.CUDAPlace(0))
        # a value with a LoD comes back to the host (a LoDArray), the rest stays on the GPU
        assert gpu_emb.recursive_sequence_lengths() == [[2, 3, 1, 4]]
        np.testing.assert_allclose(np.array(gpu_emb), np.array(cpu_emb), rtol=1e-6)
    np.testing.assert_allclose(gpu, cpu, rtol=1e-5)
    assert gpu[-1] < gpu[0]


def test_lod_batches_split_over_two_gpus_like_two_cpu_places(monkeypatch):
    cpu, _ = _train_sequence_model(fluid.CPUPlace(), [fluid.CPUPlace()] * 2)
    monkeypatch.setenv("REFIMPL_KERNELS", "numpy")
    with numpy_gpu.installed(2):
        gpu, _ = _train_sequence_model(fluid.CUDAPlace(0),
                                       [fluid.CUDAPlace(0), fluid.CUDAPlace(1)])
    np.testing.assert_allclose(gpu, cpu, rtol=1e-5)


def test_a_gpu_scope_value_converts_to_numpy_as_in_paddle(one_gpu):
    scope = fluid.Scope()
    scope.var("w")
    scope._values["w"] = numpy_gpu.asarray(np.arange(3.0))   # as a GPU run leaves a parameter
    np.testing.assert_array_equal(np.array(scope.find_var("w").get_tensor()), np.arange(3.0))


def test_host_values_in_the_scope_move_to_the_device(one_gpu):
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = fluid.data("x", [None, 3], "float32")
        out = fluid.layers.fc(x, 2, bias_attr=False)
    exe, scope = fluid.Executor(fluid.CUDAPlace(0)), fluid.Scope()
    with fluid.scope_guard(scope):
        exe.run(startup)
        w_name = main.global_block().all_parameters()[0].name
        w = np.arange(6, dtype="float32").reshape(3, 2)
        scope._values[w_name] = w          # as a load into the scope leaves it
        got, = exe.run(main, feed={"x": np.ones((1, 3), "float32")}, fetch_list=[out])
    np.testing.assert_allclose(got, w.sum(0, keepdims=True))


def test_set_device_picks_the_executors_place(one_gpu):
    try:
        assert paddle.set_device("gpu:0") == fluid.CUDAPlace(0)
        assert paddle.get_device() == "gpu:0"
        assert fluid.Executor().place == fluid.CUDAPlace(0)
    finally:
        paddle.set_device("cpu")
    assert paddle.get_device() == "cpu" and fluid.Executor().place == fluid.CPUPlace()


def test_without_a_gpu_cuda_places_are_refused():
    assert not paddle.is_compiled_with_cuda()   # CuPy imports here, but no device answers
    with pytest.raises(ValueError, match=r"CUDAPlace\(0\): no GPU is usable here"):
        fluid.CUDAPlace(0)
    with pytest.raises(ValueError, match=r"CUDAPlace\(1\): no GPU is usable here"):
        paddle.set_device("gpu:1")
    assert paddle.get_device() == "cpu"


def test_deferred_checks_run_once_when_the_run_ends():
    from refimpl import xp
    calls = []
    xp.defer_check(lambda: calls.append(1))
    xp.defer_check(lambda: (_ for _ in ()).throw(IndexError("label 7")))
    with pytest.raises(IndexError, match="label 7"):
        xp.run_deferred_checks()
    assert calls == [1]
    xp.run_deferred_checks()          # each runs once
    xp.defer_check(lambda: calls.append(2))
    xp.drop_deferred_checks()         # a failed run's checks are dropped
    xp.run_deferred_checks()
    assert calls == [1]


def test_every_static_conformance_case_passes_on_the_gpu(one_gpu):
    """`conformance check --device gpu` (static mode) in this process: the goldens' op
    cases and scenarios run by the Executor on the device, LoD cases included (their LoD
    values stay on the host; a LoD result of a host-staged op was once moved to the device
    and lost its LoD)."""
    results, failed = conformance_results_on_gpu(paddle, "static")
    assert not failed
    lod_cases = [r for r in results if r["id"].startswith("op/lod_rank_table/1")]
    assert [r["status"] for r in lod_cases] == ["pass"]
    assert sum(r["status"] == "pass" for r in results) >= 700
