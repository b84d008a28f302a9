"""yolo_box: YOLOv3 head decoding. X [N, A * (5 + class_num), H, W] holds per anchor a
(tx, ty, tw, th, objectness, class logits...); ImgSize [N, 2] int is (height, width).
Boxes [N, A * H * W, 4] (anchor-major, then row, then column) are in image pixels:
  cx = (col + sigmoid(tx) * scale_x_y - (scale_x_y - 1) / 2) * img_w / W
  w  = exp(tw) * anchor_w * img_w / (downsample_ratio * W)     (likewise y, h)
corners cx -/+ w / 2; clip_bbox raises x1, y1 to at least 0 and lowers x2, y2 to at most
img_w - 1, img_h - 1 (each corner on its own side only, as Paddle 1.8.5: a box right of the
image keeps its x1).
Scores [N, A * H * W, class_num] = sigmoid(objectness) * sigmoid(class logits). Boxes
whose objectness is below conf_thresh get zero boxes and zero scores. With iou_aware
(Paddle 2.1 on; 3.3.1's test_yolo_box_op) X has A more channels first, one predicted IoU
per anchor, and the objectness becomes sigmoid(objectness) ^ (1 - iou_aware_factor) *
sigmoid(iou) ^ iou_aware_factor. No gradient."""
import numpy as np

from ._common import FLOATS
from .registry import OpDef, Sample, register


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


@register
class YoloBox(OpDef):
    type = "yolo_box"
    # float64: Paddle computes the box coordinates partly in float32 (the spec's Tolerances)
    tolerances = {"float32": (1e-4, 1e-5), "float64": (1e-5, 1e-6)}
    inputs = ("X", "ImgSize")
    outputs = ("Boxes", "Scores")
    attrs = {"anchors": [], "class_num": 1, "conf_thresh": 0.01, "downsample_ratio": 32,
             "clip_bbox": True, "scale_x_y": 1.0, "iou_aware": False, "iou_aware_factor": 0.5}

    def infer_shape(self, ctx):
        ctx.check_dtype("X", FLOATS)
        x, size = ctx.input_var("X"), ctx.input_var("ImgSize")
        anchors, classes = ctx.attr("anchors"), ctx.attr("class_num")
        ctx.expect(len(anchors) > 0 and len(anchors) % 2 == 0,
                   "anchors must be (width, height) pairs, got %s" % (anchors,))
        ctx.expect(classes > 0, "class_num must be positive, got %d" % classes)
        ctx.expect(len(x.shape) == 4, "X %r must be 4-D NCHW, got %s" % (x.name, list(x.shape)))
        iou = 1 if ctx.attr("iou_aware") else 0
        channels = len(anchors) // 2 * (5 + iou + classes)
        ctx.expect(x.shape[1] in (channels, -1),
                   "X %r must have %d anchors x (%d + %d classes) = %d channels, got %d"
                   % (x.name, len(anchors) // 2, 5 + iou, classes, channels, x.shape[1]))
        ctx.expect(len(size.shape) == 2 and size.shape[1] in (2, -1),
                   "ImgSize %r must be [N, 2], got %s" % (size.name, list(size.shape)))
        boxes = len(anchors) // 2 * x.shape[2] * x.shape[3] if min(x.shape[2:]) >= 0 else -1
        ctx.set_output("Boxes", (x.shape[0], boxes, 4), x.dtype)
        ctx.set_output("Scores", (x.shape[0], boxes, classes), x.dtype)

    @staticmethod
    def forward(x, img_size, anchors=(), class_num=1, conf_thresh=0.01, downsample_ratio=32,
                clip_bbox=True, scale_x_y=1.0, iou_aware=False, iou_aware_factor=0.5):
        n, _, h, w = x.shape
        a = len(anchors) // 2
        iou = x[:, :a] if iou_aware else None
        x = (x[:, a:] if iou_aware else x).reshape(n, a, 5 + class_num, h, w)
        img_h = img_size[:, 0].astype(x.dtype).reshape(n, 1, 1, 1)
        img_w = img_size[:, 1].astype(x.dtype).reshape(n, 1, 1, 1)
        anchor_w = np.asarray(anchors[0::2], x.dtype).reshape(1, a, 1, 1)
        anchor_h = np.asarray(anchors[1::2], x.dtype).reshape(1, a, 1, 1)
        bias = -0.5 * (scale_x_y - 1.0)
        col, row = np.arange(w).reshape(1, 1, 1, w), np.arange(h).reshape(1, 1, h, 1)
        cx = (col + sigmoid(x[:, :, 0]) * scale_x_y + bias) * img_w / w
        cy = (row + sigmoid(x[:, :, 1]) * scale_x_y + bias) * img_h / h
        bw = np.exp(x[:, :, 2]) * anchor_w * img_w / (downsample_ratio * w)
        bh = np.exp(x[:, :, 3]) * anchor_h * img_h / (downsample_ratio * h)
        boxes = np.stack([cx - bw / 2, cy - bh / 2, cx + bw / 2, cy + bh / 2], axis=-1)
        if clip_bbox:
            boxes[..., :2] = np.maximum(boxes[..., :2], 0)
            boxes[..., 2] = np.minimum(boxes[..., 2], img_w - 1)
            boxes[..., 3] = np.minimum(boxes[..., 3], img_h - 1)
        conf = sigmoid(x[:, :, 4])
        if iou_aware:
            conf = conf ** (1 - iou_aware_factor) * sigmoid(iou) ** iou_aware_factor
        keep = conf >= conf_thresh
        scores = conf[:, :, None] * sigmoid(x[:, :, 5:])           # [N, A, C, H, W]
        boxes = np.where(keep[..., None], boxes, 0.0)
        scores = np.where(keep[:, :, None], scores, 0.0).transpose(0, 1, 3, 4, 2)
        return (boxes.reshape(n, -1, 4).astype(x.dtype),
                scores.reshape(n, -1, class_num).astype(x.dtype))

    def samples(self, rng):
        anchors = [10, 13, 16, 30]
        x = rng.uniform(-2, 2, (2, 2 * (5 + 3), 3, 4))
        size = np.array([[96, 128], [64, 50]], np.int32)
        yield Sample({"X": x, "ImgSize": size},
                     {"anchors": anchors, "class_num": 3, "conf_thresh": 0.3,
                      "downsample_ratio": 32})
        yield Sample({"X": x, "ImgSize": size},
                     {"anchors": anchors, "class_num": 3, "conf_thresh": 0.3,
                      "downsample_ratio": 16, "clip_bbox": False, "scale_x_y": 1.2},
                     name="no_clip_scaled")
        yield Sample({"X": rng.uniform(-2, 2, (2, 2 * (6 + 3), 3, 4)), "ImgSize": size},
                     {"anchors": anchors, "class_num": 3, "conf_thresh": 0.3,
                      "downsample_ratio": 32, "iou_aware": True, "iou_aware_factor": 0.4},
                     name="iou_aware")
