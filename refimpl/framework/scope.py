"""Scopes hold the runtime values of variables, by name.

A Scope keeps a plain dict name -> ndarray (`_values`), which the executor uses
directly as its environment: no wrapper objects on the hot path.
"""
import contextlib
import threading

import numpy as np

from .dtypes import convert_dtype

__all__ = ["Scope", "Tensor", "LoDTensor", "LoDTensorArray", "global_scope", "scope_guard",
           "checked_value"]


class Tensor:
    """A view of one variable's value in a scope (Paddle's LoDTensor)."""

    def __init__(self, scope=None, name=None, value=None):
        self._scope = scope
        self._name = name
        self._own = value

    def _get(self):
        if self._scope is None:
            return self._own
        return self._scope._values.get(self._name)

    def set(self, array, place=None):
        value = np.array(array, copy=True)
        if self._scope is None:
            self._own = value
        else:
            self._scope._values[self._name] = value

    def shape(self):
        v = self._get()
        return list(v.shape) if v is not None else []

    def _dtype(self):
        return convert_dtype(self._get().dtype)

    def lod(self):
        return []

    def set_lod(self, lod):
        if lod:
            raise NotImplementedError("LoD (variable-length sequences) is not supported")

    def __array__(self, dtype=None, copy=None):
        v = self._get()
        if v is None:
            raise ValueError("tensor %r holds no value" % self._name)
        # numpy 2 passes copy=True for np.array(t) and trusts us to copy: without it the
        # "copy" would change when an optimizer updates the parameter in place
        if copy:
            return np.array(v, dtype=dtype, copy=True)
        return np.asarray(v, dtype=dtype)

    def __repr__(self):
        return "Tensor(%r, %r)" % (self._name, self._get())


LoDTensor = Tensor


class LoDTensorArray(list):
    """fluid.LoDTensorArray: a list of LoDTensors (or arrays); what a tensor array variable
    is fetched as with return_numpy=False."""


class _ScopeVar:
    def __init__(self, scope, name):
        self._scope = scope
        self._name = name

    def get_tensor(self):
        return Tensor(self._scope, self._name)

    def is_initialized(self):
        return self._name in self._scope._values


class Scope:
    def __init__(self, parent=None):
        self._values = {}
        self._parent = parent
        self._kids = []

    def var(self, name):
        """Find or create `name` in this scope."""
        if self._find_owner(name) is None:
            self._values.setdefault(name, None)
        return _ScopeVar(self._find_owner(name), name)

    def set_values(self, values):
        """Give several variables their values at once, {name: ndarray}, each where
        `var(name)` would put it, stored as given (not copied). Loaders check and prepare
        every value first and then call this, which cannot stop half-way."""
        for name, value in values.items():
            (self._find_owner(name) or self)._values[name] = value

    def find_var(self, name):
        owner = self._find_owner(name)
        return _ScopeVar(owner, name) if owner is not None else None

    def _find_owner(self, name):
        s = self
        while s is not None:
            if name in s._values:
                return s
            s = s._parent
        return None

    def new_scope(self):
        kid = Scope(self)
        self._kids.append(kid)
        return kid

    def drop_kids(self):
        self._kids.clear()

    def local_var_names(self):
        return list(self._values)

    def erase(self, names):
        for n in names:
            self._values.pop(n, None)


_global_scope = Scope()
_guards = []            # (thread, the scope it replaced) for every scope_guard in force
_guards_lock = threading.Lock()


def global_scope():
    return _global_scope


@contextlib.contextmanager
def scope_guard(scope):
    """`scope` is the global scope inside the block. It is process-wide, as in Paddle:
    every thread's global_scope() sees it. So two threads may not be inside scope_guards at
    once (either would switch the other's scope, and leaving in the other order would leave
    the wrong one behind): the second raises. Threads give each run its scope instead,
    exe.run(program, scope=...)."""
    global _global_scope
    me = threading.current_thread()
    with _guards_lock:
        others = {thread.name for thread, _ in _guards if thread is not me}
        if others:
            raise RuntimeError(
                "scope_guard in thread %r while thread %s is inside one: the global scope is "
                "process-wide (as in Paddle), so this would switch it for that thread too. "
                "Give each thread's runs their own scope instead: exe.run(program, "
                "scope=my_scope), and read values with my_scope.find_var(name)"
                % (me.name, ", ".join(map(repr, sorted(others)))))
        _guards.append((me, _global_scope))
        _global_scope = scope
    try:
        yield
    finally:
        with _guards_lock:
            _, _global_scope = _guards.pop()


def checked_value(var, value, fn, source, copy=False):
    """`value` as an array for the Variable `var`, or a ValueError naming `fn`, the variable,
    the shape (-1 matches any size) and dtype expected and what came from `source`. `copy`
    for values the caller keeps (a user's state dict)."""
    value = np.array(value) if copy else np.asarray(value)
    shape = var.shape
    ok_shape = shape is None or (len(shape) == value.ndim and all(
        d < 0 or d == g for d, g in zip(shape, value.shape)))
    ok_dtype = var.dtype is None or var.dtype.np == value.dtype
    if not (ok_shape and ok_dtype):
        raise ValueError("%s: variable %r expects shape %s dtype %s, got shape %s dtype "
                         "%s from %s" % (fn, var.name, shape and list(shape),
                                         var.dtype and var.dtype.name, list(value.shape),
                                         value.dtype, source))
    return value
