"""The executor: the only thing that runs programs. `Executor` runs a Program in a Scope by
binding it once into a `Plan` (executor.py: one closure per op, binding.py and direct.py
bind them, hand_off.py links forwards to their grad ops)."""
from ..framework.scope import global_scope
from .executor import Executor, Plan, bind_op

__all__ = ["Executor", "Plan", "bind_op", "global_scope"]
