"""ops/_common helpers that infer_shape checks share."""
import pytest

from refimpl.ops._common import shapes_agree


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
