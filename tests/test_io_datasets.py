"""paddle.io datasets, samplers, batch samplers and default_collate_fn: hand-derived
values, and DistributedBatchSampler orders recorded from Paddle 3.3.1."""
import numpy as np
import pytest

import refimpl as paddle
from refimpl import io


class Squares(io.Dataset):
    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return np.array([i * i], "int64"), i


class Count(io.IterableDataset):
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        return iter(range(self.n))


def test_dataset_base_classes_name_what_is_missing():
    with pytest.raises(NotImplementedError, match="__getitem__.*Dataset"):
        io.Dataset()[0]
    with pytest.raises(NotImplementedError, match="__len__"):
        len(io.Dataset())
    with pytest.raises(RuntimeError, match="Count is an IterableDataset"):
        Count(3)[0]
    assert list(Count(3)) == [0, 1, 2]


def test_tensor_dataset_rows():
    x, y = np.arange(12).reshape(4, 3), np.arange(4) * 10
    ds = io.TensorDataset([x, y])
    assert len(ds) == 4
    row = ds[2]
    np.testing.assert_array_equal(row[0], [6, 7, 8])
    assert row[1] == 20
    with pytest.raises(ValueError, match=r"same size in dim 0, got sizes \[4, 3\]"):
        io.TensorDataset([x, y[:3]])
    with pytest.raises(TypeError, match="non-empty list"):
        io.TensorDataset(x)
    v = paddle.static.data("v", [4, 3], "float32")
    with pytest.raises(TypeError, match="static-graph Variable"):
        io.TensorDataset([v])


def test_compose_dataset_concatenates_fields():
    ds = io.ComposeDataset([Squares(3), io.TensorDataset([np.arange(3) + 100])])
    sample = ds[2]
    assert len(sample) == 3 and sample[0].tolist() == [4] and sample[1] == 2 \
        and sample[2] == 102
    with pytest.raises(ValueError, match=r"same length, got \[3, 4\]"):
        io.ComposeDataset([Squares(3), Squares(4)])
    with pytest.raises(TypeError, match="IterableDataset"):
        io.ComposeDataset([Squares(3), Count(3)])


def test_chain_dataset_and_subset():
    assert list(io.ChainDataset([Count(2), Count(3)])) == [0, 1, 0, 1, 2]
    with pytest.raises(TypeError, match=r"datasets\[0\] must be a paddle.io.IterableDataset"):
        io.ChainDataset([Squares(2)])
    sub = io.Subset(Squares(5), [4, 0])
    assert len(sub) == 2 and sub[0][1] == 4 and sub[1][1] == 0


def test_random_split_partitions_and_follows_paddle_seed():
    paddle.seed(3)
    parts = io.random_split(Squares(10), [3, 7])
    assert [len(p) for p in parts] == [3, 7]
    seen = sorted(parts[0].indices + parts[1].indices)
    assert seen == list(range(10))
    paddle.seed(3)
    again = io.random_split(Squares(10), [3, 7])
    assert again[0].indices == parts[0].indices
    with pytest.raises(ValueError, match="sum to 9, but the dataset has 10"):
        io.random_split(Squares(10), [3, 6])


def test_sequence_and_random_samplers():
    assert list(io.SequenceSampler(Squares(4))) == [0, 1, 2, 3]
    np.random.seed(5)
    order = list(io.RandomSampler(Squares(6)))
    assert sorted(order) == list(range(6))
    np.random.seed(5)
    assert list(io.RandomSampler(Squares(6))) == order == np.random.RandomState(5)\
        .permutation(6).tolist()
    drawn = list(io.RandomSampler(Squares(3), replacement=True, num_samples=20))
    assert len(drawn) == 20 and set(drawn) <= {0, 1, 2}
    assert list(io.RandomSampler(Squares(3), generator=iter([2, 2, 1, 0]))) == [2, 2, 1]
    with pytest.raises(ValueError, match="only allowed with replacement=True"):
        io.RandomSampler(Squares(3), num_samples=2)
    with pytest.raises(TypeError, match="replacement must be a bool"):
        io.RandomSampler(Squares(3), replacement=1)


def test_weighted_random_sampler():
    np.random.seed(0)
    sampler = io.WeightedRandomSampler([0.0, 1.0, 0.0, 3.0], 200)
    drawn = np.array(list(sampler))
    assert len(sampler) == 200 and set(drawn.tolist()) == {1, 3}
    assert 0.65 < (drawn == 3).mean() < 0.85          # p = 0.75
    distinct = list(io.WeightedRandomSampler([1, 1, 1, 0], 3, replacement=False))
    assert sorted(distinct) == [0, 1, 2]
    rows = io.WeightedRandomSampler(np.array([[1, 0], [0, 1]]), 2)
    assert len(rows) == 4 and list(rows) == [0, 0, 1, 1]
    # Paddle 2.0's test_batch_sampler: bad weights are refused when drawn (AssertionError),
    # bad arguments when made (ValueError)
    too_few = io.WeightedRandomSampler([1, 1, 1, 0], 4, replacement=False)
    with pytest.raises(AssertionError, match="only 3 positive weights"):
        list(too_few)
    with pytest.raises(AssertionError, match="finite and non-negative"):
        list(io.WeightedRandomSampler([1, -1], 1))
    with pytest.raises(AssertionError, match="needs a positive weight"):
        list(io.WeightedRandomSampler([0.0, 0.0], 1))
    with pytest.raises(ValueError, match="replacement must be a bool"):
        io.WeightedRandomSampler([1, 1], 1, replacement=5)
    with pytest.raises(ValueError, match="num_samples must be a positive int"):
        io.WeightedRandomSampler([1, 1], 2.3)


def test_batch_sampler():
    bs = io.BatchSampler(Squares(7), batch_size=3)
    assert list(bs) == [[0, 1, 2], [3, 4, 5], [6]] and len(bs) == 3
    bs = io.BatchSampler(Squares(7), batch_size=3, drop_last=True)
    assert list(bs) == [[0, 1, 2], [3, 4, 5]] and len(bs) == 2
    bs = io.BatchSampler(sampler=io.SequenceSampler(Squares(4)), batch_size=2)
    assert list(bs) == [[0, 1], [2, 3]]
    with pytest.raises(ValueError, match="either dataset or sampler"):
        io.BatchSampler()
    with pytest.raises(ValueError, match="not both"):
        io.BatchSampler(Squares(3), sampler=io.SequenceSampler(Squares(3)))
    with pytest.raises(AssertionError, match="shuffle must be False"):
        io.BatchSampler(sampler=io.RandomSampler(Squares(3)), shuffle=True)
    with pytest.raises(ValueError, match="batch_size must be a positive int, got 0"):
        io.BatchSampler(Squares(3), batch_size=0)
    with pytest.raises(TypeError, match="IterableDataset"):
        io.BatchSampler(Count(3))


# Paddle 3.3.1, DistributedBatchSampler(range(10), batch_size=2, num_replicas=3, rank=r)
PADDLE_PLAIN = {0: [[0, 1], [6, 7]], 1: [[2, 3], [8, 9]], 2: [[4, 5], [0, 1]]}
# ... shuffle=True, two iterations (epoch 0 then 1)
PADDLE_SHUFFLED = {0: ([[6, 1], [1, 7]], [[2, 3], [0, 7]]),
                   1: ([[4, 0], [9, 3]], [[4, 0], [1, 9]]),
                   2: ([[2, 8], [0, 5]], [[1, 6], [8, 5]])}


@pytest.mark.parametrize("rank", [0, 1, 2])
def test_distributed_batch_sampler_matches_paddle(rank):
    s = io.DistributedBatchSampler(list(range(10)), 2, num_replicas=3, rank=rank)
    assert list(s) == PADDLE_PLAIN[rank] and len(s) == 2
    s = io.DistributedBatchSampler(list(range(10)), 2, num_replicas=3, rank=rank, shuffle=True)
    assert (list(s), list(s)) == PADDLE_SHUFFLED[rank] and s.epoch == 2


def test_distributed_batch_sampler_pads_and_covers_every_sample():
    ranks = [list(io.DistributedBatchSampler(list(range(10)), 2, num_replicas=3, rank=r))
             for r in range(3)]
    flat = [i for batches in ranks for batch in batches for i in batch]
    assert len(flat) == 12 and set(flat) == set(range(10))   # padded with 0 and 1
    s = io.DistributedBatchSampler(list(range(11)), 4, num_replicas=2, rank=1, shuffle=True,
                                   drop_last=True)
    s.set_epoch(5)
    assert list(s) == [[0, 4, 8, 1]] and len(s) == 1         # Paddle 3.3.1


@pytest.mark.parametrize("n, replicas", [(1, 1), (7, 2), (130, 3), (512, 1)])
def test_distributed_batch_sampler_shuffles_as_a_fresh_random_state_per_epoch(n, replicas):
    # Paddle's draw: np.random.RandomState(epoch).shuffle of the padded index list
    def expected(epoch):
        indices = list(range(n))
        indices += indices[:-(-n // replicas) * replicas - n]
        np.random.RandomState(epoch).shuffle(indices)
        return indices

    s = io.DistributedBatchSampler(list(range(n)), 1, num_replicas=replicas, rank=0,
                                   shuffle=True)
    for epoch in (0, 1, 2, 17):
        s.set_epoch(epoch)
        got = [batch[0] for batch in s]     # rank 0's: the first of each global batch
        assert got == expected(epoch)[::replicas] and type(got[0]) is int


def test_distributed_batch_sampler_defaults_to_the_mpi_world(monkeypatch):
    from refimpl import distributed
    monkeypatch.setattr(distributed, "get_world_size", lambda: 3)
    monkeypatch.setattr(distributed, "get_rank", lambda: 2)
    s = io.DistributedBatchSampler(list(range(10)), 2)
    assert (s.nranks, s.local_rank) == (3, 2) and list(s) == PADDLE_PLAIN[2]
    with pytest.raises(ValueError, match=r"rank must be an int in \[0, num_replicas=3\)"):
        io.DistributedBatchSampler(list(range(10)), 2, rank=3)


def test_default_collate_fn_nested_structures(paddle_version):
    batch = [{"img": np.full([2], i, "float32"), "meta": (i, 0.5 * i, "s%d" % i)}
             for i in range(3)]
    out = io.default_collate_fn(batch)
    assert out["img"].shape == (3, 2) and out["img"].dtype == np.float32
    ints, floats, names = out["meta"]
    assert ints.dtype == np.int64 and ints.tolist() == [0, 1, 2]
    assert floats.dtype == np.float64 and floats.tolist() == [0.0, 0.5, 1.0]
    assert names == ["s0", "s1", "s2"]
    with pytest.raises(ValueError, match=r"sample\[0\] has different shapes.*\(2,\), \(3,\)"):
        io.default_collate_fn([(np.zeros(2),), (np.zeros(3),)])
    with paddle_version("3"), pytest.raises(ValueError, match="different numbers of fields"):
        io.default_collate_fn([(1, 2), (1,)])
    with pytest.raises(TypeError, match=r"sample\['k'\] is a object"):
        io.default_collate_fn([{"k": object()}])


def test_samples_of_unequal_field_counts_fill_paddle20s_slots(paddle_version):
    """Paddle <= 2.0 (switch collate_unequal_fields): slots grow to the longest sample so
    far; a longer sample opens the new slots with its first fields, the rest go by index."""
    x, y, u, v = (np.array([k], "int64") for k in (1, 2, 3, 4))
    p, q, r, t = (np.full([2], k, "int64") for k in (5, 6, 7, 8))
    with paddle_version("2.0"):
        out = io.default_collate_fn([[x, y], [p, q, r, t], [u, v]])
    assert [a.tolist() for a in out] == [[[1], [3]], [[2], [4]], [[5, 5], [7, 7]],
                                         [[6, 6], [8, 8]]]
    # PaddleRec 2.0's word2vec reader: one list yielded as it grows by three fields
    grown = [[x, p, y], [x, p, y, u, q, v], [x, p, y, u, q, v]]
    with paddle_version("2.0"):
        out = io.default_collate_fn(grown)
    assert [a.shape for a in out] == [(2, 1), (2, 2), (2, 1), (3, 1), (3, 2), (3, 1)]
    assert out[3].reshape(-1).tolist() == [1, 3, 3] and out[5].reshape(-1).tolist() == [2, 4, 4]
    with paddle_version("3"), pytest.raises(ValueError, match="different numbers of fields"):
        io.default_collate_fn([[x, y], [p, q, r, t]])
