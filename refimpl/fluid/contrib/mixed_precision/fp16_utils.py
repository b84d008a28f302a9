"""The program rewrite of Paddle 1.8's automatic mixed precision, and its dynamic loss
scaling. rewrite_program sorts the main program's global-block ops by the lists
(fp16_lists.py) and inserts casts: a white op reads float16 copies of its float32 inputs
(`<name>.cast_fp16`) and writes float16; a black op reads float32 copies of float16 inputs
(`<name>.cast_fp32`); a gray op is black when an input comes from a black op (or a
black-listed type), else white when one comes from a white one, else left as it is.
refimpl's kernels compute float16 values in float16 (numpy), on CPUs too, where Paddle
1.8.5 has no float16 CPU kernels.

Paddle 2.0's pure float16 (cast_model_to_fp16, cast_parameters_to_fp16, fp16_guard):
every op's float32 variables become float16, except the ops kept in float32 (no float16
kernel: amp_lists.unsupported_list; an input or output named *learning_rate*; with
use_fp16_guard, an op built outside `fp16_guard()`), which read float32 casts of their
float16 inputs and whose outputs stay float32, cast back to float16 for the ops after them.
specs/fluid_contrib.md."""
import contextlib

import numpy as np

from ...core import VarDesc
from ....framework.program import name_scope
from ....framework.scope import global_scope
from ... import layers
from .fp16_lists import AutoMixedPrecisionLists

__all__ = ["rewrite_program", "update_role_var_grad", "update_loss_scaling", "fp16_guard",
           "cast_model_to_fp16", "cast_parameters_to_fp16"]

FP16_GUARD_SCOPE = "__use_fp16__"     # the name scope fp16_guard() opens (Paddle 2.0's)
# normalizations keep their statistics and parameters in float32: only these slots follow
NORM_IN_SLOTS = {"batch_norm": {"X"}, "fused_bn_add_activation": {"X", "Z"},
                 "layer_norm": {"X"}}
NORM_OUT_SLOT = "Y"

FP16, FP32 = VarDesc.VarType.FP16, VarDesc.VarType.FP32
CASTABLE = ("LOD_TENSOR", "SELECTED_ROWS", "LOD_TENSOR_ARRAY")


def _suffix(dtype):
    return "fp16" if dtype == FP16 else "fp32"


def _insert_casts(block, op, index, src_dtype, dest_dtype):
    """Casts to dest_dtype before `op` (at `index`) for its inputs of src_dtype, `op`
    renamed to read them; for a white op (src float32) its float32 outputs become float16.
    batch_norm keeps its float32 statistics: only X and Y. Returns the casts inserted."""
    inserted = 0
    for slot in op.input_names:
        if src_dtype == FP32 and op.type == "batch_norm" and slot != "X":
            continue
        for name in op.input(slot):
            var = block.var(name)
            if var.type not in CASTABLE:
                continue
            if var.dtype != src_dtype:
                if op.has_attr("in_dtype"):
                    op._set_attr("in_dtype", dest_dtype)
                continue
            cast_name = "%s.cast_%s" % (name, _suffix(dest_dtype))
            cast = block.vars.get(cast_name)
            if cast is None or cast.dtype != dest_dtype:
                cast = block.create_var(name=cast_name, dtype=dest_dtype, shape=var.shape,
                                        persistable=False, stop_gradient=False)
                block._insert_op(index, type="cast", inputs={"X": [var]},
                                 outputs={"Out": [cast]},
                                 attrs={"in_dtype": var.dtype, "out_dtype": cast.dtype})
                inserted += 1
            op._rename_input(name, cast_name)
    if src_dtype == FP32:
        for slot in op.output_names:
            if op.type == "batch_norm" and slot != "Y":
                continue
            for name in op.output(slot):
                var = block.var(name)
                if var.type in CASTABLE and var.dtype == FP32:
                    var._set_shape_dtype(var.shape, FP16)
                    if op.has_attr("out_dtype"):
                        op._set_attr("out_dtype", FP16)
    return inserted


def _classify(ops, amp_lists):
    """(white ops, black ops) of the global block's ops, in order (gray ops by the ops
    that wrote their inputs last)."""
    white, black = set(), set()
    writer = {}
    for op in ops:
        names = op.input_arg_names + op.output_arg_names
        if amp_lists.black_varnames and any(n in amp_lists.black_varnames for n in names):
            black.add(op)
        elif op.type in amp_lists.black_list:
            black.add(op)
        elif op.type in amp_lists.white_list:
            white.add(op)
        elif op.type in amp_lists.gray_list:
            producers = [writer[n] for n in op.input_arg_names if n in writer]
            if any(p in black or p.type in amp_lists.black_list for p in producers):
                black.add(op)
            elif any(p in white or p.type in amp_lists.white_list for p in producers):
                white.add(op)
        else:
            black.add(op)
        for name in op.output_arg_names:
            writer[name] = op
    return white, black


def rewrite_program(main_prog, amp_lists):
    block = main_prog.global_block()
    white, black = _classify(list(block.ops), amp_lists)
    index = 0
    while index < len(block.ops):
        op = block.ops[index]
        inserted = 0
        if op in black:
            inserted = _insert_casts(block, op, index, FP16, FP32)
        elif op in white:
            inserted = _insert_casts(block, op, index, FP32, FP16)
        index += inserted + 1


@contextlib.contextmanager
def fp16_guard():
    """Ops built inside are the ones cast_model_to_fp16(use_fp16_guard=True) makes float16."""
    with name_scope(FP16_GUARD_SCOPE):
        yield


def _keeps_fp32(op, amp_lists, use_fp16_guard):
    if op.type in amp_lists.unsupported_list:
        return True
    if any("learning_rate" in n for n in op.input_arg_names + op.output_arg_names):
        return True
    if use_fp16_guard:
        scope = op.attr("op_namescope") if op.has_attr("op_namescope") else ""
        return FP16_GUARD_SCOPE not in (scope or "")
    return False


def _castable(block, name):
    """The variable `name` seen from `block` (or the global block), if a cast may change it."""
    var = block._find_var_recursive(name)
    return var if var is not None and var.type in CASTABLE else None


def _to_fp16(block, op):
    """op's float32 inputs and outputs (and dtype attributes) become float16; returns the
    names of the inputs changed."""
    changed = set()
    for slot in op.input_names:
        if op.type in NORM_IN_SLOTS and slot not in NORM_IN_SLOTS[op.type]:
            continue
        for name in op.input(slot):
            var = _castable(block, name)
            if var is not None and var.dtype == FP32:
                var._set_shape_dtype(var.shape, FP16)
                changed.add(name)
    for slot in op.output_names:
        if op.type in NORM_IN_SLOTS and slot != NORM_OUT_SLOT:
            continue
        for name in op.output(slot):
            var = _castable(block, name)
            if var is not None and var.dtype == FP32:
                var._set_shape_dtype(var.shape, FP16)
    for attr in ("in_dtype", "out_dtype", "dtype"):
        if op.has_attr(attr) and op.attr(attr) == FP32:
            op._set_attr(attr, FP16)
    return changed


def cast_model_to_fp16(program, amp_lists=None, use_fp16_guard=True):
    """Pure float16 (Paddle 2.0): the program's ops compute in float16, batch_norm /
    layer_norm keep float32 statistics and parameters, the ops kept in float32 (see the
    module docstring) get casts around them. Returns the names of the float32 variables
    made float16 as op inputs (parameters among them: cast_parameters_to_fp16's list)."""
    amp_lists = amp_lists or AutoMixedPrecisionLists()
    kept, to_fp16 = set(), set()
    origin_ops = [op for block in program.blocks for op in block.ops]
    for block in program.blocks:
        for op in block.ops:
            if op.type in ("create_py_reader", "read"):
                continue
            if _keeps_fp32(op, amp_lists, use_fp16_guard):
                kept.add(op)
            else:
                to_fp16 |= _to_fp16(block, op)
    for block in program.blocks:
        renamed = {}     # a kept op's float32 output -> its float16 cast for later ops
        index = 0
        while index < len(block.ops):
            op = block.ops[index]
            if op not in kept:
                index += 1
                continue
            inserted = _insert_casts(block, op, index, FP16, FP32)
            after = index + inserted + 1
            for name in op.output_arg_names:
                var = block.vars.get(name)
                if var is None or var.type not in CASTABLE or var.dtype != FP16:
                    continue
                var._set_shape_dtype(var.shape, FP32)
                readers = [later for later in block.ops[after:]
                           if name in later.input_arg_names and later not in kept]
                cast_name = "%s.cast_fp16" % name
                if readers and cast_name not in block.vars:
                    cast = block.create_var(name=cast_name, dtype=FP16, shape=var.shape,
                                            persistable=False,
                                            stop_gradient=var.stop_gradient)
                    block._insert_op(after, type="cast", inputs={"X": [var]},
                                     outputs={"Out": [cast]},
                                     attrs={"in_dtype": FP32, "out_dtype": FP16})
                    inserted += 1
                    renamed[name] = cast_name
            index += inserted + 1
        for op in block.ops:
            if op in origin_ops and op not in kept:
                for old, new in renamed.items():
                    if old in op.input_arg_names:
                        op._rename_input(old, new)
    return to_fp16


def cast_parameters_to_fp16(place, program, scope=None, to_fp16_var_names=None):
    """The values in `scope` (default the global scope) of the program's parameters named
    in to_fp16_var_names (cast_model_to_fp16's result) become float16; without names,
    none changes (as Paddle 2.0)."""
    names = set(to_fp16_var_names or ())
    scope = scope or global_scope()
    for block in program.blocks:
        for param in block.all_parameters():
            if param.name in names:
                tensor = scope.find_var(param.name).get_tensor()
                tensor.set(np.asarray(tensor).astype(np.float16), place)


def update_role_var_grad(main_prog, params_grads):
    """Paddle 1.8 moves the casts that turn float16 gradients into float32 ones to the
    optimize role, so that data parallelism all-reduces the float16 gradients. refimpl
    leaves them in the backward pass: its data parallelism all-reduces the float32
    gradients (the same sums, twice the bytes)."""
    return None


def update_loss_scaling(is_overall_finite, prev_loss_scaling, num_good_steps,
                        num_bad_steps, incr_every_n_steps, decr_every_n_nan_or_inf,
                        incr_ratio, decr_ratio):
    """Appends the dynamic loss scaling update: a finite step after incr_every_n_steps
    finite steps in a row grows the scaling by incr_ratio (kept when that overflows); a
    non-finite step after decr_every_n_nan_or_inf non-finite ones in a row shrinks it by
    decr_ratio (never below 1); either event resets both counters."""
    zero = layers.fill_constant(shape=[1], dtype="int32", value=0)
    with layers.Switch() as finite:
        with finite.case(is_overall_finite):
            grow = layers.less_than(incr_every_n_steps, num_good_steps + 1)
            with layers.Switch() as growing:
                with growing.case(grow):
                    grown = prev_loss_scaling * incr_ratio
                    with layers.Switch() as fits:
                        with fits.case(layers.isfinite(grown)):
                            layers.assign(grown, prev_loss_scaling)
                    layers.assign(zero, num_good_steps)
                    layers.assign(zero, num_bad_steps)
                with growing.default():
                    layers.increment(num_good_steps)
                    layers.assign(zero, num_bad_steps)
        with finite.default():
            shrink = layers.less_than(decr_every_n_nan_or_inf, num_bad_steps + 1)
            with layers.Switch() as shrinking:
                with shrinking.case(shrink):
                    shrunk = prev_loss_scaling * decr_ratio
                    one = layers.fill_constant(shape=[1], dtype="float32", value=1.0)
                    with layers.Switch() as floor:
                        with floor.case(layers.less_than(shrunk, one)):
                            layers.assign(one, prev_loss_scaling)
                        with floor.default():
                            layers.assign(shrunk, prev_loss_scaling)
                    layers.assign(zero, num_good_steps)
                    layers.assign(zero, num_bad_steps)
                with shrinking.default():
                    layers.assign(zero, num_good_steps)
                    layers.increment(num_bad_steps)
