"""fluid.contrib.memory_usage and op_freq_statistic (Paddle 1.8; specs/fluid_contrib.md)."""
import pytest

from refimpl import fluid

pytestmark = pytest.mark.paddle("1.8")


def _mlp():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        x = fluid.data(name="x", shape=[None, 300], dtype="float32")
        h = fluid.layers.fc(x, size=200, act="relu")
        loss = fluid.layers.reduce_mean(fluid.layers.fc(h, size=10))
        fluid.optimizer.SGD(0.1).minimize(loss)
    return main, startup


def test_memory_usage_as_paddle18():
    main, startup = _mlp()
    low, high, unit = fluid.contrib.memory_usage(main, 32)
    # Paddle 1.8.5 on the same program
    assert (low, high, unit) == (pytest.approx(673.074609375), pytest.approx(705.12578125),
                                 "KB")
    assert fluid.contrib.memory_usage(fluid.Program(), 1) == (0.0, 0.0, "B")
    # the startup program writes the parameters, (300 * 200 + 200 + 200 * 10 + 10) floats,
    # and the learning rate
    low, high, unit = fluid.contrib.memory_usage(startup, 1)
    assert unit == "KB" and low == pytest.approx(62211 * 4 / 1024 * 1.05)
    with pytest.raises(ValueError, match="positive"):
        fluid.contrib.memory_usage(main, 0)
    with pytest.raises(TypeError, match="Program"):
        fluid.contrib.memory_usage("main", 1)


def test_op_freq_statistic_counts_ops_and_producer_consumer_pairs():
    main, _ = _mlp()
    single, pairs = fluid.contrib.op_freq_statistic(main)
    counts = dict(single)
    assert counts["mul"] == 2 and counts["relu"] == 1 and "sgd" not in counts
    assert [c for _, c in single] == sorted((c for _, c in single), reverse=True)
    assert dict(pairs)["mul->elementwise_add"] == 2
    assert dict(pairs)["elementwise_add->relu"] == 1
