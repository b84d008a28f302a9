"""nn.SpectralNorm against a numpy power iteration (values, U/V untouched, gradient),
fluid.layers.ssd_loss on a hand-checked case, and nn.BeamSearchDecoder / dynamic_decode
against a numpy beam search."""
import numpy as np
import pytest

import refimpl as paddle
import refimpl.nn as nn
from refimpl import static
from helpers import central_differences, scope_value, startup_executor


# -- SpectralNorm
def _numpy_spectral(weight, u, v, dim, power_iters, eps=1e-12):
    mat = np.moveaxis(weight, dim, 0).reshape(weight.shape[dim], -1)
    for _ in range(power_iters):
        v = mat.T @ u
        v = v / (np.linalg.norm(v) + eps)
        u = mat @ v
        u = u / (np.linalg.norm(u) + eps)
    return u, v, u @ mat @ v


def test_spectral_norm_divides_by_power_iteration_sigma_and_keeps_u_v():
    x = np.random.RandomState(0).randn(2, 3, 4)
    w = static.data("w", [2, 3, 4], "float64")
    sn = nn.SpectralNorm([2, 3, 4], dim=1, power_iters=3, dtype="float64")
    out = sn(w)
    assert sn.weight_u.shape == (3,) and sn.weight_v.shape == (8,)
    assert not sn.weight_u.trainable and not sn.weight_v.trainable
    exe = startup_executor()
    u0, v0 = scope_value(sn.weight_u), scope_value(sn.weight_v)
    got, = exe.run(feed={"w": x}, fetch_list=[out])
    _, _, sigma = _numpy_spectral(x, u0, v0, 1, 3)
    np.testing.assert_allclose(got, x / sigma, rtol=1e-12)
    # Paddle's op does not write the iterated vectors back.
    np.testing.assert_array_equal(scope_value(sn.weight_u), u0)
    # Independently of any power iteration: with many iterations the op divides by the
    # largest singular value of the [3, 8] matrix (numpy's SVD).
    top = np.linalg.svd(np.moveaxis(x, 1, 0).reshape(3, -1), compute_uv=False)[0]
    converged = nn.SpectralNorm([2, 3, 4], dim=1, power_iters=200, dtype="float64")(w)
    exe = startup_executor()
    got_many, = exe.run(feed={"w": x}, fetch_list=[converged])
    np.testing.assert_allclose(got_many, x / top, rtol=1e-8)


def test_spectral_norm_gradient_matches_finite_differences_through_the_iteration():
    # Out is a function of the weight alone (U, V are read, not written), and its gradient
    # goes through sigma and each power-iteration step. On this kind of input Paddle 1.8.5's
    # grad kernel is off by 18.6 (power_iters=0), 0.67 (1), 0.50 (3); the u, v-as-constants
    # expression refimpl had before by 0 / 0.63 / 0.045 (specs/nn_layer.md)
    x = np.random.RandomState(1).randn(4, 3)
    g = np.random.RandomState(2).randn(4, 3)
    w = static.data("w", [4, 3], "float64")
    w.stop_gradient = False
    sn = nn.SpectralNorm([4, 3], power_iters=2, dtype="float64")
    out = sn(w)
    loss = paddle.sum(out * static.data("g", [4, 3], "float64"))
    dw, = static.gradients([loss], [w])
    exe = startup_executor()
    got, = exe.run(feed={"w": x, "g": g}, fetch_list=[dw])
    u0, v0 = scope_value(sn.weight_u), scope_value(sn.weight_v)

    def f(weight):
        return float((weight / _numpy_spectral(weight, u0, v0, 0, 2)[2] * g).sum())

    np.testing.assert_allclose(got, central_differences(f, x), rtol=1e-6, atol=1e-8)


def test_spectral_norm_errors_name_the_mismatch():
    with pytest.raises(ValueError, match="dim must be in"):
        nn.SpectralNorm([3, 4], dim=2)
    sn = nn.SpectralNorm([3, 4])
    with pytest.raises(ValueError, match=r"expected weight_shape \[3, 4\]"):
        sn(static.data("w", [4, 3], "float32"))


# -- ssd_loss
PRIORS = np.array([[0, 0, .5, .5], [.5, .5, 1, 1], [0, .5, .5, 1], [.5, 0, 1, .5]])


def _ssd_program(dtype="float64"):
    location = static.data("loc", [2, 4, 4], dtype)
    confidence = static.data("conf", [2, 4, 2], dtype)
    location.stop_gradient = confidence.stop_gradient = False
    gt_box = static.data("gt_box", [2, 2, 4], dtype)
    gt_label = static.data("gt_label", [2, 2, 1], "int32")
    prior = static.data("prior", [4, 4], dtype)
    loss = paddle.fluid.layers.ssd_loss(location, confidence, gt_box, gt_label, prior,
                                        neg_pos_ratio=2.0)
    return loss, location, confidence


def test_ssd_loss_hand_checked_with_padding_mining_and_normalization():
    loss, location, confidence = _ssd_program()
    dloc, dconf = static.gradients([paddle.sum(loss)], [location, confidence])
    loc = np.zeros((2, 4, 4))
    loc[0, 0] = [0.5, -2, 0, 0.1]          # prior 0 matches a box equal to it: target 0
    loc[0, 1:] = 7.0                       # unmatched priors: no location loss
    conf = np.zeros((2, 4, 2))
    conf[0, 1], conf[0, 2] = [0, 2], [0, 1]  # the two hardest negatives of image 0
    gt_box = np.zeros((2, 2, 4))           # image 0: one box plus a zero (padding) box
    gt_box[0, 0], gt_box[1] = PRIORS[0], PRIORS[[1, 3]]
    gt_label = np.ones((2, 2, 1), np.int32)
    got, got_dloc, got_dconf = startup_executor().run(
        feed={"loc": loc, "conf": conf, "gt_box": gt_box, "gt_label": gt_label,
              "prior": PRIORS}, fetch_list=[loss, dloc, dconf])
    # Image 0: 1 positive, neg_pos_ratio 2 keeps priors 1 and 2 (prior 3 is easier).
    conf0 = np.log(2) + np.log(1 + np.e ** 2) + np.log(1 + np.e)
    loc0 = 0.5 * 0.25 + (2 - 0.5) + 0 + 0.5 * 0.01
    # Image 1: 2 positives (priors 1, 3), both remaining priors are negatives.
    conf1 = 4 * np.log(2)
    positives = 3
    np.testing.assert_allclose(got, [[(conf0 + loc0) / positives], [conf1 / positives]],
                               rtol=1e-12)
    expected_dloc = np.zeros((2, 4, 4))
    expected_dloc[0, 0] = [0.5, -1, 0, 0.1]
    np.testing.assert_allclose(got_dloc, expected_dloc / positives, atol=1e-12)
    softmax = np.exp(conf) / np.exp(conf).sum(-1, keepdims=True)
    onehot = np.zeros_like(conf)
    onehot[0, 0, 1] = onehot[1, 1, 1] = onehot[1, 3, 1] = 1
    onehot[0, 1:3, 0] = onehot[1, [0, 2], 0] = 1
    weight = np.ones((2, 4, 1))
    weight[0, 3] = 0                       # not mined: no confidence loss
    np.testing.assert_allclose(got_dconf, (softmax - onehot) * weight / positives,
                               atol=1e-12)


def test_ssd_loss_rejects_unknown_batch_and_mismatched_ground_truth():
    conf = static.data("conf", [-1, 4, 2], "float32")
    loc = static.data("loc", [-1, 4, 4], "float32")
    prior = static.data("prior", [4, 4], "float32")
    with pytest.raises(ValueError, match="known batch size"):
        paddle.fluid.layers.ssd_loss(loc, conf, static.data("b", [3, 4], "float32"),
                                     static.data("l", [3, 1], "int32"), prior)
    conf2 = static.data("conf2", [2, 4, 2], "float32")
    loc2 = static.data("loc2", [2, 4, 4], "float32")
    with pytest.raises(ValueError, match=r"gt_box 'b3' \[3, 4\] must be \[N=2, G, 4\]"):
        paddle.fluid.layers.ssd_loss(loc2, conf2, static.data("b3", [3, 4], "float32"),
                                     static.data("l3", [3, 1], "int32"), prior)
    with pytest.raises(ValueError, match="max_negative"):
        paddle.fluid.layers.ssd_loss(loc2, conf2, static.data("b4", [2, 3, 4], "float32"),
                                     static.data("l4", [2, 3, 1], "int32"), prior,
                                     mining_type="hard_example")
    with pytest.raises(ValueError, match=r"confidence 'conf5' must be \[N, Np, C\].*\[10, 21\]"):
        paddle.fluid.layers.ssd_loss(static.data("loc5", [10, 4], "float32"),
                                     static.data("conf5", [10, 21], "float32"),
                                     static.data("b5", [4], "float32", lod_level=1),
                                     static.data("l5", [1], "float32", lod_level=1), prior)


# -- BeamSearchDecoder / dynamic_decode
VOCAB, BEAM, START, END = 5, 3, 0, 4
TABLE = np.random.RandomState(7).randn(VOCAB, VOCAB).astype("float32") * 2
TABLE[:, END] += 2.5   # some beams end early, so finished-beam masking is exercised


class TableCell(nn.RNNCellBase):
    """h' = 0.5 h + TABLE[token]; the logits are h' (deterministic, beam-dependent)."""

    def __init__(self, table):
        super().__init__()
        self.table = table

    def forward(self, inputs, states):
        looked_up = nn.functional.embedding(inputs, self.table)
        new = paddle.scale(states, 0.5) + looked_up
        return new, new


def _numpy_beam_search(h0, steps):
    """Paddle's beam search step by step: (ids [B, T, beam] after backtracking, scores of
    the final beams [B, beam], lengths [B, beam])."""
    def log_softmax(a):
        a = a - a.max(-1, keepdims=True)
        return a - np.log(np.exp(a).sum(-1, keepdims=True))
    all_ids = []
    final_scores, final_lengths = [], []
    for b in range(h0.shape[0]):
        h = np.repeat(h0[b][None], BEAM, 0)
        tokens = np.full(BEAM, START)
        score = np.array([0.0] + [-np.inf] * (BEAM - 1))
        finished = np.zeros(BEAM, bool)
        lengths = np.zeros(BEAM, int)
        history = []
        for _ in range(steps):
            h = 0.5 * h + TABLE[tokens]
            logp = log_softmax(h.astype(np.float64))
            logp[finished] = -np.inf
            logp[finished, END] = 0.0
            total = (score[:, None] + logp).reshape(-1)
            best = np.argsort(-total, kind="stable")[:BEAM]
            parent, tokens = best // VOCAB, best % VOCAB
            score, h = total[best], h[parent]
            lengths = lengths[parent] + ~finished[parent]
            finished = finished[parent] | (tokens == END)
            history.append((tokens, parent))
        ids = np.zeros((steps, BEAM), int)
        beam = np.arange(BEAM)
        for t in range(steps - 1, -1, -1):
            ids[t] = history[t][0][beam]
            beam = history[t][1][beam]
        all_ids.append(ids)
        final_scores.append(score)
        final_lengths.append(lengths)
    return np.stack(all_ids), np.array(final_scores), np.array(final_lengths)


def test_beam_search_decoder_matches_numpy_beam_search():
    table = paddle.assign(TABLE)
    h0 = static.data("h0", [-1, VOCAB], "float32")
    decoder = nn.BeamSearchDecoder(TableCell(table), START, END, BEAM)
    max_step_num = 5
    ids, final_states, lengths = nn.dynamic_decode(decoder, inits=h0,
                                                   max_step_num=max_step_num,
                                                   return_length=True)
    h0_value = np.random.RandomState(3).randn(2, VOCAB).astype("float32")
    got_ids, got_scores, got_lengths = startup_executor().run(
        feed={"h0": h0_value}, fetch_list=[ids, final_states.log_probs, lengths])
    expected_ids, expected_scores, expected_lengths = _numpy_beam_search(
        h0_value, max_step_num + 1)
    assert got_ids.shape == (2, max_step_num + 1, BEAM)
    np.testing.assert_array_equal(got_ids, expected_ids)
    np.testing.assert_allclose(got_scores, expected_scores, rtol=1e-5)
    np.testing.assert_array_equal(got_lengths, expected_lengths)
    # The case exercises beams that finish before the last step, and ones that do not.
    assert (expected_lengths < max_step_num + 1).any() and \
        (expected_lengths == max_step_num + 1).any()


class MergingDecoder(nn.BeamSearchDecoder):
    """A subclass on Paddle 2.0's hooks, as PaddleNLP's TransformerBeamSearchDecoder: it
    merges batch and beam with the `batch_size` initialize left on it and calls
    `_beam_search_step(time=..., ...)` itself."""

    def step(self, time, inputs, states, **kwargs):
        merge = lambda x: paddle.reshape(x, [self.batch_size * self.beam_size] + x.shape[2:])
        outputs, next_states = self.cell(merge(inputs), merge(states.cell_states))
        output, state = self._beam_search_step(
            time=time, logits=self._split_batch_beams(outputs),
            next_cell_states=self._split_batch_beams(next_states), beam_state=states)
        return output, state, output.predicted_ids, state.finished


@pytest.mark.paddle("2.0")   # its batch_size [2] is 2.0's; 3.3.1's is 0-D (switch scalar_shape)
def test_a_subclass_on_paddle_20s_hooks_decodes_as_the_decoder(dygraph):
    h0_value = np.random.RandomState(3).randn(2, VOCAB).astype("float32")
    decoder = MergingDecoder(TableCell(paddle.to_tensor(TABLE)), START, END, BEAM)
    ids, final_states = nn.dynamic_decode(decoder, inits=paddle.to_tensor(h0_value),
                                          max_step_num=5)
    assert decoder.batch_size.numpy().tolist() == [2] and decoder.kinf == 1e9
    expected_ids, expected_scores, _ = _numpy_beam_search(h0_value, ids.shape[1])
    np.testing.assert_array_equal(ids.numpy(), expected_ids)
    np.testing.assert_allclose(final_states.log_probs.numpy(), expected_scores, rtol=1e-5)


def test_tile_beam_merge_with_batch_repeats_each_entry():
    x = static.data("x", [2, 3], "float32")
    y = nn.BeamSearchDecoder.tile_beam_merge_with_batch(x, 2)
    value = np.arange(6, dtype="float32").reshape(2, 3)
    got, = startup_executor().run(feed={"x": value}, fetch_list=[y])
    np.testing.assert_array_equal(got, value[[0, 0, 1, 1]])


def test_ssd_loss_one_image_without_padding_equals_the_batched_row():
    loc = static.data("loc", [1, 4, 4], "float64")
    conf = static.data("conf", [1, 4, 2], "float64")
    loss = paddle.fluid.layers.ssd_loss(loc, conf, static.data("b", [2, 4], "float64"),
                                        static.data("l", [2, 1], "int32"),
                                        static.data("prior", [4, 4], "float64"),
                                        neg_pos_ratio=2.0)
    with pytest.raises(ValueError, match=r"gt_label 'l2' \[3, 1\] must be \[2, 1\]"):
        paddle.fluid.layers.ssd_loss(loc, conf, static.data("b2", [2, 4], "float64"),
                                     static.data("l2", [3, 1], "int32"),
                                     static.data("prior2", [4, 4], "float64"))
    conf_value = np.zeros((1, 4, 2))
    conf_value[0, 0] = [0, 2]
    got, = startup_executor().run(feed={"loc": np.zeros((1, 4, 4)), "conf": conf_value,
                            "b": PRIORS[[1, 3]], "l": np.ones((2, 1), np.int32),
                            "prior": PRIORS}, fetch_list=[loss])
    # Priors 1, 3 positive (label 1, logits 0: log 2 each); negatives 0 and 2.
    expected = (2 * np.log(2) + np.log(1 + np.e ** 2) + np.log(2)) / 2
    np.testing.assert_allclose(got, [[expected]], rtol=1e-12)
