"""Detection layers (fluid.layers): hand-derived values through the executor, direct
definitions of RoI pooling, a box_coder round trip, NMS survivors, gradients of the RoI
ops, and the build-time errors."""
import math

import numpy as np
import pytest

import refimpl as paddle
from refimpl import fluid, static
from refimpl.framework.errors import OpError
from refimpl.ops.registry import get_op_def

L = fluid.layers


def _run(fetch, feed, return_numpy=True):
    exe = static.Executor()
    exe.run(static.default_startup_program())
    return exe.run(static.default_main_program(), feed=feed, fetch_list=list(fetch),
                   return_numpy=return_numpy)


def _with_lengths(tensors):
    """(array, recursive sequence lengths) of each fetched LoDTensor."""
    return [(np.array(t), t.recursive_sequence_lengths()) for t in tensors]


def _data(name, value):
    value = np.asarray(value)
    return static.data(name, list(value.shape), value.dtype.name)


def test_iou_similarity_of_known_boxes():
    x = np.array([[0.0, 0.0, 2.0, 2.0]])
    y = np.array([[1.0, 1.0, 3.0, 3.0], [0.0, 0.0, 2.0, 2.0], [3.0, 3.0, 4.0, 4.0]])
    out, = _run([L.iou_similarity(_data("x", x), _data("y", y))], {"x": x, "y": y})
    np.testing.assert_allclose(out, [[1 / 7, 1.0, 0.0]])
    # pixel boxes: [0, 1] x [0, 1] is 2 x 2 pixels; overlap with [1, 2]^2 is one pixel
    px, py = np.array([[0.0, 0.0, 1.0, 1.0]]), np.array([[1.0, 1.0, 2.0, 2.0]])
    static.default_main_program().global_block().ops.clear()
    out, = _run([L.iou_similarity(_data("px", px), _data("py", py), box_normalized=False)],
                {"px": px, "py": py})
    np.testing.assert_allclose(out, [[1 / 7]])


def test_box_coder_encodes_by_hand_and_decode_inverts_encode():
    prior = np.array([[0.0, 0.0, 2.0, 2.0], [1.0, 0.0, 5.0, 2.0]])
    target = np.array([[1.0, 1.0, 3.0, 3.0], [0.5, 0.0, 4.0, 1.0]])
    var = [0.1, 0.1, 0.2, 0.2]
    p, t = _data("p", prior), _data("t", target)
    enc = L.box_coder(p, var, t, code_type="encode_center_size")
    dec = L.box_coder(p, var, enc, code_type="decode_center_size")
    enc_v, dec_v = _run([enc, dec], {"p": prior, "t": target})
    # target 0 against prior 0: centers (2, 2) vs (1, 1), equal sizes
    np.testing.assert_allclose(enc_v[0, 0], [0.5 / 0.1, 0.5 / 0.1, 0.0, 0.0])
    # prior 1 center (3, 1), size 4 x 2; target 1 center (2.25, 0.5), size 3.5 x 1
    np.testing.assert_allclose(enc_v[1, 1], [-0.75 / 4 / 0.1, -0.5 / 2 / 0.1,
                                             math.log(3.5 / 4) / 0.2, math.log(0.5) / 0.2])
    np.testing.assert_allclose(dec_v, np.broadcast_to(target[:, None], (2, 2, 4)), atol=1e-12)


def test_box_coder_variance_input_equals_attr_and_axis1_uses_rows():
    rng = np.random.RandomState(0)
    prior = np.array([[0.0, 0.0, 2.0, 2.0], [1.0, 1.0, 4.0, 2.0]])
    deltas = rng.uniform(-1, 1, (2, 3, 4))
    var = np.tile([0.1, 0.2, 0.3, 0.4], (2, 1))
    p, d, v = _data("p", prior), _data("d", deltas), _data("v", var)
    by_input = L.box_coder(p, v, d, code_type="decode_center_size", axis=1)
    by_attr = L.box_coder(p, list(var[0]), d, code_type="decode_center_size", axis=1)
    a, b = _run([by_input, by_attr], {"p": prior, "d": deltas, "v": var})
    np.testing.assert_allclose(a, b)
    # row 1, any column: decoded against prior 1 (center (2.5, 1.5), size 3 x 1)
    dx, dy, dw, dh = deltas[1, 2] * var[0]
    cx, cy, w, h = 2.5 + dx * 3, 1.5 + dy * 1, 3 * math.exp(dw), math.exp(dh)
    np.testing.assert_allclose(a[1, 2], [cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2])


def test_box_clip_to_image_size_over_scale():
    boxes = np.array([[[-3.0, 2.0, 50.0, 70.0]], [[5.0, -1.0, 9.0, 100.0]]])
    info = np.array([[40.0, 60.0, 2.0], [10.0, 10.0, 1.0]])      # h, w, scale
    out, = _run([L.box_clip(_data("b", boxes), _data("i", info))], {"b": boxes, "i": info})
    np.testing.assert_allclose(out, [[[0, 2, 29, 19]], [[5, 0, 9, 9]]])


def test_prior_box_counts_and_first_cell_by_hand():
    feat, img = np.zeros((1, 1, 2, 2), "float32"), np.zeros((1, 3, 10, 10), "float32")
    boxes, var = L.prior_box(_data("f", feat), _data("img", img), min_sizes=[4.0],
                             max_sizes=[9.0], aspect_ratios=[2.0], flip=True)
    assert tuple(boxes.shape) == (2, 2, 4, 4)        # ratios 1, 2, 1/2 plus the max square
    b, v = _run([boxes, var], {"f": feat, "img": img})
    c = 2.5                                          # step 5, offset 0.5
    hw, hh = 2 * math.sqrt(2), 2 / math.sqrt(2)
    want = np.array([[c - 2, c - 2, c + 2, c + 2], [c - hw, c - hh, c + hw, c + hh],
                     [c - hh, c - hw, c + hh, c + hw], [c - 3, c - 3, c + 3, c + 3]]) / 10
    np.testing.assert_allclose(b[0, 0], want, rtol=1e-6)
    np.testing.assert_allclose(b[1, 0] - b[0, 0], np.tile([0, 0.5, 0, 0.5], (4, 1)), atol=1e-6)
    np.testing.assert_allclose(v, np.broadcast_to([0.1, 0.1, 0.2, 0.2], v.shape))


def test_density_prior_box_grid_by_hand():
    feat, img = np.zeros((1, 1, 1, 1), "float32"), np.zeros((1, 3, 8, 8), "float32")
    boxes, _ = L.density_prior_box(_data("f", feat), _data("img", img), densities=[2],
                                   fixed_sizes=[2.0], fixed_ratios=[1.0])
    b, = _run([boxes], {"f": feat, "img": img})
    # step 8, 2 x 2 centers at 2 and 6, boxes of side 2
    want = [[1, 1, 3, 3], [5, 1, 7, 3], [1, 5, 3, 7], [5, 5, 7, 7]]
    np.testing.assert_allclose(b[0, 0], np.array(want) / 8.0)


def test_anchor_generator_by_hand():
    feat = np.zeros((1, 1, 1, 2), "float32")
    anchors, var = L.anchor_generator(_data("f", feat), anchor_sizes=[32.0],
                                      aspect_ratios=[1.0, 4.0], stride=[16.0, 16.0])
    a, = _run([anchors], {"f": feat})
    # ratio 1: base 16 x 16 scaled to 32; center 7.5 -> corners 7.5 -/+ 15.5
    np.testing.assert_allclose(a[0, 0, 0], [-8, -8, 23, 23])
    # ratio 4: base width round(sqrt(64)) = 8, height 32; scaled x2 -> 16 x 64
    np.testing.assert_allclose(a[0, 0, 1], [0, -24, 15, 39])
    np.testing.assert_allclose(a[0, 1, 0], [8, -8, 39, 23])           # next column: +16


def test_yolo_box_single_cell_by_hand():
    x = np.zeros((1, 6, 1, 1), "float32")            # one anchor, one class, all logits 0
    x[0, 5] = math.log(3.0)                          # class sigmoid 0.75
    size = np.array([[32, 64]], "int32")             # height 32, width 64
    boxes, scores = L.yolo_box(_data("x", x), _data("s", size), anchors=[80, 8],
                               class_num=1, conf_thresh=0.4, downsample_ratio=32)
    b, s = _run([boxes, scores], {"x": x, "s": size})
    # center (0.5 * 64, 0.5 * 32); w = 80 * 64 / 32 = 160, h = 8 * 32 / 32
    np.testing.assert_allclose(b, [[[0.0, 12.0, 63.0, 20.0]]])   # x (-48, 112) clipped
    np.testing.assert_allclose(s, [[[0.5 * 0.75]]], rtol=1e-6)
    static.default_main_program().global_block().ops.clear()
    boxes, scores = L.yolo_box(_data("x2", x), _data("s2", size), anchors=[16, 8],
                               class_num=1, conf_thresh=0.6, downsample_ratio=32)
    b, s = _run([boxes, scores], {"x2": x, "s2": size})
    assert not b.any() and not s.any()               # objectness 0.5 below the threshold


def _nms_case():
    boxes = np.array([[[0, 0, 1, 1], [0, 0, 1, 1.1], [2, 2, 3, 3]]], "float32")
    scores = np.array([[[0.5, 0.5, 0.5], [0.9, 0.8, 0.7]]], "float32")  # class 0: background
    return boxes, scores


def test_multiclass_nms_keeps_the_known_survivors():
    boxes, scores = _nms_case()
    out, counts = L.multiclass_nms(_data("b", boxes), _data("s", scores), score_threshold=0.1,
                                   nms_top_k=-1, keep_top_k=-1, nms_threshold=0.3,
                                   return_rois_num=True)
    (o, lod), (n, _) = _with_lengths(_run([out, counts], {"b": boxes, "s": scores},
                                          return_numpy=False))
    # box 1 overlaps box 0 with IoU 1 / 1.1 > 0.3: suppressed
    np.testing.assert_allclose(o, [[1, 0.9, 0, 0, 1, 1], [1, 0.7, 2, 2, 3, 3]], rtol=1e-6)
    np.testing.assert_array_equal(n, [2])
    assert lod == [[2]]           # Out's LoD: the rows of each image, as in Paddle


def test_multiclass_nms_empty_result_and_index():
    boxes, scores = _nms_case()
    b, s = _data("b", boxes), _data("s", scores)
    empty = L.multiclass_nms(b, s, score_threshold=0.95, nms_top_k=-1, keep_top_k=-1)
    out, index = L.multiclass_nms(b, s, score_threshold=0.1, nms_top_k=-1, keep_top_k=1,
                                  return_index=True)
    (e, e_lod), (o, o_lod), (i, i_lod) = _with_lengths(
        _run([empty, out, index], {"b": boxes, "s": scores}, return_numpy=False))
    np.testing.assert_array_equal(e, [[-1]])         # Paddle 1.8's "nothing kept" marker
    assert e_lod == [[1]]                            # one row, one sequence (1.8.5, 3.3.1)
    np.testing.assert_allclose(o, [[1, 0.9, 0, 0, 1, 1]], rtol=1e-6)
    np.testing.assert_array_equal(i, [[0]])
    assert o_lod == i_lod == [[1]]


def test_locality_aware_nms_merges_consecutive_overlaps_by_score():
    boxes = np.array([[[0, 0, 2, 2], [0, 0, 2, 2.2], [5, 5, 6, 6]]], "float64")
    scores = np.array([[[0.4, 0.6, 0.5]]])
    out, counts = L.locality_aware_nms(_data("b", boxes), _data("s", scores), 0.1, -1, -1,
                                       nms_threshold=0.3, return_rois_num=True)
    (o, lod), (n, _) = _with_lengths(_run([out, counts], {"b": boxes, "s": scores},
                                          return_numpy=False))
    assert lod == [[2]]
    # box 1 (IoU 4 / 4.4 with box 0) merges into box 0: y2 = 0.6 * 2.2 + 0.4 * 2, score 1
    np.testing.assert_allclose(o, [[0, 1.0, 0, 0, 2, 2.12], [0, 0.5, 5, 5, 6, 6]])
    np.testing.assert_array_equal(n, [2])


def test_polygon_iou_of_convex_polygons_by_hand():
    from refimpl.ops._boxes import polygon_iou
    square = np.array([-1, -1, 1, -1, 1, 1, -1, 1], float)        # area 4, counter-clockwise
    diamond = np.array([0, 1, 1, 0, 0, -1, -1, 0], float)         # area 2, clockwise
    assert polygon_iou(square, diamond) == pytest.approx(0.5)     # the diamond is inside
    shifted = square + np.tile([1, 1], 4)                         # overlap 1 x 1
    assert polygon_iou(square, shifted) == pytest.approx(1 / 7)
    assert polygon_iou(square, square + 5) == 0.0


def test_locality_aware_nms_merges_polygons():
    # Paddle 1.8 also takes 8-to-32-coordinate polygons; overlap is the polygon IoU
    square = [0, 0, 2, 0, 2, 2, 0, 2]
    boxes = np.array([[square, [0, 0, 2, 0, 2, 2.2, 0, 2.2], np.add(square, 5)]], "float64")
    scores = np.array([[[0.4, 0.6, 0.5]]])
    out = L.locality_aware_nms(_data("b", boxes), _data("s", scores), 0.1, -1, -1,
                               nms_threshold=0.3, normalized=False)
    (o, lod), = _with_lengths(_run([out], {"b": boxes, "s": scores}, return_numpy=False))
    assert lod == [[2]]
    # polygon 1 (IoU 4 / 4.4 with polygon 0) merges into it: its top y = 0.6 * 2.2 + 0.4 * 2
    np.testing.assert_allclose(o, [[0, 1.0, 0, 0, 2, 0, 2, 2.12, 0, 2.12],
                                   [0, 0.5] + list(np.add(square, 5))])


def test_matrix_nms_linear_decay_by_hand():
    boxes = np.array([[[0, 0, 2, 1], [1, 0, 3, 1]]], "float32")     # IoU 1/3
    scores = np.array([[[0, 0], [0.9, 0.6]]], "float32")
    out, index, counts = L.matrix_nms(_data("b", boxes), _data("s", scores), 0.1, 0.0, -1, -1,
                                      return_index=True, return_rois_num=True)
    # the rows per image are also Out's and Index's LoD (Paddle 1.8), so fetched as LoDTensors
    (o, o_lod), (i, i_lod), (n, _) = _with_lengths(
        _run([out, index, counts], {"b": boxes, "s": scores}, return_numpy=False))
    assert o_lod == i_lod == [[2]]
    np.testing.assert_allclose(o[:, :2], [[1, 0.9], [1, 0.6 * (1 - 1 / 3)]], rtol=1e-6)
    np.testing.assert_array_equal(i, [[0], [1]])
    np.testing.assert_array_equal(n, [2])


def test_retinanet_detection_output_by_hand():
    anchors = [np.array([[0.0, 0.0, 9.0, 9.0]]), np.array([[20.0, 20.0, 29.0, 29.0]])]
    scores = [np.array([[[0.2, 0.9]]]), np.array([[[0.1, 0.05]]])]
    deltas = [np.zeros((1, 1, 4)), np.zeros((1, 1, 4))]       # boxes = their anchors
    info = np.array([[40.0, 40.0, 1.0]])
    feed = {"i": info}

    def listed(prefix, arrays):
        feed.update({"%s%d" % (prefix, k): a for k, a in enumerate(arrays)})
        return [_data("%s%d" % (prefix, k), a) for k, a in enumerate(arrays)]
    out = L.retinanet_detection_output(listed("b", deltas), listed("s", scores),
                                       listed("a", anchors), _data("i", info),
                                       score_threshold=0.5)
    (o, lod), = _with_lengths(_run([out], feed, return_numpy=False))
    assert lod == [[3]]
    # level 0 keeps only 0.9 (> 0.5); the last level takes every score > 0
    np.testing.assert_allclose(o, [[2, 0.9, 0, 0, 9, 9], [1, 0.1, 20, 20, 29, 29],
                                   [2, 0.05, 20, 20, 29, 29]])


def test_retinanet_target_assign_by_hand():
    anchors = np.array([[0.0, 0.0, 9.0, 9.0], [20.0, 0.0, 29.0, 9.0], [4.0, 0.0, 13.0, 9.0]])
    gt = np.array([[0.0, 0.0, 9.0, 11.0], [40.0, 40.0, 45.0, 45.0]])
    labels, crowd = np.array([[7], [5]], "int32"), np.array([0, 1], "int32")
    info = np.array([[50.0, 50.0, 1.0]])
    bbox_pred = np.arange(12, dtype="float64").reshape(1, 3, 4)
    logits = np.arange(6, dtype="float64").reshape(1, 3, 2)
    outs = L.retinanet_target_assign(
        _data("bp", bbox_pred), _data("cl", logits), _data("a", anchors), None,
        _data("g", gt), _data("l", labels), _data("c", crowd), _data("i", info),
        num_classes=2)
    scores, location, label, bbox, weight, fg = _run(outs, {
        "bp": bbox_pred, "cl": logits, "a": anchors, "g": gt, "l": labels, "c": crowd,
        "i": info})
    # gt 1 is crowd; gt 0 overlaps anchor 0 with IoU 100 / 120 (foreground), anchor 2
    # with 60 / 160 < 0.4 and anchor 1 not at all (background)
    np.testing.assert_array_equal(label, [[7], [0], [0]])
    np.testing.assert_allclose(scores, logits[0, [0, 1, 2]])
    np.testing.assert_allclose(location, bbox_pred[0, [0]])
    # anchor 0 center (5, 5) size 10 x 10; gt center (5, 6) size 10 x 12
    np.testing.assert_allclose(bbox, [[0.0, 0.1, 0.0, math.log(1.2)]])
    np.testing.assert_allclose(weight, np.ones((1, 4)))
    np.testing.assert_array_equal(fg, [[2]])


def test_rpn_target_assign_samples_and_skips_straddling_anchors():
    anchors = np.array([[0.0, 0.0, 9.0, 9.0], [1.0, 0.0, 10.0, 9.0], [-8.0, 0.0, 1.0, 9.0],
                        [30.0, 30.0, 39.0, 39.0], [20.0, 20.0, 29.0, 29.0]])
    gt = np.array([[0.0, 0.0, 9.0, 9.0]])
    crowd, info = np.array([0], "int32"), np.array([[50.0, 50.0, 1.0]])
    bbox_pred = np.arange(20, dtype="float64").reshape(1, 5, 4)
    logits = np.arange(5, dtype="float64").reshape(1, 5, 1)
    outs = L.rpn_target_assign(
        _data("bp", bbox_pred), _data("cl", logits), _data("a", anchors), None,
        _data("g", gt), _data("c", crowd), _data("i", info), rpn_batch_size_per_im=3,
        rpn_fg_fraction=0.5, rpn_positive_overlap=0.7, use_random=False)
    scores, location, label, bbox, weight = _run(outs, {
        "bp": bbox_pred, "cl": logits, "a": anchors, "g": gt, "c": crowd, "i": info})
    # anchor 2 sticks out of the image (x1 < 0) and is skipped; anchors 0 (IoU 1) and 1
    # (IoU 90 / 110) pass, one foreground slot; then 3 - 1 = 2 background slots of 3, 4
    np.testing.assert_array_equal(label, [[1], [0], [0]])
    np.testing.assert_allclose(scores, logits[0, [0, 3, 4]])
    np.testing.assert_allclose(location, bbox_pred[0, [0]])
    np.testing.assert_allclose(bbox, np.zeros((1, 4)), atol=1e-12)
    np.testing.assert_allclose(weight, np.ones((1, 4)))
    # use_random with one background slot: either background anchor, never more
    op = get_op_def("rpn_target_assign")
    for _ in range(5):
        loc, score, _, lbl, _ = op.forward(anchors, gt, crowd, info, rpn_batch_size_per_im=2,
                                           rpn_fg_fraction=0.5, use_random=True)
        assert loc[0] in (0, 1) and score[1] in (3, 4) and len(score) == 2
        np.testing.assert_array_equal(lbl.ravel(), [1, 0])


def test_generate_proposal_labels_by_hand():
    gt = np.array([[0.0, 0.0, 9.0, 9.0]])
    rois = np.array([[0.0, 0.0, 19.0, 21.0],       # scale 2: [0, 0, 9.5, 10.5], IoU 100/115.5
                     [20.0, 0.0, 39.0, 19.0],      # [10, 0, 19.5, 9.5]: no overlap -> bg
                     [4.0, 0.0, 23.0, 19.0]])      # [2, 0, 11.5, 9.5]: IoU 80/125 -> fg
    classes, crowd = np.array([[2]], "int32"), np.array([[0]], "int32")
    info = np.array([[40.0, 40.0, 2.0]])
    feed = {"r": rois, "c": classes, "k": crowd, "g": gt, "i": info}
    out = L.generate_proposal_labels(_data("r", rois), _data("c", classes), _data("k", crowd),
                                     _data("g", gt), _data("i", info), batch_size_per_im=3,
                                     fg_fraction=0.67, fg_thresh=0.5, bg_thresh_hi=0.5,
                                     class_nums=3, use_random=False)
    r, labels, targets, inside, outside = _run(out, feed)
    # candidates: the gt itself (IoU 1), rois 0 and 2 are foreground (2 slots: the first
    # two), roi 1 background; rois come back at the image scale
    np.testing.assert_allclose(r, [gt[0] * 2, rois[0], rois[1]])
    np.testing.assert_array_equal(labels, [[2], [2], [0]])
    # roi 0 at image scale: center (5.25, 5.75), size 10.5 x 11.5 vs gt (5, 5), 10 x 10
    want = np.array([-0.25 / 10.5, -0.75 / 11.5, math.log(10 / 10.5), math.log(10 / 11.5)])
    np.testing.assert_allclose(targets[1, 8:], want / [0.1, 0.1, 0.2, 0.2])
    np.testing.assert_allclose(targets[0], 0, atol=1e-12)
    np.testing.assert_array_equal(inside, [[0] * 8 + [1] * 4] * 2 + [[0] * 12])
    np.testing.assert_array_equal(outside, inside)


def _bilinear(plane, y, x):
    """RoIAlign's bilinear sample of one [H, W] plane, by the definition, point by point."""
    h, w = plane.shape
    if y < -1 or y > h or x < -1 or x > w:
        return 0.0
    y, x = min(max(y, 0.0), h - 1), min(max(x, 0.0), w - 1)
    y0, x0 = int(y), int(x)
    y1, x1 = min(y0 + 1, h - 1), min(x0 + 1, w - 1)
    ly, lx = y - y0, x - x0
    return ((1 - ly) * (1 - lx) * plane[y0, x0] + (1 - ly) * lx * plane[y0, x1] +
            ly * (1 - lx) * plane[y1, x0] + ly * lx * plane[y1, x1])


def _roi_align_direct(x, rois, image, ph, pw, scale, ratio):
    out = np.zeros((len(rois), x.shape[1], ph, pw))
    for r, roi in enumerate(rois):
        x1, y1, x2, y2 = roi * scale
        rw, rh = max(x2 - x1, 1.0), max(y2 - y1, 1.0)
        gh = ratio if ratio > 0 else math.ceil(rh / ph)
        gw = ratio if ratio > 0 else math.ceil(rw / pw)
        for c in range(x.shape[1]):
            for i in range(ph):
                for j in range(pw):
                    pts = [(y1 + (i + (a + 0.5) / gh) * rh / ph,
                            x1 + (j + (b + 0.5) / gw) * rw / pw)
                           for a in range(gh) for b in range(gw)]
                    out[r, c, i, j] = np.mean([_bilinear(x[image[r], c], yy, xx)
                                               for yy, xx in pts])
    return out


def test_roi_align_matches_the_bilinear_definition_and_its_gradient_sums():
    rng = np.random.RandomState(0)
    x = rng.uniform(-1, 1, (2, 2, 5, 6))
    rois = np.array([[0.5, 0.5, 4.0, 3.0], [1.0, 0.0, 9.0, 7.0], [2.0, 2.0, 2.2, 2.4]])
    num = np.array([1, 2], "int32")
    xv = static.data("x", [2, 2, 5, 6], "float64")
    xv.stop_gradient = False
    out = L.roi_align(xv, _data("r", rois), 2, 3, spatial_scale=0.8, sampling_ratio=-1,
                      rois_num=_data("n", num))
    loss = fluid.layers.reduce_sum(out)
    grads = static.gradients([loss], [xv])
    o, dx = _run([out, grads[0]], {"x": x, "r": rois, "n": num})
    # spatial_scale is a FLOAT attr: 32 bits, as Paddle holds it
    np.testing.assert_allclose(o, _roi_align_direct(x, rois, [0, 1, 1], 2, 3,
                                                    float(np.float32(0.8)), -1),
                               rtol=1e-12, atol=1e-12)
    # bin weights sum to 1 for an RoI inside the map: image 0's RoI passes on C * bins
    np.testing.assert_allclose(dx[0].sum(), 2 * 6)
    # the op is linear in x, so <dx, x> = sum(out) (the gradient is its transpose)
    np.testing.assert_allclose((dx * x).sum(), o.sum())


def test_roi_pool_max_per_bin_and_gradient_to_the_argmax():
    x = np.arange(16, dtype="float64").reshape(1, 1, 4, 4)
    rois = np.array([[0.0, 0.0, 3.0, 3.0]])
    xv = static.data("x", [1, 1, 4, 4], "float64")
    xv.stop_gradient = False
    out = L.roi_pool(xv, _data("r", rois), pooled_height=2, pooled_width=2)
    dx, = static.gradients([fluid.layers.reduce_sum(out)], [xv])
    o, g = _run([out, dx], {"x": x, "r": rois})
    np.testing.assert_array_equal(o, [[[[5, 7], [13, 15]]]])
    want = np.zeros(16)
    want[[5, 7, 13, 15]] = 1
    np.testing.assert_array_equal(g.ravel(), want)


@pytest.mark.parametrize("version", ["1.8", "2.0"])
def test_roi_layers_read_positional_arguments_in_the_profiles_order(paddle_version, version):
    # Paddle 1.8.5: roi_align(input, rois, pooled_height, pooled_width, spatial_scale,
    # sampling_ratio, name, rois_lod), roi_pool(..., spatial_scale, rois_lod) (inspect,
    # measured with these arguments: "aligned.tmp_0", [8.5, 122.5] and [11, 160]);
    # Paddle 2.0: (..., rois_num, name) for both
    image = np.arange(1, 17, dtype=np.float32).reshape(1, 1, 4, 4)
    feed = {"input": np.concatenate([image, image * 10]),
            "roi": np.array([[1, 1, 2, 2], [1.5, 1.5, 3, 3]], np.float32),
            "images": np.array([0, 1, 2]) if version == "1.8" else np.array([1, 1], np.int32)}
    main, startup = fluid.Program(), fluid.Program()
    with paddle_version(version), fluid.program_guard(main, startup):
        x = fluid.data(name="input", shape=[None, 1, 4, 4], dtype="float32")
        rois = fluid.data(name="roi", shape=[None, 4], dtype="float32")
        images = fluid.data(name="images", shape=[None], dtype=str(feed["images"].dtype))
        if version == "1.8":
            aligned = L.roi_align(x, rois, 1, 1, 1.0, 2, "aligned", images)
            pooled = L.roi_pool(x, rois, 1, 1, 1.0, images)
            with pytest.raises(TypeError, match="roi_pool: at most 1 arguments.*rois_lod"):
                L.roi_pool(x, rois, 1, 1, 1.0, images, "pooled")
        else:
            aligned = L.roi_align(x, rois, 1, 1, 1.0, 2, images, "aligned")
            pooled = L.roi_pool(x, rois, 1, 1, 1.0, images, "pooled")
            assert pooled.name.startswith("pooled")
        with pytest.raises(TypeError, match="roi_align: got multiple values for argument "
                                            "'name'"):
            L.roi_align(x, rois, 1, 1, 1.0, 2, *([None, "a"] if version == "2.0" else ["a"]),
                        name="b")
    assert aligned.name == "aligned.tmp_0"
    got = fluid.Executor(fluid.CPUPlace()).run(main, feed=feed, fetch_list=[aligned, pooled])
    np.testing.assert_array_equal(got[0].reshape(-1), [8.5, 122.5])
    np.testing.assert_array_equal(got[1].reshape(-1), [11, 160])


def test_roi_pool_returns_out_and_argmax_in_dynamic_mode_under_paddle_20(paddle_version):
    x = np.arange(16, dtype="float32").reshape(1, 1, 4, 4)
    rois = np.array([[0.0, 0.0, 3.0, 3.0]], "float32")
    for version, pair in (("2.0", True), ("1.8", False)):
        with paddle_version(version), fluid.dygraph.guard():
            got = L.roi_pool(fluid.dygraph.to_variable(x), fluid.dygraph.to_variable(rois), 2,
                             2, rois_num=fluid.dygraph.to_variable(np.array([1], "int32")))
            out = got[0] if pair else got
            np.testing.assert_array_equal(out.numpy(), [[[[5, 7], [13, 15]]]])
            if pair:   # the flat index of each bin's maximum in its channel
                np.testing.assert_array_equal(got[1].numpy(), [[[[5, 7], [13, 15]]]])


def test_psroi_pool_reads_one_channel_per_bin():
    x = np.zeros((1, 4, 2, 2))
    for ch in range(4):                              # channel ch = bin (i, j) = divmod(ch, 2)
        x[0, ch] = ch + 10 * np.arange(4).reshape(2, 2)
    rois = np.array([[0.0, 0.0, 1.0, 1.0]])          # spans the 2 x 2 map, 1 cell per bin
    out = L.psroi_pool(_data("x", x), _data("r", rois), output_channels=1,
                       spatial_scale=1.0, pooled_height=2, pooled_width=2)
    o, = _run([out], {"x": x, "r": rois})
    np.testing.assert_allclose(o, [[[[0, 1 + 10], [2 + 20, 3 + 30]]]])


def test_prroi_pool_argument_types_as_paddle_1_8():
    x, rois = _data("x", np.zeros((1, 1, 4, 5))), _data("r", np.zeros((1, 4)))
    with pytest.raises(TypeError, match="prroi_pool: spatial_scale must be float, got 2"):
        L.prroi_pool(x, rois, 2, 7, 7)
    with pytest.raises(TypeError, match="prroi_pool: pooled_height must be int"):
        L.prroi_pool(x, rois, 0.25, 0.7, 7)
    with pytest.raises(TypeError, match="prroi_pool: pooled_width must be int"):
        L.prroi_pool(x, rois, 0.25, 7, 0.7)


def test_prroi_pool_is_the_bin_average_of_the_bilinear_surface():
    rng = np.random.RandomState(4)
    x = rng.uniform(-1, 1, (1, 1, 4, 5))
    rois = np.array([[0.6, -1.2, 11.0, 6.4]])        # spatial_scale 0.5: partly off the map
    out = L.prroi_pool(_data("x", x), _data("r", rois), 0.5, 2, 2)
    o, = _run([out], {"x": x, "r": rois})
    k = 60                                           # midpoint rule on a k x k grid per bin
    y1, x1, bh, bw = -0.6, 0.3, (3.2 + 0.6) / 2, (5.5 - 0.3) / 2
    for i in range(2):
        for j in range(2):
            ys = y1 + (i + (np.arange(k) + 0.5) / k) * bh
            xs = x1 + (j + (np.arange(k) + 0.5) / k) * bw
            hat_y = np.maximum(0, 1 - np.abs(ys[:, None] - np.arange(4)))   # [k, H]
            hat_x = np.maximum(0, 1 - np.abs(xs[:, None] - np.arange(5)))   # [k, W]
            surface = hat_y @ x[0, 0] @ hat_x.T                             # [k, k]
            np.testing.assert_allclose(o[0, 0, i, j], surface.mean(), atol=1e-4)


def test_deformable_roi_pooling_samples_shifted_points_and_differentiates_the_shift():
    x = (10 * np.arange(3)[:, None] + np.arange(3)).reshape(1, 1, 3, 3).astype("float64")
    rois = np.array([[0.0, 0.0, 1.0, 1.0]])     # on the map: [-0.5, 1.5]^2, side 2
    trans = np.array([[[[1.0]], [[0.0]]]])      # x shift 1 * trans_std 0.1 * side 2 = 0.2
    xv, tv = _data("x", x), _data("t", trans)
    tv.stop_gradient = False
    fixed = L.deformable_roi_pooling(xv, _data("r", rois), tv, no_trans=True, sample_per_part=2)
    moved = L.deformable_roi_pooling(xv, _data("r", rois), tv, sample_per_part=2)
    dtrans, = static.gradients([moved], [tv])
    f, m, g = _run([fixed, moved, dtrans], {"x": x, "r": rois, "t": trans})
    # points (h, w) in {-0.5, 0.5}^2, -0.5 clamped to 0; the map is 10 h + w
    np.testing.assert_allclose(f.ravel(), [(0 + 0.5 + 5 + 5.5) / 4])
    # shifted: w in {-0.3 (clamped to 0), 0.7}
    np.testing.assert_allclose(m.ravel(), [10 * 0.25 + 0.35])
    # only unclamped points move with the shift, by 0.2 per unit: x: two points with
    # slope 1 -> 2 * 0.2 / 4; y: the two at h = 0.5 with slope 10 -> 2 * 10 * 0.2 / 4
    np.testing.assert_allclose(g.ravel(), [0.1, 1.0])


@pytest.mark.paddle("3")      # refimpl's own checks: 1.8 / 2.0 check fluid.layers as Paddle


def test_roi_perspective_transform_of_an_upright_rectangle_is_a_crop():
    x = np.arange(24, dtype="float64").reshape(1, 2, 3, 4)
    rois = np.array([[0.0, 0.0, 3.0, 0.0, 3.0, 2.0, 0.0, 2.0]])   # the whole 3 x 4 map
    xv = _data("x", x)
    xv.stop_gradient = False
    out, mask, matrix = L.roi_perspective_transform(xv, _data("r", rois), 3, 4)
    dx, = static.gradients([fluid.layers.reduce_sum(out)], [xv])
    o, m, t, g = _run([out, mask, matrix, dx], {"x": x, "r": rois})
    # mean width 3 over mean height 2, 3 rows -> 4 columns: the identity homography
    np.testing.assert_allclose(t, [[1, 0, 0, 0, 1, 0, 0, 0, 1]], atol=1e-5)
    np.testing.assert_allclose(o, x, atol=1e-4)
    np.testing.assert_array_equal(m, np.ones((1, 1, 3, 4)))
    np.testing.assert_allclose(g, np.ones_like(x), atol=1e-4)   # each cell read once


def test_roi_perspective_transform_out2in_taps_are_the_bilinear_reads():
    """Out2InIdx / Out2InWeights (2.0's GPU-kernel outputs, [R * C * H' * W', 4]): the
    crop's taps are each cell, the one below, below right and right (clamped at the last
    row / column), weights 1, 0, 0, 0; for a tilted quadrilateral half outside the map
    the taps rebuild Out, -1 / 0 where Mask is 0."""
    op = get_op_def("roi_perspective_transform")
    x = np.arange(24, dtype="float64").reshape(1, 2, 3, 4)
    crop = np.array([[0.0, 0.0, 3.0, 0.0, 3.0, 2.0, 0.0, 2.0]])
    _, _, _, idx, w = op.forward(x, crop, np.array([1]), transformed_height=3,
                                 transformed_width=4)
    assert idx.dtype == np.int32 and idx.shape == (24, 4) and w.shape == (24, 4)
    c, h, col = np.meshgrid(range(2), range(3), range(4), indexing="ij")
    below, right = np.minimum(h + 1, 2), np.minimum(col + 1, 3)
    want = np.stack([h * 4 + col, below * 4 + col, below * 4 + right, h * 4 + right],
                    -1).reshape(24, 4) + 12 * c.reshape(24, 1)
    np.testing.assert_array_equal(idx, want)
    np.testing.assert_allclose(w, np.tile([1.0, 0, 0, 0], (24, 1)), atol=1e-4)

    rng = np.random.RandomState(3)
    x = rng.uniform(-1, 1, (2, 2, 5, 6))
    rois = np.array([[1.0, 1.0, 6.5, 2.0, 7.0, 6.0, 0.5, 5.0],
                     [-2.0, 0.5, 3.0, 0.0, 3.5, 4.0, -1.0, 4.5]])
    out, mask, _, idx, w = op.forward(x, rois, np.array([1, 1]), transformed_height=3,
                                      transformed_width=4)
    read = np.repeat(mask.reshape(2, 1, 12), 2, axis=1).reshape(-1).astype(bool)
    assert 0 < read.sum() < read.size
    np.testing.assert_array_equal(idx[~read], -1)
    np.testing.assert_array_equal(w[~read], 0.0)
    rebuilt = (x.reshape(-1)[np.maximum(idx, 0)] * w).sum(axis=1)
    np.testing.assert_allclose(rebuilt, out.reshape(-1), atol=1e-12)
    # RoI 0 reads image 0 (flat indices 0..59), RoI 1 image 1 (60..119)
    assert ((idx[:24][read[:24]] >= 0) & (idx[:24][read[:24]] < 60)).all()
    assert (idx[24:][read[24:]] >= 60).all() and read[24:].any()


def test_bipartite_match_and_target_assign_by_hand():
    dist = np.array([[0.9, 0.8, 0.0], [0.85, 0.1, 0.4]])
    d = _data("d", dist)
    idx, mdist = L.bipartite_match(d)
    idx2, mdist2 = L.bipartite_match(d, "per_prediction", 0.3)
    gt = np.array([[[1.0, 2.0]], [[3.0, 4.0]]])                  # [G=2, P=1, K=2]
    out, weight = L.target_assign(_data("gt", gt), idx, mismatch_value=-1)
    i, m, i2, m2, o, w = _run([idx, mdist, idx2, mdist2, out, weight], {"d": dist, "gt": gt})
    # 0.9 pairs row 0 with column 0, then row 1's best free column is 2 (0.4)
    np.testing.assert_array_equal(i, [[0, -1, 1]])
    np.testing.assert_allclose(m, [[0.9, 0.0, 0.4]])
    np.testing.assert_array_equal(i2, [[0, 0, 1]])               # column 1 tops up with 0.8
    np.testing.assert_allclose(o, [[[1, 2], [-1, -1], [3, 4]]])
    np.testing.assert_array_equal(w, [[[1], [0], [1]]])


def test_polygon_box_transform_by_hand():
    x = np.ones((1, 2, 2, 3))
    out, = _run([L.polygon_box_transform(_data("x", x))], {"x": x})
    np.testing.assert_allclose(out[0, 0], [[-1, 3, 7], [-1, 3, 7]])      # 4 * w - x
    np.testing.assert_allclose(out[0, 1], [[-1, -1, -1], [3, 3, 3]])     # 4 * h - x


def test_detection_output_is_decode_softmax_then_nms():
    rng = np.random.RandomState(2)
    prior = np.array([[0.1, 0.1, 0.4, 0.4], [0.5, 0.5, 0.9, 0.9], [0.12, 0.1, 0.42, 0.4]])
    var = np.tile([0.1, 0.1, 0.2, 0.2], (3, 1))
    loc = rng.uniform(-0.5, 0.5, (1, 3, 4))
    conf = rng.uniform(-2, 2, (1, 3, 3))
    out = L.detection_output(_data("loc", loc), _data("conf", conf), _data("p", prior),
                             _data("v", var), nms_threshold=0.45, score_threshold=0.05)
    (o, lod), = _with_lengths(_run([out], {"loc": loc, "conf": conf, "p": prior, "v": var},
                                   return_numpy=False))
    decoded = get_op_def("box_coder").forward(prior, var, loc,
                                              code_type="decode_center_size")
    e = np.exp(conf - conf.max(-1, keepdims=True))
    probs = (e / e.sum(-1, keepdims=True)).transpose(0, 2, 1)
    want, _ = get_op_def("multiclass_nms").forward(decoded, probs, score_threshold=0.05,
                                                   nms_top_k=400, keep_top_k=200,
                                                   nms_threshold=0.45)
    np.testing.assert_allclose(o, want, rtol=1e-12)
    assert lod == [[len(want)]]
    assert o.shape[1] == 6 and set(o[:, 0]) <= {1.0, 2.0}


def test_yolov3_loss_of_one_cell_by_hand():
    x = np.zeros((1, 6, 1, 1))                       # one anchor, one class, logits 0
    gt = np.array([[[0.5, 0.5, 0.5, 0.5]]])          # the anchor's own size (16 / 32)
    label = np.array([[0]], "int32")
    xv = static.data("x", [1, 6, 1, 1], "float64")
    xv.stop_gradient = False
    loss = L.yolov3_loss(xv, _data("g", gt), _data("l", label), anchors=[16, 16],
                         anchor_mask=[0], class_num=1, ignore_thresh=0.7,
                         downsample_ratio=32, use_label_smooth=False)
    dx, = static.gradients([fluid.layers.reduce_sum(loss)], [xv])
    lv, g = _run([loss, dx], {"x": x, "g": gt, "l": label})
    # tx, ty: SCE(0, 0.5) = log 2 each, weighted 2 - w*h = 1.75; tw, th: |0 - log 1| = 0;
    # class and objectness: SCE(0, 1) = log 2 each
    np.testing.assert_allclose(lv, [(1.75 * 2 + 2) * math.log(2)])
    # d/dtx = (sigmoid(0) - 0.5) * 1.75 = 0; L1 at its kink slopes -1 (Paddle's choice)
    np.testing.assert_allclose(g.ravel(), [0, 0, -1.75, -1.75, -0.5, -0.5])


@pytest.mark.paddle("3")      # refimpl's own checks: 1.8 / 2.0 check fluid.layers as Paddle


def test_generate_proposals_decodes_clips_and_suppresses():
    # 1 x 2 feature map, one anchor per cell; anchor 1 scores best, anchor 0 overlaps it
    anchors = np.array([[[[0.0, 0.0, 9.0, 9.0]], [[1.0, 0.0, 10.0, 9.0]]]])   # [H, W, A, 4]
    variances = np.ones_like(anchors)
    scores = np.array([[[[0.6, 0.9]]]])
    deltas = np.zeros((1, 4, 1, 2))
    deltas[0, 0, 0, 1] = 0.5                         # shift anchor 1 right by half its width
    info = np.array([[20.0, 12.0, 1.0]])              # height 20, width 12
    rois, probs, counts = L.generate_proposals(
        _data("s", scores), _data("d", deltas), _data("i", info), _data("a", anchors),
        _data("v", variances), pre_nms_top_n=10, post_nms_top_n=10, nms_thresh=0.5,
        min_size=1.0, return_rois_num=True)
    (r, r_lod), (p, p_lod), (n, _) = _with_lengths(_run(
        [rois, probs, counts], {"s": scores, "d": deltas, "i": info, "a": anchors,
                                "v": variances}, return_numpy=False))
    assert r_lod == p_lod == [[2]]
    # anchor 1 moves to [6, 0, 15, 9], clipped to x <= 11; IoU with anchor 0 is
    # 4 * 10 / (60 + 100 - 40) = 1/3 < 0.5, so both stay, best first
    np.testing.assert_allclose(r, [[6.0, 0.0, 11.0, 9.0], [0.0, 0.0, 9.0, 9.0]])
    np.testing.assert_allclose(p, [[0.9], [0.6]])
    np.testing.assert_array_equal(n, [2])


def test_distribute_then_collect_fpn_proposals_round_trip():
    rois = np.array([[0, 0, 9, 9], [0, 0, 199, 199], [0, 0, 49, 49], [0, 0, 499, 499]],
                    "float32")
    num = np.array([3, 1], "int32")
    multi, restore, counts = L.distribute_fpn_proposals(_data("r", rois), 2, 5, 4, 224,
                                                        rois_num=_data("n", num))
    # (an empty level is [0] under 1.8, switch empty_detection_rows: [0, 4] for its scores)
    scores = [fluid.layers.reduce_sum(fluid.layers.reshape(m, [-1, 4]), dim=1, keep_dim=True)
              for m in multi]
    collected, total = L.collect_fpn_proposals(multi, scores, 2, 5, post_nms_top_n=3,
                                               rois_num_per_level=counts)
    got = _run(multi + [restore] + counts + [collected, total], {"r": rois, "n": num})
    levels, rest = got[:4], got[4:]
    # sqrt(area) 10, 200, 50, 500 -> levels floor(log2(s / 224) + 4) = 2 (clamped), 3, 2, 5
    assert [len(x) for x in levels] == [2, 1, 0, 1]
    restore_v, counts_v, (c, t) = rest[0], rest[1:5], rest[5:]
    # (the empty level is fetched as dims [0] under 2.0: switch fetch_empty_flat)
    np.testing.assert_array_equal(np.concatenate([lv.reshape(-1, 4) for lv in levels])[
        restore_v.ravel()], rois)
    np.testing.assert_array_equal(np.array(counts_v), [[2, 0], [1, 0], [0, 0], [0, 1]])
    # the 3 largest boxes (by coordinate sum), image 0 first, best first within it
    np.testing.assert_array_equal(c, rois[[1, 2, 3]])
    np.testing.assert_array_equal(t, [2, 1])


@pytest.mark.parametrize("build, message", [
    (lambda: L.roi_align(static.data("x", [1, 3, 4], "float32"),
                         static.data("r", [2, 4], "float32")), "must be 4-D NCHW"),
    (lambda: L.box_coder(static.data("p", [3, 4], "float32"), None,
                         static.data("t", [2, 4], "float32"), code_type="center"),
     "code_type must be one of"),
    (lambda: L.prior_box(static.data("f", [1, 2, 2, 2], "float32"),
                         static.data("i", [1, 3, 8, 8], "float32"), [4.0], [3.0]),
     "must exceed its min size"),
    (lambda: L.yolo_box(static.data("x", [1, 10, 2, 2], "float32"),
                        static.data("s", [1, 2], "int32"), [10, 13], 2, 0.1, 32),
     "1 anchors x (5 + 2 classes) = 7 channels, got 10"),
    (lambda: L.multiclass_nms(static.data("b", [2, 5, 4], "float32"),
                              static.data("s", [2, 3, 6], "float32"), 0.1, -1, -1),
     "must be [N, M, 4] and [N, C, M]"),
    (lambda: L.psroi_pool(static.data("x", [1, 7, 4, 4], "float32"),
                          static.data("r", [2, 4], "float32"), 2, 1.0, 2, 2),
     "= 8 channels, got 7"),
])


def test_bad_shapes_fail_at_build_time_naming_the_input(build, message):
    with pytest.raises(OpError, match=message.replace("(", r"\(").replace(")", r"\)")
                       .replace("[", r"\[").replace("]", r"\]").replace("+", r"\+")):
        build()


def test_rois_num_must_cover_the_rois():
    x = np.zeros((2, 1, 3, 3))
    rois = np.array([[0.0, 0.0, 1.0, 1.0]] * 3)
    num = np.array([1, 1], "int32")
    out = L.roi_align(_data("x", x), _data("r", rois), rois_num=_data("n", num))
    with pytest.raises(Exception, match="RoisNum"):
        _run([out], {"x": x, "r": rois, "n": num})


# -- generate_mask_labels


def test_generate_mask_labels_rasterizes_the_matched_square():
    names = [("im_info", [1, 3], "float32"), ("gt_classes", [2, 1], "int32"),
             ("is_crowd", [2, 1], "int32"), ("gt_segms", [8, 2], "float32"),
             ("rois", [3, 4], "float32"), ("labels", [3, 1], "int32"),
             ("point_num", [2], "int32"), ("poly_num", [2], "int32")]
    v = {n: static.data(n, s, d) for n, s, d in names}
    mask_rois, has_mask, masks = L.generate_mask_labels(
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


def _generate_mask_labels_lod(segms, segms_lod, rois, rois_lod, labels, im_info,
                              classes, crowd, num_classes, resolution):
    """generate_mask_labels in Paddle 1.8's form (gt_segms with its 3-level LoD, rois
    and labels with their images'): the three outputs as (array, LoD) each."""
    prog, start = fluid.Program(), fluid.Program()
    with fluid.program_guard(prog, start):
        names = [("im_info", [None, 3], "float32", 0), ("classes", [None, 1], "int32", 1),
                 ("crowd", [None, 1], "int32", 1), ("segms", [None, 2], "float32", 3),
                 ("rois", [None, 4], "float32", 1), ("labels", [None, 1], "int32", 1)]
        v = [fluid.data(n, s, d, lod_level=lod) for n, s, d, lod in names]
        outs = fluid.layers.generate_mask_labels(*v, num_classes=num_classes,
                                                 resolution=resolution)
    place = fluid.CPUPlace()
    gt_lod = [segms_lod[0]]
    feed = {"im_info": np.array(im_info, "float32"),
            "classes": fluid.create_lod_tensor(np.array(classes, "int32").reshape(-1, 1),
                                               gt_lod, place),
            "crowd": fluid.create_lod_tensor(np.array(crowd, "int32").reshape(-1, 1),
                                             gt_lod, place),
            "segms": fluid.create_lod_tensor(np.array(segms, "float32"), segms_lod, place),
            "rois": fluid.create_lod_tensor(np.array(rois, "float32"), [rois_lod], place),
            "labels": fluid.create_lod_tensor(np.array(labels, "int32").reshape(-1, 1),
                                              [rois_lod], place)}
    exe = fluid.Executor(place)
    return _with_lengths(exe.run(prog, feed=feed, fetch_list=list(outs), return_numpy=False))


def test_generate_mask_labels_takes_the_lod_and_rasterizes_as_paddle_1_8_5():
    # measured on Paddle 1.8.5. Image 0 (scale 1.7): ground truth 0 is a concave pentagon
    # and a triangle, 1 crowd, 2 class 0 (both ignored); image 1 has no foreground RoI
    # and a negative label first.
    segms = [[3.2, 2.1], [14.6, 4.4], [9.3, 7.2], [13.8, 12.9], [2.7, 10.4],
             [12.5, 1.0], [19.0, 3.5], [15.2, 8.8],
             [20.0, 20.0], [30.0, 20.0], [25.0, 28.0],
             [0.0, 18.0], [9.0, 18.0], [4.0, 26.0],
             [1.3, 0.6], [7.9, 2.2], [5.1, 7.7]]
    rois = [[3.4, 1.7, 27.2, 20.4], [0, 0, 8.5, 8.5], [6.8, 6.8, 20.4, 18.7],
            [1, 1, 6, 6], [0, 0, 8, 8]]
    (mask_rois, rois_lod), (has_mask, has_lod), (masks, masks_lod) = \
        _generate_mask_labels_lod(segms, [[3, 1], [2, 1, 1, 1], [5, 3, 3, 3, 3]], rois,
                                  [3, 2], [2, 0, 1, -1, 0], [[60, 60, 1.7], [30, 30, 1.0]],
                                  [1, 2, 0, 3], [0, 1, 0, 0], num_classes=4, resolution=7)
    assert rois_lod == has_lod == masks_lod == [[2, 1]]
    # image 1 keeps its first RoI, but reports its first background RoI's index (1.8.5)
    np.testing.assert_array_equal(mask_rois, np.array([[3.4, 1.7, 27.2, 20.4],
                                                       [6.8, 6.8, 20.4, 18.7],
                                                       [1, 1, 6, 6]], "float32"))
    np.testing.assert_array_equal(has_mask, [[0], [2], [1]])
    pentagon_and_triangle = [[0, 0, 0, 0, 0, 1, 0], [0, 1, 1, 1, 0, 0, 1],
                             [0, 1, 1, 1, 1, 1, 1], [1, 1, 1, 1, 0, 0, 1],
                             [1, 1, 1, 1, 0, 0, 1], [1, 1, 1, 1, 1, 0, 0],
                             [0, 0, 1, 1, 1, 0, 0]]
    pentagon_corner = [[1] * 7, [1] * 7, [1] * 6 + [0], [1] * 5 + [0, 0],
                       [1] * 6 + [0], [1] * 6 + [0], [1] * 7]
    expected = np.full((3, 4, 7, 7), -1, np.int32)
    expected[0, 2] = pentagon_and_triangle
    expected[1, 1] = pentagon_corner
    np.testing.assert_array_equal(masks, expected.reshape(3, -1))


def test_generate_mask_labels_rois_come_back_through_the_scale_in_float32():
    # Paddle 1.8.5 divides the RoIs by the scale and multiplies them back, in float32
    rois = np.array([[14.985595, 28.576492, 31.848083, 30.769255]], "float32")
    (mask_rois, _), _, _ = _generate_mask_labels_lod(
        [[0, 0], [4, 0], [4, 4]], [[1], [1], [3]], rois, [1], [1], [[40, 40, 1.7]], [1],
        [0], num_classes=2, resolution=4)
    np.testing.assert_array_equal(
        mask_rois, np.array([[14.985596, 28.57649, 31.848085, 30.769257]], "float32"))


@pytest.mark.parametrize("points, size, expected", [
    # measured with Paddle 1.8.5's op, the polygon in a RoI (0, 0, size, size) of one
    # image at scale 1: the mask's cells are the polygon's units
    ([[0, 0], [4, 0], [4, 4]], 4, [[0, 1, 1, 1], [0, 0, 1, 1], [0, 0, 0, 1], [0, 0, 0, 0]]),
    ([[-1.5, -1], [6.5, -0.5], [7, 6.5], [-1, 4.5]], 7,
     [[1] * 7] * 5 + [[0, 0, 0, 1, 1, 1, 1], [0] * 7]),
    ([[0.5, 0.5], [6.5, 1.5], [1.5, 2.5], [6, 5.5], [0.5, 6]], 7,
     [[0] * 7, [0, 1, 1, 1, 1, 1, 0], [0, 1, 0, 0, 0, 0, 0], [0, 1, 1, 0, 0, 0, 0],
      [0, 1, 1, 1, 0, 0, 0], [0, 1, 1, 1, 1, 1, 0], [0] * 7]),
])


def test_generate_mask_labels_rasterizes_polygons_as_coco(points, size, expected):
    _, _, (masks, _) = _generate_mask_labels_lod(
        points, [[1], [1], [len(points)]], [[0, 0, size, size]], [1], [1], [[40, 40, 1]],
        [1], [0], num_classes=2, resolution=size)
    np.testing.assert_array_equal(masks.reshape(2, size, size)[1], expected)


def test_generate_mask_labels_without_lod_or_counts_names_gt_segms():
    v = {n: static.data(n, s, d) for n, s, d in (
        ("im_info", [1, 3], "float32"), ("classes", [1, 1], "int32"),
        ("crowd", [1, 1], "int32"), ("segms", [3, 2], "float32"),
        ("rois", [1, 4], "float32"), ("labels", [1, 1], "int32"))}
    out = L.generate_mask_labels(v["im_info"], v["classes"], v["crowd"], v["segms"],
                                 v["rois"], v["labels"], num_classes=2, resolution=4)
    feed = {"im_info": np.array([[9, 9, 1]], "float32"), "classes": np.ones((1, 1), "int32"),
            "crowd": np.zeros((1, 1), "int32"),
            "segms": np.array([[0, 0], [4, 0], [4, 4]], "float32"),
            "rois": np.array([[0, 0, 4, 4]], "float32"), "labels": np.ones((1, 1), "int32")}
    with pytest.raises(Exception, match="GtSegms carries no LoD"):
        _run(out, feed)
    feed["segms"] = (feed["segms"], [[3]])
    with pytest.raises(Exception, match="3-level LoD"):
        _run(out, feed)


def test_generate_mask_labels_refuses_foreground_without_a_ground_truth_mask():
    # Paddle 1.8.5 crashes (SIGSEGV) when every ground truth is crowd
    with pytest.raises(Exception, match="no ground truth with class > 0 that is not crowd"):
        _generate_mask_labels_lod([[0, 0], [4, 0], [4, 4]], [[1], [1], [3]],
                                  [[1, 1, 3, 3], [0, 0, 5, 5]], [2], [1, 0],
                                  [[40, 40, 1]], [1], [1], num_classes=2, resolution=4)


def test_per_class_boxes_take_their_images_from_the_lod():
    # two images of 2 and 1 rows, per-class boxes [M, C=2, 4]; class 0 is background
    boxes = np.array([[[0, 0, 1, 1]] * 2, [[0, 0, 1, 1.05]] * 2, [[5, 5, 6, 6]] * 2],
                     "float32")
    scores = np.array([[0.1, 0.9], [0.2, 0.8], [0.3, 0.7]], "float32")
    b = static.data("b", [3, 2, 4], "float32", lod_level=1)
    s = static.data("s", [3, 2], "float32", lod_level=1)
    out, index = L.multiclass_nms(b, s, 0.5, -1, -1, nms_threshold=0.5, return_index=True)
    (o, o_lod), (i, i_lod) = _with_lengths(_run(
        [out, index], {"b": (boxes, [[2, 1]]), "s": (scores, [[2, 1]])}, return_numpy=False))
    # image 0: row 1 (IoU 1 / 1.05 with row 0) is suppressed; image 1 keeps its one row
    np.testing.assert_allclose(o, [[1, 0.9, 0, 0, 1, 1], [1, 0.7, 5, 5, 6, 6]])
    np.testing.assert_array_equal(i, [[0 * 2 + 1], [2 * 2 + 1]])   # row * C + label
    assert o_lod == i_lod == [[1, 1]]


def test_fpn_proposals_follow_the_rois_lod():
    rois = np.array([[0, 0, 9, 9], [0, 0, 199, 199], [0, 0, 49, 49], [0, 0, 499, 499]],
                    "float32")
    r = static.data("r", [4, 4], "float32", lod_level=1)
    multi, restore = L.distribute_fpn_proposals(r, 2, 5, 4, 224)
    # (an empty level is [0] under 1.8, switch empty_detection_rows: [0, 4] for its scores)
    scores = [fluid.layers.reduce_sum(fluid.layers.reshape(m, [-1, 4]), dim=1, keep_dim=True)
              for m in multi]
    collected = L.collect_fpn_proposals(multi, scores, 2, 5, post_nms_top_n=3)
    got = _with_lengths(_run(multi + [collected], {"r": (rois, [[3, 1]])},
                             return_numpy=False))
    # levels 2, 3, 2, 5 (see the round trip above): per level, the rows of each image
    assert [lod for _, lod in got[:4]] == [[[2, 0]], [[1, 0]], [[0, 0]], [[0, 1]]]
    np.testing.assert_array_equal(got[4][0], rois[[1, 2, 3]])
    assert got[4][1] == [[2, 1]]


def test_iou_similarity_keeps_an_inverted_boxs_signed_area():
    from refimpl.ops.registry import get_op_def
    x = np.array([[0.5, 0.2, 0.3, 0.9], [0.1, 0.1, 0.6, 0.7]], "float32")   # x[0] inverted
    y = np.array([[0.2, 0.3, 0.8, 0.5], [0.7, 0.1, 0.2, 0.9]], "float32")   # y[1] inverted
    forward = get_op_def("iou_similarity").forward
    # recorded from Paddle 1.8.5 (fluid.layers.iou_similarity on CPU)
    np.testing.assert_allclose(forward(x, y, box_normalized=False),
                               [[0.4137931, 0.6028369], [0.63636386, 0.32000002]], rtol=1e-5)
    np.testing.assert_allclose(forward(x, y, box_normalized=True),
                               [[0.0, 0.0], [0.23529415, 0.0]], rtol=1e-5, atol=1e-7)


def test_bipartite_match_matches_each_lod_image_on_its_own():
    from refimpl.ops.registry import get_op_def
    forward = get_op_def("bipartite_match").forward
    dist = np.array([[0.9, 0.1, 0.3],                  # image 0: rows 0-1
                     [0.8, 0.7, 0.2],
                     [0.1, 0.2, 0.6]], "float32")      # image 1: row 2 (its row 0)
    match, match_dist = forward(dist, np.array([2, 1]))
    # image 0: 0.9 takes (0, 0), then 0.7 (1, 1); image 1: 0.6 takes (0, 2)
    np.testing.assert_array_equal(match, [[0, 1, -1], [-1, -1, 0]])
    np.testing.assert_allclose(match_dist, [[0.9, 0.7, 0], [0, 0, 0.6]])
    whole, _ = forward(dist)                           # no LoD: one image of three rows
    np.testing.assert_array_equal(whole, [[0, 1, 2]])


def test_yolo_box_clips_each_corner_on_its_own_side():
    """clip_bbox raises x1, y1 to 0 and lowers x2, y2 to the image's last pixel; a box past
    the right / bottom edge keeps its x1 / y1 (values recorded from Paddle 1.8.5)."""
    from refimpl.ops.registry import get_op_def
    x = np.zeros((1, 6, 2, 2), "float32")
    x[0, 0, :, 1] = x[0, 1, 1, :] = 20            # centres at the grid's far edges
    x[0, 0, :, 0] = x[0, 1, 0, :] = -20           # ... and at its near edges
    x[0, 2] = x[0, 3] = -20                       # tiny boxes
    boxes, _ = get_op_def("yolo_box").forward(x, np.array([[8, 12]], "int32"),
                                              anchors=[10, 10], class_num=1,
                                              conf_thresh=0.0, downsample_ratio=32)
    np.testing.assert_allclose(boxes[0], [[0, 0, 0, 0], [12, 0, 11, 0],
                                          [0, 8, 0, 7], [12, 8, 11, 7]], atol=1e-6)


def _run_generate_proposal_labels(cascade, agnostic, max_overlap=None):
    """Two images given by LoD, each with one ground truth; the cascade rois begin with it
    (1.8.5's form; with `max_overlap`, 2.0's, each roi's MaxOverlap, with the rois' LoD):
    the five outputs, then MaxOverlapWithGT."""
    gt = np.array([[0.0, 0.0, 9.0, 9.0], [20.0, 20.0, 29.0, 29.0]], "float32")
    rois = np.array([[0.0, 0.0, 18.0, 18.0], [0.0, 0.0, 19.0, 24.0], [4.0, 0.0, 23.0, 19.0],
                     [30.0, 30.0, 10.0, 10.0],                   # image 0; the last: w < 0
                     [40.0, 40.0, 58.0, 58.0], [40.0, 40.0, 59.0, 59.0],
                     [0.0, 0.0, 10.0, 10.0]], "float32")          # image 1
    classes, crowd = np.array([[2], [1]], "int32"), np.array([[0], [0]], "int32")
    info = np.array([[40.0, 40.0, 2.0], [80.0, 80.0, 2.0]], "float32")
    prog, start = fluid.Program(), fluid.Program()
    with fluid.program_guard(prog, start):
        r = fluid.data("r", [None, 4], "float32", lod_level=1)
        c = fluid.data("c", [None, 1], "int32", lod_level=1)
        k = fluid.data("k", [None, 1], "int32", lod_level=1)
        g = fluid.data("g", [None, 4], "float32", lod_level=1)
        i = fluid.data("i", [None, 3], "float32")
        m = None if max_overlap is None else fluid.data("m", [None], "float32", lod_level=1)
        outs = L.generate_proposal_labels(r, c, k, g, i, batch_size_per_im=4, fg_fraction=0.5,
                                          fg_thresh=0.5, bg_thresh_hi=0.5,
                                          class_nums=2 if agnostic else 3, use_random=False,
                                          is_cls_agnostic=agnostic, is_cascade_rcnn=cascade,
                                          max_overlap=m, return_max_overlap=True)
    place = fluid.CPUPlace()
    feed = {"r": fluid.create_lod_tensor(rois, [[4, 3]], place),
            "c": fluid.create_lod_tensor(classes, [[1, 1]], place),
            "k": fluid.create_lod_tensor(crowd, [[1, 1]], place),
            "g": fluid.create_lod_tensor(gt, [[1, 1]], place), "i": info}
    if max_overlap is not None:
        feed["m"] = fluid.create_lod_tensor(np.array(max_overlap, "float32"), [[4, 3]], place)
    return _with_lengths(fluid.Executor(place).run(prog, feed=feed, fetch_list=list(outs),
                                                   return_numpy=False))


# Paddle 1.8.5's results for _run_generate_proposal_labels (fg_thresh 0.5, scale 2)
_TARGET_0 = [-0.2380952388048172, -1.1538461446762085, -0.24395079910755157,
             -1.3118212223052979]
_TARGET_1 = [-2.142857074737549, -0.2380952388048172, -0.24395079910755157,
             -0.24395079910755157]
_TARGET_4 = [-0.2380952388048172, -0.2380952388048172, -0.24395079910755157,
             -0.24395079910755157]


@pytest.mark.paddle("1.8")       # 1.8.5's cascade form: no MaxOverlap
@pytest.mark.parametrize("agnostic", [False, True])
def test_generate_proposal_labels_cascade_matches_paddle_1_8(agnostic):
    (rois, lod), (labels, _), (targets, tlod), (inside, _), (outside, _), _ = \
        _run_generate_proposal_labels(True, agnostic)
    # the rois' first row per image is the ground truth, undivided by the scale: roi
    # [0, 0, 18, 18] has IoU 100/361 with gt [0, 0, 9, 9] (background, scaled back to 36);
    # the w < 0 roi is dropped; nothing is sampled
    np.testing.assert_array_equal(rois, [[0, 0, 19, 24], [4, 0, 23, 19], [0, 0, 36, 36],
                                         [40, 40, 59, 59], [80, 80, 116, 116], [0, 0, 10, 10]])
    assert lod == tlod == [[3, 3]]
    np.testing.assert_array_equal(labels.ravel(), [2, 2, 0, 1, 0, 0])
    want = np.zeros((6, 8 if agnostic else 12))
    for row, label, target in ((0, 2, _TARGET_0), (1, 2, _TARGET_1), (3, 1, _TARGET_4)):
        column = 4 * (1 if agnostic else label)
        want[row, column:column + 4] = target
    np.testing.assert_allclose(targets, want, rtol=1e-6)
    np.testing.assert_array_equal(inside, want != 0)
    np.testing.assert_array_equal(outside, inside)


@pytest.mark.parametrize("agnostic", [False, True])
def test_generate_proposal_labels_cascade_filters_by_max_overlap(agnostic):
    """Paddle 2.0's cascade form, by hand: every roi divided by the scale 2; image 0 keeps
    rois 1 and 2 (roi 0's MaxOverlap is 1, roi 3 has w < 0), image 1 roi 5 (roi 4's is 1,
    roi 6's is above 1); the ground truth comes first. Image 0: the gt (IoU 1, fg), roi 1
    [0, 0, 9.5, 12] (IoU 100/136.5: fg), roi 2 [2, 0, 11.5, 9.5] (IoU 80/130.25: fg); image 1:
    the gt (fg) and roi 5 [20, 20, 29.5, 29.5] (IoU 100/110.25: fg). MaxOverlapWithGT: each
    kept box's IoU with its ground truth."""
    (rois, lod), (labels, _), (targets, tlod), (inside, _), (outside, _), (best, blod) = \
        _run_generate_proposal_labels(True, agnostic, [1.0, 0.5, 0.2, 0.0, 1.0, 0.7, 1.5])
    np.testing.assert_array_equal(rois, [[0, 0, 18, 18], [0, 0, 19, 24], [4, 0, 23, 19],
                                         [40, 40, 58, 58], [40, 40, 59, 59]])
    assert lod == tlod == blod == [[3, 2]]
    np.testing.assert_array_equal(labels.ravel(), [2, 2, 2, 1, 1])
    np.testing.assert_allclose(best, [1, 100 / 136.5, 80 / 130.25, 1, 100 / 110.25], rtol=1e-6)
    want = np.zeros((5, 8 if agnostic else 12))
    for row, label, target in ((1, 2, _TARGET_0), (2, 2, _TARGET_1), (4, 1, _TARGET_4)):
        column = 4 * (1 if agnostic else label)
        want[row, column:column + 4] = target
    np.testing.assert_allclose(targets, want, rtol=1e-6, atol=1e-7)
    np.testing.assert_array_equal(inside[[0, 3]].sum(axis=1), [4, 4])   # the gts: zero deltas
    np.testing.assert_array_equal(outside, inside)


@pytest.mark.paddle("2.0")     # 1.8.5's cascade form needs no MaxOverlap (switch)
def test_generate_proposal_labels_cascade_wants_max_overlap_under_paddle_2_0():
    with pytest.raises(ValueError, match="max_overlap is required when is_cascade_rcnn"):
        _run_generate_proposal_labels(True, False)


def test_generate_proposal_labels_by_lod_matches_paddle_1_8():
    (rois, lod), (labels, _), (targets, _), (inside, _), _, _ = \
        _run_generate_proposal_labels(False, False)
    # the ground truth and its copy roi 0 take the 2 foreground slots of image 0
    np.testing.assert_array_equal(rois, [[0, 0, 18, 18], [0, 0, 18, 18], [30, 30, 10, 10],
                                         [40, 40, 58, 58], [40, 40, 58, 58], [0, 0, 10, 10]])
    assert lod == [[3, 3]]
    np.testing.assert_array_equal(labels.ravel(), [2, 2, 0, 1, 1, 0])
    np.testing.assert_array_equal(targets, 0)
    np.testing.assert_array_equal(inside.nonzero()[0], [0] * 4 + [1] * 4 + [3] * 4 + [4] * 4)


def test_generate_proposal_labels_foreground_includes_the_threshold():
    gt = np.array([[0.0, 0.0, 9.0, 9.0]])
    roi = np.array([[0.0, 0.0, 9.0, 19.0]])            # IoU exactly 100 / 200
    out = get_op_def("generate_proposal_labels").forward(
        roi, np.array([[1]], "int32"), np.array([[0]], "int32"), gt,
        np.array([[40.0, 40.0, 1.0]]), batch_size_per_im=4, fg_fraction=1.0, fg_thresh=0.5,
        class_nums=2, use_random=False)
    np.testing.assert_array_equal(out[1].ravel(), [1, 1])


def test_retinanet_target_assign_keeps_a_demoted_anchor_in_location_index():
    gts = np.array([[0.0, 0.0, 9.0, 9.0], [100.0, 100.0, 109.0, 109.0]])
    anchors = np.array([[0.0, 0.0, 29.0, 29.0],          # gt 0's best (IoU 1/9), yet < 0.4
                        [50.0, 50.0, 60.0, 60.0],        # background
                        [100.0, 100.0, 109.0, 109.0]])   # gt 1 itself
    loc, score, bbox, label, weight, fg_number = get_op_def("retinanet_target_assign").forward(
        anchors, gts, np.array([[3], [5]], "int32"), np.array([0, 0], "int32"),
        np.array([[200.0, 200.0, 1.0]]))
    # anchor 0 passed the foreground test and is background: LocationIndex keeps the first
    # foreground candidate (itself) in its place with weight 0, as Paddle 1.8.5's test
    np.testing.assert_array_equal(loc, [0, 2])
    np.testing.assert_array_equal(weight, [[0] * 4, [1] * 4])
    np.testing.assert_array_equal(score, [2, 0, 1])
    np.testing.assert_array_equal(label.ravel(), [5, 0, 0])
    np.testing.assert_allclose(bbox[1], 0, atol=1e-12)
    np.testing.assert_array_equal(fg_number, [[3]])


def test_generate_proposals_v2_reads_height_and_width():
    """Paddle 2.0's generate_proposals_v2: ImShape (height, width), no scale. Zero deltas
    decode to the anchors themselves, clipped to the image; min_size 5 drops the 4-pixel
    box (it would pass generate_proposals with an image scale of 0.5)."""
    anchors = np.array([[2., 2., 9., 9.], [0., 0., 30., 30.],
                        [4., 4., 7., 7.]]).reshape(1, 1, 3, 4)
    scores = np.array([0.9, 0.6, 0.8]).reshape(1, 3, 1, 1)
    deltas = np.zeros((1, 12, 1, 1))
    attrs = dict(pre_nms_topN=-1, post_nms_topN=-1, nms_thresh=0.0, min_size=5.0, eta=1.0)
    rois, probs, num = get_op_def("generate_proposals_v2").forward(
        scores, deltas, np.array([[16., 20.]]), anchors, np.ones_like(anchors), **attrs)
    np.testing.assert_array_equal(rois, [[2, 2, 9, 9], [0, 0, 19, 15]])
    np.testing.assert_array_equal(probs.ravel(), [0.9, 0.6])
    np.testing.assert_array_equal(num, [2])
    v1 = get_op_def("generate_proposals").forward(
        scores, deltas, np.array([[16., 20., 0.5]]), anchors, np.ones_like(anchors), **attrs)
    assert v1[2].tolist() == [3]


def test_vision_ops_yolo_loss_in_dynamic_mode(dygraph):
    """paddle.vision.ops.yolo_loss (2.0) is yolov3_loss: the one-cell case above, eagerly."""
    loss = paddle.vision.ops.yolo_loss(
        paddle.to_tensor(np.zeros((1, 6, 1, 1))), paddle.to_tensor([[[0.5, 0.5, 0.5, 0.5]]]),
        paddle.to_tensor(np.array([[0]], "int32")), anchors=[16, 16], anchor_mask=[0],
        class_num=1, ignore_thresh=0.7, downsample_ratio=32, use_label_smooth=False)
    np.testing.assert_allclose(loss.numpy(), [(1.75 * 2 + 2) * math.log(2)])


@pytest.mark.parametrize("layer", ["roi_pool", "roi_align"])


def test_roi_layers_take_paddle_18s_rois_lod(layer):
    # Paddle 1.8.5's roi_pool docstring: the RoIs' images given by rois_lod offsets; the
    # same as 2.0's rois_num counts
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = fluid.data(name="input", shape=[None, 1, 4, 4], dtype="float32")
        rois = fluid.data(name="roi", shape=[None, 4], dtype="float32")
        rois_lod = fluid.data(name="rois_lod", shape=[None], dtype="int64")
        rois_num = fluid.data(name="rois_num", shape=[None], dtype="int32")
        pool = getattr(fluid.layers, layer)
        by_lod = pool(input=x, rois=rois, spatial_scale=1.0, rois_lod=rois_lod)
        by_num = pool(input=x, rois=rois, spatial_scale=1.0, rois_num=rois_num)
    image = np.arange(1, 17, dtype=np.float32).reshape(1, 1, 4, 4)
    got = fluid.Executor(fluid.CPUPlace()).run(main, feed={
        "input": np.concatenate([image, image * 10]),
        "roi": np.array([[1, 1, 2, 2], [1.5, 1.5, 3, 3]], np.float32),
        "rois_lod": np.array([0, 1, 2]), "rois_num": np.array([1, 1], np.int32)},
        fetch_list=[by_lod, by_num])
    np.testing.assert_array_equal(got[0], got[1])
    if layer == "roi_pool":     # 1.8.5: 11 and 16 on one image; the second RoI on image 1
        np.testing.assert_array_equal(got[0].reshape(-1), [11, 160])
