"""The max pools' return_mask (Paddle 2.0 nn.functional max_pool1d/2d/3d and
adaptive_max_pool1d/2d/3d): the op max_pool2d_with_index / max_pool3d_with_index, giving
the pooled output and Mask, each maximum's flat index in its input plane (int32, no
gradient)."""
from .. import versions
from .common import append_op_out


def refuse_channel_last(data_format, layer):
    """The mask's op pools channel-first inputs only: Paddle 2.0 and 3.3.1 raise a
    ValueError for a channel-last data_format with return_mask."""
    if data_format[-1] == "C":
        raise ValueError("%s: return_mask needs a channel-first data_format (%s), got %r"
                         % (layer, "NCHW" if len(data_format) == 4 else "NCDHW",
                            data_format))


def _per_dim_paddings(paddings, padding_algorithm, nd, layer):
    """One padding per spatial dim, all the op takes. It has no padding_algorithm: with
    the mask Paddle pools 'SAME' and 'VALID' unpadded (3.3.1, measured: a 5x5 input, kernel
    2, stride 2, 'SAME' gives 2x2, 3x3 without the mask); a different padding before and
    after a dim is refused, as the op's shape check does."""
    if padding_algorithm != "EXPLICIT":
        return [0] * nd
    if len(paddings) == 2 * nd:
        before, after = list(paddings[0::2]), list(paddings[1::2])
        if before != after:
            raise ValueError("%s: return_mask needs the same padding before and after each "
                             "dim (max_pool%dd_with_index takes %d values), got %s"
                             % (layer, nd, nd, list(paddings)))
        return before
    return list(paddings)


def _pool_with_index(x, ksize, strides, paddings, adaptive, ceil_mode):
    """(Out, Mask) of max_pool2d/3d_with_index over x's last len(ksize) dims."""
    return append_op_out("max_pool%dd_with_index" % len(ksize), {"X": [x]},
                         {"ksize": list(ksize), "strides": list(strides),
                          "paddings": list(paddings), "global_pooling": False,
                          "adaptive": adaptive, "ceil_mode": ceil_mode},
                         extra_outputs=(("Mask", "int32"),))


def max_pool_with_mask(x, ksize, strides, paddings, padding_algorithm, ceil_mode, layer):
    """(Out, Mask) of a windowed max pool over x's last len(ksize) dims (NCHW / NCDHW).
    Paddle 2.0's op has no ceil_mode and pools with floor-sized output whatever the
    argument says; 3.3.1's honours it (switch max_pool_mask_ceil_mode)."""
    honoured = versions.switch("max_pool_mask_ceil_mode") == "honoured"
    return _pool_with_index(x, ksize, strides,
                            _per_dim_paddings(paddings, padding_algorithm, len(ksize), layer),
                            False, bool(ceil_mode) and honoured)


def adaptive_max_pool_with_mask(x, output_size):
    """(Out, Mask) of an adaptive max pool to `output_size` (one int per spatial dim)."""
    nd = len(output_size)
    return _pool_with_index(x, [int(v) for v in output_size], [1] * nd, [0] * nd, True, False)


def required_index(x, pool_size, pool_type, nd, layer):
    """fluid 1.8's adaptive_pool2d / adaptive_pool3d with require_index: (out, mask) of the
    max pool; an average pool has no mask (a ValueError, as Paddle 1.8.5)."""
    if pool_type != "max":
        raise ValueError("%s: require_index needs pool_type 'max', got %r" % (layer, pool_type))
    sizes = list(pool_size) if isinstance(pool_size, (list, tuple)) else [pool_size] * nd
    if len(sizes) != nd:
        raise ValueError("%s: pool_size must be an int or %d ints, got %s"
                         % (layer, nd, pool_size))
    return adaptive_max_pool_with_mask(x, sizes)
