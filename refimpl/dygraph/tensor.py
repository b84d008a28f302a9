"""paddle.Tensor in dynamic mode: an ndarray value plus its place in the autograd graph.

An eager Tensor is a Variable (every layer function, Variable method and isinstance
check takes it as it takes a static Variable), whose shape and dtype are its value's. No
program holds it: its `block` is, as in Paddle, the default main program's global block,
whose append_op runs an op on eager tensors now in dynamic mode (so code written against
`var.block.append_op(...)`, clipping and regularization, runs eagerly unchanged); the
optimizers' eager updates go to EAGER_BLOCK, which runs every op now. See
specs/dygraph.md.

A Tensor on a GPU holds a CuPy array (specs/gpu.md, dynamic mode); what reads its value on
the host (numpy(), item(), float(), printing, np.array) copies it there.
"""
import contextlib
import copy

import numpy as np

from .. import versions, xp
from . import inplace
from ..framework import unique_name
from ..framework.dtypes import get_dtype
from ..framework.errors import LayerAssertionError
from ..framework.fetched import as_fetched
from ..framework.place import CPUPlace, CUDAPlace, current_place, device_of
from ..framework.program import Parameter, Variable, default_main_program
from ..framework.selected_rows import RowsValue
from ..framework import math_patch, mode
from .printing import format_values

__all__ = ["Tensor", "ParamBase", "EAGER_BLOCK", "batch_value", "on_place_of", "on_place"]


def on_place(device_id, value, dtype=None):
    """`value` (an array, a device array, or what np.asarray takes) on GPU `device_id`, or
    on the host for None, as `dtype` if given; a copy only where it moves or converts."""
    if device_id is None:
        return np.asarray(xp.to_host(value), dtype=dtype)
    with xp.device(device_id):     # CuPy computes on the current device's arrays only
        if xp.device_id_of(value) != device_id:
            value = xp.to_device(np.asarray(xp.to_host(value)))
        return value if dtype is None else value.astype(dtype, copy=False)


def on_place_of(like, value, dtype=None):
    """`value` where array `like` lives (the host, or its GPU)."""
    if type(like) is np.ndarray:
        if type(value) is np.ndarray and dtype is None:
            return value
        return on_place(None, value, dtype)
    return on_place(xp.device_id_of(like), value, dtype)

_DTYPES = {}


def _dtype_of(array):
    d = _DTYPES.get(array.dtype)
    if d is None:
        d = _DTYPES[array.dtype] = get_dtype(array.dtype)
    return d


class Tensor(Variable):
    """An eager tensor. `_value` is its ndarray (None while a placeholder that an op is
    about to fill); `_node`/`_index`: the recorded op that produced it and which of its
    outputs it is (None for a leaf); `_grad`: the accumulated gradient (ndarray)."""

    type = "LOD_TENSOR"
    lod_level = 0
    is_data = False
    need_check_feed = False
    _hooks = None          # leaf gradient hooks
    _ready_hooks = None    # leaf hooks run once its .grad holds a backward's gradient
    _zeroed = False        # clear_grad() without memory: .grad reads zeros
    _sparse_grad = False   # Paddle keeps its gradient as SelectedRows (a sparse embedding)
    _grad_rows = None      # the rows of a gradient Paddle keeps as SelectedRows (autograd)
    _decl = None           # a placeholder's declared (dtype, shape)
    # defaults a new tensor shares until set (a tensor is made per op result)
    _name = None
    _persistable = False
    _grad = None
    _node = None
    _index = 0
    _version_counter = None   # its storage's inplace.Versions, made at its first in-place
                              # change, view or detach

    def __init__(self, value=None, stop_gradient=True, name=None, persistable=False):
        self._value = value
        self.stop_gradient = stop_gradient
        if name is not None:
            self._name = name
        if persistable:
            self._persistable = True

    @classmethod
    def _placeholder(cls, dtype=None, shape=None, stop_gradient=False, name=None,
                     persistable=False):
        """An unfilled output an op is about to write (what LayerHelper's
        create_variable_for_type_inference returns in dynamic mode)."""
        t = cls(None, stop_gradient, name, persistable)
        if dtype is not None or shape is not None:
            t._decl = (dtype, shape)
        return t

    # -- identity
    @property
    def name(self):
        if self._name is None:
            self._name = unique_name.generate(versions.switch("eager_tensor_name"))
        return self._name

    @name.setter
    def name(self, value):
        self._name = value

    @property
    def block(self):
        """The default main program's global block, as Paddle's: in dynamic mode its
        append_op runs an op on eager tensors now and its create_var makes a placeholder
        (Block's mode.eager path), so `var.block.append_op(...)` runs eagerly."""
        return default_main_program().global_block()

    @property
    def place(self):
        """CUDAPlace(i) for a value on GPU i, else CPUPlace()."""
        device = xp.device_id_of(self._value)
        return CPUPlace() if device is None else CUDAPlace(device)

    def _copy_to(self, device_id):
        """This tensor on GPU `device_id` (None: the host): itself when it is there, else
        a copy with its stop_gradient, outside the autograd graph (as Paddle's _copy_to)."""
        a = self._array()
        if xp.device_id_of(a) == device_id:
            return self
        return Tensor(on_place(device_id, a), stop_gradient=self.stop_gradient)

    def cuda(self, device_id=None, blocking=True):
        """This tensor on GPU `device_id` (default: set_device's GPU, else 0)."""
        if device_id is None:
            device_id = device_of(current_place()) or 0
        return self._copy_to(CUDAPlace(device_id).device_id)

    def cpu(self):
        return self._copy_to(None)

    def _host(self):
        """The value on the host: itself, or a copy from the GPU (after the checks the GPU
        kernels deferred: this is a point where the host waits for the device anyway)."""
        a = self._array()
        if type(a) is np.ndarray or not xp.is_device_array(a):
            return a
        xp.run_deferred_checks()
        return a.get()

    # -- value
    def _array(self):
        if self._value is None:
            raise ValueError("Tensor %r holds no value: it is the output of an op that has "
                             "not run" % self.name)
        return self._value

    @property
    def shape(self):
        if self._value is None:
            if self._decl is not None and self._decl[1] is not None:
                return list(self._decl[1])
            return self._array()
        return list(self._value.shape)

    @property
    def dtype(self):
        """The value's dtype, else the declared one (a placeholder's; a SelectedRows
        core.VarBase keeps its declared dtype, as Paddle's VarBase does)."""
        if self._value is None or isinstance(self._value, RowsValue):
            if self._decl is not None and self._decl[0] is not None:
                return get_dtype(self._decl[0])
            return self._array() if self._value is None else _dtype_of(self._value)
        return _dtype_of(self._value)

    @property
    def ndim(self):
        return self._array().ndim

    def dim(self):
        return self._array().ndim

    @property
    def size(self):
        return int(self._array().size)

    def numel(self):
        return self.size

    def numpy(self, place=None):
        """The value as an ndarray (a copy: changing it leaves the tensor as it is); a
        one-element one converts to a Python number where the profile says so, as fetched
        values do. Paddle 3 also takes a place (the array is on the host either way);
        1.8.5's and 2.0's take none (switch tensor_numpy_place)."""
        if place is not None and not versions.switch("tensor_numpy_place"):
            raise TypeError("numpy(): incompatible function arguments: Tensor.numpy() takes "
                            "no place before Paddle 3, got %r" % (place,))
        a = self._array()
        return as_fetched(a.copy() if type(a) is np.ndarray else np.array(self._host()))

    def value(self):
        """Paddle 1.8's VarBase.value(): the variable holding this tensor's value, whose
        get_tensor() is a LoDTensor view of it (Paddle's OpTest reads outputs so)."""
        from ..framework.scope import _ScopeVar
        return _ScopeVar(_ValueHolder(self), self.name)

    def item(self, *args):
        a = self._host()
        if not args and a.size != 1:
            raise ValueError("Tensor.item(): only a tensor of one element converts to a "
                             "Python scalar, this one has shape %s" % list(a.shape))
        return a.item(*args)

    def tolist(self):
        return self._host().tolist()

    def __array__(self, dtype=None, copy=None):
        a = self._host()
        if copy:
            return np.array(a, dtype=dtype, copy=True)
        return np.asarray(a, dtype=dtype)

    def __len__(self):
        a = self._array()
        if a.ndim == 0:
            raise TypeError("len() of a 0-D Tensor")
        return a.shape[0]

    def _scalar(self, kind):
        a = self._host()
        if a.size != 1:
            raise ValueError("only a Tensor of one element converts to %s, this one has "
                             "shape %s" % (kind.__name__, list(a.shape)))
        return kind(a.reshape(()))

    def __bool__(self):
        return self._scalar(bool)

    def __float__(self):
        return self._scalar(float)

    def __int__(self):
        return self._scalar(int)

    def __index__(self):
        if self._array().dtype.kind not in "iub":
            raise TypeError("only an integer Tensor can be used as an index, got %s"
                            % self.dtype.name)
        return self._scalar(int)

    def __repr__(self):
        a = self._value
        if a is None:
            return "Tensor(%s, no value)" % self.name
        body = format_values(self._host(), prefix="       ")
        return ("Tensor(shape=%s, dtype=%s, place=%s, stop_gradient=%s,\n       %s)"
                % (list(a.shape), _dtype_of(a).name, self.place, self.stop_gradient, body))

    __str__ = __repr__

    def _to_readable_code(self):
        return repr(self)

    def _to_static_var(self, to_parameter=False, **kwargs):
        """A static Variable of this tensor's block (the default main program's global
        one), name, shape, dtype, type and persistable, not added to the block (Paddle
        2.0's VarBase._to_static_var, which dy2static uses); a Parameter when
        to_parameter or for a ParamBase, which passes on its trainable, optimize_attr,
        regularizer, do_model_average, need_clip and is_distributed. kwargs override."""
        attrs = dict(block=self.block, name=self.name, shape=self.shape, dtype=self.dtype,
                     type=self.type, persistable=self.persistable)
        if isinstance(self, ParamBase):
            attrs.update(trainable=self.trainable, optimize_attr=self.optimize_attr,
                         regularizer=self.regularizer, need_clip=self.need_clip,
                         do_model_average=self.do_model_average,
                         is_distributed=self.is_distributed)
        attrs.update(kwargs)
        if not (to_parameter or isinstance(self, ParamBase)):
            return Variable(**attrs)
        del attrs["persistable"]
        distributed = attrs.pop("is_distributed", False)
        param = Parameter(**attrs)
        param.is_distributed = distributed
        return param

    # Eager comparisons are elementwise, as in Paddle (static Variables keep identity ==).
    def __eq__(self, other):
        return math_patch.binary_op(self, other, "equal")

    def __ne__(self, other):
        return math_patch.binary_op(self, other, "not_equal")

    __hash__ = Variable.__hash__

    # -- autograd
    @property
    def is_leaf(self):
        return self._node is None

    def __deepcopy__(self, memo):
        """copy.deepcopy: a tensor of its own with copies of the value and attributes,
        named <name>_deepcopy_<n> as 2.0 and 3.3.1 name it (a Parameter keeps its name).
        2.0 refuses a tensor an op made (switch deepcopy_non_leaf); 3.3.1's copy of one is
        a leaf (measured): the op that made it is not copied."""
        if self._node is not None and not versions.switch("deepcopy_non_leaf"):
            raise RuntimeError("Only Leaf Tensor support the deepcopy at the moment, non-Leaf "
                               "Tensors contains graph information that does't support "
                               "deepcopy (tensor %r)" % self.name)
        new = object.__new__(type(self))
        memo[id(self)] = new
        new.__dict__.update(copy.deepcopy({k: v for k, v in self.__dict__.items()
                                           if k not in ("_node", "_index")}, memo))
        if not isinstance(self, Parameter):
            new._name = self.name + unique_name.generate("_deepcopy")
        return new

    @property
    def grad(self):
        """The accumulated gradient: an ndarray under the Paddle 2.0 profile (a host copy
        of a GPU one), a Tensor on this tensor's place from 2.1 on; None before any
        backward reached this tensor."""
        if mode.legacy_grads:
            return self.gradient()
        g = self._grad_array()
        return None if g is None else Tensor(g, stop_gradient=False)

    @grad.setter
    def grad(self, value):
        if value is not None:
            a = self._array()
            value = on_place_of(a, value._array() if isinstance(value, Tensor) else value,
                                a.dtype)
        self._grad, self._grad_rows = value, None

    def gradient(self):
        """The gradient as an ndarray on the host, as Paddle's (None before any backward)."""
        g = self._grad_array()
        if g is None or type(g) is np.ndarray:
            return g
        xp.run_deferred_checks()
        return xp.to_host(g)

    def _grad_ivar(self):
        """Paddle 1.8's VarBase._grad_ivar(): the gradient as a Tensor, or None before
        any backward reached this tensor."""
        g = self._grad_array()
        return None if g is None else Tensor(g, stop_gradient=True)

    def _set_grad_ivar(self, value):
        """Paddle 3's: a parameter's gradient set to `value` (a Tensor); TypeError for a
        tensor that is not a parameter, in 3.3.1's words."""
        if not isinstance(self, ParamBase):
            raise TypeError("_set_grad_ivar is only supported for Parameter Tensor")
        self.grad = value

    def _grad_array(self):
        """The gradient where it lives (this tensor's place), or None."""
        if self._grad is None and self._zeroed:
            a = self._array()
            with xp.device(xp.device_id_of(a)):
                return xp.array_module(a).zeros_like(a)
        return self._grad

    def backward(self, grad_tensor=None, retain_graph=False):
        """Gradients of this tensor into every leaf's .grad. Paddle 1.8 called it as
        backward(backward_strategy): a BackwardStrategy in first place is that."""
        from .autograd import BackwardStrategy, backward
        if isinstance(grad_tensor, BackwardStrategy):
            grad_tensor = None
        backward([self], None if grad_tensor is None else [grad_tensor], retain_graph)

    def clear_grad(self, set_to_zero=True):
        """Forget the accumulated gradient: .grad reads zeros (set_to_zero, as Paddle) or
        None. The zeros are not stored: the next backward starts from nothing. A gradient
        Paddle keeps as SelectedRows (a sparse embedding's) reads None after it, as
        Paddle clears its rows."""
        if self._grad is not None or self._zeroed:
            self._grad = None
            # (Paddle clears a SelectedRows gradient's rows: no gradient is left)
            self._zeroed = set_to_zero and not self._sparse_grad

    clear_gradient = clear_grad

    def register_hook(self, hook):
        """hook(grad Tensor) -> None or a replacement gradient, called with this tensor's
        whole gradient during backward. Returns a handle whose remove() unregisters it."""
        from .autograd import register_hook
        return register_hook(self, hook)

    def retain_grads(self):
        """Keep the gradient of this non-leaf tensor in .grad after backward."""
        if self._node is not None:
            from .autograd import retain_grad
            retain_grad(self)

    def detach(self):
        """The same value and storage (its in-place changes reach this tensor, and the
        other way), cut from the graph: stop_gradient=True, as Paddle's."""
        detached = Tensor(self._array(), stop_gradient=True)
        if inplace.tracked():
            detached._share_storage(self)
        return detached

    def _use_gpudnn(self, use_gpudnn=True):
        """Paddle 3's choice of cuDNN kernels for the ops that read this tensor: refimpl
        has none, so this tensor itself (3.3.1: a new Tensor of the same name, storage and
        graph; Paddle 3's pool op tests call it)."""
        return self

    def clone(self):
        """A copy that stays in the graph (the assign op)."""
        from .dispatch import run_eagerly
        return run_eagerly("assign", {"X": [self]})

    def set_value(self, value):
        """Overwrite the value in place (same shape; cast to this tensor's dtype)."""
        a = self._array()
        new = value._array() if isinstance(value, Tensor) else value
        new = new if hasattr(new, "shape") else np.asarray(new)
        if tuple(new.shape) != a.shape:
            raise LayerAssertionError("set_value of Tensor %r: shape %s given, the tensor has %s"
                             % (self.name, list(new.shape), list(a.shape)))
        moved = on_place_of(a, new, a.dtype)   # it stays where it is (a GPU model loads
        self._value = moved.copy() if moved is new or type(a) is np.ndarray else moved

    def _inplace_from(self, result):
        """Make this tensor `result` (an op's output computed from it): the in-place
        variants (tanh_, reshape_, ...). A leaf that needs a gradient cannot change in
        place, as in Paddle: its gradient would belong to a value that no longer exists."""
        self._refuse_leaf_change()
        self._value = result._array()
        self._node, self._index = result._node, result._index
        self.stop_gradient = result.stop_gradient
        return self

    def _refuse_leaf_change(self):
        if self._node is None and not self.stop_gradient and mode.grad_enabled:
            raise ValueError("Leaf Tensor %r that doesn't stop gradient can't use an "
                             "in-place operation (it would lose its gradient)" % self.name)

    def _change_in_place(self, out_of_place, *args, **kwargs):
        """Paddle 2.0's in-place API (tanh_, reshape_, ...): this tensor becomes
        out_of_place(self, ...), one more in-place version, counted before the op runs as
        Paddle counts it (the op's own grad node saves this tensor at the new version)."""
        self._refuse_leaf_change()
        if not inplace.tracked():
            return self._inplace_from(out_of_place(self, *args, **kwargs))
        producer = self._before_in_place()
        self._version_counter.bump()
        self._inplace_from(out_of_place(self, *args, **kwargs))
        self._after_in_place(producer)
        return self

    # -- in-place versions (dygraph/inplace.py)
    @property
    def inplace_version(self):
        """How many times this tensor's storage changed in place (Paddle 2.0 on; 1.8.5's
        VarBase has no such attribute: switch inplace_version)."""
        if versions.switch("inplace_version") is None:
            raise AttributeError("'Tensor' object has no attribute 'inplace_version' (Paddle "
                                 "1.8's VarBase has none; it came with Paddle 2.0)")
        self._array()
        return 0 if self._version_counter is None else self._version_counter.current

    def _replace_value(self, value):
        """This tensor's storage now holds `value`, changed in place outside an op (copy_,
        set_, random_, ...): one more in-place version, and the tensors sharing the storage
        (detach, views) see it as after any in-place op."""
        self._array()
        producer = self._before_in_place()
        self._version_counter.bump()
        self._value = value
        self._after_in_place(producer)
        return self

    def _version_counter_made(self):
        counter = self._version_counter
        if counter is None:
            counter = self._version_counter = inplace.Versions()
        return counter

    def _share_storage(self, source):
        """This new tensor (a view op's output, a detach) shares `source`'s storage: its
        version counter, and each in-place change of either reaches both."""
        counter = source._version_counter_made()
        if counter.members is None:
            counter.join(source)
        counter.join(self)
        self._version_counter = counter
        if counter.bumps:
            inplace.watch_output(self)

    def _before_in_place(self):
        """Call before this tensor changes in place; returns its producer, which
        _after_in_place takes. At the storage's first change, the ops that saved one of
        its tensors as their output for the gradient start being watched."""
        counter = self._version_counter_made()
        if not counter.bumps:
            inplace.watch_output(self)
            for t in counter.others(self):
                inplace.watch_output(t)
        return self._node

    def _after_in_place(self, producer):
        """This tensor's value changed in place (after _before_in_place gave `producer`,
        the change counted): the other tensors of its storage get the new value in their
        shape (no array is written: the values ops saved stay as they were)."""
        value = self._value
        for t in self._version_counter.others(self):
            if t._value is not None and t._value.size == value.size:
                t._value = value.reshape(t._value.shape)
        if self._node is not producer:
            inplace.watch_output(self)

    @property
    def persistable(self):
        return self._persistable

    @persistable.setter
    def persistable(self, value):
        self._persistable = bool(value)


class ParamBase(Tensor, Parameter):
    """A parameter in dynamic mode: a leaf Tensor holding its value, with the Parameter
    attributes optimizers read (trainable, regularizer, optimize_attr, need_clip)."""
    is_distributed = False     # 2.0 / 3.3.1: only parameter-server tables are

    def __init__(self, value, name, trainable=True, regularizer=None, optimize_attr=None,
                 do_model_average=None, need_clip=True):
        Tensor.__init__(self, value, stop_gradient=not trainable, name=name,
                        persistable=True)
        self.trainable = bool(trainable)
        self.regularizer = regularizer
        self.optimize_attr = optimize_attr or {"learning_rate": 1.0}
        self.do_model_average = do_model_average
        self.need_clip = need_clip

    @property
    def trainable(self):
        """From 2.0 a dynamic-mode parameter trains exactly when it needs a gradient:
        trainable is `not stop_gradient`, and setting it (a bool only) sets stop_gradient,
        as Paddle 2.0's and 3.3.1's ParamBase; 1.8.5's is a plain attribute that stop_gradient
        ignores (switch param_trainable)."""
        if versions.switch("param_trainable") == "attribute":
            return self._trainable
        return not self.stop_gradient

    @trainable.setter
    def trainable(self, value):
        if versions.switch("param_trainable") == "attribute":
            self._trainable = value
            return
        if not isinstance(value, bool):
            raise ValueError("Parameter %r: trainable must be a bool, got %r"
                             % (self.name, value))
        self.stop_gradient = not value

    def __repr__(self):
        return "Parameter containing:\n" + Tensor.__repr__(self)

    __str__ = __repr__


class _ValueHolder:
    """One eager tensor seen as a scope holding its value (and sequence lengths) under its
    name: what value() views through a scope variable."""

    def __init__(self, tensor):
        self._tensor = tensor
        self._values = _OneValue(tensor)


class _OneValue:
    def __init__(self, tensor):
        self._tensor = tensor

    def get(self, name, default=None):
        value = self._tensor._value
        return default if value is None else value

    def __getitem__(self, name):
        return self._tensor._array()

    def __setitem__(self, name, value):
        # a LoDArray keeps its LoD; a SelectedRows (core.VarBase's) stays one
        self._tensor._value = value if isinstance(value, RowsValue) else np.asanyarray(value)


def batch_value(array):
    """What a DataLoader yields for one array of a batch: an eager Tensor in dynamic mode
    (stop_gradient, as Paddle's), a LoDTensor in static mode (Paddle's read_next /
    read_next_list: `.shape()`, `np.array(t)`, feedable to Executor.run)."""
    if not mode.dynamic:
        from ..framework.scope import LoDTensor
        return LoDTensor(value=array)
    device = device_of(current_place())
    return Tensor(array if device is None else on_place(device, array))


_NOTHING = contextlib.nullcontext()


class _EagerProgram:
    """What EAGER_BLOCK's `program` answers: role guards do nothing (nothing is built),
    one block."""
    _is_test = False

    def _role_guard(self, role, role_vars=()):
        return _NOTHING

    def _optimized_guard(self, param_and_grads):
        return _NOTHING

    def _backward_role_guard(self):
        return _NOTHING

    def _lr_schedule_guard(self):
        return _NOTHING

    def global_block(self):
        return EAGER_BLOCK

    def current_block(self):
        return EAGER_BLOCK

    def _bump(self):
        pass


class _EagerBlock:
    """Stands in for a Block in dynamic mode: append_op runs the op now, create_var makes
    an eager placeholder. Code that builds with `block.append_op` (optimizer updates,
    clipping, regularization) runs eagerly through it."""
    idx = 0
    parent_idx = -1
    vars = {}
    ops = ()

    def __init__(self):
        self.program = _EagerProgram()

    def append_op(self, type, inputs=None, outputs=None, attrs=None, **_ignored):
        (_run_op or _import_run_op())(type, inputs, outputs, attrs)

    def create_var(self, name=None, shape=None, dtype=None, persistable=False,
                   stop_gradient=False, **_ignored):
        return Tensor._placeholder(dtype, shape, stop_gradient, name, persistable)

    def has_var(self, name):
        return False

    def _find_var_recursive(self, name):
        return None


_run_op = None     # tracer.run_op, imported on first use (the tracer imports this module)


def _import_run_op():
    global _run_op
    from .tracer import run_op as _run_op
    return _run_op


EAGER_BLOCK = _EagerBlock()
