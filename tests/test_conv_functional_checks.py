"""The build-time checks of the 2.0 conv functionals that 2.0's own test_functional_conv*
error cases assert: a known channel dim (switch conv_channels_known) and a data_format
of the right rank."""
import numpy as np
import pytest

import refimpl as paddle
import refimpl.nn.functional as F
from refimpl import static


def _build(fn):
    main = static.Program()
    with static.program_guard(main, static.Program()):
        return fn()


CASES = [
    ("conv2d", lambda: F.conv2d(static.data("x", [-1, -2, 8, 8]), static.data("w", [5, 3, 3, 3]))),
    ("conv3d", lambda: F.conv3d(static.data("x", [-1, 6, 6, 6, -5]),
                                static.data("w", [5, 3, 3, 3, 3]), data_format="NDHWC")),
    ("conv3d_transpose", lambda: F.conv3d_transpose(static.data("x", [-1, -2, 6, 6, 6]),
                                                    static.data("w", [3, 5, 3, 3, 3]))),
]


@pytest.mark.parametrize("layer, build", CASES)
def test_unknown_channel_dim_is_refused_under_2_0(layer, build, paddle_version):
    with paddle_version("2.0"):
        with pytest.raises(ValueError, match=r"%s: the channel dim of x must be known, got "
                                             r"shape \[" % layer):
            _build(build)


def test_unknown_channel_dim_builds_under_3(paddle_version):
    with paddle_version("3"):
        main = static.Program()
        with static.program_guard(main, static.Program()):
            x = static.data("x", [-1, -1, 4, 4])
            out = F.conv2d(x, paddle.ones([2, 3, 3, 3]))
        (value,) = static.Executor().run(main, feed={"x": np.ones((1, 3, 4, 4), "float32")},
                                         fetch_list=[out])
        np.testing.assert_allclose(value, np.full((1, 2, 2, 2), 27.0))


def test_conv3d_data_format_must_be_3d():
    with pytest.raises(ValueError, match=r"conv3d_transpose: data_format must be one of "
                                         r"\['NCDHW', 'NDHWC'\], got 'NCHW'"):
        _build(lambda: F.conv3d_transpose(static.data("x", [-1, 3, 6, 6, 6]),
                                          static.data("w", [3, 5, 3, 3, 3]), data_format="NCHW"))
