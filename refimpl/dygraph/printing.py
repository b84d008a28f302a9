"""How an eager Tensor prints its values, as Paddle 2.0's paddle.tensor.to_string lays
them out: paddle.set_printoptions sets the digits after the point, the element count above
which only `edgeitems` items of each end of every axis are shown, and scientific notation.
The defaults, 8 / 1000 / 3 / off, are Paddle's."""
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
    """The values of `array` as Paddle 2.0's Tensor repr shows them (its
    paddle.tensor.to_string), its lines after the first indented by len(prefix) + 1: a
    float with an integer value as `1.`, others with `precision` digits after the point
    (or in scientific notation), every item left-aligned to the widest one (a space before
    the non-negative ones when some item is negative; widest and negative among the
    `edgeitems` items of each end of every axis), no line wrapping; above `threshold`
    elements each axis shows `edgeitems` items of each end around `...`."""
    array = np.asarray(array)
    summary = array.size > _options["threshold"]
    shown = _edges(array)       # the widths come from these, summary or not (as Paddle's)
    texts = [_item_text(x) for x in shown.reshape(-1)]
    width = max((len(t) for t in texts), default=0)
    signed = shown.dtype.kind in "iuf" and bool((shown < 0).any())
    return _format_axis(array, summary, len(prefix), width, signed)


def _item_text(x):
    if x.dtype.kind != "f":
        return str(x)
    if _options["sci_mode"]:
        return "%.*e" % (_options["precision"], x)
    if np.ceil(x) == x:
        return "%.0f." % x
    return "%.*f" % (_options["precision"], x)


def _padded(x, width, signed):
    text = _item_text(x)
    if len(text) >= width:
        return text
    if signed and not x < 0:
        return " " + text.ljust(width - 1)
    return text.ljust(width)


def _edges(array):
    """The items a summary shows: edgeitems of each end of every longer axis."""
    k = _options["edgeitems"]
    for axis in range(array.ndim):
        if array.shape[axis] > 2 * k:
            array = np.concatenate([np.take(array, range(k), axis),
                                    np.take(array, range(-k, 0), axis)], axis)
    return array


def _format_axis(array, summary, indent, width, signed):
    if array.ndim == 0:
        return _padded(array[()], width, signed)
    k = _options["edgeitems"]
    cut = summary and array.shape[0] > 2 * k
    parts = list(array[:k]) + [None] + list(array[-k:]) if cut else list(array)
    if array.ndim == 1:
        items = ["..." if x is None else _padded(x, width, signed) for x in parts]
        return "[" + ", ".join(items) + "]"
    rows = ["..." if x is None else _format_axis(x, summary, indent + 1, width, signed)
            for x in parts]
    return "[" + ("," + "\n" * (array.ndim - 1) + " " * (indent + 1)).join(rows) + "]"
