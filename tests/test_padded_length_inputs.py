"""Ops that read sequences from a LoD also take Paddle's padded form: a [batch, max_len]
input with a lengths input (chunk_eval SeqLength, ctc_align InputLength, edit_distance
HypsLength / RefsLength). Expected values are worked out by hand."""
import numpy as np

from refimpl.ops.registry import get_op_def


def _forward(op_type, *args, **attrs):
    return get_op_def(op_type).forward(*args, **attrs)


def test_ctc_align_padded_rows_are_aligned_up_to_their_length_and_padded():
    tokens = np.array([[0, 2, 2, 0, 3, 3, 5], [1, 1, 0, 1, 4, 4, 4]], np.int32)
    out, lengths = _forward("ctc_align", tokens, np.array([[5], [4]], np.int32),
                            blank=0, merge_repeated=True, padding_value=-1)
    # row 0: 0 2 2 0 3 -> 2 3; row 1: 1 1 0 1 -> 1 1 (a blank between keeps both)
    np.testing.assert_array_equal(out, [[2, 3, -1, -1, -1, -1, -1],
                                        [1, 1, -1, -1, -1, -1, -1]])
    np.testing.assert_array_equal(lengths, [[2], [2]])
    assert out.dtype == np.int32


def test_ctc_align_lod_rows_stay_packed():
    tokens = np.array([[0], [2], [2], [0], [3], [1], [1]], np.int32)
    out, lengths = _forward("ctc_align", tokens, np.array([5, 2]), blank=0,
                            merge_repeated=True, padding_value=0)
    np.testing.assert_array_equal(out, [[2], [3], [1]])
    np.testing.assert_array_equal(lengths, [2, 1])


def test_edit_distance_of_padded_rows():
    hyps = np.array([[1, 2, 9, 9], [4, 5, 6, 7]], np.int64)
    refs = np.array([[1, 3, 9], [4, 6, 7]], np.int64)
    out, count = _forward("edit_distance", hyps, refs, np.array([2, 4]), np.array([2, 3]),
                          normalized=False)
    # [1 2] -> [1 3]: one substitution; [4 5 6 7] -> [4 6 7]: one deletion
    np.testing.assert_array_equal(out, [[1.0], [1.0]])
    np.testing.assert_array_equal(count, [2])
    out, _ = _forward("edit_distance", hyps, refs, np.array([2, 4]), np.array([2, 3]),
                      normalized=True)
    np.testing.assert_allclose(out, [[0.5], [1 / 3]], rtol=1e-6)


def test_chunk_eval_takes_padded_rows_with_a_trailing_unit_dimension():
    # IOB, one chunk type: B=0, I=1, O=2
    label = np.array([[0, 1, 2, 0], [2, 0, 1, 9]], np.int64)[:, :, None]
    inference = np.array([[0, 1, 2, 2], [2, 0, 2, 9]], np.int64)[:, :, None]
    results = _forward("chunk_eval", inference, label, np.array([4, 3]),
                       num_chunk_types=1, chunk_scheme="IOB")
    precision, recall, f1, n_infer, n_label, n_correct = (float(r[0]) for r in results)
    # label chunks: (0,1) (3,3) | (1,2); inferred: (0,1) | (1,1); correct: (0,1)
    assert (n_infer, n_label, n_correct) == (2, 3, 1)
    np.testing.assert_allclose([precision, recall, f1], [0.5, 1 / 3, 0.4], rtol=1e-6)
