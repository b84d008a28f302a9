"""fluid.contrib's program statistics (Paddle 1.8): memory_usage, an estimate of the memory
a program's outputs take, and op_freq_statistic, how often each op type (and each
producer -> consumer pair) occurs. specs/fluid_contrib.md."""
import numpy as np

from ...framework.program import Program

__all__ = ["memory_usage", "op_freq_statistic"]


def _check_program(program, what):
    if not isinstance(program, Program):
        raise TypeError("%s requires a Program, got %s" % (what, type(program).__name__))


def memory_usage(program, batch_size):
    """(low, high, unit): the bytes of every LoD tensor the global block's ops write (each
    once; a -d dim counts batch_size * d), times 1.05 and 1.1, in B, KB or MB (divided by
    1024 while above 1024)."""
    _check_program(program, "memory_usage")
    if batch_size <= 0:
        raise ValueError("memory_usage: the batch size must be positive, got %r" % batch_size)
    block = program.global_block()
    total, seen = 0.0, {"@EMPTY@"}
    for op in block.ops:
        for name in op.output_arg_names:
            if name in seen:
                continue
            seen.add(name)
            var = block.var(name)
            if var.type != "LOD_TENSOR":
                continue
            unknown = [d for d in var.shape if d < 0]
            if len(unknown) > 1:
                raise ValueError("memory_usage: variable %s has more than one negative dim: "
                                 "%s" % (name, list(var.shape)))
            count = int(np.prod([batch_size * -d if d < 0 else d for d in var.shape]))
            total += count * np.dtype(var.dtype.name).itemsize
    unit = "B"
    for bigger in ("KB", "MB"):
        if total <= 1024:
            break
        total, unit = total / 1024, bigger
    return total * 1.05, total * 1.1, unit


def op_freq_statistic(program):
    """([(op type, count)], [("producer->consumer", count)]), most frequent first: ops
    counted when they write a non-parameter; pairs from each input that is no parameter
    to the op that last wrote it. (Paddle 1.8.5's own raises AttributeError on Python 3,
    a dict.has_key; this is what it documents.)"""
    _check_program(program, "op_freq_statistic")
    block = program.global_block()
    parameters = {p.name for p in block.all_parameters()}
    single, pairs, writer = {}, {}, {}
    for op in block.ops:
        if any(name not in parameters for name in op.output_arg_names):
            single[op.type] = single.get(op.type, 0) + 1
    for op in block.ops:
        for name in op.input_arg_names:
            if name not in parameters and name in writer:
                pair = writer[name] + "->" + op.type
                pairs[pair] = pairs.get(pair, 0) + 1
        for name in op.output_arg_names:
            writer[name] = op.type
    by_count = lambda counts: sorted(counts.items(), key=lambda item: item[1], reverse=True)
    return by_count(single), by_count(pairs)
