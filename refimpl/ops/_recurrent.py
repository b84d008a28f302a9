"""Shared machinery of the whole-sequence recurrent ops (lstm, gru, lstmp): packed rows
[total, ...] plus lengths, stepped through time for all sequences at once."""
import numpy as np

from ._sequence import check_lengths_var, lengths_of, offsets
from .gru_unit import activate, activation_grad

# the activation attrs of lstm / gru / lstmp are names; gru_unit's kernels take codes
ACTIVATION_CODES = {"identity": 0, "sigmoid": 1, "tanh": 2, "relu": 3}


def act(name, x):
    return activate(ACTIVATION_CODES[name], x)


def act_grad(name, y):
    """d act / d pre-activation from the output y."""
    return activation_grad(ACTIVATION_CODES[name], y)


def time_steps(length, rows, op, reverse=False):
    """[(active, rows)] per time step: the indices of the sequences still running at
    step t and the packed row each reads (from the end of the sequence when reverse)."""
    lens = lengths_of(length, rows, op)
    off = offsets(lens)
    steps = []
    for t in range(int(lens.max()) if len(lens) else 0):
        active = np.nonzero(lens > t)[0]
        steps.append((active, off[active + 1] - 1 - t if reverse else off[active] + t))
    return lens, steps


def initial_state(state, batch, width, dtype, op, slot):
    if state is None:
        return np.zeros((batch, width), dtype)
    if state.shape != (batch, width):
        raise ValueError("%s: %s must be [%d, %d] (one row per sequence), got %s"
                         % (op, slot, batch, width, list(state.shape)))
    return state


def check_recurrent(ctx, input_width, weight_shape, activation_attrs):
    """Shared infer_shape checks: lengths, Input width, Weight shape, activation names."""
    check_lengths_var(ctx, "XLength")
    x, w = ctx.input_var("Input"), ctx.input_var("Weight")
    ctx.expect(len(x.shape) == 2 and x.shape[1] in (-1, input_width),
               "input Input %r: expected packed rows [total, %d], got %s"
               % (x.name, input_width, list(x.shape)))
    ctx.expect(tuple(w.shape) == tuple(weight_shape), "input Weight %r: expected %s, got %s"
               % (w.name, list(weight_shape), list(w.shape)))
    for attr in activation_attrs:
        ctx.expect(ctx.attr(attr) in ACTIVATION_CODES, "attr %s must be one of %s, got %r"
                   % (attr, sorted(ACTIVATION_CODES), ctx.attr(attr)))


def ragged_sample_lengths():
    """The ragged batch the samples use: a long, a length-1 and an empty sequence."""
    return np.array([3, 1, 0, 2], np.int64)
