"""paddle.io.DataLoader: batches in the main process and from worker processes, feed
dicts for static programs, and the failure modes of workers (errors, deaths, timeouts),
with no worker process or shared-memory segment left behind."""
import multiprocessing
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time

import numpy as np
import pytest

import refimpl as paddle
from refimpl import io, versions
from refimpl.io import processes
from refimpl.dygraph.tensor import batch_value

ROOT = os.path.join(os.path.dirname(__file__), os.pardir)


class Rows(io.Dataset):
    """Sample i: (a [3] float32 row filled with i, the label i)."""

    def __init__(self, n=10, width=3):
        self.n, self.width = n, width

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return np.full([self.width], i, "float32"), i


class Pids(io.Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, i):
        return np.array([os.getpid(), i])


class Failing(io.Dataset):
    """Fails (in `how`) at sample 5."""

    def __init__(self, how):
        self.how = how

    def __len__(self):
        return 10

    def __getitem__(self, i):
        if i == 5:
            if self.how == "raise":
                raise KeyError("sample five is missing")
            if self.how == "exit":
                os._exit(3)
            if self.how == "kill":
                os.kill(os.getpid(), signal.SIGKILL)
            if self.how == "sleep":
                time.sleep(30)
        return np.array([i])


class Strided(io.IterableDataset):
    """0..n-1, split between workers by get_worker_info (worker k takes k, k + W, ...)."""

    def __init__(self, n):
        self.n = n

    def __iter__(self):
        info = io.get_worker_info()
        start, step = (0, 1) if info is None else (info.id, info.num_workers)
        for i in range(start, self.n, step):
            yield np.array([i])


def _workers_alive():
    return [p for p in multiprocessing.active_children()
            if p.name.startswith(("DataLoader worker", "DataLoader reader process"))]


def _segments(pid=None):
    prefix = "rfio%x_" % (pid or os.getpid())
    return [f for f in os.listdir("/dev/shm") if f.startswith(prefix)] \
        if os.path.isdir("/dev/shm") else []


def _alive(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except FileNotFoundError:
        return False


@pytest.fixture(autouse=True)
def no_leaks():
    yield
    assert _workers_alive() == []
    assert _segments() == []
    assert processes.registered_pids() == ()


def _batches(loader):
    """A static-mode return_list loader's batches (one place): under 1.8 each step is a
    list of one batch per place, [[x, y]] (switch static_dataloader_one_place; Paddle
    1.8.5 measured), under 2.0 and 3 the batch itself."""
    per_place = versions.switch("static_dataloader_one_place") == "per_place"
    for step in loader:
        if per_place:
            (step,) = step
        yield step


def _one_field(batch):
    """A batch of one-field samples: [data] up to Paddle 2.0, data itself from 2.1 (switch
    dataloader_single_field)."""
    if versions.switch("dataloader_single_field") == "listed":
        (batch,) = batch
    return batch


def _labels(loader):
    return [np.asarray(batch[1]).tolist() for batch in _batches(loader)]


def _arrays(batch):
    """A static-mode batch's LoDTensors as arrays (np.array(t), as Paddle users read them)."""
    return [np.asarray(field) for field in batch]


@pytest.mark.parametrize("num_workers", [0, 2])
def test_batches_in_order(num_workers):
    loader = io.DataLoader(Rows(), batch_size=3, return_list=True, num_workers=num_workers)
    assert len(loader) == 4
    batches = [_arrays(b) for b in _batches(loader)]
    assert [b[1].tolist() for b in batches] == [[0, 1, 2], [3, 4, 5], [6, 7, 8], [9]]
    x, y = batches[1]
    assert x.dtype == np.float32 and x.shape == (3, 3) and y.dtype == np.int64
    np.testing.assert_array_equal(x, [[3] * 3, [4] * 3, [5] * 3])


@pytest.mark.parametrize("num_workers", [0, 2])
def test_shuffle_drop_last_and_batch_sampler(num_workers):
    np.random.seed(7)
    shuffled = _labels(io.DataLoader(Rows(), batch_size=4, shuffle=True, drop_last=True,
                                     return_list=True, num_workers=num_workers))
    expected = np.random.RandomState(7).permutation(10)[:8].reshape(2, 4).tolist()
    assert shuffled == expected
    sampler = io.BatchSampler(sampler=io.SequenceSampler(Rows()), batch_size=5)
    assert _labels(io.DataLoader(Rows(), batch_sampler=sampler, return_list=True,
                                 num_workers=num_workers)) == [[0, 1, 2, 3, 4], [5, 6, 7, 8, 9]]


def test_no_automatic_batching_and_custom_collate():
    loader = io.DataLoader(Rows(3), batch_size=None, return_list=True)
    assert len(loader) == 3
    x, label = _arrays(list(_batches(loader))[2])
    assert x.tolist() == [2, 2, 2] and label == 2
    total = io.DataLoader(Rows(4), batch_size=2, return_list=True, num_workers=2,
                          collate_fn=lambda samples: sum(s[1] for s in samples))
    assert list(_batches(total)) == [1, 5]


@pytest.mark.paddle("3")   # one-field batches come bare, as Paddle 2.1+ yields them
@pytest.mark.parametrize("num_workers", [0, 2, 3])
def test_iterable_dataset_split_by_worker_info(num_workers):
    out = [np.asarray(b).ravel().tolist() for b in io.DataLoader(Strided(7), batch_size=2,
                                                      num_workers=num_workers,
                                                      return_list=True)]
    if num_workers == 2:    # Paddle 3.3.1 gives the same: workers take turns
        assert out == [[0, 2], [1, 3], [4, 6], [5]]
    assert sorted(i for b in out for i in b) == list(range(7))
    dropped = [np.asarray(b).ravel().tolist() for b in io.DataLoader(Strided(7), batch_size=2,
                                                          num_workers=2, drop_last=True,
                                                          return_list=True)]
    assert dropped == [[0, 2], [1, 3], [4, 6]]


@pytest.mark.paddle("3")   # one-field batches come bare, as Paddle 2.1+ yields them
def test_worker_info_and_init_fn(tmp_path):
    assert io.get_worker_info() is None

    class Info(io.Dataset):
        def __len__(self):
            return 4

        def __getitem__(self, i):
            info = io.get_worker_info()
            return np.array([info.id, info.num_workers, info.dataset is self,
                             int(os.environ["INIT_ID"])])

    def init(worker_id):
        os.environ["INIT_ID"] = str(worker_id)

    rows = np.concatenate(list(io.DataLoader(Info(), batch_size=1, num_workers=2,
                                             worker_init_fn=init, return_list=True)))
    assert rows.tolist() == [[0, 2, 1, 0], [1, 2, 1, 1], [0, 2, 1, 0], [1, 2, 1, 1]]


@pytest.mark.parametrize("use_shared_memory", [True, False])
def test_large_arrays_through_shared_memory(use_shared_memory):
    big = Rows(6, width=64 * 64)          # 16 KiB a row: above SHARED_MIN_BYTES batched
    loader = io.DataLoader(big, batch_size=2, num_workers=2, return_list=True,
                           use_shared_memory=use_shared_memory)
    for k, (x, y) in enumerate(_batches(loader)):
        np.testing.assert_array_equal(x, np.repeat([[2 * k], [2 * k + 1]], 64 * 64, axis=1))
        assert np.asarray(y).tolist() == [2 * k, 2 * k + 1]


@pytest.mark.paddle("3")   # one-field batches come bare, as Paddle 2.1+ yields them
def test_persistent_workers_are_reused_across_epochs():
    loader = io.DataLoader(Pids(), batch_size=2, num_workers=2, return_list=True,
                           persistent_workers=True)
    first = np.concatenate(list(loader))
    for batch in loader:             # leave an epoch early: its batches are dropped
        break
    second = np.concatenate(list(loader))
    assert first[:, 1].tolist() == second[:, 1].tolist() == list(range(8))
    assert set(first[:, 0]) == set(second[:, 0]) and len(set(first[:, 0])) == 2
    del loader, batch
    import gc
    gc.collect()


class OneField(io.Dataset):
    def __len__(self):
        return 3

    def __getitem__(self, i):
        return np.full([2], i, "float32")


@pytest.mark.parametrize("version, listed", [("2.0", True), ("3", False)])
def test_one_field_batches_are_listed_up_to_paddle_20(paddle_version, version, listed):
    # Paddle 2.1's DataLoader warns: "In Paddle <= 2.0, DataLoader add a list surround
    # output data (e.g. return [data])"; Paddle 3.3.1 yields the [2, 2] batch itself
    with paddle_version(version):
        first = next(io.DataLoader(OneField(), batch_size=2, return_list=True)())
        custom = next(iter(io.DataLoader(OneField(), batch_size=2, return_list=True,
                                         collate_fn=lambda rows: np.stack(rows))))
    if listed:
        assert isinstance(first, list) and len(first) == 1
        first = first[0]
    assert np.asarray(first).tolist() == [[0, 0], [1, 1]]
    assert np.asarray(custom).tolist() == [[0, 0], [1, 1]]     # a collate_fn's own result


def test_output_converter_hook():
    seen = []
    io.set_output_converter(lambda a: seen.append(a.shape) or a.tolist())
    try:
        out = list(_batches(io.DataLoader(Rows(2), batch_size=2, return_list=True)))
        io.set_output_converter(None)       # the default: the arrays themselves
        assert isinstance(next(_batches(io.DataLoader(Rows(2), batch_size=2,
                                                      return_list=True)))[1], np.ndarray)
    finally:
        io.set_output_converter(batch_value)    # what `import refimpl` installs
    assert seen == [(2, 3), (2,)] and out == [[[[0.0] * 3, [1.0] * 3], [0, 1]]]
    assert isinstance(next(_batches(io.DataLoader(Rows(2), batch_size=2,
                                                  return_list=True)))[1],
                      paddle.fluid.core.LoDTensor)    # static mode


# -- static programs
def test_feed_dicts_for_executor_run():
    paddle.enable_static()
    x = paddle.static.data("x", [None, 3], "float32")
    y = paddle.static.data("y", [None], "int64")
    total = paddle.sum(x)
    exe = paddle.static.Executor(paddle.CPUPlace())
    loader = io.DataLoader(Rows(), feed_list=[x, y], batch_size=4, num_workers=2,
                           return_list=False)
    sums = []
    for feed in loader:
        assert isinstance(feed, list) and len(feed) == 1 and set(feed[0]) == {"x", "y"}
        sums.append(float(exe.run(feed=feed, fetch_list=[total])[0]))
    assert sums == [3 * (0 + 1 + 2 + 3), 3 * (4 + 5 + 6 + 7), 3 * (8 + 9)]
    two = list(io.DataLoader(Rows(), feed_list=[x, y], places=[paddle.CPUPlace()] * 2,
                             batch_size=3, return_list=False))
    assert [[np.asarray(d["y"]).tolist() for d in group] for group in two] == \
        [[[0, 1, 2], [3, 4, 5]], [[6, 7, 8], [9]]]          # as Paddle 3.3.1
    with pytest.raises(TypeError, match="list of 2 dicts"):
        exe.run(feed=two[0], fetch_list=[total])
    # return_list=True with several places (static mode): a list of one batch per place,
    # each [x, y], as Paddle 2.0's read_next_list gives them
    listed = list(io.DataLoader(Rows(), feed_list=[x, y], places=[paddle.CPUPlace()] * 2,
                                batch_size=3, return_list=True))
    assert [[np.asarray(batch[1]).tolist() for batch in group] for group in listed] == \
        [[[0, 1, 2], [3, 4, 5]], [[6, 7, 8], [9]]]
    assert [len(batch) for group in listed for batch in group] == [2, 2, 2, 2]
    np.testing.assert_array_equal(listed[0][1][0], np.stack([Rows()[i][0] for i in (3, 4, 5)]))
    with pytest.raises(ValueError, match=r"2 fields but feed_list has 1 variables \['x'\]"):
        list(io.DataLoader(Rows(), feed_list=[x], batch_size=4, return_list=False))
    with pytest.raises(ValueError, match="feed_list must be given when return_list=False"):
        io.DataLoader(Rows(), batch_size=4, return_list=False)
    with pytest.raises(TypeError, match=r"^DataLoader: feed_list\[0\] must be a Variable "
                       r"from paddle.static.data, got int$"):
        io.DataLoader(Rows(), feed_list=[3], batch_size=4, return_list=False)


def test_return_list_defaults_to_the_releases(paddle_version):
    """return_list left out: Paddle 2.0 / 3 yield the batch's arrays in static mode too (a
    loader without feed_list, as PaddleRec 2.0's static trainer builds), fluid 1.8 feed
    dicts (switch dataloader_return_list)."""
    paddle.enable_static()
    x = paddle.static.data("x", [None, 3], "float32")
    y = paddle.static.data("y", [None], "int64")
    with paddle_version("2.0"):
        batches = list(io.DataLoader(Rows(), batch_size=4))
    assert [np.asarray(batch[1]).tolist() for batch in batches] == \
        [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    np.testing.assert_array_equal(batches[2][0], np.stack([Rows()[8][0], Rows()[9][0]]))
    with paddle_version("1.8"):
        places = [paddle.CPUPlace()]
        feeds = list(io.DataLoader(Rows(), feed_list=[x, y], places=places, batch_size=4))
        assert [np.asarray(feed[0]["y"]).tolist() for feed in feeds] == \
            [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
        with pytest.raises(ValueError, match="feed_list must be given when return_list"):
            io.DataLoader(Rows(), places=places, batch_size=4)


def test_static_training_loop_fed_by_workers_matches_in_process():
    class Regression(io.Dataset):
        def __init__(self):
            rng = np.random.RandomState(0)
            self.x = rng.randn(64, 4).astype("float32")
            self.y = (self.x @ np.array([[1.0], [-2.0], [0.5], [3.0]], "float32") + 0.25)

        def __len__(self):
            return 64

        def __getitem__(self, i):
            return self.x[i], self.y[i]

    def train(num_workers):
        main, startup = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, startup):
            x = paddle.static.data("x", [None, 4], "float32")
            y = paddle.static.data("y", [None, 1], "float32")
            loss = paddle.mean((paddle.static.nn.fc(x, 1) - y) ** 2)
            paddle.optimizer.SGD(0.1).minimize(loss)
        exe = paddle.static.Executor(paddle.CPUPlace())
        scope = paddle.fluid.Scope()
        with paddle.static.scope_guard(scope):
            exe.run(startup)
            loader = io.DataLoader(Regression(), feed_list=[x, y], batch_size=8,
                                   num_workers=num_workers, return_list=False)
            return [float(exe.run(main, feed=feed, fetch_list=[loss])[0])
                    for _ in range(3) for feed in loader]

    paddle.seed(1)
    in_process = train(0)
    paddle.seed(1)
    workers = train(2)
    assert workers == in_process
    assert workers[-1] < 0.05 * workers[0]


# -- configuration errors
def test_configuration_is_validated():
    with pytest.raises(ValueError, match="batch_sampler decides them"):
        io.DataLoader(Rows(), batch_sampler=io.BatchSampler(Rows()), batch_size=2,
                      return_list=True)
    with pytest.raises(ValueError, match="IterableDataset cannot be shuffled"):
        io.DataLoader(Strided(3), shuffle=True, return_list=True)
    with pytest.raises(ValueError, match="num_workers must be an int >= 0, got -1"):
        io.DataLoader(Rows(), num_workers=-1, return_list=True)
    with pytest.raises(ValueError, match="timeout must be"):
        io.DataLoader(Rows(), timeout=-1, return_list=True)
    with pytest.raises(TypeError, match="collate_fn must be callable"):
        io.DataLoader(Rows(), collate_fn=3, return_list=True)
    with pytest.raises(TypeError, match="has no length"):
        len(io.DataLoader(Strided(3), return_list=True))
    with pytest.raises(TypeError, match="dataset must be a paddle.io.Dataset"):
        io.DataLoader(3, return_list=True)
    paddle.disable_static()
    with pytest.raises(ValueError, match="in dynamic mode each batch goes to one place, "
                       "got 2 places"):
        io.DataLoader(Rows(), places=[paddle.CPUPlace()] * 2)


@pytest.mark.parametrize("version, per_place", [("1.8", True), ("2.0", False), ("3", False)])
def test_a_static_batch_for_one_place_is_listed_per_place_in_paddle_18(paddle_version, version,
                                                                        per_place):
    # return_list=True, one place, static mode: Paddle 1.8.5 yields [[x, y]] (measured),
    # 2.0's dataloader_iter unwraps the one place's list, 3.3.1 yields [x, y] (measured)
    with paddle_version(version):
        step = next(iter(io.DataLoader(Rows(), places=paddle.CPUPlace(), batch_size=2,
                                       return_list=True)))
    assert len(step) == (1 if per_place else 2)
    x, y = step[0] if per_place else step
    assert isinstance(x, paddle.fluid.core.LoDTensor) and x.shape() == [2, 3]
    assert np.asarray(y).tolist() == [0, 1]


# -- failures in workers
@pytest.mark.paddle("3")   # one-field batches come bare, as Paddle 2.1+ yields them
@pytest.mark.parametrize("num_workers", [0, 2])
def test_an_error_in_the_dataset_is_raised_with_its_traceback(num_workers):
    loader = io.DataLoader(Failing("raise"), batch_size=1, num_workers=num_workers,
                           return_list=True, use_buffer_reader=False)
    got = []
    with pytest.raises(KeyError) as info:
        for batch in loader:
            got.append(int(np.asarray(batch)[0, 0]))
    assert got == [0, 1, 2, 3, 4]                     # every batch before the failing one
    message = str(info.value)
    assert "sample five is missing" in message
    if num_workers:
        assert "DataLoader worker 1 raised KeyError" in message
        assert "in __getitem__" in message and "raise KeyError" in message


@pytest.mark.parametrize("threads", ["1", "2"])
def test_an_error_in_the_buffer_thread_is_raised_in_the_caller(monkeypatch, threads):
    monkeypatch.setenv("OMP_NUM_THREADS", threads)
    with pytest.raises(KeyError, match="sample five"):
        list(io.DataLoader(Failing("raise"), batch_size=2, return_list=True))


class ReadBy(io.Dataset):
    """Samples 0..5, remembering which thread read each."""

    def __init__(self):
        self.threads = set()

    def __len__(self):
        return 6

    def __getitem__(self, i):
        self.threads.add(threading.current_thread().name)
        return np.array([i])


@pytest.mark.parametrize("threads, reader", [("1", "MainThread"),
                                             ("2", "DataLoader buffer reader")])
def test_the_buffer_reader_reads_ahead_only_with_a_second_thread(monkeypatch, threads,
                                                                 reader):
    monkeypatch.setenv("OMP_NUM_THREADS", threads)
    dataset = ReadBy()
    got = [np.asarray(_one_field(batch))[:, 0].tolist()
           for batch in _batches(io.DataLoader(dataset, batch_size=4, return_list=True))]
    assert got == [[0, 1, 2, 3], [4, 5]]
    assert dataset.threads == {reader}


def test_worker_init_fn_error_is_raised():
    def init(worker_id):
        raise ValueError("bad init in %d" % worker_id)

    with pytest.raises(ValueError, match=r"(?s)worker_init_fn\(0\).*bad init in 0"):
        list(io.DataLoader(Rows(), batch_size=2, num_workers=2, worker_init_fn=init,
                           return_list=True))


@pytest.mark.parametrize("how, says", [("exit", r"exit code 3"),
                                       ("kill", r"exit code -9 \(killed by signal SIGKILL: Killed\)")])
def test_a_dead_worker_is_an_error_not_a_hang(how, says):
    loader = io.DataLoader(Failing(how), batch_size=1, num_workers=2, return_list=True)
    start = time.monotonic()
    with pytest.raises(RuntimeError, match=r"DataLoader worker 1 \(pid \d+\) exited "
                                           r"unexpectedly with " + says):
        list(loader)
    assert time.monotonic() - start < 30   # a bound against hanging, not a timing check


def test_timeout_is_honoured():
    loader = io.DataLoader(Failing("sleep"), batch_size=1, num_workers=2, timeout=1,
                           return_list=True)
    with pytest.raises(RuntimeError, match=r"no batch from the workers within timeout=1s "
                                           r"\(waiting for batch 5 from worker 1\)"):
        list(loader)


# -- nothing left behind (the no_leaks fixture checks after each test)
def test_breaking_out_and_garbage_collection_stop_the_workers():
    loader = io.DataLoader(Rows(40, width=64 * 64), batch_size=2, num_workers=2,
                           return_list=True)
    for _ in loader:
        break                                   # prefetched batches are in flight
    assert _workers_alive() == [] and _segments() == []
    batches = iter(loader)
    next(batches)
    assert len(_workers_alive()) == 2
    del batches
    assert _workers_alive() == [] and _segments() == []


def _run_script(body):
    script = textwrap.dedent("""
        import os, sys, signal, numpy as np
        sys.path.insert(0, %r)
        from refimpl import io
        class Pids(io.Dataset):
            def __len__(self):
                return 40
            def __getitem__(self, i):
                return np.full([64 * 64], os.getpid(), 'float32')
        loader = io.DataLoader(Pids(), batch_size=2, num_workers=2, return_list=True)
        batches = iter(loader)
        pids = {int(next(batches)[0, 0]), int(next(batches)[0, 0])}
        print(os.getpid(), *sorted(pids), flush=True)
    """ % os.path.abspath(ROOT)) + textwrap.dedent(body)
    # the 3 profile: one-field batches come bare, as Paddle 2.1+ yields them
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                            timeout=60, env=dict(os.environ, REFIMPL_PADDLE="3"))
    main_pid, *worker_pids = [int(p) for p in result.stdout.split()]
    deadline = time.monotonic() + 15       # orphans notice their parent is gone in ~1 s
    while time.monotonic() < deadline and (any(_alive(p) for p in worker_pids)
                                          or _segments(main_pid)):
        time.sleep(0.2)
    assert [p for p in worker_pids if _alive(p)] == []
    assert _segments(main_pid) == []
    return result


@pytest.mark.parametrize("body, code", [
    ("", 0),                                               # interpreter exit mid-epoch
    ("raise RuntimeError('user error')", 1),               # an exception ends the script
    ("os.kill(os.getpid(), signal.SIGKILL)", -9),          # the main process is killed
])
def test_no_workers_or_segments_outlive_the_program(body, code):
    result = _run_script(body)
    assert result.returncode == code, result.stderr
    if code != -9:   # a killed main process leaves in-flight segments to the resource tracker
        assert "leaked" not in result.stderr


def test_fluid_constructors_say_what_to_use_instead():
    # from_generator is fluid's loader (fluid/reader.py, tests/test_fluid_io.py): in static
    # mode it needs the data Variables to fill
    with pytest.raises(ValueError, match="feed_list"):
        io.DataLoader.from_generator(capacity=4)
    with pytest.raises(TypeError, match="must be a fluid.dataset dataset"):
        io.DataLoader.from_dataset(None, None)


def test_a_superseded_persistent_iterator_fails_instead_of_waiting():
    loader = io.DataLoader(Rows(), batch_size=2, num_workers=2, return_list=True,
                           persistent_workers=True)
    first = iter(loader)
    next(first)
    assert _labels(loader)[0] == [0, 1]
    with pytest.raises(RuntimeError, match="superseded by a newer iter"):
        next(first)
    del loader, first
    import gc
    gc.collect()


def test_spawned_workers(monkeypatch):
    monkeypatch.setattr(multiprocessing, "get_all_start_methods", lambda: ["spawn"])
    loader = io.DataLoader(Rows(6, width=64 * 64), batch_size=3, num_workers=2,
                           return_list=True)
    assert _labels(loader) == [[0, 1, 2], [3, 4, 5]]
    with pytest.raises(KeyError, match="sample five"):
        list(io.DataLoader(Failing("raise"), batch_size=2, num_workers=2, return_list=True))


@pytest.mark.mpi
@pytest.mark.skipif(__import__("shutil").which("mpirun") is None, reason="mpirun not found")
def test_distributed_batch_sampler_with_workers_under_mpirun():
    script = textwrap.dedent("""
        import sys
        import numpy as np
        from refimpl import distributed, io
        class Rows(io.Dataset):
            def __len__(self):
                return 10
            def __getitem__(self, i):
                return np.array([i])
        sampler = io.DistributedBatchSampler(Rows(), batch_size=2)
        loader = io.DataLoader(Rows(), batch_sampler=sampler, num_workers=2, return_list=True)
        # one write per rank: print's pieces of two ranks interleaved ("rankrank 0 ...")
        batches = [np.asarray(b).ravel().tolist() for b in loader]
        sys.stdout.write("rank %d %s\\n" % (distributed.get_rank(), batches))
        sys.stdout.flush()
    """)
    env = dict(os.environ, PYTHONPATH=os.path.abspath(ROOT))
    result = subprocess.run(["mpirun", "-n", "2", sys.executable, "-c", script],
                            capture_output=True, text=True, timeout=120, env=env)
    assert result.returncode == 0, result.stderr
    lines = sorted(line for line in result.stdout.splitlines() if line.startswith("rank"))
    # 10 samples, 2 ranks, batch 2: global batches of 4, the last (2 samples) split 1 + 1
    assert lines == ["rank 0 [[0, 1], [4, 5], [8]]", "rank 1 [[2, 3], [6, 7], [9]]"]


class Ragged(io.Dataset):
    """Samples as PaddleNLP 2.0's simnet makes them: id lists of varying length, a length,
    a 0-d int64 label."""

    def __len__(self):
        return 4

    def __getitem__(self, i):
        return [i + 1] * (i + 1), i + 1, np.array(i % 2, "int64")


def _padded(batch):
    width = max(len(s[0]) for s in batch)
    return ([s[0] + [0] * (width - len(s[0])) for s in batch], [s[1] for s in batch],
            [s[2] for s in batch])


@pytest.mark.parametrize("version", ["2.0", "3"])
def test_list_fields_of_a_batch_become_arrays_up_to_paddle_20(paddle_version, version):
    # Paddle <= 2.0 copied each field of a batch into a LoDTensor (PaddleNLP 2.0's simnet
    # feeds paddle.Model this way); 3.3.1 keeps the collate_fn's lists as they are
    with paddle_version(version):
        first = next(iter(io.DataLoader(Ragged(), batch_size=3, return_list=True,
                                        collate_fn=_padded)))
    if version == "3":
        assert first[0] == [[1, 0, 0], [2, 2, 0], [3, 3, 3]] and first[1] == [1, 2, 3]
        assert [int(np.asarray(v)) for v in first[2]] == [0, 1, 0]
        return
    ids, lengths, labels = (np.asarray(f) for f in first)
    assert ids.tolist() == [[1, 0, 0], [2, 2, 0], [3, 3, 3]] and ids.dtype == np.int64
    assert lengths.tolist() == [1, 2, 3] and labels.tolist() == [0, 1, 0]
    assert labels.dtype == np.int64


@pytest.mark.paddle("2.0")
def test_a_ragged_list_field_is_an_error_under_paddle_20():
    loader = io.DataLoader(Ragged(), batch_size=2, return_list=True,
                           collate_fn=lambda b: ([s[0] for s in b], [s[1] for s in b]))
    with pytest.raises(TypeError, match=r"field 0 of a batch is not regular"):
        next(iter(loader))


# -- the loader-process registry, the worker loop over queues, the multi-process reader
def test_worker_pids_are_registered_while_the_loader_runs_and_erased_after():
    seen = []
    for batch in io.DataLoader(Pids(), batch_size=1, num_workers=2, return_list=True):
        seen.append(int(np.asarray(batch).reshape(-1)[0]))
        registered = processes.registered_pids()
        assert len(registered) == 2
    assert set(seen) == set(registered)          # the workers' own os.getpid()
    assert processes.registered_pids() == ()     # erased when the epoch ended


def test_a_worker_killed_from_outside_is_an_error_within_seconds():
    loader = io.DataLoader(Rows(40), batch_size=1, num_workers=2, return_list=True)
    start = time.monotonic()
    batches = iter(loader)
    next(batches)
    victim = processes.registered_pids()[1]
    os.kill(victim, signal.SIGKILL)
    with pytest.raises(RuntimeError, match=r"DataLoader worker 1 \(pid %d\) exited unexpectedly "
                                           r"with exit code -9 \(killed by signal SIGKILL: "
                                           r"Killed\)" % victim) as caught:
        for _ in batches:
            pass
    assert isinstance(caught.value, processes.WorkerProcessError)
    assert time.monotonic() - start < 30   # a bound against hanging, not a timing check


def _wait_for_exit(pid):
    """Until child `pid` has ended, without reaping it (waitid still sees it then)."""
    deadline = time.monotonic() + 30
    while os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is None:
        assert time.monotonic() < deadline, "child %d did not end" % pid
        time.sleep(0.01)


def _exit_with(how):
    processes.set_process_signal_handler()
    if how == "segv":
        os.kill(os.getpid(), signal.SIGSEGV)
    os._exit(how)


@pytest.mark.parametrize("how, says", [
    (3, r"exit code 3\."),
    ("segv", r"exit code -11 \(killed by signal SIGSEGV: Segmentation fault\)\.")])
def test_throw_error_if_process_failed_names_the_failed_process(how, says):
    process = multiprocessing.get_context("fork").Process(target=_exit_with, args=(how,))
    process.start()
    processes.set_process_pids("test", [process.pid])
    try:
        _wait_for_exit(process.pid)
        with pytest.raises(processes.WorkerProcessError,
                           match=r"FatalError: DataLoader process \(pid %d\) exited "
                                 r"unexpectedly with %s" % (process.pid, says)) as caught:
            processes.throw_error_if_process_failed()
        assert isinstance(caught.value, SystemError)     # Paddle 2.0's Fatal
        assert processes.registered_pids() == ()          # reported once
        processes.throw_error_if_process_failed()
        # registered after it failed (its SIGCHLD unheard): reported at once
        with pytest.raises(processes.WorkerProcessError, match=says):
            processes.set_process_pids("test", [process.pid])
        assert processes.registered_pids() == ()
    finally:
        processes.erase_process_pids("test")
        process.join()


def test_a_process_that_ends_well_or_is_erased_is_no_failure():
    process = multiprocessing.get_context("fork").Process(target=_exit_with, args=(0,))
    process.start()
    processes.set_process_pids("test", [process.pid])
    _wait_for_exit(process.pid)
    processes.throw_error_if_process_failed()
    processes.erase_process_pids("test")
    process.join()
    assert process.exitcode == 0


def _run_worker_loop(dataset, tasks, out, done):
    from refimpl.io.worker import worker_loop
    worker_loop(dataset, tasks, out, done, True, io.default_collate_fn, None, 0, 1)


def test_the_worker_loop_puts_index_batch_pairs_or_the_error_with_its_traceback():
    context = multiprocessing.get_context("fork")
    tasks, out, done = context.Queue(), context.Queue(), context.Event()
    for task in [(0, [0, 1]), (1, [5]), (2, [6, 7])]:
        tasks.put(task)
    tasks.put(None)
    worker = context.Process(target=_run_worker_loop, args=(Failing("raise"), tasks, out, done))
    worker.start()
    got = [out.get(timeout=30) for _ in range(3)]
    worker.join(30)
    assert worker.exitcode == 0
    assert [index for index, _ in got] == [0, 1, 2]
    assert np.asarray(got[0][1]).tolist() == [[0], [1]]
    assert np.asarray(got[2][1]).tolist() == [[6], [7]]
    error = got[1][1]
    assert isinstance(error, KeyError)
    text = str(error)
    assert "DataLoader worker 0 raised KeyError while fetching [5]" in text
    assert "Traceback" in text and "sample five is missing" in text


def test_the_worker_loop_drops_requests_once_done_is_set():
    context = multiprocessing.get_context("fork")
    tasks, out, done = context.Queue(), context.Queue(), context.Event()
    done.set()
    tasks.put((0, [0, 1]))
    tasks.put(None)
    worker = context.Process(target=_run_worker_loop, args=(Rows(), tasks, out, done))
    worker.start()
    worker.join(30)
    assert worker.exitcode == 0
    assert out.empty()


def _generator(how):
    def batches():
        for i in range(4):
            if i == 2 and how == "raise":
                raise KeyError("batch two is missing")
            if i == 2 and how == "kill":
                os.kill(os.getpid(), signal.SIGKILL)
            yield np.full([2, 3], i, "float32"), np.array([[i], [i]])
    return batches


def _from_generator(how, use_multiprocess):
    loader = paddle.fluid.io.DataLoader.from_generator(capacity=2,
                                                       use_multiprocess=use_multiprocess)
    loader.set_batch_generator(_generator(how), places=paddle.CPUPlace())
    return loader


def test_a_generator_read_by_a_process_gives_the_batches_of_one_read_in_process():
    with paddle.fluid.dygraph.guard():
        def read(use_multiprocess):
            return [[t.numpy().tolist() for t in batch]
                    for batch in _from_generator("ok", use_multiprocess)()]
        assert read(True) == read(False)
        assert len(read(True)) == 4


@pytest.mark.parametrize("how, error, says", [
    ("raise", paddle.fluid.core.EnforceNotMet,
     r"(?s)Blocking queue is killed.*reader process raised KeyError.*Traceback.*"
     r"batch two is missing"),
    ("kill", processes.WorkerProcessError,
     r"reader process \(pid \d+\) exited unexpectedly with exit code -9")])
def test_a_failing_reader_process_is_an_error_not_a_hang(how, error, says):
    start = time.monotonic()
    with paddle.fluid.dygraph.guard():
        loader = _from_generator(how, True)
        got = []
        with pytest.raises(error, match=says):
            for batch in loader():
                got.append(int(batch[1].numpy()[0, 0]))
    # the batches before the failure, in order (a killed process's queue buffer, not yet
    # in the pipe, is lost with it)
    assert got == ([0, 1] if how == "raise" else [0, 1][:len(got)])
    assert time.monotonic() - start < 30   # a bound against hanging, not a timing check


@pytest.mark.parametrize("how", ["ok", "raise", "kill", "break"])
def test_the_reader_process_is_closed_once_and_leaves_no_process(monkeypatch, how):
    from refimpl.fluid import reader
    closed = []
    close = reader._ReaderProcess.close

    def counted(self):
        closed.append(self.process.pid)
        close(self)
    monkeypatch.setattr(reader._ReaderProcess, "close", counted)
    with paddle.fluid.dygraph.guard():
        loader = _from_generator("ok" if how == "break" else how, True)
        try:
            for _ in loader():
                if how == "break":
                    break
        except (paddle.fluid.core.EnforceNotMet, processes.WorkerProcessError):
            assert how in ("raise", "kill")
    assert len(closed) == 1                      # by the pass's owner, once
    assert not _alive(closed[0])


_IN_PROCESS_LOOPS = textwrap.dedent("""
    import faulthandler, json, multiprocessing, random, signal, sys
    import numpy as np
    import refimpl as paddle
    from refimpl import io
    from refimpl.framework import random as framework_random
    from refimpl.fluid.dataloader.dataloader_iter import _worker_loop
    from refimpl.fluid.reader import _reader_process_loop

    class Seen(io.Dataset):
        # what the dataset sees while the loop runs in this process
        infos = []
        def __len__(self):
            return 4
        def __getitem__(self, i):
            info = io.get_worker_info()
            self.infos.append(None if info is None else [info.id, info.num_workers])
            return np.array([i])

    def state():
        return [repr(signal.getsignal(signal.SIGINT)), faulthandler.is_enabled(),
                random.random(), float(np.random.random_sample()),
                float(framework_random.uniform(0, 0.0, 1.0, [1], "float32")[0]),
                io.get_worker_info() is None]

    def reset():
        random.seed(7); np.random.seed(7); framework_random.seed(7)

    reset(); before = state()
    reset()
    tasks, out, done = multiprocessing.Queue(), multiprocessing.Queue(), multiprocessing.Event()
    tasks.put((0, [0, 1])); tasks.put(None)
    _worker_loop(Seen(), 0, tasks, out, done, True, io.default_collate_fn, None, 1, 2, False)
    index, batch = out.get(timeout=30)
    data = multiprocessing.Queue()
    _reader_process_loop(lambda: iter([[np.ones([2, 2], "float32")]]), data)
    arrays, end = data.get(timeout=30), data.get(timeout=30)
    after = state()
    print(json.dumps({"before": before, "after": after, "infos": Seen.infos,
                      "index": index, "batch": np.asarray(batch).ravel().tolist(),
                      "arrays": [a.tolist() for a in arrays], "end": end}))
""")


def test_the_loops_run_in_the_callers_process_leave_it_as_it_was():
    """Paddle's tests call the worker loop and the reader loop in their own process: its
    SIGINT handling, fault handler, generators and WorkerInfo stay as they were (the
    worker's WorkerInfo is there while the loop runs)."""
    import json
    proc = subprocess.run([sys.executable, "-c", _IN_PROCESS_LOOPS], capture_output=True,
                          text=True, timeout=120,
                          env=dict(os.environ, PYTHONPATH=ROOT, REFIMPL_PADDLE="2.0"))
    assert proc.returncode == 0, proc.stderr
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    assert got["after"] == got["before"]
    assert got["before"][:2] == [repr(signal.default_int_handler), False]
    assert got["infos"] == [[1, 2], [1, 2]]
    assert got["index"] == 0 and got["batch"] == [0, 1]
    assert got["arrays"] == [[[1.0, 1.0], [1.0, 1.0]]] and got["end"] is None


class ProcessSetup(io.Dataset):
    """Sample i: [SIGINT ignored, fault handler on, worker id, worker seed] as a worker
    sees them."""

    def __len__(self):
        return 2

    def __getitem__(self, i):
        import faulthandler
        info = io.get_worker_info()
        return np.array([signal.getsignal(signal.SIGINT) == signal.SIG_IGN,
                         faulthandler.is_enabled(), info.id, info.seed], "int64")


@pytest.mark.paddle("3")   # one-field batches come bare
def test_a_worker_process_ignores_sigint_and_has_the_fault_handler_and_its_seed():
    np.random.seed(3)
    base = np.random.randint(0, 2 ** 31)
    np.random.seed(3)
    rows = [np.asarray(batch).tolist() for batch in
            io.DataLoader(ProcessSetup(), batch_size=1, num_workers=2, return_list=True)]
    assert rows == [[[1, 1, 0, base]], [[1, 1, 1, base + 1]]]


@pytest.mark.paddle("1.8")
def test_paddle_18s_iterator_runs_the_worker_loop_on_its_queue_and_closes_it():
    # 1.8's test_multiprocess_dataloader_exception drives these internals in its process
    loader = io.DataLoader(Rows(), places=paddle.CPUPlace(), batch_size=2, num_workers=1,
                           return_list=True)
    it = iter(loader)
    assert isinstance(it, io.dataloader.DataLoaderIter) and len(it) == len(loader) == 5
    assert it._dataset is loader.dataset
    tasks = multiprocessing.Queue()
    tasks.put((0, [2, 3]))
    tasks.put(None)
    it._worker_loop(it._dataset, tasks, it._data_queue, it._workers_done_event,
                    io.default_collate_fn, None, 0)
    index, batch = it._data_queue.get(timeout=30)
    assert index == 0 and np.asarray(batch[1]).tolist() == [2, 3]
    tasks.put((1, [4]))
    it._data_queue.put("left over")
    it.close()
    with pytest.raises((OSError, ValueError)):     # closed with the iterator
        it._data_queue.get(timeout=1)
    with pytest.raises(StopIteration):
        next(it)


def test_paddle_18s_dataloader_needs_places(paddle_version):
    """fluid.io.DataLoader over a Dataset needs places under 1.8 (1.8.5's AssertionError);
    paddle.io's, an API 1.8 lacks, never does."""
    from refimpl import fluid
    for version, required in [("1.8", True), ("2.0", False), ("3", False)]:
        with paddle_version(version):
            if required:
                with pytest.raises(AssertionError, match="places cannot be None"):
                    fluid.io.DataLoader(Rows(), return_list=True)
            else:
                assert fluid.io.DataLoader(Rows(), return_list=True).places == \
                    [paddle.CPUPlace()]
            assert io.DataLoader(Rows(), return_list=True).places == [paddle.CPUPlace()]


def test_cleanup_functions_run_once_at_a_registered_signal():
    from refimpl.fluid.multiprocess_utils import CleanupFuncRegistrar
    with pytest.raises(TypeError, match="is not callable"):
        CleanupFuncRegistrar.register(5)
    ran = []

    def cleanup():
        ran.append(1)

    previous = signal.getsignal(signal.SIGUSR1)
    try:
        CleanupFuncRegistrar.register(cleanup, signals=[signal.SIGUSR1])
        with pytest.raises(SystemExit) as caught:
            os.kill(os.getpid(), signal.SIGUSR1)
            time.sleep(5)                    # the handler interrupts this
        assert caught.value.code == signal.SIGUSR1
        with pytest.raises(SystemExit):
            os.kill(os.getpid(), signal.SIGUSR1)
            time.sleep(5)
        assert ran == [1]                    # once, however often
    finally:
        signal.signal(signal.SIGUSR1, previous)


def test_paddle_asserts_on_configuration_and_lengths():
    with pytest.raises(AssertionError, match="num_workers must be an int >= 0"):
        io.DataLoader(Rows(), num_workers=-1, return_list=True)
    with pytest.raises(AssertionError, match="dataset must be a paddle.io.Dataset"):
        io.DataLoader(io.BatchSampler(Rows(), batch_size=2), return_list=True)
    with pytest.raises(RuntimeError, match="has no __len__"):
        len(Strided(4))
    assert list(Strided(3)) == [np.array([0]), np.array([1]), np.array([2])]
