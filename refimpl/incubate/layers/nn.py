"""paddle.incubate.layers.nn: the functions of Paddle 3.3.1's module that refimpl has,
fluid.contrib.layers' (the same objects)."""
from ...fluid.contrib.layers import (batch_fc, partial_concat, partial_sum, rank_attention,
                                     shuffle_batch, tdm_child, tdm_sampler)

__all__ = ["batch_fc", "partial_concat", "partial_sum", "rank_attention", "shuffle_batch",
           "tdm_child", "tdm_sampler"]
