"""paddle.distributed.spawn: fresh interpreters as the ranks of a job whose collectives go
through pipes to the parent. Checked: collectives and DataParallel across 3 children
(gradients equal to one process on the global batch), join=False, a child that raises or
is killed ending the job with SpawnError and no child left running, and the argument
errors said before any process starts."""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import refimpl.distributed as dist
from refimpl import versions

# the job is a Paddle 2.x script (dynamic mode from the start); Paddle 1.8.5's
# paddle.distributed has no spawn (measured: the module is empty)
pytestmark = pytest.mark.skipif(versions.current() == "1.8",
                                reason="Paddle 1.8.5 has no paddle.distributed.spawn")

TRAIN = """
    import os, signal, sys
    import numpy as np
    import paddle
    import paddle.distributed as dist

    def model_for(rank):
        paddle.seed(rank)     # every rank its own init: rank 0's must win
        return paddle.nn.Sequential(paddle.nn.Linear(3, 4), paddle.nn.Tanh(),
                                    paddle.nn.Linear(4, 2))

    def data(n):
        return np.random.RandomState(0).randn(4 * n, 3).astype("float32")

    def train(out_dir, fail):
        dist.init_parallel_env()
        r, n = dist.get_rank(), dist.get_world_size()
        with open(os.path.join(out_dir, "pid%d" % r), "w") as f:
            f.write(str(os.getpid()))
        x = paddle.to_tensor(np.array([r + 1.0], "float32"))
        dist.all_reduce(x)    # (so every rank has written its pid before one fails)
        if fail and r == 1:
            if fail == "raise":
                raise ValueError("rank 1 fails on purpose")
            os.kill(os.getpid(), signal.SIGKILL)
        got = []
        dist.all_gather(got, paddle.to_tensor(np.array([r], "int64")))
        model = paddle.DataParallel(model_for(r))
        while fail:      # waits for rank 1 in a collective until the parent ends it
            dist.all_reduce(x)
        model(paddle.to_tensor(data(n)[r * 4:(r + 1) * 4])).square().mean().backward()
        np.savez(os.path.join(out_dir, "rank%d.npz" % r), sum=x.numpy(),
                 gathered=np.concatenate([g.numpy() for g in got]),
                 **{p.name: p.gradient() for p in model.parameters()})

    if __name__ == "__main__":
        out_dir, nprocs, fail = sys.argv[1], int(sys.argv[2]), sys.argv[3:] and sys.argv[3]
        context = dist.spawn(train, args=(out_dir, fail), nprocs=nprocs, join=False)
        assert len(context.processes) == nprocs
        while not context.join(timeout=0.5):
            pass
        # one process on the global batch, from rank 0's initial parameters
        model = model_for(0)
        model(paddle.to_tensor(data(nprocs))).square().mean().backward()
        np.savez(os.path.join(out_dir, "single.npz"),
                 **{p.name: p.gradient() for p in model.parameters()})
"""


def _spawn_job(tmp_path, *args):
    script = tmp_path / "train.py"
    script.write_text(textwrap.dedent(TRAIN))
    return subprocess.run([sys.executable, "-m", "refimpl", "run", str(script), str(tmp_path)]
                          + [str(a) for a in args], capture_output=True, text=True,
                          timeout=180)


def test_spawned_ranks_communicate_and_average_gradients_like_one_process(tmp_path):
    r = _spawn_job(tmp_path, 3)
    assert r.returncode == 0, r.stdout + r.stderr
    single = np.load(tmp_path / "single.npz")
    for rank in range(3):
        got = np.load(tmp_path / ("rank%d.npz" % rank))
        assert got["sum"].tolist() == [6.0] and got["gathered"].tolist() == [0, 1, 2]
        # the parameters are named alike in every process (same construction order)
        for name in single.files:
            np.testing.assert_allclose(got[name], single[name], rtol=1e-5, atol=1e-7,
                                       err_msg="rank %d, %s" % (rank, name))


@pytest.mark.parametrize("fail, expected", [
    ("raise", "Process 1 terminated with the following error:"),
    ("kill", "Process 1 terminated with signal SIGKILL."),
])
def test_a_failing_child_ends_the_job_and_leaves_no_process(tmp_path, fail, expected):
    r = _spawn_job(tmp_path, 2, fail)
    assert r.returncode != 0
    assert "SpawnError" in r.stderr and expected in r.stderr
    if fail == "raise":
        assert "ValueError: rank 1 fails on purpose" in r.stderr
    for rank in range(2):
        pid = int((tmp_path / ("pid%d" % rank)).read_text())
        with pytest.raises(ProcessLookupError):   # reaped by the parent: gone
            os.kill(pid, 0)


def test_arguments_are_checked_before_any_process_starts():
    with pytest.raises(TypeError, match="must be picklable"):
        dist.spawn(lambda: None, nprocs=2)
    with pytest.raises(TypeError, match="func must be callable"):
        dist.spawn(3)
    with pytest.raises(TypeError, match="args must be a tuple"):
        dist.spawn(print, args=[1])
    with pytest.raises(ValueError, match="nprocs must be an int >= 1"):
        dist.spawn(print, nprocs=0)
    with pytest.raises(NotImplementedError, match="start_method='fork'"):
        dist.spawn(print, nprocs=1, start_method="fork")
    with pytest.raises(NotImplementedError, match="option gpus not supported"):
        dist.spawn(print, nprocs=1, gpus="0,1")
