"""paddle.fluid.layers.utils: nested-structure helpers (framework/nest.py)."""
from ...framework.nest import (assert_same_structure, convert_to_list, flatten, is_sequence,
                               map_structure, pack_sequence_as)

__all__ = ["is_sequence", "map_structure", "flatten", "pack_sequence_as",
           "assert_same_structure", "convert_to_list"]
