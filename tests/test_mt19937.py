"""Paddle 2.x's CPU random streams (framework/mt19937.py, _kernels/mt19937.pyx): the
engine against the C++ standard, the compiled kernels against the numpy reference, and
the random ops and initializers against values measured on Paddle 3.3.1 (CPU)."""
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
    assert engine == ref


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
    # the ops not ported (dropout's mask, truncated_gaussian_random, ...) draw numpy's
    # stream of the generator's seed, which the generator's state carries too
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
