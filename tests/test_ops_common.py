"""ops/_common helpers that the op definitions share (infer_shape checks, regions)."""
import numpy as np
import pytest

from refimpl.ops._common import region_index, shapes_agree


@pytest.mark.parametrize("shape, expected, agree", [
    ([2, 3], [2, 3], True),
    ([-1, 3], [4, 3], True),        # a dim known only at run time agrees with any
    ([2, 3], [2, -1], True),
    ([], [], True),
    ([2, 3], [3, 2], False),
    ([2, 3], [2, 3, 1], False),     # ranks differ, even where the shared dims agree
    ([-1], [-1, -1], False),
])
def test_shapes_agree_where_both_dims_are_known(shape, expected, agree):
    assert shapes_agree(shape, expected) is agree
    assert shapes_agree(tuple(expected), tuple(shape)) is agree


def test_region_index_slices_the_named_axes_and_keeps_the_others_whole():
    x = np.arange(24).reshape(2, 3, 4)
    np.testing.assert_array_equal(x[region_index(3, [2, 0], [1, 1], [3, 2])], x[1:2, :, 1:3])
    np.testing.assert_array_equal(x[region_index(3, [1], [2], [-4], [-2])], x[:, 2:-4:-2])
    assert region_index(2, [], [], []) == (slice(None), slice(None))
