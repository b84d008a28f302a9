"""paddle.seed, paddle.framework.seed and 2.0's paddle.framework.random._manual_program_seed
(refimpl/framework/random.py): which state each sets."""
import numpy as np
import pytest

import refimpl as paddle
from refimpl import fluid, static


def _draw(n):
    with fluid.dygraph.guard():
        return paddle.rand([n]).numpy()


@pytest.mark.parametrize("version, program_seed", [("1.8", 11), ("2.0", 0), ("3", 0)])
def test_framework_seed_is_paddle_seed_and_replays_the_global_stream(
        paddle_version, version, program_seed):
    # Paddle 2.0's and 3.3.1's paddle.seed seed the generator only (3.3.1: random_seed
    # stays 0 after paddle.seed(5), measured; switch seed_sets_program_seeds); refimpl's
    # 1.8 sets both
    assert paddle.framework.seed is paddle.seed
    with paddle_version(version):
        paddle.framework.seed(11)
    assert static.default_main_program().random_seed == program_seed
    assert static.default_startup_program().random_seed == program_seed
    first = _draw(4)
    paddle.seed(11)
    np.testing.assert_array_equal(_draw(4), first)


def test_manual_program_seed_sets_the_programs_seeds_not_the_generator():
    # Paddle 2.0's _manual_program_seed: the default programs' random_seed and, through
    # Program.global_seed, that of every Program made after (its test_imperative_gnn
    # builds in new_program_scope's new programs); the global generator is untouched
    paddle.seed(3)
    first = _draw(3)
    paddle.seed(3)
    paddle.framework.random._manual_program_seed(2020)
    assert static.default_main_program().random_seed == 2020
    assert static.default_startup_program().random_seed == 2020
    assert fluid.Program().random_seed == 2020
    np.testing.assert_array_equal(_draw(3), first)


def test_global_seed_seeds_the_programs_made_after_it():
    # Paddle 1.8.5 (measured): Program().global_seed(7) gives later Programs random_seed 7
    # and leaves the existing default main program's 0; a program seed fixes the
    # initializers' draws, so two new programs' parameters start equal
    fluid.Program().global_seed(7)
    assert fluid.Program().random_seed == 7 and static.default_main_program().random_seed == 0
    values = []
    for _ in range(2):
        main, startup = fluid.Program(), fluid.Program()
        with fluid.program_guard(main, startup):
            x = static.data("x", [None, 3], "float32")
            fluid.layers.fc(x, 4)
        scope = fluid.core.Scope()
        with fluid.scope_guard(scope):
            fluid.Executor(fluid.CPUPlace()).run(startup)
        values.append(np.array(scope.find_var(main.all_parameters()[0].name).get_tensor()))
    np.testing.assert_array_equal(values[0], values[1])
    assert values[0].std() > 0


@pytest.mark.parametrize("version, equal", [("2.0", True), ("3", False)])
def test_dynamic_parameters_take_the_main_programs_seed_under_paddle_20(
        paddle_version, version, equal):
    """Paddle 2.0 (switch eager_init_program_seed): with _manual_program_seed(1) two
    Linear(2, 2) start equal (its test_regularizer_api and test_transformer_api rely on
    it); after paddle.seed alone they differ. Paddle 3.3.1: they differ either way
    (measured)."""
    with paddle_version(version):
        try:
            paddle.seed(1)
            paddle.framework.random._manual_program_seed(1)
            with fluid.dygraph.guard():
                a, b = paddle.nn.Linear(2, 2), paddle.nn.Linear(2, 2)
                assert np.array_equal(a.weight.numpy(), b.weight.numpy()) == equal
                paddle.framework.random._manual_program_seed(0)
                paddle.seed(1)
                c, d = paddle.nn.Linear(2, 2), paddle.nn.Linear(2, 2)
                assert not np.array_equal(c.weight.numpy(), d.weight.numpy())
        finally:
            paddle.framework.random._manual_program_seed(0)


def test_uniform_draws_in_chunks_the_values_of_one_draw(monkeypatch, paddle_version):
    # a 2**26-wide fc weight (Paddle 2.0's test_static_save_load) is drawn a chunk at a
    # time where numpy's stream draws it (float16 under 1.8): the values are those of one
    # float64 draw, cast
    from refimpl.framework import minstd, random as refimpl_random
    monkeypatch.setattr(refimpl_random, "_CHUNK", 7)
    with paddle_version("1.8"):
        got = refimpl_random.uniform(5, -2.0, 3.0, [4, 6], "float16")
        want = np.random.RandomState(5).uniform(-2.0, 3.0, size=[4, 6]).astype("float16")
        assert got.dtype == np.float16 and got.shape == (4, 6)
        np.testing.assert_array_equal(got, want)
        # seed 0 under 1.8: 1.8.5's minstd stream of a seed the global stream draws (Paddle
        # takes std::random_device)
        paddle.seed(9)
        first = refimpl_random.uniform(0, 0.0, 1.0, [23], "float64")
    seed = np.random.RandomState(9).randint(1, 2**31 - 1)
    np.testing.assert_array_equal(first, minstd.uniform_real(seed, 0.0, 1.0, (23,), "float64"))


def test_dynamic_parameters_take_the_main_programs_seed_under_the_legacy_ir_of_3(
        paddle_version):
    """Paddle 3.3.1 with FLAGS_enable_pir_api off (OldIrGuard; the legacy IR its early-2024
    tests ran under): after _manual_program_seed(1) a dynamic Linear(2, 2) starts as the
    static one under startup seed 1 does, every such layer alike (measured values)."""
    from refimpl import pir_utils
    with paddle_version("3"):
        try:
            paddle.framework.random._manual_program_seed(1)
            with pir_utils.OldIrGuard(), fluid.dygraph.guard():
                a, b = paddle.nn.Linear(2, 2), paddle.nn.Linear(2, 2)
            np.testing.assert_allclose(a.weight.numpy().ravel(),
                                       [-0.8968154, -0.89061725, -0.11949861, -1.1732463],
                                       rtol=1e-6)
            np.testing.assert_array_equal(a.weight.numpy(), b.weight.numpy())
        finally:
            paddle.framework.random._manual_program_seed(0)


def _seed_op_program(seed_attr):
    main = static.Program()
    with static.program_guard(main, static.Program()):
        out = main.global_block().create_var(name="seed_out", shape=[1], dtype="int32")
        main.global_block().append_op(type="seed", outputs={"Out": [out]},
                                      attrs={"seed": seed_attr})
    return main, out


@pytest.mark.parametrize("version", ["1.8", "2.0", "3"])
def test_seed_op_of_seed_0_draws_the_global_stream_replayably(paddle_version, version):
    # Paddle 1.8.5 and 3.3.1 take std::random_device here (any int32, measured; not
    # replayed by paddle.seed). refimpl, an oracle, keeps it reproducible: each run the
    # next draw in [1, 2^31 - 1) of the global numpy stream, RandomState(s) after
    # paddle.seed(s); a nonzero attr is the output and draws nothing
    exe = static.Executor()
    with paddle_version(version):
        zero, out = _seed_op_program(0)
        fixed, fixed_out = _seed_op_program(-7)
        paddle.seed(10)
        first = [exe.run(zero, fetch_list=[out])[0] for _ in range(2)]
        assert exe.run(fixed, fetch_list=[fixed_out])[0].tolist() == [-7]
        first.append(exe.run(zero, fetch_list=[out])[0])
        paddle.seed(10)
        again = [exe.run(zero, fetch_list=[out])[0] for _ in range(3)]
    stream = np.random.RandomState(10)
    expected = [[int(stream.randint(1, 2**31 - 1))] for _ in range(3)]
    assert [v.tolist() for v in first] == [v.tolist() for v in again] == expected
    assert {v.dtype for v in first} == {np.dtype(np.int32)} and first[0].shape == (1,)
    assert len({v[0] for v in first}) == 3
