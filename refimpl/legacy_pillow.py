"""The Pillow resampling names that Paddle 1.8-era scripts use (`im.resize(size,
Image.ANTIALIAS)` in the models repository's readers and inference code) and Pillow 10
removed, each the same filter as a name Pillow still has. `python -m refimpl run` puts the
missing ones back under the 1.8 and 2.0 profiles (specs/runner.md); a plain `import refimpl`
never imports Pillow."""
import importlib.util
import sys

# removed name -> the Resampling member it was an alias of (Pillow 9.1's deprecation notes)
ALIASES = {"ANTIALIAS": "LANCZOS", "LINEAR": "BILINEAR", "CUBIC": "BICUBIC"}


def restore(profile, stream=sys.stderr):
    """Sets the ALIASES the installed Pillow lacks on PIL.Image (nothing when Pillow is not
    installed); says which on `stream` (one line, naming the version `profile`) and returns
    their names."""
    if importlib.util.find_spec("PIL") is None:
        return []
    from PIL import Image
    missing = [name for name in ALIASES if not hasattr(Image, name)]
    for name in missing:
        setattr(Image, name, getattr(Image.Resampling, ALIASES[name]))
    if missing:
        import PIL
        print("refimpl run: Pillow %s lacks Image.%s; restored as Pillow 9 defined them "
              "(Paddle %s profile)"
              % (PIL.__version__, ", Image.".join(missing), profile),
              file=stream)
    return missing
