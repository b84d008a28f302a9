"""paddle.Model under `mpirun -n N`: fit gives the single process's parameters, evaluate and
predict cover every sample once (the sampler's padding cut off), only rank 0 prints and
saves."""
import os
import re
import shutil
import subprocess
import sys

import numpy as np
import pytest

pytestmark = [pytest.mark.mpi,
              pytest.mark.skipif(shutil.which("mpirun") is None, reason="mpirun not found")]
EXAMPLE = os.path.join(os.path.dirname(__file__), os.pardir, "examples", "model_fit_dp.py")


def _run(n, *args, timeout=240):
    cmd = [sys.executable, "-m", "refimpl", "run", EXAMPLE] + [str(a) for a in args]
    if n > 1:
        cmd = ["mpirun", "-n", str(n)] + cmd
    result = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


@pytest.mark.parametrize("mode, n", [("static", 2), ("static", 3), ("dynamic", 2),
                                     ("dynamic", 3)])
def test_model_under_mpirun_matches_one_process(tmp_path, mode, n):
    _run(1, mode, tmp_path / "one.npz")
    out = _run(n, mode, tmp_path / "many.npz", tmp_path / "ckpt")
    one, many = np.load(tmp_path / "one.npz"), np.load(tmp_path / "many.npz")
    assert sorted(one.files) == sorted(many.files)
    for key in one.files:
        np.testing.assert_allclose(many[key], one[key], rtol=1e-5, atol=1e-6, err_msg=key)
    assert many["predictions"].shape == (29, 3)
    # rank 0 alone prints the progress and the checkpoints, and writes them
    assert out.count("Epoch 1/3") == 1 and out.count("save checkpoint at") == 4
    assert sorted(f for f in os.listdir(tmp_path / "ckpt") if f.endswith(".pdparams")) == [
        "0.pdparams", "1.pdparams", "2.pdparams", "final.pdparams"]
    # ranks share stdout, so their last lines may interleave: find them anywhere
    assert sorted(re.findall(r"rank \d of %d done" % n, out)) == [
        "rank %d of %d done" % (r, n) for r in range(n)]
