"""paddle.vision's DatasetFolder / ImageFolder over a folder of images written here, and
image_load; paddle.vision's re-exports of the transforms, datasets and image names."""
import os

import numpy as np
import pytest

import refimpl as paddle
from refimpl.vision import DatasetFolder, ImageFolder, image_load, set_image_backend

Image = pytest.importorskip("PIL.Image")


@pytest.fixture
def image_tree(tmp_path):
    """class_b/{1.png, 0.PNG}, class_a/{2.bmp, notes.txt (no image extension)}: pixels
    that say which file they came from."""
    pixels = {}
    for folder, names in (("class_b", ["1.png", "0.PNG"]), ("class_a", ["2.bmp"])):
        os.makedirs(tmp_path / folder)
        for name in names:
            value = np.full((4, 5, 3), len(pixels) * 40, "uint8")
            value[0, 0] = (1, 2, 3)
            Image.fromarray(value).save(tmp_path / folder / name)
            pixels[os.path.join(str(tmp_path), folder, name)] = value
    (tmp_path / "class_a" / "notes.txt").write_text("not an image")
    return tmp_path, pixels


def test_dataset_folder_classes_samples_and_images(image_tree):
    root, pixels = image_tree
    data = DatasetFolder(str(root))
    assert data.classes == ["class_a", "class_b"]
    assert data.class_to_idx == {"class_a": 0, "class_b": 1}
    want = [os.path.join(str(root), p) for p in ("class_a/2.bmp", "class_b/0.PNG",
                                                   "class_b/1.png")]
    assert [p for p, _ in data.samples] == want and data.targets == [0, 1, 1]
    assert len(data) == 3 and data.dtype == "float32"
    image, label = data[1]
    assert label == 1 and image.mode == "RGB"
    np.testing.assert_array_equal(np.asarray(image), pixels[want[1]])
    scaled, _ = DatasetFolder(str(root), transform=lambda im: np.asarray(im) / 2)[0]
    np.testing.assert_array_equal(scaled, pixels[want[0]] / 2)


def test_image_folder_walks_every_image(image_tree):
    root, pixels = image_tree
    data = ImageFolder(str(root), extensions=(".png",))
    assert data.samples == [os.path.join(str(root), p) for p in ("class_b/0.PNG",
                                                                 "class_b/1.png")]
    [image] = data[1]
    np.testing.assert_array_equal(np.asarray(image), pixels[data.samples[1]])
    with pytest.warns(UserWarning, match="is_valid_file is not used"):
        assert len(ImageFolder(str(root), is_valid_file=lambda p: False)) == 3
    with pytest.raises(RuntimeError, match="found no image under .*supported extensions "
                                           "are .gif"):
        ImageFolder(str(root), extensions=(".gif",))
    with pytest.raises(FileNotFoundError, match="is not a folder"):
        DatasetFolder(str(root / "absent"))


def test_image_load_by_backend(image_tree):
    root, pixels = image_tree
    path = os.path.join(str(root), "class_a", "2.bmp")
    set_image_backend("pil")
    np.testing.assert_array_equal(np.asarray(image_load(path)), pixels[path])
    with pytest.raises(ValueError, match="backend must be one of"):
        image_load(path, backend="tf")


def test_vision_namespace_holds_its_submodules_names():
    vision = paddle.vision
    assert vision.Compose is vision.transforms.Compose
    assert vision.resize is vision.transforms.functional.resize
    assert vision.MNIST is vision.datasets.MNIST and vision.LeNet is vision.models.LeNet
    assert vision.image_load is vision.image.image_load
    assert len(vision.__all__) == len(set(vision.__all__))
