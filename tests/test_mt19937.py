"""Paddle 2.x's CPU random streams (framework/mt19937.py, _kernels/mt19937.pyx): the
engine against the C++ standard, the compiled kernels against the numpy reference, and
the random ops and initializers against values measured on Paddle 3.3.1 (CPU)."""
import math

import numpy as np
import pytest

import refimpl as paddle
from refimpl import fluid, static
from refimpl.framework import mt19937, random

pytestmark = pytest.mark.paddle("2.0")

# Paddle 3.3.1, after paddle.seed(10)
RAND_5 = [0.2726852297782898, 0.5488825440406799, 0.865546464920044, 0.3776485025882721,
          0.3802993893623352]
RAND_3_FLOAT64 = [0.2726852346650834, 0.5488825455408284, 0.8655464883482679]
RANDN_5 = [0.36792588233947754, -1.7109376192092896, -0.3237624168395996, 0.9672967195510864,
           -1.5195047855377197]
RANDN_3_AFTER = [2.2155983448028564, 0.189898282289505, -0.1794823706150055]


@pytest.fixture(params=["cython", "numpy"])
def kernels(request, monkeypatch):
    """Each test on the compiled kernels and on the numpy references."""
    monkeypatch.setenv("REFIMPL_KERNELS", request.param)
    if request.param == "cython":
        pytest.importorskip("refimpl._kernels.mt19937")
    return request.param


def test_engine_is_the_standards_mt19937_64():
    # [rand.predef]: the 10000th draw of a default-constructed std::mt19937_64 (seed 5489)
    assert mt19937.Engine.from_seed(5489).draws(10000)[-1] == 9981545732273789042
    # Paddle 3.3.1: core.default_cpu_generator().manual_seed(10); .random() three times
    engine = mt19937.Engine.from_seed_sequence(10)
    assert [engine() for _ in range(3)] == [5030154736546224737, 10125095844117889546,
                                            15966514554458524581]
    # std::seed_seq keeps a seed's low 32 bits
    assert mt19937.Engine.from_seed_sequence(2**32 + 10) == mt19937.Engine.from_seed_sequence(10)


@pytest.fixture
def kernel_loader():
    """Installs loaders in the test; the one before is put back after it."""
    before = mt19937._loader[0]
    yield mt19937.use_kernel_loader
    mt19937.use_kernel_loader(before)


def test_compiled_kernels_equal_the_numpy_reference(kernel_loader):
    kernel = pytest.importorskip("refimpl._kernels.mt19937")
    kernel_loader(lambda name: None)
    ref = mt19937.Engine.from_seed(12345)
    expected = [ref.draws(n) for n in (1, 311, 313, 1000)]
    normals = [ref.normal(0.5, 2.0, n, dtype) for n, dtype in
               ((20001, "float32"), (7, "float64"), (20000, "float64"), (1, "float32"))]
    uniforms = [ref.uniform(-0.3, 0.7, n, dtype) for n, dtype in
                ((1001, "float32"), (999, "float64"))]
    truncated = [ref.truncated_normal(0.5, 2.0, cdf_low, cdf_high, n, dtype, clip)
                 for n, dtype, cdf_low, cdf_high, clip in (
                     (5001, "float32", 0.02275013, 0.97724986, None),
                     (3000, "float64", 0.0013, 0.9999, (-1.0, 2.5)),
                     (3000, "float64", 0.0, 1.0, None))]
    # the compiled erfinv (inline in the truncated normal) in its three ranges, |x| <= 0.85,
    # r = sqrt(ln 2 - log(1 - |x|)) up to 5 and above, and at +-1: with cdf_low = cdf_high
    # = c every draw is sqrt(2) erfinv(2 c - 1) std + mean, whatever the uniform draw
    cdfs = np.concatenate([np.linspace(0, 1, 401), [0.5e-13, 1 - 0.5e-15]])
    points = [(dtype, c) for dtype in ("float32", "float64") for c in cdfs.astype(dtype)]
    inverses = [ref.truncated_normal(0.5, 2.0, c, c, 2, dtype) for dtype, c in points]
    assert np.isinf(inverses[0]).all() and np.isfinite(np.concatenate(inverses[1:400])).all()
    kernel_loader(lambda name: getattr(kernel, name))
    engine = mt19937.Engine.from_seed(12345)
    for e in expected:
        assert (engine.draws(e.size) == e).all()
    for n in normals:
        got = engine.normal(0.5, 2.0, n.size, n.dtype)
        assert got.dtype == n.dtype and (got == n).all()
    for u in uniforms:
        got = engine.uniform(-0.3, 0.7, u.size, u.dtype)
        assert got.dtype == u.dtype and (got == u).all()
    for t, (cdf_low, cdf_high, clip) in zip(truncated, (
            (0.02275013, 0.97724986, None), (0.0013, 0.9999, (-1.0, 2.5)), (0.0, 1.0, None))):
        got = engine.truncated_normal(0.5, 2.0, cdf_low, cdf_high, t.size, t.dtype, clip)
        assert got.dtype == t.dtype and (got == t).all()
    for (dtype, c), inverse in zip(points, inverses):
        np.testing.assert_array_equal(engine.truncated_normal(0.5, 2.0, c, c, 2, dtype),
                                      inverse)
    assert engine == ref


def test_erfinv_inverts_erf():
    # Paddle's rational approximations, in each of their three ranges and both dtypes
    z = np.array([-5.5, -4.0, -2.0, -1.0, -0.3, 0.0, 0.5, 0.9, 1.5, 3.0, 5.0, 5.8])
    x = np.array([math.erf(v) for v in z])
    inverse = mt19937.erfinv(x)
    # beyond |z| = 4 erf(z) is 1 to within a few ulps: compare on erf's side there
    np.testing.assert_allclose(inverse[2:-2], z[2:-2], rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose([math.erf(v) for v in inverse], x, rtol=0, atol=3e-16)
    central = np.abs(x) < 0.99
    np.testing.assert_allclose(mt19937.erfinv(x[central].astype(np.float32)), z[central],
                               rtol=2e-6)
    assert mt19937.erfinv(np.array([1.0, -1.0, 1.25])).tolist()[:2] == [np.inf, -np.inf]
    assert np.isnan(mt19937.erfinv(np.array([1.25, -3.0]))).all()


def _values(x):
    return np.asarray(x.numpy()).ravel().tolist()


@pytest.mark.parametrize("version", ["2.0", "3"])
def test_global_generator_draws_paddles_values(dygraph, kernels, paddle_version, version):
    with paddle_version(version):
        paddle.seed(10)
        assert _values(paddle.rand([5])) == RAND_5
        paddle.seed(10)
        assert _values(paddle.rand([3], dtype="float64")) == RAND_3_FLOAT64
        paddle.seed(10)
        # one normal_distribution per op: an odd count leaves its cached value unused
        assert _values(paddle.randn([5])) == RANDN_5
        assert _values(paddle.randn([3])) == RANDN_3_AFTER
        paddle.seed(10)
        assert _values(paddle.uniform([4], min=-5, max=10)) == [
            -0.9097213745117188, 3.2332382202148438, 7.983197212219238, 0.6647276878356934]
        assert _values(paddle.uniform([4], min=-5, max=10, seed=3)) == [
            3.3814897537231445, -2.0635437965393066, 3.853618621826172, 0.19553375244140625]
        assert _values(paddle.normal(1.0, 2.0, [3])) == [
            -2.0390095710754395, -0.9617335796356201, 5.431196689605713]
        assert _values(paddle.standard_normal([3])) == [
            -0.1794823706150055, 0.019888166338205338, -1.0436348915100098]
        uniform = paddle.nn.Linear(3, 2, weight_attr=paddle.nn.initializer.Uniform(-1, 1))
        assert _values(uniform.weight) == [
            0.908746600151062, -0.9920889735221863, -0.44132494926452637, -0.270749568939209,
            -0.14691311120986938, -0.41678839921951294]
        normal = paddle.nn.Linear(3, 2, weight_attr=paddle.nn.initializer.Normal(0, 2))
        assert _values(normal.weight) == [
            1.632541298866272, -0.48792535066604614, 1.6451345682144165, -0.4986390173435211,
            -3.38753080368042, 4.031379699707031]


@pytest.mark.parametrize("version", ["2.0", "3"])
def test_float16_draws_are_float32_draws_rounded(dygraph, kernels, paddle_version, version):
    # Paddle 3.3.1: a float16 uniform or gaussian value is the float32 draw rounded, so
    # the draws use the engine as float32 ones do
    with paddle_version(version):
        paddle.seed(10)
        assert _values(paddle.rand([5], "float16")) == [
            0.272705078125, 0.548828125, 0.86572265625, 0.377685546875, 0.38037109375]
        assert _values(paddle.rand([2], "float32")) == [0.31456640362739563,
                                                        0.5124028325080872]
        paddle.seed(11)
        assert _values(paddle.uniform([3], "float16", -2.0, 3.0)) == [
            -0.6591796875, 1.0849609375, 0.1158447265625]
        assert _values(paddle.uniform([3], "float16", -2.0, 3.0, seed=5)) == [
            1.365234375, -1.8076171875, -0.87353515625]
        paddle.seed(12)
        assert _values(paddle.randn([5], "float16")) == [
            -0.7978515625, 0.16552734375, 0.880859375, 0.8125, 0.36181640625]
        paddle.seed(13)
        x = paddle.tensor.random.gaussian([4], 1.5, 2.5, dtype="float16")
        assert x.dtype == paddle.float16
        assert _values(x) == [3.603515625, 1.220703125, -0.82958984375, 3.935546875]


def test_generator_state_and_seeds(dygraph, kernels):
    generator = paddle.seed(2**32 + 10)          # seed_seq: seed 10's stream
    assert generator.initial_seed() == 2**32 + 10
    assert _values(paddle.rand([2])) == RAND_5[:2]
    state = generator.get_state()
    assert state.current_seed() == 2**32 + 10
    first = _values(paddle.randn([2], dtype="float64"))
    assert first == [-0.32376231191958865, 0.9672965657772324]   # 3.3.1
    generator.set_state(state)
    assert _values(paddle.randn([2], dtype="float64")) == first
    assert generator.manual_seed(10) is generator and generator.random() == 5030154736546224737
    with pytest.raises(TypeError, match="GeneratorState"):
        generator.set_state(np.random.RandomState(0).get_state())


def test_seed_attr_is_unsigned_int_in_2_0_and_int64_in_3(dygraph, paddle_version):
    # a fresh std::mt19937_64 seeded directly (no seed_seq) with the attr
    with paddle_version("3"):
        assert _values(paddle.uniform([2], min=-5, max=10, seed=10)) == [
            4.019247055053711, 8.705565452575684]
        assert _values(paddle.uniform([2], min=-5, max=10, seed=-5)) == [
            -4.16077995300293, 5.311038017272949]                # 3.3.1: 2^64 - 5
    with paddle_version("2.0"):                                  # 2.0: unsigned int
        assert _values(paddle.uniform([2], min=-5, max=10, seed=-5)) == \
            mt19937.Engine.from_seed(2**32 - 5).uniform(-5, 10, 2, "float32").tolist()


def test_static_initializers_take_the_program_seed(kernels):
    # Paddle 3.3.1 (FLAGS_enable_pir_api=0): startup program random_seed 7
    main, startup = static.Program(), static.Program()
    main.random_seed = startup.random_seed = 7
    with static.program_guard(main, startup):
        x = static.data("x", [None, 3], "float32")
        static.nn.fc(x, 2, weight_attr=paddle.nn.initializer.Uniform(-1, 1))
        static.nn.fc(x, 2, weight_attr=paddle.nn.initializer.Normal(0, 2))
    scope = static.Scope()
    with static.scope_guard(scope):
        static.Executor(fluid.CPUPlace()).run(startup)
    values = {p.name: np.array(scope.find_var(p.name).get_tensor()).ravel().tolist()
              for p in main.all_parameters()}
    assert values["fc_0.w_0"] == [0.5087705850601196, 0.8986023664474487, -0.7651714086532593,
                                  0.7838263511657715, -0.7174568772315979, -0.8898136615753174]
    assert values["fc_1.w_0"] == [1.7453904151916504, -1.945125699043274, 1.094619870185852,
                                  2.910356283187866, -3.219667434692383, -1.724496603012085]


def test_other_random_ops_keep_numpys_stream_of_the_seed(dygraph):
    # the draws not ported (a seed for the seed op or for a class sampler of seed 0, where
    # Paddle takes std::random_device, ...) come from numpy's stream of the generator's
    # seed, which the generator's state carries too
    generator = paddle.seed(10)
    state = generator.get_state()
    first = random.rng_for(0).randint(0, 100, size=3).tolist()
    assert first == np.random.RandomState(10).randint(0, 100, size=3).tolist()
    generator.set_state(state)
    assert random.rng_for(0).randint(0, 100, size=3).tolist() == first


def test_randint_randperm_bernoulli_draw_paddles_values(dygraph, paddle_version):
    with paddle_version("3"):                      # Paddle 3.3.1's values, measured
        paddle.seed(10)
        assert _values(paddle.randint(0, 100, [6])) == [27, 54, 86, 37, 38, 31]
        paddle.seed(10)
        big = _values(paddle.randint(-2**31, 2**30 + 7, [7]))
        # the 7th is where GCC 11's downscaling (Lemire's) and the older one part
        assert big[:3] == [-1269103023, -379409208, 640636753]
        assert big[4:] == [-922453562, -1134194300, -496918617]
        paddle.seed(10)
        assert _values(paddle.randperm(8)) == [1, 5, 6, 0, 4, 7, 3, 2]
        paddle.seed(10)
        perm = _values(paddle.randperm(1001))
        assert sorted(perm) == list(range(1001))
        assert perm[:5] == [169, 990, 520, 472, 473] and perm[-3:] == [939, 503, 366]
        assert _values(paddle.randperm(1000, dtype="int32"))[-3:] == [324, 940, 496]
        probabilities = paddle.to_tensor([[0.1, 0.9, 0.5], [0.3, 0.7, 0.55]], dtype="float64")
        assert _values(paddle.bernoulli(probabilities)) == [0.0, 1.0, 1.0, 1.0, 1.0, 1.0]
        assert _values(paddle.rand([2])) == [0.051704972982406616, 0.4098089635372162]
    with paddle_version("2.0"):                    # GCC 8's downscaling: d // (2^64 // k)
        paddle.seed(10)
        assert _values(paddle.randint(-2**31, 2**30 + 7, [7]))[6] == -496918616


def test_rejections_consume_exactly_the_draws_used():
    # the vectorised rejection keeps the draws a one-at-a-time loop would, and stops after
    # the last one it keeps
    engine, loop = mt19937.Engine.from_seed(3), mt19937.Engine.from_seed(3)
    kept = engine._accepted(500, lambda d: d % np.uint64(3) == 0)
    expected = []
    while len(expected) < 500:
        d = loop()
        if d % 3 == 0:
            expected.append(d)
    assert kept.tolist() == expected and engine == loop


def test_dropout_masks_draw_paddles_values(dygraph, kernels):
    # Paddle 3.3.1 (its dygraph dropout reads the global generator: paddle.seed leaves the
    # program seed at 0 there, as under refimpl's 2.0 profile); u >= p keeps an element
    paddle.seed(10)
    functional = paddle.nn.functional
    assert _values(functional.dropout(paddle.ones([8]), 0.5)) == [
        0.0, 2.0, 2.0, 0.0, 0.0, 0.0, 2.0, 2.0]
    assert _values(functional.dropout(paddle.ones([2, 3], dtype="float64"), 0.3,
                                      mode="downscale_in_infer")) == [
        1.0, 0.0, 1.0, 1.0, 1.0, 0.0]
    assert _values(functional.dropout(paddle.ones([4]), 1.0)) == [0.0] * 4   # no draws
    assert _values(paddle.rand([2])) == [0.2793375253677368, 0.3646252155303955]


@pytest.mark.parametrize("version", ["2.0", "3"])
def test_dropout_of_p_0_draws_all_kept(dygraph, paddle_version, version):
    # Paddle 2.x's dropout kernel draws an element's u for p = 0 too (3.3.1's op, measured:
    # rand then starts at the generator's 7th value); paddle.nn.functional.dropout returns
    # x before the op
    with paddle_version(version):
        paddle.seed(10)
        assert _values(fluid.layers.dropout(paddle.ones([6]), 0.0)) == [1.0] * 6
        assert _values(paddle.rand([2])) == [0.5124028325080872, 0.644707441329956]
        paddle.seed(10)
        paddle.nn.functional.dropout(paddle.ones([6]), 0.0)
        assert _values(paddle.rand([2])) == RAND_5[:2]


def test_the_kernels_backend_picks_compiled_or_reference(monkeypatch):
    pytest.importorskip("refimpl._kernels.mt19937")
    import refimpl.dispatch  # noqa: F401  (installs the loader)
    monkeypatch.setenv("REFIMPL_KERNELS", "numpy")
    assert mt19937._kernel("uniform") is None
    monkeypatch.setenv("REFIMPL_KERNELS", "cython")
    assert mt19937._kernel("uniform") is not None


def test_uniform_default_min_by_profile(dygraph, paddle_version):
    # 2.0: min=-1.0; 3.3.1: min=0 (its signature, measured: seed 10 gives 0.6012831)
    for version, first in (("2.0", 0.2025662660598755), ("3", 0.6012831330299377)):
        with paddle_version(version):
            assert _values(paddle.uniform([2], seed=10))[0] == first


# Paddle 3.3.1: paddle.seed(10); Linear(4, 3, weight_attr=TruncatedNormal(0.5, 2.0)), a = -2,
# b = 2 by default (its bounds, not mean +- 2 std); with a = -3.5, b = 4.5 (mean +- 2 std,
# 2.0's bounds for mean 0.5, std 2)
TRUNCATED_DEFAULT_AB = [
    -0.6200690865516663, 0.36027318239212036, 1.4555507898330688, -0.22861431539058685,
    -0.21914003789424896, -0.45955410599708557, 0.23752066493034363, 0.6814058423042297,
    0.3795201778411865, -1.949073076248169, 0.6195896863937378, -0.03216220811009407]
TRUNCATED_TWO_STD = [
    -0.6477385759353638, 0.7344463467597961, 2.5635738372802734, -0.09409300237894058,
    -0.08084873110055923, -0.4186317026615143, 0.5593581199645996, 1.2068934440612793,
    0.7621138691902161, -3.2762460708618164, 1.113837480545044, 0.18029293417930603]


def _truncated_parameter(dtype, seed, shape=(6,)):
    initializer = paddle.fluid.initializer.TruncatedNormalInitializer(0.0, 1.0, seed=seed)
    return _values(paddle.create_parameter(list(shape), dtype,
                                           default_initializer=initializer))


def test_truncated_normal_draws_paddles_values(dygraph, kernels, paddle_version):
    # one draw a value, its inverse cdf (Paddle's erfinv); the bounds by profile (switch
    # truncated_normal_bounds); a seed attr seeds its own engine (switch seed_attr_bits)
    truncated = paddle.nn.initializer.TruncatedNormal
    with paddle_version("3"):                      # Paddle 3.3.1's values, measured
        paddle.seed(10)
        assert _values(paddle.nn.Linear(4, 3, weight_attr=truncated(0.5, 2.0)).weight) == \
            TRUNCATED_DEFAULT_AB
        paddle.seed(10)
        assert _values(paddle.nn.Linear(4, 3, weight_attr=truncated(
            0.5, 2.0, a=-3.5, b=4.5)).weight) == TRUNCATED_TWO_STD
        assert _truncated_parameter("float64", 5) == [
            0.42667070658661244, -1.5590419331244918, -0.7134360045234344,
            0.4341967804185023, -1.2318353149187373, -1.2018596499136076]
        assert _truncated_parameter("float32", -5) == [           # engine seeded 2^64 - 5
            -1.4314371347427368, 0.4645572006702423, 0.26389411091804504,
            0.6806638240814209, 0.6325212121009827, -1.0564908981323242]
        paddle.seed(10)
        paddle.nn.Linear(1, 3, weight_attr=truncated())
        assert _values(paddle.rand([2])) == RAND_5[3:]            # one draw a value
    with paddle_version("2.0"):                    # mean +- 2 std, unsigned int seeds
        paddle.seed(10)
        assert _values(paddle.nn.Linear(4, 3, weight_attr=truncated(0.5, 2.0)).weight) == \
            TRUNCATED_TWO_STD
        engine = mt19937.Engine.from_seed(2**32 - 5)
        assert _truncated_parameter("float32", -5) == engine.truncated_normal(
            0.0, 1.0, 0.022750131948179209, 0.97724986805182079, 6, "float32").tolist()


@pytest.mark.parametrize("version, bounds, expected", [
    # Paddle 3.3.1 (FLAGS_enable_pir_api=0): startup random_seed 7, TruncatedNormal(0, 1,
    # a=-1.5, b=1.0)
    ("3", {"a": -1.5, "b": 1.0}, [
        0.3883107602596283, 0.8490621447563171, -1.003752589225769, 0.6986912488937378,
        -0.9298387169837952, -1.2293040752410889, 0.5581457614898682, 0.7206621170043945,
        -0.6249992251396179, 0.31298017501831055, 0.3911590278148651, 0.07169531285762787]),
    # 2.0: mean +- 2 std (3.3.1's truncated_gaussian_random(seed 7, mean 0.5, std 2, a
    # -3.5, b 4.5), measured)
    ("2.0", {}, [1.8040699958801270, 3.4346749782562256, -1.7077652215957642,
                 2.7917931079864502])])
def test_static_truncated_normal_takes_the_program_seed(kernels, paddle_version, version,
                                                        bounds, expected):
    with paddle_version(version):
        main, startup = static.Program(), static.Program()
        startup.random_seed = 7
        mean, std = (0.0, 1.0) if bounds else (0.5, 2.0)
        with static.program_guard(main, startup):
            x = static.data("x", [None, 4], "float32")
            static.nn.fc(x, 3, weight_attr=paddle.nn.initializer.TruncatedNormal(
                mean, std, **bounds))
        scope = static.Scope()
        with static.scope_guard(scope):
            static.Executor(fluid.CPUPlace()).run(startup)
        weight = np.array(scope.find_var("fc_0.w_0").get_tensor()).ravel().tolist()
        assert weight[:len(expected)] == expected


def test_multinomial_and_distribution_samples_draw_paddles_values(dygraph, paddle_version):
    # Paddle 3.3.1's values, measured (its CPU multinomial: one U(0, 1) draw a sample in
    # X's dtype, binary search of the normalised running sums; a pick taken out between
    # samples without replacement)
    x = paddle.to_tensor([[0.1, 0.0, 0.5, 0.2, 0.7], [0.3, 0.3, 0.05, 0.0, 0.9]])
    with paddle_version("3"):
        paddle.seed(10)
        assert _values(paddle.multinomial(x, 6, replacement=True)) == [
            2, 4, 4, 2, 2, 2, 4, 4, 4, 0, 4, 4]
        assert _values(paddle.rand([1])) == [0.954373300075531]      # 12 draws taken
        for dtype in ("float32", "float64"):
            paddle.seed(10)
            assert _values(paddle.multinomial(x.astype(dtype), 4)) == [2, 4, 3, 0, 1, 4, 0, 2]
        paddle.seed(3)
        picks = paddle.multinomial(paddle.rand([3, 50]), 30).numpy()
        assert picks[:, :5].tolist() == [[33, 14, 16, 42, 6], [2, 44, 25, 36, 49],
                                         [42, 36, 0, 31, 7]]
        assert picks[:, -3:].tolist() == [[21, 39, 10], [28, 27, 8], [17, 16, 34]]
        assert all(len(set(row)) == 30 for row in picks.tolist())
        paddle.seed(10)
        distribution = paddle.distribution
        assert _values(distribution.Normal(paddle.to_tensor([0.5, 1.0]), paddle.to_tensor(
            [2.0, 3.0])).sample([3])) == [
            1.235851764678955, -4.132812976837158, -0.14752483367919922, 3.901890277862549,
            -2.5390095710754395, -1.9426002502441406]
        paddle.seed(10)
        assert _values(distribution.Uniform(-1.0, 3.0).sample([3])) == [
            0.09074091911315918, 1.1955301761627197, 2.462185859680176]
        paddle.seed(10)
        assert _values(distribution.Categorical(paddle.to_tensor(
            [[0.1, 0.2, 0.7], [1.0, 1.0, 1.0]])).sample([4])) == [1, 1, 2, 0, 2, 1, 1, 1]


def test_sampling_id_subtracts_from_one_uniform_draw(paddle_version):
    # Paddle 2.0's kernel (sampling_id_op.h, read; 3.3.1 has no such op): r = U(min, max)
    # in X's dtype, r -= X[i, j] until r < 0 (else the last column)
    x = np.array([[0.25, 0.25, 0.5], [0.0, 1.0, 0.0], [0.1, 0.1, 0.1], [0.5, 0.5, 0.0]],
                 "float32")
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        ids = fluid.layers.sampling_id(static.data("x", [4, 3], "float32"), seed=5)
    got = static.Executor(fluid.CPUPlace()).run(main, feed={"x": x}, fetch_list=[ids])[0]
    r = mt19937.Engine.from_seed(5).uniform(0.0, 1.0, 4, "float32")
    expected = []
    for row, rest in zip(x, r):
        for j, weight in enumerate(row):
            rest = np.float32(rest - weight)
            if rest < 0:
                break
        expected.append(j)
    assert got.tolist() == expected and expected[2] == 2    # row 2 sums to 0.3


@pytest.mark.parametrize("method", ["lemire", "scaling"])
def test_permutation_is_std_shuffle_over_uniform_ints(method):
    # the shuffle's draws are uniform_int_distribution's (Engine.integers of the same
    # downscaling); 2.0's randperm (GCC 8, switch randint_downscaling) takes "scaling"
    engine, loop = mt19937.Engine.from_seed(9), mt19937.Engine.from_seed(9)
    for n in (1, 2, 7, 10, 301):
        expected = list(range(n))
        i = 1
        if n % 2 == 0 and n > 1:
            j = int(loop.integers(0, 2, 1, method)[0])
            expected[1], expected[j] = expected[j], expected[1]
            i = 2
        while i < n:
            x = int(loop.integers(0, (i + 1) * (i + 2), 1, method)[0])
            for pos, j in ((i, x // (i + 2)), (i + 1, x % (i + 2))):
                expected[pos], expected[j] = expected[j], expected[pos]
            i += 2
        assert engine.permutation(n, method).tolist() == expected
    assert engine == loop


def test_randperm_of_2_0_takes_gcc_8s_downscaling(dygraph, paddle_version):
    # the two downscalings part rarely for small ranges: first at position 2793 of 20000
    older = mt19937.Engine.from_seed_sequence(10).permutation(20000, "scaling")
    newer = mt19937.Engine.from_seed_sequence(10).permutation(20000, "lemire")
    assert np.flatnonzero(older != newer)[0] == 2793
    for version, expected in (("2.0", older), ("3", newer)):
        with paddle_version(version):
            paddle.seed(10)
            assert _values(paddle.randperm(20000)) == expected.tolist()


def test_static_seed_0_draws_the_global_stream_under_3(paddle_version):
    # Paddle 3.3.1 (FLAGS_enable_pir_api=0): paddle.seed(10) leaves the programs' seeds at
    # 0 (switch seed_sets_program_seeds), so the startup program's truncated normal draws
    # the global generator (as paddle.seed(10) then a dynamic [12] draw), then the main
    # program's multinomial goes on from there
    with paddle_version("3"):
        paddle.seed(10)
        main, startup = static.Program(), static.Program()
        with static.program_guard(main, startup):
            x = static.data("x", [2, 4], "float32")
            static.nn.fc(x, 3, weight_attr=paddle.nn.initializer.TruncatedNormal(0.0, 1.0))
            picks = paddle.multinomial(paddle.full([2, 3], 1.0), 2)
        assert main.random_seed == startup.random_seed == 0
        scope = static.Scope()
        with static.scope_guard(scope):
            exe = static.Executor(fluid.CPUPlace())
            exe.run(startup)
            got = exe.run(main, feed={"x": np.zeros([2, 4], "float32")}, fetch_list=[picks])
            weight = np.array(scope.find_var("fc_0.w_0").get_tensor()).ravel().tolist()
    assert weight == [
        -0.5738692879676819, 0.11722318083047867, 1.0317869186401367, -0.2970465123653412,
        -0.2904243767261505, -0.45931583642959595, 0.0296790711581707, 0.35344669222831726,
        0.13105694949626923, -1.8881230354309082, 0.3069187104701996, -0.15985353291034698]
    assert got[0].tolist() == [[2, 0], [0, 1]]


def test_uniform_random_batch_size_like_draws_paddles_values(dygraph, paddle_version):
    # Paddle 3.3.1 (paddle.tensor.random.uniform_random_batch_size_like), measured
    x = paddle.zeros([3, 2])
    batch_like = fluid.layers.uniform_random_batch_size_like
    with paddle_version("3"):
        paddle.seed(10)
        assert _values(batch_like(x, [-1, 4], min=-5.0, max=10.0))[:5] == [
            -0.9097213745117188, 3.2332382202148438, 7.983197212219238, 0.6647276878356934,
            0.7044906616210938]
        assert _values(batch_like(x, [-1, 4], min=-1.0, max=1.0, seed=7))[:3] == [
            0.5087705850601196, 0.8986023664474487, -0.7651714086532593]
        assert _values(batch_like(x, [-1, 4], min=-1.0, max=1.0, seed=7,
                                  dtype="float64"))[:3] == [
            0.508770608305716, 0.8986024057852884, -0.7651714379309638]
