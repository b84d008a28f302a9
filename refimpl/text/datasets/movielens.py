"""Movielens: paddle.dataset.movielens's ratings as a Dataset."""
import numpy as np

from ...dataset import movielens
from ...io import Dataset
from ._files import check_mode, locate_file


class Movielens(Dataset):
    """Samples: a tuple of 1-D arrays [user id], [gender], [age bucket], [job id], [movie id],
    category ids, title word ids, [rating * 2 - 5]; a rating is a test sample when
    RandomState(rand_seed) draws below test_ratio for it, the draws Paddle's global-seeded
    numpy makes (refimpl leaves numpy's global random state alone). Paddle 2.0 caches the
    archive under `sentiment/`, not `movielens/`: that is where refimpl looks too."""

    def __init__(self, data_file=None, mode="train", test_ratio=0.1, rand_seed=0,
                 download=True):
        self.mode = check_mode("Movielens", mode)
        self.test_ratio = test_ratio
        self.rand_seed = rand_seed
        self.data_file = locate_file("Movielens", data_file, movielens.URL, "sentiment",
                                     movielens.MD5, download)
        meta = movielens.meta_of(self.data_file)
        self.movie_info, self.user_info = meta.movies, meta.users
        self.movie_title_dict, self.categories_dict = meta.title_words, meta.categories
        self.data = list(movielens.samples(self.data_file, rand_seed, test_ratio,
                                           self.mode == "test"))

    def __getitem__(self, idx):
        user_id, gender, age, job, movie_id, categories, title, rating = self.data[idx]
        return tuple(np.array(d) for d in ([user_id], [gender], [age], [job], [movie_id],
                                           categories, title, rating))

    def __len__(self):
        return len(self.data)
