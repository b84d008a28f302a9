"""DatasetFolder and ImageFolder (Paddle 2.0): image files found under a folder, loaded
by the image backend. DatasetFolder's classes are the sorted names of root's subfolders,
a sample (image, class index); ImageFolder keeps every image under root, a sample
[image]. Files are walked in sorted order, links followed; the file name's extension
(case-insensitive) picks the images."""
import os
import warnings

from ...io import Dataset
from ...framework.dtypes import get_default_dtype
from ...utils import try_import
from ..image import get_image_backend, image_load

__all__ = ["DatasetFolder", "ImageFolder"]

IMG_EXTENSIONS = ('.jpg', '.jpeg', '.png', '.ppm', '.bmp', '.pgm', '.tif', '.tiff', '.webp')


def default_loader(path):
    """The image at `path` in RGB: a PIL image (backend 'pil') or an HWC array (cv2)."""
    image = image_load(path)
    if get_image_backend() == "pil":
        return image.convert("RGB")
    if image is None:
        raise FileNotFoundError("cv2 could not read the image %s" % path)
    cv2 = try_import("cv2")
    return cv2.cvtColor(image, cv2.COLOR_BGR2RGB)


def _image_files(folder, extensions):
    """The files under `folder` with one of the extensions, walked in sorted order."""
    found = []
    for where, _, names in sorted(os.walk(folder, followlinks=True)):
        found += [os.path.join(where, n) for n in sorted(names)
                  if n.lower().endswith(tuple(extensions))]
    return found


def _options(owner, root, loader, extensions, is_valid_file):
    if is_valid_file is not None:
        # Paddle (2.0 and 3.3.1) replaces it by the extension test: say so, not silently
        warnings.warn("%s: is_valid_file is not used; the extensions pick the files, as in "
                      "Paddle" % owner)
    if not os.path.isdir(os.path.expanduser(root)):
        raise FileNotFoundError("%s: root %r is not a folder" % (owner, root))
    return (default_loader if loader is None else loader,
            tuple(IMG_EXTENSIONS if extensions is None else extensions))


class DatasetFolder(Dataset):
    def __init__(self, root, loader=None, extensions=None, transform=None,
                 is_valid_file=None):
        self.loader, self.extensions = _options("DatasetFolder", root, loader, extensions,
                                                is_valid_file)
        self.root, self.transform = root, transform
        folder = os.path.expanduser(root)
        self.classes = sorted(e.name for e in os.scandir(folder) if e.is_dir())
        self.class_to_idx = {c: i for i, c in enumerate(self.classes)}
        self.samples = [(path, i) for i, c in enumerate(self.classes)
                        for path in _image_files(os.path.join(folder, c), self.extensions)]
        if not self.samples:
            raise RuntimeError("DatasetFolder: found no image in the subfolders of %s; "
                               "supported extensions are %s"
                               % (root, ",".join(self.extensions)))
        self.targets = [i for _, i in self.samples]
        self.dtype = get_default_dtype()

    def __getitem__(self, index):
        path, target = self.samples[index]
        sample = self.loader(path)
        return (self.transform(sample) if self.transform is not None else sample), target

    def __len__(self):
        return len(self.samples)


class ImageFolder(Dataset):
    def __init__(self, root, loader=None, extensions=None, transform=None,
                 is_valid_file=None):
        self.loader, self.extensions = _options("ImageFolder", root, loader, extensions,
                                                is_valid_file)
        self.root, self.transform = root, transform
        self.samples = _image_files(os.path.expanduser(root), self.extensions)
        if not self.samples:
            raise RuntimeError("ImageFolder: found no image under %s; supported extensions "
                               "are %s" % (root, ",".join(self.extensions)))

    def __getitem__(self, index):
        sample = self.loader(self.samples[index])
        return [self.transform(sample) if self.transform is not None else sample]

    def __len__(self):
        return len(self.samples)
