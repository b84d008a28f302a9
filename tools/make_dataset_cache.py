"""Fill Paddle's dataset cache with small generated files in the real formats, so that
Paddle's own tests that read paddle.dataset's MNIST, UCI housing, IMDB, CIFAR-10 / 100,
imikolov (PTB), WMT14, WMT16, MovieLens, CoNLL-2005 and VOC2012 run on a machine without a
network (refimpl downloads nothing: specs/dataset.md).

    python tools/make_dataset_cache.py [--home DIR] [--force]

DIR defaults to ~/.cache/paddle/dataset (paddle.dataset.common.DATA_HOME). The values are
generated, small and learnable: the files let the tests' programs run and compare refimpl
with itself (dygraph with static, one place with several), and let the book tests' training
loops reach their loss / accuracy thresholds (UCI housing's price is a linear function of
its features plus noise; an MNIST image is its digit's fixed template plus noise). Files
already there are kept unless --force. Each is written atomically (a temporary file, then rename).
"""
import argparse
import gzip
import io
import os
import pickle
import struct
import tarfile
import tempfile
import zipfile

import numpy as np

MNIST = {"train": 9600, "t10k": 1600}            # images per file (the real: 60000 / 10000);
# multiples of 100: Paddle 1.8.5's reader unpacks the idx files 100 images at a time
CIFAR_BATCH = 1024                                # images per batch file (the real: 10000)
IMDB_DOCS = 200                                   # documents per split and label
IMDB_WORDS = ["good", "bad", "movie", "film", "plot", "actor", "great", "boring", "the",
              "a", "and", "was", "story", "fun", "slow", "best", "worst", "scene"]
IMIKOLOV_WORDS = 40                               # the vocabulary (the real PTB: 10000)
WMT14_WORDS = 30                                  # words per dictionary (the real: 30000)
MOVIELENS_USERS, MOVIELENS_MOVIES, MOVIELENS_RATINGS = 60, 400, 6000  # (6040, 3883, 10 ** 6)
MOVIELENS_TITLE = 11                              # words per title: 4400 title words (~5000)
CONLL05_WORDS, CONLL05_VERBS, CONLL05_SENTENCES = 40, 8, 300           # (44068, 3162, 5267)
WMT16_WORDS = 30                                  # words per language (the real: 11250, 19220)
WMT16_PAIRS = {"train": 200, "test": 60, "val": 40}                  # (29000, 1000, 1014)
VOC_SIZE = (24, 32)                               # image height, width (the real: ~500 x 375)


def _write(path, data, force):
    if os.path.exists(path) and not force:
        print("kept     %s" % path)
        return
    os.makedirs(os.path.dirname(path), exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".partial-")
    with os.fdopen(fd, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    print("wrote    %s (%d bytes)" % (path, len(data)))


def _add_members(tar, members):
    for name, data in members.items():
        info = tarfile.TarInfo(name)
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))


def _tar_gz(members):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        _add_members(tar, members)
    return buf.getvalue()


def mnist(rng):
    """The four idx files: images [n, 28, 28] uint8 (magic 2051), labels uint8 (2049)."""
    files = {}
    templates = rng.randint(0, 256, (10, 28, 28))
    for split, n in MNIST.items():
        labels = rng.randint(0, 10, n).astype(np.uint8)
        noise = rng.randint(-96, 97, (n, 28, 28))
        images = np.clip(templates[labels] + noise, 0, 255).astype(np.uint8)
        files["mnist/%s-images-idx3-ubyte.gz" % split] = gzip.compress(
            struct.pack(">IIII", 2051, n, 28, 28) + images.tobytes())
        files["mnist/%s-labels-idx1-ubyte.gz" % split] = gzip.compress(
            struct.pack(">II", 2049, n) + labels.tobytes())
    return files


def uci_housing(rng):
    """housing.data: 506 rows of 13 features and the price, whitespace-separated; the price
    is a linear function of the features (as paddle.dataset normalises them) plus noise."""
    features = rng.uniform(0, 100, (506, 13))
    weights = rng.uniform(-3, 3, 13)
    normalised = (features - features.mean(axis=0)) / (features.max(axis=0) - features.min(axis=0))
    price = 22.5 + normalised @ weights + rng.normal(0, 1, 506)
    rows = np.hstack([features, price[:, None]])
    text = "\n".join(" ".join("%.4f" % v for v in row) for row in rows) + "\n"
    return {"uci_housing/housing.data": text.encode()}


def imdb(rng):
    """imdb%2FaclImdb_v1.tar.gz: aclImdb/{train,test}/{pos,neg}/<id>_<rating>.txt."""
    members = {}
    for split in ("train", "test"):
        for label in ("pos", "neg"):
            for i in range(IMDB_DOCS):
                words = rng.choice(IMDB_WORDS, rng.randint(5, 40))
                members["aclImdb/%s/%s/%d_%d.txt" % (split, label, i, rng.randint(1, 11))] = \
                    (" ".join(words) + ".").encode()
    return {"imdb/imdb%2FaclImdb_v1.tar.gz": _tar_gz(members)}


def imikolov(rng):
    """imikolov%2Fsimple-examples.tgz: ./simple-examples/data/ptb.{train,valid,test}.txt, one
    sentence a line. A sentence is a stretch of one fixed cycle of IMIKOLOV_WORDS words
    (from a random start), so each word follows from the ones before it; every word is
    seen more than build_dict's default 50 times."""
    cycle = ["w%02d" % i for i in range(IMIKOLOV_WORDS)]
    members = {}
    # ptb.test.txt (2.0's Imikolov(mode='test') reads it) draws from its own generator,
    # leaving the shared one's stream, so every other file, as it was without it
    for split, count, draw in (("train", 400, rng), ("valid", 100, rng),
                               ("test", 100, np.random.RandomState(1))):
        sentences = []
        for _ in range(count):
            start, length = draw.randint(0, len(cycle)), draw.randint(6, 16)
            sentences.append(" ".join(cycle[(start + k) % len(cycle)] for k in range(length)))
        members["./simple-examples/data/ptb.%s.txt" % split] = \
            ("\n".join(" %s " % s for s in sentences) + "\n").encode()
    return {"imikolov/imikolov%2Fsimple-examples.tgz": _tar_gz(members)}


def _mapped_pairs(rng, words, count, source, target):
    """count lines 'source sentence<TAB>target sentence' of 3 to 8 random words, the target
    the source's words with the prefix `target` for `source`."""
    pairs = []
    for _ in range(count):
        sentence = rng.choice(words, rng.randint(3, 9))
        pairs.append("%s\t%s" % (" ".join(source + w for w in sentence),
                                  " ".join(target + w for w in sentence)))
    return ("\n".join(pairs) + "\n").encode()


def wmt14(rng):
    """wmt14.tgz (Paddle's shrunk WMT14 en -> fr): src.dict and trg.dict (one word a line,
    '<s>' '<e>' '<unk>' first) and train/train, test/test, gen/gen ('source<TAB>target' a
    line). The target sentence is the source's words mapped one for one ("sNN" -> "tNN")."""
    words = ["%02d" % i for i in range(WMT14_WORDS)]
    members = {name + ".dict": "\n".join(["<s>", "<e>", "<unk>"] + [side + w for w in words])
               .encode() + b"\n" for name, side in (("src", "s"), ("trg", "t"))}
    for split, count in (("train/train", 200), ("test/test", 40), ("gen/gen", 40)):
        members[split] = _mapped_pairs(rng, words, count, "s", "t")
    return {"wmt14/wmt14.tgz": _tar_gz(members)}


def movielens(rng):
    """movielens%2Fml-1m.zip: ml-1m/movies.dat (id::Title (year)::Genre|Genre),
    users.dat (id::gender::age::occupation::zip), ratings.dat (user::movie::rating::time),
    latin-1. Movie ids spread over the real range (1..3952), ML-1M's 18 genres, titles of
    MOVIELENS_TITLE words each never repeated (as many title words as the real: the book
    test infers for movie 783, genres 8..10, title word 4140). A rating is 3 plus the
    user's and the movie's leaning (each -1, 0 or 1)."""
    genres = ["Action", "Adventure", "Animation", "Children's", "Comedy", "Crime",
              "Documentary", "Drama", "Fantasy", "Film-Noir", "Horror", "Musical",
              "Mystery", "Romance", "Sci-Fi", "Thriller", "War", "Western"]
    movie_ids = sorted(set(rng.choice(np.arange(1, 3953), MOVIELENS_MOVIES - 2,
                                      replace=False)) | {783, 3952})
    movie_lean = {m: rng.randint(-1, 2) for m in movie_ids}
    user_lean = rng.randint(-1, 2, MOVIELENS_USERS + 1)
    movies, users, ratings = [], [], []
    for k, m in enumerate(movie_ids):
        title = " ".join("w%04d" % (k * MOVIELENS_TITLE + j) for j in range(MOVIELENS_TITLE))
        movies.append("%d::%s (%d)::%s" % (m, title, rng.randint(1950, 2001), "|".join(
            sorted(set(rng.choice(genres, rng.randint(1, 4)))))))
    for u in range(1, MOVIELENS_USERS + 1):
        users.append("%d::%s::%d::%d::%05d" % (u, "MF"[rng.randint(2)], rng.choice(
            [1, 18, 25, 35, 45, 50, 56]), rng.randint(0, 21), rng.randint(0, 99999)))
    for _ in range(MOVIELENS_RATINGS):
        u, m = rng.randint(1, MOVIELENS_USERS + 1), movie_ids[rng.randint(len(movie_ids))]
        ratings.append("%d::%d::%d::%d" % (u, m, 3 + user_lean[u] + movie_lean[m],
                                           978300000 + rng.randint(0, 10 ** 6)))
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as package:
        for name, rows in (("movies", movies), ("users", users), ("ratings", ratings)):
            package.writestr("ml-1m/%s.dat" % name, ("\n".join(rows) + "\n").encode("latin-1"))
    # paddle.dataset.movielens keeps it in movielens/, Paddle 2.0's text.datasets.Movielens
    # in sentiment/ (the module name its download passes)
    return {module + "/movielens%2Fml-1m.zip": buf.getvalue()
            for module in ("movielens", "sentiment")}


def conll05(rng):
    """conll05st: the test set conll05st-tests.tar.gz (gzipped test.wsj words, one word a
    line, and props, the verb column then one column per predicate; an empty line ends a
    sentence), wordDict.txt / verbDict.txt / targetDict.txt (one entry a line) and emb (a
    16-byte header, then float32 [len(wordDict), 32]). A sentence is nouns (A0), one verb
    (V), nouns (A1): the roles follow from the words."""
    nouns = ["n%02d" % i for i in range(CONLL05_WORDS)]
    verbs = ["v%02d" % i for i in range(CONLL05_VERBS)]
    words_text, props_text = [], []

    def role(tag, length):
        if length == 1:
            return ["(%s*)" % tag]
        return ["(%s*" % tag] + ["*"] * (length - 2) + ["*)"]
    for _ in range(CONLL05_SENTENCES):
        before, after = rng.randint(1, 4), rng.randint(1, 5)
        verb = verbs[rng.randint(len(verbs))]
        sentence = list(rng.choice(nouns, before)) + [verb] + list(rng.choice(nouns, after))
        column = role("A0", before) + ["(V*)"] + role("A1", after)
        for i, (word, prop) in enumerate(zip(sentence, column)):
            words_text.append(word)
            props_text.append("%s %s" % (verb if i == before else "-", prop))
        words_text.append("")
        props_text.append("")
    release = "conll05st-release/test.wsj/"
    tests = _tar_gz({release + "words/test.wsj.words.gz":
                     gzip.compress(("\n".join(words_text) + "\n").encode()),
                     release + "props/test.wsj.props.gz":
                     gzip.compress(("\n".join(props_text) + "\n").encode())})
    word_dict = ["<unk>", "bos", "eos"] + nouns + verbs
    labels = ["B-A0", "I-A0", "B-A1", "I-A1", "B-V", "I-V", "O"]
    embedding = rng.normal(0, 0.1, (len(word_dict), 32)).astype(np.float32)
    return {"conll05st/conll05st-tests.tar.gz": tests,
            "conll05st/conll05st%2FwordDict.txt": ("\n".join(word_dict) + "\n").encode(),
            "conll05st/conll05st%2FverbDict.txt": ("\n".join(verbs) + "\n").encode(),
            "conll05st/conll05st%2FtargetDict.txt": ("\n".join(labels) + "\n").encode(),
            "conll05st/conll05st%2Femb": bytes(16) + embedding.tobytes()}


def wmt16(rng):
    """wmt16/wmt16.tar.gz (Paddle's Multi30K English <-> German): wmt16/train, wmt16/test,
    wmt16/val, 'english<TAB>german' a line; the readers build the dictionaries from
    wmt16/train. The German sentence is the English one's words mapped one for one
    ("eNN" -> "dNN")."""
    words = ["%02d" % i for i in range(WMT16_WORDS)]
    members = {}
    for split, count in WMT16_PAIRS.items():
        members["wmt16/" + split] = _mapped_pairs(rng, words, count, "e", "d")
    return {"wmt16/wmt16.tar.gz": _tar_gz(members)}


def voc2012(rng):
    """voc2012/VOCtrainval_11-May-2012.tar (uncompressed, as the real) with the stub's
    contents Paddle's own test downloads (voc2012_stub): VOCdevkit/VOC2012/ImageSets/
    Segmentation/{trainval,train,val}.txt naming 3, 2 and 1 images, each a
    JPEGImages/<name>.jpg (RGB) and its SegmentationClass/<name>.png (palette image of class
    indices, 255 on the outlines, as VOC's). The class of a pixel is its image's colour."""
    from PIL import Image
    root = "VOCdevkit/VOC2012/"
    names = ["2007_%06d" % i for i in range(3)]
    members = {root + "ImageSets/Segmentation/%s.txt" % split: ("\n".join(chosen) + "\n")
               .encode() for split, chosen in (("trainval", names), ("train", names[:2]),
                                               ("val", names[2:]))}
    palette = rng.randint(0, 256, (21, 3)).astype(np.uint8)
    for name in names:
        height, width = VOC_SIZE
        label = np.zeros((height, width), np.uint8)
        cls = rng.randint(1, 21)
        top, left = rng.randint(0, height // 2), rng.randint(0, width // 2)
        label[top:top + height // 2, left:left + width // 2] = cls
        edge = np.zeros_like(label, bool)
        edge[1:] |= label[1:] != label[:-1]
        edge[:, 1:] |= label[:, 1:] != label[:, :-1]
        image = np.clip(palette[label] + rng.randint(-20, 21, (height, width, 3)), 0, 255)
        label[edge] = 255
        jpg, png = io.BytesIO(), io.BytesIO()
        Image.fromarray(image.astype(np.uint8)).save(jpg, "JPEG", quality=90)
        indexed = Image.fromarray(label, "P")
        indexed.putpalette(np.resize(palette, (256, 3)).tobytes())
        indexed.save(png, "PNG")
        members[root + "JPEGImages/%s.jpg" % name] = jpg.getvalue()
        members[root + "SegmentationClass/%s.png" % name] = png.getvalue()
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        _add_members(tar, members)
    return {"voc2012/VOCtrainval_11-May-2012.tar": buf.getvalue()}


def cifar(rng):
    """cifar-10-python.tar.gz: data_batch_1..5 and test_batch, each a pickled dict of
    b'data' [n, 3072] uint8 and b'labels' (plain data: refimpl reads it without running
    pickled code)."""
    members = {}
    for name in ["data_batch_%d" % i for i in range(1, 6)] + ["test_batch"]:
        batch = {b"data": rng.randint(0, 256, (CIFAR_BATCH, 3072)).astype(np.uint8),
                 b"labels": [int(v) for v in rng.randint(0, 10, CIFAR_BATCH)]}
        members["cifar-10-batches-py/" + name] = pickle.dumps(batch, protocol=2)
    return {"cifar/cifar-10-python.tar.gz": _tar_gz(members)}


def cifar100(rng):
    """cifar-100-python.tar.gz: cifar-100-python/train and /test, each a pickled dict of
    b'data' [n, 3072] uint8, b'fine_labels' (0..99) and b'coarse_labels' (0..19), and
    cifar-100-python/meta, the label names."""
    members = {}
    for name in ("train", "test"):
        fine = [int(v) for v in rng.randint(0, 100, CIFAR_BATCH)]
        batch = {b"data": rng.randint(0, 256, (CIFAR_BATCH, 3072)).astype(np.uint8),
                 b"fine_labels": fine, b"coarse_labels": [v // 5 for v in fine]}
        members["cifar-100-python/" + name] = pickle.dumps(batch, protocol=2)
    members["cifar-100-python/meta"] = pickle.dumps(
        {b"fine_label_names": ["f%02d" % k for k in range(100)],
         b"coarse_label_names": ["c%02d" % k for k in range(20)]}, protocol=2)
    return {"cifar/cifar-100-python.tar.gz": _tar_gz(members)}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--home", default=os.path.expanduser("~/.cache/paddle/dataset"))
    parser.add_argument("--force", action="store_true", help="replace files already there")
    args = parser.parse_args(argv)
    rng = np.random.RandomState(0)
    for make in (mnist, uci_housing, imdb, cifar, imikolov, wmt14, movielens, conll05, wmt16,
                 voc2012, cifar100):
        for name, data in make(rng).items():
            _write(os.path.join(args.home, name), data, args.force)


if __name__ == "__main__":
    main()
