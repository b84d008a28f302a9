"""Run under `mpirun -n N python -m refimpl run` by tests/test_distributed_mpi.py:
hypothesis draws models (MLPs and CNNs, with SyncBatchNorm or not, a parameter left unused
or not), optimizers, bucket and piece sizes, gradient accumulation under no_sync and how the
buckets are summed (through shared memory, the default on one machine, or MPI's allreduce,
as across machines); every rank
trains a DataParallel copy on its shard of each global batch and, alone, a reference copy
on the whole batch, and checks that both end with the same parameters and statistics.

The examples are derandomized, so every rank draws the same ones; shrinking is off, so a
failing rank raises at once and `python -m refimpl run` aborts the job with the
falsifying example in its output. Argument: the number of examples.
"""
import sys

import numpy as np
import paddle
import paddle.distributed as dist
import paddle.nn as nn
from hypothesis import HealthCheck, Phase, given, settings, strategies as st

from refimpl.distributed import reducer
from refimpl.parallel import node_sum

dist.init_parallel_env()
paddle.set_default_dtype("float64")    # so that the comparison can be tight
RANK, WORLD = dist.get_rank(), dist.get_world_size()
SHARED_USABLE = node_sum.usable
OPTIMIZERS = {
    "sgd": lambda ps: paddle.optimizer.SGD(0.1, parameters=ps),
    "momentum": lambda ps: paddle.optimizer.Momentum(0.05, 0.9, parameters=ps),
    "adam": lambda ps: paddle.optimizer.Adam(0.01, parameters=ps),
    "rmsprop": lambda ps: paddle.optimizer.RMSProp(0.01, parameters=ps),
}


class Net(nn.Layer):
    """An MLP on [B, 6] or a CNN on [B, 2, 6, 6]; `norm` picks the batch norm class
    (SyncBatchNorm for the DataParallel copy, BatchNorm for the reference), `unused` adds
    a Linear the forward never calls."""

    def __init__(self, cfg, norm):
        super().__init__()
        layers, width = [], 6
        if cfg["kind"] == "cnn":
            # no bias before a batch norm: its gradient is rounding noise, which Adam
            # and RMSProp would blow up into steps
            layers += [nn.Conv2D(2, cfg["channels"], 3, padding=1,
                                 bias_attr=False if cfg["batch_norm"] else None)]
            if cfg["batch_norm"]:
                layers.append(norm(cfg["channels"]))
            layers += [nn.ReLU(), nn.MaxPool2D(2), nn.Flatten()]
            width = cfg["channels"] * 9
        for hidden in cfg["hidden"]:
            normed = cfg["batch_norm"] and cfg["kind"] == "mlp"
            layers.append(nn.Linear(width, hidden, bias_attr=False if normed else None))
            if normed:
                layers.append(norm(hidden))
            layers.append(nn.Tanh())
            width = hidden
        layers.append(nn.Linear(width, 3))
        self.body = nn.Sequential(*layers)
        self.unused = nn.Linear(2, 2) if cfg["unused"] else None

    def forward(self, x):
        return self.body(x)


def plain_norm(kind):
    """What SyncBatchNorm is on one process."""
    return nn.BatchNorm2D if kind == "cnn" else nn.BatchNorm1D


@st.composite
def configs(draw):
    return {
        "kind": draw(st.sampled_from(["mlp", "cnn"])),
        "channels": draw(st.integers(1, 4)),
        "hidden": draw(st.lists(st.integers(1, 8), min_size=0, max_size=2)),
        "batch_norm": draw(st.booleans()),
        "unused": draw(st.booleans()),
        "optimizer": draw(st.sampled_from(sorted(OPTIMIZERS))),
        "steps": draw(st.integers(1, 3)),
        "accumulate": draw(st.booleans()),
        # 1e-4 MB: about one parameter per bucket; 25 MB: one bucket
        "comm_buffer_size": draw(st.sampled_from([1e-4, 1e-3, 25])),
        "last_comm_buffer_size": draw(st.sampled_from([1e-4, 1])),
        # pieces a bucket is summed in: about one parameter each, a few, the default
        "piece_bytes": draw(st.sampled_from([1, 256, reducer.PIECE_BYTES])),
        "seed": draw(st.integers(0, 1000)),
        "sum": draw(st.sampled_from(["shared", "allreduce"])),
    }


def batch(cfg, rng, size):
    shape = (size, 6) if cfg["kind"] == "mlp" else (size, 2, 6, 6)
    x = rng.randn(*shape)
    y = rng.randint(0, 3, (size, 1)).astype("int64")
    return x, y


def step(model, opt, x, y, cfg, no_sync=None):
    """One optimizer step; with `accumulate`, the batch in two halves, the first one's
    gradient kept local (no_sync) when the model is a DataParallel."""
    halves = [slice(0, len(x) // 2), slice(len(x) // 2, len(x))] if cfg["accumulate"] \
        else [slice(0, len(x))]
    for i, part in enumerate(halves):
        local = no_sync() if no_sync is not None and i < len(halves) - 1 else _nothing()
        with local:
            loss = nn.functional.cross_entropy(model(paddle.to_tensor(x[part])),
                                               paddle.to_tensor(y[part]))
            loss.backward()
    opt.step()
    opt.clear_grad()


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


@settings(max_examples=int(sys.argv[1]) if len(sys.argv) > 1 else 10, derandomize=True,
          database=None, deadline=None, phases=[Phase.explicit, Phase.generate],
          suppress_health_check=list(HealthCheck))
@given(configs())
def check_data_parallel_matches_one_process(cfg):
    paddle.seed(cfg["seed"] + 7919 * RANK)   # every rank its own init: rank 0's must win
    model = Net(cfg, nn.SyncBatchNorm)
    reducer.PIECE_BYTES = cfg["piece_bytes"]
    shared = cfg["sum"] == "shared"
    node_sum.usable = SHARED_USABLE if shared else lambda world, sizes: False
    dp = paddle.DataParallel(model, comm_buffer_size=cfg["comm_buffer_size"],
                             last_comm_buffer_size=cfg["last_comm_buffer_size"],
                             find_unused_parameters=cfg["unused"])
    assert isinstance(dp._reducer._sum, node_sum.SharedBucketSum) == shared, cfg
    reference = Net(cfg, plain_norm(cfg["kind"]))
    reference.set_state_dict({k: v.numpy() for k, v in model.state_dict().items()})
    dp_opt = OPTIMIZERS[cfg["optimizer"]](dp.parameters())
    ref_opt = OPTIMIZERS[cfg["optimizer"]](reference.parameters())
    rng = np.random.RandomState(cfg["seed"])
    global_batch = 4 * WORLD          # two halves of 2 samples per rank
    for _ in range(cfg["steps"]):
        x, y = batch(cfg, rng, global_batch)
        step(reference, ref_opt, x, y, cfg)
        shard = _shard(len(x), cfg["accumulate"])
        step(dp, dp_opt, x[shard], y[shard], cfg, dp.no_sync)
    expected = reference.state_dict()
    for name, value in model.state_dict().items():
        np.testing.assert_allclose(value.numpy(), expected[name].numpy(), rtol=1e-9,
                                   atol=1e-11, err_msg="%s, rank %d: %s" % (name, RANK, cfg))


def _shard(n, accumulate):
    """This rank's rows of a global batch of n: its share of each half when accumulating
    (so that every half is itself a global batch split over the ranks)."""
    if not accumulate:
        b = n // WORLD
        return np.arange(RANK * b, (RANK + 1) * b)
    half, b = n // 2, n // 2 // WORLD
    return np.concatenate([np.arange(RANK * b, (RANK + 1) * b),
                           half + np.arange(RANK * b, (RANK + 1) * b)])


check_data_parallel_matches_one_process()
print("rank %d of %d: DataParallel matched one process" % (RANK, WORLD))
