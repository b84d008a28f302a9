"""var_conv_2d (Paddle 1.8 contrib): a 2-D convolution of variable-size images. Sequence b
of X ([sum C H_b W_b, 1]) is an image [C, H_b, W_b], H_b and W_b the lengths of ROW's and
COLUMN's sequence b (read only for their LoD). Windows of KernelH x KernelW start at
(y - KernelH // 2, x - KernelW // 2) for y = 0, StrideH, ... < H_b (x likewise), zeros
outside the image, so the output is [ceil(H_b / StrideH), ceil(W_b / StrideW)] = P_b
positions. Col [sum C kh kw P_b, 1] holds each image's windows as [C kh kw, P_b] (LoD
C kh kw P_b); Out [sum M P_b, 1] = W [M, C kh kw] @ that, as [M, P_b] (LoD M P_b).
Grads to X and W; an empty image has no positions."""
import numpy as np

from ._common import rand
from ._sequence import lengths_of, segments
from ..xp import to_host
from .registry import LoDRule, OpDef, Sample, register

_ATTRS = ("InputChannel", "OutputChannel", "StrideH", "StrideW", "KernelH", "KernelW")


def _positions(height, width, stride_h, stride_w):
    return (-(-height // stride_h)) * (-(-width // stride_w))


def _lengths_lod(per_position):
    """The LoD of an output holding per_position(attrs) values per image position."""
    def lod(lods, values, attrs):
        rows, cols = (np.asarray(to_host(values[slot])).reshape(-1)
                      for slot in ("ROWLength", "COLUMNLength"))
        return ((tuple(per_position(attrs) * _positions(h, w, attrs["StrideH"],
                                                         attrs["StrideW"])
                       for h, w in zip(rows.tolist(), cols.tolist()))),)
    return LoDRule(lod, lambda levels: 1, creates=True)


def _images(x, x_len, row_len, col_len, channels):
    """(start, [C, H, W] image) per sequence of x."""
    lens = lengths_of(x_len, len(x), "var_conv_2d")
    rows, cols = (np.asarray(v, np.int64).reshape(-1) for v in (row_len, col_len))
    if not len(lens) == len(rows) == len(cols):
        raise ValueError("var_conv_2d: X, ROW and COLUMN hold %d, %d and %d sequences"
                         % (len(lens), len(rows), len(cols)))
    images = []
    for (s, e), h, w in zip(segments(lens), rows, cols):
        if e - s != channels * h * w:
            raise ValueError("var_conv_2d: a sequence of X holds %d values, InputChannel * "
                             "rows * cols = %d * %d * %d" % (e - s, channels, h, w))
        images.append((s, x.reshape(-1)[s:e].reshape(channels, h, w)))
    return images


def _window_slices(kh, kw, h, w, sh, sw):
    """Per kernel tap (ky, kx): the slices of the padded image its output positions read."""
    oh, ow = -(-h // sh), -(-w // sw)
    return [((ky, kx), (slice(ky, ky + sh * (oh - 1) + 1, sh),
                        slice(kx, kx + sw * (ow - 1) + 1, sw)))
            for ky in range(kh) for kx in range(kw)]


def _columns(image, kh, kw, sh, sw):
    """[C kh kw, P] windows of one image (im2col, zero padding)."""
    c, h, w = image.shape
    padded = np.zeros((c, h + kh, w + kw), image.dtype)
    padded[:, kh // 2:kh // 2 + h, kw // 2:kw // 2 + w] = image
    taps = [padded[(slice(None),) + window]
            for _, window in _window_slices(kh, kw, h, w, sh, sw)]
    return np.stack(taps, axis=1).reshape(c * kh * kw, -1)


def _columns_grad(dcols, shape, kh, kw, sh, sw):
    """The adjoint of _columns: [C kh kw, P] back into a [C, H, W] image."""
    c, h, w = shape
    padded = np.zeros((c, h + kh, w + kw), dcols.dtype)
    taps = dcols.reshape(c, kh * kw, -(-h // sh), -(-w // sw))
    for i, (_, window) in enumerate(_window_slices(kh, kw, h, w, sh, sw)):
        padded[(slice(None),) + window] += taps[:, i]
    return padded[:, kh // 2:kh // 2 + h, kw // 2:kw // 2 + w]


@register
class VarConv2D(OpDef):
    type = "var_conv_2d"
    inputs = ("X", "ROW", "COLUMN", "W", "XLength", "ROWLength", "COLUMNLength")
    outputs = ("Out", "Col")
    attrs = {"InputChannel": 1, "OutputChannel": 1, "StrideH": 1, "StrideW": 1,
             "KernelH": 1, "KernelW": 1}
    lod_only = ("ROW", "COLUMN")
    lod_lengths = {"XLength": "X", "ROWLength": "ROW", "COLUMNLength": "COLUMN"}
    lod_outputs = {
        "Out": _lengths_lod(lambda a: a["OutputChannel"]),
        "Col": _lengths_lod(lambda a: a["InputChannel"] * a["KernelH"] * a["KernelW"])}
    no_grad = ("ROW", "COLUMN", "XLength", "ROWLength", "COLUMNLength")
    grad_inputs = ("X", "ROW", "COLUMN", "W", "XLength", "ROWLength", "COLUMNLength",
                   "Out@GRAD")

    def infer_shape(self, ctx):
        ctx.check_dtype("X", ("float32", "float64"))
        for attr in _ATTRS:
            ctx.expect(ctx.attr(attr) > 0, "%s must be positive, got %d"
                       % (attr, ctx.attr(attr)))
        w = ctx.input_var("W")
        taps = ctx.attr("InputChannel") * ctx.attr("KernelH") * ctx.attr("KernelW")
        ctx.expect(list(w.shape) == [ctx.attr("OutputChannel"), taps],
                   "W %r must be [OutputChannel, InputChannel * KernelH * KernelW] = [%d, %d]"
                   ", got %s" % (w.name, ctx.attr("OutputChannel"), taps, list(w.shape)))
        x = ctx.input_var("X")
        ctx.set_output("Out", (-1, 1), x.dtype)
        ctx.set_output("Col", (-1, 1), x.dtype)

    @staticmethod
    def forward(x, w, x_length, row_length, col_length, InputChannel=1, OutputChannel=1,
                StrideH=1, StrideW=1, KernelH=1, KernelW=1):
        outs, cols = [np.zeros(0, x.dtype)], [np.zeros(0, x.dtype)]
        for _, image in _images(x, x_length, row_length, col_length, InputChannel):
            col = _columns(image, KernelH, KernelW, StrideH, StrideW)
            cols.append(col.reshape(-1))
            outs.append((w @ col).reshape(-1))
        return (np.concatenate(outs).reshape(-1, 1).astype(x.dtype),
                np.concatenate(cols).reshape(-1, 1).astype(x.dtype))

    @staticmethod
    def backward(x, w, x_length, row_length, col_length, dout, InputChannel=1,
                 OutputChannel=1, StrideH=1, StrideW=1, KernelH=1, KernelW=1):
        dx, dw = np.zeros_like(x).reshape(-1), np.zeros_like(w)
        at = 0
        for start, image in _images(x, x_length, row_length, col_length, InputChannel):
            col = _columns(image, KernelH, KernelW, StrideH, StrideW)
            size = OutputChannel * col.shape[1]
            d = dout.reshape(-1)[at:at + size].reshape(OutputChannel, -1)
            at += size
            dw += d @ col.T
            dx[start:start + image.size] = _columns_grad(
                w.T @ d, image.shape, KernelH, KernelW, StrideH, StrideW).reshape(-1)
        return dx.reshape(x.shape), dw

    def samples(self, rng):
        # the shapes of Paddle's test_var_conv_2d: images 2x3 and 4x2 of 8 channels
        for channels, rows, cols, k, stride in ((8, [2, 4], [3, 2], (2, 3), (1, 1)),
                                                (2, [3, 5], [4, 1], (3, 3), (2, 1))):
            size = channels * int(np.dot(rows, cols))
            lens = [channels * r * c for r, c in zip(rows, cols)]
            yield Sample({"X": rand(rng, size, 1), "W": rand(rng, 2, channels * k[0] * k[1]),
                          "XLength": np.array(lens), "ROWLength": np.array(rows),
                          "COLUMNLength": np.array(cols)},
                         {"InputChannel": channels, "OutputChannel": 2, "KernelH": k[0],
                          "KernelW": k[1], "StrideH": stride[0], "StrideW": stride[1]})
