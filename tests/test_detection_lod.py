"""Detection ops give their per-image rows also as the outputs' LoD (Paddle 1.8's form,
beside the RoisNum-style count outputs of 2.x); an empty result follows the version
profile's empty_detection_rows (specs/versions.md)."""
import numpy as np
import pytest

from refimpl import fluid, static
from refimpl.framework.errors import OpError


def _nms(op_type, count_slot, boxes, scores, attrs):
    """(Out, Index, the per-image counts) of one NMS op over float32 boxes and scores, as
    LoDTensors."""
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        b = fluid.data("b", list(boxes.shape), "float32")
        s = fluid.data("s", list(scores.shape), "float32")
        block = main.global_block()
        outs = [block.create_var(name=slot.lower(), dtype=dtype) for slot, dtype in
                (("Out", "float32"), ("Index", "int32"), (count_slot, "int32"))]
        block.append_op(type=op_type, inputs={"BBoxes": b, "Scores": s},
                        outputs=dict(zip(("Out", "Index", count_slot), outs)), attrs=attrs)
    return static.Executor().run(main, feed={"b": boxes, "s": scores}, fetch_list=outs,
                                 return_numpy=False)


def _matrix_nms(boxes, scores, **attrs):
    return _nms("matrix_nms", "RoisNum", boxes, scores,
                dict({"background_label": -1, "post_threshold": 0.0}, **attrs))


def _two_images():
    # image 0: two far-apart boxes, image 1: one box with a score under the threshold
    boxes = np.array([[[0, 0, 1, 1], [5, 5, 6, 6]], [[0, 0, 1, 1], [2, 2, 3, 3]]], "float32")
    scores = np.array([[[0.9, 0.8]], [[0.7, 0.01]]], "float32")          # [N, C=1, M]
    return boxes, scores


def test_matrix_nms_rows_per_image_are_the_outputs_lod():
    out, index, rois_num = _matrix_nms(*_two_images(), score_threshold=0.1)
    np.testing.assert_array_equal(np.array(rois_num), [2, 1])
    assert out.recursive_sequence_lengths() == [[2, 1]]
    assert index.recursive_sequence_lengths() == [[2, 1]]
    # rows: [label, score, box]; far-apart boxes keep their scores (no decay)
    np.testing.assert_allclose(np.array(out)[:, :2], [[0, 0.9], [0, 0.8], [0, 0.7]],
                               rtol=1e-6)
    np.testing.assert_array_equal(np.array(index).reshape(-1), [0, 1, 2])


def test_matrix_nms_empty_result_follows_the_profile(paddle_version):
    boxes, scores = _two_images()
    for version, shape in (("1.8", (0,)), ("3", (0, 6))):
        with paddle_version(version):
            out, _, rois_num = _matrix_nms(boxes, scores, score_threshold=0.95)
        assert np.array(out).shape == shape
        assert out.recursive_sequence_lengths() == [[0, 0]]
        np.testing.assert_array_equal(np.array(rois_num), [0, 0])


def _multiclass_nms3(boxes, scores, **attrs):
    return _nms("multiclass_nms3", "NmsRoisNum", boxes, scores,
                dict({"background_label": -1, "nms_top_k": -1, "keep_top_k": -1}, **attrs))


def test_multiclass_nms3_outputs_carry_the_images_lod_under_paddle_20_only(paddle_version):
    """2.0's multiclass_nms3 runs multiclass_nms2's kernel (Out and Index with the LoD);
    3.3.1's carry none (switch multiclass_nms3_lod). NmsRoisNum counts either way."""
    for version, lod, empty_shape in (("2.0", [[2, 1]], (0,)), ("3", [], (0, 6))):
        with paddle_version(version):
            out, index, counts = _multiclass_nms3(*_two_images(), score_threshold=0.1)
            assert out.recursive_sequence_lengths() == lod
            assert index.recursive_sequence_lengths() == lod
            np.testing.assert_array_equal(np.array(counts), [2, 1])
            np.testing.assert_allclose(np.array(out)[:, :2], [[0, 0.9], [0, 0.8], [0, 0.7]],
                                       rtol=1e-6)
            empty, _, _ = _multiclass_nms3(*_two_images(), score_threshold=0.95)
            assert np.array(empty).shape == empty_shape


def test_generate_proposals_counts_are_its_lod_and_1_8s_rpn_rois_lod_their_offsets():
    from refimpl.ops.registry import get_op_def
    sample = next(iter(get_op_def("generate_proposals").samples(np.random.RandomState(0))))
    with fluid.dygraph.guard():
        block = fluid.default_main_program().global_block()
        outs = {slot: block.create_var(name=slot.lower(), dtype="float32") for slot in
                ("RpnRois", "RpnRoiProbs", "RpnRoisNum", "RpnRoisLod")}
        block.append_op(type="generate_proposals",
                        inputs={k: fluid.dygraph.to_variable(v)
                                for k, v in sample.inputs.items()},
                        outputs=outs, attrs=sample.attrs)
        counts = outs["RpnRoisNum"].numpy()
        assert len(counts) == 2 and counts.sum() == len(outs["RpnRois"].numpy())
        # Paddle 1.8.5's RpnRoisLod: each image's end offset, int64 ([5, 10] for 5 and 5)
        np.testing.assert_array_equal(outs["RpnRoisLod"].numpy(), np.cumsum(counts))
        assert outs["RpnRoisLod"].numpy().dtype == np.int64
        for slot in ("RpnRois", "RpnRoiProbs"):
            lod = outs[slot].value().get_tensor().recursive_sequence_lengths()
            assert lod == [counts.tolist()]



def test_mined_negatives_are_a_lod_tensor_that_target_assign_weights():
    # Paddle 1.8's hard_example mining (ClsLoss + LocLoss, top sample_size=2 per image):
    # image 0 ranks [.7, .3, .6] -> keeps priors 0 (matched) and 2 (a negative); image 1
    # ranks [.6, .2, .3] -> keeps 0 and 2, both negatives, and drops its match at prior 1.
    cls_loss = np.array([[0.5, 0.1, 0.3], [0.3, 0.1, 0.1]])
    loc_loss = np.array([[0.2, 0.2, 0.3], [0.3, 0.1, 0.2]])
    match = np.array([[0, -1, -1], [-1, 0, -1]], "int32")
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        block = main.global_block()
        ins = {slot: fluid.data(slot.lower(), [2, 3], str(value.dtype)) for slot, value in
               (("ClsLoss", cls_loss), ("LocLoss", loc_loss), ("MatchIndices", match),
                ("MatchDist", cls_loss))}
        neg = block.create_var(name="neg", dtype="int32")
        updated = block.create_var(name="updated", dtype="int32")
        block.append_op(type="mine_hard_examples", inputs=ins,
                        outputs={"NegIndices": neg, "UpdatedMatchIndices": updated},
                        attrs={"mining_type": "hard_example", "sample_size": 2})
        gt = fluid.data("gt", [-1, 1, 1], "float32", lod_level=1)
        out, weight = fluid.layers.target_assign(gt, updated, negative_indices=neg,
                                                 mismatch_value=-1)
    feed = {slot.lower(): v for slot, v in (("ClsLoss", cls_loss), ("LocLoss", loc_loss),
                                            ("MatchIndices", match), ("MatchDist", cls_loss))}
    feed["gt"] = fluid.create_lod_tensor(np.array([[[7.]], [[8.]]], "float32"), [[1, 1]],
                                         fluid.CPUPlace())
    got_neg, got_updated, got_out, got_weight = static.Executor().run(
        main, feed=feed, fetch_list=[neg, updated, out, weight], return_numpy=False)
    assert got_neg.recursive_sequence_lengths() == [[1, 2]]
    np.testing.assert_array_equal(np.array(got_neg), [[2], [0], [2]])
    np.testing.assert_array_equal(np.array(got_updated), [[0, -1, -1], [-1, -1, -1]])
    np.testing.assert_array_equal(np.array(got_out)[..., 0], [[7, -1, -1], [-1, -1, -1]])
    np.testing.assert_array_equal(np.array(got_weight)[..., 0], [[1, 0, 1], [1, 0, 1]])


def test_matrix_nms_checks_its_shapes_at_run_time():
    # Paddle (1.8.5 through 3) builds a matrix_nms with mismatched BBoxes / Scores and fails
    # only when it runs
    boxes, scores = _two_images()
    with pytest.raises(OpError, match=r"matrix_nms.*BBoxes \[2, 2, 4\] and Scores "
                                      r"\[2, 1, 3\] must be \[N, M, 4\] and \[N, C, M\]"):
        _matrix_nms(boxes, np.concatenate([scores, scores[..., :1]], axis=2))
