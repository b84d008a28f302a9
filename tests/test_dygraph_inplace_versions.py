"""Paddle 2.0's in-place versions in dynamic mode (refimpl/dygraph/inplace.py): the
counter each in-place change bumps, the storage the view ops and detach share, and the
backward error for a tensor an op saved for its gradient that changed in place since.
The counts follow 2.0's test_inplace / test_detach / test_view_op_reuse_allocation; the
error texts are 2.0's basic_engine.cc and 3.3.1's (measured)."""
import numpy as np
import pytest

import refimpl as paddle
import refimpl.nn.functional as F
from refimpl import versions

pytestmark = [pytest.mark.usefixtures("dygraph"),
              pytest.mark.skipif(versions.switch("inplace_version") is None,
                                 reason="Paddle 1.8.5 has no in-place versions (measured: no "
                                        "inplace_version; views copy): switch inplace_version")]


def t(values, stop_gradient=True, dtype="float32"):
    return paddle.to_tensor(np.asarray(values, dtype), stop_gradient=stop_gradient)


def test_each_in_place_change_counts_once():
    x = t(np.ones((4, 2, 3)))
    assert x.inplace_version == 0
    x[0] = 1.1
    assert x.inplace_version == 1
    x[1:2] = t(np.full((1, 2, 3), 2.0))
    assert x.inplace_version == 2
    paddle.assign(paddle.ones([4, 2, 3]), x)      # assign into an output is a change too
    assert x.inplace_version == 3
    paddle.tanh_(x)
    assert x.inplace_version == 4
    x.reshape_([24]).squeeze_().unsqueeze_(0)     # the Tensor methods count alike
    assert x.inplace_version == 7 and x.shape == [1, 24]
    np.testing.assert_allclose(x.numpy(), np.full((1, 24), np.tanh(1.0)), rtol=1e-6)
    y = paddle.tanh(x)                            # an out-of-place op counts nothing
    assert x.inplace_version == 7 and y.inplace_version == 0


@pytest.mark.parametrize("call", [
    lambda v: paddle.reshape_(v, [-1]), lambda v: paddle.squeeze_(v),
    lambda v: paddle.unsqueeze_(v, -1), lambda v: paddle.tanh_(v), lambda v: F.relu_(v),
    lambda v: F.elu_(v), lambda v: F.softmax_(v),
    lambda v: paddle.scatter_(v, t([1, 0], dtype="int64"), t(np.ones((2, 2, 1))))])
def test_the_in_place_apis_return_their_input_one_version_on(call):
    x = t(np.arange(6.0).reshape(3, 2, 1) - 2.0)
    assert call(x) is x
    assert x.inplace_version == 1


def test_views_and_detach_share_storage_and_version():
    x = t(np.arange(6.0).reshape(2, 3, 1))
    views = [paddle.squeeze(x), paddle.reshape(x, [3, 2]), paddle.unsqueeze(x, 0),
             paddle.flatten(x), x.detach()]
    assert [v.inplace_version for v in views] == [0] * 5
    views[0][0] = 9.0                               # through one view ...
    expected = np.array([9, 9, 9, 3, 4, 5], "float32")
    for v in [x] + views:                           # ... every tensor of the storage
        np.testing.assert_array_equal(v.numpy().ravel(), expected)
        assert v.inplace_version == 1
    paddle.tanh_(views[4])                          # an in-place API on the detached one
    for v in [x] + views:
        np.testing.assert_allclose(v.numpy().ravel(), np.tanh(expected), rtol=1e-6)
        assert v.inplace_version == 2
    late = paddle.reshape(x, [6])                   # a view made later starts at the count
    assert late.inplace_version == 2
    x[0] = 0.0
    assert late.inplace_version == views[1].inplace_version == 3
    np.testing.assert_array_equal(late.numpy()[:3], [0, 0, 0])


def test_transpose_and_slices_copy():
    """Only reshape / squeeze / unsqueeze / flatten (and detach) share storage, as
    2.0's view ops; transpose and slicing make new tensors."""
    x = t(np.zeros((2, 3)))
    moved, part = paddle.transpose(x, [1, 0]), x[0]
    x[0] = 1.0
    np.testing.assert_array_equal(moved.numpy(), np.zeros((3, 2)))
    np.testing.assert_array_equal(part.numpy(), np.zeros(3))
    assert moved.inplace_version == part.inplace_version == 0


def test_a_change_before_the_op_reads_it_keeps_the_gradient_right():
    av = np.array([0.5, 1.0, 0.7])
    a = t(av, stop_gradient=False, dtype="float64")
    b = a * a
    b[1:2] = 0.3
    c = paddle.tanh_(b)                             # b = tanh(a^2), b[1] = tanh(0.3)
    (c * c).sum().backward()
    th = np.tanh(av ** 2)
    grad = 2 * th * (1 - th ** 2) * 2 * av          # d tanh(a^2)^2 / da
    grad[1] = 0.0                                   # the overwritten element
    np.testing.assert_allclose(a.gradient(), grad, rtol=1e-12)


def test_a_change_after_an_op_saved_the_tensor_is_refused(paddle_version):
    def run():
        a = t(np.ones((4, 2, 3)), stop_gradient=False)
        b = a ** 2
        c = b ** 2                                  # elementwise_pow saves b (version 0)
        view = paddle.reshape(b, [24])
        view[0:1] = 3.3                             # b changes through its view
        return b, F.relu(c + b ** 2)
    with paddle_version("2.0"):
        b, loss = run()
        with pytest.raises(RuntimeError) as raised:
            loss.backward()
    assert str(raised.value) == (
        "(PermissionDenied) Tensor '%s' used in gradient computation in grad op "
        "'elementwise_pow_grad' has been modified by an inplace operation. Its version is 1 "
        "but the expected version is 0. Please fix your code to void calling an inplace "
        "operator after using the Tensor which will used in gradient computation.\n"
        "  [Hint: Expected tensor_version == wrapper_version_snapshot, but received "
        "tensor_version:1 != wrapper_version_snapshot:0.]" % b.name)
    with paddle_version("3"):                       # 3.3.1 names no grad op
        b, loss = run()
        with pytest.raises(RuntimeError, match="Tensor '%s' used in gradient computation has "
                                               "been modified" % b.name):
            loss.backward()


def test_a_saved_output_changed_in_place_is_refused_too():
    a = t([0.5, -1.0], stop_gradient=False)
    y = paddle.tanh(a)                              # tanh's grad reads its output
    y[0] = 0.0
    # 2.0 names the grad op, 3.3.1 the tensor only (switch inplace_version)
    named = "grad op 'tanh_grad'" if versions.switch("inplace_version") == "grad_op" \
        else "Tensor '%s' used in gradient computation" % y.name
    with pytest.raises(RuntimeError, match=named + ".*version is 1 but the expected version "
                                                   "is 0"):
        y.sum().backward()


def test_ops_that_read_only_shapes_or_inputs_allow_the_change():
    a = t([1.0, 2.0], stop_gradient=False)
    b = a ** 2                                      # its grad reads a, not its output b
    c = b + b                                       # elementwise_add reads b's shape only
    b[0:1] = 7.0
    c.sum().backward()
    np.testing.assert_allclose(a.gradient(), [4.0, 8.0])


def test_leaves_that_need_a_gradient_refuse_in_place_apis_uncounted():
    x = t([1.0, 2.0], stop_gradient=False)
    with pytest.raises(ValueError, match="Leaf Tensor"):
        paddle.tanh_(x)
    assert x.inplace_version == 0


@pytest.mark.paddle("1.8")
def test_paddle_1_8_counts_no_versions_and_shares_no_storage():
    """Paddle 1.8.5 (measured): no inplace_version; assign into x reaches neither a
    reshape of x nor its detached copy; backward does not refuse (refimpl's gradient
    reads the value the op saved; 1.8.5's reads the current one: specs/dygraph.md)."""
    x = t(np.ones((2, 3)))
    assert not hasattr(x, "inplace_version")
    view, detached = paddle.reshape(x, [3, 2]), x.detach()
    paddle.assign(t(np.full((2, 3), 5.0)), x)
    np.testing.assert_array_equal(x.numpy(), np.full((2, 3), 5.0))
    np.testing.assert_array_equal(view.numpy(), np.ones((3, 2)))
    np.testing.assert_array_equal(detached.numpy(), np.ones((2, 3)))
    a = t([1.0, 2.0], stop_gradient=False)
    b = a * 2.0
    c = paddle.sum(b * b)
    paddle.assign(t([10.0, 10.0]), b)
    c.backward()
    np.testing.assert_allclose(a.gradient(), [8.0, 16.0])


@pytest.mark.parametrize("version", ["2.0", "3"])
def test_setitem_on_a_leaf_that_needs_a_gradient_by_version(paddle_version, version):
    """Paddle 2.0's VarBase.__setitem__ writes a leaf needing a gradient without recording
    the write (x stays a leaf, its version counts it: an op that saved x before refuses
    backward, as 2.0's test_var_base test_detach asserts); 3.3.1 refuses the write
    (ValueError "Leaf Tensor ... can't use inplace strategy", measured)."""
    with paddle_version(version):
        x = t([1.0, 2.0], stop_gradient=False)
        if version == "3":
            with pytest.raises(ValueError, match="Leaf Tensor .* doesn't stop gradient"):
                x[0] = 5.0
            return
        y = (2 ** x).sum()
        x[0] = 5.0
        np.testing.assert_array_equal(x.numpy(), [5.0, 2.0])
        assert x.inplace_version == 1 and x.is_leaf
        with pytest.raises(RuntimeError, match="has been modified by an inplace operation"):
            y.backward()
        (x * x).sum().backward()
        np.testing.assert_array_equal(x.grad, [10.0, 4.0])


@pytest.mark.parametrize("version", ["2.0", "3"])
def test_batch_norm_updates_running_statistics_made_trainable(paddle_version, version):
    """PaddleGAN's set_requires_grad sets `trainable` on every parameter of its
    discriminator, BatchNorm's running mean and variance too; the op still writes them in
    place (their gradient is read by no grad op) and they stay leaves without a gradient
    (Paddle 3.3.1, measured: running mean updated, `.grad` None)."""
    with paddle_version(version):
        bn = paddle.nn.BatchNorm(2, trainable_statistics=True)
        for p in bn.parameters():
            p.trainable = True
        x_np = np.arange(16, dtype="float32").reshape(2, 2, 2, 2)
        x = paddle.to_tensor(x_np, stop_gradient=False)
        bn(x).sum().backward()
        # momentum 0.9: 0.9 * 0 + 0.1 * the batch mean of each channel
        np.testing.assert_allclose(bn._mean.numpy(), 0.1 * x_np.mean(axis=(0, 2, 3)),
                                   rtol=1e-6)
        assert bn._mean.is_leaf and bn._mean.grad is None and bn._variance.grad is None
        np.testing.assert_allclose(np.asarray(bn.bias.grad), [8.0, 8.0])


def test_a_slice_needs_only_its_inputs_shape_for_its_gradient():
    # Paddle's slice / strided_slice gradients read Input's shape only (no-need-buffer):
    # changing b after b[0:2] does not stop the backward (3.3.1, its test_inplace
    # TestGetitemBeforeInplace); a tensor whose values a grad op reads still does
    a = t(np.ones((4, 2, 3)), stop_gradient=False)
    b = a ** 2
    b[0] = 3
    loss = b[0:2].sum() + b[::-2].sum()
    b[1] = 2
    loss.backward()
    grad = np.zeros((4, 2, 3))
    grad[1] = 4         # rows 0, 1 and (b[::-2]) 3, 1; b[0] was overwritten: a constant
    grad[3] = 2
    np.testing.assert_array_equal(a.gradient(), grad)
    c = a * 1
    d = c * c
    c[0] = 5
    with pytest.raises(RuntimeError, match="has been modified by an inplace operation"):
        d.sum().backward()


def test_the_in_place_tensor_methods_change_the_tensor_one_version_on():
    # Paddle 3's x.<op>_(...) (tensor_methods.INPLACE_UNARY / INPLACE_BINARY), values as
    # 3.3.1 gives them for the same calls
    x = t([-3.0, 11.0, -2.0, 3.0], dtype="float64")
    assert x.remainder_(t([-1.0, 2.0, 3.0, -2.0], dtype="float64")) is x
    np.testing.assert_array_equal(x.numpy(), [0.0, 1.0, 1.0, -1.0])
    x.clip_(0.0, 5.0).scale_(2.0, 1.0)
    np.testing.assert_array_equal(x.numpy(), [1.0, 3.0, 3.0, 1.0])
    x.add_(t(np.ones(4), dtype="float64")).multiply_(t([2.0], dtype="float64"))
    np.testing.assert_array_equal(x.numpy(), [4.0, 8.0, 8.0, 4.0])
    x.sqrt_().subtract_(t(2.0, dtype="float64"))
    np.testing.assert_allclose(x.numpy(), [0.0, 2 ** 1.5 - 2, 2 ** 1.5 - 2, 0.0])
    assert x.inplace_version == 7
    rows = t(np.ones((2, 3)))
    rows.divide_(t([1.0, 2.0, 4.0]))                # y broadcasts to x's shape: allowed
    np.testing.assert_array_equal(rows.numpy(), [[1.0, 0.5, 0.25]] * 2)


def test_in_place_methods_keep_gradients_and_refuse_other_shapes_and_leaves():
    a = t([1.0, 4.0], stop_gradient=False)
    b = a * 1.0
    b.sqrt_()                                        # d sqrt(a) / da = 1 / (2 sqrt(a))
    b.sum().backward()
    np.testing.assert_allclose(a.gradient(), [0.5, 0.25])
    x = t([1.0, 2.0])
    with pytest.raises(ValueError, match=r"broadcast output \[2, 2\] is different from that "
                                         r"of inplace tensor \[2\]"):
        x.add_(t(np.ones((2, 2))))
    assert x.inplace_version == 0
    leaf = t([1.0, 2.0], stop_gradient=False)
    with pytest.raises(ValueError, match="Leaf Tensor"):
        leaf.exp_()
    assert leaf.inplace_version == 0


@pytest.mark.parametrize("version", ["2.0", "3"])
def test_continuous_in_place_changes_backpropagate_under_3(paddle_version, version):
    """3.3.1's in-place APIs copy an input their gradient reads, so b.abs_().abs_() after
    b = a ** 2 backpropagates (its test_inplace's test_continuous_inplace_backward); 2.0's
    in-place op reads b itself, whose second change fails the first's gradient (switch
    inplace_input). A tensor saved by another op still refuses (both)."""
    with paddle_version(version):
        a = t([-1.5, 2.0], stop_gradient=False)
        b = a ** 2
        c = paddle.sin_(b)
        d = paddle.sin_(c)
        if version == "2.0":
            with pytest.raises(RuntimeError, match="modified by an inplace operation"):
                d.sum().backward()
        else:
            d.sum().backward()
            av = np.array([-1.5, 2.0], "float32")
            expected = np.cos(np.sin(av ** 2)) * np.cos(av ** 2) * 2 * av
            np.testing.assert_allclose(a.gradient(), expected, rtol=1e-5)
            assert b.inplace_version == 2
        e = t([1.0, 2.0], stop_gradient=False) * 1
        f = e * e
        paddle.cos_(e)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            f.sum().backward()
