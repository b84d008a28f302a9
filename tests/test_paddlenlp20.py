"""PaddleNLP 2.0 (PaddlePaddle/models, release/2.0-beta) on refimpl: the Paddle 2.0 names
its package imports, and its text_classification/rnn example trained end to end, unmodified,
on generated ChnSentiCorp-format data (specs/models20.md). The example and the paddlenlp
package come from the models mirror at the commit below, never from this repository; the
end-to-end test skips where the mirror, git or the example's pip packages are absent."""
import io
import os
import random
import re
import shutil
import subprocess
import sys
import tarfile

import pytest

import refimpl as paddle

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MIRROR = "/work/.mirror/PaddlePaddle+models/repo"
COMMIT = "7e5f41cfdd6a4d2d20342a0a1ec59e926cba4675"      # release/2.0-beta, 2021-02-23


def test_the_paddle_20_names_paddlenlp_imports(dygraph):
    assert paddle.nn.decode.BeamSearchDecoder is paddle.nn.BeamSearchDecoder
    assert paddle.nn.decode.dynamic_decode is paddle.nn.dynamic_decode
    assert callable(paddle.nn.utils.weight_norm) and callable(paddle.nn.utils.remove_weight_norm)
    assert isinstance(paddle.nn.Linear(2, 2).weight, paddle.fluid.framework.ParamBase)


def _export(dest, *paths):
    archive = subprocess.run(["git", "--git-dir", MIRROR, "archive", COMMIT] + list(paths),
                             capture_output=True, timeout=120)
    if archive.returncode != 0:
        pytest.skip("the models mirror lacks %s: %s" % (paths, archive.stderr[-200:]))
    with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
        tar.extractall(dest)


def _chnsenticorp(home, vocab_path):
    """ChnSentiCorp's tar.gz (label TAB text_a, a header line) where paddlenlp looks for it,
    and the example's vocabulary: jieba's tokens of the generated sentences. Each sentence
    carries 1-3 cue words of its label among neutral words."""
    import jieba
    rng = random.Random(0)
    neutral = "酒店 房间 服务 早餐 位置 前台 价格 环境 设施 交通 电脑 屏幕 键盘 内容 入住".split()
    cues = ["很差 失望 讨厌 肮脏 糟糕".split(), "很好 满意 喜欢 推荐 干净".split()]
    folder = os.path.join(home, ".paddlenlp", "datasets")
    os.makedirs(folder)
    tokens = set()
    with tarfile.open(os.path.join(folder, "chnsenticorp.tar.gz"), "w:gz") as tar:
        for split, n in (("train", 640), ("dev", 128), ("test", 128)):
            lines = ["label\ttext_a"]
            for _ in range(n):
                label = rng.randint(0, 1)
                words = [rng.choice(neutral) for _ in range(rng.randint(4, 12))]
                for _ in range(rng.randint(1, 3)):
                    words.insert(rng.randrange(len(words) + 1), rng.choice(cues[label]))
                text = "，".join(words) + "。"
                tokens.update(jieba.cut(text))
                lines.append("%d\t%s" % (label, text))
            data = ("\n".join(lines) + "\n").encode("utf-8")
            info = tarfile.TarInfo("chnsenticorp/%s.tsv" % split)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    with open(vocab_path, "w", encoding="utf-8") as f:
        f.write("[PAD]\n[UNK]\n" + "\n".join(sorted(tokens)) + "\n")


@pytest.mark.slow
def test_text_classification_bow_trains_to_the_cue_words(tmp_path):
    if not os.path.isdir(MIRROR) or shutil.which("git") is None:
        pytest.skip("no PaddlePaddle/models mirror (or git) here")
    for module in ("jieba", "six", "requests", "colorama", "colorlog"):
        pytest.importorskip(module)     # the example's and paddlenlp's own imports
    _export(tmp_path, "PaddleNLP/paddlenlp", "PaddleNLP/examples/text_classification/rnn")
    example = tmp_path / "PaddleNLP" / "examples" / "text_classification" / "rnn"
    _chnsenticorp(str(tmp_path / "home"), str(example / "senta_word_dict.txt"))
    env = dict(os.environ, HOME=str(tmp_path / "home"),
               PYTHONPATH=os.pathsep.join([ROOT, str(tmp_path / "PaddleNLP")]),
               JIEBA_CACHE_DIR=str(tmp_path))
    run = subprocess.run(
        [sys.executable, "-m", "refimpl", "run", "train.py", "--network", "bow", "--epochs",
         "2", "--lr", "5e-3", "--batch_size", "32", "--save_dir", str(tmp_path / "ckpt")],
        cwd=str(example), env=env, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    losses = [float(v) for v in re.findall(r"step 20/20 - loss: ([0-9.]+)", run.stdout)]
    accuracy = float(re.search(r"Finally test acc: ([0-9.]+)", run.stdout).group(1))
    # two epochs of 20 batches: the cue words separate the classes
    assert len(losses) == 2 and losses[1] < losses[0] and accuracy >= 0.9, run.stdout
    saved = set(os.listdir(tmp_path / "ckpt"))
    assert {"%s.%s" % (n, ext) for n in ("0", "1", "final") for ext in ("pdparams", "pdopt")} \
        <= saved
