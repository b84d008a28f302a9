"""The program rewrite of Paddle 1.8's automatic mixed precision, and its dynamic loss
scaling. rewrite_program sorts the main program's global-block ops by the lists
(fp16_lists.py) and inserts casts: a white op reads float16 copies of its float32 inputs
(`<name>.cast_fp16`) and writes float16; a black op reads float32 copies of float16 inputs
(`<name>.cast_fp32`); a gray op is black when an input comes from a black op (or a
black-listed type), else white when one comes from a white one, else left as it is.
refimpl's kernels compute float16 values in float16 (numpy), on CPUs too, where Paddle
1.8.5 has no float16 CPU kernels."""
from ...core import VarDesc
from ... import layers

__all__ = ["rewrite_program", "update_role_var_grad", "update_loss_scaling"]

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
