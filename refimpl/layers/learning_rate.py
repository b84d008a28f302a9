"""fluid.layers learning-rate decays, built as in Paddle 1.8: ops in the main program (role
LRSched) computing the rate from the global step counter @LR_DECAY_COUNTER@, which an
`increment` op at the top of the program advances once per run. Each function returns the
[1] float32 learning-rate Variable; pass it to an optimizer as `learning_rate`.

Paddle builds piecewise_decay / linear_lr_warmup / polynomial_decay(cycle) with Switch
blocks; here the branches are `where` selections (same values, no control flow)."""
import functools
import math

from ..dygraph import learning_rate_decay as eager_decay
from ..framework import mode
from ..framework.initializer import Constant
from ..framework.layer_helper import LayerHelper
from ..framework.program import Variable, default_main_program

__all__ = ["exponential_decay", "natural_exp_decay", "inverse_time_decay",
           "polynomial_decay", "piecewise_decay", "cosine_decay", "noam_decay",
           "linear_lr_warmup"]

COUNTER_NAME = "@LR_DECAY_COUNTER@"


# the two 1.8 dygraph decays whose arguments differ from their layer function's
def _eager_noam(d_model, warmup_steps, learning_rate=1.0):
    return eager_decay.NoamDecay(d_model, warmup_steps, learning_rate=learning_rate)


def _eager_piecewise(boundaries, values):
    return eager_decay.PiecewiseDecay(boundaries, values, 0)


def _lr_schedule(eager_decay_of):
    """Mark every op the decay appends with op_role LRSched. In dynamic mode the function
    returns Paddle 1.8's dygraph decay instead (`eager_decay_of`, called with the same
    arguments), as 1.8 does."""
    def decorate(build):
        @functools.wraps(build)
        def wrapper(*args, **kwargs):
            if mode.dynamic:
                return eager_decay_of(*args, **kwargs)
            with default_main_program()._lr_schedule_guard():
                return build(*args, **kwargs)
        return wrapper
    return decorate


def _op(op_type, inputs, attrs=None, dtype="float32"):
    helper = LayerHelper(op_type)
    out = helper.create_variable_for_type_inference(dtype, stop_gradient=True, shape=[1])
    helper.append_op(type=op_type, inputs=inputs, outputs={"Out": [out]}, attrs=attrs or {})
    return out


def _unary(op_type, x):
    return _op(op_type, {"X": [x]})


def _binary(op_type, x, y, dtype="float32"):
    return _op(op_type, {"X": [x], "Y": [y]}, {"axis": -1}, dtype)


def _constant(value):
    return _op("fill_constant", {}, {"shape": [1], "dtype": "float32", "value": float(value)})


def _as_var(value):
    return value if isinstance(value, Variable) else _constant(value)


def _select(step, bound, below, otherwise):
    """`below` while step < bound, else `otherwise` (the value of one Switch case)."""
    cond = _binary("less_than", step, _constant(bound), dtype="bool")
    return _op("where", {"Condition": [cond], "X": [_as_var(below)], "Y": [_as_var(otherwise)]})


def _decay_step_counter(begin=0):
    """The global step as float32: `begin` on the first run, one more on every later run.
    The counter is shared by every decay of the program (the first caller's begin wins)."""
    program = default_main_program()
    block = program.global_block()
    counter = block.vars.get(COUNTER_NAME)
    if counter is None:
        counter = block.create_var(name=COUNTER_NAME, shape=[1], dtype="int64",
                                   persistable=True, stop_gradient=True)
        Constant(begin - 1)(counter)
        block._prepend_op(type="increment", inputs={"X": [counter]},
                          outputs={"Out": [counter]}, attrs={"step": 1.0})
    return _op("cast", {"X": [counter]}, {"in_dtype": "int64", "out_dtype": "float32"})


def _epochs(decay_steps, staircase):
    """global_step / decay_steps, floored when staircase."""
    div = _decay_step_counter() / float(decay_steps)
    return _unary("floor", div) if staircase else div


@_lr_schedule(eager_decay.ExponentialDecay)
def exponential_decay(learning_rate, decay_steps, decay_rate, staircase=False):
    """learning_rate * decay_rate ^ (step / decay_steps)"""
    return (float(decay_rate) ** _epochs(decay_steps, staircase)) * float(learning_rate)


@_lr_schedule(eager_decay.NaturalExpDecay)
def natural_exp_decay(learning_rate, decay_steps, decay_rate, staircase=False):
    """learning_rate * exp(-decay_rate * step / decay_steps)"""
    return _unary("exp", _epochs(decay_steps, staircase) * -float(decay_rate)) * \
        float(learning_rate)


@_lr_schedule(eager_decay.InverseTimeDecay)
def inverse_time_decay(learning_rate, decay_steps, decay_rate, staircase=False):
    """learning_rate / (1 + decay_rate * step / decay_steps)"""
    return float(learning_rate) / (_epochs(decay_steps, staircase) * float(decay_rate) + 1.0)


@_lr_schedule(eager_decay.PolynomialDecay)
def polynomial_decay(learning_rate, decay_steps, end_learning_rate=0.0001, power=1.0,
                     cycle=False):
    """(learning_rate - end) * (1 - step / steps) ^ power + end, where steps = decay_steps
    (step capped at it), or with cycle decay_steps * max(1, ceil(step / decay_steps))."""
    step = _decay_step_counter()
    if cycle:
        cycles = _binary("elementwise_max", _unary("ceil", step / float(decay_steps)),
                         _constant(1.0))
        ratio = _binary("elementwise_div", step, cycles * float(decay_steps))
    else:
        ratio = _binary("elementwise_min", step, _constant(decay_steps)) / float(decay_steps)
    return (1.0 - ratio) ** float(power) * float(learning_rate - end_learning_rate) + \
        float(end_learning_rate)


@_lr_schedule(_eager_piecewise)
def piecewise_decay(boundaries, values):
    """values[i] while step < boundaries[i]; values[-1] after the last boundary."""
    if len(values) != len(boundaries) + 1:
        raise ValueError("piecewise_decay: need len(values) == len(boundaries) + 1, got %d "
                         "values for %d boundaries" % (len(values), len(boundaries)))
    step = _decay_step_counter()
    lr = _constant(values[-1])
    for bound, value in reversed(list(zip(boundaries, values))):
        lr = _select(step, bound, value, lr)
    return lr


@_lr_schedule(eager_decay.CosineDecay)
def cosine_decay(learning_rate, step_each_epoch, epochs):
    """learning_rate * (cos(floor(step / step_each_epoch) * pi / epochs) + 1) / 2"""
    epoch = _unary("floor", _decay_step_counter() / float(step_each_epoch))
    return (_unary("cos", epoch * math.pi / float(epochs)) + 1.0) * (learning_rate * 0.5)


@_lr_schedule(_eager_noam)
def noam_decay(d_model, warmup_steps, learning_rate=1.0):
    """learning_rate * d_model^-0.5 * min(step^-0.5, step * warmup_steps^-1.5), step from 1"""
    step = _decay_step_counter(begin=1)
    falling = step ** -0.5
    rising = step * float(warmup_steps) ** -1.5
    return _binary("elementwise_min", falling, rising) * \
        (float(learning_rate) * float(d_model) ** -0.5)


@_lr_schedule(eager_decay.LinearLrWarmup)
def linear_lr_warmup(learning_rate, warmup_steps, start_lr, end_lr):
    """start_lr -> end_lr linearly over warmup_steps runs, then learning_rate (a float or
    another decay's Variable)."""
    step = _decay_step_counter()
    warming = step / float(warmup_steps) * float(end_lr - start_lr) + float(start_lr)
    return _select(step, warmup_steps, warming, learning_rate)


EXPORTS = {"fluid.layers": {f.__name__: f for f in (
    exponential_decay, natural_exp_decay, inverse_time_decay, polynomial_decay,
    piecewise_decay, cosine_decay, noam_decay, linear_lr_warmup)},
    # outside __all__; 1.8's seresnext_net builds its cosine decay on it
    "fluid.layers.learning_rate_scheduler": {"_decay_step_counter": _decay_step_counter}}
