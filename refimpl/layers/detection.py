"""Detection layers (fluid.layers, Paddle 1.8): box coding, prior / anchor generation,
YOLO decoding, NMS, RoI pooling, matching.

Where Paddle 1.8 carries image membership in a LoD (RoIs, NMS results), refimpl uses
Paddle 2.x's per-image count tensors instead: an optional `rois_num` int32 [N] input, and
NMS layers that can also return the per-image row counts (`return_rois_num=True`);
generate_mask_labels takes both gt_segms' 3-level LoD and count vectors.
See specs/ops/detection.md."""
from .. import versions
from ..framework import mode
from ..framework.layer_helper import LayerHelper
from ..framework.program import Variable
from .activation import softmax
from .common import append_op_outputs, check_variable
from .tensor import gather, reshape, transpose


def _append(op_type, inputs, attrs, outputs, name=None, dtype=None, differentiable=False):
    """Append `op_type` (inputs that are None are left out); `outputs` lists (slot, dtype
    or None = `dtype`, default the first input's); return the output variables in that
    order (one variable when there is one). Only a differentiable op's outputs of the
    default dtype carry gradients."""
    helper = LayerHelper(op_type, name=name)
    inputs = {slot: [v] for slot, v in inputs.items() if v is not None}
    if dtype is None:
        dtype = next(iter(inputs.values()))[0].dtype
    made = [(slot, helper.create_variable_for_type_inference(
        out_dtype or dtype, stop_gradient=not differentiable or out_dtype is not None))
        for slot, out_dtype in outputs]
    helper.append_op(type=op_type, inputs=inputs, outputs={s: [v] for s, v in made},
                     attrs=attrs)
    return made[0][1] if len(made) == 1 else tuple(v for _, v in made)


def _as_floats(values, arg, layer):
    if values is None:
        return []
    values = list(values) if isinstance(values, (list, tuple)) else [values]
    try:
        return [float(v) for v in values]
    except (TypeError, ValueError):
        raise TypeError("%s: %s must be a number or a list of numbers, got %r"
                        % (layer, arg, values)) from None


def iou_similarity(x, y, box_normalized=True, name=None):
    check_variable(x, "x", "iou_similarity")
    check_variable(y, "y", "iou_similarity")
    return _append("iou_similarity", {"X": x, "Y": y}, {"box_normalized": box_normalized},
                   [("Out", None)], name)


def box_coder(prior_box, prior_box_var, target_box, code_type="encode_center_size",
              box_normalized=True, name=None, axis=0):
    """prior_box_var: a Variable like prior_box (input PriorBoxVar), a list of 4 floats
    (attr variance), or None (no scaling)."""
    check_variable(prior_box, "prior_box", "box_coder")
    check_variable(target_box, "target_box", "box_coder")
    attrs = {"code_type": code_type, "box_normalized": box_normalized, "axis": axis}
    var_input = None
    if isinstance(prior_box_var, Variable):
        var_input = prior_box_var
    elif prior_box_var is not None:
        attrs["variance"] = _as_floats(prior_box_var, "prior_box_var", "box_coder")
    return _append("box_coder", {"PriorBox": prior_box, "PriorBoxVar": var_input,
                                 "TargetBox": target_box}, attrs, [("OutputBox", None)],
                   name, dtype=target_box.dtype)


def box_clip(input, im_info, name=None, rois_num=None):
    """rois_num (refimpl, in place of input's LoD): boxes per image of a 2-D input."""
    check_variable(input, "input", "box_clip")
    check_variable(im_info, "im_info", "box_clip")
    return _append("box_clip", {"Input": input, "ImInfo": im_info, "RoisNum": rois_num}, {},
                   [("Output", None)], name)


def box_decoder_and_assign(prior_box, prior_box_var, target_box, box_score, box_clip,
                           name=None):
    check_variable(target_box, "target_box", "box_decoder_and_assign")
    return _append("box_decoder_and_assign",
                   {"PriorBox": prior_box, "PriorBoxVar": prior_box_var,
                    "TargetBox": target_box, "BoxScore": box_score},
                   {"box_clip": float(box_clip)},
                   [("DecodeBox", None), ("OutputAssignBox", None)], name,
                   dtype=target_box.dtype)


def _steps(steps, layer):
    steps = _as_floats(steps, "steps", layer)
    if len(steps) != 2:
        raise ValueError("%s: steps must be [step_w, step_h], got %s" % (layer, steps))
    return steps


def prior_box(input, image, min_sizes, max_sizes=None, aspect_ratios=[1.0],
              variance=[0.1, 0.1, 0.2, 0.2], flip=False, clip=False, steps=[0.0, 0.0],
              offset=0.5, name=None, min_max_aspect_ratios_order=False):
    """(boxes, variances), each [H, W, num_priors, 4]."""
    check_variable(input, "input", "prior_box")
    check_variable(image, "image", "prior_box")
    step_w, step_h = _steps(steps, "prior_box")
    attrs = {"min_sizes": _as_floats(min_sizes, "min_sizes", "prior_box"),
             "max_sizes": _as_floats(max_sizes, "max_sizes", "prior_box"),
             "aspect_ratios": _as_floats(aspect_ratios, "aspect_ratios", "prior_box"),
             "variances": _as_floats(variance, "variance", "prior_box"), "flip": flip,
             "clip": clip, "step_w": step_w, "step_h": step_h, "offset": offset,
             "min_max_aspect_ratios_order": min_max_aspect_ratios_order}
    return _append("prior_box", {"Input": input, "Image": image}, attrs,
                   [("Boxes", None), ("Variances", None)], name)


def density_prior_box(input, image, densities=None, fixed_sizes=None, fixed_ratios=None,
                      variance=[0.1, 0.1, 0.2, 0.2], clip=False, steps=[0.0, 0.0],
                      offset=0.5, flatten_to_2d=False, name=None):
    check_variable(input, "input", "density_prior_box")
    check_variable(image, "image", "density_prior_box")
    step_w, step_h = _steps(steps, "density_prior_box")
    attrs = {"densities": [int(d) for d in densities or []],
             "fixed_sizes": _as_floats(fixed_sizes, "fixed_sizes", "density_prior_box"),
             "fixed_ratios": _as_floats(fixed_ratios, "fixed_ratios", "density_prior_box"),
             "variances": _as_floats(variance, "variance", "density_prior_box"),
             "clip": clip, "step_w": step_w, "step_h": step_h, "offset": offset,
             "flatten_to_2d": flatten_to_2d}
    return _append("density_prior_box", {"Input": input, "Image": image}, attrs,
                   [("Boxes", None), ("Variances", None)], name)


def anchor_generator(input, anchor_sizes=None, aspect_ratios=None,
                     variance=[0.1, 0.1, 0.2, 0.2], stride=None, offset=0.5, name=None):
    """(anchors, variances), each [H, W, len(anchor_sizes) * len(aspect_ratios), 4]."""
    check_variable(input, "input", "anchor_generator")
    attrs = {"anchor_sizes": _as_floats(anchor_sizes, "anchor_sizes", "anchor_generator"),
             "aspect_ratios": _as_floats(aspect_ratios, "aspect_ratios", "anchor_generator"),
             "variances": _as_floats(variance, "variance", "anchor_generator"),
             "stride": _as_floats(stride, "stride", "anchor_generator"), "offset": offset}
    return _append("anchor_generator", {"Input": input}, attrs,
                   [("Anchors", None), ("Variances", None)], name)


def yolo_box(x, img_size, anchors, class_num, conf_thresh, downsample_ratio, clip_bbox=True,
             name=None, scale_x_y=1.0, iou_aware=False, iou_aware_factor=0.5):
    """(boxes [N, M, 4], scores [N, M, class_num]); iou_aware, iou_aware_factor: Paddle
    2.1's and 3's (X holds one IoU channel per anchor first)."""
    check_variable(x, "x", "yolo_box")
    check_variable(img_size, "img_size", "yolo_box")
    attrs = {"anchors": [int(a) for a in anchors], "class_num": int(class_num),
             "conf_thresh": float(conf_thresh), "downsample_ratio": int(downsample_ratio),
             "clip_bbox": clip_bbox, "scale_x_y": float(scale_x_y)}
    if iou_aware:
        attrs.update(iou_aware=True, iou_aware_factor=float(iou_aware_factor))
    return _append("yolo_box", {"X": x, "ImgSize": img_size}, attrs,
                   [("Boxes", None), ("Scores", None)], name)


def _greedy_nms_attrs(where, bboxes, scores, score_threshold, nms_top_k, keep_top_k,
                      nms_threshold, normalized, nms_eta, background_label):
    """The attrs multiclass_nms and locality_aware_nms share, after checking the inputs."""
    check_variable(bboxes, "bboxes", where)
    check_variable(scores, "scores", where)
    return {"score_threshold": float(score_threshold), "nms_top_k": int(nms_top_k),
            "keep_top_k": int(keep_top_k), "nms_threshold": float(nms_threshold),
            "normalized": normalized, "nms_eta": float(nms_eta),
            "background_label": int(background_label)}


def multiclass_nms(bboxes, scores, score_threshold, nms_top_k, keep_top_k, nms_threshold=0.3,
                   normalized=True, nms_eta=1.0, background_label=0, name=None,
                   rois_num=None, return_index=False, return_rois_num=False):
    """Out [No, 6] (label, score, box), or [1, 1] holding -1 when nothing is kept (Paddle
    1.8), its LoD the rows of each image (fetch it with return_numpy=False); per-class
    boxes [M, C, 4] take their images from bboxes' LoD. return_index builds
    multiclass_nms2 (Index [No, 1], and an empty Out when nothing is kept). refimpl
    extensions: rois_num (per-image rows of per-class boxes, in place of the LoD) and
    return_rois_num (also return the per-image counts [N], Paddle 2.x's multiclass_nms3)."""
    attrs = _greedy_nms_attrs("multiclass_nms", bboxes, scores, score_threshold, nms_top_k,
                              keep_top_k, nms_threshold, normalized, nms_eta,
                              background_label)
    outputs = [("Out", None)] + ([("Index", "int32")] if return_index else []) + \
        ([("NmsRoisNum", "int32")] if return_rois_num else [])
    made = _append("multiclass_nms2" if return_index else "multiclass_nms",
                   {"BBoxes": bboxes, "Scores": scores, "RoisNum": rois_num}, attrs, outputs,
                   name)
    return made


def locality_aware_nms(bboxes, scores, score_threshold, nms_top_k, keep_top_k,
                       nms_threshold=0.3, normalized=True, nms_eta=1.0, background_label=-1,
                       name=None, return_rois_num=False):
    """Out [No, 6] as multiclass_nms's (or [1, 1] holding -1; its LoD the rows of each
    image), after merging runs of consecutive overlapping boxes; with return_rois_num
    (refimpl) also the counts [N]."""
    attrs = _greedy_nms_attrs("locality_aware_nms", bboxes, scores, score_threshold,
                              nms_top_k, keep_top_k, nms_threshold, normalized, nms_eta,
                              background_label)
    return _append("locality_aware_nms", {"BBoxes": bboxes, "Scores": scores}, attrs,
                   [("Out", None)] + ([("NmsRoisNum", "int32")] if return_rois_num else []),
                   name)


def matrix_nms(bboxes, scores, score_threshold, post_threshold, nms_top_k, keep_top_k,
               use_gaussian=False, gaussian_sigma=2.0, background_label=0, normalized=True,
               return_index=False, name=None, return_rois_num=False):
    """Out [No, 6]; with return_index also Index [No, 1]; with return_rois_num (refimpl,
    beside Out's LoD, which has them too) also the per-image counts [N]."""
    check_variable(bboxes, "bboxes", "matrix_nms")
    check_variable(scores, "scores", "matrix_nms")
    attrs = {"score_threshold": float(score_threshold), "post_threshold": float(post_threshold),
             "nms_top_k": int(nms_top_k), "keep_top_k": int(keep_top_k),
             "use_gaussian": use_gaussian, "gaussian_sigma": float(gaussian_sigma),
             "background_label": int(background_label), "normalized": normalized}
    out, index, counts = _append("matrix_nms", {"BBoxes": bboxes, "Scores": scores}, attrs,
                                 [("Out", None), ("Index", "int32"), ("RoisNum", "int32")],
                                 name)
    extra = [v for v, wanted in ((index, return_index), (counts, return_rois_num)) if wanted]
    return tuple([out] + extra) if extra else out


def retinanet_detection_output(bboxes, scores, anchors, im_info, score_threshold=0.05,
                               nms_top_k=1000, keep_top_k=100, nms_threshold=0.3,
                               nms_eta=1.0, return_rois_num=False):
    """Out [No, 6] (label counted from 1, score, box), best first per image, from lists of
    per-level bboxes [N, Mi, 4], scores [N, Mi, C] and anchors [Mi, 4]; with
    return_rois_num (refimpl, in place of LoD) also the per-image counts [N]."""
    for arg, value in (("bboxes", bboxes), ("scores", scores), ("anchors", anchors)):
        if not isinstance(value, (list, tuple)) or not value:
            raise TypeError("retinanet_detection_output: %s must be a non-empty list of "
                            "Variables (one per FPN level), got %r" % (arg, value))
    helper = LayerHelper("retinanet_detection_output")
    out = helper.create_variable_for_type_inference(bboxes[0].dtype, stop_gradient=True)
    counts = helper.create_variable_for_type_inference("int32", stop_gradient=True)
    helper.append_op(type="retinanet_detection_output",
                     inputs={"BBoxes": list(bboxes), "Scores": list(scores),
                             "Anchors": list(anchors), "ImInfo": [im_info]},
                     outputs={"Out": [out], "NmsRoisNum": [counts]},
                     attrs={"score_threshold": float(score_threshold),
                            "nms_top_k": int(nms_top_k), "keep_top_k": int(keep_top_k),
                            "nms_threshold": float(nms_threshold), "nms_eta": float(nms_eta)})
    return (out, counts) if return_rois_num else out


def detection_output(loc, scores, prior_box, prior_box_var, background_label=0,
                     nms_threshold=0.3, nms_top_k=400, keep_top_k=200, score_threshold=0.01,
                     nms_eta=1.0, return_index=False):
    """SSD head output, composed as Paddle does: box_coder decode of loc [N, M, 4] against
    the priors, softmax of scores [N, M, C] over classes, transposed to [N, C, M], then
    multiclass_nms (multiclass_nms2 with return_index)."""
    check_variable(loc, "loc", "detection_output")
    check_variable(scores, "scores", "detection_output")
    decoded = box_coder(prior_box, prior_box_var, loc, code_type="decode_center_size")
    class_scores = transpose(softmax(scores), perm=[0, 2, 1])
    class_scores.stop_gradient = True
    return multiclass_nms(decoded, class_scores, score_threshold, nms_top_k, keep_top_k,
                          nms_threshold, background_label=background_label, nms_eta=nms_eta,
                          return_index=return_index)


def _roi_pool_layer(op_type, input, rois, rois_num, attrs, outputs, name, rois_lod=None,
                    all_outputs=False):
    check_variable(input, "input", op_type)
    check_variable(rois, "rois", op_type)
    inputs = {"X": input, "ROIs": rois, "RoisNum": rois_num}
    if rois_lod is not None:
        inputs["RoisLod"] = rois_lod
    made = _append(op_type, inputs, attrs, outputs, name, differentiable=True)
    return made[0] if isinstance(made, tuple) and not all_outputs else made


# what roi_align / roi_pool take by position after their attrs: 1.8.5's (name, rois_lod)
# and (rois_lod), or 2.0's (rois_num, name) -- switch roi_layer_positional_order
_ROI_TRAILING = {"1.8": {"roi_align": ("name", "rois_lod"), "roi_pool": ("rois_lod",)},
                 "2.0": {"roi_align": ("rois_num", "name"), "roi_pool": ("rois_num", "name")}}


def _roi_trailing(op_type, positional, given):
    """`given` (the keyword arguments rois_num, name, rois_lod) with the arguments given
    by position after the attrs, in the profile's order."""
    order = _ROI_TRAILING[versions.switch("roi_layer_positional_order")][op_type]
    if len(positional) > len(order):
        raise TypeError("%s: at most %d arguments after its attrs by position (%s), got %d"
                        % (op_type, len(order), ", ".join(order), len(positional)))
    for key, value in zip(order, positional):
        if given[key] is not None:
            raise TypeError("%s: got multiple values for argument %r" % (op_type, key))
        given[key] = value
    return given["rois_num"], given["name"], given["rois_lod"]


def roi_align(input, rois, pooled_height=1, pooled_width=1, spatial_scale=1.0,
              sampling_ratio=-1, *positional, rois_num=None, name=None, rois_lod=None):
    """[R, C, pooled_height, pooled_width]; differentiable w.r.t. input. The images' RoIs:
    rois_num (2.0, counts), else rois_lod (1.8, [N + 1] offsets), else rois' LoD. After
    sampling_ratio, by position: rois_num, name (2.0), or name, rois_lod (1.8.5)."""
    rois_num, name, rois_lod = _roi_trailing(
        "roi_align", positional, {"rois_num": rois_num, "name": name, "rois_lod": rois_lod})
    return _roi_pool_layer("roi_align", input, rois, rois_num,
                           {"pooled_height": int(pooled_height),
                            "pooled_width": int(pooled_width),
                            "spatial_scale": float(spatial_scale),
                            "sampling_ratio": int(sampling_ratio)},
                           [("Out", None)], name, rois_lod)


def roi_pool(input, rois, pooled_height=1, pooled_width=1, spatial_scale=1.0, *positional,
             rois_num=None, name=None, rois_lod=None):
    """[R, C, pooled_height, pooled_width] max per bin; differentiable w.r.t. input. The
    images' RoIs as roi_align's. After spatial_scale, by position: rois_num, name (2.0),
    or rois_lod (1.8.5). In dynamic mode Paddle 2.0 returns (Out, Argmax) (switch
    roi_pool_eager_argmax)."""
    rois_num, name, rois_lod = _roi_trailing(
        "roi_pool", positional, {"rois_num": rois_num, "name": name, "rois_lod": rois_lod})
    out, argmax = _roi_pool_layer("roi_pool", input, rois, rois_num,
                                  {"pooled_height": int(pooled_height),
                                   "pooled_width": int(pooled_width),
                                   "spatial_scale": float(spatial_scale)},
                                  [("Out", None), ("Argmax", "int64")], name, rois_lod,
                                  all_outputs=True)
    if mode.dynamic and versions.switch("roi_pool_eager_argmax"):
        return out, argmax
    return out


def psroi_pool(input, rois, output_channels, spatial_scale, pooled_height, pooled_width,
               name=None, rois_num=None):
    """[R, output_channels, pooled_height, pooled_width]; differentiable w.r.t. input.
    rois_num: refimpl's stand-in for the LoD of rois."""
    return _roi_pool_layer("psroi_pool", input, rois, rois_num,
                           {"output_channels": int(output_channels),
                            "spatial_scale": float(spatial_scale),
                            "pooled_height": int(pooled_height),
                            "pooled_width": int(pooled_width)},
                           [("Out", None)], name)


def prroi_pool(input, rois, spatial_scale=1.0, pooled_height=1, pooled_width=1,
               batch_roi_nums=None, name=None):
    """[R, C, pooled_height, pooled_width] precise RoI pooling; differentiable w.r.t.
    input (not w.r.t. rois, which Paddle also differentiates)."""
    check_variable(input, "input", "prroi_pool")
    check_variable(rois, "rois", "prroi_pool")
    # the types Paddle 1.8.5 insists on (an int spatial_scale is refused too)
    for arg, value, kind in (("spatial_scale", spatial_scale, float),
                             ("pooled_height", pooled_height, int),
                             ("pooled_width", pooled_width, int)):
        if not isinstance(value, kind) or isinstance(value, bool):
            raise TypeError("prroi_pool: %s must be %s, got %r"
                            % (arg, kind.__name__, value))
    return _append("prroi_pool", {"X": input, "ROIs": rois, "BatchRoINums": batch_roi_nums},
                   {"spatial_scale": float(spatial_scale), "pooled_height": int(pooled_height),
                    "pooled_width": int(pooled_width)}, [("Out", None)], name,
                   differentiable=True)


def deformable_roi_pooling(input, rois, trans, no_trans=False, spatial_scale=1.0,
                           group_size=[1, 1], pooled_height=1, pooled_width=1, part_size=None,
                           sample_per_part=1, trans_std=0.1, position_sensitive=False,
                           name=None, rois_num=None):
    """[R, C', pooled_height, pooled_width] via deformable_psroi_pooling; C' = C, or
    C / (pooled_height * pooled_width) when position_sensitive. Differentiable w.r.t.
    input and trans. rois_num: refimpl's stand-in for the LoD of rois."""
    check_variable(input, "input", "deformable_roi_pooling")
    check_variable(rois, "rois", "deformable_roi_pooling")
    channels = input.shape[1]
    output_dim = channels // (pooled_height * pooled_width) if position_sensitive else channels
    part_size = [pooled_height, pooled_width] if part_size is None else list(part_size)
    _, out = _append("deformable_psroi_pooling",
                     {"Input": input, "ROIs": rois, "Trans": trans, "RoisNum": rois_num},
                     {"no_trans": no_trans, "spatial_scale": float(spatial_scale),
                      "output_dim": int(output_dim), "group_size": [int(g) for g in group_size],
                      "pooled_height": int(pooled_height), "pooled_width": int(pooled_width),
                      "part_size": [int(p) for p in part_size],
                      "sample_per_part": int(sample_per_part), "trans_std": float(trans_std)},
                     [("TopCount", input.dtype), ("Output", None)], name, differentiable=True)
    return out


def roi_perspective_transform(input, rois, transformed_height, transformed_width,
                              spatial_scale=1.0, name=None, rois_num=None):
    """(out [R, C, transformed_height, transformed_width], mask [R, 1, th, tw] int32,
    transform_matrix [R, 9]) for quadrilateral rois [R, 8]; differentiable w.r.t. input.
    rois_num: refimpl's stand-in for the LoD of rois."""
    check_variable(input, "input", "roi_perspective_transform")
    check_variable(rois, "rois", "roi_perspective_transform")
    # the op's Out2InIdx / Out2InWeights bound as Paddle's layer binds them, not returned
    return _append("roi_perspective_transform",
                   {"X": input, "ROIs": rois, "RoisNum": rois_num},
                   {"transformed_height": int(transformed_height),
                    "transformed_width": int(transformed_width),
                    "spatial_scale": float(spatial_scale)},
                   [("Out", None), ("Mask", "int32"), ("TransformMatrix", input.dtype),
                    ("Out2InIdx", "int32"), ("Out2InWeights", input.dtype)],
                   name, differentiable=True)[:3]


def polygon_box_transform(input, name=None):
    check_variable(input, "input", "polygon_box_transform")
    return _append("polygon_box_transform", {"Input": input}, {}, [("Output", None)], name)


def bipartite_match(dist_matrix, match_type=None, dist_threshold=None, name=None):
    """(match_indices [1, M] int32, match_distance [1, M]) for one image's [K, M] matrix."""
    check_variable(dist_matrix, "dist_matrix", "bipartite_match")
    attrs = {"match_type": match_type or "bipartite",
             "dist_threshold": 0.5 if dist_threshold is None else float(dist_threshold)}
    return _append("bipartite_match", {"DistMat": dist_matrix}, attrs,
                   [("ColToRowMatchIndices", "int32"), ("ColToRowMatchDist", None)], name)


def target_assign(input, matched_indices, negative_indices=None, mismatch_value=None,
                  name=None, input_num=None):
    """(out [N, M, K], out_weight [N, M, 1] float32). input_num (refimpl, in place of
    input's LoD): rows of input per image. negative_indices: a LoD tensor [total, 1], each
    image's negative priors, which get weight 1."""
    check_variable(input, "input", "target_assign")
    check_variable(matched_indices, "matched_indices", "target_assign")
    if negative_indices is not None:
        check_variable(negative_indices, "negative_indices", "target_assign")
    return _append("target_assign", {"X": input, "MatchIndices": matched_indices,
                                     "NegIndices": negative_indices, "XNum": input_num},
                   {"mismatch_value": 0 if mismatch_value is None else mismatch_value},
                   [("Out", None), ("OutWeight", "float32")], name)


def _gather_predictions(cls_logits, bbox_pred, classes, score_index, loc_index):
    """The chosen anchors' logits [K, classes] and box predictions [F, 4]."""
    return (gather(reshape(cls_logits, [-1, classes]), score_index),
            gather(reshape(bbox_pred, [-1, 4]), loc_index))


_TARGET_OUTPUTS = [("LocationIndex", "int32"), ("ScoreIndex", "int32"), ("TargetBBox", None),
                   ("TargetLabel", "int32"), ("BBoxInsideWeight", None)]


def rpn_target_assign(bbox_pred, cls_logits, anchor_box, anchor_var, gt_boxes, is_crowd,
                      im_info, rpn_batch_size_per_im=256, rpn_straddle_thresh=0.0,
                      rpn_fg_fraction=0.5, rpn_positive_overlap=0.7, rpn_negative_overlap=0.3,
                      use_random=True, gt_num=None):
    """(predicted_scores [K, 1], predicted_location [F, 4], target_label [K, 1],
    target_bbox [F, 4], bbox_inside_weight [F, 4]): the op's targets and the chosen
    anchors' predictions gathered as Paddle does. anchor_var is unused, as in Paddle.
    gt_num (refimpl, in place of LoD): ground-truth rows per image."""
    check_variable(anchor_box, "anchor_box", "rpn_target_assign")
    check_variable(gt_boxes, "gt_boxes", "rpn_target_assign")
    loc_index, score_index, target_bbox, target_label, inside_weight = _append(
        "rpn_target_assign", {"Anchor": anchor_box, "GtBoxes": gt_boxes, "IsCrowd": is_crowd,
                              "ImInfo": im_info, "GtNum": gt_num},
        {"rpn_batch_size_per_im": int(rpn_batch_size_per_im),
         "rpn_straddle_thresh": float(rpn_straddle_thresh),
         "rpn_fg_fraction": float(rpn_fg_fraction),
         "rpn_positive_overlap": float(rpn_positive_overlap),
         "rpn_negative_overlap": float(rpn_negative_overlap), "use_random": use_random},
        _TARGET_OUTPUTS, dtype=anchor_box.dtype)
    scores, location = _gather_predictions(cls_logits, bbox_pred, 1, score_index, loc_index)
    return scores, location, target_label, target_bbox, inside_weight


def retinanet_target_assign(bbox_pred, cls_logits, anchor_box, anchor_var, gt_boxes,
                            gt_labels, is_crowd, im_info, num_classes=1,
                            positive_overlap=0.5, negative_overlap=0.4, gt_num=None):
    """(predicted_scores [F + B, num_classes], predicted_location [F, 4], target_label
    [F + B, 1], target_bbox [F, 4], bbox_inside_weight [F, 4], fg_num [N, 1]): the op's
    targets, and the logits / box predictions of the chosen anchors gathered as Paddle
    does (bbox_pred [N, A, 4], cls_logits [N, A, num_classes]). anchor_var is unused, as
    in Paddle. gt_num (refimpl, in place of LoD): ground-truth rows per image."""
    check_variable(anchor_box, "anchor_box", "retinanet_target_assign")
    check_variable(gt_boxes, "gt_boxes", "retinanet_target_assign")
    loc_index, score_index, target_bbox, target_label, inside_weight, fg_num = _append(
        "retinanet_target_assign",
        {"Anchor": anchor_box, "GtBoxes": gt_boxes, "GtLabels": gt_labels,
         "IsCrowd": is_crowd, "ImInfo": im_info, "GtNum": gt_num},
        {"positive_overlap": float(positive_overlap),
         "negative_overlap": float(negative_overlap)},
        _TARGET_OUTPUTS + [("ForegroundNumber", "int32")], dtype=anchor_box.dtype)
    scores, location = _gather_predictions(cls_logits, bbox_pred, num_classes, score_index,
                                           loc_index)
    return scores, location, target_label, target_bbox, inside_weight, fg_num


def generate_proposal_labels(rpn_rois, gt_classes, is_crowd, gt_boxes, im_info,
                             batch_size_per_im=256, fg_fraction=0.25, fg_thresh=0.25,
                             bg_thresh_hi=0.5, bg_thresh_lo=0.0,
                             bbox_reg_weights=[0.1, 0.1, 0.2, 0.2], class_nums=None,
                             use_random=True, is_cls_agnostic=False, is_cascade_rcnn=False,
                             max_overlap=None, return_max_overlap=False, rpn_rois_num=None,
                             gt_num=None):
    """(rois, labels_int32, bbox_targets, bbox_inside_weights, bbox_outside_weights), then
    max_overlap_with_gt with return_max_overlap (Paddle 2.0's signature: max_overlap, each
    proposal's best IoU at the previous Cascade R-CNN stage, is required with
    is_cascade_rcnn there: switch cascade_rcnn_max_overlap), then the per-image row counts
    when rpn_rois_num is given (refimpl, in place of LoD, as are gt_num's ground-truth rows
    per image)."""
    check_variable(rpn_rois, "rpn_rois", "generate_proposal_labels")
    if class_nums is None:
        raise ValueError("generate_proposal_labels: class_nums is required")
    if is_cascade_rcnn and max_overlap is None and \
            versions.switch("cascade_rcnn_max_overlap") == "required":
        raise ValueError("generate_proposal_labels: max_overlap is required when "
                         "is_cascade_rcnn is True")
    outs = _append(
        "generate_proposal_labels",
        {"RpnRois": rpn_rois, "GtClasses": gt_classes, "IsCrowd": is_crowd,
         "GtBoxes": gt_boxes, "ImInfo": im_info, "RpnRoisNum": rpn_rois_num,
         "GtNum": gt_num, "MaxOverlap": max_overlap},
        {"batch_size_per_im": int(batch_size_per_im), "fg_fraction": float(fg_fraction),
         "fg_thresh": float(fg_thresh), "bg_thresh_hi": float(bg_thresh_hi),
         "bg_thresh_lo": float(bg_thresh_lo),
         "bbox_reg_weights": _as_floats(bbox_reg_weights, "bbox_reg_weights",
                                        "generate_proposal_labels"),
         "class_nums": int(class_nums), "use_random": use_random,
         "is_cls_agnostic": bool(is_cls_agnostic), "is_cascade_rcnn": bool(is_cascade_rcnn)},
        [("Rois", None), ("LabelsInt32", "int32"), ("BboxTargets", None),
         ("BboxInsideWeights", None), ("BboxOutsideWeights", None), ("MaxOverlapWithGT", None),
         ("RoisNum", "int32")])
    return tuple(outs[:5]) + tuple(outs[5:6] if return_max_overlap else ()) + \
        tuple(outs[6:] if rpn_rois_num is not None else ())


def yolov3_loss(x, gt_box, gt_label, anchors, anchor_mask, class_num, ignore_thresh,
                downsample_ratio, gt_score=None, use_label_smooth=True, name=None,
                scale_x_y=1.0):
    """Loss [N] of one YOLOv3 head; differentiable w.r.t. x."""
    check_variable(x, "x", "yolov3_loss")
    attrs = {"anchors": [int(a) for a in anchors], "anchor_mask": [int(a) for a in anchor_mask],
             "class_num": int(class_num), "ignore_thresh": float(ignore_thresh),
             "downsample_ratio": int(downsample_ratio), "use_label_smooth": use_label_smooth,
             "scale_x_y": float(scale_x_y)}
    loss, _, _ = _append("yolov3_loss", {"X": x, "GTBox": gt_box, "GTLabel": gt_label,
                                         "GTScore": gt_score}, attrs,
                         [("Loss", None), ("ObjectnessMask", x.dtype),
                          ("GTMatchMask", "int32")], name, differentiable=True)
    return loss


def generate_proposals(scores, bbox_deltas, im_info, anchors, variances, pre_nms_top_n=6000,
                       post_nms_top_n=1000, nms_thresh=0.5, min_size=0.1, eta=1.0,
                       name=None, return_rois_num=False):
    """(rpn_rois [R, 4], rpn_roi_probs [R, 1]), plus the per-image counts [N] with
    return_rois_num (Paddle 2.0's fluid signature; they are the outputs' LoD as well)."""
    check_variable(scores, "scores", "generate_proposals")
    attrs = {"pre_nms_topN": int(pre_nms_top_n), "post_nms_topN": int(post_nms_top_n),
             "nms_thresh": float(nms_thresh), "min_size": float(min_size), "eta": float(eta)}
    rois, probs, counts = _append(
        "generate_proposals", {"Scores": scores, "BboxDeltas": bbox_deltas,
                               "ImInfo": im_info, "Anchors": anchors, "Variances": variances},
        attrs, [("RpnRois", None), ("RpnRoiProbs", None), ("RpnRoisNum", "int32")], name)
    return (rois, probs, counts) if return_rois_num else (rois, probs)


def distribute_fpn_proposals(fpn_rois, min_level, max_level, refer_level, refer_scale,
                             name=None, rois_num=None):
    """(multi_rois [one per level], restore_ind [R, 1]), plus the per-level counts per
    image when rois_num is given (Paddle 2.0's fluid signature)."""
    check_variable(fpn_rois, "fpn_rois", "distribute_fpn_proposals")
    helper = LayerHelper("distribute_fpn_proposals", name=name)
    levels = max_level - min_level + 1
    if levels < 1:
        raise ValueError("distribute_fpn_proposals: max_level %d must be >= min_level %d"
                         % (max_level, min_level))

    def make(dtype):
        return helper.create_variable_for_type_inference(dtype, stop_gradient=True)
    multi_rois = [make(fpn_rois.dtype) for _ in range(levels)]
    counts = [make("int32") for _ in range(levels)]
    restore = make("int32")
    inputs = {"FpnRois": [fpn_rois]}
    if rois_num is not None:
        inputs["RoisNum"] = [rois_num]
    helper.append_op(type="distribute_fpn_proposals", inputs=inputs,
                     outputs={"MultiFpnRois": multi_rois, "RestoreIndex": [restore],
                              "MultiLevelRoIsNum": counts},
                     attrs={"min_level": int(min_level), "max_level": int(max_level),
                            "refer_level": int(refer_level), "refer_scale": int(refer_scale)})
    return (multi_rois, restore, counts) if rois_num is not None else (multi_rois, restore)


def collect_fpn_proposals(multi_rois, multi_scores, min_level, max_level, post_nms_top_n,
                          name=None, rois_num_per_level=None):
    """fpn_rois [R, 4]: the post_nms_top_n best over the levels min_level..max_level, image
    by image; plus the per-image counts when rois_num_per_level is given."""
    levels = max_level - min_level + 1
    if len(multi_rois) < levels or len(multi_scores) < levels:
        raise ValueError("collect_fpn_proposals: %d levels need as many rois and scores, "
                         "got %d and %d" % (levels, len(multi_rois), len(multi_scores)))
    helper = LayerHelper("collect_fpn_proposals", name=name)
    rois = helper.create_variable_for_type_inference(multi_rois[0].dtype, stop_gradient=True)
    counts = helper.create_variable_for_type_inference("int32", stop_gradient=True)
    inputs = {"MultiLevelRois": list(multi_rois[:levels]),
              "MultiLevelScores": list(multi_scores[:levels])}
    if rois_num_per_level is not None:
        inputs["MultiLevelRoIsNum"] = list(rois_num_per_level[:levels])
    helper.append_op(type="collect_fpn_proposals", inputs=inputs,
                     outputs={"FpnRois": [rois], "RoisNum": [counts]},
                     attrs={"post_nms_topN": int(post_nms_top_n)})
    return (rois, counts) if rois_num_per_level is not None else rois


def generate_mask_labels(im_info, gt_classes, is_crowd, gt_segms, rois, labels_int32,
                         num_classes, resolution, gt_segms_point_num=None, gt_poly_num=None,
                         gt_num=None, rois_num=None):
    """-> (mask_rois, roi_has_mask_int32, mask_int32), plus the kept rows per image when
    rois_num is given. As Paddle 1.8, gt_segms [P, 2] packs every polygon's points under a
    3-level LoD (image -> ground truth -> polygon -> points) and rois carry their images'
    LoD; the outputs then carry the kept rows per image as theirs. Without those LoDs,
    gt_segms_point_num / gt_poly_num / gt_num count each polygon's points, each ground
    truth's polygons and each image's ground truths, rois_num each image's RoIs."""
    where = "generate_mask_labels"
    for arg, var in (("im_info", im_info), ("gt_classes", gt_classes),
                     ("is_crowd", is_crowd), ("gt_segms", gt_segms), ("rois", rois),
                     ("labels_int32", labels_int32)):
        check_variable(var, arg, where)
    outs = append_op_outputs(
        "generate_mask_labels",
        {"ImInfo": im_info, "GtClasses": gt_classes, "IsCrowd": is_crowd,
         "GtSegms": gt_segms, "Rois": rois, "LabelsInt32": labels_int32,
         "GtSegmsPointNum": gt_segms_point_num, "GtPolyNum": gt_poly_num, "GtNum": gt_num,
         "RoisNum": rois_num},
        [("MaskRois", rois.dtype, True), ("RoiHasMaskInt32", "int32", True),
         ("MaskInt32", "int32", True), ("MaskRoisNum", "int32", True)],
        {"num_classes": int(num_classes), "resolution": int(resolution)})
    return outs if rois_num is not None else outs[:-1]


def detection_map(detect_res, label, class_num, background_label=0, overlap_threshold=0.3,
                  evaluate_difficult=True, has_state=None, input_states=None,
                  out_states=None, ap_version="integral"):
    """mAP [1] of detect_res [M, 6] against label [G, 6 or 5] (op detection_map); with
    has_state, input_states (pos_count, true_pos, false_pos) are accumulated into
    out_states. As in Paddle 1.8.5, background_label is not passed to the op (it keeps 0)."""
    check_variable(detect_res, "detect_res", "detection_map")
    check_variable(label, "label", "detection_map")
    if ap_version not in ("integral", "11point"):
        raise ValueError("detection_map: ap_version must be 'integral' or '11point', got %r"
                         % (ap_version,))
    helper = LayerHelper("detection_map")
    made = lambda dtype: helper.create_variable_for_type_inference(dtype, stop_gradient=True)
    accum = out_states if out_states is not None else \
        [made("int32"), made("float32"), made("float32")]
    states = input_states if input_states is not None else (None, None, None)
    inputs = {"Label": label, "DetectRes": detect_res, "HasState": has_state,
              "PosCount": states[0], "TruePos": states[1], "FalsePos": states[2]}
    map_out = made("float32")
    helper.append_op(type="detection_map",
                     inputs={k: [v] for k, v in inputs.items() if v is not None},
                     outputs={"MAP": [map_out], "AccumPosCount": [accum[0]],
                              "AccumTruePos": [accum[1]], "AccumFalsePos": [accum[2]]},
                     attrs={"overlap_threshold": float(overlap_threshold),
                            "evaluate_difficult": bool(evaluate_difficult),
                            "ap_type": ap_version, "class_num": int(class_num)})
    return map_out


EXPORTS = {"fluid.layers": {f.__name__: f for f in (
    iou_similarity, box_coder, box_clip, box_decoder_and_assign, prior_box,
    density_prior_box, anchor_generator, yolo_box, multiclass_nms, locality_aware_nms,
    matrix_nms, detection_output, retinanet_detection_output, roi_align, roi_pool,
    psroi_pool, prroi_pool, deformable_roi_pooling, roi_perspective_transform,
    polygon_box_transform, bipartite_match, target_assign, rpn_target_assign,
    retinanet_target_assign, generate_proposal_labels, yolov3_loss, generate_proposals,
    distribute_fpn_proposals, collect_fpn_proposals, generate_mask_labels, detection_map)}}
