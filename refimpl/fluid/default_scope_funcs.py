"""paddle.fluid.default_scope_funcs (Paddle 1.8 / 2.0): a per-thread stack of scopes, its
bottom a Scope made on first use. enter_local_scope pushes a child of the current scope,
leave_local_scope pops it and drops the current scope's kids; var / find_var work on the
current scope; scoped_function runs a function inside a local scope."""
import threading

from ..framework.scope import Scope

__all__ = ["get_cur_scope", "enter_local_scope", "leave_local_scope", "var", "find_var",
           "scoped_function"]

_local = threading.local()


def _stack():
    stack = getattr(_local, "scopes", None)
    if stack is None:
        stack = _local.scopes = []
    if not stack:
        stack.append(Scope())
    return stack


def get_cur_scope():
    return _stack()[-1]


def enter_local_scope():
    stack = _stack()
    stack.append(stack[-1].new_scope())


def leave_local_scope():
    _stack().pop()
    get_cur_scope().drop_kids()


def var(name):
    """The current scope's variable `name`, created if missing."""
    return get_cur_scope().var(name)


def find_var(name):
    """The variable `name` in the current scope or its ancestors, else None."""
    return get_cur_scope().find_var(name)


def scoped_function(func):
    enter_local_scope()
    try:
        func()
    finally:
        leave_local_scope()
