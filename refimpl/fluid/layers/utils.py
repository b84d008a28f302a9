"""paddle.fluid.layers.utils: nested-structure helpers (framework/nest.py). flatten,
map_structure and pack_sequence_as ask this module's `is_sequence` what a sequence is, when
they run: 1.8-era code replaces it to make lists of ints leaves (the models repository's
1.8 similarity_net nets/paddle_layers.py does, around map_structure over state shapes), and
Paddle's helpers look the name up so."""
from ...framework import nest
from ...framework.nest import assert_same_structure, convert_to_list, is_sequence

__all__ = ["is_sequence", "map_structure", "flatten", "pack_sequence_as",
           "assert_same_structure", "convert_to_list"]


def _module_is_sequence(value):
    return is_sequence(value)        # this module's name, looked up at each call


def flatten(structure):
    return nest.flatten(structure, _module_is_sequence)


def map_structure(fn, *structures):
    return nest.map_structure(fn, *structures, sequence=_module_is_sequence)


def pack_sequence_as(structure, flat):
    return nest.pack_sequence_as(structure, flat, _module_is_sequence)
