"""Window geometry of convolution, pooling and unfold: padding and output sizes; and mul's
flattening of an operand to a matrix.

A leaf: it imports nothing from refimpl, so the op references (refimpl.ops) and the
compiled kernels (refimpl._kernels) share this one copy of the rules.
"""

__all__ = ["explicit_pads", "conv_dilations", "flat_pads", "conv_out_size", "pool_out_size",
           "pool_geometry", "as_matrix"]


def as_matrix(a, num_col_dims):
    """`a` (a numpy or CuPy array) reshaped to 2-D: its first num_col_dims dims make the
    rows, the rest the columns (mul's x_num_col_dims / y_num_col_dims)."""
    rows = 1
    for d in a.shape[:num_col_dims]:
        rows *= d
    return a.reshape(rows, -1)


def explicit_pads(paddings, algorithm, in_sizes, ksize, strides, dilations):
    """[(lo, hi)] per spatial dim from Paddle's paddings (n values, one per dim, or 2n,
    lo and hi per dim) and padding_algorithm. SAME pads so that out = ceil(in / stride),
    the odd pixel at the end; VALID pads nothing."""
    n = len(in_sizes)
    if algorithm == "VALID":
        return [(0, 0)] * n
    if algorithm == "SAME":
        pads = []
        for size, k, s, d in zip(in_sizes, ksize, strides, dilations):
            total = max((-(-size // s) - 1) * s + d * (k - 1) + 1 - size, 0)
            pads.append((total // 2, total - total // 2))
        return pads
    p = list(paddings)
    if len(p) == n:
        return [(v, v) for v in p]
    if len(p) == 2 * n:
        return [(p[2 * i], p[2 * i + 1]) for i in range(n)]
    raise ValueError("paddings must have %d or %d values, got %s" % (n, 2 * n, p))


def conv_dilations(algorithm, dilations):
    """The dilations a convolution runs with: none under padding_algorithm SAME, as
    Paddle's conv ops reset them (UpdatePaddingAndDilation), else as given."""
    return [1] * len(dilations) if algorithm == "SAME" else list(dilations)


def flat_pads(pads):
    """[(top, bottom), (left, right)] as [top, bottom, left, right]."""
    return [p for pair in pads for p in pair]


def conv_out_size(size, k, stride, pad_lo, pad_hi, dilation):
    return (size + pad_lo + pad_hi - (dilation * (k - 1) + 1)) // stride + 1


def pool_out_size(size, k, stride, pad_lo, pad_hi, ceil_mode):
    """Paddle's C++ integer division truncates toward zero: a window up to stride - 1
    wider than the padded input still gives one output (2x2 input, kernel 3, stride 2: 1x1,
    pooled over the 2x2 inside; 1.8.5 and 3.3.1 measured)."""
    span = size + pad_lo + pad_hi - k
    if ceil_mode:
        span += stride - 1
    return (span // stride if span >= 0 else -(-span // stride)) + 1


def pool_geometry(spatial, ksize, strides, paddings, global_pooling, ceil_mode, adaptive,
                  padding_algorithm):
    """(ksize, strides, [(lo, hi)], output sizes) of pooling over the spatial dims: global
    pooling is one window over everything, adaptive makes ksize the output size."""
    n = len(spatial)
    if global_pooling:
        return list(spatial), [1] * n, [(0, 0)] * n, [1] * n
    if adaptive:
        return list(ksize), [1] * n, [(0, 0)] * n, list(ksize)
    pads = explicit_pads(paddings, padding_algorithm, spatial, ksize, strides, [1] * n)
    out = [pool_out_size(s, k, st, lo, hi, ceil_mode)
           for s, k, st, (lo, hi) in zip(spatial, ksize, strides, pads)]
    return list(ksize), list(strides), pads, out
