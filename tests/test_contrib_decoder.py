"""fluid.contrib.decoder (Paddle 1.8): a StateCell h' = tanh(fc([h, x])) run by a
TrainingDecoder (teacher forcing over LoD targets) and by a BeamSearchDecoder with one beam
(greedy), both against numpy recurrences over the same parameters (specs/contrib_decoder.md)."""
import numpy as np
import pytest

from refimpl import fluid
from refimpl.fluid import layers
from refimpl.fluid.contrib.decoder import (BeamSearchDecoder, InitState, StateCell,
                                           TrainingDecoder)

VOCAB, WORD, HIDDEN = 7, 3, 4


def _cell(context):
    cell = StateCell(inputs={"x": None}, states={"h": InitState(init=context,
                                                                need_reorder=True)},
                     out_state="h")

    @cell.state_updater
    def updater(c):
        c.set_state("h", layers.fc(input=[c.get_state("h"), c.get_input("x")], size=HIDDEN,
                                   act="tanh"))
    return cell


def _params(program, scope):
    """The parameters in creation order: embedding, the cell's fc (w_h, w_x, b), then the
    scoring fc (w, b)."""
    return {p.name: np.array(scope.find_var(p.name).get_tensor())
            for p in program.all_parameters()}


def _softmax(z):
    e = np.exp(z - z.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def _programs():
    main, startup = fluid.Program(), fluid.Program()
    startup.random_seed = 7
    return main, startup


def _source(place, rng):
    lengths = [2, 3]
    values = rng.randn(sum(lengths), HIDDEN).astype("float32")
    return values, np.cumsum(lengths) - 1, fluid.create_lod_tensor(values, [lengths], place)


def test_training_decoder_runs_the_cell_over_each_target_sequence():
    place = fluid.CPUPlace()
    main, startup = _programs()
    with fluid.program_guard(main, startup):
        src = layers.data(name="src", shape=[HIDDEN], dtype="float32", lod_level=1)
        trg = layers.data(name="trg", shape=[1], dtype="int64", lod_level=1)
        context = layers.sequence_last_step(src)
        embedded = layers.embedding(trg, size=[VOCAB, WORD])
        decoder = TrainingDecoder(_cell(context))
        with decoder.block():
            word = decoder.step_input(embedded)
            decoder.state_cell.compute_state(inputs={"x": word})
            probs = layers.fc(input=decoder.state_cell.get_state("h"), size=VOCAB,
                              act="softmax")
            decoder.state_cell.update_states()
            decoder.output(probs)
        out = decoder()
    scope = fluid.Scope()
    exe = fluid.Executor(place)
    exe.run(startup, scope=scope)
    rng = np.random.RandomState(11)
    src_values, last_rows, src_tensor = _source(place, rng)
    targets = rng.randint(0, VOCAB, (7, 1)).astype("int64")
    got, = exe.run(main, feed={"src": src_tensor, "trg": fluid.create_lod_tensor(
        targets, [[3, 4]], place)}, fetch_list=[out], scope=scope, return_numpy=False)
    assert got.recursive_sequence_lengths() == [[3, 4]]
    emb, w_h, w_x, b, w_o, b_o = _params(main, scope).values()
    want, row = [], 0
    for seq, length in enumerate((3, 4)):
        h = src_values[last_rows[seq]]
        for word in targets[row:row + length, 0]:
            h = np.tanh(h @ w_h + emb[word] @ w_x + b)
            want.append(_softmax(h @ w_o + b_o))
        row += length
    np.testing.assert_allclose(np.array(got), np.array(want), rtol=1e-5, atol=1e-6)


def test_beam_search_decoder_with_one_beam_decodes_greedily():
    place, max_len, end_id = fluid.CPUPlace(), 4, 1
    main, startup = _programs()
    with fluid.program_guard(main, startup):
        src = layers.data(name="src", shape=[HIDDEN], dtype="float32", lod_level=1)
        init_ids = layers.data(name="init_ids", shape=[1], dtype="int64", lod_level=2)
        init_scores = layers.data(name="init_scores", shape=[1], dtype="float32",
                                  lod_level=2)
        decoder = BeamSearchDecoder(_cell(layers.sequence_last_step(src)), init_ids,
                                    init_scores, target_dict_dim=VOCAB, word_dim=WORD,
                                    topk_size=3, max_len=max_len, beam_size=1,
                                    end_id=end_id)
        decoder.decode()
        ids, scores = decoder()
    scope = fluid.Scope()
    exe = fluid.Executor(place)
    exe.run(startup, scope=scope)
    src_values, last_rows, src_tensor = _source(place, np.random.RandomState(11))
    starts = np.array([[0], [2]], "int64")
    got_ids, got_scores = exe.run(main, feed={
        "src": src_tensor,
        "init_ids": fluid.create_lod_tensor(starts, [[1, 1], [1, 1]], place),
        "init_scores": fluid.create_lod_tensor(np.zeros((2, 1), "float32"),
                                               [[1, 1], [1, 1]], place)},
        fetch_list=[ids, scores], scope=scope, return_numpy=False)
    emb, w_h, w_x, b, w_o, b_o = _params(main, scope).values()
    sentences, sentence_scores = [], []
    for seq in range(2):
        h, word, score = src_values[last_rows[seq]], int(starts[seq, 0]), 0.0
        sentence, per_word = [word], [score]
        while len(sentence) <= max_len and word != end_id:
            h = np.tanh(h @ w_h + emb[word] @ w_x + b)
            probs = _softmax(h @ w_o + b_o)
            word = int(probs.argmax())
            score += np.log(probs[word])
            sentence.append(word)
            per_word.append(score)
        sentences.append(sentence)
        sentence_scores.append(per_word)
    assert max(len(s) for s in sentences) > 2     # the loop ran several steps
    assert got_ids.recursive_sequence_lengths() == [[1, 1], [len(s) for s in sentences]]
    np.testing.assert_array_equal(np.array(got_ids).ravel(), np.concatenate(sentences))
    np.testing.assert_allclose(np.array(got_scores).ravel(), np.concatenate(sentence_scores),
                               rtol=1e-5, atol=1e-5)


def test_decoder_api_errors():
    context = layers.data(name="c", shape=[HIDDEN], dtype="float32")
    with pytest.raises(ValueError, match="init_boot"):
        InitState(shape=[-1, HIDDEN])
    with pytest.raises(ValueError, match="out_state"):
        StateCell(inputs={"x": None}, states={"h": InitState(init=context)}, out_state="c")
    with pytest.raises(ValueError, match="must be an InitState"):
        StateCell(inputs={"x": None}, states={"h": context}, out_state="h")
    cell = _cell(context)
    decoder = TrainingDecoder(cell)
    with pytest.raises(ValueError, match="inside its block"):
        decoder.output(context)
    with pytest.raises(ValueError, match="after its block"):
        decoder()
    with pytest.raises(ValueError, match="already entered a decoder"):
        TrainingDecoder(cell)
