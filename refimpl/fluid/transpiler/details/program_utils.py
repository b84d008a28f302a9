"""fluid.transpiler.details.program_utils (Paddle 1.8): find and delete ops of a block, and
print a program as readable pseudo-code (one line a variable, one line an op:
`{Out=['y']} = relu(inputs={X=['x']}, ...)`), block by block."""
import sys

from ....framework.desc import GENERATED_ATTR_TYPES

__all__ = ["delete_ops", "find_op_by_input_arg", "find_op_by_output_arg", "variable_to_code",
           "op_to_code", "block_to_code", "program_to_code"]

_INDENT = "    "


def delete_ops(block, ops):
    """Remove `ops` (ops of `block`) from it."""
    for op in ops:
        block._remove_op(block.ops.index(op))


def _first_op(block, arg_name, names_of):
    for index, op in enumerate(block.ops):
        if arg_name in names_of(op):
            return index
    return -1


def find_op_by_input_arg(block, arg_name):
    """The index of the first op of `block` reading variable `arg_name`, or -1."""
    return _first_op(block, arg_name, lambda op: op.input_arg_names)


def find_op_by_output_arg(block, arg_name, reverse=False):
    """The index of the first (reverse: the last) op of `block` writing `arg_name`, or -1."""
    indices = range(len(block.ops))
    for index in (reversed(indices) if reverse else indices):
        if arg_name in block.ops[index].output_arg_names:
            return index
    return -1


def variable_to_code(var):
    dtype = var.dtype.name if var.dtype is not None else "?"
    text = "var %s : shape%s.dtype(%s)" % (var.name, list(var.shape or ()), dtype)
    if var.persistable:
        text += ".persistable(True)"
    if var.stop_gradient:
        text += ".stop_gradient(True)"
    return text


def _slots(slots):
    return "{%s}" % ", ".join("%s=%s" % (slot, list(names)) for slot, names in slots.items())


def op_to_code(op, skip_op_callstack=True):
    attrs = ["%s=%r" % (name, value) for name, value in sorted(op.attrs.items())
             # the framework's attrs on every op say nothing about what it computes
             if not (skip_op_callstack and name in GENERATED_ATTR_TYPES)]
    return "%s = %s(inputs=%s%s)" % (_slots(op.outputs), op.type, _slots(op.inputs),
                                     "".join(", " + a for a in attrs))


def block_to_code(block, block_idx, fout=None, skip_op_callstack=False):
    fout = fout or sys.stdout
    print("{ // block %d" % block_idx, file=fout)
    for var in block.vars.values():
        print(_INDENT + variable_to_code(var), file=fout)
    print("", file=fout)
    for op in block.ops:
        print(_INDENT + op_to_code(op, skip_op_callstack), file=fout)
    print("}", file=fout)


def program_to_code(prog, fout=None, skip_op_callstack=True):
    """Print every block of `prog` as pseudo-code to `fout` (default stdout)."""
    for index, block in enumerate(prog.blocks):
        block_to_code(block, index, fout, skip_op_callstack)
