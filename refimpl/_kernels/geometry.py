"""Window geometry shared by the conv/pool references (refimpl.ops) and the compiled kernels."""

__all__ = ["normalize_padding", "conv_out_size"]


def conv_out_size(size, k, stride, pad_lo, pad_hi, dilation):
    return (size + pad_lo + pad_hi - (dilation * (k - 1) + 1)) // stride + 1


def normalize_padding(paddings, algorithm, in_hw, k_hw, strides, dilations):
    """[top, bottom, left, right] from Paddle's 2- or 4-value paddings and padding_algorithm
    (SAME pads so that out = ceil(in / stride), the extra pixel at the end)."""
    if algorithm == "VALID":
        return [0, 0, 0, 0]
    if algorithm == "SAME":
        pads = []
        for size, k, s, d in zip(in_hw, k_hw, strides, dilations):
            out = -(-size // s)
            total = max((out - 1) * s + d * (k - 1) + 1 - size, 0)
            pads += [total // 2, total - total // 2]
        return pads
    p = list(paddings)
    if len(p) == 2:
        return [p[0], p[0], p[1], p[1]]
    if len(p) == 4:
        return p
    raise ValueError("paddings must have 2 or 4 values, got %s" % p)


def pool_out_size(size, k, stride, pad_lo, pad_hi, ceil_mode):
    span = size + pad_lo + pad_hi - k
    return (-(-span // stride) if ceil_mode else span // stride) + 1


def pool_geometry(shape, ksize, strides, paddings, global_pooling, ceil_mode, adaptive,
                  padding_algorithm):
    """(ksize, strides, [top, bottom, left, right], Ho, Wo) of pool2d on an NCHW shape;
    global pooling is one window over everything, adaptive makes ksize the output size."""
    h, w = shape[2], shape[3]
    if global_pooling:
        return (h, w), (1, 1), [0, 0, 0, 0], 1, 1
    if adaptive:
        return tuple(ksize), (1, 1), [0, 0, 0, 0], ksize[0], ksize[1]
    pads = normalize_padding(paddings, padding_algorithm, (h, w), ksize, strides, (1, 1))
    return (tuple(ksize), tuple(strides), pads,
            pool_out_size(h, ksize[0], strides[0], pads[0], pads[1], ceil_mode),
            pool_out_size(w, ksize[1], strides[1], pads[2], pads[3], ceil_mode))
