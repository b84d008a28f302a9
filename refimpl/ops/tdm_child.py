"""tdm_child (Paddle 1.8 contrib, tree-based deep match): the children of tree nodes.
TreeInfo [node_nums, 3 + child_nums] holds per node (item_id, layer_id, parent_id, child
ids...); for each id in X, Child = its child_nums child ids and LeafMask = 1 where the child
is a leaf (an item: item_id != 0). Node 0 is padding and a node whose first child is 0 has
none: both give zeros. Outputs are X's shape + [child_nums] in `dtype`, with X's LoD; no
grad (the tree is data)."""
import numpy as np

from ..framework.dtypes import get_dtype, to_numpy_dtype
from .registry import OpDef, Sample, register, share_lod

# the example tree of Paddle's docstring: root 0 -> 1, 2; 1 -> 3, 4; 2 -> 5, 6; items at 4, 5, 6
_TREE = np.array([[0, 0, 0, 1, 2], [0, 1, 0, 3, 4], [0, 1, 0, 5, 6], [0, 2, 1, 0, 0],
                  [1, 2, 1, 0, 0], [2, 2, 2, 0, 0], [3, 2, 2, 0, 0]], np.int32)


@register
class TdmChild(OpDef):
    type = "tdm_child"
    inputs = ("X", "TreeInfo")
    outputs = ("Child", "LeafMask")
    attrs = {"child_nums": 1, "dtype": "int32"}
    lod_outputs = {"Child": share_lod("X"), "LeafMask": share_lod("X")}

    def infer_shape(self, ctx):
        ctx.check_dtype("X", ("int32", "int64"))
        ctx.check_dtype("TreeInfo", ("int32", "int64"))
        tree = ctx.input_var("TreeInfo")
        child_nums = ctx.attr("child_nums")
        ctx.expect(child_nums > 0, "child_nums must be positive, got %d" % child_nums)
        ctx.expect(len(tree.shape) == 2 and tree.shape[1] in (-1, 3 + child_nums),
                   "TreeInfo %r must be [node_nums, 3 + child_nums] = [-1, %d], got %s"
                   % (tree.name, 3 + child_nums, list(tree.shape)))
        dtype = ctx.attr("dtype")
        ctx.expect(dtype in ("int32", "int64"), "dtype must be int32 or int64, got %s" % dtype)
        shape = list(ctx.input_var("X").shape) + [child_nums]
        ctx.set_output("Child", shape, get_dtype(dtype))
        ctx.set_output("LeafMask", shape, get_dtype(dtype))

    @staticmethod
    def forward(x, tree_info, child_nums=1, dtype="int32"):
        ids = np.asarray(x).astype(np.int64).reshape(-1)
        if ids.size and (ids.min() < 0 or ids.max() >= len(tree_info)):
            raise ValueError("tdm_child: X holds node %d, outside the tree's %d nodes"
                             % (ids.min() if ids.min() < 0 else ids.max(), len(tree_info)))
        children = tree_info[ids, 3:3 + child_nums].astype(np.int64)
        has_children = (ids != 0) & (children[:, 0] != 0)
        children[~has_children] = 0
        leaf = (tree_info[children, 0] != 0) & has_children[:, None]
        shape = tuple(np.shape(x)) + (child_nums,)
        out = to_numpy_dtype(dtype)
        return children.astype(out).reshape(shape), leaf.astype(out).reshape(shape)

    def samples(self, rng):
        ids = np.arange(7, dtype=np.int32).reshape(7, 1)
        yield Sample({"X": ids, "TreeInfo": _TREE}, {"child_nums": 2})
        yield Sample({"X": ids[[2, 1, 0]].astype(np.int64), "TreeInfo": _TREE.astype(np.int64)},
                     {"child_nums": 2, "dtype": "int64"})
