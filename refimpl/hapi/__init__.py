"""Paddle's high-level API (hapi): paddle.Model, paddle.callbacks, paddle.summary,
paddle.flops (specs/hapi_model.md, specs/summary_flops.md); Paddle 2.0's submodules
hapi.model_summary (summary) and hapi.dynamic_flops (flops)."""
from ..submodules import group
from . import callbacks, logger
from .flops import flops
from .model import Model
from .summary import summary

__all__ = ["Model", "callbacks", "summary", "flops"]
globals().update(group(__name__, globals(), {"model_summary": ["summary"],
                                             "dynamic_flops": ["flops"]}))
