"""Paddle 3's ClipGradByGlobalNorm over float16 gradients (switch global_norm_clip_dtypes):
the squared norms summed per dtype and cast to float32, the factor cast back to float16
for each gradient, unless nn.clip._allow_pure_fp16_global_norm_clip(True); the op lists
are the early-2024 test_gradient_clip's, the values hand-derived."""
import numpy as np
import pytest

import refimpl as paddle
from refimpl.nn.clip import _allow_pure_fp16_global_norm_clip

G0 = np.array([[3., 0., 0.], [0., 0., 0.]])          # |g0|^2 = 9
G1 = np.full([4, 5], 0.5)                            # |g1|^2 = 20 * 0.25 = 5


def _clip(dtypes):
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        block = main.global_block()
        pairs = [(block.create_parameter(name="p%d" % i, shape=list(g.shape), dtype=dt),
                  block.create_parameter(name="p%d@GRAD" % i, shape=list(g.shape), dtype=dt))
                 for i, (g, dt) in enumerate(zip((G0, G1), dtypes))]
        out = paddle.nn.ClipGradByGlobalNorm(clip_norm=1.0)(pairs)
    scope = paddle.static.global_scope()
    for (p, g), value in zip(pairs, (G0, G1)):
        scope.var(g.name).get_tensor().set(value.astype(g.dtype.name), paddle.CPUPlace())
    exe = paddle.static.Executor(paddle.CPUPlace())
    clipped = exe.run(main, fetch_list=[g for _, g in out])
    return [op.type for op in block.ops], clipped


@pytest.mark.paddle("3")
def test_float16_norms_are_summed_in_float32_and_the_factor_cast_back():
    ops, clipped = _clip(["float16", "float16"])
    assert ops == ["squared_l2_norm", "squared_l2_norm", "sum", "cast", "sqrt",
                   "fill_constant", "elementwise_max", "elementwise_div", "cast",
                   "elementwise_mul", "cast", "elementwise_mul"]
    # global norm sqrt(9 + 5) = sqrt(14): each gradient times 1 / sqrt(14)
    assert clipped[0].dtype == np.float16
    np.testing.assert_allclose(clipped[0], G0 / np.sqrt(14.), rtol=2e-3)
    np.testing.assert_allclose(clipped[1], G1 / np.sqrt(14.), rtol=2e-3)
    old = _allow_pure_fp16_global_norm_clip(True)
    try:
        assert old is False and _allow_pure_fp16_global_norm_clip() is True
        ops, _ = _clip(["float16", "float16"])
        assert "cast" not in ops
    finally:
        _allow_pure_fp16_global_norm_clip(False)


@pytest.mark.paddle("3")
def test_float32_and_float64_norms_sum_in_float64():
    ops, clipped = _clip(["float32", "float64"])
    # one sum per dtype, float32's cast to float64, the two sums summed
    assert ops[:7] == ["squared_l2_norm", "squared_l2_norm", "sum", "cast", "sum", "sum",
                       "sqrt"]
    assert clipped[0].dtype == np.float32 and clipped[1].dtype == np.float64
    np.testing.assert_allclose(clipped[0], G0 / np.sqrt(14.), rtol=1e-6)
    np.testing.assert_allclose(clipped[1], G1 / np.sqrt(14.), rtol=1e-12)


@pytest.mark.paddle("2.0")
def test_2_0_sums_float16_norms_in_float16():
    ops, clipped = _clip(["float16", "float16"])
    assert "cast" not in ops and clipped[0].dtype == np.float16
    np.testing.assert_allclose(clipped[1], G1 / np.sqrt(14.), rtol=2e-3)
