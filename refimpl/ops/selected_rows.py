"""The ops that take or make SelectedRows (framework/selected_rows.py), as Paddle 1.8 runs
them. For an op that reads or writes a SELECTED_ROWS variable the executor binds
`rows_forward(op_type, dense)`: a function with the op's forward signature that runs
`dense` (the kernel the op would run on tensors) on what the SelectedRows stand for. Every
result equals the op on those dense tensors, bit for bit, except where Paddle defines
otherwise (adam: the beta powers read one step ahead, lazy_mode). specs/selected_rows.md.
"""
import functools

import numpy as np

from .. import versions
from ..framework.selected_rows import RowsValue, check_rows, merged, to_dense
from .optimizer_ops import Adam, beta_values

__all__ = ["ROWS_FORWARDS", "ROWS_OUTPUT_BUFFERS", "ROWS_ALIASED_SLOTS", "SPARSE_UPDATES",
           "rows_forward", "mark_sparse_gradients", "sparse_gradients"]


def _dense(x, what):
    return to_dense(x, what) if isinstance(x, RowsValue) else x


def _sum(dense, xs):
    """All SelectedRows: one SelectedRows, rows merged (ascending, duplicates added);
    any dense input: the dense sum."""
    if all(isinstance(x, RowsValue) for x in xs):
        listed = [x for x in xs if x.rows]
        if not listed:
            value = xs[0].value
            empty = np.zeros((0,) + np.shape(value)[1:], np.asarray(value).dtype) \
                if value is not None else None
            return RowsValue((), xs[0].height, empty)
        for x in listed:
            check_rows(x, "sum")
        return merged(RowsValue(sum((x.rows for x in listed), ()), listed[0].height,
                                np.concatenate([np.asarray(x.value) for x in listed])), "sum")
    return dense([_dense(x, "sum") for x in xs])


def _scale(dense, x, scale_tensor=None, **attrs):
    """The listed rows scaled; rows and height kept (bias applies to listed rows only, as
    in Paddle)."""
    if isinstance(x, RowsValue):
        return x._replace(value=dense(np.asarray(x.value), scale_tensor, **attrs))
    return dense(x, scale_tensor, **attrs)


def _clip_by_norm(dense, x, **attrs):
    """A SelectedRows: its rows merged (ascending, duplicates added), then the merged value
    clipped by its norm (Paddle 1.8's kernel merges first). The height is kept and not
    checked: Paddle 1.8 never reads it here (test_clip_by_norm_op sets none, so 0)."""
    if not isinstance(x, RowsValue):
        return dense(x, **attrs)
    rows = merged(x, "clip_by_norm X", within_height=False)
    return rows._replace(value=dense(rows.value, **attrs))


def _rows_kept(dense, x, *rest, **attrs):
    """X a SelectedRows (elementwise_mul by a [1] scale): its rows kept, its value
    computed."""
    if not isinstance(x, RowsValue):
        return dense(x, *rest, **attrs)
    return x._replace(value=dense(np.asarray(x.value), *rest, **attrs))


def _rows_merged(dense, x, *rest, **attrs):
    """X a SelectedRows (clip): its rows merged (ascending, duplicates added), then the
    merged value computed, as Paddle's kernel merges first."""
    if not isinstance(x, RowsValue):
        return dense(x, *rest, **attrs)
    rows = merged(x, "X", within_height=False)
    return rows._replace(value=dense(np.asarray(rows.value), *rest, **attrs))


def _of_merged_value(dense, x, **attrs):
    """X a SelectedRows (square, squared_l2_norm in a gradient clip's norm): the op on its
    merged value, what Paddle's clip computes through merge_selected_rows and
    get_tensor_from_selected_rows (the same norm as the dense gradient's)."""
    if not isinstance(x, RowsValue):
        return dense(x, **attrs)
    return dense(np.asarray(merged(x, "X", within_height=False).value), **attrs)


def _merge_rows(dense, x):
    """A SelectedRows: its rows merged (ascending, duplicates added); height kept."""
    if not isinstance(x, RowsValue):
        return dense(x)
    return merged(x, "merge_selected_rows X")


def _fill_constant(dense, *inputs, **attrs):
    """Into a SelectedRows: its value tensor is the filled (or, uniform_random, drawn)
    tensor, no rows listed."""
    value = dense(*inputs, **attrs)
    return RowsValue((), value.shape[0] if value.ndim else 1, value)


def _value_tensor(dense, x):
    """get_tensor_from_selected_rows: the value of the listed rows, as they are."""
    return np.array(x.value, copy=True) if isinstance(x, RowsValue) else dense(x)


def _value_shape(dense, x):
    """shape of a SelectedRows: its value tensor's ([listed rows, row width]), as Paddle's
    shape kernel reads it (2.0's test_shape_op)."""
    return dense(np.asarray(x.value)) if isinstance(x, RowsValue) else dense(x)


def _lookup_table(dense, w, ids, **attrs):
    """A SelectedRows table: each id is looked up among its rows."""
    if not isinstance(w, RowsValue):
        return dense(w, ids, **attrs)
    check_rows(w, "lookup_table W")
    where = {r: i for i, r in enumerate(w.rows)}
    missing = sorted({int(i) for i in ids.reshape(-1)} - set(where) -
                     {attrs.get("padding_idx", -1)})
    if missing:
        raise IndexError("lookup_table: ids %s are not rows of the SelectedRows table W "
                         "(rows %s)" % (missing[:10], list(w.rows)[:10]))
    index = np.array([where.get(int(i), 0) for i in ids.reshape(-1)], np.int64)
    return dense(np.asarray(w.value), index.reshape(ids.shape), **attrs)


def _lookup_table_grad(dense, w, ids, dout, **attrs):
    """is_sparse: W@GRAD as a SelectedRows, one row per id (repeats kept, Paddle's
    optimizers merge them), holding Out@GRAD's rows. As in Paddle 1.8.5, an id equal to
    padding_idx is listed with its gradient too (the dense gradient leaves that row
    zero)."""
    flat = np.asarray(ids).reshape(-1)
    return RowsValue(tuple(int(i) for i in flat), int(np.shape(w)[0]),
                     np.asarray(dout).reshape(len(flat), -1))


def _hsigmoid_grad(dense, x, w, label, path_table, path_code, bias, pre_out, dout,
                   **attrs):
    """is_sparse: W@GRAD as a SelectedRows of the tree nodes the batch's paths visit
    (ascending, once each), holding their rows of the dense gradient; X@GRAD and Bias@GRAD
    stay dense (Paddle 1.8.5's var types)."""
    from .hierarchical_sigmoid import _paths
    dx, dw, dbias = dense(x, w, label, path_table, path_code, bias, pre_out, dout, **attrs)
    nodes, _, valid = _paths(label, path_table, path_code, attrs.get("num_classes", 2),
                             len(x))
    rows = np.unique(np.asarray(nodes)[np.asarray(valid)])
    return dx, RowsValue(tuple(int(r) for r in rows), int(np.shape(w)[0]), dw[rows]), dbias


def _sgd(dense, param, lr, grad):
    """Param -= lr * Grad on the listed rows only (duplicates add); a SelectedRows Param
    is updated at the positions of those rows."""
    if not isinstance(grad, RowsValue):
        return dense(_dense(param, "sgd Param"), lr, grad)
    check_rows(grad, "sgd Grad")
    if isinstance(param, RowsValue):
        where = {r: i for i, r in enumerate(param.rows)}
        missing = sorted(set(grad.rows) - set(where))
        if missing:
            raise IndexError("sgd: Grad rows %s are not rows of the SelectedRows Param %s"
                             % (missing[:10], list(param.rows)[:10]))
        value = np.array(param.value)
        index = [where[r] for r in grad.rows]
    else:
        value, index = param, list(grad.rows)
    step = lr.reshape(-1)[0].astype(value.dtype) * np.asarray(grad.value)
    np.subtract.at(value, np.asarray(index, np.int64), step.astype(value.dtype))
    return param._replace(value=value) if isinstance(param, RowsValue) else value


def _dense_grad(dense, param, grad, *rest, **attrs):
    """The op with its Grad (second input) made dense: Paddle's sparse kernels of these
    ops compute exactly the dense update."""
    return dense(param, _dense(grad, "Grad"), *rest, **attrs)


def _rmsprop(dense, param, mean_square, mean_grad, lr, grad, moment, **attrs):
    """rmsprop with its Grad (fifth input) made dense: Paddle's sparse kernel updates every
    row too, a row Grad does not list with a zero gradient."""
    return dense(param, mean_square, mean_grad, lr, _dense(grad, "rmsprop Grad"), moment,
                 **attrs)


def _adam(dense, param, grad, lr, m1, m2, b1p, b2p, b1t=None, b2t=None, lazy_mode=False,
          out_buffers=(None, None, None), powers_aliased=(False, False), **attrs):
    """A SelectedRows Grad, as Paddle's sparse adam kernel (1.8.5 and 3.3.1, measured):
    its rows merged; each beta power whose output is the input variable itself
    (`powers_aliased`: what an optimizer builds) is advanced first and the update reads
    the advanced value, one step ahead of the dense update. The listed rows move as the
    dense update moves them; without lazy_mode every other row too, with a zero gradient
    and epsilon unscaled (Adam.decay_rows). The moved rows are written into the tensors
    ParamOut, Moment1Out and Moment2Out already hold (`out_buffers`, None where they hold
    none or are the inputs themselves): Paddle writes nothing else there."""
    if not isinstance(grad, RowsValue):
        return dense(param, grad, lr, m1, m2, b1p, b2p, b1t, b2t, lazy_mode=lazy_mode,
                     **attrs)
    grad = merged(grad, "adam Grad")
    beta1, beta2 = beta_values(b1t, b2t, attrs.get("beta1", Adam.attrs["beta1"]),
                               attrs.get("beta2", Adam.attrs["beta2"]))
    powers_out = (b1p * b1p.dtype.type(beta1), b2p * b2p.dtype.type(beta2))
    b1r, b2r = (ahead if aliased else given for ahead, given, aliased in
                zip(powers_out, (b1p, b2p), powers_aliased))
    rows = np.asarray(grad.rows, np.int64)
    outs = [buffer if buffer is not None and np.shape(buffer) == np.shape(source) else source
            for buffer, source in zip(out_buffers, (param, m1, m2))]
    p, n1, n2 = param[rows], m1[rows], m2[rows]
    if not lazy_mode:
        # every row decays (in place, elementwise), then the listed rows are overwritten
        # below: no set difference of a million-row table's ids each step
        for out, source in zip(outs, (param, m1, m2)):
            if out is not source:
                out[...] = source
        Adam.decay_rows(*outs, lr, b1r, b2r, beta1, beta2,
                        attrs.get("epsilon", Adam.attrs["epsilon"]))
    # (the dense kernel advances the copies of the powers it is given; those are dropped)
    dense(p, np.asarray(grad.value), lr, n1, n2, b1r.copy(), b2r.copy(), b1t, b2t,
          lazy_mode=lazy_mode, **attrs)
    for out, moved in zip(outs, (p, n1, n2)):
        out[rows] = moved
    return tuple(outs) + powers_out


def _ftrl(dense, param, squared, linear, grad, lr, **attrs):
    """A SelectedRows Grad (Paddle 2.0's sparse ftrl kernel; 1.8.5 refuses one: switch
    ftrl_selected_rows): its rows merged, then the dense update of those rows of Param and
    both accumulators; the other rows keep their values."""
    if not isinstance(grad, RowsValue):
        return dense(param, squared, linear, grad, lr, **attrs)
    if not versions.switch("ftrl_selected_rows"):
        raise TypeError("ftrl: Paddle 1.8's ftrl op takes no SelectedRows Grad (2.0 does)")
    grad = merged(grad, "ftrl Grad")
    rows = np.asarray(grad.rows, np.int64)
    outs = [np.array(a) for a in (param, squared, linear)]
    moved = dense(*(a[rows] for a in outs), np.asarray(grad.value), lr, **attrs)
    for out, part in zip(outs, moved):
        out[rows] = part
    return tuple(outs)


# the ops whose rule writes into what these output slots already hold (keyword out_buffers)
ROWS_OUTPUT_BUFFERS = {"adam": ("ParamOut", "Moment1Out", "Moment2Out")}
# the ops whose rule is told which (input, output) slot pairs name one variable (keyword
# powers_aliased)
ROWS_ALIASED_SLOTS = {"adam": (("Beta1Pow", "Beta1PowOut"), ("Beta2Pow", "Beta2PowOut"))}

ROWS_FORWARDS = {"sum": _sum, "scale": _scale, "clip_by_norm": _clip_by_norm,
                 "merge_selected_rows": _merge_rows,
                 "fill_constant": _fill_constant, "uniform_random": _fill_constant,
                 "lookup_table": _lookup_table, "lookup_table_v2": _lookup_table,
                 "lookup_table_grad": _lookup_table_grad,
                 "lookup_table_v2_grad": _lookup_table_grad,
                 "hierarchical_sigmoid_grad": _hsigmoid_grad, "sgd": _sgd, "adam": _adam,
                 "momentum": _dense_grad, "lamb": _dense_grad, "adagrad": _dense_grad,
                 "rmsprop": _rmsprop, "ftrl": _ftrl,
                 "get_tensor_from_selected_rows": _value_tensor, "shape": _value_shape,
                 "elementwise_mul": _rows_kept, "clip": _rows_merged,
                 "square": _of_merged_value, "squared_l2_norm": _of_merged_value}
# the optimizers that take a SelectedRows gradient (Paddle's others refuse one: adamax, ftrl,
# decayed_adagrad, adadelta, lars_momentum, dpsgd in 1.8.5; adamw, adamax, adadelta in
# 3.3.1, measured), and the grad ops that make one (in the slot named) when their forward
# op has is_sparse (mark_sparse_gradients)
SPARSE_UPDATES = frozenset({"sgd", "adam", "momentum", "lamb", "adagrad", "rmsprop"})
SPARSE_GRAD_MAKERS = {"lookup_table_grad": "W@GRAD", "lookup_table_v2_grad": "W@GRAD",
                      "hierarchical_sigmoid_grad": "W@GRAD"}


def _uses(block):
    writers, readers = {}, {}
    for op in block.ops:
        for n in op.output_arg_names:
            writers.setdefault(n, []).append(op)
        for n in op.input_arg_names:
            readers.setdefault(n, []).append(op)
    return writers, readers


def _sparse_sources(name, writers):
    """The variables that make `name` a SelectedRows in Paddle: [name] when one is_sparse
    SPARSE_GRAD_MAKERS op writes it (in its sparse slot), [name, parts...] when one `sum`
    adds such ones (a table looked up more than once); else None."""
    made = writers.get(name, [])
    if len(made) != 1:
        return None
    op = made[0]
    if op.type == "sum":
        parts = [_sparse_sources(x, writers) for x in op.inputs.get("X", ())]
        return [name] + [n for part in parts for n in part] if parts and all(parts) else None
    sparse = op.type in SPARSE_GRAD_MAKERS and bool(op.attrs.get("is_sparse")) and \
        name in op.outputs.get(SPARSE_GRAD_MAKERS[op.type], ())
    return [name] if sparse else None


def sparse_gradients(block, grads):
    """The gradients among `grads` that Paddle keeps as SelectedRows: those is_sparse
    lookup (or hsigmoid) grad ops write, or a sum of them."""
    writers = _uses(block)[0]
    return [g for g in grads if _sparse_sources(g.name, writers)]


# ops of a gradient clip that take a SelectedRows X: those whose Out is one too (the
# clipped gradient), and those that read it into a tensor (the norm)
CLIP_PASSES = frozenset({"elementwise_mul", "clip", "clip_by_norm"})
CLIP_NORMS = frozenset({"square", "squared_l2_norm"})


def _rows_flow(name, writers, readers):
    """The variables a SelectedRows `name` makes SelectedRows through gradient clipping
    (itself first), when everything that reads them can take one: SPARSE_UPDATES, and the
    clips' CLIP_PASSES / CLIP_NORMS ops reading them as X; else None."""
    flow, todo = [], [name]
    while todo:
        n = todo.pop()
        flow.append(n)
        read = readers.get(n, [])
        if not read:
            return None
        for op in read:
            if op.type in SPARSE_UPDATES:
                continue
            if op.type not in CLIP_PASSES | CLIP_NORMS or op.inputs.get("X") != [n]:
                return None
            if op.type in CLIP_PASSES:
                out = op.outputs["Out"][0]
                if len(writers.get(out, [])) != 1:
                    return None
                todo.append(out)
    return flow


def mark_sparse_gradients(block, grads):
    """Make each gradient in `grads` a SELECTED_ROWS variable, as Paddle 1.8 does for an
    is_sparse embedding's (or hsigmoid's) W@GRAD, where refimpl can run it so: one
    is_sparse SPARSE_GRAD_MAKERS op writes it (or a `sum` of such ones: the table looked up
    more than once, the parts then SelectedRows too) and only SPARSE_UPDATES read it,
    directly or through a gradient clip (whose clipped gradient is then one too, as
    Paddle's). Otherwise (regularization, data parallelism) it stays dense, the same numbers
    but for adam's (specs/selected_rows.md)."""
    writers, readers = _uses(block)
    for g in grads:
        sources = _sparse_sources(g.name, writers)
        flow = sources and _rows_flow(g.name, writers, readers)
        for name in (sources + flow) if flow else ():
            block._find_var_recursive(name).type = "SELECTED_ROWS"


def rows_forward(op_type, dense):
    """`op_type` on SelectedRows, running `dense` (its kernel on tensors) on what they
    stand for; a TypeError naming the op when it has no such rule."""
    rule = ROWS_FORWARDS.get(op_type)
    if rule is None:
        raise TypeError("%s: refimpl runs no %s op on SelectedRows variables; ops that do: %s"
                        % (op_type, op_type, ", ".join(sorted(ROWS_FORWARDS))))
    return functools.partial(rule, dense)
