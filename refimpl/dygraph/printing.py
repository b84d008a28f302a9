"""How an eager Tensor prints its values: paddle.set_printoptions (Paddle 2.0's
paddle.tensor.to_string) sets the digits after the point, the element count above which
only `edgeitems` items of each end of every axis are shown, and scientific notation.
The defaults, 8 / 1000 / 3 / off, are numpy's and Paddle's."""
import numpy as np

__all__ = ["set_printoptions", "format_values"]

_options = {"precision": 8, "threshold": 1000, "edgeitems": 3, "sci_mode": False}


def set_printoptions(precision=None, threshold=None, edgeitems=None, sci_mode=None):
    given = {"precision": precision, "threshold": threshold, "edgeitems": edgeitems,
             "sci_mode": sci_mode}
    for name, value in given.items():
        if value is None:
            continue
        kind = bool if name == "sci_mode" else int
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise TypeError("set_printoptions: %s must be %s, got %s"
                            % (name, kind.__name__, type(value).__name__))
        _options[name] = value


def format_values(array, prefix):
    """The values of `array` as a Tensor's repr shows them, its lines after the first
    indented by len(prefix)."""
    precision = _options["precision"]
    formatter = {"float_kind": ("{:.%de}" % precision).format} if _options["sci_mode"] else None
    return np.array2string(array, separator=", ", prefix=prefix, precision=precision,
                           threshold=_options["threshold"], edgeitems=_options["edgeitems"],
                           formatter=formatter)
