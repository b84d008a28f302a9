"""nn.BatchNorm with param_attr / bias_attr False: no trainable scale or shift, y the
normalized x (Paddle 3.3.1 runs batch_norm without Scale / Bias; refimpl keeps fixed ones
and zeros as BatchNorm2D(weight_attr=False) does): same values and gradients."""
import numpy as np

import refimpl as paddle


def test_batch_norm_without_scale_and_bias_normalizes():
    paddle.disable_static()
    x_np = np.random.RandomState(3).randn(4, 3, 2, 2).astype("float32")
    out = {}
    for name, layer in (("v1", paddle.nn.BatchNorm(3, param_attr=False, bias_attr=False)),
                        ("v2", paddle.nn.BatchNorm2D(3, weight_attr=False, bias_attr=False))):
        x = paddle.to_tensor(x_np, stop_gradient=False)
        y = layer(x)
        (y * paddle.to_tensor(np.arange(48, dtype="float32").reshape(4, 3, 2, 2))).sum() \
            .backward()
        out[name] = (y.numpy(), x.gradient())
        assert [p.name for p in layer.parameters() if not p.stop_gradient] == []
    mean = x_np.mean(axis=(0, 2, 3), keepdims=True)
    var = x_np.var(axis=(0, 2, 3), keepdims=True)
    np.testing.assert_allclose(out["v1"][0], (x_np - mean) / np.sqrt(var + 1e-5), rtol=1e-4,
                               atol=1e-5)
    np.testing.assert_allclose(out["v1"][0], out["v2"][0], rtol=1e-6)
    np.testing.assert_allclose(out["v1"][1], out["v2"][1], rtol=1e-5)
