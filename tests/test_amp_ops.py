"""Paddle 2.0's AMP ops check_finite_and_unscale and update_loss_scaling, run through
amp_nn's layer functions (specs/ops/amp.md); values derived by hand from the rules."""
import numpy as np
import pytest

from refimpl import fluid
from refimpl.fluid.contrib.mixed_precision import amp_nn


def _run(build, feed):
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        fetches = build()
    exe = fluid.Executor(fluid.CPUPlace())
    with fluid.scope_guard(fluid.Scope()):
        return exe.run(main, feed=feed, fetch_list=fetches)


def test_check_finite_and_unscale_divides_until_a_non_finite_tensor():
    a = np.array([2.0, 4.0], "float32")
    b = np.array([1.0, np.inf], "float32")
    c = np.array([6.0], "float32")

    def build():
        xs = [fluid.data(n, [None], "float32") for n in "abc"]
        scale = fluid.data("scale", [1], "float32")
        outs, found = amp_nn.check_finite_and_unscale(xs, scale)
        return list(outs) + [found]
    finite = _run(build, {"a": a, "b": np.array([1.0, 3.0], "float32"), "c": c,
                          "scale": np.array([2.0], "float32")})
    assert [v.tolist() for v in finite] == [[1.0, 2.0], [0.5, 1.5], [3.0], [False]]
    out_a, out_b, out_c, found = _run(build, {"a": a, "b": b, "c": c,
                                              "scale": np.array([2.0], "float32")})
    assert out_a.tolist() == [1.0, 2.0] and found.tolist() == [True]
    assert out_b[0] == 0.0 and np.isnan(out_b[1]) and out_c.tolist() == [0.0]   # x * 0


def test_static_amp_names_amp_nn_and_it_runs_eagerly():
    # Paddle 3's op tests: `from paddle.static.amp import amp_nn`, called in dygraph
    from refimpl.static.amp import amp_nn as static_amp_nn
    assert static_amp_nn is amp_nn
    with fluid.dygraph.guard():
        x = fluid.dygraph.to_variable(np.array([2.0, 4.0], "float32"))
        outs, found = static_amp_nn.check_finite_and_unscale(
            [x], fluid.dygraph.to_variable(np.array([2.0], "float32")))
        assert outs[0] is x and x.numpy().tolist() == [1.0, 2.0]
        assert found.numpy().tolist() == [False]


@pytest.mark.parametrize("found, good, bad, want", [
    (False, 999, 1, (4096.0, 0, 0)),        # the 1000th finite step doubles the scaling
    (False, 5, 1, (2048.0, 6, 0)),          # counts good steps, resets bad ones
    (True, 999, 1, (1638.4, 0, 0)),         # the 2nd non-finite step: * 0.8
    (True, 999, 0, (2048.0, 0, 1)),
])
def test_update_loss_scaling_steps_in_place(found, good, bad, want):
    x = np.arange(4, dtype="float32").reshape(2, 2)

    def build():
        xv = fluid.data("x", [2, 2], "float32")
        vs = [fluid.data(n, [1], d) for n, d in (("found", "bool"), ("scaling", "float32"),
                                                 ("good", "int32"), ("bad", "int32"))]
        out = amp_nn.update_loss_scaling([xv], *vs, incr_every_n_steps=1000,
                                         decr_every_n_nan_or_inf=2, incr_ratio=2,
                                         decr_ratio=0.8)
        return out + vs[1:]
    out, scaling, good_out, bad_out = _run(build, {
        "x": x, "found": np.array([found]), "scaling": np.array([2048.0], "float32"),
        "good": np.array([good], "int32"), "bad": np.array([bad], "int32")})
    np.testing.assert_array_equal(out, np.zeros_like(x) if found else x)
    np.testing.assert_allclose(scaling, [want[0]], rtol=1e-6)
    assert (good_out.tolist(), bad_out.tolist()) == ([want[1]], [want[2]])


@pytest.mark.parametrize("stop", [True, False])
def test_update_loss_scaling_reads_a_stop_update_tensor(stop):
    # Paddle 3's StopUpdate input decides in place of the attr (stop_update=False here)
    from refimpl.ops.registry import get_op_def
    forward = get_op_def("update_loss_scaling").forward
    x = np.ones(2, "float32")
    _, scaling, good, bad = forward(
        [x], np.array([False]), np.array([1024.0], "float32"), np.array([999], "int32"),
        np.array([0], "int32"), np.array([stop]), incr_every_n_steps=1000)
    assert (scaling.tolist(), good.tolist()) == (([1024.0], [999]) if stop else
                                                 ([2048.0], [0]))


def test_update_loss_scaling_checks_its_ratios_and_dtypes():
    with fluid.program_guard(fluid.Program(), fluid.Program()):
        x = fluid.data("x", [2], "float32")
        found, good, bad = (fluid.data(n, [1], d) for n, d in
                            (("f", "bool"), ("g", "int32"), ("b", "int32")))
        scaling = fluid.data("s", [1], "float32")
        with pytest.raises(Exception, match="'incr_ratio' should be greater than 1, but the "
                                            "received is 1.000000"):
            amp_nn.update_loss_scaling([x], found, scaling, good, bad, 10, 2, 1.0, 0.5)
        with pytest.raises(AssertionError, match="prev_loss_scaling is float64"):
            amp_nn.update_loss_scaling([x], found, fluid.data("s64", [1], "float64"),
                                       good, bad, 10, 2, 2.0, 0.5)
        with pytest.raises(TypeError, match="x must be a list or tuple"):
            amp_nn.check_finite_and_unscale(x, scaling)
