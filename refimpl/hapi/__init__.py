"""Paddle's high-level API (hapi): paddle.Model, paddle.callbacks, paddle.summary,
paddle.flops (specs/hapi_model.md, specs/summary_flops.md)."""
from . import callbacks, logger
from .flops import flops
from .model import Model
from .summary import summary

__all__ = ["Model", "callbacks", "summary", "flops"]
