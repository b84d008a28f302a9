"""Paddle 1.8 fluid.layers filter_by_instag (against numpy, with its gradient),
generate_mask_labels (a hand-checked square polygon) and DynamicRNN (against a numpy
recurrence over sequences of lengths [3, 1, 2])."""
import numpy as np
import pytest

import refimpl.fluid.layers as layers
from refimpl import static

RNG = np.random.RandomState(7)


def _run(fetch, feed, return_numpy=True):
    exe = static.Executor()
    exe.run(static.default_startup_program())
    return exe.run(static.default_main_program(), feed=feed, fetch_list=fetch,
                   return_numpy=return_numpy)


def _int_data(name, shape):
    return static.data(name, shape, "int64")


# -- filter_by_instag
def test_filter_by_instag_keeps_tagged_rows_and_routes_the_gradient_back():
    ins = static.data("ins", [4, 3], "float64")
    ins.stop_gradient = False
    tags, tag_len = _int_data("tags", [6]), _int_data("tag_len", [4])
    keep = _int_data("keep", [2])
    out, loss_weight = layers.filter_by_instag(ins, tags, keep, False, ins_tag_length=tag_len)
    (d_ins,) = static.gradients([layers.reduce_sum(out * out)], [ins])
    x = RNG.randn(4, 3)
    # instance tags: [1, 2], [3], [], [2, 5, 6] -> rows 0 and 3 carry tag 2 or 6
    got = _run([out, loss_weight, d_ins], {
        "ins": x, "tags": np.array([1, 2, 3, 2, 5, 6]), "tag_len": np.array([2, 1, 0, 3]),
        "keep": np.array([6, 2])})
    np.testing.assert_allclose(got[0], x[[0, 3]])
    np.testing.assert_array_equal(got[1], [[1.0], [1.0]])
    expected_grad = np.zeros_like(x)
    expected_grad[[0, 3]] = 2 * x[[0, 3]]
    np.testing.assert_allclose(got[2], expected_grad)


def test_filter_by_instag_lod_instances_and_the_empty_result():
    ins = static.data("ins", [5, 2], "float32")
    tags, keep = _int_data("tags", [3, 1]), _int_data("keep", [1])
    ins_len = _int_data("ins_len", [3])
    out, loss_weight = layers.filter_by_instag(ins, tags, keep, True, out_val_if_empty=-3,
                                               ins_length=ins_len)
    x = np.arange(10, dtype=np.float32).reshape(5, 2)
    feed = {"ins": x, "tags": np.array([[4], [7], [4]]), "ins_len": np.array([2, 1, 2])}
    got = _run([out, loss_weight], dict(feed, keep=np.array([4])))
    np.testing.assert_array_equal(got[0], x[[0, 1, 3, 4]])
    got = _run([out, loss_weight], dict(feed, keep=np.array([9])))
    np.testing.assert_array_equal(got[0], [[-3, -3]])
    np.testing.assert_array_equal(got[1], [[0]])


def test_filter_by_instag_is_lod_needs_instance_lengths():
    ins = static.data("ins", [5, 2], "float32")
    tags = _int_data("tags", [3])
    with pytest.raises(ValueError, match="is_lod=True needs ins_length"):
        layers.filter_by_instag(ins, tags, tags, True)


# -- generate_mask_labels
def test_generate_mask_labels_rasterizes_the_matched_square():
    names = [("im_info", [1, 3], "float32"), ("gt_classes", [2, 1], "int32"),
             ("is_crowd", [2, 1], "int32"), ("gt_segms", [8, 2], "float32"),
             ("rois", [3, 4], "float32"), ("labels", [3, 1], "int32"),
             ("point_num", [2], "int32"), ("poly_num", [2], "int32")]
    v = {n: static.data(n, s, d) for n, s, d in names}
    mask_rois, has_mask, masks = layers.generate_mask_labels(
        v["im_info"], v["gt_classes"], v["is_crowd"], v["gt_segms"], v["rois"], v["labels"],
        num_classes=3, resolution=4, gt_segms_point_num=v["point_num"],
        gt_poly_num=v["poly_num"])
    # gt 0: square (0,0)-(4,4), class 2; gt 1: a far square, class 1. Image scale 2.
    feed = {"im_info": np.array([[20, 20, 2]], np.float32),
            "gt_classes": np.array([[2], [1]], np.int32),
            "is_crowd": np.array([[0], [0]], np.int32),
            "gt_segms": np.array([[0, 0], [4, 0], [4, 4], [0, 4],
                                  [10, 10], [12, 10], [12, 12], [10, 12]], np.float32),
            "rois": np.array([[0, 0, 16, 16], [20, 20, 24, 24], [0, 0, 8, 8]], np.float32),
            "labels": np.array([[2], [0], [1]], np.int32),
            "point_num": np.array([4, 4], np.int32), "poly_num": np.array([1, 1], np.int32)}
    got_rois, got_has, got_masks = _run([mask_rois, has_mask, masks], feed)
    np.testing.assert_array_equal(got_rois, [[0, 0, 16, 16], [0, 0, 8, 8]])
    np.testing.assert_array_equal(got_has, [[0], [2]])
    # roi 0 (unscaled (0,0)-(8,8)) covers twice the square: its top-left 2 x 2 cells
    quarter = np.zeros((4, 4), np.int32)
    quarter[:2, :2] = 1
    expected = np.full((2, 3, 16), -1, np.int32)
    expected[0, 2] = quarter.reshape(-1)
    expected[1, 1] = 1          # roi 2 is the square itself, labelled class 1
    np.testing.assert_array_equal(got_masks, expected.reshape(2, -1))


def test_generate_mask_labels_needs_the_polygon_counts():
    x = static.data("x", [1, 4], "float32")
    with pytest.raises(ValueError, match="gt_segms_point_num"):
        layers.generate_mask_labels(x, x, x, x, x, x, 2, 4)


# -- DynamicRNN
LENS = [3, 1, 2]


def _numpy_drnn(x, boot):
    """h_t = tanh(x_t + 0.5 h_{t-1}) per sequence; outputs (h_t, h_{t-1}) packed."""
    hs, prevs, start = [], [], 0
    for i, n in enumerate(LENS):
        h = boot[i]
        for row in x[start:start + n]:
            prevs.append(h)
            h = np.tanh(row + 0.5 * h)
            hs.append(h)
        start += n
    return np.array(hs), np.array(prevs)


def _build_drnn(x, init=None, max_len=3):
    drnn = layers.DynamicRNN(max_len=max_len)
    with drnn.block():
        word = drnn.step_input(x)
        prev = drnn.memory(init=init) if init is not None else drnn.memory(shape=[2], value=0.3)
        hidden = layers.tanh(word + prev * 0.5)
        drnn.update_memory(prev, hidden)
        drnn.output(hidden, prev)
    return drnn()


@pytest.mark.parametrize("with_init", [False, True])
def test_dynamic_rnn_matches_a_numpy_recurrence(with_init):
    x = static.data("x", [-1, 2], "float64", lod_level=1)
    boot = static.data("boot", [3, 2], "float64") if with_init else None
    out, prev = _build_drnn(x, boot)
    rows = RNG.randn(6, 2)
    boot_value = RNG.randn(3, 2) if with_init else np.full((3, 2), 0.3)
    feed = {"x": (rows, [LENS])}
    if with_init:
        feed["boot"] = boot_value
    got_out, got_prev = _run([out, prev], feed, return_numpy=False)
    want_out, want_prev = _numpy_drnn(rows, boot_value)
    np.testing.assert_allclose(np.array(got_out), want_out, rtol=1e-12)
    np.testing.assert_allclose(np.array(got_prev), want_prev, rtol=1e-12)
    assert got_out.recursive_sequence_lengths() == [LENS]


def test_dynamic_rnn_gradient_reaches_the_input():
    x = static.data("x", [-1, 2], "float64", lod_level=1)
    x.stop_gradient = False
    out, _ = _build_drnn(x)
    (dx,) = static.gradients([layers.reduce_sum(out)], [x])
    rows = RNG.randn(6, 2)
    (got,) = _run([dx], {"x": (rows, [LENS])}, return_numpy=False)
    got = np.array(got)
    eps, numeric = 1e-6, np.zeros_like(rows)
    for idx in np.ndindex(*rows.shape):
        bumped = rows.copy()
        bumped[idx] += eps
        numeric[idx] = (_numpy_drnn(bumped, np.full((3, 2), 0.3))[0].sum()
                        - _numpy_drnn(rows, np.full((3, 2), 0.3))[0].sum()) / eps
    np.testing.assert_allclose(got, numeric, rtol=1e-4, atol=1e-6)


def test_dynamic_rnn_needs_max_len():
    x = static.data("x", [-1, 2], "float32", lod_level=1)
    drnn = layers.DynamicRNN()
    with pytest.raises(ValueError, match="needs max_len"):
        with drnn.block():
            drnn.step_input(x)


def test_dynamic_rnn_sequences_longer_than_max_len_fail_at_run_time():
    x = static.data("x", [-1, 2], "float64", lod_level=1)
    out, _ = _build_drnn(x, max_len=2)
    with pytest.raises(Exception, match="padded_length 2 is shorter"):
        _run([out], {"x": (RNG.randn(6, 2), [LENS])})
