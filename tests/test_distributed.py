"""paddle.distributed in one process: the environment, the collectives (identities on one
rank, ops in static programs), their argument errors, the process World's checks, and
fleet.DistributedStrategy's validation. Across processes: test_distributed_mpi.py;
DataParallel: test_data_parallel_dygraph.py."""
import os

import numpy as np
import pytest

import refimpl as paddle
import refimpl.distributed as dist
import refimpl.static as static
from refimpl.distributed import fleet
from refimpl.parallel.communicator import CollectiveMismatch
from refimpl.parallel.world import Call, SingleWorld, _mismatch


def t(values, dtype="float32"):
    return paddle.to_tensor(np.asarray(values, dtype))


def test_one_process_is_rank_0_of_1(dygraph, monkeypatch):
    monkeypatch.delenv("PADDLE_TRAINER_ENDPOINTS", raising=False)
    monkeypatch.delenv("FLAGS_selected_gpus", raising=False)
    env = dist.ParallelEnv()
    assert (dist.get_rank(), dist.get_world_size()) == (0, 1)
    assert (env.rank, env.local_rank, env.world_size, env.nranks) == (0, 0, 1, 1)
    assert (env.device_id, env.dev_id) == (0, 0)
    assert env.trainer_endpoints == ["127.0.0.1:6170"]
    assert env.current_endpoint == "127.0.0.1:6170"
    assert isinstance(dist.init_parallel_env(), dist.ParallelEnv)


def test_parallel_env_reads_paddles_variables(monkeypatch):
    monkeypatch.setenv("PADDLE_TRAINER_ENDPOINTS", "10.0.0.1:7000")
    monkeypatch.setenv("FLAGS_selected_gpus", "3")
    env = dist.ParallelEnv()
    assert env.current_endpoint == "10.0.0.1:7000" and env.device_id == 3
    # one endpoint per rank, or Paddle's default names
    monkeypatch.setenv("PADDLE_TRAINER_ENDPOINTS", "a:1,b:2")
    assert env.trainer_endpoints == ["127.0.0.1:6170"]


def test_collectives_of_one_rank_leave_the_tensor_as_it_is(dygraph):
    x = t([[1.0, -2.0], [3.0, 4.0]])
    for op in (dist.ReduceOp.SUM, dist.ReduceOp.MAX, dist.ReduceOp.MIN, dist.ReduceOp.PROD):
        assert dist.all_reduce(x, op) is x
        assert dist.reduce(x, 0, op) is x
    assert dist.broadcast(x, 0) is x
    np.testing.assert_array_equal(x.numpy(), [[1, -2], [3, 4]])
    gathered = []
    dist.all_gather(gathered, x)
    assert len(gathered) == 1
    np.testing.assert_array_equal(gathered[0].numpy(), x.numpy())
    out = t([0, 0], "int64")
    dist.scatter(out, [t([7, 8], "int64")], src=0)
    np.testing.assert_array_equal(out.numpy(), [7, 8])
    dist.barrier()


def test_hapi_model_all_gather_of_one_rank_is_the_tensor_and_checks_nranks(dygraph):
    # Paddle 2.0's private paddle.hapi.model._all_gather, imported by PaddleVideo's metrics
    from refimpl.hapi.model import _all_gather
    x = t([[1.0, 2.0], [3.0, 4.0]])
    np.testing.assert_array_equal(_all_gather(x, 1).numpy(), [[1, 2], [3, 4]])
    with pytest.raises(Exception, match="nranks=2, but 1 devices take part"):
        _all_gather(x, 2)
    with pytest.raises(NotImplementedError, match="one communication ring"):
        _all_gather(x, 1, ring_id=1)


def test_collectives_build_c_ops_in_static_programs():
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data("x", [2, 3], "float32")
        y = x * 2.0
        assert dist.all_reduce(y, dist.ReduceOp.MAX) is None
        dist.broadcast(y, 0)
        dist.reduce(y, 0, dist.ReduceOp.PROD)
        gathered = []
        dist.all_gather(gathered, y)
        part = static.nn.fc(x, 3)
        dist.scatter(part, [y], src=0)
        dist.barrier()
    types = [op.type for op in main.global_block().ops]
    for op_type in ("c_allreduce_max", "c_broadcast", "c_reduce_prod", "c_allgather",
                    "c_scatter", "barrier"):
        assert op_type in types
    exe = static.Executor()
    exe.run(startup)
    xs = np.arange(6, dtype="float32").reshape(2, 3)
    got_y, got_gathered = exe.run(main, feed={"x": xs}, fetch_list=[y, gathered[0]])
    np.testing.assert_array_equal(got_y, xs * 2)       # one process: identities
    np.testing.assert_array_equal(got_gathered, xs * 2)


@pytest.mark.parametrize("call, error, words", [
    (lambda x: dist.all_reduce(x, op=7), ValueError, "ReduceOp.SUM, MAX, MIN or PROD"),
    (lambda x: dist.broadcast(x, 1), ValueError, "src must be a rank in [0, 1)"),
    (lambda x: dist.reduce(x, -1), ValueError, "dst must be a rank"),
    (lambda x: dist.all_reduce(x, group=3), NotImplementedError, "one communication group"),
    (lambda x: dist.all_reduce(x.numpy()), TypeError, "must be a Tensor"),
    (lambda x: dist.all_reduce(x > 0), TypeError, "dtype bool"),
    (lambda x: dist.all_gather((), x), TypeError, "tensor_list must be a list"),
    (lambda x: dist.scatter(x, [x, x], src=0), ValueError, "a list of 1 tensors"),
    (lambda x: dist.scatter(x, [t([1.0])], src=0), ValueError, "has shape [1]"),
])
def test_bad_collective_arguments_are_refused(dygraph, call, error, words):
    with pytest.raises(error) as e:
        call(t([1.0, 2.0]))
    assert words in str(e.value)


def test_world_checks_reductions_roots_and_dtypes():
    world = SingleWorld()
    with pytest.raises(ValueError, match="reduction must be one of"):
        world.allreduce_array(np.ones(2), "mean")
    with pytest.raises(ValueError, match="root rank must be an int in"):
        world.broadcast_array(np.ones(2), 1)
    with pytest.raises(TypeError, match="dtype complex64"):
        world.allreduce_array(np.ones(2, np.complex64))
    half = world.allreduce_array(np.ones(2, np.float16))
    assert half.dtype == np.float16


def test_ranks_making_different_calls_are_named():
    calls = [Call("allreduce", np.ones((2, 3), np.float32), "sum"),
             Call("broadcast", np.ones(4, np.float64), root=1)]
    error = _mismatch([c.signature() for c in calls], 5)
    assert isinstance(error, CollectiveMismatch)
    text = str(error)
    assert "call #5" in text
    assert "rank 0: all_reduce (sum) of float32 [2, 3]" in text
    assert "rank 1: broadcast root 1 of float64 [4]" in text
    assert _mismatch([calls[0].signature()] * 2, 1) is None


# -- fleet ------------------------------------------------------------------------------

def test_distributed_strategy_checks_fields_when_set():
    s = fleet.DistributedStrategy()
    assert (s.fuse_all_reduce_ops, s.fuse_grad_size_in_MB, s.a_sync) == (True, 32.0, True)
    s.sync_batch_norm = True
    s.nccl_comm_num = 2
    s.recompute_configs = {"checkpoints": ["fc_0.tmp_0"]}
    s.amp_configs = {"init_loss_scaling": 1024}      # one key: the others keep defaults
    assert s.amp_configs["init_loss_scaling"] == 1024.0
    assert s.amp_configs["incr_every_n_steps"] == 1000
    assert s.recompute_configs == {"checkpoints": ["fc_0.tmp_0"], "enable_offload": False,
                                   "checkpoint_shape": []}    # 2.0's keys and defaults
    assert s.pipeline_configs == {"micro_batch": 1}
    assert (s.cudnn_exhaustive_search, s.conv_workspace_size_limit) == (True, 4000)
    s.a_sync = False                                 # 2.0's setter also sets k_steps 0
    assert s.a_sync_configs["k_steps"] == 0
    with pytest.raises(TypeError, match="fuse_grad_size is not a attribute of Distributed"):
        s.fuse_grad_size = 1
    with pytest.raises(ValueError, match="an integer >= 1"):
        s.nccl_comm_num = 0
    with pytest.raises(TypeError, match="True or False"):
        s.sync_batch_norm = "yes"
    with pytest.raises(ValueError, match="unknown key 'checkpoint'"):
        s.recompute_configs = {"checkpoint": []}
    with pytest.raises(TypeError, match=r"gradient_merge_configs\['k_steps'\] = 1.5"):
        s.gradient_merge_configs = {"k_steps": 1.5}
    with pytest.raises(TypeError, match="BuildStrategy"):
        s.build_strategy = {}


def test_strategy_features_refimpl_lacks_are_refused_when_applied(dygraph):
    s = fleet.DistributedStrategy()
    s.amp = True                                     # a setting: kept, saved, loaded
    s.dgc = True
    assert (s.amp, s.dgc) == (True, True)
    fleet.init(is_collective=True)
    sgd = paddle.optimizer.SGD(0.1, parameters=paddle.nn.Linear(2, 1).parameters())
    with pytest.raises(NotImplementedError, match=r"amp = True: automatic mixed precision is "
                       r"not implemented in refimpl; DistributedStrategy.dgc = True: deep"):
        fleet.distributed_optimizer(sgd, s)
    paddle.enable_static()
    try:
        x = static.data("x", [None, 2], "float32")
        loss = paddle.mean(static.nn.fc(x, 1))
        s = fleet.DistributedStrategy()
        s.pipeline = True
        opt = fleet.distributed_optimizer(paddle.optimizer.SGD(0.1), s)   # 2.0: a wrapper
        with pytest.raises(NotImplementedError, match="minimize: DistributedStrategy.pipeline"):
            opt.minimize(loss)
    finally:
        paddle.disable_static()


# Paddle 3.3.1's save_to_prototxt of these settings (its protobuf; 2.0's message fields)
RECORDED_PROTOTXT = """recompute: true
dgc: true
a_sync: false
sync_batch_norm: false
fuse_grad_size_in_MB: 50
last_comm_group_size_MB: 2
recompute_configs {
  checkpoints: "x"
  checkpoints: "y"
  enable_offload: true
  checkpoint_shape: 100
  checkpoint_shape: 512
}
amp_configs {
  init_loss_scaling: 1024
  decr_ratio: 0.8
  custom_white_list: "conv2d"
}
a_sync_configs {
  k_steps: 0
}
"""


def test_strategy_saves_and_loads_paddles_prototxt(tmp_path):
    s = fleet.DistributedStrategy()
    s.dgc = True
    s.recompute = True
    s.recompute_configs = {"checkpoints": ["x", "y"], "enable_offload": True,
                           "checkpoint_shape": [100, 512]}
    s.amp_configs = {"init_loss_scaling": 1024, "decr_ratio": 0.8,
                     "custom_white_list": ["conv2d"]}
    s.sync_batch_norm = False
    s.fuse_grad_size_in_MB = 50
    s.last_comm_group_size_MB = 2
    s.a_sync = False
    s.save_to_prototxt(str(tmp_path / "s.prototxt"))
    assert (tmp_path / "s.prototxt").read_text() == RECORDED_PROTOTXT
    loaded = fleet.DistributedStrategy()
    loaded.load_from_prototxt(str(tmp_path / "s.prototxt"))
    assert (loaded.recompute, loaded.dgc, loaded.sync_batch_norm) == (True, True, False)
    assert loaded.recompute_configs == {"checkpoints": ["x", "y"], "enable_offload": True,
                                        "checkpoint_shape": [100, 512]}
    assert loaded.amp_configs["init_loss_scaling"] == 1024.0
    assert loaded.amp_configs["custom_white_list"] == ["conv2d"]
    assert loaded.amp_configs["incr_every_n_steps"] == 1000          # not in the file
    assert (loaded.fuse_grad_size_in_MB, loaded.a_sync_configs["k_steps"]) == (50, 0)
    loaded.save_to_prototxt(str(tmp_path / "again.prototxt"))
    assert (tmp_path / "again.prototxt").read_text() == RECORDED_PROTOTXT
    # written all or nothing: a save over an existing file replaces it whole, no temp left
    fleet.DistributedStrategy().save_to_prototxt(str(tmp_path / "again.prototxt"))
    assert (tmp_path / "again.prototxt").read_text() == ""
    assert sorted(p.name for p in tmp_path.iterdir()) == ["again.prototxt", "s.prototxt"]
    # the sub-strategies' fields of 2.0's message, and values checked as when set
    s = fleet.DistributedStrategy()
    build = static.BuildStrategy()
    build.enable_inplace = True
    s.build_strategy = build
    s.save_to_prototxt(str(tmp_path / "b.prototxt"))
    text = (tmp_path / "b.prototxt").read_text()
    assert text.startswith("build_strategy {\n  enable_sequential_execution: false\n")
    assert "  enable_inplace: true\n" in text and text.endswith("}\n")
    loaded = fleet.DistributedStrategy()
    loaded.load_from_prototxt(str(tmp_path / "b.prototxt"))
    assert loaded.build_strategy.enable_inplace is True
    (tmp_path / "bad.prototxt").write_text("nccl_comm_num: 0\n")
    with pytest.raises(ValueError, match="an integer >= 1"):
        loaded.load_from_prototxt(str(tmp_path / "bad.prototxt"))
    (tmp_path / "bad.prototxt").write_text("recompute_configs {\n  checkpoints: \"x\"\n")
    with pytest.raises(ValueError, match="'recompute_configs' is not closed"):
        loaded.load_from_prototxt(str(tmp_path / "bad.prototxt"))


def test_fleet_without_a_parameter_server_environment_is_one_worker(dygraph, monkeypatch):
    monkeypatch.delenv("PADDLE_PSERVERS_IP_PORT_LIST", raising=False)
    fleet.init()                                  # 2.0: non-distributed execution
    assert (fleet.worker_index(), fleet.worker_num(), fleet.is_first_worker()) == (0, 1, True)
    assert (fleet.is_worker(), fleet.is_server(), fleet.server_num()) == (True, False, 0)
    assert (fleet.worker_endpoints(), fleet.server_endpoints(to_string=True)) == ([], "")
    with pytest.warns(UserWarning, match=r"init_server\(\) function doesn't work when use "
                      "non_distributed fleet"):
        fleet.init_server()
    assert fleet.util.all_reduce([3, 4]).tolist() == [3, 4]
    assert fleet.util.all_gather(5) == [5]
    with pytest.raises(ValueError, match="comm_world must be one of"):
        fleet.util.barrier("workers")
    monkeypatch.setenv("PADDLE_PSERVERS_IP_PORT_LIST", "127.0.0.1:6001")
    with pytest.raises(NotImplementedError, match="parameter-server job"):
        fleet.init(fleet.PaddleCloudRoleMaker())


def test_user_defined_parameter_server_roles_answer_the_queries(dygraph, capsys):
    def role(current_id, role=fleet.Role.WORKER):
        return fleet.UserDefinedRoleMaker(
            current_id=current_id, role=role,
            worker_endpoints=["127.0.0.1:6003", "127.0.0.1:6004", "127.0.0.1:6005"],
            server_endpoints=["127.0.0.1:6001", "127.0.0.1:6002"])

    files = ["f%d" % i for i in range(7)]
    shards = []
    for worker in range(3):
        fleet.init(role(worker))
        assert (fleet.worker_index(), fleet.worker_num(), fleet.server_num()) == (worker, 3, 2)
        shards.append(fleet.util.get_file_shard(files))
        fleet.util.print_on_rank("I'm worker %d" % worker, 1)
    # consecutive blocks, the first 7 % 3 workers one file more
    assert shards == [["f0", "f1", "f2"], ["f3", "f4"], ["f5", "f6"]]
    assert capsys.readouterr().out == "I'm worker 1\n"
    with pytest.raises(NotImplementedError, match="fleet.init_worker: parameter-server"):
        fleet.init_worker()
    with pytest.raises(NotImplementedError, match="parameter-server job"):
        fleet.util.all_reduce([1])
    fleet.init(role(1, fleet.Role.SERVER))
    assert (fleet.is_server(), fleet.is_worker(), fleet.server_index()) == (True, False, 1)
    with pytest.raises(ValueError, match="current_id must be an index among the 2 servers"):
        fleet.init(role(2, fleet.Role.SERVER))
    with pytest.raises(ValueError, match="this job has 1 processes"):
        fleet.init(fleet.UserDefinedRoleMaker(is_collective=True, current_id=0,
                                              worker_endpoints=["a:1", "b:2"]))


def test_role_makers_at_paddle20s_module_path(dygraph):
    """`import paddle.distributed.fleet.base.role_maker as role_maker` (PaddleRec 2.0's
    tools): the same classes fleet exports, which fleet.init takes."""
    import importlib
    role_maker = importlib.import_module("refimpl.distributed.fleet.base.role_maker")
    assert (role_maker.PaddleCloudRoleMaker, role_maker.UserDefinedRoleMaker,
            role_maker.Role) == (fleet.PaddleCloudRoleMaker, fleet.UserDefinedRoleMaker,
                                 fleet.Role)
    fleet.init(role_maker.UserDefinedRoleMaker(
        current_id=1, role=role_maker.Role.WORKER,
        worker_endpoints=["127.0.0.1:6003", "127.0.0.1:6004"],
        server_endpoints=["127.0.0.1:6001"]))
    assert (fleet.worker_index(), fleet.worker_num()) == (1, 2)


def test_fleet_in_one_process(dygraph):
    fleet.init(is_collective=True)
    assert (fleet.worker_index(), fleet.worker_num(), fleet.is_first_worker()) == (0, 1, True)
    assert fleet.worker_endpoints(to_string=True) == "127.0.0.1:6170"
    assert (fleet.server_num(), fleet.is_server(), fleet.is_worker()) == (0, False, True)
    fleet.barrier_worker()
    model = fleet.distributed_model(paddle.nn.Linear(2, 1))
    assert isinstance(model, paddle.DataParallel)
    opt = fleet.distributed_optimizer(paddle.optimizer.SGD(0.5, parameters=model.parameters()))
    x = t([[1.0, 2.0]])
    before = model._layers.weight.numpy()
    model(x).sum().backward()
    opt.step()
    opt.clear_grad()
    np.testing.assert_allclose(model._layers.weight.numpy(), before - 0.5 * x.numpy().T)
    with pytest.raises(TypeError, match="DistributedStrategy"):
        fleet.distributed_optimizer(opt, strategy={})


def test_processes_of_a_job_take_their_share_of_the_cores(monkeypatch):
    from refimpl.parallel import cores
    monkeypatch.setattr(cores, "_cores", lambda: 8)
    assert cores.local_processes({}) == 1
    assert cores.local_processes({"PMI_SIZE": "4", "MPI_LOCALNRANKS": "2"}) == 2  # local first
    assert cores.local_processes({"OMPI_COMM_WORLD_LOCAL_SIZE": "3"}) == 3
    assert cores.local_processes({"PMI_SIZE": "junk"}) == 1
    assert cores.thread_environment(3, {}) == {"OMP_NUM_THREADS": "2",
                                               "OPENBLAS_NUM_THREADS": "2"}
    assert cores.thread_environment(16, {})["OMP_NUM_THREADS"] == "1"     # at least one
    assert cores.thread_environment(2, {"OMP_NUM_THREADS": "3"}) == {}    # the user's choice
    # the threads a process computes on (whether a DataLoader reader thread can help)
    assert cores.process_threads({"OMP_NUM_THREADS": "3"}) == 3
    assert cores.process_threads({}) == 8                                    # its cores
    assert cores.process_threads({"OMP_NUM_THREADS": "0"}) == 8
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    monkeypatch.delenv("OPENBLAS_NUM_THREADS", raising=False)
    monkeypatch.setenv("MPI_LOCALNRANKS", "4")
    cores.share_cores()
    assert (os.environ["OMP_NUM_THREADS"], os.environ["OPENBLAS_NUM_THREADS"]) == ("2", "2")


def test_fleet_metrics_of_one_worker(dygraph):
    fleet.init(is_collective=True)
    metrics = fleet.metrics
    np.testing.assert_array_equal(metrics.sum(np.array([[1.0, 2.0]])), [[1.0, 2.0]])
    np.testing.assert_array_equal(metrics.max(np.array([3, -1])), [3, -1])
    # hand-derived: positives in buckets 1, 2, 2; negatives in 0, 0, 1 -> of the 9 pairs
    # the positives win 8 and tie 1: (8 + 0.5) / 9
    assert metrics.auc(np.array([[0, 1, 2]]), np.array([[2, 1, 0]])) == pytest.approx(8.5 / 9)
    assert metrics.auc(np.array([[0, 3]]), np.array([[0, 0]])) == 0.5     # no negatives
    assert metrics.mae(np.array([6.0]), np.array([4])) == 1.5
    assert metrics.mse(np.array([9.0]), np.array([4])) == 2.25
    assert metrics.rmse(np.array([9.0]), np.array([4])) == 1.5
    assert metrics.acc(np.array([3.0]), np.array([4.0])) == 0.75
    # a static variable or its name: read from the scope
    scope = static.global_scope()
    scope.var("correct_count").get_tensor().set(np.float32([5]), paddle.CPUPlace())
    assert metrics.acc("correct_count", np.array([10.0])) == 0.5
    with pytest.raises(ValueError, match="no variable 'missing'"):
        metrics.sum("missing")
