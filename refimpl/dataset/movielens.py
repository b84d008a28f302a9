"""MovieLens 1M: ml-1m.zip with ml-1m/movies.dat (id::Title (year)::Genre|Genre),
users.dat (id::gender::age::occupation::zip) and ratings.dat (user::movie::rating::time),
latin-1 text. Samples: [user id, gender (0 male, 1 female), age bucket, job id, movie id,
category ids, title word ids, [rating * 2 - 5]]; a rating is a test sample when
numpy's RandomState(0) draws below test_ratio for it, as Paddle's reader splits."""
import functools
import re
import zipfile

import numpy as np

from . import common

__all__ = ["train", "test", "get_movie_title_dict", "max_movie_id", "max_user_id",
           "age_table", "movie_categories", "max_job_id", "user_info", "movie_info"]

URL = "https://dataset.bj.bcebos.com/movielens%2Fml-1m.zip"
MD5 = "c4d9eecfca2ab87c1945afe126590906"
age_table = [1, 18, 25, 35, 45, 50, 56]


class MovieInfo:
    def __init__(self, index, categories, title):
        self.index = int(index)
        self.categories = categories
        self.title = title

    def value(self, meta=None):
        """[id, category ids, title word ids] numbered by `meta` (default: the cached
        archive's)."""
        meta = meta or _meta()
        return [self.index, [meta.categories[c] for c in self.categories],
                [meta.title_words[w.lower()] for w in self.title.split()]]

    def __repr__(self):
        return "<MovieInfo id(%d), title(%s), categories(%s)>" % (self.index, self.title,
                                                                    self.categories)


class UserInfo:
    def __init__(self, index, gender, age, job_id):
        self.index = int(index)
        self.is_male = gender == "M"
        self.age = age_table.index(int(age))
        self.job_id = int(job_id)

    def value(self):
        return [self.index, 0 if self.is_male else 1, self.age, self.job_id]

    def __repr__(self):
        return "<UserInfo id(%d), gender(%s), age(%d), job(%d)>" % (
            self.index, "M" if self.is_male else "F", age_table[self.age], self.job_id)


class _Meta:
    """Movies, users, and the title-word and category ids (sorted: Paddle numbers them
    in set order, which changes with Python's string hashing)."""

    def __init__(self, path):
        title = re.compile(r"^(.*)\((\d+)\)$")
        self.movies, self.users = {}, {}
        with zipfile.ZipFile(path) as package:
            for line in _lines(package, "ml-1m/movies.dat"):
                movie_id, name, categories = line.split("::")
                self.movies[int(movie_id)] = MovieInfo(movie_id, categories.split("|"),
                                                       title.match(name).group(1))
            for line in _lines(package, "ml-1m/users.dat"):
                uid, gender, age, job, _ = line.split("::")
                self.users[int(uid)] = UserInfo(uid, gender, age, job)
        words = {w.lower() for m in self.movies.values() for w in m.title.split()}
        self.title_words = {w: i for i, w in enumerate(sorted(words))}
        categories = {c for m in self.movies.values() for c in m.categories}
        self.categories = {c: i for i, c in enumerate(sorted(categories))}


def _lines(package, name):
    with package.open(name) as f:
        for line in f:
            yield line.decode("latin-1").strip()


_loaded = {}


def meta_of(path):
    """The movies, users and id tables of the archive at `path` (read once)."""
    if path not in _loaded:
        _loaded[path] = _Meta(path)
    return _loaded[path]


def _meta():
    return meta_of(common.download(URL, "movielens", MD5))


def samples(path, rand_seed=0, test_ratio=0.1, is_test=False):
    """The samples of the archive at `path`, split as Paddle does."""
    meta = meta_of(path)
    rng = np.random.RandomState(rand_seed)
    with zipfile.ZipFile(path) as package:
        for line in _lines(package, "ml-1m/ratings.dat"):
            if (rng.random_sample() < test_ratio) == is_test:
                uid, movie_id, rating, _ = line.split("::")
                yield (meta.users[int(uid)].value() +
                       meta.movies[int(movie_id)].value(meta) + [[float(rating) * 2 - 5.0]])


def _reader_creator(**kwargs):
    return lambda: samples(common.download(URL, "movielens", MD5), **kwargs)


train = functools.partial(_reader_creator, is_test=False)
test = functools.partial(_reader_creator, is_test=True)


def get_movie_title_dict():
    return _meta().title_words


def max_movie_id():
    return max(_meta().movies)


def max_user_id():
    return max(_meta().users)


def max_job_id():
    return max(u.job_id for u in _meta().users.values())


def movie_categories():
    return _meta().categories


def user_info():
    return _meta().users


def movie_info():
    return _meta().movies


def fetch():
    common.fetch("movielens", (URL, MD5))
