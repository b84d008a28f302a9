"""Paddle's class samplers (framework/class_samplers.py): nce's negative classes and costs
for a fixed seed, sample_logits' sampled classes and probabilities and tdm_sampler's
negatives, against values measured on Paddle 1.8.5 and 3.3.1 (CPU)."""
import numpy as np
import pytest

from refimpl import fluid
from refimpl.framework import class_samplers, mt19937
from refimpl.ops.nce import alias_table
from refimpl.ops.sample_logits import SampleLogits
from refimpl.ops.tdm_sampler import TdmSampler

N, D, K, S = 4, 3, 20, 5
# fluid.layers.nce(x, label, 20, num_neg_samples=5, sampler=..., seed=7) with Constant(0.1)
# weights and bias, x = RandomState(0).uniform(-1, 1, (4, 3)), labels 1, 7, 0, 19 and
# custom_dist the next RandomState(0).dirichlet(ones(20)): SampleLabels' negatives, Cost
NCE_UNIFORM = ([[15, 18, 2, 17, 2], [1, 16, 18, 5, 14], [15, 11, 7, 6, 16],
                [6, 19, 19, 17, 5]],
               [6.15184211730957, 6.079545021057129, 6.271044731140137, 6.105367660522461])
NCE_LOG_UNIFORM = ([[8, 16, 0, 13, 0], [0, 11, 13, 1, 7], [8, 4, 2, 1, 11],
                    [1, 18, 18, 12, 1]],
                   [6.632092475891113, 5.908026218414307, 6.638058185577393,
                    6.941896438598633])
NCE_PADDLE = {
    # Paddle 1.8.5: the custom sampler's engine a 32-bit std::mt19937
    "1.8": {"uniform": NCE_UNIFORM, "log_uniform": NCE_LOG_UNIFORM,
            "custom_dist": ([[1, 15, 15, 6, 10], [8, 8, 17, 7, 13], [18, 15, 18, 15, 19],
                             [6, 18, 8, 15, 6]],
                            [5.307794094085693, 5.39682149887085, 7.170056343078613,
                             5.809829235076904])},
    # Paddle 3.3.1: every sampler over a std::mt19937_64
    "3": {"uniform": NCE_UNIFORM, "log_uniform": NCE_LOG_UNIFORM,
          "custom_dist": ([[8, 5, 2, 19, 11], [15, 7, 16, 1, 17], [9, 0, 5, 7, 13],
                           [10, 11, 8, 13, 6]],
                          [7.6936798095703125, 5.935442924499512, 5.737862586975098,
                           5.828495025634766])},
}


def _nce_run(sampler, seed=7, dtype="float32"):
    """Two runs of the nce net: SampleLabels and Cost each, then (float64) the gradient of
    Input under the loss sum(Cost)."""
    rng = np.random.RandomState(0)
    x = rng.uniform(-1, 1, (N, D)).astype(dtype)
    probs = rng.dirichlet(np.ones(K)).astype("float32").tolist()
    label = np.array([[1], [7], [0], [19]], "int64")
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        xv = fluid.data("x", [N, D], dtype)
        xv.stop_gradient = False
        lv = fluid.data("l", [N, 1], "int64")
        const = fluid.ParamAttr(initializer=fluid.initializer.Constant(0.1))
        extra = {"custom_dist": probs} if sampler == "custom_dist" else {}
        fluid.layers.nce(xv, lv, K, num_neg_samples=S, sampler=sampler, seed=seed,
                         param_attr=const, bias_attr=const, **extra)
        op = [o for o in main.global_block().ops if o.type == "nce"][0]
        fetch = [op.output("SampleLabels")[0], op.output("Cost")[0]]
        if dtype == "float64":
            cost = main.global_block().var(fetch[1])
            fluid.backward.append_backward(fluid.layers.reduce_sum(cost))
            fetch.append(xv.name + "@GRAD")
    exe = fluid.Executor(fluid.CPUPlace())
    scope = fluid.core.Scope()
    with fluid.scope_guard(scope):
        exe.run(startup)
        runs = [exe.run(main, feed={"x": x, "l": label}, fetch_list=fetch) for _ in range(2)]
    return [[np.asarray(v) for v in run] for run in runs]


@pytest.mark.parametrize("version", ["1.8", "3"])
@pytest.mark.parametrize("sampler", ["uniform", "log_uniform", "custom_dist"])
def test_nce_draws_paddles_negatives_and_costs(paddle_version, version, sampler):
    with paddle_version(version):
        (labels, cost), (again, _) = _nce_run(sampler)
    negatives, costs = NCE_PADDLE[version][sampler]
    np.testing.assert_array_equal(labels[:, 1:], negatives)
    np.testing.assert_array_equal(labels[:, 0], [1, 7, 0, 19])
    np.testing.assert_allclose(cost.reshape(-1), costs, rtol=2e-6)
    np.testing.assert_array_equal(again, labels)        # a fresh engine every run


# the log-uniform net above in float64 (sum(Cost) the loss): Cost and Input's gradient (its
# rows' columns are equal, the weights all 0.1); 1.8.5's Constant(0.1) is float32's 0.1
NCE_LOG_UNIFORM_FLOAT64 = {
    "1.8": ([6.632092590679773, 5.908026725977703, 6.638057895085801, 6.941896105321519],
            [0.11490037845960235, 0.13300252835218856, 0.11082084685632293,
             0.1528221957638147]),
    "3": ([6.632092587711709, 5.908026723542227, 6.638057890815311, 6.9418961021149],
          [0.11490037684735604, 0.133002526452613, 0.11082084535229023,
           0.15282219361293248]),
}


@pytest.mark.parametrize("version", ["1.8", "3"])
def test_nce_log_uniform_probability_is_paddles_float(paddle_version, version):
    # Paddle's LogUniformSampler holds log(K) as a float, and P(c) = log((c + 2) / (c + 1))
    # / log(K) is a float too: for K = 20 P(2) and P(7) (rows 1 and 2 draw them) come out
    # an ulp off when log(K) stays a double, moving rows 1 and 2 by 1e-8 relative
    p = class_samplers.probability(class_samplers.LOG_UNIFORM, np.array([2, 7]), K - 1)
    in_double = (np.log(np.array([4.0, 9.0]) / [3.0, 8.0]) / np.log(K)).astype(np.float32)
    assert p.dtype == np.float32 and (p != in_double).all()
    with paddle_version(version):
        (labels, cost, dx), (again, cost_again, _) = _nce_run("log_uniform", dtype="float64")
    np.testing.assert_array_equal(labels[:, 1:], NCE_LOG_UNIFORM[0])
    costs, grads = NCE_LOG_UNIFORM_FLOAT64[version]
    np.testing.assert_allclose(cost.reshape(-1), costs, rtol=1e-15)
    np.testing.assert_allclose(dx, np.repeat(np.array(grads)[:, None], D, 1), rtol=1e-15)
    np.testing.assert_array_equal(cost_again, cost)


def test_alias_table_is_built_as_paddles_layers_build_it():
    # queues first in first out, a big class's leftover queued again at the back
    alias, keep = alias_table([0.1, 0.4, 0.2, 0.3])
    assert alias.tolist() == [1, -1, 3, -1]
    np.testing.assert_allclose(keep, [0.4, 1.0, 0.8, 1.0], rtol=1e-6)
    # a leftover of exactly 1 keeps its class
    alias, keep = alias_table([0.25, 0.5, 0.25])
    assert alias.tolist() == [1, -1, 1] and keep.tolist() == [0.75, 1.0, 0.75]
    # one class left in a queue gets -1, any behind it alias 0 and chance 0 (Paddle's)
    alias, keep = alias_table([0.6, 0.6, 0.6])
    assert alias.tolist() == [-1, 0, 0] and keep.tolist() == [1.0, 0.0, 0.0]


def test_the_32_bit_engine_is_the_standards_mt19937():
    # [rand.predef]: the 10000th draw of a default-constructed std::mt19937 (seed 5489)
    draws = class_samplers.Draws(5489, 32)
    assert [draws() for _ in range(10000)][-1] == 4123659995
    # its canonical double takes two draws: (d1 + d2 2^32) / 2^64
    d1, d2 = (int(d) for d in np.random.RandomState(3).randint(0, 2**32, 2, np.uint32))
    assert class_samplers.Draws(3, 32).canonical() == (d1 + d2 * 2.0**32) / 2.0**64


def test_uniform_ints_below_k_by_both_downscalings():
    # a 32-bit engine, k = 7, s = (2^32 - 1) // 7: the older way d // s, Lemire's d k >> 32
    d = 6 * ((2**32 - 1) // 7)
    assert mt19937.uniform_int_below(lambda: d, 7, "scaling", 32) == 6
    assert mt19937.uniform_int_below(lambda: d, 7, "lemire", 32) == 5
    # the older way redraws d >= 7 s, Lemire's a product whose low bits are below 2^32 mod 7
    draws = iter([7 * ((2**32 - 1) // 7), 5])
    assert mt19937.uniform_int_below(lambda: next(draws), 7, "scaling", 32) == 0
    draws = iter([0, 2**31])
    assert mt19937.uniform_int_below(lambda: next(draws), 7, "lemire", 32) == 3
    with pytest.raises(ValueError, match="downscaling"):
        mt19937.uniform_int_below(lambda: 0, 7, "modulo")


def test_uniform_sampler_draws_every_class_alike():
    sampler = class_samplers.Sampler(class_samplers.UNIFORM, 9,
                                     class_samplers.Draws(1, 64), "lemire")
    counts = np.bincount(sampler.samples(50000), minlength=10) / 50000
    np.testing.assert_allclose(counts, 0.1, atol=0.01)


def test_custom_sampler_draws_its_distribution():
    probs = [0.05, 0.15, 0.5, 0.3]
    alias, keep = alias_table(probs)
    for bits in (32, 64):
        sampler = class_samplers.Sampler(class_samplers.CUSTOM, 3,
                                         class_samplers.Draws(0, bits), "scaling",
                                         alias, keep)
        counts = np.bincount(sampler.samples(40000), minlength=4) / 40000
        np.testing.assert_allclose(counts, probs, atol=0.01)


# Paddle 1.8.5: sample_logits of Logits [3, 30], Labels 1, 7, 29, num_samples 6 (CPU: the
# same classes with uniq False), row 0's Samples and Probabilities
SAMPLE_LOGITS_1_8_5 = {
    7: ([1, 12, 25, 0, 20, 16, 21],
        [0.6340206265449524, 0.16015341877937317, 0.08461322635412216, 0.8353050947189331,
         0.10337385535240173, 0.12565475702285767, 0.09898492693901062]),
    123456: ([1, 0, 13, 19, 8, 6, 2],
             [0.585022509098053, 0.7936544418334961, 0.1324397325515747,
              0.09531589597463608, 0.19598355889320374, 0.24242304265499115,
              0.4579801857471466]),
}


@pytest.mark.parametrize("seed", sorted(SAMPLE_LOGITS_1_8_5))
@pytest.mark.parametrize("uniq", [True, False])
def test_sample_logits_draws_paddles_classes(seed, uniq):
    logits = np.random.RandomState(0).uniform(-1, 1, (3, 30)).astype("float32")
    labels = np.array([[1], [7], [29]], "int64")
    samples, probs = SampleLogits.forward(logits, labels, None, None, uniq=uniq,
                                          num_samples=6, seed=seed)[:2]
    expected_samples, expected_probs = SAMPLE_LOGITS_1_8_5[seed]
    np.testing.assert_array_equal(samples[0], expected_samples)
    np.testing.assert_array_equal(samples[:, 1:], np.tile(samples[0, 1:], (3, 1)))
    np.testing.assert_allclose(probs[0], expected_probs, rtol=2e-7)
    assert probs.dtype == np.float32


def test_sample_logits_cannot_draw_more_distinct_classes_than_there_are():
    with pytest.raises(ValueError, match="num_samples 5 distinct classes out of 4"):
        SampleLogits.forward(np.zeros((1, 4)), np.zeros((1, 1), "int64"), None, None,
                             num_samples=5, seed=1)


# Paddle 1.8.5: tdm_sampler of a 2 / 4 / 8-node tree (layer_offset_lod 0, 2, 6, 14; leaf
# i's path 1 + i // 4, 3 + i // 2, 7 + i, leaf 8's 2, 6, 0), negatives 1, 2, 4, X 0, 3, 5,
# 8, 7, 3: Out
TDM_1_8_5 = {
    7: [[1, 2, 3, 6, 4, 7, 13, 14, 8, 9], [1, 2, 4, 5, 6, 10, 12, 13, 11, 9],
        [2, 1, 5, 4, 6, 12, 13, 9, 14, 11], [2, 1, 6, 4, 5, 0, 0, 0, 0, 0],
        [2, 1, 6, 4, 3, 14, 9, 7, 8, 12], [1, 2, 4, 3, 5, 10, 12, 11, 7, 9]],
    12345: [[1, 2, 3, 4, 5, 7, 9, 10, 12, 11], [1, 2, 4, 5, 3, 10, 11, 8, 7, 12],
            [2, 1, 5, 3, 4, 12, 10, 8, 7, 11], [2, 1, 6, 3, 4, 0, 0, 0, 0, 0],
            [2, 1, 6, 5, 4, 14, 10, 9, 7, 12], [1, 2, 4, 3, 6, 10, 14, 13, 11, 7]],
}


@pytest.mark.parametrize("seed", sorted(TDM_1_8_5))
def test_tdm_sampler_draws_paddles_negatives(seed):
    travel = np.array([[1 + i // 4, 3 + i // 2, 7 + i] for i in range(8)] + [[2, 6, 0]],
                      "int32")
    layer = np.arange(1, 15, dtype="int32").reshape(14, 1)
    x = np.array([[0], [3], [5], [8], [7], [3]], "int64")
    out, labels, mask = TdmSampler.forward(x, travel, layer, [1, 2, 4], [0, 2, 6, 14],
                                           True, seed, "int64")
    assert out.tolist() == TDM_1_8_5[seed]
    assert labels[0].tolist() == [1, 0, 1, 0, 0, 1, 0, 0, 0, 0]
    assert mask[3].tolist() == [1] * 5 + [0] * 5       # leaf 8's padded last layer
