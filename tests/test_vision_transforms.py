"""refimpl.vision.transforms: hand-derived values on tiny images, direct formulas, seeded
random transforms, and the errors for bad arguments."""
import random

import numpy as np
import pytest

import refimpl as paddle
from refimpl.vision import transforms as T
from refimpl.vision.transforms import functional as F


@pytest.fixture
def img():
    """3x4 RGB uint8 image with distinct values."""
    return np.arange(36, dtype=np.uint8).reshape(3, 4, 3) * 7


def test_namespace_has_all_33_names():
    names = ("adjust_brightness adjust_contrast adjust_hue adjust_saturation BaseTransform "
             "BrightnessTransform center_crop CenterCrop ColorJitter Compose ContrastTransform crop"
             " Grayscale hflip HueTransform Normalize normalize Pad pad RandomCrop "
             "RandomHorizontalFlip RandomResizedCrop RandomRotation RandomVerticalFlip Resize "
             "resize rotate SaturationTransform to_grayscale to_tensor ToTensor Transpose "
             "vflip").split()
    assert len(names) == 33
    assert sorted(T.__all__) == sorted(names)
    assert paddle.vision.transforms.hflip is F.hflip


# ---- to_tensor / ToTensor / Normalize / Transpose

def test_to_tensor_scales_uint8_and_moves_channels_first(img):
    out = F.to_tensor(img)
    assert out.dtype == np.float32 and out.shape == (3, 3, 4)
    np.testing.assert_allclose(out[1, 2, 3], img[2, 3, 1] / 255.0, rtol=1e-6)
    np.testing.assert_allclose(F.to_tensor(img, "HWC"), img / 255.0, rtol=1e-6)
    assert F.to_tensor(img[:, :, 0]).shape == (1, 3, 4)
    floats = img.astype(np.float64)
    np.testing.assert_array_equal(T.ToTensor()(floats), floats.transpose(2, 0, 1))
    with pytest.raises(ValueError, match="data_format should be 'CHW' or 'HWC'; got 'NCHW'"):
        F.to_tensor(img, "NCHW")
    with pytest.raises(TypeError, match="to_tensor: img should be a numpy.ndarray.*got list"):
        F.to_tensor([[1, 2]])


def test_normalize_per_channel(img):
    chw = img.transpose(2, 0, 1)
    out = F.normalize(chw, [1, 2, 3], [2, 4, 8])
    assert out.dtype == np.float32
    np.testing.assert_allclose(out[2, 1, 0], (chw[2, 1, 0] - 3) / 8.0)
    hwc = F.normalize(img.astype(np.float64), [1, 2, 3], [2, 4, 8], data_format="HWC")
    np.testing.assert_allclose(hwc, out.transpose(1, 2, 0))
    # to_rgb reverses the channels before normalising
    np.testing.assert_allclose(F.normalize(chw, 0, 1, to_rgb=True), chw[::-1])
    np.testing.assert_allclose(T.Normalize(10, 5)(chw), (chw - 10.0) / 5.0, rtol=1e-6)
    with pytest.raises(ValueError, match="mean has 2 values but the CHW image has 3 channels"):
        F.normalize(chw, [1, 2], [1, 1])


def test_normalize_gives_a_two_d_image_its_channel_axis():
    # Paddle 3.3.1's facts: an (H, W) image (MNIST's arrays, an 'L' image) comes back
    # (C, H, W) in either data format, C the number of CHW means
    gray = np.arange(12, dtype=np.uint8).reshape(3, 4)
    for data_format in ("CHW", "HWC"):
        out = F.normalize(gray, [127.5], [127.5], data_format=data_format)
        assert out.shape == (1, 3, 4) and out.dtype == np.float32
        np.testing.assert_allclose(out[0, 0, :2], [-1.0, -0.99215686], rtol=1e-6)
    three = T.Normalize([1.0, 2.0, 3.0], [1.0, 2.0, 3.0])(gray)
    assert three.shape == (3, 3, 4)
    np.testing.assert_allclose(three[:, 0, 1], [0.0, -0.5, -2.0 / 3.0], rtol=1e-6)
    with pytest.raises(ValueError, match="mean has 3 values"):
        F.normalize(gray, [1.0, 2.0, 3.0], [1.0, 2.0, 3.0], data_format="HWC")


def test_transpose(img):
    assert T.Transpose()(img).shape == (3, 3, 4)
    np.testing.assert_array_equal(T.Transpose((1, 0, 2))(img), img.transpose(1, 0, 2))
    assert T.Transpose()(img[:, :, 0]).shape == (1, 3, 4)
    with pytest.raises(ValueError, match=r"order \(0, 1\) is not a permutation of the 3 axes"):
        T.Transpose((0, 1))(img)


# ---- geometry: flips, crops, pads

def test_flips_are_exact(img):
    np.testing.assert_array_equal(F.hflip(img), img[:, ::-1])
    np.testing.assert_array_equal(F.vflip(img), img[::-1])
    np.testing.assert_array_equal(F.hflip(img[:, :, 0]), img[:, ::-1, 0])
    out = F.hflip(img)
    out[0, 0, 0] = 1
    assert img[0, 3, 0] == 63  # a copy: the input is untouched


def test_crop_and_its_errors(img):
    np.testing.assert_array_equal(F.crop(img, 1, 2, 2, 2), img[1:3, 2:4])
    with pytest.raises(ValueError, match=r"box \(top=2, left=0, height=2, width=1\) does not "
                                         r"fit in the 3x4 image"):
        F.crop(img, 2, 0, 2, 1)
    with pytest.raises(ValueError, match="does not fit"):
        F.crop(img, -1, 0, 1, 1)


def test_center_crop_offsets_round_halves_to_even():
    image = np.arange(30).reshape(5, 6)
    # (5 - 2) / 2 = 1.5 -> 2, (6 - 3) / 2 = 1.5 -> 2 (Python's round)
    np.testing.assert_array_equal(F.center_crop(image, (2, 3)), image[2:4, 2:5])
    # (5 - 4) / 2 = 0.5 -> 0
    np.testing.assert_array_equal(F.center_crop(image, 4), image[0:4, 1:5])
    np.testing.assert_array_equal(T.CenterCrop(3)(image), image[1:4, 2:5])
    with pytest.raises(ValueError, match=r"output_size \(6, 6\) is larger than the 5x6 image"):
        F.center_crop(image, 6)
    with pytest.raises(TypeError, match="output_size should be an int or a \\(height, width\\) "
                                        "pair of ints; got 'a'"):
        F.center_crop(image, "a")


def test_pad_modes_match_the_documented_examples():
    row = np.array([[1, 2, 3, 4]], dtype=np.uint8)
    pad2 = (2, 0)  # left/right 2, top/bottom 0
    np.testing.assert_array_equal(F.pad(row, pad2, padding_mode="reflect")[0],
                                  [3, 2, 1, 2, 3, 4, 3, 2])
    np.testing.assert_array_equal(F.pad(row, pad2, padding_mode="symmetric")[0],
                                  [2, 1, 1, 2, 3, 4, 4, 3])
    np.testing.assert_array_equal(F.pad(row, pad2, padding_mode="edge")[0],
                                  [1, 1, 1, 2, 3, 4, 4, 4])
    np.testing.assert_array_equal(F.pad(row, pad2, fill=9)[0], [9, 9, 1, 2, 3, 4, 9, 9])


def test_pad_constant_with_per_channel_fill(img):
    out = F.pad(img, (1, 2, 3, 0), fill=(5, 6, 7))  # left, top, right, bottom
    assert out.shape == (5, 8, 3)
    np.testing.assert_array_equal(out[2:, 1:5], img)
    np.testing.assert_array_equal(out[0, 0], [5, 6, 7])
    np.testing.assert_array_equal(out[4, 7], [5, 6, 7])
    # Paddle 3.3.1 (PIL backend): pad(rgb, 1, fill=7) gives border pixels (7, 0, 0)
    np.testing.assert_array_equal(T.Pad(1, fill=7)(img)[0, 0], [7, 0, 0])
    np.testing.assert_array_equal(F.pad(img[..., :1], 1, fill=7)[0, 0], [7])
    with pytest.raises(TypeError, match="padding should be an int or a list/tuple of 2 or 4 ints"):
        F.pad(img, (1, 2, 3))
    with pytest.raises(ValueError, match="padding_mode should be one of"):
        T.Pad(1, padding_mode="wrap")
    with pytest.raises(ValueError, match=r"fill should be a number or one value per channel \(3\)"):
        F.pad(img, 1, fill=(1, 2))


# ---- resize

def _bilinear_reference(image, out_h, out_w):
    """Direct bilinear interpolation at half-pixel centres, edges clamped (upscaling)."""
    h, w = image.shape[:2]
    out = np.empty((out_h, out_w) + image.shape[2:])
    for i in range(out_h):
        y = min(max((i + 0.5) * h / out_h - 0.5, 0), h - 1)
        y0 = int(np.floor(y)); y1 = min(y0 + 1, h - 1); fy = y - y0
        for j in range(out_w):
            x = min(max((j + 0.5) * w / out_w - 0.5, 0), w - 1)
            x0 = int(np.floor(x)); x1 = min(x0 + 1, w - 1); fx = x - x0
            out[i, j] = ((1 - fy) * ((1 - fx) * image[y0, x0] + fx * image[y0, x1])
                         + fy * ((1 - fx) * image[y1, x0] + fx * image[y1, x1]))
    return out


def test_resize_upscaling_is_bilinear(img):
    floats = img.astype(np.float64)
    for size in [(6, 8), (5, 7), (3, 9)]:
        np.testing.assert_allclose(F.resize(floats, size), _bilinear_reference(floats, *size),
                                   rtol=1e-12, atol=1e-12)
    # uint8 rounds to nearest (within 0.5 of the exact value)
    out = F.resize(img, (7, 10))
    assert out.dtype == np.uint8
    assert np.abs(out - _bilinear_reference(img.astype(np.float64), 7, 10)).max() <= 0.5


def test_resize_downscaling_averages_with_a_widened_triangle():
    row = np.array([[0.0, 4.0, 8.0, 16.0]])
    # Halving: output pixel 0 is centred at 1.0; weights 0.75, 0.75, 0.25 on pixels 0, 1, 2
    # (pixel -1 is outside), normalised.
    expected = [(0.75 * 0 + 0.75 * 4 + 0.25 * 8) / 1.75, (0.25 * 4 + 0.75 * 8 + 0.75 * 16) / 1.75]
    np.testing.assert_allclose(F.resize(row, (1, 2))[0], expected)


def test_resize_int_size_keeps_aspect_and_nearest_picks_pixels(img):
    assert F.resize(img, 6).shape == (6, 8, 3)           # shorter side (height 3) -> 6
    assert F.resize(img, 3) is img                       # already that size
    assert F.resize(img[:, :3], 5).shape == (5, 5, 3)
    np.testing.assert_array_equal(F.resize(img, (6, 8), "nearest"),
                                  img.repeat(2, axis=0).repeat(2, axis=1))
    np.testing.assert_array_equal(F.resize(img, (3, 2), "nearest"), img[:, [1, 3]])
    assert T.Resize((2, 5))(img[:, :, 0]).shape == (2, 5)
    with pytest.raises(TypeError, match="size should be an int or a \\(height, width\\) pair"):
        F.resize(img, (1, 2, 3))
    with pytest.raises(TypeError, match="Resize: size should be"):
        T.Resize("big")
    with pytest.raises(ValueError, match="interpolation should be one of .*got 'box'"):
        F.resize(img, 4, "box")


def _cubic(x):
    """PIL's bicubic kernel (a = -0.5), written out for positive x."""
    return 1.5 * x ** 3 - 2.5 * x ** 2 + 1 if x < 1 else -0.5 * x ** 3 + 2.5 * x ** 2 - 4 * x + 2


def test_resize_bicubic_weights_are_the_cubic_kernel_normalised_inside_the_image():
    # PaddleGAN's configs resize with interpolation 'bicubic'. Doubling [0, 4, 8, 16]:
    # output 3 is centred at 1.75, pixels 0..3 (centres 0.5..3.5) sit 1.25, 0.25, 0.75, 1.75
    # away (weights sum to 1); output 2 (centre 1.25) loses pixel -1 and is renormalised.
    row = np.array([[0.0, 4.0, 8.0, 16.0]])
    out = F.resize(row, (1, 8), "bicubic")[0]
    assert out[3] == pytest.approx(4 * _cubic(0.25) + 8 * _cubic(0.75) + 16 * _cubic(1.75))
    w = [_cubic(0.75), _cubic(0.25), _cubic(1.25)]
    assert out[2] == pytest.approx((4 * w[1] + 8 * w[2]) / sum(w))
    # Overshoot saturates in uint8: a step overshoots below 0 and above 255
    step = np.array([[0, 0, 255, 255]], np.uint8)
    up = F.resize(step, (1, 8), "bicubic")[0]
    np.testing.assert_array_equal(up[[0, 1, 2, 5, 6, 7]], [0, 0, 0, 255, 255, 255])
    assert up.dtype == np.uint8
    # Halving widens the kernel by 2: output 0 (centre 1.0) weighs pixels 0..2 by
    # cubic(0.25), cubic(0.25), cubic(0.75) (pixel -1 is outside)
    half = F.resize(np.array([[0.0, 4.0, 8.0, 16.0]]), (1, 2), "bicubic")[0]
    w = [_cubic(0.25), _cubic(0.25), _cubic(0.75), _cubic(1.25)]
    assert half[0] == pytest.approx((4 * w[1] + 8 * w[2] + 16 * w[3]) / sum(w))
    assert T.Resize((2, 6), interpolation="bicubic")(np.ones((4, 3))).tolist() == [[1.0] * 6] * 2


# ---- colour

def test_brightness_multiplies_and_saturates():
    image = np.array([[[10, 100, 200]]], dtype=np.uint8)
    np.testing.assert_array_equal(F.adjust_brightness(image, 1.5), [[[15, 150, 255]]])
    np.testing.assert_array_equal(F.adjust_brightness(image, 0.5), [[[5, 50, 100]]])
    np.testing.assert_array_equal(F.adjust_brightness(image, 0), 0)
    with pytest.raises(ValueError, match="brightness_factor should be a non-negative number"):
        F.adjust_brightness(image, -1)


def test_contrast_blends_with_the_mean_luma():
    image = np.array([[[0, 0, 0], [100, 100, 100]]], dtype=np.uint8)  # mean grey 50
    np.testing.assert_array_equal(F.adjust_contrast(image, 0), 50)
    np.testing.assert_array_equal(F.adjust_contrast(image, 2),
                                  [[[0, 0, 0], [150, 150, 150]]])  # 50 + 2 * (v - 50), >= 0
    flat = np.full((2, 2, 3), 77, np.uint8)
    np.testing.assert_array_equal(F.adjust_contrast(flat, 3), flat)


def test_to_grayscale_uses_itu_601_luma():
    image = np.array([[[10, 200, 30]]], dtype=np.uint8)  # 2.99 + 117.4 + 3.42 = 123.81
    np.testing.assert_array_equal(F.to_grayscale(image), [[[124]]])
    np.testing.assert_array_equal(T.Grayscale(3)(image), [[[124, 124, 124]]])
    np.testing.assert_allclose(F.to_grayscale(image.astype(np.float64)), [[[123.81]]])
    with pytest.raises(ValueError, match="num_output_channels should be 1 or 3; got 2"):
        F.to_grayscale(image, 2)


def test_saturation_zero_is_grey_and_one_is_identity(img):
    np.testing.assert_array_equal(F.adjust_saturation(img, 0), F.to_grayscale(img, 3))
    np.testing.assert_array_equal(F.adjust_saturation(img, 1), img)
    # 2: v -> 2 v - grey, saturated
    image = np.array([[[10, 200, 30]]], dtype=np.uint8)
    np.testing.assert_array_equal(F.adjust_saturation(image, 2), [[[0, 255, 0]]])
    np.testing.assert_array_equal(F.adjust_saturation(image, 1.5), [[[0, 238, 0]]])


def test_hue_rotates_primaries_and_round_trips():
    red = np.array([[[255, 0, 0]]], dtype=np.uint8)
    np.testing.assert_array_equal(F.adjust_hue(red, 1 / 3), [[[0, 255, 0]]])
    np.testing.assert_array_equal(F.adjust_hue(red, -1 / 3), [[[0, 0, 255]]])
    np.testing.assert_array_equal(F.adjust_hue(red, 0.5), [[[0, 255, 255]]])
    np.testing.assert_array_equal(F.adjust_hue(np.array([[[200, 100, 50]]], np.uint8), 1 / 6),
                                  [[[150, 200, 50]]])  # h 20 deg -> 80 deg, same s and v
    image = np.random.RandomState(0).randint(0, 256, (5, 6, 3)).astype(np.uint8)
    np.testing.assert_array_equal(F.adjust_hue(image, 0), image)
    back = F.adjust_hue(F.adjust_hue(image, 0.2), -0.2)
    assert np.abs(back.astype(int) - image).max() <= 1
    floats = image / 255.0
    np.testing.assert_allclose(F.adjust_hue(F.adjust_hue(floats, 0.3), -0.3), floats, atol=1e-12)
    gray = np.full((2, 2, 3), 90, np.uint8)
    np.testing.assert_array_equal(F.adjust_hue(gray, 0.4), gray)
    with pytest.raises(ValueError, match=r"hue_factor should be in \[-0.5, 0.5\]; got 0.6"):
        F.adjust_hue(image, 0.6)


# ---- rotate

def test_rotate_multiples_of_90_are_exact(img):
    square = np.arange(16, dtype=np.uint8).reshape(4, 4)
    np.testing.assert_array_equal(F.rotate(square, 90), np.rot90(square))  # counter-clockwise
    np.testing.assert_array_equal(F.rotate(square, -90), np.rot90(square, -1))
    np.testing.assert_array_equal(F.rotate(img, 180), img[::-1, ::-1])
    np.testing.assert_array_equal(F.rotate(img, 90, expand=True), np.rot90(img))
    # the generic path (explicit centre) agrees with the shortcut
    np.testing.assert_array_equal(F.rotate(square, 90, center=(2, 2)), np.rot90(square))


def test_rotate_fills_outside_and_expands():
    square = np.full((4, 4, 3), 50, np.uint8)
    out = F.rotate(square, 45, fill=(1, 2, 3))
    np.testing.assert_array_equal(out[0, 0], [1, 2, 3])    # the corner comes from outside
    np.testing.assert_array_equal(out[1:3, 1:3], 50)       # the middle stays inside
    # expand: the rotated square spans 2 +- 2 sqrt(2) = [-0.83, 4.83] -> 5 - (-1) = 6
    assert F.rotate(square, 45, expand=True).shape == (6, 6, 3)
    assert F.rotate(square, 30, interpolation="bilinear").shape == (4, 4, 3)
    with pytest.raises(ValueError, match="rotate: interpolation should be one of"):
        F.rotate(square, 30, interpolation="cubic")


# ---- Compose and BaseTransform

def test_compose_chains_in_order(img):
    np.testing.assert_array_equal(T.Compose([T.Pad(1), T.CenterCrop((3, 4))])(img), img)
    out = T.Compose([T.Transpose(), T.ToTensor("HWC")])(img)  # CHW, then "HWC" keeps axes
    np.testing.assert_allclose(out, img.transpose(2, 0, 1) / 255.0, rtol=1e-6)
    with pytest.raises(ValueError) as info:
        T.Compose([T.Pad(1), T.CenterCrop(9)])(img)
    assert "while applying CenterCrop()" in "".join(getattr(info.value, "__notes__", []))


class _ImageAndLabel(T.BaseTransform):
    def _apply_image(self, image):
        return image + 1

    def _apply_label(self, label):
        return label * 10


def test_base_transform_keys_route_tuple_elements():
    transform = _ImageAndLabel(keys=("image", "label"))
    image, label, extra = transform((np.zeros(2), 3, "kept"))
    np.testing.assert_array_equal(image, [1, 1])
    assert label == 30 and extra == "kept"
    assert _ImageAndLabel()(np.zeros(1))[0] == 1           # a bare input is the image
    assert T.Resize(2)((np.zeros((4, 4)), 7))[1] == 7     # past the keys: unchanged
    with pytest.raises(NotImplementedError, match="'boxes2' is an unsupported data structure"):
        _ImageAndLabel(keys=("image", "boxes2"))
    with pytest.raises(ValueError, match="keys should be a sequence"):
        _ImageAndLabel(keys=5)
    with pytest.raises(NotImplementedError, match="_ImageAndLabel does not transform boxes"):
        _ImageAndLabel(keys=("boxes",))(np.zeros(1))


# ---- random transforms

def test_random_flips_follow_python_random(img):
    assert all((T.RandomHorizontalFlip(0)(img) == img).all() for _ in range(5))
    assert all((T.RandomVerticalFlip(1)(img) == img[::-1]).all() for _ in range(5))
    random.seed(3)
    expected = [random.random() < 0.5 for _ in range(20)]
    random.seed(3)
    flip = T.RandomHorizontalFlip(0.5)
    flipped = [bool((flip(img) == img[:, ::-1]).all()) for _ in range(20)]
    assert flipped == expected and 0 < sum(flipped) < 20


def test_flip_prob_outside_0_1_by_version(img, paddle_version):
    # 2.0 stores any prob (its docstring example passes 224): above 1 always flips
    with paddle_version("2.0"):
        assert all((T.RandomHorizontalFlip(224)(img) == img[:, ::-1]).all() for _ in range(5))
    with paddle_version("3"):
        with pytest.raises(ValueError, match=r"RandomVerticalFlip: prob should be in \[0, 1\]"):
            T.RandomVerticalFlip(1.5)


def _position_in(crop, image):
    """(top, left) where `crop` sits in `image`, or None."""
    ch, cw = crop.shape[:2]
    for top in range(image.shape[0] - ch + 1):
        for left in range(image.shape[1] - cw + 1):
            if np.array_equal(image[top:top + ch, left:left + cw], crop):
                return top, left
    return None


def test_random_crop_is_a_seeded_sub_array():
    image = np.arange(8 * 9 * 3, dtype=np.int32).reshape(8, 9, 3)
    crop = T.RandomCrop((3, 4))
    random.seed(0)
    outs = [crop(image) for _ in range(6)]
    random.seed(0)
    expected = [(random.randint(0, 5), random.randint(0, 5)) for _ in range(6)]
    assert [_position_in(o, image) for o in outs] == expected
    assert all(o.shape == (3, 4, 3) for o in outs)
    np.testing.assert_array_equal(T.RandomCrop((8, 9))(image), image)
    with pytest.raises(ValueError, match=r"crop size \(9, 9\) is larger than the 8x9 image"):
        T.RandomCrop(9)(image)
    padded = T.RandomCrop(10, pad_if_needed=True)(image)
    assert padded.shape == (10, 10, 3) and _position_in(image, padded) is not None
    assert T.RandomCrop(9, padding=1)(image).shape == (9, 9, 3)


def test_random_resized_crop_shapes_and_seeding():
    image = np.random.RandomState(1).rand(12, 16, 3)
    crop = T.RandomResizedCrop((5, 6))
    random.seed(7); np.random.seed(7)
    first = crop(image)
    random.seed(7); np.random.seed(7)
    np.testing.assert_array_equal(crop(image), first)
    assert first.shape == (5, 6, 3)
    # the full area at the image's own ratio: just a resize
    whole = T.RandomResizedCrop((6, 8), scale=(1, 1), ratio=(4 / 3, 4 / 3))
    np.testing.assert_allclose(whole(image), F.resize(image, (6, 8)))
    # an impossible ratio falls back to the centre crop with the ratio clamped
    tall = T.RandomResizedCrop(4, scale=(1, 1), ratio=(0.5, 0.5))
    np.testing.assert_allclose(tall(image), F.resize(image[:, 5:11], (4, 4)))
    with pytest.raises(ValueError, match="scale should be \\(min, max\\)"):
        T.RandomResizedCrop(4, scale=(1, 0.5))


def test_random_rotation_and_colour_transforms(img):
    np.testing.assert_array_equal(T.RandomRotation((90, 90))(img[:, :3]), np.rot90(img[:, :3]))
    with pytest.raises(ValueError, match="single number of degrees must be non-negative"):
        T.RandomRotation(-5)
    np.testing.assert_array_equal(T.BrightnessTransform((2, 2))(img),
                                  F.adjust_brightness(img, 2))
    np.testing.assert_array_equal(T.ColorJitter()(img), img)   # all zero: nothing to do
    assert T.HueTransform(0).value is None
    assert T.SaturationTransform(0.3).value == [0.7, 1.3]
    assert T.ContrastTransform(2).value == [0, 3]              # the low end clips at 0
    with pytest.raises(ValueError, match=r"HueTransform: \(min, max\) should satisfy -0.5 <= "):
        T.HueTransform((0, 0.7))
    with pytest.raises(TypeError, match="BrightnessTransform: should be a number or a"):
        T.BrightnessTransform("x")
    with pytest.raises(ValueError, match="ContrastTransform: a single number must be"):
        T.ContrastTransform(-1)


def test_color_jitter_is_repeatable_with_seeds():
    image = np.random.RandomState(2).randint(0, 256, (6, 6, 3)).astype(np.uint8)
    jitter = T.ColorJitter(0.4, 0.4, 0.4, 0.1)
    random.seed(11)
    first = jitter(image)
    random.seed(11)
    np.testing.assert_array_equal(jitter(image), first)
    assert first.shape == image.shape and first.dtype == np.uint8
    assert not np.array_equal(first, image)


def test_pil_images_round_trip_when_pil_is_installed(img):
    Image = pytest.importorskip("PIL.Image")
    pil = Image.fromarray(img)
    out = F.hflip(pil)
    assert isinstance(out, Image.Image)
    np.testing.assert_array_equal(np.asarray(out), img[:, ::-1])
    assert F.to_grayscale(pil).mode == "L"
    np.testing.assert_allclose(F.to_tensor(pil), F.to_tensor(img))
