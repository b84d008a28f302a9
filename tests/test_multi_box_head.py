"""fluid.layers.multi_box_head (Paddle 1.8): SSD's prediction head, checked against Paddle
1.8.5 with every parameter set to the same values (specs/ops/detection.md)."""
import numpy as np
import pytest

from refimpl import fluid

pytestmark = pytest.mark.paddle("1.8")


def _run(maps, **kwargs):
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        image = fluid.data("image", [2, 3, 32, 32], "float32")
        inputs = [fluid.data("f%d" % i, [2, 4, 8 >> i, 8 >> i], "float32")
                  for i in range(maps)]
        outs = fluid.layers.multi_box_head(inputs, image, num_classes=3, **kwargs)
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup)
    params = sorted((p.name, tuple(p.shape)) for p in main.global_block().all_parameters())
    scope = fluid.global_scope()
    for name, shape in params:
        value = np.cos(np.arange(int(np.prod(shape)))) * 0.1
        scope.find_var(name).get_tensor().set(value.reshape(shape).astype("float32"),
                                              fluid.CPUPlace())
    feed = {"image": np.zeros((2, 3, 32, 32), "float32")}
    for i in range(maps):
        size = 8 >> i
        feed["f%d" % i] = np.sin(np.arange(2 * 4 * size * size)).reshape(
            2, 4, size, size).astype("float32")
    return params, exe.run(main, feed=feed, fetch_list=list(outs)), outs


def _check(results, expected):
    for value, (shape, head, total) in zip(results, expected):
        assert value.shape == shape
        np.testing.assert_allclose(value.ravel()[:len(head)], head, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(value.sum(), total, rtol=1e-4)


def test_three_maps_with_sizes_from_ratios_as_paddle_185():
    params, results, outs = _run(3, base_size=32, aspect_ratios=[[2.], [2., 3.], [2.]],
                                 min_ratio=20, max_ratio=90, clip=True)
    assert [p for p, _ in params] == ["conv2d_%d.%s_0" % (i, k) for i in range(6)
                                      for k in ("b", "w")]
    assert [shape for name, shape in params if name.endswith("w_0")] == [
        (16, 4, 1, 1), (12, 4, 1, 1), (24, 4, 1, 1), (18, 4, 1, 1), (16, 4, 1, 1),
        (12, 4, 1, 1)]
    head = [0.154842, 0.122601, -0.186098, 0.021312, -0.078162, -0.075215]
    _check(results, [((2, 368, 4), head, 8.1485), ((2, 368, 3), head, -7.3024),
                     ((368, 4), [0.0125, 0.0125, 0.1125, 0.1125, 0.0, 0.027145], 736.0),
                     ((368, 4), [0.1, 0.1, 0.2, 0.2, 0.1, 0.1], 220.8)])
    assert outs[2].stop_gradient and outs[3].stop_gradient


def test_one_map_keeps_its_shapes_as_paddle_185():
    _, results, _ = _run(1, base_size=32, aspect_ratios=[[2.]], min_sizes=[8.],
                         max_sizes=[16.], steps=[4.])
    head = [0.154842, 0.122601, -0.186098, 0.021312, -0.078162, -0.075215]
    _check(results, [((2, 1024), head, 9.2647), ((2, 768), head, -5.4774),
                     ((8, 8, 4, 4), [-0.0625, -0.0625, 0.1875, 0.1875, -0.114277, -0.025888],
                      512.0),
                     ((8, 8, 4, 4), [0.1, 0.1, 0.2, 0.2, 0.1, 0.1], 153.6)])


def test_two_maps_with_kernel_3_and_min_max_order_as_paddle_185():
    _, results, _ = _run(2, base_size=32, aspect_ratios=[2., [3.]],
                         min_sizes=[[4., 6.], 8.], max_sizes=[[10., 12.], 16.], kernel_size=3,
                         pad=1, min_max_aspect_ratios_order=True)
    head = [0.046061, 0.134876, -0.008367, -0.188354, -0.075744, 0.120378]
    _check(results, [((2, 576, 4), head, 8.5202), ((2, 576, 3), head, -9.2701),
                     ((576, 4), [0.0, 0.0, 0.125, 0.125, -0.036321, -0.036321], 1152.0),
                     ((576, 4), [0.1, 0.1, 0.2, 0.2, 0.1, 0.1], 345.6)])


def test_multi_box_head_checks_its_arguments():
    with fluid.program_guard(fluid.Program()):
        image = fluid.data("image", [2, 3, 32, 32], "float32")
        maps = [fluid.data("f%d" % i, [2, 4, 4, 4], "float32") for i in range(2)]
        with pytest.raises(ValueError, match="list or tuple"):
            fluid.layers.multi_box_head(maps[0], image, 32, 3, [[2.]], min_sizes=[4.],
                                        max_sizes=[8.])
        with pytest.raises(ValueError, match="min_sizes and max_sizes"):
            fluid.layers.multi_box_head(maps, image, 32, 3, [[2.], [2.]])
        with pytest.raises(ValueError, match="aspect_ratios must be .* 2 entries"):
            fluid.layers.multi_box_head(maps, image, 32, 3, [[2.]], min_sizes=[4., 8.],
                                        max_sizes=[8., 16.])


def test_unknown_batch_builds_as_paddle_185():
    """Paddle 1.8.5's test_detection case: a 0 in reshape copying the unknown batch dim."""
    with fluid.program_guard(fluid.Program(), fluid.Program()):
        images = fluid.data("pixel", [-1, 3, 64, 64], "float32")
        maps = [fluid.layers.conv2d(images, 3, 3, 2)]
        for _ in range(2):
            maps.append(fluid.layers.conv2d(maps[-1], 3, 3, 2))
        locs, confs, box, var = fluid.layers.multi_box_head(
            maps, images, base_size=64, num_classes=21, min_ratio=20, max_ratio=90,
            aspect_ratios=[[2.], [2., 3.], [2.]])
    assert list(locs.shape) == [-1, -1, 4] and list(confs.shape) == [-1, -1, 21]
    assert list(box.shape) == list(var.shape) and box.shape[1] == 4
