"""PaddleRec 2.0 (PaddlePaddle/PaddleRec v2.0.0) on refimpl: its tools/static_trainer.py,
tools/static_infer.py and tools/trainer.py, unmodified, on the sample data it ships
(specs/models20.md). PaddleRec comes from the mirror at the commit below, never from this
repository; the test skips where the mirror or git is absent."""
import os
import re
import subprocess
import sys

import pytest
from helpers import export_from_mirror

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MIRROR = "/work/.mirror/PaddlePaddle+PaddleRec/repo"
COMMIT = "e2e21d27f28a001e802c129943203c34f31c7355"      # tag v2.0.0


def _refimpl_run(args, cwd):
    run = subprocess.run([sys.executable, "-m", "refimpl", "run"] + args, cwd=cwd,
                         env=dict(os.environ, PYTHONPATH=ROOT), capture_output=True,
                         text=True, timeout=900)
    assert run.returncode == 0, (run.stdout + run.stderr)[-3000:]
    return run.stdout + run.stderr


def _one_epoch(model_dir, epochs):
    """The model's config.yaml with `epochs` training epochs and inference of the first."""
    with open(os.path.join(model_dir, "config.yaml")) as f:
        text = f.read()
    text = re.sub(r"(?m)^(\s*)epochs: .*$", r"\g<1>epochs: %d" % epochs, text)
    text = re.sub(r"(?m)^(\s*)infer_end_epoch: .*$", r"\g<1>infer_end_epoch: 1", text)
    with open(os.path.join(model_dir, "config_test.yaml"), "w") as f:
        f.write(text)


@pytest.mark.slow
def test_dnn_static_and_word2vec_dygraph_train_and_infer(tmp_path):
    for module in ("yaml", "six"):
        pytest.importorskip(module)     # PaddleRec's own imports
    src = export_from_mirror(MIRROR, COMMIT, ["tools", "models/rank/dnn",
                                              "models/recall/word2vec"],
                             tmp_path / "PaddleRec", "PaddlePaddle/PaddleRec")

    # static: the loader is built without feed_list or return_list (return_list's 2.0
    # default, True); fleet.base.role_maker imported at 2.0's path; sparse Adam
    dnn = str(src / "models" / "rank" / "dnn")
    _one_epoch(dnn, 2)
    out = _refimpl_run(["../../../tools/static_trainer.py", "-m", "config_test.yaml"], dnn)
    costs = [float(c) for c in re.findall(r"batch_id: \d+, cost: \[([0-9.]+)\]", out)]
    # every second batch logged; the second epoch's losses lie below the first's
    assert len(costs) == 40 and all(0.0 < c < 10.0 for c in costs), out[-3000:]
    assert sum(costs[20:]) < 0.8 * sum(costs[:20]), costs
    assert "epoch: 1 done" in out and os.path.isdir(os.path.join(dnn, "output_model_dnn", "1"))
    out = _refimpl_run(["../../../tools/static_infer.py", "-m", "config_test.yaml"], dnn)
    # the 80 training samples after two epochs: far from chance (0.5)
    auc = float(re.search(r"epoch: 0 done, auc: ([0-9.]+)", out).group(1))
    assert auc > 0.75, out[-3000:]

    # dygraph: word2vec's reader yields one list as it grows, collated into Paddle 2.0's
    # slots (batches of fewer than 100 rows)
    w2v = str(src / "models" / "recall" / "word2vec")
    _one_epoch(w2v, 1)
    out = _refimpl_run(["../../../tools/trainer.py", "-m", "config_test.yaml"], w2v)
    losses = [float(v) for v in re.findall(r"batch_id: \d+, loss:\[([0-9.]+)\]", out)]
    assert losses and all(0.0 < v < 5.0 for v in losses), out[-3000:]
    assert "epoch: 0 done" in out, out[-3000:]
