"""Across processes: `mpirun -n N python -m refimpl run` trains to the single-process
parameters, and a failing rank aborts the job instead of hanging."""
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
EXAMPLE = os.path.join(os.path.dirname(__file__), os.pardir, "examples", "train_mlp_dp.py")


def _run(n, script, *args, timeout=180):
    cmd = [sys.executable, "-m", "refimpl", "run", script] + list(args)
    if n > 1:
        cmd = ["mpirun", "-n", str(n)] + cmd
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)


@pytest.mark.parametrize("n", [2, 3])
def test_mpirun_matches_single_process(tmp_path, n):
    single, multi = tmp_path / "single.npz", tmp_path / "multi.npz"
    r = _run(1, EXAMPLE, str(single))
    assert r.returncode == 0, r.stderr
    r = _run(n, EXAMPLE, str(multi))
    assert r.returncode == 0, r.stdout + r.stderr
    assert sorted(re.findall(r"rank (\d) of %d done" % n, r.stdout)) == \
        [str(i) for i in range(n)]
    a, b = np.load(single), np.load(multi)
    assert sorted(a.files) == sorted(b.files) and a.files
    for k in a.files:
        np.testing.assert_allclose(b[k], a[k], rtol=1e-5, atol=1e-6, err_msg=k)


def test_failing_rank_aborts_the_job(tmp_path):
    script = tmp_path / "fail.py"
    script.write_text(textwrap.dedent("""
        import time
        import paddle
        if paddle.distributed.get_rank() == 1:
            raise RuntimeError("rank 1 fails on purpose")
        time.sleep(60)   # rank 0 would wait forever for rank 1 without the abort
    """))
    r = _run(2, str(script), timeout=50)
    assert r.returncode != 0
    assert "rank 1 fails on purpose" in r.stderr


def test_an_aborted_job_leaves_no_mpi_segment_in_dev_shm(tmp_path):
    # MPICH removes its node segment only in MPI_Finalize; the abort removes it instead
    script = tmp_path / "fail.py"
    script.write_text(textwrap.dedent("""
        import paddle
        from refimpl.parallel import launch
        launch.mpi_comm().Barrier()
        segments = {line.split()[-1] for line in open("/proc/self/maps") if "/dev/shm/" in line}
        print("SEGMENTS", *sorted(segments), flush=True)
        raise RuntimeError("rank fails on purpose")
    """))
    r = _run(2, str(script), timeout=50)
    assert r.returncode != 0 and "rank fails on purpose" in r.stderr
    segments = {p for line in r.stdout.splitlines() if line.startswith("SEGMENTS")
                for p in line.split()[1:]}
    if not segments:
        pytest.skip("this MPI maps no segment in /dev/shm")
    assert not [p for p in segments if os.path.exists(p)]


def test_distributed_names_report_the_world(tmp_path):
    script = tmp_path / "world.py"
    script.write_text("import paddle\nenv = paddle.distributed.init_parallel_env()\n"
                      "print('RW %d %d %d' % (paddle.distributed.get_rank(), "
                      "paddle.distributed.get_world_size(), env.world_size))\n")
    r = _run(2, str(script))
    assert r.returncode == 0, r.stderr
    # ranks share stdout, so their lines may interleave: find the reports anywhere
    assert sorted(re.findall(r"RW \d \d \d", r.stdout)) == ["RW 0 2 2", "RW 1 2 2"]


def test_communicators_sum_broadcast_and_gather_across_processes(tmp_path):
    # each rank holds rank-dependent values; every result is checked on every rank
    script = tmp_path / "comm.py"
    script.write_text(textwrap.dedent("""
        import threading
        import numpy as np
        from refimpl.parallel import launch
        from refimpl.parallel.communicator import HierarchicalCommunicator, MPICommunicator
        comm = launch.mpi_comm()
        rank, size = comm.Get_rank(), comm.Get_size()
        ranks_sum = size * (size - 1) / 2

        # small arrays share 1 KB buckets (several buckets), a large one goes on its own
        arrays = [np.full(n, rank, dtype) for n, dtype in
                  [(3, np.float32), (100, np.float32), (200, np.float64), (5000, np.float32),
                   (7, np.float64)]]
        MPICommunicator(comm).allreduce(arrays, bucket_bytes=1024)
        for a in arrays:
            np.testing.assert_array_equal(a, np.full(a.shape, ranks_sum, a.dtype))

        # 2 places per process: global rank = 2 * process rank + place
        hier = HierarchicalCommunicator(2, comm)
        out = [None, None]
        def place(d):
            me = hier.global_rank(d)
            total, = hier.allreduce(d, [np.full((2, 2), me, np.float32)])
            owned = [np.full(3, me, np.float32), np.full(1, me, np.float32)]
            hier.broadcast(d, owned, roots=[0, 2 * size - 1])
            gathered = hier.allgather(d, np.array([me]))
            out[d] = (total, owned, gathered)
        threads = [threading.Thread(target=place, args=(d,)) for d in range(2)]
        [t.start() for t in threads]
        [t.join() for t in threads]
        devices = 2 * size
        for total, owned, gathered in out:
            np.testing.assert_array_equal(total, np.full((2, 2), devices * (devices - 1) / 2))
            np.testing.assert_array_equal(owned[0], np.zeros(3))
            np.testing.assert_array_equal(owned[1], np.full(1, devices - 1))
            assert [int(g[0]) for g in gathered] == list(range(devices))
        print("rank %d ok" % rank)
    """))
    r = _run(3, str(script))
    assert r.returncode == 0, r.stdout + r.stderr
    assert sorted(re.findall(r"rank \d ok", r.stdout)) == ["rank 0 ok", "rank 1 ok", "rank 2 ok"]


def test_a_rank_left_waiting_for_the_others_raises_a_stall_and_aborts(tmp_path):
    """Rank 0 runs one more step than rank 1, which finishes: rank 0's allreduce has no
    partner. It used to wait in MPI forever; it now raises StallError naming the wait once
    REFIMPL_STALL_TIMEOUT passes, and the job aborts."""
    script = tmp_path / "extra_step.py"
    script.write_text(textwrap.dedent("""
        import numpy as np
        import paddle
        import paddle.static as static
        paddle.enable_static()
        x = static.data("x", [None, 2], "float32")
        loss = paddle.mean(static.nn.fc(x, 1))
        paddle.optimizer.SGD(0.1).minimize(loss)
        exe = static.Executor()
        exe.run(static.default_startup_program())
        prog = static.CompiledProgram(static.default_main_program()).with_data_parallel(
            loss_name=loss.name, places=[paddle.CPUPlace()])
        for _ in range(2 if paddle.distributed.get_rank() == 0 else 1):
            exe.run(prog, feed={"x": np.ones((2, 2), "float32")}, fetch_list=[loss])
    """))
    env = dict(os.environ, REFIMPL_STALL_TIMEOUT="2")
    cmd = ["mpirun", "-n", "2", sys.executable, "-m", "refimpl", "run", str(script)]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=120, env=env)
    assert r.returncode != 0
    assert "StallError: no progress for 2 s" in r.stderr
    assert "in allreduce with the other processes (MPI): waiting for them to make the " \
           "same call" in r.stderr
