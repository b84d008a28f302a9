"""tree_conv: tree-based convolution (TBCNN; fluid.contrib.layers.tree_conv, as Paddle 1.8).

NodesVector [B, M, F] holds the features of up to M nodes per tree, numbered from 1; EdgeSet
[B, E, 2] its (parent, child) edges, read up to the first edge with a 0 end (padding). A
tree of e edges has e + 1 nodes; a node's children are in edge order. Filter [F, 3, O, K]
holds three weight sets (left, right, top). Out [B, M, O, K]: row u - 1 of a tree sums, over
the patch of node u (u itself at depth 0 and its descendants at depths below max_depth;
each the idx-th of its parent's n children, idx from 1; u counts as idx 1 of 1),
    x_v . (eta_l Filter[:, 0] + eta_r Filter[:, 1] + eta_t Filter[:, 2])
with eta_t = (max_depth - depth) / max_depth, eta_l = (1 - eta_t) * (1/2 if n == 1 else
(idx - 1) / (n - 1)) and eta_r = (1 - eta_t) * (1 - eta_l) (Paddle's weights, eta_l
included). Rows past the tree's nodes are 0. The patch weights form one matrix per weight
set, eta[k, u, v], so Out = sum_k eta[k] @ X @ Filter[:, k] and the op is linear in both."""
import numpy as np

from ._common import FLOATS, rand
from .registry import OpDef, Sample, register


def _children(edges):
    children = {}
    for parent, child in edges:
        if parent == 0 or child == 0:
            break
        children.setdefault(int(parent), []).append(int(child))
    return children, sum(len(c) for c in children.values()) + 1


def patch_weights(edges, max_nodes, max_depth):
    """eta [3 (left, right, top), M, M]: eta[k, u - 1, v - 1] = weight k of node v in
    node u's patch."""
    children, node_count = _children(edges)
    if node_count > max_nodes:
        raise ValueError("tree_conv: EdgeSet describes %d nodes, NodesVector holds %d"
                         % (node_count, max_nodes))
    eta = np.zeros((3, max_nodes, max_nodes))

    def visit(root, node, idx, siblings, depth):
        eta_t = (max_depth - depth) / max_depth
        eta_l = (1 - eta_t) * (0.5 if siblings == 1 else (idx - 1) / (siblings - 1))
        eta[:, root - 1, node - 1] += (eta_l, (1 - eta_t) * (1 - eta_l), eta_t)
        kids = children.get(node, [])
        if depth + 1 < max_depth:
            for i, kid in enumerate(kids, 1):
                visit(root, kid, i, len(kids), depth + 1)

    for u in range(1, node_count + 1):
        visit(u, u, 1, 1, 0)
    return eta


def _etas(edge_set, max_nodes, max_depth):
    return np.stack([patch_weights(e.astype(np.int64), max_nodes, max_depth)
                     for e in edge_set])


@register
class TreeConv(OpDef):
    type = "tree_conv"
    inputs = ("NodesVector", "EdgeSet", "Filter")
    outputs = ("Out",)
    attrs = {"max_depth": 2}
    no_grad = ("EdgeSet",)
    grad_inputs = ("NodesVector", "EdgeSet", "Filter", "Out@GRAD")

    def infer_shape(self, ctx):
        x, edges, w = (ctx.input_var(s) for s in ("NodesVector", "EdgeSet", "Filter"))
        ctx.check_dtype("NodesVector", FLOATS)
        ctx.expect(len(x.shape) == 3 and len(edges.shape) == 3 and edges.shape[2] == 2,
                   "NodesVector %r %s must be [B, max_nodes, F] and EdgeSet %r %s "
                   "[B, edges, 2]" % (x.name, list(x.shape), edges.name, list(edges.shape)))
        ctx.expect(len(w.shape) == 4 and w.shape[1] == 3 and
                   (w.shape[0] in (-1, x.shape[2]) or x.shape[2] == -1),
                   "Filter %r %s must be [F = %d, 3, output_size, num_filters]"
                   % (w.name, list(w.shape), x.shape[2]))
        ctx.expect(ctx.attr("max_depth") >= 1, "max_depth must be >= 1, got %d"
                   % ctx.attr("max_depth"))
        ctx.set_output("Out", (x.shape[0], x.shape[1], w.shape[2], w.shape[3]), x.dtype)

    @staticmethod
    def forward(x, edge_set, w, max_depth=2):
        eta = _etas(edge_set, x.shape[1], max_depth)
        return np.einsum("bkuv,bvf,fkon->buon", eta, x, w).astype(x.dtype)

    @staticmethod
    def backward(x, edge_set, w, dout, max_depth=2):
        eta = _etas(edge_set, x.shape[1], max_depth)
        dx = np.einsum("bkuv,buon,fkon->bvf", eta, dout, w)
        dw = np.einsum("bkuv,bvf,buon->fkon", eta, x, dout)
        return dx.astype(x.dtype), dw.astype(w.dtype)

    def samples(self, rng):
        # tree 1 - (2, 3, 4), 2 - 5, 5 - 6; the second tree stops at a (0, 0) edge
        edges = np.array([[[1, 2], [1, 3], [1, 4], [2, 5], [5, 6]],
                          [[1, 2], [2, 3], [0, 0], [0, 0], [0, 0]]], np.int32)
        yield Sample({"NodesVector": rand(rng, 2, 7, 3), "EdgeSet": edges,
                      "Filter": rand(rng, 3, 3, 2, 2)}, {"max_depth": 3})
        yield Sample({"NodesVector": rand(rng, 2, 6, 2), "EdgeSet": edges,
                      "Filter": rand(rng, 2, 3, 1, 1)}, name="depth_2")
