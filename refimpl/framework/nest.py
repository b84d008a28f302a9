"""Nested structures (lists, tuples, namedtuples, dicts) of Variables: what RNN cells and
decoders pass as states (Paddle's fluid.layers.utils)."""
__all__ = ["is_sequence", "map_structure", "flatten", "pack_sequence_as",
           "assert_same_structure", "convert_to_list"]


def is_sequence(value):
    return isinstance(value, (list, tuple, dict))


def _children(value):
    return [value[k] for k in sorted(value)] if isinstance(value, dict) else list(value)


def map_structure(fn, *structures, sequence=is_sequence):
    """fn over the leaves of equally nested tuples / lists / namedtuples / dicts (what
    `sequence` calls a sequence: Paddle's flatten-then-pack)."""
    leaves = zip(*(flatten(s, sequence) for s in structures))
    return pack_sequence_as(structures[0], [fn(*parts) for parts in leaves], sequence)


def flatten(structure, sequence=is_sequence):
    """The leaves, depth first (dicts in sorted key order)."""
    if not sequence(structure):
        return [structure]
    return [leaf for child in _children(structure) for leaf in flatten(child, sequence)]


def pack_sequence_as(structure, flat, sequence=is_sequence):
    """`flat`'s leaves arranged as `structure`."""
    flat = list(flat)
    count = len(flatten(structure, sequence))
    if len(flat) != count:
        raise ValueError("pack_sequence_as: structure has %d leaves, got %d"
                         % (count, len(flat)))
    leaves = iter(flat)

    def build(part):      # in flatten's order: a dict's values by sorted key
        if not sequence(part):
            return next(leaves)
        if isinstance(part, dict):
            built = {k: build(part[k]) for k in sorted(part)}
            return {k: built[k] for k in part}
        if isinstance(part, tuple) and hasattr(part, "_fields"):
            return type(part)(*(build(p) for p in part))
        return type(part)(build(p) for p in part)
    return build(structure)


def assert_same_structure(first, second, check_types=True):
    """ValueError unless both nest alike (same lengths, and types when check_types)."""
    if is_sequence(first) != is_sequence(second):
        raise ValueError("The two structures don't have the same nested structure: %r and %r"
                         % (first, second))
    if not is_sequence(first):
        return
    if check_types and type(first) is not type(second):
        raise TypeError("The two structures don't have the same sequence type: %s and %s"
                        % (type(first).__name__, type(second).__name__))
    a, b = _children(first), _children(second)
    if len(a) != len(b):
        raise ValueError("The two structures don't have the same number of elements: %d "
                         "and %d" % (len(a), len(b)))
    for x, y in zip(a, b):
        assert_same_structure(x, y, check_types)


def convert_to_list(value, n, name, dtype=int):
    """An int (repeated n times) or a sequence of n ints, as a list."""
    if isinstance(value, dtype):
        return [value] * n
    try:
        values = list(value)
    except TypeError:
        raise ValueError("The %s's type must be list or tuple. Received: %s" % (name, value))
    if len(values) != n or not all(isinstance(v, dtype) for v in values):
        raise ValueError("The %s must be a list of %d %s, got %s"
                         % (name, n, dtype.__name__, value))
    return values
