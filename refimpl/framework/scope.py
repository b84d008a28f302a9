"""Scopes hold the runtime values of variables, by name.

A Scope keeps a plain dict name -> ndarray (`_values`), which the executor uses
directly as its environment: no wrapper objects on the hot path.
"""
import contextlib
import sys
import threading

import numpy as np

from ..xp import to_host
from .dtypes import convert_dtype, to_numpy_dtype
from .errors import TensorValueError
from .selected_rows import RowsValue
from .lod import (as_plain, check_lengths, lengths_to_offsets, lod_of, offsets_to_lengths,
                  rank_order,
                  valid_for, with_lod)

__all__ = ["Scope", "Tensor", "LoDTensor", "LoDTensorArray", "SelectedRows", "global_scope",
           "scope_guard", "checked_value"]


def _reference_counts(values, key):
    """sys.getrefcount of values[key] and of each array down its chain of bases (a view
    holds its base), and what ends the chain (None: an array owning its data)."""
    counts = []
    a = values[key]
    while isinstance(a, np.ndarray):
        counts.append(sys.getrefcount(a))
        a = a.base
    return counts, a


def _private_counts():
    """What _reference_counts gives, called as Tensor._set_element calls it, for a view
    (of an array nothing else holds) that only its dict and the caller's local hold: the
    counts measured on this interpreter, which need not count its own references as
    CPython 3.11 does."""
    values = {"v": np.zeros(2).reshape(2, 1)}
    v = values["v"]
    counts, _ = _reference_counts(values, "v")
    del v
    return counts


_PRIVATE_VIEW, _PRIVATE_BASE = _private_counts()


def _seen_by_holder_only(values, key):
    """Whether values[key] is a writable array that nothing but `values` (and the caller's
    one local) references, nor the arrays it is a view of: then writing into it in place
    changes nothing anyone else holds (an earlier fetch, another variable's view)."""
    counts, end = _reference_counts(values, key)
    return (end is None and values[key].flags.writeable and counts[0] <= _PRIVATE_VIEW
            and all(c <= _PRIVATE_BASE for c in counts[1:]))


def _element_accessors(dtype):
    """A Tensor's (get, set) of one element of `dtype` (its value must hold that dtype)."""
    def get(self, i):
        return self._element(i, dtype)

    def put(self, i, value):
        self._set_element(i, value, dtype)
    return get, put


class Tensor:
    """Paddle's LoDTensor: one variable's value in a scope (or a free-standing value), with
    its LoD (framework/lod.py): recursive sequence lengths, e.g. [[2, 3]] = two sequences
    of 2 and 3 rows; lod() gives the same as offsets, [[0, 2, 5]]. The LoD travels with the
    value (a LoDArray), through the ops that keep it (specs/lod.md)."""

    def __init__(self, recursive_sequence_lengths=None, *, scope=None, name=None, value=None):
        """`LoDTensor()` or `LoDTensor([[2, 3]])` as in Paddle; refimpl binds a tensor to a
        scope variable (scope=, name=) or gives it a value (value=)."""
        self._scope = scope
        self._name = name
        self._own = value
        self._pending_lod = ()     # a LoD set before the tensor holds a value
        self._dims = None
        if recursive_sequence_lengths is not None:
            self.set_recursive_sequence_lengths(recursive_sequence_lengths)

    # -- the value
    def _get(self):
        if self._scope is None:
            return self._own
        return self._scope._values.get(self._name)

    def _put(self, value):
        if self._scope is None:
            self._own = value
        else:
            self._scope._values[self._name] = value

    def set(self, array, place=None):
        """The tensor's data becomes a copy of `array`; its LoD stays (as in Paddle).
        Numbers only: strings or objects are refused, as Paddle's tensor.set()."""
        value = np.array(array, copy=True)
        if value.dtype.kind not in "biufc":
            raise TensorValueError("tensor.set() supports arrays of bool, float16, float32, "
                                   "float64, int8, int16, int32, int64, uint8 or complex "
                                   "values, but got %s (%r)" % (value.dtype, self._name))
        self._put(with_lod(value, self._lod_levels()))

    def _is_initialized(self):
        return self._get() is not None

    def _set_dims(self, dims):
        """The shape the next _alloc_* gives the tensor."""
        self._dims = [int(d) for d in dims]

    def _get_dims(self):
        return self.shape()

    def _alloc(self, dtype):
        if self._dims is None:
            raise ValueError("tensor %r: call _set_dims(shape) before allocating" % self._name)
        # a LoD set before the allocation stays, as in Paddle
        self._put(with_lod(np.zeros(self._dims, dtype=dtype), self._lod_levels()))

    def _alloc_float(self, place=None):
        self._alloc(np.float32)

    def _alloc_int(self, place=None):
        self._alloc(np.int32)

    def _mutable_data(self, place, dtype):
        """The address of the tensor's buffer of `dtype` (allocated, zeros, if it holds
        none of that dtype)."""
        v = self._get()
        if v is None or v.dtype != to_numpy_dtype(dtype):
            shape = self._dims if v is None else v.shape
            self._put(np.zeros(shape if shape is not None else [0], to_numpy_dtype(dtype)))
        return int(self._get().ctypes.data)

    def _value_or_fail(self):
        v = self._get()
        if v is None:
            raise ValueError("tensor %r holds no value (not set, fed or computed yet)"
                             % self._name)
        return v

    def shape(self):
        v = self._get()
        if v is not None:
            return list(np.shape(v))
        return list(self._dims) if self._dims is not None else []

    def _dtype(self):
        return convert_dtype(self._value_or_fail().dtype)

    def _numel(self):
        return int(np.size(self._value_or_fail()))

    def _element(self, i, dtype):
        v = self._value_or_fail()
        if v.dtype != dtype:
            raise TypeError("tensor %r holds %s, not %s" % (self._name, v.dtype, np.dtype(dtype)))
        return v.reshape(-1)[i].item()

    def _holder(self):
        """(dict, key) under which the value lives: the scope's values or the tensor's own."""
        if self._scope is None:
            return self.__dict__, "_own"
        return self._scope._values, self._name

    def _set_element(self, i, value, dtype):
        v = self._value_or_fail()
        if v.dtype != dtype:
            raise TypeError("tensor %r holds %s, not %s" % (self._name, v.dtype, np.dtype(dtype)))
        if _seen_by_holder_only(*self._holder()):
            # OpTest's numeric gradient writes each element of an input in turn: in place
            # when no one else can see the array, rather than copying all of it each time
            v.flat[i] = value
            return
        flat = np.array(v).reshape(-1)      # a copy: the old array may be fetched elsewhere
        flat[i] = value
        self._put(with_lod(flat.reshape(v.shape), lod_of(v)))

    # _get_float_element(i) / _set_float_element(i, value), and the double (float64)
    # and Paddle 3's complex64 / complex128 ones
    _get_float_element, _set_float_element = _element_accessors(np.float32)
    _get_double_element, _set_double_element = _element_accessors(np.float64)
    _get_complex64_element, _set_complex64_element = _element_accessors(np.complex64)
    _get_complex128_element, _set_complex128_element = _element_accessors(np.complex128)

    def _ptr(self):
        """The address of the tensor's buffer (Paddle 3's Tensor._ptr)."""
        return int(self._value_or_fail().ctypes.data)

    def _copy(self, place=None):
        """A free-standing copy (value and lengths)."""
        v = self._get()
        return Tensor(value=None if v is None else with_lod(np.array(v, copy=True), lod_of(v)))

    def _place(self):
        from .place import CPUPlace
        return CPUPlace()

    def __getitem__(self, index):
        return Tensor(value=np.array(self._value_or_fail()[index], copy=True))

    # -- LoD
    def _lod_levels(self):
        v = self._get()
        return self._pending_lod if v is None else lod_of(v)

    def _set_lod_levels(self, lod):
        v = self._get()
        if v is None:
            self._pending_lod = lod
        else:
            self._put(with_lod(v, lod))

    def recursive_sequence_lengths(self):
        return [list(level) for level in self._lod_levels()]

    def set_recursive_sequence_lengths(self, recursive_seq_lens):
        """Paddle's binding checks the levels among themselves (not against the rows): each
        level non-empty and adding up to the next level's count."""
        lod = check_lengths(recursive_seq_lens, "set_recursive_sequence_lengths")
        if any(not level for level in lod) or not valid_for(lod, sum(lod[-1]) if lod else 0):
            raise TensorValueError(
                "set_recursive_sequence_lengths: %r is not a valid LoD (each level must be "
                "non-empty and add up to the next level's count)" % (recursive_seq_lens,))
        self._set_lod_levels(lod)

    def _to_dlpack(self):
        """A DLPack capsule sharing the tensor's host memory (core.from_dlpack reads it)."""
        return np.ascontiguousarray(self.__array__()).__dlpack__()

    def lod(self):
        return lengths_to_offsets(self._lod_levels())

    def set_lod(self, lod):
        self._set_lod_levels(offsets_to_lengths(lod, "set_lod"))

    def has_valid_recursive_sequence_lengths(self):
        """Each level's lengths add up to the next level's count; the last to the rows."""
        lod, value = self._lod_levels(), self._get()
        if not lod:
            return True
        return value is not None and np.ndim(value) > 0 and valid_for(lod, len(value))

    def __array__(self, dtype=None, copy=None):
        v = as_plain(to_host(self._value_or_fail()))   # a GPU value: a host copy, as Paddle
        # numpy 2 passes copy=True for np.array(t) and trusts us to copy: without it the
        # "copy" would change when an optimizer updates the parameter in place
        if copy:
            return np.array(v, dtype=dtype, copy=True)
        return np.asarray(v, dtype=dtype)

    def __repr__(self):
        lod = self.lod()
        return "LoDTensor(%r%s, %r)" % (self._name, ", lod=%s" % lod if lod else "", self._get())

    __str__ = __repr__


LoDTensor = Tensor


class LoDTensorArray(list):
    """fluid.LoDTensorArray: a list of LoDTensors (or arrays), the value of a
    LOD_TENSOR_ARRAY variable; what it is fetched as with return_numpy=False."""


class SelectedRows:
    """core.SelectedRows (framework/selected_rows.py): `SelectedRows(rows, height)`
    free-standing, or a view of a scope variable (scope=, name=, from
    `get_selected_rows()`) that reads the variable each time, so it sees what ops wrote."""

    def __init__(self, rows=(), height=0, *, scope=None, name=None):
        self._scope = scope
        self._name = name
        self._own = RowsValue(tuple(int(r) for r in rows), int(height), None)

    def _get(self):
        return self._own if self._scope is None else self._scope._values[self._name]

    def _put(self, **changes):
        value = self._get()._replace(**changes)
        if self._scope is None:
            self._own = value
        else:
            self._scope._values[self._name] = value

    def height(self):
        return self._get().height

    def set_height(self, height):
        self._put(height=int(height))

    def rows(self):
        return list(self._get().rows)

    def set_rows(self, rows):
        self._put(rows=tuple(int(r) for r in rows))

    def sync_index(self):
        """Paddle rebuilds its row -> index map here; refimpl looks rows up when used."""

    def numel(self):
        value = self._get().value
        return 0 if value is None else int(np.size(value))

    def get_tensor(self):
        """The value tensor ([len(rows), ...]): reading and setting it goes to this
        SelectedRows' value."""
        return _RowsTensor(self)

    def __repr__(self):
        sr = self._get()
        return "SelectedRows(rows=%s, height=%d, value=%r)" % (list(sr.rows), sr.height,
                                                              sr.value)


class _RowsTensor(Tensor):
    def __init__(self, selected_rows):
        super().__init__(name="%s (SelectedRows value)" % selected_rows._name)
        self._rows = selected_rows

    def _get(self):
        return self._rows._get().value

    def _put(self, value):
        self._rows._put(value=value)


class _ScopeArray:
    """A scope variable's tensor array as Paddle's LoDTensorArray: its items read as
    LoDTensors (data and LoD); append and item assignment store a tensor's value with its
    LoD. The scope keeps a list of arrays, as the ops read it, and each change makes a new
    list (a list an op recorded earlier never changes, ops/tensor_array.py)."""

    def __init__(self, scope, name):
        self._scope = scope
        self._name = name

    def _items(self):
        return self._scope._values[self._name]

    def _store(self, items):
        self._scope._values[self._name] = LoDTensorArray(items)

    def __len__(self):
        return len(self._items())

    def __getitem__(self, i):
        value = self._items()[i]
        return value if value is None else Tensor(value=value)

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    def __setitem__(self, i, tensor):
        items = list(self._items())
        items[i] = _tensor_value(tensor)
        self._store(items)

    def append(self, tensor):
        self._store(list(self._items()) + [_tensor_value(tensor)])

    def __repr__(self):
        return "LoDTensorArray(%r, %d tensors)" % (self._name, len(self))


def _tensor_value(tensor):
    """What a tensor array holds for `tensor`: its value with its LoD (None stays)."""
    if isinstance(tensor, Tensor):
        return tensor._value_or_fail()
    return tensor if tensor is None else np.asarray(tensor)


class _ScopeVar:
    """Paddle's scope Variable: what scope.var(name) / find_var(name) return."""

    def __init__(self, scope, name):
        self._scope = scope
        self._name = name

    def get_tensor(self):
        if isinstance(self._scope._values.get(self._name), RowsValue):
            raise TypeError("scope variable %r holds a SelectedRows: read it with "
                            "get_selected_rows()" % self._name)
        return Tensor(scope=self._scope, name=self._name)

    def get_selected_rows(self):
        """The variable as a SelectedRows (an empty one if it held nothing)."""
        value = self._scope._values.get(self._name)
        if value is None:
            self._scope._values[self._name] = RowsValue((), 0, None)
        elif not isinstance(value, RowsValue):
            raise TypeError("scope variable %r holds a %s, not a SelectedRows"
                            % (self._name, type(value).__name__))
        return SelectedRows(scope=self._scope, name=self._name)

    def is_initialized(self):
        return self._scope._values.get(self._name) is not None

    def set_float(self, value):
        self._scope._values[self._name] = np.array([value], dtype=np.float32)

    def set_int(self, value):
        self._scope._values[self._name] = np.array([value], dtype=np.int32)

    def is_int(self):
        return np.asarray(self._scope._values.get(self._name)).dtype == np.int32

    def is_float(self):
        return np.asarray(self._scope._values.get(self._name)).dtype == np.float32

    def get_float(self):
        return float(np.asarray(self._scope._values[self._name]).reshape(-1)[0])

    def get_int(self):
        return int(np.asarray(self._scope._values[self._name]).reshape(-1)[0])

    def get_lod_tensor_array(self):
        value = self._scope._values.get(self._name)
        if value is None:
            self._scope._values[self._name] = LoDTensorArray()
        elif not isinstance(value, list):
            raise TypeError("scope variable %r holds a tensor, not a list of tensors"
                            % self._name)
        return _ScopeArray(self._scope, self._name)

    get_fetch_list = get_lod_tensor_array   # the executor's fetch holder is such a list

    def get_lod_rank_table(self):
        value = self._scope._values.get(self._name)
        if value is None:
            raise ValueError("scope variable %r holds no rank table (not computed yet)"
                             % self._name)
        return LoDRankTable(value)


class LoDRankTable:
    """A rank table's value as Paddle's LoDRankTable (ops/_rank_table.py): items() are
    (sequence index, length) longest first, ties in index order; level() is the LoD level
    it ranks, coarse_lod() the levels above (offsets)."""

    def __init__(self, value):
        self._lengths = np.asarray(value).reshape(-1).astype(np.int64)
        self._coarse = lod_of(value)

    def items(self):
        return [(int(i), int(self._lengths[i])) for i in rank_order(self._lengths)]

    def level(self):
        return len(self._coarse)

    def coarse_lod(self):
        return lengths_to_offsets(self._coarse)


class Scope:
    def __init__(self, parent=None, values=None):
        """`values`: the dict that holds this scope's values (shared, not copied: a
        data-parallel place's values seen as a Scope); a new one by default."""
        self._values = {} if values is None else values
        self._parent = parent
        self._kid_scopes = []

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

    def _remove_from_pool(self):
        """Paddle frees the C++ scope; here it only marks the scope removed, so that a
        second removal is the error it is in Paddle."""
        if getattr(self, "_removed", False):
            raise RuntimeError("Deleting a nonexistent scope is not allowed")
        self._removed = True

    def new_scope(self):
        kid = Scope(self)
        self._kid_scopes.append(kid)
        return kid

    def _kids(self):
        """The scopes made by new_scope (and not dropped), oldest first."""
        return list(self._kid_scopes)

    def drop_kids(self):
        self._kid_scopes.clear()

    def local_var_names(self):
        return list(self._values)

    def size(self):
        """The number of variables this scope itself holds (Paddle 3's Scope.size)."""
        return len(self._values)

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
