"""fluid.layers.ssd_loss (Paddle 1.8): the SSD multibox loss, composed as Paddle composes it
(iou_similarity, bipartite_match, target_assign, softmax_with_cross_entropy,
mine_hard_examples, box_coder, smooth_l1). See specs/ops/detection.md.

refimpl has no LoD: the ground truth of N images comes padded, gt_box [N, G, 4] and
gt_label [N, G, 1], a zero-area box marking padding (its IoU with every prior is 0, so it is
never matched); [G, 4] / [G, 1] means one image. bipartite_match takes one image, so the
matching is unrolled over the images, and N must be known when the program is built."""
from .common import append_op_out, check_variable
from .creation import fill_constant
from .detection import bipartite_match, box_coder, iou_similarity, target_assign
from .functional_loss import smooth_l1
from .loss import softmax_with_cross_entropy
from .math import cast
from .tensor import concat, reshape, slice

__all__ = ["ssd_loss"]


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


EXPORTS = {"fluid.layers": {"ssd_loss": ssd_loss}}
