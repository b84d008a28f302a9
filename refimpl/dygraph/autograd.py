"""The autograd engine: Tensor.backward and paddle.grad over the recorded GradNodes.

Each node runs its op's registered backward -- the very `<type>_grad` kernel static mode
runs -- on the forward values it saved. Nodes run once every consumer of their outputs
has passed its gradient back (counted before the pass), so each output's gradient is
whole when its hooks see it. Leaves are counted the same way: a leaf accumulates into
`.grad` (across backward calls) as soon as the last node feeding it has run, and then
calls its ready hooks -- while the rest of the backward goes on (DataParallel starts
averaging a gradient there). Callbacks queued during a backward run when it ends.
With create_graph the gradient computation is itself recorded (see double_backward.py).
"""
import weakref

import numpy as np

from .. import xp
from ..dispatch import map_arrays
from . import inplace
from .tensor import Tensor, on_place_of
from .tracer import device_arrays, on_device

__all__ = ["backward", "grad", "register_hook", "retain_grad", "register_ready_hook",
           "queue_callback", "BackwardStrategy"]


class BackwardStrategy:
    """Paddle 1.8's `fluid.dygraph.BackwardStrategy`, given to `loss.backward(strategy)`.
    Its one option, sort_sum_gradient, made 1.8 add the gradients reaching one tensor in
    the order of the ops that produced them, latest first, so that runs repeat bit for
    bit. refimpl's engine always adds them in that order, which is also the order of
    static backward's `sum` ops, so the option changes nothing here."""

    def __init__(self):
        self.sort_sum_gradient = False


class _HookHandle:
    def __init__(self, hooks, hook):
        self._hooks, self._hook = hooks, hook

    def remove(self):
        if self._hook in self._hooks:
            self._hooks.remove(self._hook)


def register_hook(t, hook):
    if not callable(hook):
        raise TypeError("register_hook: expected a function of the gradient, got %s"
                        % type(hook).__name__)
    if t.stop_gradient:
        raise ValueError("register_hook on Tensor %r that stops gradient: no gradient will "
                         "reach it" % t.name)
    if t._node is None:
        if t._hooks is None:
            t._hooks = []
        hooks = t._hooks
    else:
        node = t._node
        if node.hooks is None:
            node.hooks = {}
        hooks = node.hooks.setdefault(t._index, [])
    hooks.append(hook)
    return _HookHandle(hooks, hook)


def register_ready_hook(leaf, hook):
    """hook(leaf) runs during each backward right after `leaf` (a Tensor without a node:
    a parameter) has accumulated that backward's gradient into .grad. Not for
    paddle.grad, which leaves .grad alone. Returns a handle whose remove() unregisters."""
    if leaf._node is not None:
        raise ValueError("register_ready_hook: Tensor %r is not a leaf" % leaf.name)
    if leaf._ready_hooks is None:
        leaf._ready_hooks = []
    leaf._ready_hooks.append(hook)
    return _HookHandle(leaf._ready_hooks, hook)


_callbacks = None     # the running backward's queued callbacks (None: no backward runs)


def queue_callback(fn):
    """fn() runs once the backward now running has finished (after every leaf's .grad is
    set); a RuntimeError outside a backward."""
    if _callbacks is None:
        raise RuntimeError("queue_callback: no backward is running")
    _callbacks.append(fn)


def retain_grad(t):
    """t.grad will be the gradient of t's value now: after an in-place change of t
    (fill_, normal_, tanh_, ...) still that of the value it had here, as Paddle 3's."""
    node = t._node
    if node.retained is None:
        node.retained = {}
    node.retained[t._index] = weakref.ref(t)
    t._retained_at = node


def _released_error(node):
    return RuntimeError(
        "backward through op %s a second time: the values it saved for its gradient were "
        "freed by the first backward. Pass retain_graph=True to the first backward (or "
        "paddle.grad) to run backward twice." % node.type)


class _Arrays:
    """Gradients as ndarrays: the ordinary backward."""

    @staticmethod
    def add(a, b):
        return a + b

    @staticmethod
    def zeros(shape, dtype):
        return np.zeros(shape, dtype)

    @staticmethod
    def to_user(g):
        return Tensor(g)

    @staticmethod
    def from_user(r):
        return r._array() if isinstance(r, Tensor) else np.asarray(r)

    @staticmethod
    def run(node, args, kw, need):
        """The grad op's kernel on `args`; `need` (which input gradients to produce) and the
        forward's hand-off go to a kernel that takes them. A node whose op ran on a GPU
        runs its grad op there (a gradient that came from the host copied over); one on
        the CPU that meets a gradient from a GPU copies it to the host."""
        device = node.device
        if device is not None:
            with xp.device(device):
                args = map_arrays(xp.to_device, args)
        # the first complex input's, else the first floating one's (softmax-CE's grad reads
        # Label first; a float X with a complex Y computes in complex)
        dtype = floating = None
        for a in args:
            if type(a) is np.ndarray or device is not None and a is not None \
                    and type(a) is not list:
                if a.dtype.kind == "c":
                    dtype = floating = a.dtype
                    break
                if a.dtype.kind == "f" and floating is None:
                    floating = a.dtype
                if dtype is None:
                    dtype = a.dtype
        dtype = floating or dtype
        found = node.grad_kernels.get(dtype.char if dtype is not None else None)
        if found is None:
            lay = node.lay
            kernels = lay.grad_kernels if device is None else lay.grad_gpu_kernels
            found = node.grad_kernels[dtype.char if dtype is not None else None] = \
                kernels.get(kw, dtype)
        fn, takes_saved, takes_need = found
        if takes_saved or takes_need:
            kw = dict(kw)
            if takes_need:
                kw["need"] = need
            if takes_saved:
                kw["saved"] = node.saved
        if device is not None:
            return on_device(device, fn, args, kw)
        try:
            return fn(*args, **kw)
        except Exception:
            if not device_arrays(args):
                raise
            return fn(*map_arrays(xp.to_host, args), **kw)


def _node_grads(node, grads, ops):
    """Run node's backward given its outputs' gradients (flat list); the gradients of its
    inputs, flat in the order of its edges."""
    lay = node.lay
    if node.released:
        raise _released_error(node)
    if inplace.active:     # (some storage changed in place)
        inplace.check_saved(node)
    if lay.grad_reads_ins:      # the common plans: its inputs (or its output), then dOut
        args = [*node.ins, grads[0]]
    elif lay.grad_reads_out:
        args = [node.outs[0], grads[0]]
    else:
        args = []
        for kind, k in lay.grad_plan:
            if kind == "in":
                args.append(node.ins[k])
            elif kind == "out":
                args.append(node.outs[k])
            elif lay.plain_single_out:
                args.append(grads[0])
            else:
                args.append(_slot_grads(node, grads, ops, k))
    need = None
    if lay.partial:
        need = tuple([e is not None for e in node.edges]) if lay.flat_grads else \
            tuple(any(e is not None for e in (edge if type(edge) is list else [edge]))
                  for edge in node.edges)
    result = ops.run(node, args, node.kw, need)
    if lay.single_grad:
        return [result] if lay.flat_grads else _flat_grads(node, (result,))
    return list(result) if lay.flat_grads else _flat_grads(node, result)


def _flat_grads(node, result):
    """The grad op's results (per grad-receiving slot: a gradient, or a list for a list
    slot) flat in the order of the node's edges."""
    flat = []
    for edge, g in zip(node.edges, result):
        if type(edge) is list:
            g = g if g is not None else [None] * len(edge)
            flat.extend(g[j] if j < len(g) else None for j in range(len(edge)))
        else:
            flat.append(g)
    return flat


def _slot_grads(node, grads, ops, k):
    """Output slot k's gradients for the grad op: None when none reached the slot, else
    zeros in place of the missing ones (as static backward fills them)."""
    meta = node.out_meta[k]
    start = node.out_offsets()[k]
    if type(meta) is not list:
        return grads[start]
    got = grads[start:start + len(meta)]
    if all(g is None for g in got):
        return None
    return [g if g is not None or m is None else ops.zeros(*m) for g, m in zip(got, meta)]


def _apply_hooks(hooks, g, ops):
    for hook in list(hooks):
        r = hook(ops.to_user(g))
        if r is not None:
            g = ops.from_user(r)
    return g


def _run(roots, retain_graph, ops, capture=None, blocked=()):
    """The backward pass from `roots` [(edge, gradient)]. Without `capture`, leaves
    accumulate into .grad. With `capture` {edge key: position} (paddle.grad), only what
    leads to the captured edges runs and their whole gradients are returned instead.
    `blocked`: edge keys no gradient passes through (no_grad_vars)."""
    root_nodes = []
    for edge, _ in roots:
        if type(edge) is tuple and edge[0] not in root_nodes:
            root_nodes.append(edge[0])
    if capture is None:
        useful, deps, leaf_deps = _count_edges(root_nodes, blocked)
    else:
        useful, deps, leaf_deps = _count_captured_edges(root_nodes, capture, blocked)
    for edge, _ in roots:
        if type(edge) is not tuple:
            leaf_deps[id(edge)] = leaf_deps.get(id(edge), 0) + 1
    pending, leaf_grads, captured = {}, {}, {}
    leaf_rows = {}     # leaf key -> the rows its sparse contributions list, None: a dense one
    add = ops.add

    def send(edge, g, seq=_ROOT_SEQ, rows=None):
        """Gradient `g` (or None: none) from the node recorded `seq`-th along `edge`; True
        when it completed a node's. The gradients reaching one tensor are kept as
        contributions and added when the last arrives (_total). `rows`: the ids of an
        is_sparse lookup whose W gradient `g` is (None: a dense gradient)."""
        if type(edge) is tuple:
            if blocked and edge in blocked:
                return False
            node, i = edge
            slot = pending.get(node)
            if slot is None:
                slot = pending[node] = [None] * node.n_out
            if g is not None:
                slot[i] = _contribute(slot[i], seq, g)
            left = deps[node] = deps[node] - 1
            return left == 0
        key = id(edge)
        if blocked and key in blocked:
            return False
        if g is not None:
            leaf_grads[key] = _contribute(leaf_grads.get(key), seq, g)
            listed = leaf_rows.get(key, ())
            leaf_rows[key] = None if rows is None or listed is None else listed + rows
        left = leaf_deps[key] = leaf_deps[key] - 1
        if left == 0 and key in leaf_grads:
            leaf_done(edge, _leaf_total(leaf_grads.pop(key), add), leaf_rows.pop(key))
        return False

    def leaf_done(leaf, g, rows):
        if leaf._hooks:
            g = _apply_hooks(leaf._hooks, g, ops)
        if capture is not None:
            captured[id(leaf)] = g
            return
        _accumulate(leaf, g, rows)
        if leaf._ready_hooks:
            for hook in list(leaf._ready_hooks):
                hook(leaf)

    for edge, g in roots:
        if type(edge) is tuple:    # (a root's node runs once every root has sent to it)
            deps[edge[0]] = deps.get(edge[0], 0) + 1
        send(edge, g)
    ready = [n for n in root_nodes if deps.get(n, 0) == 0]
    while ready:
        node = ready.pop()
        grads = pending.pop(node, None)
        grads = [_total(c, add) for c in grads] if grads else [None] * node.n_out
        if node.hooks:
            for i, hooks in node.hooks.items():
                if grads[i] is not None:
                    grads[i] = _apply_hooks(hooks, grads[i], ops)
        if node.retained and capture is None:
            # (legacy grads: an output no gradient reached, beside one that got it, keeps
            # zeros, as Paddle 1.8's engine zero-fills the missing output gradients)
            for i, ref in node.retained.items():
                t = ref()
                if t is None or (t._node is not node and
                                 getattr(t, "_retained_at", None) is not node):
                    continue
                g = grads[i]
                if g is None and t._grad is None and any(x is not None for x in grads):
                    t._grad = ops.zeros(t._array().shape, t._array().dtype)
                elif g is not None:
                    t._grad = g if t._grad is None else t._grad + g
        if capture is not None:
            for i, g in enumerate(grads):
                if (node, i) in capture:
                    captured[(node, i)] = g
            if node not in useful:
                continue
        rows = _sparse_rows(node) if node.lay.type in _LOOKUPS else None
        if rows is not None and grads[0] is not None and _rows_kept(node, ops, capture):
            in_grads = [_RowsGrad(node, grads[0], rows), None]
        else:
            for g in grads:
                if g is not None:
                    in_grads = _node_grads(node, grads, ops)
                    break
            else:
                in_grads = [None] * len(node.flat_edges)
        if not retain_graph:
            node.release()
        seq = node.seq
        for e, g in zip(node.flat_edges, in_grads):
            if e is not None and send(e, g, seq, rows):
                ready.append(e[0])
    return captured


_LOOKUPS = frozenset({"lookup_table", "lookup_table_v2"})


def _sparse_rows(node):
    """The ids (a tuple, repeats kept) of an is_sparse lookup node, whose W gradient Paddle
    keeps as a SelectedRows listing them; None for a dense lookup."""
    if not node.kw.get("is_sparse"):
        return None
    ids = node.ins[1]      # (W, Ids)
    return tuple(xp.to_host(ids).reshape(-1).tolist())


def _rows_kept(node, ops, capture):
    """Whether an is_sparse lookup's W gradient may travel as its rows (_RowsGrad): the
    ordinary backward on the host, W a leaf without hooks (what Paddle keeps as a
    SelectedRows); else the grad op makes it dense."""
    edge = node.flat_edges[0]
    return ops is _Arrays and capture is None and edge is not None and \
        type(edge) is not tuple and not edge._hooks and type(node.ins[0]) is np.ndarray


class _RowsGrad:
    """An is_sparse lookup's W gradient as its rows: the flat ids (repeats kept) and
    Out@GRAD's rows ([ids, D], zero at padding_idx), made dense only when a leaf's
    contributions are summed (_leaf_total): a million-row table costs one scatter a step,
    not a dense zeros-and-add per lookup."""
    __slots__ = ("ids", "values", "shape", "dtype")

    def __init__(self, node, dout, rows):
        w = node.ins[0]
        self.ids = np.asarray(rows, np.int64)
        self.values = np.asarray(dout).reshape(len(self.ids), w.shape[1])
        padding = node.kw.get("padding_idx", -1)
        if padding != -1:
            self.values = self.values * (self.ids != padding)[:, None]
        self.shape, self.dtype = w.shape, w.dtype

    def add_to(self, total):
        """total + this gradient made dense, rounded as that sum is: repeated ids added
        first (the grad op's scatter-add into zeros), then into `total`."""
        unique, where = np.unique(self.ids, return_inverse=True)
        merged = np.zeros((len(unique), self.shape[1]), self.dtype)
        np.add.at(merged, where.reshape(-1), self.values.astype(self.dtype, copy=False))
        total[unique] += merged
        return total


def _dense_total(gradients):
    """The sum (in this order) of gradients some of which are _RowsGrad."""
    first = next(g for g in gradients if type(g) is _RowsGrad)
    total = np.zeros(first.shape, first.dtype)
    for g in gradients:
        if type(g) is _RowsGrad:
            g.add_to(total)
        else:
            total += g
    return total


_ROOT_SEQ = float("inf")     # a root's gradient comes first


def _contribute(got, seq, g):
    """A tensor's gradient contributions so far, `g` (from the node recorded seq-th) added:
    one (seq, g) pair, or a list of them."""
    if got is None:
        return seq, g
    if type(got) is list:
        got.append((seq, g))
        return got
    return [got, (seq, g)]


def _total(contributions, add):
    """The sum of a tensor's gradient contributions, the latest-recorded op's first (a
    stable sort keeps one op's own contributions in slot order): the order of Paddle 1.8's
    sorted sum and of static backward's `sum` op, so eager and static gradients agree bit
    for bit."""
    if contributions is None:
        return None
    if type(contributions) is tuple:
        return contributions[1]
    contributions.sort(key=lambda c: -c[0])
    total = contributions[0][1]
    for _, g in contributions[1:]:
        total = add(total, g)
    return total


def _leaf_total(contributions, add):
    """_total of a leaf's contributions, where an is_sparse lookup's rows (_RowsGrad: only
    leaves get them, _rows_kept) are made dense in the same order."""
    if type(contributions) is tuple:
        g = contributions[1]
        return _dense_total([g]) if type(g) is _RowsGrad else g
    if any(type(g) is _RowsGrad for _, g in contributions):
        contributions.sort(key=lambda c: -c[0])
        return _dense_total([g for _, g in contributions])
    return _total(contributions, add)


def _count_edges(root_nodes, blocked):
    """(every node reachable from the roots, not through a blocked edge: those never run;
    {node: how many edges lead into it}; {id(leaf): the same})."""
    reach, stack = set(root_nodes), list(root_nodes)
    deps, leaf_deps = dict.fromkeys(root_nodes, 0), {}
    while stack:
        for e in stack.pop().flat_edges:
            if e is None:
                continue
            if type(e) is tuple:
                if blocked and e in blocked:
                    continue
                parent = e[0]
                if parent in reach:
                    deps[parent] += 1
                else:
                    deps[parent] = 1
                    reach.add(parent)
                    stack.append(parent)
            elif not (blocked and id(e) in blocked):
                leaf_deps[id(e)] = leaf_deps.get(id(e), 0) + 1
    return reach, deps, leaf_deps


def _count_captured_edges(root_nodes, capture, blocked):
    """_count_edges for paddle.grad: only the nodes leading to a captured edge run, so
    only their edges count."""
    reach, _, _ = _count_edges(root_nodes, blocked)
    useful = _leading_to(reach, capture)
    deps, leaf_deps = {}, {}
    for node in useful:
        for e in node.flat_edges:
            if e is None or blocked and _key(e) in blocked:
                continue
            if type(e) is tuple:
                deps[e[0]] = deps.get(e[0], 0) + 1
            else:
                leaf_deps[id(e)] = leaf_deps.get(id(e), 0) + 1
    return useful, deps, leaf_deps


def _key(edge):
    """Hashable identity of an edge: (node, index), or the leaf's id."""
    return edge if type(edge) is tuple else id(edge)


def _leading_to(reach, capture):
    """The reachable nodes from which a captured edge can be reached (those that must run
    for paddle.grad): those with a captured edge, then their consumers, transitively."""
    consumers = {}
    useful, todo = set(), []
    for node in reach:
        for e in node.flat_edges:
            if e is None:
                continue
            if _key(e) in capture and node not in useful:
                useful.add(node)
                todo.append(node)
            if type(e) is tuple:
                consumers.setdefault(e[0], []).append(node)
    while todo:
        for node in consumers.get(todo.pop(), ()):
            if node not in useful:
                useful.add(node)
                todo.append(node)
    return useful


def _accumulate(leaf, g, rows):
    """Add `g` into leaf.grad. `rows`: the rows `g` lists as an is_sparse lookup's
    SelectedRows gradient (None: dense); leaf._grad_rows keeps the rows of the whole
    gradient while every part of it is such a one (Paddle adds SelectedRows into a
    SelectedRows, anything dense makes it dense)."""
    value = leaf._array()
    if type(g) is not type(value):    # a host leaf used on a GPU (or the reverse)
        g = on_place_of(value, g)
    if g.shape != value.shape or g.dtype != value.dtype:
        g = np.broadcast_to(g, value.shape).astype(value.dtype)
    if leaf._grad is None:
        leaf._grad, leaf._grad_rows = g, rows
    else:
        leaf._grad = leaf._grad + g
        if leaf._grad_rows is not None:
            leaf._grad_rows = None if rows is None else leaf._grad_rows + rows


def _root_grad(t, g, where):
    value = t._array()
    if g is None:
        if type(value) is np.ndarray:
            return np.ones_like(value)
        with xp.device(xp.device_id_of(value)):    # CuPy allocates on the current GPU
            return xp.array_module(value).ones_like(value)
    g = on_place_of(value, g._array() if isinstance(g, Tensor) else g, value.dtype)
    if tuple(g.shape) != value.shape:
        raise ValueError("%s: the gradient given for Tensor %r has shape %s, the tensor %s"
                         % (where, t.name, list(g.shape), list(value.shape)))
    return g


def _as_list(x):
    return list(x) if isinstance(x, (list, tuple)) else [x]


def backward(tensors, grad_tensors=None, retain_graph=False):
    """paddle.autograd.backward / Tensor.backward: gradients of `tensors` (each seeded
    with ones, or its grad_tensor) accumulated into the .grad of every leaf that needs
    one. Tensors that stop gradient contribute nothing."""
    tensors = _as_list(tensors)
    grads = _as_list(grad_tensors) if grad_tensors is not None else [None] * len(tensors)
    if len(grads) != len(tensors):
        raise ValueError("backward: %d grad_tensors for %d tensors" % (len(grads),
                                                                       len(tensors)))
    roots = []
    for t, g in zip(tensors, grads):
        if not isinstance(t, Tensor):
            raise TypeError("backward: expected eager Tensors, got %s" % type(t).__name__)
        if t.stop_gradient:
            continue
        roots.append((t if t._node is None else (t._node, t._index),
                      _root_grad(t, g, "backward")))
    if not roots:
        return
    global _callbacks
    outer, _callbacks = _callbacks, []
    try:
        if type(roots[0][1]) is np.ndarray:
            _run(roots, retain_graph, _Arrays)
        else:
            with xp.device(xp.device_id_of(roots[0][1])):    # where gradients add up
                _run(roots, retain_graph, _Arrays)
        while _callbacks:      # a callback may queue another
            _callbacks.pop(0)()
    except BaseException:
        xp.drop_deferred_checks()   # this backward's error stands for its graph's checks
        raise
    finally:
        _callbacks = outer
    xp.run_deferred_checks()   # a GPU kernel's input checks (a label out of range)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         only_inputs=True, allow_unused=False, no_grad_vars=None):
    """paddle.grad: the gradients of sum(outputs) with respect to each of `inputs`, as
    Tensors, leaving every .grad as it is. create_graph=True records the computation so
    the result can be differentiated again."""
    outputs, inputs = _as_list(outputs), _as_list(inputs)
    if retain_graph is None:
        retain_graph = create_graph
    grad_outputs = _as_list(grad_outputs) if grad_outputs is not None \
        else [None] * len(outputs)
    if len(grad_outputs) != len(outputs):
        raise ValueError("paddle.grad: %d grad_outputs for %d outputs"
                         % (len(grad_outputs), len(outputs)))
    for what, ts in (("outputs", outputs), ("inputs", inputs)):
        for t in ts:
            if not isinstance(t, Tensor):
                raise TypeError("paddle.grad: %s must be eager Tensors, got %s"
                                % (what, type(t).__name__))
    capture = {}
    for pos, t in enumerate(inputs):
        capture.setdefault(_key(t if t._node is None else (t._node, t._index)), pos)
    blocked = {_key(t if t._node is None else (t._node, t._index))
               for t in _as_list(no_grad_vars or [])}
    if create_graph:
        if any(xp.is_device_array(t._value) for t in outputs):
            raise NotImplementedError(
                "paddle.grad(create_graph=True) of Tensors on a GPU: double backward runs "
                "on the CPU only (specs/gpu.md, dynamic mode); move them with .cpu()")
        from .double_backward import Traced
        ops = Traced
        roots = [((t if t._node is None else (t._node, t._index)),
                  Traced.root(t, g)) for t, g in zip(outputs, grad_outputs)
                 if not t.stop_gradient]
    else:
        ops = _Arrays
        roots = [((t if t._node is None else (t._node, t._index)),
                  _root_grad(t, g, "paddle.grad")) for t, g in zip(outputs, grad_outputs)
                 if not t.stop_gradient]
    captured = {}
    if roots:
        with xp.device(xp.device_id_of(roots[0][1])):
            captured = _run(roots, retain_graph, ops, capture, blocked)
    results = []
    for i, t in enumerate(inputs):
        g = captured.get(_key(t if t._node is None else (t._node, t._index)))
        if g is None:
            if not allow_unused:
                raise ValueError("paddle.grad: input %d (Tensor %r) does not appear in the "
                                 "backward graph of the outputs; pass allow_unused=True to "
                                 "get None for it" % (i, t.name))
            results.append(None)
        elif create_graph:    # (differentiable even where it is a constant, as Paddle)
            results.append(g if not g.stop_gradient else Tensor(g._value, stop_gradient=False))
        else:
            results.append(Tensor(g, stop_gradient=True))
    return results
