"""Paddle 1.8's partial feeds of data-parallel inference programs, return_merged=False,
and fluid readers feeding a compiled program one batch per place
(specs/compiled_program.md, "Partial feeds")."""
import numpy as np
import pytest

from refimpl import fluid
from refimpl.framework.errors import FeedError


def _inference(persistable_lr=False):
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = fluid.data("x", [None, 3], "float32")
        lr = fluid.data("lr", [1] if persistable_lr else [None], "float32")
        lr.persistable = persistable_lr
        out = fluid.layers.relu(x)
        out_lr = fluid.layers.relu(lr)
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup)
    prog = fluid.CompiledProgram(main).with_data_parallel(places=fluid.cpu_places(4))
    return exe, prog, out, out_lr


def test_fewer_samples_than_places_feed_only_the_first_places():
    exe, prog, out, out_lr = _inference()
    x = np.arange(6, dtype="float32").reshape(2, 3) - 2
    lr = np.array([-1.0, 2.0], "float32")
    got, got_lr = exe.run(prog, feed={"x": x, "lr": lr}, fetch_list=[out, out_lr])
    np.testing.assert_array_equal(got, np.maximum(x, 0))
    np.testing.assert_array_equal(got_lr, [0.0, 2.0])
    parts, _ = exe.run(prog, feed={"x": x, "lr": lr}, fetch_list=[out, out_lr],
                       return_merged=False)
    assert len(parts) == 2 and all(p.shape == (1, 3) for p in parts)
    # a list of fewer dicts than places: those places
    got, _ = exe.run(prog, feed=[{"x": x[:1], "lr": lr[:1]}], fetch_list=[out, out_lr])
    np.testing.assert_array_equal(got, np.maximum(x[:1], 0))
    with pytest.raises(FeedError, match="different numbers of devices"):
        exe.run(prog, feed={"x": x, "lr": lr[:1]}, fetch_list=[out])


def test_persistable_feeds_of_a_partial_feed():
    exe, prog, out, out_lr = _inference(persistable_lr=True)
    x = np.ones((6, 3), "float32")
    _, got_lr = exe.run(prog, feed={"x": x, "lr": np.array([0.5], "float32")},
                        fetch_list=[out, out_lr])
    np.testing.assert_array_equal(got_lr, [0.5] * 4)       # copied to every place
    _, got_lr = exe.run(prog, feed={"x": x[:2], "lr": np.array([1, 2], "float32")},
                        fetch_list=[out, out_lr])
    np.testing.assert_array_equal(got_lr, [1, 2])


def test_training_programs_need_every_place_fed():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = fluid.data("x", [None, 3], "float32")
        loss = fluid.layers.mean(fluid.layers.fc(x, 2))
        fluid.optimizer.SGD(0.1).minimize(loss)
    exe = fluid.Executor(fluid.CPUPlace())
    scope = fluid.Scope()
    exe.run(startup, scope=scope)
    prog = fluid.CompiledProgram(main).with_data_parallel(loss_name=loss.name,
                                                          places=fluid.cpu_places(4))
    with pytest.raises(FeedError, match="fewer than the 4 devices"):
        exe.run(prog, feed={"x": np.ones((2, 3), "float32")}, fetch_list=[loss], scope=scope)


@pytest.mark.parametrize("drop_last", [True, False])
def test_a_started_loader_feeds_one_batch_per_place(drop_last):
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = fluid.data("x", [None, 1], "float32")
        loader = fluid.io.DataLoader.from_generator(feed_list=[x], capacity=4, iterable=False,
                                                    drop_last=drop_last)
        y = fluid.layers.scale(x, 2.0)
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup)
    prog = fluid.CompiledProgram(main).with_data_parallel(places=fluid.cpu_places(4))
    loader.set_batch_generator(lambda: ([np.full((2, 1), i, "float32")] for i in range(6)))
    loader.start()
    rows = []
    with pytest.raises(fluid.core.EOFException):
        while True:
            (got,) = exe.run(prog, fetch_list=[y])
            rows.append(got[:, 0].tolist())
    loader.reset()
    want = [[0, 0, 2, 2, 4, 4, 6, 6]] + ([] if drop_last else [[8, 8, 10, 10]])
    assert rows == want
