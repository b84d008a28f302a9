"""tdm_sampler (Paddle 1.8 contrib, tree-based deep match): per leaf id in X, for each tree
layer l, its positive node Travel[id, l] (the leaf's ancestor there) and
neg_samples_num_list[l] negatives drawn uniformly without replacement from layer l's other
nodes, Layer[layer_offset_lod[l]:layer_offset_lod[l + 1]]. Out [N, sum over layers of
(output_positive + neg_l)] lists, layer by layer, the positive first (when output_positive)
then the negatives; Labels 1 at positives, 0 at negatives; Mask 1. A positive node 0 (a
leaf whose path is shorter) makes the layer's entries all 0, Mask included, and draws
nothing. Outputs are `dtype`; no grad. The negatives are Paddle's (measured on 1.8.5): each
layer has its own uniform class sampler over its slots (framework/class_samplers.py, a
fresh engine of `seed` per layer and op run), which the rows draw from in turn; a slot is
drawn again while its node is the positive or the slot was already taken for this row."""
import numpy as np

from ..framework.dtypes import get_dtype, to_numpy_dtype
from ..framework.class_samplers import UNIFORM
from ..framework.random import class_sampler
from .registry import OpDef, Sample, register

_TRAVEL = np.array([[1, 3], [1, 4], [2, 5], [2, 6], [2, 0]], np.int32)
_LAYER = np.arange(1, 7, dtype=np.int32).reshape(6, 1)


@register
class TdmSampler(OpDef):
    type = "tdm_sampler"
    inputs = ("X", "Travel", "Layer")
    outputs = ("Out", "Labels", "Mask")
    attrs = {"neg_samples_num_list": [], "layer_offset_lod": [], "output_positive": True,
             "seed": 0, "dtype": "int32"}

    def infer_shape(self, ctx):
        for slot in ("X", "Travel", "Layer"):
            ctx.check_dtype(slot, ("int32", "int64"))
        negatives, offsets = ctx.attr("neg_samples_num_list"), ctx.attr("layer_offset_lod")
        ctx.expect(len(offsets) == len(negatives) + 1,
                   "layer_offset_lod must hold one offset more than neg_samples_num_list's "
                   "%d layers, got %s" % (len(negatives), offsets))
        for l, n in enumerate(negatives):
            ctx.expect(0 <= n < offsets[l + 1] - offsets[l],
                       "layer %d: %d negatives must be fewer than its %d nodes"
                       % (l, n, offsets[l + 1] - offsets[l]))
        travel = ctx.input_var("Travel")
        ctx.expect(len(travel.shape) == 2 and travel.shape[1] in (-1, len(negatives)),
                   "Travel %r must be [leaves, %d layers], got %s"
                   % (travel.name, len(negatives), list(travel.shape)))
        dtype = ctx.attr("dtype")
        ctx.expect(dtype in ("int32", "int64"), "dtype must be int32 or int64, got %s" % dtype)
        width = sum(negatives) + len(negatives) * bool(ctx.attr("output_positive"))
        rows = ctx.input_var("X").shape[0]
        for slot in ("Out", "Labels", "Mask"):
            ctx.set_output(slot, [rows, width], get_dtype(dtype))

    @staticmethod
    def forward(x, travel, layer, neg_samples_num_list=(), layer_offset_lod=(),
                output_positive=True, seed=0, dtype="int32"):
        ids = np.asarray(x).astype(np.int64).reshape(-1)
        if ids.size and (ids.min() < 0 or ids.max() >= len(travel)):
            raise ValueError("tdm_sampler: X holds leaf %d, outside Travel's %d leaves"
                             % (ids.min() if ids.min() < 0 else ids.max(), len(travel)))
        nodes = np.asarray(layer).reshape(-1)
        samplers = [class_sampler(UNIFORM, seed, size - 1) for size in
                    np.diff(layer_offset_lod)[:len(neg_samples_num_list)]]
        positive = int(bool(output_positive))
        width = sum(neg_samples_num_list) + positive * len(neg_samples_num_list)
        out, labels, mask = (np.zeros((len(ids), width), np.int64) for _ in range(3))
        for i, leaf in enumerate(ids):
            col = 0
            for l, n in enumerate(neg_samples_num_list):
                pos = int(travel[leaf, l])
                span = slice(col, col + positive + n)
                col = span.stop
                if pos == 0:
                    continue
                candidates = nodes[layer_offset_lod[l]:layer_offset_lod[l + 1]]
                if (candidates != pos).sum() < n:
                    raise ValueError("tdm_sampler: layer %d holds %d nodes besides the "
                                     "positive %d, fewer than its %d negatives"
                                     % (l, (candidates != pos).sum(), pos, n))
                slots = []
                while len(slots) < n:
                    slot = samplers[l].sample()
                    if candidates[slot] != pos and slot not in slots:
                        slots.append(slot)
                out[i, span] = ([pos] if positive else []) + candidates[slots].tolist()
                labels[i, span] = [1] * positive + [0] * n
                mask[i, span] = 1
        kind = to_numpy_dtype(dtype)
        return out.astype(kind), labels.astype(kind), mask.astype(kind)

    def samples(self, rng):
        # no negatives: nothing drawn
        x = np.arange(5, dtype=np.int32).reshape(5, 1)
        yield Sample({"X": x, "Travel": _TRAVEL, "Layer": _LAYER},
                     {"neg_samples_num_list": [0, 0], "layer_offset_lod": [0, 2, 6]})
        # seeded negatives: the same draw each run
        yield Sample({"X": x[::-1].astype(np.int64), "Travel": _TRAVEL.astype(np.int64),
                      "Layer": _LAYER.astype(np.int64)},
                     {"neg_samples_num_list": [1, 2], "layer_offset_lod": [0, 2, 6],
                      "output_positive": False, "seed": 3, "dtype": "int64"})
