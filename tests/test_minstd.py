"""framework/minstd.py: std::minstd_rand through uniform_real_distribution<float>, drawn by
jump-ahead, against a one-number-at-a-time reference and masks recorded from Paddle 1.8.5."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from refimpl.framework import libc_rand, minstd


def reference_draws(seed, n):
    """The engine and distribution step by step, in plain Python."""
    state = (seed % 2**64) % (2**31 - 1) or 1
    draws = []
    for _ in range(n):
        state = state * 48271 % (2**31 - 1)
        u = np.float32(state - 1) / np.float32(2**31)
        draws.append(min(u, np.nextafter(np.float32(1), np.float32(0))))
    return np.array(draws, np.float32)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(-2**31, 2**31 - 1), n=st.integers(0, 300))
def test_jump_ahead_equals_the_sequential_engine(seed, n):
    np.testing.assert_array_equal(minstd.uniform_float32(seed, n), reference_draws(seed, n))


def test_first_outputs_are_the_engines():
    # the C++ standard's check value: the 10000th output of a default-seeded (1) minstd_rand
    assert minstd.states(1, 10000)[-1] == 399268537
    assert minstd.states(0, 3).tolist() == minstd.states(2**31 - 1, 3).tolist() == \
        [48271, 182605794, 1291394886]


# Paddle 1.8.5, fluid.layers.dropout(ones(shape), p, seed=seed) on the CPU: its Mask
MASKS_1_8_5 = [
    (1, 20, 0.5, "00111010010111111111"),
    (7, 15, 0.3, "010011111011010"),
    (90, 64, 0.1, "0111101111011110111111111111111111100111111011111111111110111111"),
    (123456, 40, 0.7, "1101101000001111100100001010001010000100"),
    (2**31 - 1, 16, 0.5, "0011101001011111"),
    (-5, 40, 0.5, "1100010110100000000011000010010110100001"),
    (-2**31 + 1, 40, 0.5, "0001110101000000111101111110101100101000"),
    (48271, 40, 0.5, "0111010010111111111001111011010010111101"),
]


@pytest.mark.parametrize("seed, n, p, mask", MASKS_1_8_5)
def test_masks_recorded_from_paddle_1_8_5(seed, n, p, mask):
    kept = (minstd.uniform_float32(seed, n) >= np.float32(p)).astype(int)
    assert "".join(map(str, kept)) == mask


def test_a_long_mask_recorded_from_paddle_1_8_5():
    # seed 90, 3003 elements ([3, 7, 11, 13]), p 0.1: 2707 kept; its first 256 bits packed
    kept = (minstd.uniform_float32(90, 3003) >= np.float32(0.1)).astype(np.uint8)
    assert int(kept.sum()) == 2707
    assert np.packbits(kept)[:32].tobytes().hex() == (
        "7bdeffffe7efffbf7eebf7fffffefffffffffdffbffdfbdfbffffefdfffb3d7f")


def test_draws_compare_in_float32():
    # seed 1's third draw rounds up onto 0.60135263 in float32: Paddle 1.8.5 keeps it
    # (draw < p is false), as an exact comparison would not
    p = float(np.float32(0.6013526320457458))
    assert minstd.states(1, 3)[2] - 1 < p * 2**31
    assert (minstd.uniform_float32(1, 3) >= np.float32(p)).tolist() == [False, False, True]


@pytest.mark.parametrize("version", ["1.8", "2.0"])
def test_gaussian_random_batch_size_like_draws_paddles_values(paddle_version, version):
    # Paddle 1.8.5, measured (2.0's kernel is the same, read): a fresh std::minstd_rand
    # seeded with the attr as an unsigned int, one std::normal_distribution<float>
    from refimpl import fluid
    with paddle_version(version):
        main, startup = fluid.Program(), fluid.Program()
        with fluid.program_guard(main, startup):
            x = fluid.data("x", [3, 2], "float32")
            a = fluid.layers.gaussian_random_batch_size_like(x, [-1, 5], mean=0.5, std=2.0,
                                                             seed=7)
            b = fluid.layers.gaussian_random_batch_size_like(x, [-1, 3], seed=-5)
        got = fluid.Executor(fluid.CPUPlace()).run(
            main, feed={"x": np.zeros([3, 2], "float32")}, fetch_list=[a, b])
    assert got[0].ravel().tolist() == [
        -0.8325995206832886, -0.9964474439620972, -0.8904818296432495, 2.7265100479125977,
        3.1434826850891113, 1.4687459468841553, -0.3450629711151123, 1.4735914468765259,
        1.8533464670181274, 0.9060537219047546, 0.9441720247268677, -0.6289873123168945,
        1.0009335279464722, -1.6785800457000732, 0.7294749021530151]
    assert got[1].ravel().tolist() == [
        -0.5936342477798462, -1.0324040651321411, -0.15043926239013672, -0.8796592354774475,
        1.3715683221817017, -0.20139271020889282, 0.6627920866012573, -0.7101553082466125,
        -0.8989895582199097]


def test_float64_normal_takes_two_draws_a_canonical():
    # generate_canonical<double> over minstd_rand: two draws a value (as uniform_real); the
    # first pair of seed 2 is accepted, that of seed 1 is not
    for seed, accepted in ((1, False), (2, True)):
        a, b = 2 * minstd.canonical(seed, 2, "float64") - 1
        r2 = a * a + b * b
        assert (r2 <= 1) == accepted
    mult = np.sqrt(-2 * np.log(r2) / r2)
    np.testing.assert_allclose(minstd.normal(2, 0.0, 1.0, (2,), "float64"),
                               [b * mult, a * mult], rtol=1e-15)


def test_random_crop_draws_paddles_offsets_and_feeds_its_seed_back():
    # Paddle 1.8.5, measured (2.0's kernel is the same, read): instance i's minstd_rand of
    # the seed skips i * 2 outputs, uniform_int_distribution<size_t> offsets; SeedOut,
    # the persistable seed variable, seeds the next run
    from refimpl import fluid
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = fluid.data("x", [4, 5, 7], "float32")
        crops = [fluid.layers.random_crop(x, [3, 4], seed=123),
                 fluid.layers.random_crop(x, [2, 7], seed=-9)]
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup)
    images = np.arange(140, dtype="float32").reshape(4, 5, 7)
    corners = [[out[:, 0, 0].tolist() for out in exe.run(main, feed={"x": images},
                                                         fetch_list=crops)]
               for _ in range(2)]
    assert corners == [[[1.0, 51.0, 71.0, 115.0], [21.0, 56.0, 70.0, 112.0]],
                       [[7.0, 51.0, 80.0, 122.0], [7.0, 35.0, 91.0, 112.0]]]


def test_truncated_normal_of_1_8_draws_paddles_values(paddle_version):
    # Paddle 1.8.5, measured: a fresh std::minstd_rand of the seed attr (as an unsigned
    # int), one canonical draw a value through the inverse cdf, and 1.8.5's erfinv, whose
    # |x| was an int abs, so that every value takes the central approximation (its first
    # value, -1.997223, is where the three-range erfinv of 3.3.1 gives -1.9972264)
    from refimpl import fluid
    with paddle_version("1.8"):
        main, startup = fluid.Program(), fluid.Program()
        with fluid.program_guard(main, startup):
            params = [fluid.layers.create_parameter(
                [8], "float32", default_initializer=fluid.initializer.TruncatedNormal(
                    mean, std, seed=seed)) for mean, std, seed in ((0.0, 1.0, 7), (0.5, 2.0, -9))]
        scope = fluid.Scope()
        with fluid.scope_guard(scope):
            fluid.Executor(fluid.CPUPlace()).run(startup)
            got = [np.array(scope.find_var(p.name).get_tensor()).tolist() for p in params]
    assert got == [
        [-1.9972230195999146, 0.2298460304737091, -0.7631482481956482, -0.6649200916290283,
         0.7164587378501892, -0.42433086037635803, 0.25350484251976013, 0.7489058971405029],
        [4.494451999664307, 0.040307946503162384, 2.0262961387634277, 1.8298401832580566,
         -0.9329178333282471, 1.3486618995666504, -0.007009686902165413,
         -0.9978118538856506]]


def _run_1_8(paddle_version, build, startup_seed=0, feed=None):
    from refimpl import fluid
    with paddle_version("1.8"):
        main, startup = fluid.Program(), fluid.Program()
        startup.random_seed = startup_seed
        with fluid.program_guard(main, startup):
            fetch = build(fluid)
        exe = fluid.Executor(fluid.CPUPlace())
        scope = fluid.core.Scope()
        with fluid.scope_guard(scope):
            exe.run(startup)
            got = exe.run(main, feed=feed, fetch_list=fetch)
            params = {p.name: np.asarray(scope.find_var(p.name).get_tensor())
                      for p in main.global_block().all_parameters()}
    return [np.asarray(v).ravel().tolist() for v in got], params


def test_gaussian_randint_randperm_of_1_8_draw_paddles_values(paddle_version):
    # Paddle 1.8.5, measured: gaussian_random a fresh std::minstd_rand of the seed through
    # one normal_distribution<T>; randint its uniform_int_distribution (GCC before 11:
    # downscaled, upscaled above the engine's range); randperm std::random_shuffle over
    # the C library's rand() after srand(seed)
    def build(fluid):
        return [fluid.layers.gaussian_random([7], mean=1.0, std=2.0, seed=10),
                fluid.layers.gaussian_random([3], seed=10, dtype="float64"),
                fluid.layers.randint(-5, 1000, [8], seed=10),
                fluid.layers.randint(0, 2**31 - 1, [4], seed=10),
                fluid.layers.randperm(10, seed=10), fluid.layers.randperm(9, seed=3)]

    got, _ = _run_1_8(paddle_version, build)
    assert got[0] == [2.352991819381714, 1.6120951175689697, -1.001833438873291,
                      4.982396602630615, 1.455836296081543, 2.7350754737854004,
                      2.6894731521606445]
    assert got[1] == [2.011973129842973, -1.2562909743620125, 0.13800542523099724]
    assert got[2] == [-5, 849, 8, 915, 677, 896, 145, 979]
    assert got[3] == [1826057939, 1967337193, 2104714108, 1430468126]
    assert got[4] == [5, 2, 3, 7, 8, 4, 6, 9, 0, 1]
    assert got[5] == [7, 8, 0, 5, 3, 1, 4, 6, 2]


def test_initializers_of_1_8_take_paddles_values_from_the_program_seed(paddle_version):
    # Paddle 1.8.5, measured: a startup program of random_seed 7 gives its initializers'
    # ops seed 7, so Normal, Uniform and Xavier start from 1.8.5's very values
    def build(fluid):
        x = fluid.data("x", [2, 3], "float32")
        fluid.layers.fc(x, 4, param_attr=fluid.ParamAttr(
            name="w", initializer=fluid.initializer.Normal(0.0, 2.0)),
            bias_attr=fluid.ParamAttr(name="b", initializer=fluid.initializer.Uniform(-1, 1)))
        fluid.layers.fc(x, 2, param_attr=fluid.ParamAttr(
            name="w2", initializer=fluid.initializer.Xavier()), bias_attr=False)
        return []

    _, params = _run_1_8(paddle_version, build, startup_seed=7,
                         feed={"x": np.zeros([2, 3], "float32")})
    np.testing.assert_array_equal(params["w"].ravel()[:4], np.float32(
        [-1.3325995206832886, -1.4964474439620972, -1.3904818296432495, 2.2265100479125977]))
    np.testing.assert_array_equal(params["b"], np.float32(
        [-0.9996852874755859, 0.19045424461364746, -0.5810635089874268, -0.5174421072006226]))
    np.testing.assert_array_equal(params["w2"].ravel()[:3], np.float32(
        [-1.0951004028320312, 0.208632230758667, -0.6365232467651367]))


def test_glibc_rand_and_uniform_ints_above_the_engines_range():
    # glibc's TYPE_3 generator: srand(1)'s first rand() values (the C standard's default)
    assert libc_rand.outputs(1, 3).tolist() == [1804289383, 846930886, 1681692777]
    assert libc_rand.outputs(0, 3).tolist() == libc_rand.outputs(1, 3).tolist()
    # upscaling: a draw over [0, 1] times 2^31 - 2 plus a draw, redrawn while above the range
    assert minstd.uniform_ints(10, 0, 2**31 - 1, 1).tolist() == [1826057939]
    values = minstd.uniform_ints(3, 0, 10, 20000)
    np.testing.assert_allclose(np.bincount(values, minlength=10) / 20000, 0.1, atol=0.01)


def test_downscaling_divides_by_the_engines_whole_range():
    # libstdc++'s s = (2^31 - 3) // k (max() - min() of minstd_rand, whose outputs are 1 ..
    # 2^31 - 2); k = 5 divides 2^31 - 3, so s is one more than (2^31 - 4) // 5. Seed
    # 958059494's first output is s = 429496729: (s - 1) // s = 0. Paddle 1.8.5,
    # fluid.layers.randint(0, 5, [4], seed=958059494), measured:
    assert minstd.states(958059494, 1).tolist() == [429496729]
    assert minstd.uniform_ints(958059494, 0, 5, 4).tolist() == [0, 0, 3, 4]
    # random_crop's offsets are the same distribution's draws: 1.8.5's
    # fluid.layers.random_crop(x, [1, 1], seed=958059494) of a [1, 5, 5] x takes x[0, 0, 0]
    offsets, _ = minstd.crop_offsets(958059494, 1, [4, 4])
    assert offsets.tolist() == [[0, 0]]


def test_dygraph_initializers_of_1_8_take_paddles_values(paddle_version):
    # Paddle 1.8.5, measured: eager initializers take the default programs' random_seed
    from refimpl import fluid
    with paddle_version("1.8"), fluid.dygraph.guard():
        fluid.default_startup_program().random_seed = 7
        fluid.default_main_program().random_seed = 7
        normal = fluid.dygraph.Linear(3, 4, param_attr=fluid.ParamAttr(
            initializer=fluid.initializer.Normal(0.0, 2.0)))
        xavier = fluid.dygraph.Linear(3, 2)
        uniform = fluid.dygraph.Embedding([10, 3], param_attr=fluid.ParamAttr(
            initializer=fluid.initializer.Uniform(-0.5, 0.5)))
        got = [layer.weight.numpy().ravel()[:3] for layer in (normal, xavier, uniform)]
    np.testing.assert_array_equal(got[0], np.float32(
        [-1.3325995206832886, -1.4964474439620972, -1.3904818296432495]))
    np.testing.assert_array_equal(got[1], np.float32(
        [-1.0951004028320312, 0.208632230758667, -0.6365232467651367]))
    np.testing.assert_array_equal(got[2], np.float32(
        [-0.49984264373779297, 0.09522712230682373, -0.2905317544937134]))


def test_sampling_id_of_1_8_draws_paddles_ids(paddle_version):
    # Paddle 1.8.5, measured: one uniform_real_distribution<T>(min, max) draw a row over a
    # fresh std::minstd_rand of the seed
    x = np.random.RandomState(1).dirichlet(np.ones(4), 12).astype("float32")

    def build(fluid):
        xv = fluid.layers.assign(x)
        return [fluid.layers.sampling_id(xv, seed=5),
                fluid.layers.sampling_id(xv, min=0.2, max=0.9, seed=123)]

    got, _ = _run_1_8(paddle_version, build)
    assert got[0] == [0, 2, 0, 1, 2, 3, 1, 3, 0, 3, 0, 2]
    assert got[1] == [0, 2, 3, 1, 0, 1, 0, 3, 0, 1, 0, 2]
