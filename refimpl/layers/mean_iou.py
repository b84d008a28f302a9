"""fluid.layers.mean_iou (Paddle 1.8): the mean IoU of class predictions (ops/mean_iou.py)."""
from .common import append_op_outputs, check_dtype


def mean_iou(input, label, num_classes):
    """(mean IoU [1] float32, wrong [num_classes] int32, correct [num_classes] int32) of
    class ids `input` against `label` (int32 / int64, same shape)."""
    check_dtype(input, "input", "mean_iou", ("int32", "int64"))
    check_dtype(label, "label", "mean_iou", ("int32", "int64"))
    return tuple(append_op_outputs(
        "mean_iou", {"Predictions": input, "Labels": label},
        [("OutMeanIou", "float32", True), ("OutWrong", "int32", True),
         ("OutCorrect", "int32", True)], {"num_classes": int(num_classes)}))


EXPORTS = {"fluid.layers": {"mean_iou": mean_iou}}
