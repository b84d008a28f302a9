"""Fluid 1.8's reader stack: the blocking queue, py_reader's queue, DataLoader.from_generator
(iterable and not) and fluid.io.PyReader. Behaviours measured on Paddle 1.8.5
(specs/fluid_io.md#blocking-queue)."""
import threading

import numpy as np
import pytest

import refimpl.fluid as fluid
from refimpl.fluid import core
from refimpl.framework.blocking_queue import BlockingQueue
from refimpl.framework.program import Program, program_guard
from refimpl.fluid.reader import (DataLoaderBase, GeneratorLoader, keep_data_loader_order,
                                  use_pinned_memory)


def _batch(value, rows=2):
    t = fluid.LoDTensor()
    t.set(np.full((rows, 3), value, "float32"), fluid.CPUPlace())
    return [t]


# -- the queue (Paddle 1.8.5: push True while there is room; a push waiting for room
#    returns False when the queue is closed; push after kill raises EnforceNotMet)

def test_queue_is_bounded_and_close_ends_a_waiting_push():
    q = core.init_lod_tensor_blocking_queue(None, 2, False)
    assert (q.push(_batch(0)), q.push(_batch(1)), q.size(), q.capacity()) == (True, True, 2, 2)
    got = []
    waiting = threading.Thread(target=lambda: got.append(q.push(_batch(2))))
    waiting.start()
    q.close()                 # the full queue's waiting push gives up
    waiting.join()
    assert got == [False] and q.push(_batch(3)) is False and q.size() == 2
    # what was queued before the close is still read, in order, then EOF
    assert [float(np.array(q.pop()[0])[0, 0]) for _ in range(2)] == [0.0, 1.0]
    with pytest.raises(core.EOFException):
        q.pop()
    q.reset()
    assert q.push(_batch(4)) is True and q.size() == 1


def test_a_killed_queue_raises_on_both_sides_naming_the_cause():
    q = BlockingQueue(2, name="q")
    q.push(_batch(0))
    q.kill(ValueError("bad sample 7"))
    with pytest.raises(core.EnforceNotMet, match="killed because the data reader raises an "
                                                 "exception.*bad sample 7"):
        q.pop()
    # Paddle 2.0 / 3.3.1 raise their errors::Fatal there, a SystemError
    with pytest.raises(SystemError, match="killed"):
        q.pop()
    with pytest.raises(core.EnforceNotMet, match="killed"):
        q.push(_batch(1))
    assert q.size() == 1        # what it held stays, unread


def test_a_queue_nobody_feeds_times_out_instead_of_hanging():
    q = BlockingQueue(1, name="idle")
    with pytest.raises(core.EnforceNotMet, match="idle: waited 0.01 s for a batch to read"):
        q.pop(timeout=0.01)
    q.push(_batch(0))
    with pytest.raises(core.EnforceNotMet, match="room to push"):
        q.push(_batch(1), timeout=0.01)
    with pytest.raises(ValueError, match="capacity must be a positive int"):
        BlockingQueue(0)


# -- py_reader's queue, pushed by the user (Paddle 1.8.5's test_py_reader_push_pop)

def test_py_reader_reads_what_is_pushed_into_its_queue_until_closed():
    main, startup = Program(), Program()
    with program_guard(main, startup):
        reader = fluid.layers.py_reader(capacity=2, shapes=[(-1, 3)], dtypes=["float32"])
        x = fluid.layers.read_file(reader)
        y = fluid.layers.scale(x, 2.0)
    exe = fluid.Executor(fluid.CPUPlace())
    scope = fluid.Scope()
    exe.run(startup, scope=scope)
    pusher = threading.Thread(target=lambda: [reader.queue.push(_batch(v, rows=v + 1))
                                              for v in range(4)] + [reader.queue.close()])
    pusher.start()
    got = [exe.run(main, fetch_list=[y], scope=scope)[0] for _ in range(4)]
    pusher.join()
    assert [g.shape[0] for g in got] == [1, 2, 3, 4]
    assert [float(g[0, 0]) for g in got] == [0.0, 2.0, 4.0, 6.0]
    with pytest.raises(core.EOFException):
        exe.run(main, fetch_list=[y], scope=scope)
    reader.reset()          # reopens the queue
    reader.queue.push(_batch(5))
    np.testing.assert_array_equal(exe.run(main, fetch_list=[y], scope=scope)[0],
                                  np.full((2, 3), 10.0, "float32"))


# -- from_generator

def _loader_program(iterable, **kwargs):
    main, startup = Program(), Program()
    with program_guard(main, startup):
        x = fluid.data("x", [None, 3], "float32")
        loader = fluid.io.DataLoader.from_generator(feed_list=[x], capacity=2,
                                                    iterable=iterable, **kwargs)
        y = fluid.layers.scale(x, 2.0)
    return main, loader, y


def _counting(stop=None):
    def batches():
        n = 0
        while stop is None or n < stop:
            yield (np.full((2, 3), n, "float32"),)
            n += 1
    return batches


def test_an_iterable_loader_yields_lod_tensors_per_place_and_restarts_each_pass():
    main, loader, y = _loader_program(iterable=True)
    loader.set_batch_generator(_counting(), places=fluid.CPUPlace())   # endless
    exe = fluid.Executor(fluid.CPUPlace())
    for _ in range(2):
        seen = []
        for step in loader():
            (feed,) = step
            assert isinstance(feed["x"], fluid.LoDTensor) and feed["x"].shape() == [2, 3]
            assert feed["x"]._place()._equals(fluid.CPUPlace())
            seen.append(float(exe.run(main, feed=step, fetch_list=[y])[0][0, 0]))
            if len(seen) == 3:
                break          # the next pass stops this one's thread and starts again
        assert seen == [0.0, 2.0, 4.0]
    loader._reset()
    assert loader.queue.size() == 0


def test_a_started_loader_feeds_runs_until_eof_and_its_read_op_is_in_the_program():
    main, loader, y = _loader_program(iterable=False, use_double_buffer=False)
    assert [op.type for op in main.global_block().ops] == ["read", "scale"]
    loader.set_batch_generator(_counting(stop=3))
    exe = fluid.Executor(fluid.CPUPlace())
    for _ in range(2):
        loader.start()
        got = [float(exe.run(main, fetch_list=[y])[0][0, 0]) for _ in range(3)]
        with pytest.raises(core.EOFException):
            exe.run(main, fetch_list=[y])
        loader.reset()
        assert got == [0.0, 2.0, 4.0]


def test_a_run_that_feeds_other_variables_still_reads_a_batch():
    """Paddle 1.8.5 (test_add_reader_dependency): a run with feed= reads from the loader
    too, so 3 batches make 3 runs, the first of them fed."""
    main, startup = Program(), Program()
    with program_guard(main, startup):
        x = fluid.data("x", [None, 3], "float32")
        loader = fluid.io.DataLoader.from_generator(feed_list=[x], capacity=2, iterable=False)
        bias = fluid.data("bias", [1], "float32")
        y = fluid.layers.elementwise_add(x, bias)
    loader.set_batch_generator(_counting(stop=3))
    exe = fluid.Executor(fluid.CPUPlace())
    prog = fluid.CompiledProgram(main)
    loader.start()
    first = exe.run(prog, feed={"bias": np.array([10.0], "float32")}, fetch_list=[y])[0]
    second = exe.run(prog, feed={"bias": np.array([20.0], "float32")}, fetch_list=[y])[0]
    third = exe.run(prog, feed={"bias": np.array([30.0], "float32")}, fetch_list=[y])[0]
    with pytest.raises(core.EOFException):
        exe.run(prog, feed={"bias": np.array([0.0], "float32")}, fetch_list=[y])
    loader.reset()
    assert [first[0, 0], second[0, 0], third[0, 0]] == [10.0, 21.0, 32.0]


def test_readers_feed_one_batch_a_place_on_one_place_and_on_two():
    """Executor.run and the multi-place runner read through one path: a batch for the one
    place, joined with feed=; a batch for each of two places, where a feed= of its own
    is refused (it would have to be split over the places too) before anything is read."""
    main, loader, y = _loader_program(iterable=False, use_double_buffer=False)
    loader.set_batch_generator(_counting(stop=5))
    exe = fluid.Executor(fluid.CPUPlace())
    loader.start()
    np.testing.assert_array_equal(exe.run(main, fetch_list=[y])[0][:, 0], [0.0, 0.0])
    two_places = fluid.CompiledProgram(main).with_data_parallel(places=fluid.cpu_places(2))
    with pytest.raises(core.EnforceNotMet, match="readers feed each of 2 places"):
        exe.run(two_places, feed={"other": np.zeros(1, "float32")}, fetch_list=[y])
    two = exe.run(two_places, fetch_list=[y])[0]      # the refused run read nothing
    np.testing.assert_array_equal(two[:, 0], [2.0, 2.0, 4.0, 4.0])     # 2 x batches 1, 2
    loader.reset()


@pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")
@pytest.mark.parametrize("iterable", [True, False])
def test_a_generator_that_raises_kills_the_queue(iterable):
    """The feeding thread kills the queue and re-raises (its traceback is printed, as
    Paddle's thread does); the reading side gets EnforceNotMet naming the cause."""
    main, loader, y = _loader_program(iterable=iterable)

    def failing():
        yield (np.ones((2, 3), "float32"),)
        raise ValueError("sample 1 is corrupt")
    loader.set_batch_generator(failing, places=fluid.CPUPlace() if iterable else None)
    exe = fluid.Executor(fluid.CPUPlace())
    if iterable:
        with pytest.raises(core.EnforceNotMet, match="killed.*sample 1 is corrupt"):
            for step in loader():
                exe.run(main, feed=step, fetch_list=[y])
    else:
        loader.start()
        with pytest.raises(core.EnforceNotMet, match="killed.*sample 1 is corrupt"):
            for _ in range(3):
                exe.run(main, fetch_list=[y])
        loader.reset()


def test_keep_data_loader_order_is_a_switch_each_loader_takes_when_made():
    assert keep_data_loader_order() is True
    try:
        keep_data_loader_order(False)
        _, unordered, _ = _loader_program(iterable=True)
        assert keep_data_loader_order() is False and unordered._keep_order is False
        with pytest.raises(AssertionError):
            keep_data_loader_order(0)
    finally:
        keep_data_loader_order(True)
    _, ordered, _ = _loader_program(iterable=True)
    assert ordered._keep_order is True


def test_use_pinned_memory_is_a_flag_set_by_a_bool(monkeypatch):
    # Paddle 2.0's fluid.reader.use_pinned_memory: None until set, then the bool given
    from refimpl.fluid import reader
    monkeypatch.setattr(reader, "_pinned_memory", [None])
    assert use_pinned_memory() is None
    use_pinned_memory(False)
    assert use_pinned_memory() is False
    with pytest.raises(AssertionError, match="takes one bool"):
        use_pinned_memory(1)
    assert use_pinned_memory() is False


def test_pyreader_wraps_a_loader_and_the_base_class_does_not_iterate():
    with program_guard(Program(), Program()):
        x = fluid.data("x", [None, 3], "float32")
        reader = fluid.io.PyReader(feed_list=[x], capacity=2, iterable=False)
    assert isinstance(reader._loader, GeneratorLoader) and reader.queue is reader._loader.queue
    with pytest.raises(NotImplementedError):
        iter(DataLoaderBase())
    assert GeneratorLoader._check_input_array([[1, 2], [3, 4]]).shape == (2, 2)
    with pytest.raises(TypeError, match="nested lists of different lengths"):
        GeneratorLoader._check_input_array([np.zeros(2), np.zeros(3)])


def test_a_static_loader_needs_a_feed_list_of_variables():
    with program_guard(Program(), Program()):
        x = fluid.data("x", [None, 3], "float32")
        assert GeneratorLoader(feed_list=(x,), capacity=2)._feed_list == [x]
        with pytest.raises(ValueError, match=r"^DataLoader.from_generator: feed_list \(the "
                           r"data Variables to fill\) is required in static mode$"):
            GeneratorLoader(feed_list=[], capacity=2)
        with pytest.raises(TypeError, match=r"^DataLoader.from_generator: feed_list\[1\] "
                           r"must be a Variable from paddle.static.data, got str$"):
            GeneratorLoader(feed_list=[x, "y"], capacity=2)


# -- what the readers' tests use besides

def test_lod_lengths_take_any_int_sequences_as_paddle_binding_does():
    t = fluid.LoDTensor()
    t.set(np.zeros((10, 1), "float32"), fluid.CPUPlace())
    for lengths in ([range(1, 5)], (range(1, 5),), [np.array([1, 2, 3, 4])]):
        t.set_recursive_sequence_lengths(lengths)
        assert t.recursive_sequence_lengths() == [[1, 2, 3, 4]]
    for bad in ([[1.0, 2.0]], [[-1, 4]], "ab", [["1", "2"]], range(1, 2)):
        with pytest.raises(TypeError):
            t.set_recursive_sequence_lengths(bad)


def test_a_lod_feed_is_not_checked_on_dim_0():
    """Paddle 1.8.5 checks a LoDTensor feed's other dims only (dim 0 is reported as -1)."""
    main = Program()
    with program_guard(main, Program()):
        x = fluid.data("x", [4, 3], "float32")
        y = fluid.layers.scale(x, 2.0)
    t = fluid.LoDTensor()
    t.set(np.ones((10, 2), "float32"), fluid.CPUPlace())
    t.set_recursive_sequence_lengths([[1, 2, 3, 4]])
    exe = fluid.Executor(fluid.CPUPlace())
    with pytest.raises(ValueError, match=r"The fed Variable 'x' should have dimensions = 2, "
                                         r"shape = \(4, 3\), but received fed shape \[-1, 2\]"):
        exe.run(main, feed={"x": t}, fetch_list=[y])


def test_places_number_their_kind_as_paddle_1_8():
    place = core.Place()
    place.set_place(fluid.CPUPlace())
    assert fluid.CPUPlace()._type() == 1 and place._type() == 1
    assert place._equals(fluid.CPUPlace()) and fluid.CPUPlace()._equals(place)
