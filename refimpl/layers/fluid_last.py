"""Paddle 1.8 fluid.layers filter_by_instag and generate_mask_labels (specs/ops/sequence.md,
specs/ops/detection.md). refimpl has no LoD: the instance, tag and polygon groupings
Paddle reads from LoD are given as count vectors (the extra keywords)."""
from ..framework.layer_helper import LayerHelper
from .common import check_variable


def _append(op_type, inputs, attrs, outputs):
    """Append `op_type` (None inputs left out); `outputs`: [(slot, dtype, stop_gradient)]."""
    helper = LayerHelper(op_type)
    made = [(slot, helper.create_variable_for_type_inference(dtype, stop_gradient=stop))
            for slot, dtype, stop in outputs]
    helper.append_op(type=op_type,
                     inputs={slot: [v] for slot, v in inputs.items() if v is not None},
                     outputs={slot: [v] for slot, v in made}, attrs=attrs)
    return [v for _, v in made]


def filter_by_instag(ins, ins_tag, filter_tag, is_lod, out_val_if_empty=0,
                     ins_tag_length=None, ins_length=None):
    """-> (out, loss_weight): the instances of `ins` with a tag in `filter_tag`. An
    instance is a row of ins, or with is_lod a run of `ins_length` rows (refimpl's stand-in
    for ins' LoD); `ins_tag` holds the instances' tags packed, `ins_tag_length` counting
    them per instance (absent: one tag each)."""
    where = "filter_by_instag"
    for arg, var in (("ins", ins), ("ins_tag", ins_tag), ("filter_tag", filter_tag)):
        check_variable(var, arg, where)
    if bool(is_lod) != (ins_length is not None):
        raise ValueError("filter_by_instag: is_lod=%s needs ins_length %s (refimpl's rows per "
                         "instance, in place of ins' LoD)"
                         % (is_lod, "given" if is_lod else "left out"))
    out, loss_weight, _ = _append(
        "filter_by_instag",
        {"Ins": ins, "Ins_tag": ins_tag, "Filter_tag": filter_tag,
         "Ins_tagLength": ins_tag_length, "InsLength": ins_length},
        {"is_lod": bool(is_lod), "out_val_if_empty": int(out_val_if_empty)},
        [("Out", ins.dtype, False), ("LossWeight", ins.dtype, True),
         ("IndexMap", "int64", True)])
    return out, loss_weight


def generate_mask_labels(im_info, gt_classes, is_crowd, gt_segms, rois, labels_int32,
                         num_classes, resolution, gt_segms_point_num=None, gt_poly_num=None,
                         gt_num=None, rois_num=None):
    """-> (mask_rois, roi_has_mask_int32, mask_int32), plus the kept rows per image when
    rois_num is given. gt_segms [P, 2] packs every polygon's points; gt_segms_point_num
    counts each polygon's points and gt_poly_num each ground truth's polygons (required:
    refimpl's stand-in for gt_segms' LoD); gt_num / rois_num count each image's ground
    truths / RoIs (absent: one image)."""
    where = "generate_mask_labels"
    for arg, var in (("im_info", im_info), ("gt_classes", gt_classes),
                     ("is_crowd", is_crowd), ("gt_segms", gt_segms), ("rois", rois),
                     ("labels_int32", labels_int32)):
        check_variable(var, arg, where)
    if gt_segms_point_num is None or gt_poly_num is None:
        raise ValueError("generate_mask_labels: refimpl needs gt_segms_point_num (points per "
                         "polygon) and gt_poly_num (polygons per ground truth) in place of "
                         "gt_segms' LoD")
    outs = _append(
        "generate_mask_labels",
        {"ImInfo": im_info, "GtClasses": gt_classes, "IsCrowd": is_crowd,
         "GtSegms": gt_segms, "Rois": rois, "LabelsInt32": labels_int32,
         "GtSegmsPointNum": gt_segms_point_num, "GtPolyNum": gt_poly_num, "GtNum": gt_num,
         "RoisNum": rois_num},
        {"num_classes": int(num_classes), "resolution": int(resolution)},
        [("MaskRois", rois.dtype, True), ("RoiHasMaskInt32", "int32", True),
         ("MaskInt32", "int32", True), ("MaskRoisNum", "int32", True)])
    return outs if rois_num is not None else outs[:-1]


EXPORTS = {
    "fluid.layers": {"filter_by_instag": filter_by_instag,
                     "generate_mask_labels": generate_mask_labels},
}
