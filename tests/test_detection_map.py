"""detection_map (op, fluid.layers.detection.detection_map) and fluid.metrics.DetectionMAP
against values recorded on Paddle 1.8.5: random detections with ties, difficult boxes, both
AP types, accumulated state, background_label; the metric across batches and a reset."""
import numpy as np
import pytest

from refimpl import fluid
from refimpl.ops.registry import get_op_def

pytestmark = pytest.mark.paddle("1.8")


def _random_case(rng, case):
    """Case `case` of the recorded series (the generator the 1.8.5 run used)."""
    def boxes(n):
        xy = rng.uniform(0, 0.7, (n, 2))
        wh = rng.uniform(0.05, 0.4, (n, 2))
        return np.round(np.hstack([xy, xy + wh]), 2)
    imgs = rng.randint(1, 4)
    glen, dlen = rng.randint(1, 5, imgs), rng.randint(0, 6, imgs)
    dlen[0] = max(dlen[0], 1)
    g, d = glen.sum(), dlen.sum()
    gl, diff = rng.randint(0, 4, (g, 1)), rng.randint(0, 2, (g, 1)) * (case % 2)
    gtb = boxes(g)
    label = np.hstack([gl, diff, gtb] if case % 3 else [gl, gtb]).astype(np.float32)
    src = rng.randint(0, g, d)
    db = np.where(rng.rand(d, 1) < 0.6, gtb[src] + rng.uniform(-0.05, 0.05, (d, 4)), boxes(d))
    dl = np.where(rng.rand(d) < 0.7, gl[src, 0], rng.randint(0, 4, d))
    sc = np.round(rng.choice([0.9, 0.5, 0.3, rng.rand()], d), 2)
    det = np.hstack([dl[:, None], sc[:, None], db]).astype(np.float32)
    attrs = {"class_num": 4, "overlap_threshold": float(rng.choice([0.3, 0.5])),
             "evaluate_difficult": bool(case % 4 < 2),
             "ap_type": ["integral", "11point"][case % 2], "background_label": int(case == 5)}
    return det, dlen, label, glen, attrs


# Paddle 1.8.5: (MAP, AccumPosCount, AccumTruePos' LoD) of the 8 cases; cases 6 and 7 add
# the state below
RECORDED_185 = [(0.0, [0, 4, 1, 2], [0, 1, 0, 0]), (0.5, [1, 0, 2, 0], [1, 0, 3, 1]),
                (0.0, [1, 1, 1, 1], [0, 0, 1, 1]), (3 / 11, [3, 0, 4, 1], [2, 2, 4, 3]),
                (0.25, [0, 1, 2, 0], [0, 3, 4, 1]), (0.0, [1, 1, 2, 1], [1, 2, 0, 0]),
                (0.133333, [1, 3, 2, 5], [1, 2, 2, 2]), (7 / 44, [1, 2, 1, 3], [1, 3, 2, 2])]
# AccumTruePos of cases 1 and 4: a class's pairs keep input order in an image without
# that class's ground truth, highest score first in the others
TRUE_POS_185 = {1: [0.5, 1, 0.5, 0, 0.5, 0, 0.9, 0, 0.9, 0],
                4: [0.3, 0, 0.5, 0, 0.5, 1, 0.9, 0, 0.5, 0, 0.5, 0, 0.9, 0, 0.5, 0]}
STATE = {"HasState": np.array([1], np.int32),
         "PosCount": np.array([[0], [2], [1], [3]], np.int32),
         "TruePos": np.array([[0.6, 1], [0.5, 0], [0.95, 1]], np.float32),
         "FalsePos": np.array([[0.6, 0], [0.5, 1], [0.95, 0]], np.float32),
         "TruePosLength": np.array([0, 2, 0, 1]), "FalsePosLength": np.array([0, 2, 0, 1])}


def test_detection_map_matches_paddle_1_8_on_recorded_cases():
    rng, op = np.random.RandomState(3), get_op_def("detection_map")
    for case, (want_map, counts, lod) in enumerate(RECORDED_185):
        det, dlen, label, glen, attrs = _random_case(rng, case)
        state = STATE if case >= 6 else {}
        pos_count, tp, fp, mean_ap, tp_len, fp_len = op.forward(
            det, label, state.get("HasState"), state.get("PosCount"), state.get("TruePos"),
            state.get("FalsePos"), dlen, glen, state.get("TruePosLength"),
            state.get("FalsePosLength"), **attrs)
        assert mean_ap[0] == pytest.approx(want_map, abs=1e-6), case
        np.testing.assert_array_equal(pos_count.ravel(), counts)
        np.testing.assert_array_equal(tp_len, lod)
        np.testing.assert_array_equal(fp_len, lod)
        np.testing.assert_array_equal(tp[:, 1] + fp[:, 1], 1)      # each pair one way
        if case in TRUE_POS_185:
            np.testing.assert_allclose(tp.ravel(), TRUE_POS_185[case], rtol=1e-6)


def test_detection_map_by_hand_integral_and_eleven_point():
    """One image, class 1: two ground truths, detections 0.9 (hit), 0.8 (miss), 0.7 (hit)."""
    label = np.array([[1, 0, 0.0, 0.0, 0.2, 0.2], [1, 0, 0.5, 0.5, 0.7, 0.7]], np.float32)
    det = np.array([[1, 0.9, 0.0, 0.0, 0.2, 0.2], [1, 0.8, 0.8, 0.8, 0.9, 0.9],
                    [1, 0.7, 0.5, 0.5, 0.7, 0.72]], np.float32)
    op = get_op_def("detection_map")
    out = op.forward(det, label, class_num=2, overlap_threshold=0.5)
    # precision 1, 1/2, 2/3 at recall 1/2, 1/2, 1: 1 * 1/2 + 2/3 * 1/2
    assert out[3][0] == pytest.approx(0.5 + 1 / 3)
    out = op.forward(det, label, class_num=2, overlap_threshold=0.5, ap_type="11point")
    assert out[3][0] == pytest.approx((6 * 1 + 5 * 2 / 3) / 11)


def _metric_feed(place, det, det_lod, label, label_lod):
    t = lambda a, lod: fluid.create_lod_tensor(a, [lod], place)
    return {"det": t(det, det_lod), "gl": t(label[:, :1].astype(np.int32), label_lod),
            "gd": t(label[:, 1:2].astype(np.int32), label_lod), "gb": t(label[:, 2:], label_lod)}


def test_detection_map_metric_accumulates_and_resets_as_paddle_1_8():
    place = fluid.CPUPlace()
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        det = fluid.data("det", [None, 6], "float32", lod_level=1)
        gl = fluid.data("gl", [None, 1], "int32", lod_level=1)
        gb = fluid.data("gb", [None, 4], "float32", lod_level=1)
        gd = fluid.data("gd", [None, 1], "int32", lod_level=1)
        metric = fluid.metrics.DetectionMAP(det, gl, gb, gd, class_num=4,
                                            overlap_threshold=0.3, evaluate_difficult=False)
        cur, acc = metric.get_map_var()
    exe = fluid.Executor(place)
    exe.run(startup)
    label = np.array([[1, 0, 0.1, 0.1, 0.3, 0.3], [1, 1, 0.6, 0.6, 0.8, 0.8],
                      [2, 0, 0.3, 0.3, 0.6, 0.5], [1, 0, 0.7, 0.1, 0.9, 0.3]], np.float32)
    dets = np.array([[1, 0.3, 0.1, 0.0, 0.4, 0.3], [1, 0.7, 0.0, 0.1, 0.2, 0.3],
                     [1, 0.9, 0.7, 0.6, 0.8, 0.8], [2, 0.8, 0.2, 0.1, 0.4, 0.4],
                     [2, 0.1, 0.4, 0.3, 0.7, 0.5], [1, 0.2, 0.8, 0.1, 1.0, 0.3],
                     [3, 0.2, 0.8, 0.1, 1.0, 0.3]], np.float32)
    batches = [(dets, [3, 4], label, [2, 2]), (dets[3:], [2, 2], label[2:], [1, 1]),
               (dets[:3], [3], label[:2], [2])]
    # Paddle 1.8.5: (this batch's mAP, the accumulated one); reset before the third batch
    recorded = [(2 / 3, 2 / 3), (0.75, 0.611111), (1.0, 1.0)]
    for step, (batch, (want_cur, want_acc)) in enumerate(zip(batches, recorded)):
        if step == 2:
            metric.reset(exe)
        got_cur, got_acc = exe.run(main, feed=_metric_feed(place, *batch),
                                   fetch_list=[cur, acc])
        assert np.ravel(got_cur)[0] == pytest.approx(want_cur, abs=1e-6)
        assert np.ravel(got_acc)[0] == pytest.approx(want_acc, abs=1e-6)
