"""fluid.layers miscellany: distributions, thin layers over existing ops, readers."""
import math

import numpy as np
import pytest

from refimpl import fluid
from refimpl.framework.program import Program, program_guard
from refimpl.framework.scope import Scope
from helpers import build_and_run

L = fluid.layers


# -- distributions

def test_uniform_sample_entropy_log_prob():
    low, high = np.array([0.0, 1.0]), np.array([2.0, 5.0])

    def build():
        u = L.Uniform(low, high)
        value = L.assign(np.array([1.0, 6.0], "float32"))
        return [u.sample([500], seed=7), u.entropy(), u.log_prob(value)]

    with np.errstate(divide="ignore"):   # log(0) = -inf outside [low, high), as intended
        draws, entropy, log_prob = build_and_run(build)
    assert draws.shape == (500, 2)
    assert (draws >= low).all() and (draws < high).all()
    np.testing.assert_allclose(draws.mean(0), (low + high) / 2, atol=0.2)
    np.testing.assert_allclose(entropy, np.log(high - low), rtol=1e-6)
    np.testing.assert_allclose(log_prob, [-np.log(2.0), -np.inf], rtol=1e-6)


def test_normal_matches_closed_forms():
    loc, scale = np.array([0.0, 1.0]), np.array([1.0, 2.0])
    loc2, scale2 = np.array([1.0, 1.0]), np.array([2.0, 0.5])
    value = np.array([1.0, 6.0])

    def build():
        n, n2 = L.Normal(loc, scale), L.Normal(loc2, scale2)
        v = L.assign(value.astype("float32"))
        return [n.sample([4000], seed=3), n.entropy(), n.log_prob(v), n.kl_divergence(n2)]

    draws, entropy, log_prob, kl = build_and_run(build)
    assert draws.shape == (4000, 2)
    np.testing.assert_allclose(draws.mean(0), loc, atol=0.15)
    np.testing.assert_allclose(draws.std(0), scale, rtol=0.08)
    np.testing.assert_allclose(entropy, 0.5 + 0.5 * np.log(2 * np.pi) + np.log(scale),
                               rtol=1e-6)
    density = np.exp(-(value - loc) ** 2 / (2 * scale ** 2)) / (scale * np.sqrt(2 * np.pi))
    np.testing.assert_allclose(log_prob, np.log(density), rtol=1e-5)
    expected_kl = (np.log(scale2 / scale) + (scale ** 2 + (loc - loc2) ** 2) / (2 * scale2 ** 2)
                   - 0.5)
    np.testing.assert_allclose(kl, expected_kl, rtol=1e-5)


def test_normal_seeded_sample_repeats_and_broadcasts():
    def build():
        n = L.Normal(np.zeros((2, 3)), 1.0 + np.zeros((2, 3)))
        return [n.sample([2], seed=5), n.sample([2], seed=5)]

    first, second = build_and_run(build)
    assert first.shape == (2, 2, 3)
    np.testing.assert_array_equal(first, second)


def test_categorical_entropy_and_kl():
    logits = np.array([[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]])
    other = np.array([[0.0, 1.0, 0.0], [1.0, 0.0, 2.0]])

    def build():
        c, c2 = L.Categorical(logits), L.Categorical(other)
        return [c.entropy(), c.kl_divergence(c2)]

    entropy, kl = build_and_run(build)
    p = np.exp(logits) / np.exp(logits).sum(-1, keepdims=True)
    q = np.exp(other) / np.exp(other).sum(-1, keepdims=True)
    assert entropy.shape == (2, 1) and kl.shape == (2, 1)
    np.testing.assert_allclose(entropy[:, 0], -(p * np.log(p)).sum(-1), rtol=1e-5)
    np.testing.assert_allclose(entropy[1, 0], np.log(3.0), rtol=1e-6)
    np.testing.assert_allclose(kl[:, 0], (p * np.log(p / q)).sum(-1), rtol=1e-5)


def test_multivariate_normal_diag_entropy_and_kl():
    var, var2 = np.array([1.0, 4.0]), np.array([2.0, 0.5])
    loc, loc2 = np.array([0.0, 1.0]), np.array([1.0, 0.0])

    def build():
        m = L.MultivariateNormalDiag(loc, np.diag(var))
        m2 = L.MultivariateNormalDiag(loc2, np.diag(var2))
        return [m.entropy(), m.kl_divergence(m2)]

    entropy, kl = build_and_run(build)
    k = 2
    np.testing.assert_allclose(entropy, [0.5 * (k * (1 + np.log(2 * np.pi))
                                                + np.log(var.prod()))], rtol=1e-6)
    expected = 0.5 * ((var / var2).sum() + ((loc2 - loc) ** 2 / var2).sum() - k
                      + np.log(var2.prod() / var.prod()))
    np.testing.assert_allclose(kl, [expected], rtol=1e-5)


def test_multivariate_normal_diag_rounds_as_paddle_1_8():
    # 1.8 takes det S as prod(S + 1 - I) in float32: a variance of 1e-4 keeps only the bits
    # that survive 1 + s (its tests compare its results with numpy's at 1e-6)
    var = np.float32([1e-4, 0.3])
    rounded = (var + np.float32(1)) - np.float32(1)
    assert rounded[0] != var[0]

    def build():
        return [L.MultivariateNormalDiag(np.zeros(2, np.float32), np.diag(var)).entropy()]

    (entropy,) = build_and_run(build)
    np.testing.assert_allclose(entropy, [0.5 * (2 * (1 + np.log(2 * np.pi))
                                                + np.log(rounded.prod()))], rtol=1e-6)


def test_distributions_take_variables_and_reject_mixes():
    def build():
        loc = L.assign(np.array([0.5], "float32"))
        scale = L.assign(np.array([2.0], "float32"))
        return [L.Normal(loc, scale).entropy()]

    (entropy,) = build_and_run(build)
    np.testing.assert_allclose(entropy, [0.5 + 0.5 * math.log(2 * math.pi) + math.log(2.0)],
                               rtol=1e-6)
    with program_guard(Program(), Program()):
        loc = L.assign(np.array([0.5], "float32"))
        with pytest.raises(ValueError, match="Normal: if one argument is a Variable"):
            L.Normal(loc, 1.0)
        with pytest.raises(TypeError, match="Normal.kl_divergence: other must be a Normal"):
            L.Normal(0.0, 1.0).kl_divergence(L.Uniform(0.0, 1.0))
        with pytest.raises(TypeError, match="Uniform.sample: shape must be a list"):
            L.Uniform(0.0, 1.0).sample(3)
        with pytest.raises(ValueError, match="scale must be a k x k matrix"):
            L.MultivariateNormalDiag([0.0, 1.0], [1.0, 1.0])
        with pytest.raises(NotImplementedError, match="Categorical has no sample"):
            L.Categorical([1.0, 2.0]).sample([1])


def test_sampling_fed_parameters_reads_their_batch_size_at_run_time():
    """Paddle 1.8's test_distributions: parameters fed with a batch dim (-1 when built)
    sample `shape + [batch, ...]`; float parameters sample exactly `shape`."""
    main, startup = Program(), Program()
    with program_guard(main, startup):
        loc = L.data("loc", [3], "float32")
        scale = L.data("scale", [3], "float32")
        normal, uniform = L.Normal(loc, scale), L.Uniform(loc, loc + scale)
        draws = [normal.sample([4, 5], seed=1), uniform.sample([4], seed=2),
                 L.Normal(1.0, 2.0).sample([4, 5]), L.Uniform(0.0, 1.0).sample([6])]
    exe = fluid.Executor(fluid.CPUPlace())
    feed = {"loc": np.array([[0.0, 10.0, 20.0], [30.0, 40.0, 50.0]], "float32"),
            "scale": np.full((2, 3), 1e-3, "float32")}
    with fluid.scope_guard(Scope()):
        exe.run(startup)
        normal_draws, uniform_draws, floats, unit = exe.run(main, feed=feed,
                                                            fetch_list=draws)
    assert normal_draws.shape == (4, 5, 2, 3) and uniform_draws.shape == (4, 2, 3)
    np.testing.assert_allclose(normal_draws, np.broadcast_to(feed["loc"], (4, 5, 2, 3)),
                               atol=0.01)      # scale 1e-3: every draw next to its loc
    # low + u * (high - low) in float32, as Paddle's Uniform.sample: a u near 1 rounds to high
    high = feed["loc"] + feed["scale"]
    assert ((uniform_draws >= feed["loc"]) & (uniform_draws <= high)).all()
    assert floats.shape == (4, 5) and unit.shape == (6,)


def test_distribution_argument_types_as_paddle_18():
    with program_guard(Program(), Program()):
        for make in (lambda: L.Normal(1, 1.0), lambda: L.Uniform(0.0, 1),
                     lambda: L.Categorical(1.0), lambda: L.MultivariateNormalDiag(1.0, [1.0])):
            with pytest.raises(TypeError, match="must be a"):
                make()
        normal = L.Normal(0.0, 1.0)
        with pytest.raises(TypeError, match="seed must be an int"):
            normal.sample([2], seed=1.0)
        with pytest.raises(TypeError, match="log_prob: value must be a Variable"):
            normal.log_prob([1.0, 2.0])
        with pytest.raises(TypeError, match="float32 or float64"):
            normal.log_prob(L.assign(np.array([1], "int64")))


# -- thin layers over single ops

def _data(name, value):
    return L.data(name, list(value.shape), dtype=value.dtype.name, append_batch_size=False)


@pytest.mark.paddle("3")      # refimpl's own checks: 1.8 / 2.0 check fluid.layers as Paddle
def test_hash_matches_paddle_digests():
    # reference values from Paddle's hash op (XXH64, seed = hash index)
    ids = np.array([[1], [2], [300]], "int32")
    rows = np.arange(40, dtype="int64").reshape(2, 20)   # 160-byte rows: the striped path
    out_ids, out_rows = build_and_run(
        lambda: [L.hash(_data("ids", ids), 10 ** 9, num_hash=2),
                 L.hash(_data("rows", rows), 10 ** 9, num_hash=2)],
        {"ids": ids, "rows": rows})
    assert out_ids.shape == (3, 2, 1) and out_ids.dtype == np.int32   # X's type, as Paddle
    np.testing.assert_array_equal(out_ids.ravel(), [414146897, 616953218, 750869662,
                                                    953549217, 25581081, 831679674])
    np.testing.assert_array_equal(out_rows.ravel(), [805118643, 259477882, 109269282,
                                                     732964861])
    with program_guard(Program(), Program()):
        with pytest.raises(TypeError, match="hash: input must have dtype in"):
            L.hash(L.data("f", [2, 1], dtype="float32"), 10)
        ids_var = L.data("i", [2, 1], dtype="int32")
        with pytest.raises(TypeError, match="hash: hash_size must be an int, got float"):
            L.hash(ids_var, 1024.5)           # Paddle 1.8.5 raises TypeError too
        with pytest.raises(TypeError, match="hash: num_hash must be an int"):
            L.hash(ids_var, 1024, num_hash=2.5)


def test_xxh64_known_digests():
    from refimpl.ops.hash import xxh64
    assert xxh64(b"") == 0xEF46DB3751D8E999
    assert xxh64(b"a") == 0xD24EC4F1A98C6E5B
    assert xxh64(b"abc") == 0x44BC2CF5AD770999


@pytest.mark.paddle("3")      # refimpl's own checks: 1.8 / 2.0 check fluid.layers as Paddle
def test_clip_by_norm_and_selected_rows_identities():
    x = np.array([[3.0, 4.0], [0.0, 0.0]], "float32")     # norm 5
    clipped, kept, merged, dense = build_and_run(
        lambda: [L.clip_by_norm(_data("x", x), 1.0), L.clip_by_norm(_data("x", x), 10.0),
                 L.merge_selected_rows(_data("x", x)),
                 L.get_tensor_from_selected_rows(_data("x", x))], {"x": x})
    np.testing.assert_allclose(clipped, x / 5.0, rtol=1e-6)
    np.testing.assert_array_equal(kept, x)
    np.testing.assert_array_equal(merged, x)
    np.testing.assert_array_equal(dense, x)


def test_add_position_encoding_values():
    x = np.zeros((1, 3, 4), "float32")
    (out,) = build_and_run(lambda: [L.add_position_encoding(_data("x", x), 0.5, 1.0)],
                            {"x": x})
    # half = 2: rates 10000^(k / 1) for k = 0, 1
    pos = np.arange(3.0)[:, None]
    angle = pos / np.array([1.0, 10000.0])
    np.testing.assert_allclose(out[0], np.concatenate([np.sin(angle), np.cos(angle)], 1),
                               rtol=1e-6, atol=1e-7)
    with program_guard(Program(), Program()):
        with pytest.raises(Exception, match="encoding size .* must be even, got 3"):
            L.add_position_encoding(L.data("odd", [1, 2, 3], append_batch_size=False), 1, 1)


def test_add_position_encoding_counts_positions_per_sequence():
    # a LoD input [total, size]: each sequence's rows get positions 0, 1, ... (Paddle 1.8's
    # test_add_position_encoding_op LoD case); Out keeps the LoD
    x = np.zeros((5, 2), "float32")
    feed = {"x": fluid.create_lod_tensor(x, [[3, 2]], fluid.CPUPlace())}
    (out,) = build_and_run(lambda: [L.add_position_encoding(
        L.data("x", [2], lod_level=1), 1.0, 1.0)], feed, return_numpy=False)
    pos = np.array([0.0, 1, 2, 0, 1])[:, None] / 10000.0  # half = 1: j / 10000
    np.testing.assert_allclose(np.array(out), np.concatenate([np.sin(pos), np.cos(pos)], 1),
                               rtol=1e-6)
    assert out.recursive_sequence_lengths() == [[3, 2]]

def test_affine_channel_fsp_and_similarity_focus():
    rng = np.random.RandomState(0)
    x = rng.rand(2, 3, 2, 2).astype("float32")
    y = rng.rand(2, 4, 2, 2).astype("float32")
    scale, bias = np.array([1.0, 2.0, 3.0], "float32"), np.array([0.0, -1.0, 1.0], "float32")

    def build():
        xv = _data("x", x)
        return [L.affine_channel(xv, L.assign(scale), L.assign(bias)),
                L.fsp_matrix(xv, _data("y", y)), L.similarity_focus(xv, 1, [0])]

    affine, fsp, focus = build_and_run(build, {"x": x, "y": y})
    np.testing.assert_allclose(affine, x * scale[:, None, None] + bias[:, None, None],
                               rtol=1e-6)
    np.testing.assert_allclose(fsp, np.einsum("nchw,ndhw->ncd", x, y) / 4, rtol=1e-5)
    for n in range(2):
        table = x[n, 0]
        first = np.unravel_index(table.argmax(), table.shape)
        second = (1 - first[0], 1 - first[1])        # the only row and column left
        expected = np.zeros((2, 2))
        expected[first] = expected[second] = 1
        np.testing.assert_array_equal(focus[n], np.broadcast_to(expected, (3, 2, 2)))


def test_continuous_value_model_forward_and_paddle_gradient():
    x = np.array([[1.0, 3.0, 0.5, 0.25]], "float32")
    show_click = np.array([[7.0, 8.0]], "float32")
    main, startup = Program(), Program()
    with program_guard(main, startup):
        xv = _data("x", x)
        xv.stop_gradient = False
        cvm = _data("cvm", show_click)
        used, cut = L.continuous_value_model(xv, cvm, True), L.continuous_value_model(xv, cvm,
                                                                                      False)
        fluid.backward.append_backward(L.reduce_sum(used) + L.reduce_sum(cut))
    exe = fluid.Executor(fluid.CPUPlace())
    got_used, got_cut, grad = exe.run(main, feed={"x": x, "cvm": show_click},
                                      fetch_list=[used, cut, "x@GRAD"], scope=Scope())
    np.testing.assert_allclose(got_used, [[np.log(2.0), np.log(4.0) - np.log(2.0), 0.5, 0.25]],
                               rtol=1e-6)
    np.testing.assert_array_equal(got_cut, [[0.5, 0.25]])
    # Paddle's convention: the show/click columns' gradient is the CVM input, per branch
    np.testing.assert_array_equal(grad, [[14.0, 16.0, 2.0, 2.0]])
    # Y keeps X's LoD (Paddle's cvm shares it; test_cvm_op checks Y's LoD [[1]])
    (kept,) = build_and_run(lambda: [L.continuous_value_model(
        L.data("x", [4], lod_level=1), _data("cvm", show_click), True)],
        {"x": fluid.create_lod_tensor(x, [[1]], fluid.CPUPlace()), "cvm": show_click},
        return_numpy=False)
    assert kept.recursive_sequence_lengths() == [[1]]


def test_center_loss_loss_and_center_update():
    x = np.array([[1.0, 0.0], [3.0, 2.0], [0.0, 4.0]], "float32")
    label = np.array([[0], [0], [1]], "int64")
    main, startup = Program(), Program()
    with program_guard(main, startup):
        loss = L.center_loss(_data("x", x), _data("label", label), 3, 0.5,
                             fluid.ParamAttr(name="centers"))
    exe = fluid.Executor(fluid.CPUPlace())
    scope = Scope()
    exe.run(startup, scope=scope)
    (first,) = exe.run(main, feed={"x": x, "label": label}, fetch_list=[loss], scope=scope)
    np.testing.assert_allclose(first, 0.5 * (x ** 2).sum(1, keepdims=True), rtol=1e-6)
    centers = np.array(scope.find_var("centers").get_tensor())
    # class 0: 0.5 * (x0 + x1) / (1 + 2); class 1: 0.5 * x2 / 2; class 2 untouched
    np.testing.assert_allclose(centers, [[2.0 / 3, 1.0 / 3], [0.0, 1.0], [0.0, 0.0]],
                               rtol=1e-6)
    (second,) = exe.run(main, feed={"x": x, "label": label}, fetch_list=[loss], scope=scope)
    np.testing.assert_allclose(second, 0.5 * ((x - centers[label[:, 0]]) ** 2).sum(
        1, keepdims=True), rtol=1e-5)


def test_inplace_abn_is_batch_norm_then_activation():
    x = np.array([[[[-1.0]], [[2.0]]], [[[1.0]], [[-2.0]]]], "float32")   # [2, 2, 1, 1]
    (out,) = build_and_run(lambda: [L.inplace_abn(_data("x", x), act="leaky_relu",
                                                   act_alpha=0.1)], {"x": x})
    normalized = (x - x.mean((0, 2, 3), keepdims=True)) / np.sqrt(
        x.var((0, 2, 3), keepdims=True) + 1e-5)
    np.testing.assert_allclose(out, np.where(normalized > 0, normalized, 0.1 * normalized),
                               rtol=1e-4)
    with program_guard(Program(), Program()):
        with pytest.raises(ValueError, match="inplace_abn: act must be None or one of"):
            L.inplace_abn(L.data("x", [2, 2, 1, 1]), act="relu")
    # its variables are named after inplace_abn, as Paddle's (2.0's test_inplace_abn_op
    # fetches the saved mean and variance as inplace_abn_0.tmp_0 / tmp_1)
    main = Program()
    with program_guard(main, Program()), fluid.unique_name.guard():
        L.inplace_abn(L.data("x", [2, 2, 1, 1]))
    [op] = [op for op in main.global_block().ops if op.type == "batch_norm"]
    assert (op.output("SavedMean"), op.output("SavedVariance")) == \
        (["inplace_abn_0.tmp_0"], ["inplace_abn_0.tmp_1"])
    assert op.input("Scale") == ["inplace_abn_0.w_0"]


# -- readers

def test_py_reader_feeds_batches_until_eof_then_restarts():
    main, startup = Program(), Program()
    with program_guard(main, startup):
        reader = L.py_reader(capacity=4, shapes=[[-1, 2], [-1, 1]],
                             dtypes=["float32", "int64"])
        reader = L.double_buffer(reader)
        x, label = L.read_file(reader)
        total = L.reduce_sum(x) + L.cast(L.reduce_sum(label), "float32")
    batches = [(np.ones((2, 2)), np.array([[1], [2]])), (np.full((3, 2), 2.0),
                                                         np.array([[0], [0], [5]]))]
    reader.decorate_batch_generator(lambda: iter(batches))
    exe = fluid.Executor(fluid.CPUPlace())
    scope = Scope()
    for _ in range(2):                     # a second pass after reset()
        reader.start()
        got = [exe.run(main, fetch_list=[total], scope=scope)[0] for _ in batches]
        np.testing.assert_allclose(np.ravel(got), [4.0 + 3, 12.0 + 5])
        with pytest.raises(L.EOFException, match="no more batches"):
            exe.run(main, fetch_list=[total], scope=scope)
        reader.reset()


@pytest.mark.parametrize("double_buffer, reader_ops", [
    (True, ["create_double_buffer_reader", "read"]), (False, ["read"])])


def test_py_reader_program_lists_paddles_reader_ops(double_buffer, reader_ops):
    """Paddle 1.8.5's main program starts with these ops; _inference_optimize drops them
    and the READER variables (keeps them with prune_read_op=False), sets is_test."""
    main, startup = Program(), Program()
    with program_guard(main, startup):
        reader = L.py_reader(capacity=2, shapes=[[-1, 3], [-1, 1]],
                             dtypes=["float32", "int64"], use_double_buffer=double_buffer)
        x, label = L.read_file(reader)
        h = L.dropout(L.fc(x, 2), 0.5)
    ops = [op.type for op in main.global_block().ops]
    assert ops == reader_ops + ["mul", "elementwise_add", "dropout"]
    assert main.global_block().ops[len(reader_ops) - 1].output("Out") == [x.name, label.name]
    kept = main._inference_optimize(prune_read_op=False)
    assert [op.type for op in kept.global_block().ops] == ops
    pruned = main._inference_optimize()
    assert [op.type for op in pruned.global_block().ops] == ["mul", "elementwise_add",
                                                             "dropout"]
    assert pruned.global_block().ops[-1].attr("is_test") is True
    assert main.global_block().ops[-1].attr("is_test") is False
    assert not [v for v in pruned.global_block().vars.values() if v.type == "READER"]
    reader.decorate_batch_generator(lambda: iter([(np.ones((2, 3)), np.ones((2, 1)))]))
    reader.start()
    exe = fluid.Executor(fluid.CPUPlace())
    scope = Scope()
    exe.run(startup, scope=scope)
    assert exe.run(main, fetch_list=[h], scope=scope)[0].shape == (2, 2)


def test_create_py_reader_by_data_stacks_sample_lists():
    main, startup = Program(), Program()
    with program_guard(main, startup):
        image = L.data("image", [3], dtype="float32")
        reader = L.create_py_reader_by_data(capacity=2, feed_list=[image])
        doubled = L.read_file(reader) * 2.0
    assert L.read_file(reader) is image
    samples = [[(np.array([1.0, 2.0, 3.0]),), (np.array([4.0, 5.0, 6.0]),)]]
    reader.decorate_sample_list_generator(lambda: iter(samples))
    reader.start()
    (out,) = fluid.Executor(fluid.CPUPlace()).run(main, fetch_list=[doubled], scope=Scope())
    np.testing.assert_allclose(out, [[2.0, 4.0, 6.0], [8.0, 10.0, 12.0]])
    with pytest.raises(RuntimeError, match="already started"):
        reader.start()
    with pytest.raises(TypeError, match="read_file: expected a reader"):
        L.read_file(image)
    with pytest.raises(ValueError, match="py_reader: 2 shapes but 1 dtypes"):
        L.py_reader(1, [[1], [1]], ["float32"])
    with pytest.raises(ValueError, match="py_reader: 2 shapes but 1 lod_levels"):
        L.py_reader(1, [[1], [1]], ["float32", "int64"], lod_levels=[1])



def test_decorate_paddle_reader_converts_samples_as_data_feeder():
    """Paddle 1.8 feeds a paddle reader's sample lists through a DataFeeder: Python floats
    become the variable's float32, a lod_level=1 field's sequences a LoD (the models repo's
    PaddleRec/ctr/dnn: 13 dense floats and 26 one-id sequences per sample)."""
    main, startup = Program(), Program()
    with program_guard(main, startup):
        dense = fluid.data("dense", [None, 2], "float32")
        ids = fluid.data("ids", [None, 1], "int64", lod_level=1)
        reader = L.create_py_reader_by_data(capacity=2, feed_list=[dense, ids])
        dense_read, ids_read = L.read_file(reader)
        pooled = L.sequence_pool(L.cast(ids_read, "float32"), "sum")
    samples = [[([0.5, 1.5], [[3], [4]]), ([2.5, 3.5], [[7]])]]
    reader.decorate_paddle_reader(lambda: iter(samples))
    reader.start()
    got = fluid.Executor(fluid.CPUPlace()).run(main, fetch_list=[dense_read, ids_read, pooled],
                                               scope=Scope(), return_numpy=False)
    assert np.array(got[0]).dtype == np.float32
    np.testing.assert_array_equal(np.array(got[0]), [[0.5, 1.5], [2.5, 3.5]])
    assert got[1].recursive_sequence_lengths() == [[2, 1]]
    np.testing.assert_array_equal(np.array(got[2]), [[7.0], [7.0]])


def test_py_reader_variables_take_the_lod_levels():
    with program_guard(Program(), Program()):
        reader = L.py_reader(capacity=2, shapes=[[-1, 3], [-1, 1]], dtypes=["float32", "int64"],
                             lod_levels=[1, 0])
        x, label = L.read_file(reader)
    assert (x.lod_level, label.lod_level) == (1, 0)


# -- int-list arguments known at run time (Paddle's XTensor / XTensorList inputs)

def test_runtime_int_list_arguments_match_numpy():
    x_np = np.arange(24, dtype="float32").reshape(2, 3, 4)

    def build():
        x = L.data("x", [2, 3, 4], append_batch_size=False)
        two = L.fill_constant([1], "int32", 2)
        starts = L.data("starts", [2], dtype="int32", append_batch_size=False)
        shape = L.data("shape", [2], dtype="int64", append_batch_size=False)
        value = L.fill_constant([1], "float32", 1.5)
        return [L.fill_constant([two, 3], "float32", 7.0),           # ShapeTensorList
                L.fill_constant(shape, "float32", value),             # ShapeTensor, ValueTensor
                L.slice(x, axes=[1, 2], starts=starts, ends=[3, 4]),  # StartsTensor
                L.slice(x, axes=[2], starts=[two], ends=[4]),         # StartsTensorList
                L.expand(x, [1, two, 1]),                             # expand_times_tensor
                L.unsqueeze(x, [two]),                                # AxesTensorList
                L.split(x, [two, 2], dim=2)[1],                       # SectionsTensorList
                L.pow(x, value)]                                      # FactorTensor

    got = build_and_run(build, {"x": x_np, "starts": np.array([1, 2], "int32"),
                                "shape": np.array([3, 1], "int64")})
    np.testing.assert_array_equal(got[0], np.full([2, 3], 7.0))
    np.testing.assert_array_equal(got[1], np.full([3, 1], 1.5))
    np.testing.assert_array_equal(got[2], x_np[:, 1:3, 2:4])
    np.testing.assert_array_equal(got[3], x_np[:, :, 2:])
    np.testing.assert_array_equal(got[4], np.tile(x_np, [1, 2, 1]))
    np.testing.assert_array_equal(got[5], x_np[:, :, None, :])
    np.testing.assert_array_equal(got[6], x_np[:, :, 2:])
    np.testing.assert_allclose(got[7], x_np ** 1.5, rtol=1e-6)


@pytest.mark.paddle("3")      # refimpl's own checks: 1.8 / 2.0 check fluid.layers as Paddle
def test_runtime_int_list_argument_errors():
    with program_guard(Program(), Program()):
        x = L.data("x", [2, 3], append_batch_size=False)
        with pytest.raises(TypeError, match="fill_constant: shape 'f' must be an int32"):
            L.fill_constant(L.data("f", [2], append_batch_size=False), "float32", 1.0)
        with pytest.raises(TypeError, match="unsqueeze: axes must be an int"):
            L.unsqueeze(x, 2.1)
        with pytest.raises(TypeError, match="slice: starts must be a list"):
            L.slice(x, axes=[0], starts=1, ends=[2])


def test_subscript_with_variable_slice_bounds_matches_numpy():
    x_np = np.arange(60, dtype="float32").reshape(3, 4, 5)

    def build():
        x = L.data("x", [3, 4, 5], append_batch_size=False)
        minus_2 = L.fill_constant([1], "int32", -2)
        three = L.fill_constant([1], "int64", 3)
        return [x[minus_2:3, 1:three], x[:, :, minus_2:]]

    got = build_and_run(build, {"x": x_np})
    np.testing.assert_array_equal(got[0], x_np[-2:3, 1:3])
    np.testing.assert_array_equal(got[1], x_np[:, :, -2:])
