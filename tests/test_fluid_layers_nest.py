"""paddle.fluid.layers.utils' nested-structure helpers (framework/nest.py), and the
1.8-era trick of replacing utils.is_sequence so lists of ints count as leaves."""
import collections

import pytest

from refimpl.fluid.layers import utils

Pair = collections.namedtuple("Pair", "h c")


def test_flatten_map_and_pack_follow_paddles_order():
    structure = {"b": [1, (2, 3)], "a": Pair(4, 5)}
    assert utils.flatten(structure) == [4, 5, 1, 2, 3]     # dict values by sorted key
    doubled = utils.map_structure(lambda x, y: x * 10 + y, structure, structure)
    assert doubled == {"b": [11, (22, 33)], "a": Pair(44, 55)}
    assert list(doubled) == ["b", "a"] and type(doubled["a"]) is Pair
    assert utils.pack_sequence_as([0, [0, 0]], "xyz") == ["x", ["y", "z"]]
    with pytest.raises(ValueError, match="structure has 3 leaves, got 2"):
        utils.pack_sequence_as([0, [0, 0]], "xy")


def test_a_replaced_is_sequence_rules_flatten_map_and_pack(monkeypatch):
    # the models repository's 1.8 similarity_net maps over state shapes [[128], [128]]
    # with is_sequence replaced so that a list of ints is one leaf
    shapes = [[128], [64, 2]]
    assert utils.flatten(shapes) == [128, 64, 2]
    monkeypatch.setattr(utils, "is_sequence", lambda s: isinstance(s, (list, tuple)) and
                        not all(isinstance(x, int) for x in s))
    assert utils.flatten(shapes) == [[128], [64, 2]]
    assert utils.map_structure(lambda s: [-1] + s, shapes) == [[-1, 128], [-1, 64, 2]]
    assert utils.pack_sequence_as(shapes, ["h", "c"]) == ["h", "c"]
