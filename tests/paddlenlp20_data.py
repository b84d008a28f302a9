"""Generated data in the formats and cache locations PaddleNLP 2.0's datasets and examples
read (tests/test_paddlenlp20.py; specs/models20.md): nothing is downloaded. `home` is the
HOME the run gets (paddlenlp's DATA_HOME is ~/.paddlenlp/datasets); where the md5 is not
Paddle's, paddle.utils.download.get_path_from_url uses the archive with a warning and
extracts it, as after a download."""
import io
import os
import random
import re
import tarfile


def _tar(path, files):
    """A .tar.gz at `path` holding `files` (name -> text)."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with tarfile.open(path, "w:gz") as tar:
        for name, text in files.items():
            data = text.encode("utf-8")
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))


def chnsenticorp(home, vocab_path):
    """ChnSentiCorp's tar.gz (label TAB text_a, a header line) where paddlenlp looks for it,
    and the example's vocabulary: jieba's tokens of the generated sentences. Each sentence
    carries 1-3 cue words of its label among neutral words."""
    import jieba
    rng = random.Random(0)
    neutral = "酒店 房间 服务 早餐 位置 前台 价格 环境 设施 交通 电脑 屏幕 键盘 内容 入住".split()
    cues = ["很差 失望 讨厌 肮脏 糟糕".split(), "很好 满意 喜欢 推荐 干净".split()]
    tokens, files = set(), {}
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
        files["chnsenticorp/%s.tsv" % split] = "\n".join(lines) + "\n"
    _tar(os.path.join(home, ".paddlenlp", "datasets", "chnsenticorp.tar.gz"), files)
    with open(vocab_path, "w", encoding="utf-8") as f:
        f.write("[PAD]\n[UNK]\n" + "\n".join(sorted(tokens)) + "\n")


def wmt14ende(home):
    """WMT14.en-de.tar.gz where WMT14ende looks: BPE'd train / newstest2013 / newstest2014
    .en / .de and one shared vocab_all.bpe.33708 (<s> <e> <unk> first). The German side is
    the English word by word, e_i -> d_i."""
    rng = random.Random(0)
    words = ["e%d" % i for i in range(24)]
    files = {}
    folder = "WMT14.en-de/wmt14_ende_data_bpe/"
    for name, n in (("train.tok.clean.bpe.33708", 600), ("newstest2013.tok.bpe.33708", 48),
                    ("newstest2014.tok.bpe.33708", 16)):
        src = [[rng.choice(words) for _ in range(rng.randint(3, 9))] for _ in range(n)]
        files[folder + name + ".en"] = "".join(" ".join(s) + "\n" for s in src)
        files[folder + name + ".de"] = "".join(" ".join("d" + w[1:] for w in s) + "\n"
                                              for s in src)
    files[folder + "vocab_all.bpe.33708"] = "\n".join(
        ["<s>", "<e>", "<unk>"] + words + ["d" + w[1:] for w in words]) + "\n"
    _tar(os.path.join(home, ".paddlenlp", "datasets", "machine_translation", "WMT14ende",
                      "WMT14.en-de.tar.gz"), files)


def transformer_config(base, out):
    """transformer.base.yaml with a tiny model (d_model 32, 2 layers, 2 heads, no
    dropout), on the CPU, 30 epochs of batches of 512 tokens, beam 3."""
    with open(base) as f:
        text = f.read()
    for key, value in (("use_gpu", "False"), ("random_seed", "1"), ("epoch", "30"),
                       ("batch_size", "512"), ("print_step", "50"), ("save_step", "100"),
                       ("warmup_steps", "40"), ("learning_rate", "1.0"),
                       ("d_model", "32"), ("d_inner_hid", "64"), ("n_head", "2"),
                       ("n_layer", "2"), ("max_length", "32"), ("beam_size", "3"),
                       ("max_out_len", "16"), ("dropout", "0.0")):
        text, n = re.subn(r"(?m)^%s: .*$" % key, "%s: %s" % (key, value), text)
        assert n == 1, key
    with open(out, "w") as f:
        f.write(text)


SST_NEUTRAL = ("the movie film story plot actors scenes music ending director script "
               "characters camera dialogue pace").split()
SST_CUES = ["dull boring awful bad tedious".split(), "great moving charming good funny".split()]


def sst2(home):
    """SST.zip where GlueSST2 looks: SST-2/train.tsv, dev.tsv (`sentence\\tlabel`, a header)
    and test.tsv (`index\\tsentence`); each sentence carries 1-2 cue words of its label."""
    import zipfile
    rng = random.Random(1)
    folder = os.path.join(home, ".paddlenlp", "datasets", "glue")
    os.makedirs(folder, exist_ok=True)
    with zipfile.ZipFile(os.path.join(folder, "SST.zip"), "w") as z:
        for split, n in (("train", 320), ("dev", 64), ("test", 32)):
            lines = ["index\tsentence" if split == "test" else "sentence\tlabel"]
            for i in range(n):
                label = rng.randint(0, 1)
                words = [rng.choice(SST_NEUTRAL) for _ in range(rng.randint(3, 8))]
                for _ in range(rng.randint(1, 2)):
                    words.insert(rng.randrange(len(words) + 1), rng.choice(SST_CUES[label]))
                lines.append("%d\t%s ." % (i, " ".join(words)) if split == "test"
                             else "%s .\t%d" % (" ".join(words), label))
            z.writestr("SST-2/%s.tsv" % split, "\n".join(lines) + "\n")


def sst2_vocab(path):
    with open(path, "w") as f:
        f.write("\n".join(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "."] + SST_NEUTRAL
                          + SST_CUES[0] + SST_CUES[1]) + "\n")


def lac(folder):
    """The lexical_analysis data folder: word.dic / tag.dic (`id\\tentry`), q2b.dic (`from\\tto`),
    train.tsv / test.tsv (a header, then chars joined by \\002 TAB their tags) and infer.tsv
    (raw lines). Words of 1-3 chars whose type (n, v, a, d) is a fixed function of the word,
    tagged TYPE-B, TYPE-I."""
    rng = random.Random(2)
    chars = [chr(0x4e00 + 37 * i) for i in range(40)]
    kinds = "nvad"
    words = []
    for _ in range(60):
        word = "".join(rng.choice(chars) for _ in range(rng.randint(1, 3)))
        words.append((word, kinds[sum(map(ord, word)) % 4]))
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "word.dic"), "w", encoding="utf-8") as f:
        f.write("".join("%d\t%s\n" % (i, c) for i, c in enumerate(chars + ["OOV"])))
    tags = [k + s for k in kinds for s in ("-B", "-I")] + ["O"]
    with open(os.path.join(folder, "tag.dic"), "w", encoding="utf-8") as f:
        f.write("".join("%d\t%s\n" % (i, t) for i, t in enumerate(tags)))
    with open(os.path.join(folder, "q2b.dic"), "w", encoding="utf-8") as f:
        f.write("\u3000\t \n\uff01\t!\n")
    for split, n in (("train", 600), ("test", 100), ("infer", 10)):
        lines = [] if split == "infer" else ["text_a\tlabel"]
        for _ in range(n):
            cs, ts = [], []
            for word, kind in (rng.choice(words) for _ in range(rng.randint(3, 8))):
                cs += list(word)
                ts += [kind + "-B"] + [kind + "-I"] * (len(word) - 1)
            lines.append("".join(cs) if split == "infer" else
                         "%s\t%s" % ("\002".join(cs), "\002".join(ts)))
        with open(os.path.join(folder, split + ".tsv"), "w", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n")


def iwslt15(home):
    """iwslt15.en-vi.tar.gz where IWSLT15 looks: train / tst2012 / tst2013 .en / .vi and
    vocab.en / vocab.vi (<unk> <s> </s> first); the target is the source word by word."""
    rng = random.Random(3)
    words = ["w%d" % i for i in range(30)]
    files = {}
    for name, n in (("train", 800), ("tst2012", 64), ("tst2013", 64)):
        src = [[rng.choice(words) for _ in range(rng.randint(3, 10))] for _ in range(n)]
        files["iwslt15.en-vi/%s.en" % name] = "".join(" ".join(s) + "\n" for s in src)
        files["iwslt15.en-vi/%s.vi" % name] = "".join(
            " ".join("v" + w[1:] for w in s) + "\n" for s in src)
    for lang, first in (("en", "w"), ("vi", "v")):
        files["iwslt15.en-vi/vocab.%s" % lang] = "\n".join(
            ["<unk>", "<s>", "</s>"] + [first + w[1:] for w in words]) + "\n"
    _tar(os.path.join(home, ".paddlenlp", "datasets", "machine_translation", "IWSLT15",
                      "iwslt15.en-vi.tar.gz"), files)


def ptb(folder):
    """ptb.{train,valid,test}.txt in `folder`: sentences of a first-order Markov chain over
    300 words (each word has 3 likely successors)."""
    rng = random.Random(4)
    words = ["t%d" % i for i in range(300)]
    successors = {w: rng.sample(words, 3) for w in words}
    os.makedirs(folder, exist_ok=True)
    for split, n in (("train", 1500), ("valid", 150), ("test", 150)):
        lines = []
        for _ in range(n):
            w = rng.choice(words)
            sentence = [w]
            for _ in range(rng.randint(4, 14)):
                w = rng.choice(successors[w]) if rng.random() < 0.9 else rng.choice(words)
                sentence.append(w)
            lines.append(" " + " ".join(sentence) + " ")
        with open(os.path.join(folder, "ptb.%s.txt" % split), "w") as f:
            f.write("\n".join(lines) + "\n")


def lcqmc(home, vocab_path):
    """lcqmc.tar.gz in DATA_HOME (lcqmc/{train,dev,test}.tsv, `text_a\\ttext_b\\tlabel` with a
    header): question pairs over 5 topics, label 1 when both ask about the same topic; the
    example's vocabulary is jieba's tokens of the generated text."""
    import jieba
    rng = random.Random(5)
    topics = ["酒店 房间 入住", "电脑 屏幕 键盘", "手机 电池 充电", "火车 车票 时间", "天气 下雨 温度"]
    topics = [t.split() for t in topics]
    asks = "怎么样 多少钱 好不好 在哪里 怎么办".split()
    tokens, files = set(), {}
    for split, n in (("train", 640), ("dev", 128), ("test", 128)):
        lines = ["text_a\ttext_b\tlabel"]
        for _ in range(n):
            a = rng.randrange(5)
            label = rng.randint(0, 1)
            b = a if label else (a + rng.randint(1, 4)) % 5
            qa = rng.choice(topics[a]) + rng.choice(topics[a]) + rng.choice(asks)
            qb = rng.choice(topics[b]) + rng.choice(asks) + rng.choice(topics[b])
            tokens.update(jieba.cut(qa))
            tokens.update(jieba.cut(qb))
            lines.append("%s\t%s\t%d" % (qa, qb, label))
        files["lcqmc/%s.tsv" % split] = "\n".join(lines) + "\n"
    _tar(os.path.join(home, ".paddlenlp", "datasets", "lcqmc.tar.gz"), files)
    with open(vocab_path, "w", encoding="utf-8") as f:
        f.write("[PAD]\n[UNK]\n" + "\n".join(sorted(tokens)) + "\n")


def embedding(home, vocab_path, dict_path):
    """w2v.baidu_encyclopedia.target.word-word.dim300.npz where TokenEmbedding looks (arrays
    `vocab` [N] and `embedding` [N, 300] float32, N(0, 0.1)) over the ChnSentiCorp
    vocabulary (its [PAD] / [UNK] left out) plus 20 words; dict.txt is that vocabulary."""
    import numpy as np
    with open(vocab_path, encoding="utf-8") as f:
        words = [w for w in f.read().split("\n") if w and w not in ("[PAD]", "[UNK]")]
    vocab = np.array(words + ["词%d" % i for i in range(20)])
    folder = os.path.join(home, ".paddlenlp", "models", "embeddings")
    os.makedirs(folder, exist_ok=True)
    np.savez(os.path.join(folder, "w2v.baidu_encyclopedia.target.word-word.dim300.npz"),
             vocab=vocab, embedding=np.random.RandomState(6).normal(
                 0, 0.1, [len(vocab), 300]).astype("float32"))
    with open(dict_path, "w", encoding="utf-8") as f:
        f.write("[PAD]\n[UNK]\n" + "\n".join(words) + "\n")
