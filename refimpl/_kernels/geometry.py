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
