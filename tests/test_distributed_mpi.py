"""paddle.distributed across processes under `mpirun -n 2|3 python -m refimpl run`: the
collectives on Tensors and in static programs, DataParallel equal to one process on the
global batch (hypothesis over models inside the job, and the example script), its sum
through shared memory (gradients, their bits on every rank, kept ones, models taking
turns), fleet in both modes, Paddle 1.8's DataParallel, and every failure ending the job
loudly: a rank that raises or dies, ranks making different calls, a rank left waiting, a
parameter without gradient, a missing init_parallel_env."""
import os
import re
import shutil
import subprocess
import sys
import textwrap

import numpy as np
import pytest

pytestmark = [pytest.mark.mpi,
              pytest.mark.skipif(shutil.which("mpirun") is None, reason="mpirun not found")]
HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLE = os.path.join(HERE, os.pardir, "examples", "train_dygraph_dp.py")
EQUIVALENCE_JOB = os.path.join(HERE, "dp_equivalence_job.py")
SHARED_SUM_JOB = os.path.join(HERE, "dp_shared_sum_job.py")


def _run(n, script, *args, timeout=180, env=None):
    cmd = [sys.executable, "-m", "refimpl", "run", str(script)] + [str(a) for a in args]
    if n > 1:
        cmd = ["mpirun", "-n", str(n)] + cmd
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                          env=dict(os.environ, **(env or {})))


def _script(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return path


def _same_npz(a, b, rtol=1e-5, atol=1e-6):
    a, b = np.load(a), np.load(b)
    assert sorted(a.files) == sorted(b.files) and a.files
    for k in a.files:
        np.testing.assert_allclose(b[k], a[k], rtol=rtol, atol=atol, err_msg=k)


def test_ranks_share_the_cores_unless_omp_num_threads_is_set(tmp_path):
    script = _script(tmp_path, "threads.py", """
        import os
        import refimpl
        try:
            from refimpl._kernels.blas import team_size   # the kernels' OpenMP team
        except ImportError:                                 # kernels not built
            team_size = lambda: os.environ["OMP_NUM_THREADS"]
        # one write per rank: the two ranks share the pipe, and print's separate writes of
        # "threads" and the rest interleave
        os.write(1, ("threads %s %s\\n" % (os.environ["OMP_NUM_THREADS"], team_size())).encode())
        """)
    env = {k: v for k, v in os.environ.items()
           if k not in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS")}
    share = str(max(1, len(os.sched_getaffinity(0)) // 2))
    for given, expected in ((None, share), ("3", "3")):
        run_env = dict(env, OMP_NUM_THREADS=given) if given else env
        r = subprocess.run(["mpirun", "-n", "2", sys.executable, "-m", "refimpl", "run",
                            str(script)], capture_output=True, text=True, timeout=120,
                           env=run_env)
        assert r.returncode == 0, r.stderr
        assert r.stdout.split().count("threads") == 2
        assert r.stdout.split("\n")[0].split() == ["threads", expected, expected], r.stdout


def test_collectives_on_tensors_and_in_programs_across_processes(tmp_path):
    script = _script(tmp_path, "collectives.py", """
        import numpy as np
        import paddle
        import paddle.distributed as dist
        import paddle.static as static
        dist.init_parallel_env()
        r, n = dist.get_rank(), dist.get_world_size()
        env = dist.ParallelEnv()
        assert (env.rank, env.world_size, env.local_rank, env.nranks) == (r, n, r, n)
        assert env.current_endpoint == "127.0.0.1:%d" % (6170 + r)

        def t(v, dtype="float32"):
            return paddle.to_tensor(np.asarray(v, dtype))
        x = t(np.full((2, 3), r + 1))
        assert dist.all_reduce(x) is x
        np.testing.assert_array_equal(x.numpy(), np.full((2, 3), n * (n + 1) / 2))
        x = t([r + 1, -(r + 1)], "int64")
        dist.all_reduce(x, dist.ReduceOp.PROD)
        assert x.numpy().tolist() == [np.prod(range(1, n + 1)), (-1) ** n * np.prod(range(1, n + 1))]
        x = t([r, -r], "float64")
        dist.all_reduce(x, dist.ReduceOp.MAX)
        assert x.numpy().tolist() == [n - 1, 0]
        x = t([r, -r], "int32")
        dist.all_reduce(x, dist.ReduceOp.MIN)
        assert x.numpy().tolist() == [0, -(n - 1)]
        x = t([r] * 3, "float16")
        dist.broadcast(x, n - 1)
        assert x.numpy().tolist() == [n - 1] * 3 and x.numpy().dtype == np.float16
        x = t([r + 1.0])
        dist.reduce(x, 1)
        assert x.numpy().tolist() == ([n * (n + 1) / 2] if r == 1 else [r + 1.0])
        got = []
        dist.all_gather(got, t([[r, 10 * r]], "int64"))
        assert [g.numpy().tolist() for g in got] == [[[i, 10 * i]] for i in range(n)]
        from refimpl.hapi.model import _all_gather     # Paddle 2.0's, in PaddleVideo's metrics
        assert _all_gather(t([[r, 1]]), n).numpy().tolist() == [[i, 1] for i in range(n)]
        x = t([0.0, 0.0])
        parts = [t([10.0 * i, i]) for i in range(n)] if r == 0 else None
        dist.scatter(x, parts, src=0)
        assert x.numpy().tolist() == [10.0 * r, r]
        dist.barrier()

        # the same ops in a static program, run by a plain Executor
        paddle.enable_static()
        main, startup = static.Program(), static.Program()
        with static.program_guard(main, startup):
            v = static.data("v", [2], "float32")
            s = v * 1.0
            dist.all_reduce(s)
            m = v * 1.0
            dist.all_reduce(m, dist.ReduceOp.MAX)
            gathered = []
            dist.all_gather(gathered, v)
        exe = static.Executor()
        exe.run(startup)
        out = exe.run(main, feed={"v": np.array([r, 1], "float32")},
                      fetch_list=[s, m] + gathered)
        assert out[0].tolist() == [n * (n - 1) / 2, n] and out[1].tolist() == [n - 1, 1]
        assert [o.tolist() for o in out[2:]] == [[i, 1] for i in range(n)]
        print("rank %d ok" % r)
    """)
    r = _run(3, script)
    assert r.returncode == 0, r.stdout + r.stderr
    assert sorted(re.findall(r"rank \d ok", r.stdout)) == ["rank 0 ok", "rank 1 ok", "rank 2 ok"]


@pytest.mark.parametrize("n, examples", [
    (2, 12), (3, 8),
    pytest.param(2, 80, marks=pytest.mark.slow), pytest.param(3, 60, marks=pytest.mark.slow)])
def test_data_parallel_matches_one_process_on_the_global_batch(n, examples):
    r = _run(n, EQUIVALENCE_JOB, examples, timeout=600)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-5000:]
    assert len(re.findall(r"DataParallel matched one process", r.stdout)) == n


@pytest.mark.parametrize("n", [2, 3])
def test_data_parallel_sums_through_shared_memory_on_one_machine(n):
    r = _run(n, SHARED_SUM_JOB)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-5000:]
    assert len(re.findall(r"shared sums right", r.stdout)) == n


@pytest.mark.parametrize("n", [2, 3])
def test_dygraph_example_gives_the_single_process_parameters(tmp_path, n):
    single, multi = tmp_path / "single.npz", tmp_path / "multi.npz"
    r = _run(1, EXAMPLE, single)
    assert r.returncode == 0, r.stderr
    r = _run(n, EXAMPLE, multi)
    assert r.returncode == 0, r.stdout + r.stderr
    assert sorted(re.findall(r"rank (\d) of %d done" % n, r.stdout)) == \
        [str(i) for i in range(n)]
    _same_npz(single, multi)


FLEET_DYNAMIC = """
    import sys
    import numpy as np
    import paddle
    from paddle.distributed import fleet
    fleet.init(is_collective=True)
    rank, world = fleet.worker_index(), fleet.worker_num()
    paddle.seed(rank)
    # (no bias before the batch norm: its gradient is rounding noise, which Adam amplifies)
    model = paddle.nn.Sequential(paddle.nn.Linear(6, 8, bias_attr=False), paddle.nn.BatchNorm1D(8),
                                 paddle.nn.ReLU(), paddle.nn.Linear(8, 2))
    strategy = fleet.DistributedStrategy()
    strategy.sync_batch_norm = True
    strategy.fuse_grad_size_in_MB = 0.0001
    fleet.init(is_collective=True, strategy=strategy)
    model = fleet.distributed_model(model)
    opt = fleet.distributed_optimizer(paddle.optimizer.Adam(0.01, parameters=model.parameters()))
    rng = np.random.RandomState(0)
    for step in range(5):
        x = rng.randn(12, 6).astype("float32")
        b = 12 // world
        loss = model(paddle.to_tensor(x[rank * b:(rank + 1) * b])).square().mean()
        loss.backward()
        opt.step()
        opt.clear_grad()
    if fleet.is_first_worker():
        np.savez(sys.argv[1], **{k: v.numpy() for k, v in model.state_dict().items()})
"""

FLEET_STATIC = """
    import sys
    import numpy as np
    import paddle
    import paddle.static as static
    from paddle.distributed import fleet
    paddle.enable_static()
    fleet.init(is_collective=True)
    rank, world = fleet.worker_index(), fleet.worker_num()
    x = static.data("x", [None, 6], "float32")
    init = paddle.nn.initializer.Uniform(-0.5, 0.5, seed=1)
    h = static.nn.fc(x, 8, activation="relu", weight_attr=paddle.ParamAttr(initializer=init))
    loss = paddle.mean(paddle.square(static.nn.fc(h, 2, weight_attr=paddle.ParamAttr(initializer=init))))
    strategy = fleet.DistributedStrategy()
    strategy.recompute = True
    strategy.recompute_configs = {"checkpoints": [h.name]}
    opt = fleet.distributed_optimizer(paddle.optimizer.Momentum(0.1, 0.9), strategy)
    opt.minimize(loss)
    exe = static.Executor()
    exe.run(static.default_startup_program())
    rng = np.random.RandomState(0)
    for step in range(5):
        xs = rng.randn(12, 6).astype("float32")
        b = 12 // world
        exe.run(static.default_main_program(), feed={"x": xs[rank * b:(rank + 1) * b]},
                fetch_list=[loss])
    fleet.barrier_worker()
    if fleet.is_first_worker():
        scope = static.global_scope()
        np.savez(sys.argv[1], **{p.name: np.array(scope.find_var(p.name).get_tensor())
                                 for p in static.default_main_program().all_parameters()})
"""


@pytest.mark.parametrize("source", [FLEET_DYNAMIC, FLEET_STATIC], ids=["dynamic", "static"])
def test_fleet_collective_training_matches_one_process(tmp_path, source):
    script = _script(tmp_path, "fleet_train.py", source)
    single, multi = tmp_path / "single.npz", tmp_path / "multi.npz"
    r = _run(1, script, single)
    assert r.returncode == 0, r.stderr
    r = _run(2, script, multi)
    assert r.returncode == 0, r.stdout + r.stderr
    _same_npz(single, multi)


def test_paddle_1_8_data_parallel_with_scale_loss_and_apply_collective_grads(tmp_path):
    script = _script(tmp_path, "dp18.py", """
        import sys
        import numpy as np
        import paddle.fluid as fluid
        with fluid.dygraph.guard():
            strategy = fluid.dygraph.prepare_context()
            np.random.seed(1)
            model = fluid.dygraph.Linear(4, 2)
            model.weight.set_value(np.random.randn(4, 2).astype("float32"))
            model = fluid.dygraph.DataParallel(model, strategy)
            opt = fluid.optimizer.SGD(0.1, parameter_list=model.parameters())
            rng = np.random.RandomState(0)
            rank, world = strategy.local_rank, strategy.nranks
            for step in range(4):
                x = rng.randn(6, 4).astype("float32")
                b = 6 // world
                out = model(fluid.dygraph.to_variable(x[rank * b:(rank + 1) * b]))
                loss = model.scale_loss(fluid.layers.reduce_mean(out * out))
                loss.backward()
                model.apply_collective_grads()
                opt.minimize(loss)
                model.clear_gradients()
            if rank == 0:
                np.savez(sys.argv[1], **{k: v.numpy() for k, v in model.state_dict().items()})
    """)
    single, multi = tmp_path / "single.npz", tmp_path / "multi.npz"
    env = {"REFIMPL_PADDLE": "1.8"}
    r = _run(1, script, single, env=env)
    assert r.returncode == 0, r.stderr
    r = _run(2, script, multi, env=env)
    assert r.returncode == 0, r.stdout + r.stderr
    _same_npz(single, multi)


TRAIN_AND_FAIL = """
    import os, signal
    import numpy as np
    import paddle
    import paddle.distributed as dist
    dist.init_parallel_env()
    model = paddle.DataParallel(paddle.nn.Linear(4, 2))
    for step in range(100000):    # rank 0 would wait for rank 1 for ever
        if step == 3 and dist.get_rank() == 1:
            %s
        model(paddle.ones([2, 4])).sum().backward()
"""


@pytest.mark.parametrize("failure, expected", [
    ("raise RuntimeError('rank 1 fails on purpose')", "rank 1 fails on purpose"),
    ("os.kill(os.getpid(), signal.SIGKILL)", "Killed"),
], ids=["raises", "killed"])
def test_a_failing_rank_ends_the_whole_job(tmp_path, failure, expected):
    # the stall timeout (300 s) is far beyond the subprocess timeout: the abort ends it
    script = _script(tmp_path, "fail.py", TRAIN_AND_FAIL % failure)
    r = _run(2, script, timeout=90)
    assert r.returncode != 0
    assert expected in r.stdout + r.stderr


def test_ranks_making_different_calls_raise_collective_mismatch(tmp_path):
    script = _script(tmp_path, "mismatch.py", """
        import paddle
        import paddle.distributed as dist
        dist.init_parallel_env()
        x = paddle.ones([2, 3])
        if dist.get_rank() == 0:
            dist.all_reduce(x)
        else:
            dist.broadcast(paddle.ones([4], "float64"), 1)
    """)
    r = _run(2, script, timeout=90)
    assert r.returncode != 0
    assert "CollectiveMismatch" in r.stderr
    assert "rank 0: all_reduce (sum) of float32 [2, 3]" in r.stderr
    assert "rank 1: broadcast root 1 of float64 [4]" in r.stderr


def test_a_rank_left_waiting_raises_a_stall_and_ends_the_job(tmp_path):
    script = _script(tmp_path, "extra_call.py", """
        import paddle
        import paddle.distributed as dist
        dist.init_parallel_env()
        for _ in range(2 if dist.get_rank() == 0 else 1):
            dist.all_reduce(paddle.ones([2]))
    """)
    r = _run(2, script, timeout=90, env={"REFIMPL_STALL_TIMEOUT": "2"})
    assert r.returncode != 0
    assert "StallError: no progress for 2 s" in r.stderr


def test_a_parameter_without_gradient_is_an_error_on_every_rank(tmp_path):
    script = _script(tmp_path, "unused.py", """
        import paddle
        import paddle.distributed as dist
        dist.init_parallel_env()
        class Net(paddle.nn.Layer):
            def __init__(self):
                super().__init__()
                self.used, self.spare = paddle.nn.Linear(2, 2), paddle.nn.Linear(2, 2)
            def forward(self, x):
                return self.used(x)
        model = paddle.DataParallel(Net())
        model(paddle.ones([2, 2])).sum().backward()
    """)
    r = _run(2, script, timeout=90)
    assert r.returncode != 0
    assert "received no gradient in this backward" in r.stderr
    assert "find_unused_parameters=True" in r.stderr


def test_data_parallel_needs_init_parallel_env(tmp_path):
    script = _script(tmp_path, "no_init.py", """
        import paddle
        paddle.DataParallel(paddle.nn.Linear(2, 2))
    """)
    r = _run(2, script, timeout=90)
    assert r.returncode != 0
    assert "paddle.DataParallel: call paddle.distributed.init_parallel_env() first " \
           "(this job has 2 processes" in r.stderr


def test_fleet_util_and_metrics_span_the_jobs_workers(tmp_path):
    script = _script(tmp_path, "fleet_util.py", """
        import os
        import numpy as np
        from paddle.distributed import fleet
        fleet.init(is_collective=True)
        rank = fleet.worker_index()
        total = fleet.util.all_reduce(np.array([3, 4]) * (rank + 1), "sum", "worker")
        largest = fleet.util.all_reduce([rank, -rank], "max", "all")
        gathered = fleet.util.all_gather(rank * 10)
        fleet.util.barrier()
        shard = fleet.util.get_file_shard(["f1", "f2", "f3"])
        fleet.util.print_on_rank("printed by 1", 1)
        accuracy = fleet.metrics.acc(np.array([rank + 1.0]), np.array([4.0]))   # 3 / 8
        summed = fleet.metrics.sum(np.array([[rank, 1.0]])).tolist()
        # the role given must be this job's
        fleet.init(fleet.UserDefinedRoleMaker(is_collective=True, current_id=rank,
                                              worker_endpoints=["a:1", "b:2"]))
        # a file per rank: mpirun's merged stdout may splice one rank's line into another's
        with open(os.path.join(os.path.dirname(__file__), "rank%d.txt" % rank), "w") as f:
            f.write("rank %d %s %s %s %s %d %s %s" % (
                rank, total.tolist(), largest.tolist(), gathered, shard, fleet.worker_num(),
                accuracy, summed))
        """)
    r = _run(2, script, timeout=120)
    assert r.returncode == 0, r.stderr
    lines = [(tmp_path / ("rank%d.txt" % q)).read_text() for q in range(2)]
    assert lines == ["rank 0 [9, 12] [1, 0] [0, 10] ['f1', 'f2'] 2 0.375 [[1.0, 2.0]]",
                     "rank 1 [9, 12] [1, 0] [0, 10] ['f3'] 2 0.375 [[1.0, 2.0]]"]
    assert r.stdout.count("printed by 1") == 1
