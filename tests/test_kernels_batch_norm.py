"""The batch_norm kernels (Cython, CuPy) read the op's arguments through
_kernels.batch_norm_args, a copy of refimpl.ops.batch_norm's rules (kernels do not import
ops): the two must agree, and the Cython kernel must follow them."""
import itertools

import numpy as np
import pytest

from refimpl._kernels import batch_norm_args
from refimpl.ops import batch_norm as spec


def test_kernel_argument_rules_are_the_ops_rules():
    for is_test, use_global, trainable in itertools.product((False, True), repeat=3):
        assert batch_norm_args.uses_running_stats(is_test, use_global, trainable) == \
            spec.uses_running_stats(is_test, use_global, trainable)
    assert batch_norm_args.uses_running_stats(True, False, False)
    assert not batch_norm_args.uses_running_stats(True, False, True)
    tensor = np.array([0.25])
    for given, used in ((None, True), (tensor, True), (tensor, False)):
        assert batch_norm_args.momentum_of(given, 0.9, used) == \
            spec.momentum_of(given, 0.9, used)
    assert batch_norm_args.momentum_of(tensor, 0.9, True) == 0.25
    # the attr as bound: 32-bit already (ops/registry.py round_float32_attrs)
    assert batch_norm_args.momentum_of(tensor, 0.9, False) == 0.9


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("backend", ["cython", "numpy"])
def test_running_mean_updates_with_the_32_bit_momentum_attr(dygraph, monkeypatch, dtype,
                                                            backend):
    # Paddle's momentum attr is a 32-bit float: from 0 with a batch mean of 1 the running
    # mean becomes 1 - float32(0.9) = 0.10000002384185791 (Paddle 3.3.1, measured, in
    # float32 and in float64), not 0.1
    monkeypatch.setenv("REFIMPL_KERNELS", backend)
    import refimpl as paddle
    paddle.set_default_dtype(dtype)
    try:
        bn = paddle.nn.BatchNorm2D(1, momentum=0.9)
    finally:
        paddle.set_default_dtype("float32")
    bn.train()
    bn(paddle.to_tensor(np.ones((2, 1, 1, 1), dtype)))
    assert bn._mean.dtype == getattr(paddle, dtype)
    assert bn._mean.numpy()[0] == np.dtype(dtype).type(0.10000002384185791)


def test_cython_kernel_updates_running_stats_with_the_momentum_tensor():
    kernels = pytest.importorskip("refimpl._kernels.batch_norm")
    rng = np.random.RandomState(0)
    x = rng.randn(4, 3, 2, 2)
    scale, bias = rng.rand(3) + 0.5, rng.randn(3)
    mean, variance = np.zeros(3), np.ones(3)
    out = kernels.batch_norm_forward(x, scale, bias, mean.copy(), variance.copy(),
                                     momentum_tensor=np.array([0.25]), momentum=0.9)
    y, mean_out, var_out = out[0], out[1], out[2]
    batch_mean = x.mean(axis=(0, 2, 3))
    batch_var = x.var(axis=(0, 2, 3))
    np.testing.assert_allclose(mean_out, 0.25 * mean + 0.75 * batch_mean, rtol=1e-12)
    np.testing.assert_allclose(var_out, 0.25 * variance + 0.75 * batch_var, rtol=1e-12)
    want = (x - batch_mean[None, :, None, None]) / np.sqrt(
        batch_var[None, :, None, None] + 1e-5) * scale[None, :, None, None] \
        + bias[None, :, None, None]
    np.testing.assert_allclose(y, want, rtol=1e-10, atol=1e-12)
    held = kernels.batch_norm_forward(x, scale, bias, mean, variance, is_test=True)
    np.testing.assert_allclose(held[0], x / np.sqrt(1 + 1e-5) * scale[None, :, None, None]
                               + bias[None, :, None, None], rtol=1e-10, atol=1e-12)
