"""Plain helpers shared by test modules (tests/ is on sys.path, as for `from test_conv_pool
import conv_loops`): running what a test built, and reading a variable's value."""
import numpy as np

from refimpl import fluid, static
from refimpl.framework.program import Program, program_guard
from refimpl.framework.scope import Scope


def startup_executor():
    """An Executor that has run the default startup program (parameters initialized)."""
    exe = static.Executor()
    exe.run(static.default_startup_program())
    return exe


def scope_value(var):
    """`var`'s current value in the global scope, as numpy."""
    return np.array(static.global_scope().find_var(var.name).get_tensor())


def build_and_run(build, feed=None):
    """Build `build()` (returns the fetch Variables) in fresh programs, run its startup and
    main program in a fresh scope on `feed`; the fetched numpy values."""
    main, startup = Program(), Program()
    with program_guard(main, startup):
        fetch = build()
    exe = fluid.Executor(fluid.CPUPlace())
    scope = Scope()
    exe.run(startup, scope=scope)
    return exe.run(main, feed=feed or {}, fetch_list=list(fetch), scope=scope)
