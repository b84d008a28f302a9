"""F.scaled_dot_product_attention, 3.3.1's math path (its CPU backend): a numpy reference,
values recorded on 3.3.1, masks, causal, grouped-query heads, unbatched inputs, dropout,
gradients by finite differences, static == dynamic."""
import numpy as np
import pytest

import refimpl as paddle
import refimpl.nn.functional as F

from helpers import central_differences
from test_functional_loss import run

pytestmark = pytest.mark.paddle("3")


def reference(q, k, v, mask=None, causal=False, scale=None):
    """[B, S, H, D] attention; causal adds -1e4 above the diagonal (3.3.1's math path)."""
    q, k, v = (a.transpose(0, 2, 1, 3) for a in (q, k, v))
    s = q @ k.transpose(0, 1, 3, 2) * (scale or 1 / np.sqrt(q.shape[-1]))
    if causal:
        s = s + np.triu(np.full(s.shape[-2:], -1e4), 1)
    elif mask is not None:
        s = s + mask
    p = np.exp(s - s.max(-1, keepdims=True))
    return (p / p.sum(-1, keepdims=True) @ v).transpose(0, 2, 1, 3)


def qkv(*shapes, dtype="float32"):
    rs = np.random.RandomState(0)
    return [rs.rand(*shape).astype(dtype) for shape in shapes]


def test_values_match_3_3_1_and_numpy(dygraph):
    q, k, v = qkv((1, 3, 2, 4), (1, 3, 2, 4), (1, 3, 2, 4))
    out = F.scaled_dot_product_attention(*map(paddle.to_tensor, (q, k, v))).numpy()
    np.testing.assert_allclose(out.ravel()[:6], [0.38819975, 0.3290125, 0.61681485,
                                                 0.26474398, 0.6169626, 0.10373996],
                               rtol=1e-6)                                 # 3.3.1
    np.testing.assert_allclose(out, reference(q, k, v), rtol=1e-6)
    tq, tk, tv = map(paddle.to_tensor, (q, k, v))
    np.testing.assert_allclose(F.scaled_dot_product_attention(tq, tk, tv, scale=0.3).numpy(),
                               reference(q, k, v, scale=0.3), rtol=1e-6)
    causal = F.scaled_dot_product_attention(tq, tk, tv, is_causal=True).numpy()
    np.testing.assert_allclose(causal, reference(q, k, v, causal=True), rtol=1e-6)
    assert np.allclose(causal[:, 0], v[:, 0])   # the first query sees the first key only


def test_masks_float_and_bool(dygraph):
    q, k, v, m = qkv((2, 3, 2, 4), (2, 3, 2, 4), (2, 3, 2, 4), (1, 1, 3, 3))
    tq, tk, tv = map(paddle.to_tensor, (q, k, v))
    got = F.scaled_dot_product_attention(tq, tk, tv, attn_mask=paddle.to_tensor(m))
    np.testing.assert_allclose(got.numpy(), reference(q, k, v, mask=m), rtol=1e-6)
    keep = np.array([[[[True, False, True], [True, True, False], [False, True, True]]]])
    got = F.scaled_dot_product_attention(tq, tk, tv, attn_mask=paddle.to_tensor(keep))
    np.testing.assert_allclose(got.numpy(), reference(q, k, v, np.where(keep, 0, -np.inf)),
                               rtol=1e-6)
    # is_causal ignores attn_mask on 3.3.1's math path
    np.testing.assert_array_equal(
        F.scaled_dot_product_attention(tq, tk, tv, paddle.to_tensor(m), is_causal=True).numpy(),
        F.scaled_dot_product_attention(tq, tk, tv, is_causal=True).numpy())


def test_grouped_query_heads_and_unbatched(dygraph):
    q, k, v = qkv((1, 3, 4, 4), (1, 5, 2, 4), (1, 5, 2, 4))
    got = F.scaled_dot_product_attention(*map(paddle.to_tensor, (q, k, v)))
    want = reference(q, np.repeat(k, 2, axis=2), np.repeat(v, 2, axis=2))
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-6)
    unbatched = F.scaled_dot_product_attention(*(paddle.to_tensor(a[0]) for a in (q, k, v)))
    assert unbatched.shape == [3, 4, 4]
    np.testing.assert_allclose(unbatched.numpy(), want[0], rtol=1e-6)
    with pytest.raises(AssertionError, match="must be a multiple of the key's 3"):
        F.scaled_dot_product_attention(paddle.to_tensor(q), paddle.ones([1, 5, 3, 4]),
                                       paddle.ones([1, 5, 3, 4]))
    with pytest.raises(AssertionError, match="as many heads without enable_gqa"):
        F.scaled_dot_product_attention(*map(paddle.to_tensor, (q, k, v)), enable_gqa=False)
    with pytest.raises(ValueError, match=r"query must be \[batch, seq_len"):
        F.scaled_dot_product_attention(paddle.ones([4, 4]), paddle.ones([4, 4]),
                                       paddle.ones([4, 4]))


def test_dropout_only_while_training(dygraph):
    q, k, v = qkv((2, 4, 2, 8), (2, 4, 2, 8), (2, 4, 2, 8))
    tq, tk, tv = map(paddle.to_tensor, (q, k, v))
    evaluated = F.scaled_dot_product_attention(tq, tk, tv, dropout_p=0.5, training=False)
    np.testing.assert_allclose(evaluated.numpy(), reference(q, k, v), rtol=1e-6)
    paddle.seed(3)
    trained = F.scaled_dot_product_attention(tq, tk, tv, dropout_p=0.999)
    assert np.abs(trained.numpy()).max() < np.abs(evaluated.numpy()).max()


def test_gradient_and_static_mode():
    q, k, v = qkv((1, 3, 2, 2), (1, 3, 2, 2), (1, 3, 2, 2), dtype="float64")
    static_out = run(lambda a, b, c: F.scaled_dot_product_attention(a, b, c, is_causal=True),
                     a=q, b=k, c=v)
    # a program holds the scale op's factor 1/sqrt(2) as a 32-bit FLOAT (as 3.3.1's legacy
    # IR does), the eager scale keeps the double: 1e-9 apart
    np.testing.assert_allclose(static_out, reference(q, k, v, causal=True), rtol=1e-8)
    paddle.disable_static()
    tq, tk, tv = (paddle.to_tensor(a, stop_gradient=False) for a in (q, k, v))
    out = F.scaled_dot_product_attention(tq, tk, tv, is_causal=True)
    np.testing.assert_allclose(out.numpy(), reference(q, k, v, causal=True), rtol=1e-12)
    np.testing.assert_allclose(out.numpy(), static_out, rtol=1e-8)
    (out * out).sum().backward()
    for tensor, which in ((tq, 0), (tk, 1), (tv, 2)):
        def loss(a, which=which):
            args = [q, k, v]
            args[which] = a
            return (reference(*args, causal=True) ** 2).sum()
        np.testing.assert_allclose(tensor.gradient(), central_differences(loss, (q, k, v)[which]),
                                   rtol=1e-6, atol=1e-9)
