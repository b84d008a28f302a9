"""The Pillow names that Paddle 1.8 / 2.0-era scripts use and Pillow 10 removed: the
resampling names (`im.resize(size, Image.ANTIALIAS)` in the models repository's readers and
inference code), each the same filter as a name Pillow still has, and
`ImageDraw.textsize(text, font)` (PaddleDetection 2.0's box labels), the extent of the text
drawn at the origin, as Pillow 9 measured it. `python -m refimpl run` puts the missing ones
back under the 1.8 and 2.0 profiles (specs/runner.md); a plain `import refimpl` never
imports Pillow."""
import importlib.util
import sys

# removed name -> the Resampling member it was an alias of (Pillow 9.1's deprecation notes)
ALIASES = {"ANTIALIAS": "LANCZOS", "LINEAR": "BILINEAR", "CUBIC": "BICUBIC"}


def textsize(self, text, font=None, spacing=4, direction=None, features=None,
             language=None, stroke_width=0):
    """Pillow 9's ImageDraw.textsize: (width, height) of `text` drawn at (0, 0), the right
    and bottom of its textbbox there."""
    box = self.textbbox((0, 0), text, font, spacing=spacing, direction=direction,
                        features=features, language=language, stroke_width=stroke_width)
    return box[2], box[3]


def restore(profile, stream=sys.stderr):
    """Sets the ALIASES the installed Pillow lacks on PIL.Image, and ImageDraw.textsize
    where it lacks that (nothing when Pillow is not installed); says which on `stream` (one
    line, naming the version `profile`) and returns their names."""
    if importlib.util.find_spec("PIL") is None:
        return []
    from PIL import Image, ImageDraw
    missing = [name for name in ALIASES if not hasattr(Image, name)]
    for name in missing:
        setattr(Image, name, getattr(Image.Resampling, ALIASES[name]))
    if not hasattr(ImageDraw.ImageDraw, "textsize"):
        ImageDraw.ImageDraw.textsize = textsize
        missing.append("ImageDraw.textsize")
    if missing:
        import PIL
        names = [n if "." in n else "Image." + n for n in missing]
        print("refimpl run: Pillow %s lacks %s; restored as Pillow 9 defined them "
              "(Paddle %s profile)" % (PIL.__version__, ", ".join(names), profile),
              file=stream)
    return missing
