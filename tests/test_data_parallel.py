"""CompiledProgram.with_data_parallel / ParallelExecutor in one process: N places behave
like one place on the same total batch; feeds split as seed 001 says."""
import inspect

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import refimpl as paddle
from refimpl import fluid, static, versions
from refimpl.framework import unique_name
from refimpl.framework.errors import FeedError
from refimpl.framework.scope import Scope, scope_guard
from refimpl.compiler import compile_program
from refimpl.compiler.data_parallel import owners_by_size
from refimpl.executor.multi_place import split_feed

Reduce = static.BuildStrategy.ReduceStrategy
Scale = static.BuildStrategy.GradientScaleStrategy
# fluid's optimizers: they take a fluid decay's learning-rate Variable as well, which 2.0's
# paddle.optimizer refuses
OPTIMIZERS = {"sgd": lambda lr: paddle.fluid.optimizer.SGD(lr),
              "momentum": lambda lr: paddle.fluid.optimizer.Momentum(lr, momentum=0.9),
              "adam": lambda lr: paddle.fluid.optimizer.Adam(lr)}


def _model(optimizer="sgd", lr=0.05, batch_norm=False):
    """lr: a float, an LRScheduler, or a function building the learning-rate variable."""
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup), unique_name.guard():
        x = static.data("x", [None, 4], "float32")
        y = static.data("y", [None, 1], "float32")
        init = paddle.nn.initializer.Uniform(-0.5, 0.5, seed=7)
        h = static.nn.fc(x, 6, weight_attr=paddle.ParamAttr(initializer=init))
        if batch_norm:
            h = static.nn.batch_norm(h)
        h = paddle.nn.functional.relu(h)
        pred = static.nn.fc(h, 1, weight_attr=paddle.ParamAttr(initializer=init))
        loss = paddle.mean(paddle.nn.functional.square_error_cost(pred, y))
        OPTIMIZERS[optimizer](lr() if inspect.isfunction(lr) else lr).minimize(loss)
    return main, startup, loss


def _data(n, seed=0):
    rng = np.random.RandomState(seed)
    return {"x": rng.randn(n, 4).astype("float32"), "y": rng.randn(n, 1).astype("float32")}


def _train(places, steps, feed, optimizer="sgd", lr=0.05, strategy=None, batch_norm=False,
           feed_fn=None):
    main, startup, loss = _model(optimizer, lr, batch_norm)
    scope = Scope()
    exe = static.Executor()
    exe.run(startup, scope=scope)
    if places is None:
        prog = main
    else:
        prog = static.CompiledProgram(main).with_data_parallel(
            loss_name=loss.name, build_strategy=strategy, places=[paddle.CPUPlace()] * places)
    losses = []
    for step in range(steps):
        f = feed_fn(step) if feed_fn else feed
        out, = exe.run(prog, feed=f, fetch_list=[loss], scope=scope)
        losses.append(out)
    params = {p.name: np.array(scope.find_var(p.name).get_tensor())
              for p in main.all_parameters()}
    return losses, params


def _strategy(reduce=Reduce.AllReduce, **flags):
    s = static.BuildStrategy()
    s.reduce_strategy = reduce
    for k, v in flags.items():
        setattr(s, k, v)
    return s


def _assert_params_close(a, b, rtol=1e-5, atol=1e-6):
    assert a.keys() == b.keys()
    for k in a:
        np.testing.assert_allclose(a[k], b[k], rtol=rtol, atol=atol, err_msg=k)


@settings(max_examples=12, deadline=None)
@given(n=st.integers(1, 4), reduce=st.sampled_from([Reduce.AllReduce, Reduce.Reduce]),
       optimizer=st.sampled_from(sorted(OPTIMIZERS)), per_device=st.integers(1, 3),
       fuse=st.booleans())


def test_n_places_equal_one_place_on_the_same_batch(n, reduce, optimizer, per_device, fuse):
    feed = _data(n * per_device)
    strategy = _strategy(reduce, fuse_all_reduce_ops=fuse, fuse_broadcast_ops=fuse)
    _, single = _train(None, 3, feed, optimizer)
    losses, multi = _train(n, 3, feed, optimizer, strategy=strategy)
    _assert_params_close(single, multi)
    assert losses[0].shape == (n,)


def test_gradient_scale_one_sums_device_gradients():
    n = 2
    feed = _data(4)
    _, single = _train(None, 2, feed, lr=0.05 * n)   # sum of n equal-size means = n x mean
    _, multi = _train(n, 2, feed, lr=0.05, strategy=_strategy(gradient_scale_strategy=Scale.One))
    _assert_params_close(single, multi)


def test_gradient_scale_customized_uses_the_fed_loss_grad():
    n = 2
    feed = dict(_data(4))
    feed["mean_0.tmp_0@GRAD"] = np.full(n, 1.0 / n, "float32")
    _, single = _train(None, 2, _data(4))
    _, multi = _train(n, 2, feed, strategy=_strategy(gradient_scale_strategy=Scale.Customized))
    _assert_params_close(single, multi)


def test_customized_without_loss_grad_feed_is_an_error():
    with pytest.raises(ValueError, match="feed 'mean_0.tmp_0@GRAD'"):
        _train(2, 1, _data(4), strategy=_strategy(gradient_scale_strategy=Scale.Customized))


def test_list_feed_equals_dict_feed():
    feed = _data(4)
    as_list = [{k: v[:2] for k, v in feed.items()}, {k: v[2:] for k, v in feed.items()}]
    _, a = _train(2, 2, feed)
    _, b = _train(2, 2, as_list)
    _assert_params_close(a, b, rtol=0, atol=0)


def test_uneven_split_gives_later_devices_the_extra_samples():
    parts = split_feed({"x": np.arange(3)}, 2)
    assert [p["x"].tolist() for p in parts] == [[0], [1, 2]]
    parts = split_feed({"x": np.arange(7)}, 3)
    assert [len(p["x"]) for p in parts] == [2, 2, 3]


def test_feed_errors():
    with pytest.raises(ValueError, match="fewer than the 2 devices"):
        split_feed({"x": np.arange(1)}, 2)
    with pytest.raises(ValueError, match="list of 1 dicts but there are 2 devices"):
        split_feed([{"x": np.arange(2)}], 2)
    with pytest.raises(TypeError, match=r"feed\[1\] must be a dict"):
        split_feed([{"x": np.arange(2)}, [1]], 2)


def test_fetch_merges_per_sample_outputs_in_order():
    main, startup, loss = _model()
    pred = [op for op in main.global_block().ops if op.type == "elementwise_add"][-1]
    pred_name = pred.output("Out")[0]
    scope = Scope()
    exe = static.Executor()
    exe.run(startup, scope=scope)
    feed = _data(3)
    single, = exe.run(main.clone(for_test=True), feed=feed, fetch_list=[pred_name], scope=scope)
    test = static.CompiledProgram(main.clone(for_test=True)).with_data_parallel(
        places=[paddle.CPUPlace()] * 2)
    merged, = exe.run(test, feed=feed, fetch_list=[pred_name], scope=scope)
    np.testing.assert_allclose(merged, single, rtol=1e-6)
    # as LoDTensors: merged too (Paddle's FetchList), per device with return_merged=False
    as_tensor, = exe.run(test, feed=feed, fetch_list=[pred_name], scope=scope,
                         return_numpy=False)
    np.testing.assert_allclose(np.array(as_tensor), single, rtol=1e-6)
    per_device, = exe.run(test, feed=feed, fetch_list=[pred_name], scope=scope,
                          return_numpy=False, return_merged=False)
    assert [np.array(t).shape for t in per_device] == [(1, 1), (2, 1)]


@pytest.mark.parametrize("return_numpy", [True, False])
def test_fetch_of_a_tensor_array_merges_element_by_element(return_numpy):
    """As Paddle 1.8.5 (its test_fetch_lod_tensor_array): merged, one array whose elements
    join the places' values ([4, 4] and two one-element losses into [2]); unmerged, one
    array per place."""
    main, startup, loss = _model()
    with static.program_guard(main, startup):
        i = paddle.zeros([1], "int64")
        array = fluid.layers.array_write(main.global_block().var("x"), i)
        fluid.layers.array_write(loss, i + 1, array=array)
    scope = Scope()
    exe = static.Executor()
    exe.run(startup, scope=scope)
    feed = _data(4)
    prog = static.CompiledProgram(main).with_data_parallel(
        loss_name=loss.name, places=[paddle.CPUPlace()] * 2)
    merged_loss, merged = exe.run(prog, feed=feed, fetch_list=[loss, array], scope=scope,
                                  return_numpy=return_numpy)
    np.testing.assert_array_equal(np.array(merged[0]), feed["x"])
    np.testing.assert_allclose(np.array(merged[1]), np.array(merged_loss).ravel())
    assert np.array(merged[1]).shape == (2,)
    _, per_place = exe.run(prog, feed=feed, fetch_list=[loss, array], scope=scope,
                           return_numpy=return_numpy, return_merged=False)
    loss_shape = versions.switch("scalar_shape")      # (1,), or () under 3
    assert [[np.array(e).shape for e in place] for place in per_place] == \
        [[(2, 4), loss_shape], [(2, 4), loss_shape]]
    np.testing.assert_array_equal(np.array(per_place[1][0]), feed["x"][2:])


def test_sync_batch_norm_equals_batch_norm_on_the_whole_batch():
    feed = _data(8)
    _, single = _train(None, 3, feed, batch_norm=True)
    _, plain = _train(2, 3, feed, batch_norm=True)
    _, synced = _train(2, 3, feed, batch_norm=True, strategy=_strategy(sync_batch_norm=True))
    _assert_params_close(single, synced)
    # without sync, each device normalizes its own half: different parameters
    assert any(not np.allclose(single[k], plain[k], rtol=1e-4) for k in single)


def test_sync_batch_norm_stays_synchronized_when_fused_with_its_activation():
    """The rename to sync_batch_norm used to run after the fusion passes, so a batch_norm
    fused with its relu normalized each place's rows alone."""
    feed = _data(8)
    _, single = _train(None, 3, feed, batch_norm=True)
    strategy = _strategy(sync_batch_norm=True, fuse_bn_act_ops=True)
    _, fused = _train(2, 3, feed, batch_norm=True, strategy=strategy)
    _assert_params_close(single, fused)


def test_share_vars_from_must_have_run_and_then_shares_parameters():
    main, startup, loss = _model()
    test_prog = main.clone(for_test=True)
    scope = Scope()
    exe = static.Executor()
    exe.run(startup, scope=scope)
    places = [paddle.CPUPlace()] * 2
    train = static.CompiledProgram(main).with_data_parallel(loss_name=loss.name, places=places)
    test = static.CompiledProgram(test_prog).with_data_parallel(share_vars_from=train,
                                                                places=places)
    feed = _data(4)
    with pytest.raises(ValueError, match="not compiled and executed yet"):   # as Paddle
        exe.run(test, feed=feed, fetch_list=[loss], scope=scope)
    for _ in range(3):
        exe.run(train, feed=feed, fetch_list=[loss], scope=scope)
    got, = exe.run(test, feed=feed, fetch_list=[loss], scope=scope)
    want, = exe.run(test_prog, feed={k: v[2:] for k, v in feed.items()}, fetch_list=[loss],
                    scope=scope)
    np.testing.assert_allclose(got[1], want, rtol=1e-6)


def test_build_strategy_is_frozen_after_build():
    strategy = _strategy()
    _train(2, 1, _data(4), strategy=strategy)
    with pytest.raises(RuntimeError, match="finalized"):
        strategy.fuse_elewise_add_act_ops = True


def test_reduce_owners_are_balanced_and_deterministic():
    class P:
        def __init__(self, name, shape):
            self.name, self.shape = name, shape
    params = [P("a", [100]), P("b", [60]), P("c", [50]), P("d", [10])]
    owner = owners_by_size(params, 2)
    assert owner == {"a": 0, "b": 1, "c": 1, "d": 0}
    assert owners_by_size(list(reversed(params)), 2) == owner


def test_parallel_executor_runs_and_drops_scopes(monkeypatch):
    monkeypatch.setenv("CPU_NUM", "2")
    main, startup, loss = _model()
    scope = Scope()
    with scope_guard(scope):
        static.Executor().run(startup)
        pe = static.ParallelExecutor(use_cuda=False, loss_name=loss.name, main_program=main,
                                     build_strategy=_strategy())
        assert pe.device_count == 2
        first, = pe.run(fetch_list=[loss.name], feed=_data(4))
        for _ in range(20):
            last, = pe.run(fetch_list=[loss.name], feed=_data(4))
        pe.drop_local_exe_scopes()
    assert last.mean() < first.mean()
    with pytest.raises(TypeError, match="share_vars_from must be a ParallelExecutor"):
        static.ParallelExecutor(use_cuda=False, main_program=main, share_vars_from=object())


def test_distribute_transpiler_nccl2_checks_the_world():
    config = paddle.fluid.DistributeTranspilerConfig()
    t = paddle.fluid.DistributeTranspiler(config)
    with pytest.raises(NotImplementedError, match="only mode 'nccl2'"):
        t.transpile(0)
    config.mode = "nccl2"
    assert t.transpile(0, trainers="127.0.0.1:6170") is static.default_main_program()
    with pytest.raises(ValueError, match="launch with `mpirun -n 2`"):
        t.transpile(0, trainers=2)


@pytest.mark.parametrize("reduce", [Reduce.AllReduce, Reduce.Reduce])
def test_threaded_execution_keeps_collectives_on_their_device(reduce):
    # helper threads must run the collectives for their own place, or the places
    # disagree (and wait for each other forever)
    feed = _data(4)
    _, single = _train(None, 2, feed)
    main, startup, loss = _model()
    scope = Scope()
    exe = static.Executor()
    exe.run(startup, scope=scope)
    es = static.ExecutionStrategy()
    es.num_threads = 4
    prog = static.CompiledProgram(main).with_data_parallel(
        loss_name=loss.name, build_strategy=_strategy(reduce), exec_strategy=es,
        places=[paddle.CPUPlace()] * 2)
    for _ in range(2):
        exe.run(prog, feed=feed, fetch_list=[loss], scope=scope)
    multi = {p.name: np.array(scope.find_var(p.name).get_tensor()) for p in main.all_parameters()}
    _assert_params_close(single, multi)



def _train_with_schedule(places, schedule):
    """3 steps with a learning rate halving every step, as a 2.0 scheduler (fed before each
    run, advanced by step()) or a fluid decay (graph ops on a counter each device keeps)."""
    scheduler = paddle.optimizer.lr.StepDecay(0.1, step_size=1, gamma=0.5) \
        if schedule == "scheduler" else None
    lr = scheduler or (lambda: paddle.fluid.layers.exponential_decay(0.1, 1, 0.5, True))
    main, startup, loss = _model(lr=lr)
    scope = Scope()
    exe = static.Executor()
    exe.run(startup, scope=scope)
    prog = main if places is None else static.CompiledProgram(main).with_data_parallel(
        loss_name=loss.name, places=[paddle.CPUPlace()] * places)
    for _ in range(3):
        exe.run(prog, feed=_data(4), fetch_list=[loss], scope=scope)
        if scheduler is not None:
            scheduler.step()
    return {p.name: np.array(scope.find_var(p.name).get_tensor())
            for p in main.all_parameters()}


@pytest.mark.parametrize("schedule", ["scheduler", "fluid_decay"])
def test_learning_rate_schedules_advance_the_same_on_every_device(schedule):
    single = _train_with_schedule(None, schedule)
    _assert_params_close(single, _train_with_schedule(2, schedule))
    _, constant_lr = _train(None, 3, _data(4), lr=0.1)
    assert not np.allclose(single["fc_0.w_0"], constant_lr["fc_0.w_0"])


@pytest.mark.parametrize("reduce", [False, True])
def test_compile_program_is_a_pure_rewrite_into_one_program_per_place(reduce):
    """Global ranks 2 and 3 of 4 devices: the user's program is untouched; each place's
    program scales loss@GRAD by 1/4 and reduces every parameter gradient (AllReduce: to
    all; Reduce: to its owner, which alone updates and then broadcasts the parameter)."""
    main, _, loss = _model()
    before = (main._version, [op.type for op in main.global_block().ops])
    strategy = static.BuildStrategy()
    if reduce:
        strategy.reduce_strategy = Reduce.Reduce
    places = compile_program(main, strategy, [2, 3], 4, loss.name, {loss.name})
    assert (main._version, [op.type for op in main.global_block().ops]) == before
    params = sorted(p.name for p in main.all_parameters())
    owner = owners_by_size(main.all_parameters(), 4)
    for rank, program in zip([2, 3], places):
        ops = program.global_block().ops
        scale, = [op for op in ops if op.output_arg_names == [loss.name + "@GRAD"]]
        assert scale.attr("value") == 0.25
        collective = "c_reduce_sum" if reduce else "c_allreduce_sum"
        reduced = sorted(op.input("X")[0][:-len("@GRAD")] for op in ops
                         if op.type == collective)
        assert reduced == params
        updated = sorted(op.input("Param")[0] for op in ops if op.type == "sgd")
        if reduce:
            assert updated == sorted(p for p in params if owner[p] == rank)
            assert sorted(op.input("X")[0] for op in ops if op.type == "c_broadcast") == params
        else:
            assert updated == params


def test_distribute_transpiler_config_fields_are_paddles_and_checked():
    config = paddle.fluid.DistributeTranspilerConfig()
    # Paddle 1.8.5's defaults
    assert (config.mode, config.min_block_size, config.sync_mode,
            config.runtime_split_send_recv, config.nccl_comm_num) == ("pserver", 8192, True,
                                                                       False, 1)
    with pytest.raises(ValueError, match="needs config.sync_mode = False first"):
        config.runtime_split_send_recv = True
    config.sync_mode = False
    config.runtime_split_send_recv = True
    assert config.runtime_split_send_recv is True
    with pytest.raises(ValueError, match="needs config.runtime_split_send_recv = False"):
        config.sync_mode = True
    with pytest.raises(ValueError, match="min_block_size must be a non-negative int"):
        config.min_block_size = -1
    with pytest.raises(AttributeError, match="no field 'slice_var'"):
        config.slice_var = False


def test_loss_name_is_required_for_a_program_with_a_backward_part():
    """Paddle 1.8.5 (CPU_NUM=2) asserts at with_data_parallel: "The loss name of
    CompiledProgram is None. The loss name should be set if CompiledProgram contains
    backward part." refimpl used to train each place alone (no gradient allreduce): after
    5 steps its weights were 0.148 away from the 1-place run's."""
    main, _, _ = _model()
    with pytest.raises(ValueError, match="loss name of CompiledProgram is None; the program "
                                         "has a backward part, so give loss_name=loss.name"):
        static.CompiledProgram(main).with_data_parallel(places=[paddle.CPUPlace()] * 2)
    # a program without a backward part (inference, evaluation) needs none
    static.CompiledProgram(main.clone(for_test=True)).with_data_parallel(
        places=[paddle.CPUPlace()] * 2)


def test_a_loss_name_that_names_no_variable_suggests_the_closest():
    """Paddle 1.8.5 ignores the name's value (its loss-gradient scaling finds the op by its
    role): with loss_name misspelt it trained exactly as with the right one (5 SGD steps,
    CPU_NUM=2, fc 4-6-1: max |w - w_1place| = 7.5e-9 for both). refimpl summed the places'
    gradients instead of averaging them; it now refuses the name."""
    main, _, loss = _model()
    with pytest.raises(ValueError, match=r"loss_name 'mean_0.tmp_1' is not a variable of the "
                                         r"program; did you mean 'mean_0.tmp_0'"):
        static.CompiledProgram(main).with_data_parallel(loss_name="mean_0.tmp_1")
    with pytest.raises(TypeError, match=r"loss_name must be the loss variable's name "
                                        r"\(loss_name=loss.name\), got the Variable"):
        static.CompiledProgram(main).with_data_parallel(loss_name=loss)


@pytest.mark.parametrize("places", [None, 2])
def test_an_empty_batch_is_a_feed_error(places):
    """Paddle 1.8.5 fails inside the first op that sees it: "the Tensor's numel must be equal
    or larger than zero ... The Tensor's shape is [-1, 1] now [operator < elementwise_add >
    error]"; refimpl failed inside `mul` with numpy's reshape message."""
    empty = {"x": np.zeros((0, 4), "float32"), "y": np.zeros((0, 1), "float32")}
    with pytest.raises(FeedError, match=r"feed 'x': the batch is empty \(shape \[0, 4\]\): "
                                        r"feed at least one sample"):
        _train(places, 1, empty)


def test_a_scalar_feed_cannot_be_split_over_places():
    with pytest.raises(FeedError, match="feed 'x' is a scalar: a feed split over places"):
        split_feed({"x": np.float32(1)}, 2)


def test_compile_binds_one_scope_and_place_as_paddle():
    """Paddle's CompiledProgram._compile: compiled once, for one scope and one place; a
    share_vars_from source must be data parallel and compiled (ValueError otherwise)."""
    main, startup, loss = _model()
    scope = Scope()
    static.Executor().run(startup, scope=scope)
    single = static.CompiledProgram(main)
    assert single._compile(scope, paddle.CPUPlace()) is single
    assert single._compile(scope, paddle.CPUPlace()) is single     # the same: no-op
    with pytest.raises(ValueError, match="different scope"):
        single._compile(Scope(), paddle.CPUPlace())
    with pytest.raises(ValueError, match="different scope"):
        static.Executor().run(single, feed=_data(2), fetch_list=[loss], scope=Scope())
    got, = static.Executor().run(single, feed=_data(2), fetch_list=[loss], scope=scope)
    assert np.isfinite(got).all()
    for source, why in ((single, "not data parallel"),
                        (static.CompiledProgram(main).with_data_parallel(loss_name=loss.name),
                         "not compiled and executed yet")):
        sharing = static.CompiledProgram(main.clone(for_test=True)).with_data_parallel(
            share_vars_from=source)
        with pytest.raises(ValueError, match=why):
            sharing._compile(scope, paddle.CPUPlace())


def test_local_scopes_hold_each_places_execution_scope_until_its_drop():
    # the core executor's local_scopes() (Paddle 2.0's test_lr_scheduler reads them): one
    # kid per place scope, every non-persistable variable present, only the fetched ones
    # alive; the Python-side _local_scopes stays [] as in Paddle 1.8.5 (measured)
    main, startup, loss = _model()
    scope = Scope()
    static.Executor().run(startup, scope=scope)
    strategy = fluid.ExecutionStrategy()
    strategy.num_iteration_per_drop_scope = 3
    prog = static.CompiledProgram(main).with_data_parallel(
        loss_name=loss.name, exec_strategy=strategy, places=[paddle.CPUPlace()] * 2)
    assert prog._local_scopes == [] and prog._executor is None
    exe = static.Executor()
    temporaries = [n for n, v in main.global_block().vars.items() if not v.persistable]
    for run in range(1, 4):
        got, = exe.run(prog, feed=_data(4), fetch_list=[loss], scope=scope,
                       return_merged=False)
        assert prog._local_scopes == []
        kids = [place._kids() for place in prog._executor.local_scopes()]
        if run == 3:      # the third iteration drops the execution scopes
            assert kids == [[], []]
            continue
        assert [len(k) for k in kids] == [1, 1]
        for d, (kid,) in enumerate(kids):
            np.testing.assert_array_equal(kid.find_var(loss.name).get_tensor(), got[d])
            alive = [n for n in temporaries if kid.find_var(n).get_tensor()._is_initialized()]
            assert alive == [loss.name]
            w = main.global_block().all_parameters()[0].name
            assert kid.find_var(w).get_tensor()._is_initialized()
    exe.run(prog, feed=_data(4), fetch_list=[loss], scope=scope)
    pe_scopes = prog._executor.local_scopes()
    assert [len(place._kids()) for place in pe_scopes] == [1, 1]
    prog._device_sets[id(scope)].drop_local_scopes()
    assert [place._kids() for place in pe_scopes] == [[], []]
