"""paddle.distributed.io (Paddle 2.5 on): fluid.io's persistable savers and loaders under
Paddle 3's name; load_inference_model_distributed is fluid.io.load_inference_model (its
1.8 argument order, bytes when dirname is None; pserver_endpoints unused: one process)."""
from ..fluid.io import is_persistable, load_persistables, save_persistables
from ..fluid.io import load_inference_model as load_inference_model_distributed

__all__ = ["is_persistable", "load_persistables", "save_persistables",
           "load_inference_model_distributed"]
