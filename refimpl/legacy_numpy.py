"""The numpy 1.x names that Paddle 1.8-era scripts use and numpy 1.24 or 2 removed, each
one-to-one with a name numpy still has. `python -m refimpl run` puts the missing ones back for
the script it runs under the 1.8 and 2.0 profiles (specs/runner.md); a plain `import refimpl`
never does."""
import sys
import warnings

import numpy as np

# removed name -> what numpy 1.x meant by it
ALIASES = {
    # the builtin-type aliases (deprecated in numpy 1.20, removed in 1.24; numpy 2 has
    # np.bool again, as np.bool_, so only numpy 1.24-1.26 lack it)
    "int": int, "float": float, "complex": complex, "object": object, "str": str,
    "unicode": str, "bool": bool,
    # function aliases (deprecated in numpy 1.25, removed in 2.0)
    "product": np.prod, "cumproduct": np.cumprod, "alltrue": np.all, "sometrue": np.any,
    # scalar-type and constant aliases (removed in 2.0, NEP 52)
    "float_": np.float64, "complex_": np.complex128, "unicode_": np.str_,
    "string_": np.bytes_, "Inf": np.inf, "Infinity": np.inf, "infty": np.inf,
    "NaN": np.nan, "NAN": np.nan, "PINF": np.inf, "NINF": -np.inf, "round_": np.round,
    # renamed np.trapezoid in 2.0, the old name removed in 2.4 (numpy < 2 has only trapz,
    # so never misses it); PaddleVideo 2.0's ActivityNet metric integrates with np.trapz
    "trapz": getattr(np, "trapezoid", None),
}


def restore(profile, stream=sys.stderr):
    """Sets the ALIASES this numpy lacks on the numpy module; says which on `stream` (one
    line, naming the version `profile`) and returns their names."""
    missing = [name for name in ALIASES if not _has(name)]
    for name in missing:
        setattr(np, name, ALIASES[name])
    if missing:
        print("refimpl run: numpy %s lacks np.%s; restored as numpy 1.x defined them "
              "(Paddle %s profile)" % (np.__version__, ", np.".join(missing), profile),
              file=stream)
    return missing


def _has(name):
    try:
        with warnings.catch_warnings():       # numpy 2 warns on np.object / np.str
            warnings.simplefilter("ignore", FutureWarning)
            getattr(np, name)
    except AttributeError:
        return False
    return True
