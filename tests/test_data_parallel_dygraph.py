"""paddle.DataParallel in one process, against a TwinWorld: a world of two ranks whose
other rank makes the same calls with the same values (so the average of a gradient is
the gradient itself) and whose rank 0 holds parameters one larger than ours. Checked:
the broadcast at construction, averaged gradients, the buckets (layout, order, started
during backward), find_unused_parameters, no_sync, the errors, Paddle 1.8's manual
scale_loss / apply_collective_grads, and the Layer passthrough. Across processes:
test_distributed_mpi.py."""
import warnings
import weakref

import numpy as np
import pytest

import refimpl as paddle
import refimpl.nn as nn
from refimpl import versions
from refimpl.distributed import env, reducer
from refimpl.dygraph import mode
from refimpl.parallel import world as world_mod
from refimpl.parallel.world import Pending, SingleWorld


class TwinWorld(SingleWorld):
    size = 2
    backend = "twin"

    def __init__(self):
        super().__init__()
        self.started = []       # per bucket started: its size, and what was seen then
        self.on_start = lambda flat: None

    def start_allreduce(self, flat):
        self.started.append((flat.size, self.on_start(flat)))
        return super().start_allreduce(flat)

    def _start(self, call):
        a = call.array
        if call.kind == "allreduce":
            result = a if call.in_place else a.copy()
            result += a if call.in_place else result    # twice ours: the twin's too
        elif call.kind == "allgather":
            result = [a.copy(), a.copy()]
        elif call.kind == "broadcast":
            result = a + 1                              # rank 0's values
        else:
            return super()._start(call)
        return Pending(self, call, lambda: True, lambda: result)


# Paddle 1.8.5's DataParallel has no reducer: the gradients stay local until
# apply_collective_grads (switch dp_manual_reduction;
# test_paddle_1_8_scales_the_loss_and_sums_gradients_by_hand)
reducing = pytest.mark.skipif(versions.switch("dp_manual_reduction"),
                              reason="Paddle 1.8.5's DataParallel reduces by hand "
                                     "(switch dp_manual_reduction)")


@pytest.fixture
def twin(dygraph, monkeypatch):
    world = TwinWorld()
    monkeypatch.setattr(world_mod, "_world", world)
    monkeypatch.setattr(env, "_initialized", True)
    return world


def mlp(*sizes):
    layers = []
    for a, b in zip(sizes, sizes[1:]):
        layers += [nn.Linear(a, b), nn.Tanh()]
    return nn.Sequential(*layers[:-1])


def values(layer):
    return {k: v.numpy() for k, v in layer.state_dict().items()}


def batch(rows=4, cols=3, seed=0):
    rng = np.random.RandomState(seed)
    return paddle.to_tensor(rng.randn(rows, cols).astype("float32"))


def test_construction_gives_every_rank_rank_0s_parameters_and_buffers(twin):
    model = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1D(4))
    before = values(model)
    paddle.DataParallel(model)
    after = values(model)
    assert sorted(after) == sorted(before) and "1._mean" in after
    for k in before:
        np.testing.assert_allclose(after[k], before[k] + 1, err_msg=k)


@reducing
def test_gradients_are_averaged_over_the_ranks(twin):
    model = mlp(3, 5, 2)
    dp = paddle.DataParallel(model, comm_buffer_size=1e-4)
    alone = mlp(3, 5, 2)
    alone.set_state_dict(values(model))
    x = batch()
    dp(x).square().mean().backward()
    alone(x).square().mean().backward()
    for (name, p), q in zip(model.named_parameters(), alone.parameters()):
        np.testing.assert_allclose(p.gradient(), q.gradient(), rtol=1e-6, err_msg=name)
    assert twin.started      # it went through the buckets


@reducing
def test_buckets_start_in_reverse_layer_order_while_backward_runs(twin):
    model = mlp(3, 4, 4, 2)
    first_weight = model[0].weight
    twin.on_start = lambda flat: first_weight.gradient() is None
    dp = paddle.DataParallel(model, comm_buffer_size=1e-6, last_comm_buffer_size=1e-6)
    dp(batch()).sum().backward()
    sizes = [p.size for p in reversed(model.parameters())]
    assert [size for size, _ in twin.started] == sizes   # one parameter per bucket
    # the last layer's bucket started before backward reached the first layer
    assert twin.started[0][1] is True and twin.started[-1][1] is False


def test_bucket_layout_follows_paddles_grouping():
    class P:     # what assign_buckets reads of a parameter
        def __init__(self, n, dtype="float32"):
            self.a = np.zeros(n, dtype)

        def _array(self):
            return self.a
    params = [P(25), P(10), P(300), P(10), P(5, "float64"), P(400)]
    # float32: 100 bytes close the first group (limit 100); 40 + 1200 the next (limit
    # 1000); 40 + 1600 the next; float64: 40, left open. Ordered by first parameter, then
    # reversed: the first layers' small group starts last.
    groups = reducer.assign_buckets(params, [100, 1000])
    assert groups == [[4], [3, 5], [1, 2], [0]]


@reducing
def test_find_unused_parameters_averages_zeros_for_them(twin):
    class Net(nn.Layer):
        def __init__(self):
            super().__init__()
            self.used, self.unused = nn.Linear(3, 2), nn.Linear(3, 2)

        def forward(self, x):
            return self.used(x)
    net = Net()
    dp = paddle.DataParallel(net, find_unused_parameters=True)
    dp(batch()).sum().backward()
    np.testing.assert_array_equal(net.unused.weight.gradient(), np.zeros((3, 2)))
    np.testing.assert_allclose(net.used.bias.gradient(), [4.0, 4.0])

    strict = paddle.DataParallel(Net())
    with pytest.raises(RuntimeError) as e:
        strict(batch()).sum().backward()
    assert "received no gradient in this backward" in str(e.value)
    assert "find_unused_parameters=True" in str(e.value)
    assert strict._layers.unused.weight.name in str(e.value)


@reducing
def test_no_sync_accumulates_locally_until_a_synchronized_backward(twin):
    model = mlp(3, 2)
    dp = paddle.DataParallel(model)
    x = batch()
    with dp.no_sync():
        dp(x).sum().backward()
        dp(x).sum().backward()
    assert twin.started == []
    np.testing.assert_allclose(model[0].bias.gradient(), [8.0, 8.0])
    dp(x).sum().backward()
    assert len(twin.started) == 1
    np.testing.assert_allclose(model[0].bias.gradient(), [12.0, 12.0])


@reducing
def test_a_backward_without_a_forward_through_the_wrapper_is_refused(twin):
    model = mlp(3, 2)
    dp = paddle.DataParallel(model)
    loss = dp(batch()).sum()
    loss.backward(retain_graph=True)
    with pytest.raises(RuntimeError, match="does not follow a forward through the "
                                           "DataParallel layer"):
        loss.backward()
    with paddle.no_grad():
        dp(batch())                       # no gradient: nothing to arm
    dp(batch()).sum().backward()


@reducing
def test_scale_loss_and_apply_collective_grads_are_no_ops_since_paddle_2(twin):
    dp = paddle.DataParallel(mlp(3, 2))
    loss = dp(batch()).sum()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert dp.scale_loss(loss) is loss
        dp.apply_collective_grads()
    assert [w.category for w in caught] == [DeprecationWarning] * 2


def test_paddle_1_8_scales_the_loss_and_sums_gradients_by_hand(twin):
    with versions.use("1.8"):
        model = mlp(3, 2)
        dp = paddle.DataParallel(model)
        assert dp._reducer is None
        loss = dp.scale_loss(dp(batch()).sum())
        loss.backward()
        np.testing.assert_allclose(model[0].bias.gradient(), [2.0, 2.0])    # 4 rows / 2 ranks
        assert twin.started == []
        dp.apply_collective_grads()
        np.testing.assert_allclose(model[0].bias.gradient(), [4.0, 4.0])    # summed over 2


def test_dataparallel_is_its_layer_for_state_and_parameters(dygraph):
    model = mlp(3, 4, 2)
    dp = paddle.DataParallel(model)
    assert dp._layers is model
    assert list(dp.state_dict()) == list(model.state_dict()) == ["0.weight", "0.bias",
                                                                  "2.weight", "2.bias"]
    assert [id(p) for p in dp.parameters()] == [id(p) for p in model.parameters()]
    new = {k: np.full(v.shape, 0.5, "float32") for k, v in values(model).items()}
    dp.set_state_dict(new)
    np.testing.assert_array_equal(model[2].bias.numpy(), [0.5, 0.5])
    x = batch()
    np.testing.assert_array_equal(dp(x).numpy(), model(x).numpy())


def test_paddle_1_8_coalesce_and_split_round_trip_a_group_of_tensors(dygraph):
    # 1.8's private bucket methods (its test_imperative_parallel_coalesce_split calls them)
    dp = paddle.DataParallel(mlp(3, 4, 2))
    arrays = [np.arange(6.0).reshape(2, 3), np.arange(4.0).reshape(4, 1) + 10]
    tensors = [paddle.to_tensor(a.astype("float32")) for a in arrays]
    (flat, kept, shapes), = dp._coalesce_tensors({0: tensors})
    np.testing.assert_array_equal(flat.numpy(), np.concatenate([a.ravel() for a in arrays]))
    assert kept == tensors and shapes == [[2, 3], [4, 1]]
    flat.set_value(flat.numpy() * 2)
    dp._split_tensors([[flat, kept, shapes]])
    for t, a in zip(tensors, arrays):
        assert t.shape == list(a.shape)
        np.testing.assert_array_equal(t.numpy(), a * 2)
    x = paddle.to_tensor(np.arange(50.0, dtype="float32").reshape(2, 25))
    dp._reshape_inplace(x, [5, 10])
    assert x.shape == [5, 10]
    np.testing.assert_array_equal(x.numpy(), np.arange(50.0).reshape(5, 10))


def test_paddle_2_0_bucket_functions_of_fluid_dygraph_parallel(dygraph):
    # 2.0 made the bucket methods functions of fluid.dygraph.parallel (its
    # test_imperative_parallel_coalesce_split imports them)
    from refimpl.fluid.dygraph import parallel
    _coalesce_tensors, _split_tensors = parallel._coalesce_tensors, parallel._split_tensors
    tensors = [paddle.to_tensor(np.ones([2, 3], "float32")),
               paddle.to_tensor(np.full([3, 1], 2.0, "float32"))]
    (flat, kept, shapes), = _coalesce_tensors({0: tensors})
    np.testing.assert_array_equal(flat.numpy(), [1.0] * 6 + [2.0] * 3)
    flat.set_value(np.arange(9.0, dtype="float32"))
    _split_tensors([[flat, kept, shapes]])
    np.testing.assert_array_equal(tensors[0].numpy(), [[0, 1, 2], [3, 4, 5]])
    np.testing.assert_array_equal(tensors[1].numpy(), [[6], [7], [8]])
    parallel._reshape_inplace(tensors[0], [3, 2])
    np.testing.assert_array_equal(tensors[0].numpy(), [[0, 1], [2, 3], [4, 5]])


@pytest.mark.parametrize("kwargs, error, words", [
    ({"layers": "net"}, TypeError, "must be a paddle.nn.Layer"),
    ({"comm_buffer_size": 0}, ValueError, "comm_buffer_size must be a number of MB > 0"),
    ({"last_comm_buffer_size": "1"}, ValueError, "last_comm_buffer_size"),
    ({"find_unused_parameters": 1}, TypeError, "find_unused_parameters must be a bool"),
])
def test_bad_arguments_are_refused(dygraph, kwargs, error, words):
    kwargs.setdefault("layers", mlp(2, 1))
    with pytest.raises(error, match=words):
        paddle.DataParallel(**kwargs)


def test_static_mode_and_a_job_without_init_parallel_env_are_refused(twin, monkeypatch):
    monkeypatch.setattr(env, "_initialized", False)
    with pytest.raises(RuntimeError, match="call paddle.distributed.init_parallel_env"):
        paddle.DataParallel(mlp(2, 1))
    with pytest.raises(RuntimeError, match="call paddle.distributed.init_parallel_env"):
        paddle.distributed.all_reduce(batch())
    model = mlp(2, 1)
    mode.enable_static()
    with pytest.raises(RuntimeError, match="with_data_parallel"):
        paddle.DataParallel(model)


@reducing
def test_buckets_are_reused_across_steps_unless_a_kept_gradient_still_views_them(twin):
    model = mlp(3, 4, 2)
    dp = paddle.DataParallel(model)
    alone = mlp(3, 4, 2)
    alone.set_state_dict(values(model))
    bucket = dp._reducer.buckets[0]

    def step(seed, layer):
        layer(batch(seed=seed)).square().mean().backward()

    step(0, dp)
    kept = model[0].weight.gradient()          # a view of the bucket, kept by the user
    first = kept.copy()
    flat_1 = weakref.ref(bucket.flat)
    for p in model.parameters():
        p.clear_grad()
    step(1, dp)
    np.testing.assert_array_equal(kept, first)  # the kept gradient keeps its values
    assert bucket.flat is not flat_1()
    flat_2 = weakref.ref(bucket.flat)
    del kept
    for p in model.parameters():
        p.clear_grad()
    step(2, dp)
    assert bucket.flat is flat_2()              # nobody viewed it: reused
    step(2, alone)
    for (name, p), q in zip(model.named_parameters(), alone.parameters()):
        np.testing.assert_allclose(p.gradient(), q.gradient(), rtol=1e-6, err_msg=name)


def test_pieces_hold_at_most_the_limit_or_one_larger_parameter():
    assert reducer.assign_pieces([3, 3, 5, 9, 1, 1], 6) == [(0, 2), (2, 3), (3, 4), (4, 6)]
    assert reducer.assign_pieces([7], 6) == [(0, 1)]


@reducing
def test_a_bucket_is_summed_in_pieces_started_from_its_last_layers(twin, monkeypatch):
    monkeypatch.setattr(reducer, "PIECE_BYTES", 1)     # one parameter a piece
    model = mlp(3, 4, 2)
    first_weight = model[0].weight
    twin.on_start = lambda flat: first_weight.gradient() is None
    dp = paddle.DataParallel(model)                    # one bucket of 25 MB
    alone = mlp(3, 4, 2)
    alone.set_state_dict(values(model))
    assert len(dp._reducer.buckets) == 1
    dp(batch()).square().mean().backward()
    alone(batch()).square().mean().backward()
    assert [size for size, _ in twin.started] == [p.size for p in
                                                  reversed(model.parameters())]
    assert twin.started[0][1] is True and twin.started[-1][1] is False
    for (name, p), q in zip(model.named_parameters(), alone.parameters()):
        np.testing.assert_allclose(p.gradient(), q.gradient(), rtol=1e-6, err_msg=name)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_a_gradient_put_into_its_bucket_is_the_quotient_by_the_world_size_bit_for_bit(dtype):
    # every exponent from subnormal to the largest, both signs: a power-of-two world
    # multiplies by the (exact) reciprocal, any other divides, and both must give
    # exactly the bits np.divide gives
    info = np.finfo(dtype)
    rng = np.random.RandomState(0)
    exponents = rng.uniform(np.log2(float(info.smallest_subnormal)), np.log2(float(info.max)),
                            4000)
    grad = (np.exp2(exponents) * rng.choice([-1, 1], exponents.size)).astype(dtype)
    grad[:3] = [info.smallest_subnormal, -info.max, 0]

    class P:     # what a bucket reads of a parameter
        def __init__(self, a):
            self.a = a

        def _array(self):
            return self.a

    halves = [grad[:1000].reshape(10, 100), grad[1000:]]
    bucket = reducer._Bucket([P(np.zeros_like(h)) for h in halves])
    for ranks in (2, 3, 4, 6, 8):
        bucket.reset()
        bucket.staging = np.full(grad.size, np.nan, dtype)
        for i, h in enumerate(halves):
            bucket.put(i, h, ranks)
        expected = np.divide(grad, ranks)
        assert bucket.staging.tobytes() == expected.tobytes(), ranks
        assert np.count_nonzero(expected) and bucket.ready == [True, True]


@reducing
def test_hooks_read_the_cpu_clock_only_around_large_gradients_or_sums_in_flight(
        twin, monkeypatch):
    monkeypatch.setattr(reducer, "HOOK_CPU_CLOCK_ELEMENTS", 10)
    model = mlp(3, 5, 2)                 # weights of 15 and 10 elements, biases of 5 and 2
    dp = paddle.DataParallel(model, comm_buffer_size=1e-6, last_comm_buffer_size=1e-6)
    red = dp._reducer
    red._next = 0                        # no piece started yet
    assert [red._hook_clock(p) for p in model.parameters()] == [
        reducer._clocks, reducer._wall_clocks, reducer._clocks, reducer._wall_clocks]
    red._next = 1
    assert {red._hook_clock(p) for p in model.parameters()} == {reducer._clocks}
    dp(batch()).square().mean().backward()   # one piece a parameter: every phase timed
    assert all(red.seconds[k] > 0 for k in reducer.PHASES)
    assert red.cpu_seconds["progress"] > 0 and red.cpu_seconds["wait"] > 0
