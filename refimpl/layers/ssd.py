"""fluid.layers.ssd_loss (Paddle 1.8): the SSD multibox loss, composed as Paddle composes it
(iou_similarity, bipartite_match, target_assign, softmax_with_cross_entropy,
mine_hard_examples, box_coder, smooth_l1); and multi_box_head, SSD's prediction head (prior
boxes and a location / confidence conv2d per feature map). See specs/ops/detection.md.

refimpl has no LoD: the ground truth of N images comes padded, gt_box [N, G, 4] and
gt_label [N, G, 1], a zero-area box marking padding (its IoU with every prior is 0, so it is
never matched); [G, 4] / [G, 1] means one image. bipartite_match takes one image, so the
matching is unrolled over the images, and N must be known when the program is built."""
import math

from .common import append_op_out, check_variable
from .conv import conv2d
from .creation import fill_constant
from .detection import bipartite_match, box_coder, iou_similarity, prior_box, target_assign
from .functional_loss import smooth_l1
from .loss import softmax_with_cross_entropy
from .math import cast
from .tensor import concat, fluid_flatten, reshape, slice, transpose

__all__ = ["ssd_loss", "multi_box_head"]


def _padded_ground_truth(gt_box, gt_label, batch):
    """gt_box as [N, G, 4] and gt_label as [N, G, 1], checked against the batch size N."""
    one_image = len(gt_box.shape) == 2 and batch == 1
    if not one_image and (len(gt_box.shape) != 3 or gt_box.shape[0] != batch) \
            or gt_box.shape[-1] != 4:
        raise ValueError("ssd_loss: gt_box %r %s must be [N=%d, G, 4] (padded with zero "
                         "boxes; refimpl has no LoD) or [G, 4] when N=1"
                         % (gt_box.name, list(gt_box.shape), batch))
    rows = tuple(gt_box.shape[:-1])
    if tuple(gt_label.shape) not in (rows + (1,), rows):
        raise ValueError("ssd_loss: gt_label %r %s must be %s, one label per row of gt_box %r"
                         % (gt_label.name, list(gt_label.shape), list(rows) + [1],
                            gt_box.name))
    if one_image:
        gt_box, gt_label = (reshape(v, [1] + list(v.shape)) for v in (gt_box, gt_label))
    return gt_box, gt_label


def _match_per_image(gt_box, prior_box, match_type, overlap_threshold):
    """(matched_indices [N, Np] int32, matched_dist [N, Np]) of each image's ground truth
    rows against the priors."""
    indices, dists = [], []
    for i in range(gt_box.shape[0]):
        boxes = reshape(slice(gt_box, [0], [i], [i + 1]), [gt_box.shape[1], 4])
        index, dist = bipartite_match(iou_similarity(boxes, prior_box), match_type,
                                      overlap_threshold)
        indices.append(index)
        dists.append(dist)
    if len(indices) == 1:
        return indices[0], dists[0]
    return concat(indices, axis=0), concat(dists, axis=0)


def _weighted(loss, weight, scale=1.0):
    weighted = append_op_out("elementwise_mul", {"X": [loss], "Y": [weight]}, {"axis": -1})
    return weighted if scale == 1.0 else append_op_out("scale", {"X": [weighted]},
                                                       {"scale": float(scale)})


def _rows(x, width):
    return reshape(x, [-1, width])


def ssd_loss(location, confidence, gt_box, gt_label, prior_box, prior_box_var=None,
             background_label=0, overlap_threshold=0.5, neg_pos_ratio=3.0, neg_overlap=0.5,
             loc_loss_weight=1.0, conf_loss_weight=1.0, match_type="per_prediction",
             mining_type="max_negative", normalize=True, sample_size=None):
    """[N, 1]: per image, conf_loss_weight * softmax cross entropy over the matched priors
    and the mined hard negatives plus loc_loss_weight * smooth L1 of the matched priors'
    encoded boxes, divided (normalize) by the total number of matched priors."""
    for arg, var in (("location", location), ("confidence", confidence), ("gt_box", gt_box),
                     ("gt_label", gt_label), ("prior_box", prior_box)):
        check_variable(var, arg, "ssd_loss")
    if mining_type != "max_negative":
        raise ValueError("ssd_loss: only mining_type 'max_negative' is supported (as in "
                         "Paddle), got %r" % (mining_type,))
    if len(confidence.shape) != 3:
        raise ValueError("ssd_loss: confidence %r must be [N, Np, C] (Paddle unpacks those "
                         "three dims), got %s" % (confidence.name, list(confidence.shape)))
    batch, num_prior, num_class = confidence.shape
    if batch < 0:
        raise ValueError("ssd_loss: confidence %r %s needs a known batch size: refimpl "
                         "unrolls the per-image matching" % (confidence.name,
                                                              list(confidence.shape)))
    if len(location.shape) != 3 or tuple(location.shape[:2]) != (batch, num_prior) \
            or location.shape[2] != 4:
        raise ValueError("ssd_loss: location %r %s must be [N, Np, 4] = %s (confidence %r %s)"
                         % (location.name, list(location.shape), [batch, num_prior, 4],
                            confidence.name, list(confidence.shape)))
    gt_box, gt_label = _padded_ground_truth(gt_box, gt_label, batch)
    num_gt = gt_box.shape[1]
    gt_counts = fill_constant([batch], "int32", num_gt)
    labels = reshape(gt_label, [batch * num_gt, 1, 1])
    logits = _rows(confidence, num_class)

    # 1. match priors to ground truth; 2. the classification loss that ranks negatives.
    matched, matched_dist = _match_per_image(gt_box, prior_box, match_type,
                                             overlap_threshold)
    mining_label, _ = target_assign(labels, matched, mismatch_value=background_label,
                                    input_num=gt_counts)
    mining_loss = softmax_with_cross_entropy(logits, cast(_rows(mining_label, 1), "int64"))
    mining_loss = reshape(mining_loss, [batch, num_prior])
    mining_loss.stop_gradient = True

    # 3. hard negatives; 4. targets and weights from the updated matching.
    negatives, updated = append_op_out(
        "mine_hard_examples", {"ClsLoss": [mining_loss], "MatchIndices": [matched],
                               "MatchDist": [matched_dist]},
        {"neg_pos_ratio": float(neg_pos_ratio), "neg_dist_threshold": float(neg_overlap),
         "sample_size": int(sample_size or 0), "mining_type": mining_type},
        out_slot="NegIndices", out_dtype="int32",
        extra_outputs=[("UpdatedMatchIndices", "int32")],
        stop_gradient=True)
    encoded = box_coder(prior_box, prior_box_var, reshape(gt_box, [batch * num_gt, 4]),
                        code_type="encode_center_size")
    target_bbox, loc_weight = target_assign(encoded, updated,
                                            mismatch_value=background_label,
                                            input_num=gt_counts)
    # weight 1 for the matched priors and the negatives (whose label is the mismatch one)
    target_label, conf_weight = target_assign(labels, updated, negative_indices=negatives,
                                              mismatch_value=background_label,
                                              input_num=gt_counts)
    conf_weight = cast(_rows(conf_weight, 1), confidence.dtype)
    for var in (target_bbox, loc_weight, target_label, conf_weight):
        var.stop_gradient = True

    # 5. the weighted losses, summed per image.
    conf_loss = softmax_with_cross_entropy(logits, cast(_rows(target_label, 1), "int64"))
    loc_loss = smooth_l1(_rows(location, 4), _rows(target_bbox, 4))
    loc_weight = cast(_rows(loc_weight, 1), location.dtype)
    loss = append_op_out("elementwise_add", {
        "X": [_weighted(conf_loss, conf_weight, conf_loss_weight)],
        "Y": [_weighted(loc_loss, loc_weight, loc_loss_weight)]})
    loss = append_op_out("reduce_sum", {"X": [reshape(loss, [batch, num_prior])]},
                         {"dim": [1], "keep_dim": True, "reduce_all": False})
    if normalize:
        normalizer = append_op_out("reduce_sum", {"X": [loc_weight]},
                                   {"dim": [0], "keep_dim": False, "reduce_all": True})
        loss = append_op_out("elementwise_div", {"X": [loss], "Y": [normalizer]},
                             {"axis": -1})
    return loss


def _per_map(value, count, what):
    """`value` (a list or tuple of one entry per feature map) checked, or None."""
    if value is None:
        return None
    if not isinstance(value, (list, tuple)) or len(value) != count:
        raise ValueError("multi_box_head: %s must be a list or tuple of %d entries, one per "
                         "input, got %r" % (what, count, value))
    return list(value)


def _as_list(value):
    return list(value) if isinstance(value, (list, tuple)) else [value]


def _box_sizes(count, base_size, min_ratio, max_ratio):
    """SSD's min / max box sizes for `count` (> 2) feature maps: 10% / 20% of base_size for
    the first, then ratios from min_ratio to max_ratio percent in even integer steps."""
    if min_ratio is None or max_ratio is None:
        raise ValueError("multi_box_head: give min_sizes and max_sizes, or min_ratio and "
                         "max_ratio")
    step = int(math.floor((max_ratio - min_ratio) / (count - 2)))
    ratios = range(min_ratio, max_ratio + 1, step)
    return ([base_size * 0.10] + [base_size * r / 100.0 for r in ratios],
            [base_size * 0.20] + [base_size * (r + step) / 100.0 for r in ratios])


def multi_box_head(inputs, image, base_size, num_classes, aspect_ratios, min_ratio=None,
                   max_ratio=None, min_sizes=None, max_sizes=None, steps=None, step_w=None,
                   step_h=None, offset=0.5, variance=[0.1, 0.1, 0.2, 0.2], flip=True,
                   clip=False, kernel_size=1, pad=0, stride=1, name=None,
                   min_max_aspect_ratios_order=False):
    """SSD's head over the feature maps `inputs` (Paddle 1.8's fluid.layers.multi_box_head):
    per map, prior_box(map, image) and two conv2d (kernel_size, pad, stride) predicting 4
    location offsets and num_classes scores per prior, moved to NHWC and flattened per
    image. Returns (locations [N, P, 4], confidences [N, P, num_classes], boxes [P, 4],
    variances [P, 4]) over the P priors of all maps in order; with one input the four
    stay as that map gives them (locations / confidences [N, H*W*priors*4 or *classes],
    boxes / variances [H, W, priors, 4]), as in 1.8. With up to two inputs min_sizes and
    max_sizes are required; otherwise they may come from base_size, min_ratio and max_ratio
    (_box_sizes). `steps` sets both step_w and step_h; as in 1.8, step_h counts only when
    step_w is given."""
    if not isinstance(inputs, (list, tuple)):
        raise ValueError("multi_box_head: inputs must be a list or tuple of feature maps")
    count = len(inputs)
    if min_sizes is None and max_sizes is None and count > 2:
        min_sizes, max_sizes = _box_sizes(count, base_size, min_ratio, max_ratio)
    min_sizes = _per_map(min_sizes, count, "min_sizes")
    max_sizes = _per_map(max_sizes, count, "max_sizes")
    if min_sizes is None or max_sizes is None:
        raise ValueError("multi_box_head: with %d inputs, min_sizes and max_sizes (one per "
                         "input) are required" % count)
    aspect_ratios = _per_map(aspect_ratios or None, count, "aspect_ratios")
    step_w, step_h = _per_map(step_w, count, "step_w"), _per_map(step_h, count, "step_h")
    if steps is not None:
        step_w = step_h = _per_map(steps, count, "steps")
    if step_w and not step_h:
        raise ValueError("multi_box_head: step_w needs step_h (Paddle 1.8 fails on it too)")
    locations, confidences, boxes, variances = [], [], [], []
    for i, feature in enumerate(inputs):
        check_variable(feature, "inputs[%d]" % i, "multi_box_head")
        step = [step_w[i], step_h[i]] if step_w else [0.0, 0.0]
        box, var = prior_box(feature, image, _as_list(min_sizes[i]), _as_list(max_sizes[i]),
                             _as_list(aspect_ratios[i]) if aspect_ratios else [], variance,
                             flip, clip, step, offset, None, min_max_aspect_ratios_order)
        boxes.append(box)
        variances.append(var)
        priors = box.shape[2]
        for outputs, width in ((locations, 4), (confidences, num_classes)):
            predicted = conv2d(feature, priors * width, kernel_size, stride=stride,
                               padding=pad)
            outputs.append(fluid_flatten(transpose(predicted, [0, 2, 3, 1]), axis=1))
    if count == 1:
        location, confidence, box, var = locations[0], confidences[0], boxes[0], variances[0]
    else:
        box = concat([fluid_flatten(b, axis=3) for b in boxes])
        var = concat([fluid_flatten(v, axis=3) for v in variances])
        location = reshape(concat(locations, axis=1), [0, -1, 4])
        confidence = reshape(concat(confidences, axis=1), [0, -1, num_classes])
    box.stop_gradient = var.stop_gradient = True
    return location, confidence, box, var


EXPORTS = {"fluid.layers": {"ssd_loss": ssd_loss, "multi_box_head": multi_box_head}}
