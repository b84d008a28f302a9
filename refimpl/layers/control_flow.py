"""Static-graph control flow (specs/control_flow.md): cond, case, switch_case, while_loop,
While, Switch, IfElse and tensor arrays. Branch and loop bodies are sub-blocks of the program, run by
conditional_block / while ops (framework.dataflow appends them); their slots list the outside
names each block reads and writes. On eager Tensors cond and while_loop are Python's if and
while, as in Paddle's dynamic mode."""
import contextlib
import functools
import weakref

import numpy as np

from .. import versions
from ..framework import mode
from ..dygraph.tensor import Tensor
from ..framework import nest, unique_name
from ..framework.layer_helper import LayerHelper
from ..framework.math_patch import cast
from ..framework.program import Variable, default_main_program
from ..framework.dataflow import append_conditional_block, append_while
from .common import append_op_out, check_dtype, check_variable
from .creation import assign, fill_constant
from .tensor import concat, stack
from .math import logical_not, _logical

_logical_and = _logical("logical_and")
_LOOP_BODIES = weakref.WeakSet()      # blocks a while op runs (made by _sub_block)
_COPIES_BACK = weakref.WeakSet()      # while_loop's assigns of a copy's result to its var


def _check_condition(var, api, what="pred"):
    if not isinstance(var, Variable):
        raise TypeError("%s: %s must be a Variable, got %s" % (api, what, type(var).__name__))
    shape = var.shape or ()
    if var.dtype is None or var.dtype.name != "bool" or not all(d in (1, -1) for d in shape):
        raise TypeError("%s: %s %r must be a bool tensor with one element, got dtype %s "
                        "shape %s" % (api, what, var.name, var.dtype.name if var.dtype else
                                      None, list(shape)))


@contextlib.contextmanager
def _sub_block(loop_body=False):
    """Make a new block the current one (ops appended inside go there); yields it.
    `loop_body`: a while op will run it once per step (see _keep_pre_loop_value)."""
    program = default_main_program()
    block = program._create_block()
    if loop_body:
        _LOOP_BODIES.add(block)
    try:
        yield block
    finally:
        program._rollback()


@contextlib.contextmanager
def in_parent_block(block=None):
    """Ops appended here go to the block holding `block` (default: the current one), before
    the op that will run it (a loop's arrays and accumulators, made from inside its body)."""
    program = default_main_program()
    inside = program._current_block_idx
    program._current_block_idx = (block or program.current_block()).parent_idx
    try:
        yield
    finally:
        program._current_block_idx = inside


def _append_conditional_block(block, cond, is_scalar_condition=True, scope=False):
    """Run `block` under `cond` (a bool Variable, or a list of Variables that must all
    have an element when not is_scalar_condition); `scope` names a step-scope variable
    as Paddle 1.8's ConditionalBlock does."""
    append_conditional_block(default_main_program().current_block(), block,
                             cond if isinstance(cond, list) else [cond], is_scalar_condition,
                             scope)


def _flatten(out):
    """The Variables of a branch's result, nested lists, tuples and dicts of them and of
    None (left out), in nest's order (a dict's values by sorted key, as Paddle's)."""
    leaves = [v for v in nest.flatten(out) if v is not None]
    for v in leaves:
        if not isinstance(v, Variable):
            raise TypeError("cond/while_loop: branch and body functions must return Variables "
                            "(or lists/tuples/dicts of them), got %s" % type(v).__name__)
    return leaves


def _same_structure(a, b):
    """nest's same structure (Paddle's cond: types not checked), with a Variable or a None
    in the same places."""
    try:
        nest.assert_same_structure(a, b, check_types=False)
    except ValueError:
        return False
    return all(isinstance(x, Variable) == isinstance(y, Variable) and (x is None) == (y is None)
               for x, y in zip(nest.flatten(a), nest.flatten(b)))


def _merged_shape(a, b):
    """The build-time shape of a value that is one of two: -1 where they differ, unknown
    (None) when their ranks differ."""
    if a is None or b is None or len(a) != len(b):
        return None
    return [x if x == y else -1 for x, y in zip(a, b)]


def cond(pred, true_fn=None, false_fn=None, name=None):
    """Run true_fn's ops when the scalar bool `pred` is true, else false_fn's; returns the
    taken branch's outputs (both branches must return the same structure and dtypes; the
    shapes may differ, as in Paddle: the output has the taken branch's). Only the taken
    branch runs."""
    _check_condition(pred, "cond")
    if isinstance(pred, Tensor):
        fn = true_fn if bool(pred) else false_fn
        return fn() if fn is not None else None
    for fn, which in ((true_fn, "true_fn"), (false_fn, "false_fn")):
        if fn is not None and not callable(fn):
            raise TypeError("cond: %s must be callable, got %s" % (which, type(fn).__name__))
    branches = []
    for fn in (true_fn, false_fn):
        if fn is None:      # no block for a missing branch, as Paddle's cond
            branches.append((None, None))
            continue
        with _sub_block() as block:
            out = fn()
        branches.append((block, out))
    (true_block, true_out), (false_block, false_out) = branches
    if true_out is None and false_out is None:
        # branches run for their effects (an optimizer's minimize in a branch), as Paddle's
        if true_fn is not None:
            _append_conditional_block(true_block, pred)
        if false_fn is not None:
            _append_conditional_block(false_block, logical_not(pred))
        return None
    counts = [len(out) if isinstance(out, (list, tuple)) else 1
              for out in (true_out, false_out)]
    if counts[0] != counts[1] and true_out is not None and false_out is not None and \
            versions.switch("cond_output_count_error"):
        raise ValueError("cond: true fn returns %d vars, but false fn returns %d vars, which "
                         "is not equals" % tuple(counts))
    if not _same_structure(true_out, false_out):
        raise ValueError("cond: Incompatible return values of true_fn and false_fn in cond: "
                         "they must return the same structure, got %r and %r"
                         % (true_out, false_out))
    helper = LayerHelper("cond", name=name)
    merged, shapes, dtypes = [], [], []
    for t, f in zip(_flatten(true_out), _flatten(false_out)):
        # under profile 1.8 the branches may differ in dtype: the value is the taken
        # branch's, the build-time dtype false_fn's, as in Paddle 1.8.5
        if t.dtype != f.dtype and versions.switch("cond_branch_dtypes") == "same":
            raise ValueError("cond: the branches' outputs differ: true_fn returns %r (%s), "
                             "false_fn returns %r (%s)"
                             % (t.name, t.dtype.name, f.name, f.dtype.name))
        shapes.append(_merged_shape(t.shape, f.shape))
        dtypes.append(f.dtype)
        merged.append(helper.create_variable_for_type_inference(f.dtype, shape=shapes[-1]))
    for block, out in branches:
        for value, target in zip(_flatten(out), merged):
            block.append_op(type="assign", inputs={"X": [value]}, outputs={"Out": [target]})
    for target, shape, dtype in zip(merged, shapes, dtypes):   # each assign set its own
        target._set_shape_dtype(shape, dtype)
    _append_conditional_block(true_block, pred)
    _append_conditional_block(false_block, logical_not(pred))
    merged = iter(merged)      # in _flatten's order: the branch's structure, its Nones kept
    return nest.map_structure(lambda leaf: next(merged) if isinstance(leaf, Variable) else None,
                              true_out)


def case(pred_fn_pairs, default=None, name=None):
    """The fn of the first pair whose pred is true, else default (without one: the last
    pair's fn): nested conds, each running only its taken branch."""
    if not isinstance(pred_fn_pairs, (list, tuple)):
        raise TypeError("case: pred_fn_pairs must be a list or tuple, got %s"
                        % type(pred_fn_pairs).__name__)
    for pair in pred_fn_pairs:
        if not isinstance(pair, tuple) or len(pair) != 2:
            raise TypeError("case: each element of pred_fn_pairs must be a (pred, fn) tuple, "
                            "got %r" % (pair,))
        _check_condition(pair[0], "case")
        if not callable(pair[1]):
            raise TypeError("case: the fn of %r must be callable" % (pair,))
    if default is None:
        if not pred_fn_pairs:
            raise TypeError("case: pred_fn_pairs is empty and there is no default")
        *pred_fn_pairs, (_, default) = pred_fn_pairs
    elif not callable(default):
        raise TypeError("case: default must be callable, got %s" % type(default).__name__)
    chosen = default
    for pred, fn in reversed(pred_fn_pairs):
        chosen = functools.partial(cond, pred, fn, chosen)
    return chosen()


def switch_case(branch_index, branch_fns, default=None, name=None):
    """The branch whose index equals branch_index (an int Variable of one element), else
    default (without one: the branch of the largest index). branch_fns: {index: fn},
    [(index, fn)] or [fn] (indexed by position)."""
    check_variable(branch_index, "branch_index", "switch_case")
    if branch_index.dtype.name not in ("int32", "int64", "uint8"):
        raise TypeError("switch_case: branch_index must be int32, int64 or uint8, got %s"
                        % branch_index.dtype.name)
    if isinstance(branch_fns, dict):
        pairs = list(branch_fns.items())
    elif isinstance(branch_fns, (list, tuple)) and all(callable(f) for f in branch_fns):
        pairs = list(enumerate(branch_fns))
    elif isinstance(branch_fns, (list, tuple)):
        pairs = list(branch_fns)
    else:
        raise TypeError("switch_case: branch_fns must be a dict, list or tuple, got %s"
                        % type(branch_fns).__name__)
    for pair in pairs:
        if not isinstance(pair, tuple) or len(pair) != 2 or \
                not isinstance(pair[0], int) or not callable(pair[1]):
            raise TypeError("switch_case: each branch must be (int index, callable), got %r"
                            % (pair,))
    indices = [i for i, _ in pairs]
    if len(set(indices)) != len(indices):
        raise ValueError("switch_case: the branch indices %s repeat" % indices)
    pairs.sort(key=lambda pair: pair[0])
    if default is None:
        *pairs, (_, default) = pairs
    if branch_index.dtype.name != "int64":     # compared as int64, as Paddle casts it
        branch_index = cast(branch_index, "int64")
    conditions = [(append_op_out("equal", {"X": [branch_index], "Y": [
        fill_constant([1], "int64", index)]}, {"axis": -1},
        out_dtype="bool", stop_gradient=True), fn) for index, fn in pairs]
    return case(conditions, default, name)


def _append_while(block, condition, is_test):
    append_while(default_main_program().current_block(), block, condition, is_test)


def while_loop(cond, body, loop_vars, is_test=False, name=None):
    """loop_vars = body(*loop_vars) while cond(*loop_vars) is true; returns the final
    loop variables (new Variables; the given ones keep their values)."""
    if not callable(cond) or not callable(body):
        raise TypeError("while_loop: cond and body must be callable")
    if not isinstance(loop_vars, (list, tuple)):
        raise TypeError("while_loop: loop_vars must be a list or tuple, got %s"
                        % type(loop_vars).__name__)
    if not loop_vars:
        raise ValueError("while_loop: loop_vars must be a non-empty list or tuple")
    # loop_vars may nest lists, tuples and dicts of Variables (Paddle's nest structures)
    given = nest.flatten(loop_vars)
    for v in given:
        if not isinstance(v, Variable):
            raise TypeError("while_loop: loop_vars must be Variables (or lists, tuples and "
                            "dicts of them), got %s" % type(v).__name__)
    if any(isinstance(v, Tensor) for v in given):
        return _eager_while(cond, body, list(loop_vars))
    # Copies, so the loop updates its own variables in place, not the caller's inputs
    # (whose values earlier ops' gradients read); but a tensor array is the caller's, as
    # in every Paddle, and under 1.8 every loop variable is (switch while_loop_in_place).
    # A variable that holds no value yet (dy2static's placeholder of a name the loop
    # binds first) has nothing to keep: the loop sets it. In place, a variable from
    # outside an enclosing loop's body is looped on as a copy all the same, which is
    # assigned to it after the loop: the outer while_grad's replay recomputes the body's
    # later ops from the loop's result, a name of the body whose steps it keeps.
    # (3.3.1 loops in place too while FLAGS_enable_pir_api is off, its legacy IR: measured)
    in_place = versions.switch("while_loop_in_place")
    if in_place:
        for v in {v.name: v for v in given if v.type != "LOD_TENSOR_ARRAY"}.values():
            _keep_pre_loop_value(v)
    state = [v if (in_place and not _outside_a_loop_body(v)) or
             v.type == "LOD_TENSOR_ARRAY" or _holds_no_value(v) else assign(v) for v in given]

    def structured():      # fresh containers: the body may change the ones it gets
        return nest.pack_sequence_as(list(loop_vars), state)
    condition = cond(*structured())
    _check_condition(condition, "while_loop", "the value of cond")
    with _sub_block(loop_body=True) as block:
        outs = body(*structured())
        outs = list(outs) if isinstance(outs, (list, tuple)) else [outs]
        try:
            nest.assert_same_structure(list(loop_vars), outs, check_types=False)
        except (ValueError, TypeError) as e:
            raise ValueError("while_loop: body must return the structure of loop_vars: %s"
                             % e) from None
        for v, out, original in zip(state, nest.flatten(outs), given):
            if not isinstance(out, Variable):
                raise TypeError("while_loop: body must return Variables, got %s"
                                % type(out).__name__)
            if out.dtype != v.dtype:
                raise ValueError("while_loop: body output %r (%s) does not match the dtype "
                                 "of loop variable %r (%s)" % (out.name, out.dtype.name,
                                                               original.name, v.dtype.name))
            before = v.shape
            if out is not v:
                assign(out, v)
            # the body may reshape a loop variable (as Paddle allows): its build-time shape
            # is -1 where the two differ
            v._set_shape_dtype(_merged_shape(before, out.shape), v.dtype)
        assign(cond(*structured()), condition)
        _finish_loop_body(block)
    _append_while(block, condition, is_test)
    if in_place:
        for v, copy in zip(given, state):
            if copy is not v:
                assign(copy, v)
                _COPIES_BACK.add(default_main_program().current_block().ops[-1])
    return structured()


def _finish_loop_body(block):
    """The last rewrites of every loop body a while op runs (while_loop's, While's and
    DynamicRNN's), once all its ops are there."""
    _drop_overwritten_copies(block)
    _localize_rewrites(block)


def _drop_overwritten_copies(block):
    """A copy back (see while_loop: an inner loop on a variable of an outer loop's block)
    that a later op of the body overwrites before any op reads it is dropped: it changes
    no value, and its gradient op would hand the later write's gradient to the inner loop
    a second time."""
    for op in [op for op in block.ops if op in _COPIES_BACK]:
        k = block.ops.index(op)
        name = op.output("Out")[0]
        later = next((o for o in block.ops[k + 1:] if name in o.input_arg_names or
                      name in o.output_arg_names), None)
        if later is not None and name not in later.input_arg_names:
            block._remove_op(k)


def _outside_a_loop_body(var):
    """var is a variable of a block holding the loop body the current block is in."""
    block = default_main_program().current_block()
    while block is not None and block is not var.block:
        if block in _LOOP_BODIES:
            return True
        block = block.parent_block
    return False


def _keep_pre_loop_value(var):
    """Before an in-place loop on `var`: the ops that read var's pre-loop value read a
    fresh variable holding it instead, so their gradient ops (which run after the loop has
    overwritten var) read the value the forward read. Forward values are unchanged; var
    holds the loop's final value afterwards, as in Paddle.

    The ops in question lie in the loop's block and the blocks holding it up to var's own
    (a loop built in a cond branch on a variable written outside), from var's last writer
    on, which may be a control-flow op (an earlier while or cond). They stop at the
    innermost loop body the loop is in: there var holds one value per step, which the
    outer while_grad's replay restores at the step's start for the body's grad ops, and
    the loop runs on a copy (see while_loop)."""
    block = default_main_program().current_block()
    chain = [block]         # the loop's block, then those holding it up to var's
    while chain[-1] is not var.block:
        chain.append(chain[-1].parent_block)
        if chain[-1] is None:
            return
    chain.reverse()
    first, writer = 0, None     # the innermost block of the chain with a writer of var
    for k in reversed(range(len(chain))):
        writers = [j for j, op in enumerate(chain[k].ops) if var.name in op.output_arg_names]
        if writers:
            first, writer = k, writers[-1]
            break
    stop = next((k for k in range(first + 1, len(chain)) if chain[k] in _LOOP_BODIES),
                len(chain))
    _keep_value(var, chain[first:stop], writer)


def _keep_value(var, blocks, writer):
    """The ops of `blocks` (one block, then blocks nested in it, the last one's ops all
    before the loop) that read var from the op at index `writer` of blocks[0] on (from
    its start without a writer) read a fresh variable of blocks[0] holding var's value:
    - a plain writer (softmax, whose grad op reads its output) writes the fresh variable
      and an assign appended to blocks[0] copies it into var (before the op that will
      run the nested blocks, or before the loop);
    - a control-flow writer (an earlier while or cond, whose sub-block writes var) is
      followed by an assign copying var into the fresh variable;
    - without a writer, var fed or persistable, an assign copies var into the fresh
      variable before its first reader (otherwise var has no value yet: the loop sets
      it)."""
    head = blocks[0]
    after = writer + 1 if writer is not None else 0
    readers = [op for op in head.ops[after:] if var.name in op.input_arg_names] + [
        op for inner in blocks[1:] for op in inner.ops if var.name in op.input_arg_names]
    copied = writer is None or "sub_block" in head.ops[writer].attrs
    if not readers and (copied or head.ops[writer].type == "assign"):
        return      # nothing reads the value before the loop (an assign's grad reads none)
    if writer is None and not (var.is_data or var.persistable):
        return
    fresh = head.create_var(name=unique_name.generate(var.name + ".pre_loop"),
                            shape=var.shape, dtype=var.dtype, type=var.type,
                            lod_level=var.lod_level, stop_gradient=var.stop_gradient)
    if copied:
        read_a_copy(var, readers, fresh, after)
        return
    for op in readers:
        _rename_reads(op, var.name, fresh.name)
    head.ops[writer]._rename_output(var.name, fresh.name)
    head.append_op(type="assign", inputs={"X": [fresh]}, outputs={"Out": [var]})


def read_a_copy(var, readers, fresh, after=0):
    """`readers` (ops of fresh's block from index `after` on, or of blocks nested in it)
    read `fresh` instead of var, which an assign inserted before the first of them copies
    var into: their gradient ops, which run after var is overwritten, read the value the
    forward read (an in-place loop's pre-loop value; subscript's value before x[i] = v)."""
    head = fresh.block
    for op in readers:
        _rename_reads(op, var.name, fresh.name)
    first_reader = next((j for j, op in enumerate(head.ops) if j >= after and
                         fresh.name in op.input_arg_names), len(head.ops))
    head._insert_op(first_reader, type="assign", inputs={"X": [var]},
                    outputs={"Out": [fresh]})


def _rename_reads(op, old, new):
    """op, and the ops of its sub-blocks (which name the values they read), read `new`."""
    op._rename_input(old, new)
    if "sub_block" in op.attrs:
        for inner in op.block.program.block(op.attrs["sub_block"]).ops:
            _rename_reads(inner, old, new)


def _holds_no_value(var):
    """Not fed, not persistable (set by a startup program) and written by no op."""
    return not (var.is_data or var.persistable) and not any(
        var.name in op.output_arg_names for block in var.block.program.blocks
        for op in block.ops)


def _localize_rewrites(block):
    """A body op that writes a loop variable which a later body op reads (an in-place
    `increment(i)` before `array_write(x, i)`) writes a local copy instead, the later ops
    (and their sub-blocks' ops) read that, and the block ends by assigning it to the loop
    variable. One name then holds one value per step, so while_grad's replay, which
    restores the step's start values and recomputes the ops that write only locals,
    reads what the forward read. Ops with a sub-block and write_to_array (which extends
    the array it names) keep their names."""
    ops = list(block.ops)
    for k, op in enumerate(ops):
        if "sub_block" in op.attrs or op.type == "write_to_array":
            continue
        for name in set(op.output_arg_names):
            if name in block.vars or \
                    not any(name in later.input_arg_names for later in ops[k + 1:]):
                continue
            outer = block._find_var_recursive(name)
            local = block.create_var(name=unique_name.generate(name + ".step"),
                                     shape=outer.shape, dtype=outer.dtype, type=outer.type,
                                     stop_gradient=outer.stop_gradient)
            op._rename_output(name, local.name)
            for later in ops[k + 1:]:
                _rename_reads(later, name, local.name)
                if name in later.output_arg_names:
                    break      # a later write makes the step's result (localized in turn)
            else:
                assign(local, outer)


def _eager_while(cond, body, state):
    while True:
        condition = cond(*state)
        _check_condition(condition, "while_loop", "the value of cond")
        if not bool(condition):
            return state
        outs = body(*state)
        outs = list(outs) if isinstance(outs, (list, tuple)) else [outs]
        if len(outs) != len(state):
            raise ValueError("while_loop: body returned %d values for %d loop_vars"
                             % (len(outs), len(state)))
        state = outs


class While:
    """Paddle 1.8's loop: `with loop.block():` appends the body, which must update
    `cond` (e.g. less_than(i, n, cond=cond))."""

    def __init__(self, cond, is_test=False, name=None):
        _check_condition(cond, "While", "cond")
        self.cond_var = cond
        self.is_test = is_test

    @contextlib.contextmanager
    def block(self):
        with _sub_block(loop_body=True) as block:
            yield
            _finish_loop_body(block)
        _append_while(block, self.cond_var, self.is_test)


class ConditionalBlock:
    """Paddle 1.8's fluid.layers.control_flow.ConditionalBlock: `with cb.block():` appends
    ops that run when the condition holds: the one bool of inputs[0]
    (is_scalar_condition), else every input has at least one element."""

    def __init__(self, inputs, is_scalar_condition=False, name=None):
        for x in inputs:
            if not isinstance(x, Variable):
                raise TypeError("The type of 'input' in ConditionalBlock must be Variable, "
                                "but received %s" % type(x).__name__)
        self.inputs = list(inputs)
        self.is_scalar_condition = is_scalar_condition

    @contextlib.contextmanager
    def block(self):
        with _sub_block() as block:
            yield
        _append_conditional_block(block, self.inputs, self.is_scalar_condition, scope=True)


class Switch:
    """Paddle 1.8's switch: the first `case(cond)` whose cond is true runs, else
    `default()`. Each case is a conditional_block on "cond and no earlier cond"."""

    def __init__(self, name=None):
        self.none_before = None    # bool Variable: no earlier case was true
        self.inside = False

    def __enter__(self):
        self.inside = True
        return self

    def __exit__(self, *exc):
        self.inside = False
        return False

    @contextlib.contextmanager
    def _case_block(self, condition):
        if not self.inside:
            raise ValueError("Switch: case() and default() must be used inside "
                             "`with Switch() as switch:`")
        with _sub_block() as block:
            yield
        _append_conditional_block(block, condition)

    def case(self, condition):
        _check_condition(condition, "Switch.case", "condition")
        if self.none_before is None:
            taken = condition
            self.none_before = logical_not(condition)
        else:
            taken = _logical_and(self.none_before, condition)
            self.none_before = _logical_and(self.none_before, logical_not(condition))
        return self._case_block(taken)

    def default(self):
        if self.none_before is None:
            raise ValueError("Switch.default: needs at least one case before it")
        return self._case_block(self.none_before)


class IfElse:
    """Paddle 1.8's row-wise if/else: `cond` is a bool [N, 1]; inside true_block(),
    `input(x)` is x's rows where cond is true (false_block(): the others); `output(...)`
    in both blocks names the results, and `ie()` merges them back in row order. Both
    blocks' ops run on their rows (an empty selection gives zero rows)."""

    def __init__(self, cond, name=None):
        if not isinstance(cond, Variable) or cond.dtype is None or cond.dtype.name != "bool":
            raise TypeError("IfElse: cond must be a bool Variable of shape [N, 1], got %r"
                            % (cond,))
        if name is not None and not isinstance(name, str):   # Paddle 2.0 checks it
            raise TypeError("IfElse: name must be a str or None, got %s" % type(name).__name__)
        self.cond = cond
        self.branch = None
        self.split = {}          # x name -> (true rows, false rows)
        self.outputs = {True: None, False: None}

    @contextlib.contextmanager
    def _block(self, which):
        if self.branch is not None:
            raise ValueError("IfElse: true_block() and false_block() cannot be nested")
        self.branch = which
        try:
            yield
        finally:
            self.branch = None

    def true_block(self):
        return self._block(True)

    def false_block(self):
        return self._block(False)

    def input(self, x):
        if self.branch is None:
            raise ValueError("IfElse.input must be called inside true_block() or "
                             "false_block()")
        if x.name not in self.split:
            self.split[x.name] = split_lod_tensor(x, self.cond)
        return self.split[x.name][0 if self.branch else 1]

    def output(self, *outs):
        if self.branch is None:
            raise ValueError("IfElse.output must be called inside true_block() or "
                             "false_block()")
        for i, out in enumerate(outs):
            if not isinstance(out, Variable):     # Paddle 2.0 checks each (a TypeError)
                raise TypeError("IfElse.output: output %d must be a Variable, got %s"
                                % (i, type(out).__name__))
        self.outputs[self.branch] = list(outs)

    def __call__(self):
        true_outs, false_outs = self.outputs[True], self.outputs[False]
        if true_outs is None or false_outs is None or len(true_outs) != len(false_outs):
            raise ValueError("IfElse: both blocks must call output() with the same number of "
                             "values, got %s and %s" % (true_outs, false_outs))
        return [merge_lod_tensor(t, f, self.cond, self.cond)
                for t, f in zip(true_outs, false_outs)]


def _check_routing(fn, variables, level):
    for arg, var in variables.items():
        check_variable(var, arg, fn)
    if not isinstance(level, int) or isinstance(level, bool):
        raise TypeError("%s: level must be an int, got %r" % (fn, level))


def split_lod_tensor(input, mask, level=0):
    """(input's sequences at LoD level `level` (rows, without a LoD) where the bool mask
    [N, 1] is true, the others), each in order with its sub-LoD: IfElse's routing."""
    _check_routing("split_lod_tensor", {"input": input, "mask": mask}, level)
    helper = LayerHelper("split_lod_tensor")
    out_true, out_false = [helper.create_variable_for_type_inference(input.dtype)
                           for _ in range(2)]
    helper.append_op(type="split_lod_tensor", inputs={"X": [input], "Mask": [mask]},
                     outputs={"OutTrue": [out_true], "OutFalse": [out_false]},
                     attrs={"level": level})
    return out_true, out_false


def select_input(inputs, mask):
    """The input the int32 `mask` (one number) names, as a new variable of the first
    input's shape and dtype: Paddle 1.8's control-flow helper (static programs)."""
    if not isinstance(inputs, (list, tuple)):
        raise TypeError("select_input: inputs must be a list or tuple of Variables, got %s"
                        % type(inputs).__name__)
    check_dtype(mask, "mask", "select_input", ("int32",))
    if not inputs:
        raise ValueError("select_input: inputs is empty; give the branches' Variables")
    for i, v in enumerate(inputs):
        check_variable(v, "inputs[%d]" % i, "select_input")
    helper = LayerHelper("select_input")
    out = helper.create_variable_for_type_inference(inputs[0].dtype)
    helper.append_op(type="select_input", inputs={"X": list(inputs), "Mask": [mask]},
                     outputs={"Out": [out]})
    return out


def select_output(input, outputs, mask):
    """Copies `input` into the output the int32 `mask` (one number) names (refimpl writes
    zeros into the others, specs/ops/control_flow.md); returns `outputs`."""
    check_variable(input, "input", "select_output")
    check_dtype(mask, "mask", "select_output", ("int32",))
    if not isinstance(outputs, (list, tuple)):
        raise TypeError("select_output: outputs must be a list or tuple of Variables, got %s"
                        % type(outputs).__name__)
    LayerHelper("select_output").append_op(
        type="select_output", inputs={"X": [input], "Mask": [mask]},
        outputs={"Out": list(outputs)})
    return outputs


def merge_lod_tensor(in_true, in_false, x, mask, level=0):
    """split_lod_tensor undone: in_true's and in_false's sequences back in mask order."""
    _check_routing("merge_lod_tensor", {"in_true": in_true, "in_false": in_false, "x": x,
                                        "mask": mask}, level)
    helper = LayerHelper("merge_lod_tensor")
    out = helper.create_variable_for_type_inference(in_true.dtype)
    helper.append_op(type="merge_lod_tensor", inputs={"X": [x], "Mask": [mask],
                                                      "InTrue": [in_true],
                                                      "InFalse": [in_false]},
                     outputs={"Out": [out]}, attrs={"level": level})
    return out


# In dynamic mode a tensor array is a Python list of Tensors, as in Paddle's dygraph.

def create_array(dtype="float32"):
    if mode.dynamic:
        return []
    helper = LayerHelper("array")
    return helper.block().create_var(name=unique_name.generate("array"),
                                     type="LOD_TENSOR_ARRAY", dtype=dtype)


def _eager_index(i, api):
    if not isinstance(i, Tensor) or i.size != 1:
        raise TypeError("%s: the index must be a Tensor of one integer, got %r" % (api, i))
    return int(i)


def array_write(x, i, array=None):
    """array[i] = x (the array grows as needed); returns the array."""
    if isinstance(x, Tensor) and (array is None or isinstance(array, list)):
        array = [] if array is None else array
        index = _eager_index(i, "array_write")
        if index > len(array):
            raise IndexError("array_write: index %d is past the end of an array of %d"
                             % (index, len(array)))
        array[index:index + 1] = [x]
        return array
    if array is None:
        array = create_array(x.dtype)
    LayerHelper("array_write").append_op(type="write_to_array", inputs={"X": [x], "I": [i]},
                                         outputs={"Out": [array]})
    return array


def array_read(array, i):
    if isinstance(array, list):
        return array[_eager_index(i, "array_read")]
    helper = LayerHelper("array_read")
    out = helper.create_variable_for_type_inference(array.dtype)
    helper.append_op(type="read_from_array", inputs={"X": [array], "I": [i]},
                     outputs={"Out": [out]})
    return out


def array_length(array):
    if isinstance(array, list):
        return Tensor(np.array([len(array)], "int64"))
    helper = LayerHelper("array_length")
    out = helper.create_variable_for_type_inference("int64", stop_gradient=True)
    helper.append_op(type="lod_array_length", inputs={"X": [array]}, outputs={"Out": [out]})
    return out


def tensor_array_to_tensor(input, axis=1, name=None, use_stack=False):
    """(the elements concatenated or stacked along axis, each element's size along axis)."""
    if isinstance(input, list):
        sizes = [1 if use_stack else t.shape[axis] for t in input]
        joined = (stack if use_stack else concat)(input, axis)
        return joined, Tensor(np.array(sizes, "int32"))
    helper = LayerHelper("tensor_array_to_tensor", name=name)
    out = helper.create_variable_for_type_inference(input.dtype)
    index = helper.create_variable_for_type_inference("int32", stop_gradient=True)
    helper.append_op(type="tensor_array_to_tensor", inputs={"X": [input]},
                     outputs={"Out": [out], "OutIndex": [index]},
                     attrs={"axis": axis, "use_stack": use_stack})
    return out, index


def Print(input, first_n=-1, message=None, summarize=20, print_tensor_name=True,
          print_tensor_type=True, print_tensor_shape=True, print_tensor_lod=True,
          print_phase="both"):
    """A copy of `input` that prints it each run (and its gradient in backward), Paddle
    1.8's format (ops/print.py)."""
    check_variable(input, "input", "Print")
    phase = str(print_phase).upper()
    if phase not in ("FORWARD", "BACKWARD", "BOTH"):
        raise ValueError("Print: print_phase must be 'forward', 'backward' or 'both', got %r"
                         % (print_phase,))
    helper = LayerHelper("print_" + input.name)
    out = helper.create_variable_for_type_inference(input.dtype)
    helper.append_op(type="print", inputs={"In": [input]}, outputs={"Out": [out]},
                     attrs={"first_n": int(first_n), "summarize": int(summarize),
                            "message": message or "", "print_tensor_name": print_tensor_name,
                            "print_tensor_type": print_tensor_type,
                            "print_tensor_shape": print_tensor_shape,
                            "print_tensor_lod": print_tensor_lod, "print_phase": phase,
                            "tensor_name": input.name})
    return out


def Assert(cond, data=None, summarize=20, name=None):
    """Paddle 2.0's fluid.layers.Assert: the assert op, which fails the run (ValueError)
    printing `data` (the first `summarize` values of each, -1: all) when the one-element
    bool `cond` is false. Returns the op."""
    check_variable(cond, "cond", "Assert")
    if cond.dtype.name != "bool":
        raise TypeError("Assert: cond must be a bool Variable, got %s" % cond.dtype.name)
    data = [] if data is None else list(data)
    helper = LayerHelper("assert", name=name)
    return helper.append_op(type="assert", inputs={"Cond": [cond], "Data": data},
                            attrs={"summarize": int(summarize), "cond_name": cond.name,
                                   "data_names": [d.name for d in data]})


EXPORTS = {
    "fluid.layers": {"Assert": Assert, "Print": Print, "cond": cond, "case": case, "switch_case": switch_case,
                     "while_loop": while_loop, "While": While,
                     "Switch": Switch, "IfElse": IfElse, "create_array": create_array,
                     "array_write": array_write, "array_read": array_read,
                     "array_length": array_length,
                     "tensor_array_to_tensor": tensor_array_to_tensor,
                     "split_lod_tensor": split_lod_tensor,
                     "merge_lod_tensor": merge_lod_tensor},
    "static.nn": {"cond": cond, "while_loop": while_loop},
    "static": {"Print": Print},
    # Paddle 2.0's paddle.tensor.array_* (tensor/array.py: the fluid.layers functions)
    "tensor": {"create_array": create_array, "array_write": array_write,
               "array_read": array_read, "array_length": array_length},
    # importable from the 1.8 submodule, not in fluid.layers' __all__
    "fluid.layers.control_flow": {"ConditionalBlock": ConditionalBlock,
                                  "select_input": select_input,
                                  "select_output": select_output},
}
