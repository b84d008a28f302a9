"""FLAGS_check_nan_inf: after each op runs, every floating output (a tensor, or a
SelectedRows' values) is checked; a nan or inf raises Paddle 1.8.5's EnforceNotMet (2.0's
RuntimeError: switch nan_inf_error) naming the op and the variable. Plans bind the check
into their op closures only while the flag is on (Plan.__init__), so runs without it pay
nothing.

As in Paddle, ops without a kernel (feed, fetch, control flow: their sub-blocks' ops are
checked) are not, and three environment variables, read when a plan is built, skip some:
PADDLE_INF_NAN_SKIP_OP (op types), PADDLE_INF_NAN_SKIP_ROLE (op roles) and
PADDLE_INF_NAN_SKIP_VAR (`op:var`, the variables of that op whose names contain `var`),
each a comma-separated list. Eager (dygraph) ops are not checked: 1.8.5 does not check
them either (specs/executor.md)."""
import os

import numpy as np

from .. import versions
from ..framework.errors import EnforceNotMet
from ..framework.program import OPS_WITHOUT_KERNEL, OpRole
from ..framework.selected_rows import RowsValue
from ..ops.registry import BlockOpDef
from ..xp import to_host

__all__ = ["set_checking", "checking", "checked_runs"]

_checking = [False]

# Paddle's role names; forward (0) gets a bit of its own so it can be skipped
_FORWARD_BIT = 0x10000
_ROLE_BITS = {"forward": _FORWARD_BIT, "backward": OpRole.Backward, "optimize": OpRole.Optimize,
              "rpc": OpRole.RPC, "dist": OpRole.Dist, "lrsched": OpRole.LRSched,
              "loss": OpRole.Loss, "default": 0x1000}


def set_checking(on):
    """FLAGS_check_nan_inf's value (fluid/flags.py sets it); plans built from now on check
    or not."""
    _checking[0] = bool(on)


def checking():
    return _checking[0]


def _skip_lists():
    """(op types, role bits, {op type: variable name parts}) from the environment."""
    def items(name):
        return [s for s in os.environ.get(name, "").split(",") if s]
    roles = 0
    for role in items("PADDLE_INF_NAN_SKIP_ROLE"):
        if role not in _ROLE_BITS:
            raise EnforceNotMet("InvalidArgumentError: Skip role must be one of {%s}, instead "
                                "of %s (PADDLE_INF_NAN_SKIP_ROLE)" % (",".join(_ROLE_BITS), role))
        roles |= _ROLE_BITS[role]
    var_parts = {}
    for op_var in items("PADDLE_INF_NAN_SKIP_VAR"):
        op_type, colon, part = op_var.partition(":")
        if not colon:
            raise EnforceNotMet("InvalidArgumentError: Skip var format must be op:var, instead "
                                "of %s (PADDLE_INF_NAN_SKIP_VAR)" % op_var)
        var_parts.setdefault(op_type, []).append(part)
    return frozenset(items("PADDLE_INF_NAN_SKIP_OP")), roles, var_parts


def _floating_array(value):
    """The host array to check in a run-time value, or None (not floating, not a tensor)."""
    if isinstance(value, RowsValue):
        value = value.value
    dtype = getattr(value, "dtype", None)
    if dtype is None or dtype.kind != "f":
        return None
    return to_host(value)


def _check_outputs(op, names, env):
    for name in names:
        array = _floating_array(env.get(name))
        if array is None or np.isfinite(array).all():
            continue
        n_nan = int(np.isnan(array).sum())
        n_inf = int(np.isinf(array).sum())
        where = " (op created at %s)" % op.created_at if op.created_at else ""
        hint = ("  [Hint: %s holds %d nan, %d inf and %d finite values of %d; "
                "FLAGS_check_nan_inf checks every op's floating outputs]%s\n  [operator < %s "
                "> error]" % (name, n_nan, n_inf, array.size - n_nan - n_inf, array.size,
                              where, op.type))
        if versions.switch("nan_inf_error") == "RuntimeError":
            # Paddle 2.0's PreconditionNotMet, a plain RuntimeError (its check_nan_inf_base
            # compares the type exactly)
            error = RuntimeError("There are `nan` or `inf` in tensor (%s) of operator (%s).\n"
                                 % (name, op.type) + hint)
        else:
            error = EnforceNotMet("PreconditionNotMetError: ===ERROR: in [op=%s] [tensor=%s] "
                                  "find nan or inf===\n" % (op.type, name) + hint)
        error.op_type = op.type   # names its op: the executor reports it as it is
        raise error


def _checked(op, run, names):
    def run_checked(env):
        run(env)
        _check_outputs(op, names, env)
    return run_checked


def checked_runs(ops, runs):
    """`runs` (one closure per op), those of the ops Paddle checks followed by the check of
    their outputs."""
    skip_types, skip_roles, skip_var_parts = _skip_lists()

    def names_to_check(op):
        if op.type in OPS_WITHOUT_KERNEL or isinstance(op.op_def, BlockOpDef) or \
                op.type in skip_types:
            return ()
        role = op.attrs.get("op_role", OpRole.Forward) or _FORWARD_BIT
        if role & skip_roles:
            return ()
        parts = skip_var_parts.get(op.type, ())
        return tuple(n for n in dict.fromkeys(op.output_arg_names)
                     if not any(p in n for p in parts))
    checked = []
    for op, run in zip(ops, runs):
        names = names_to_check(op)
        checked.append(_checked(op, run, names) if names else run)
    return checked
