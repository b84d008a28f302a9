"""Which mode input-less creation follows (to_tensor, paddle.ones, Layer parameters), and
whether eager ops are recorded for autograd. Operations with inputs follow their inputs
(static Variable -> op appended to a program, eager Tensor -> run now): see
specs/dygraph.md#mode-rules.

Read as module attributes (`mode.dynamic`, `mode.grad_enabled`) on the hot path.

`mode.eager` is what dynamic mode lends the framework (refimpl.dygraph installs it when it
loads): the eager Tensor and ParamBase classes and the functions that run an op now, so
that LayerHelper, the initializers, the operators and the savers run eagerly without the
framework importing dygraph (docs/ARCHITECTURE.md)."""
import contextlib
import functools
import inspect

from .. import versions
from . import unique_name
from .errors import LayerAssertionError

__all__ = ["in_dynamic_mode", "in_pir_mode", "in_dynamic_or_pir_mode", "enable_static", "disable_static", "dygraph_guard",
           "program_guard_scope", "static_only_api", "no_grad", "enable_grad",
           "set_grad_enabled", "is_grad_enabled", "start_as_profile"]


def start_as_profile():
    """The mode and gradient rules a script starts with under the current version profile
    (again when `run --paddle` switches the profile after refimpl was imported).
    Dynamic by default under the Paddle 2.0 and 3 profiles, static under 1.8. Up to Paddle
    2.0 every tensor that needs a gradient keeps it after backward and Tensor.grad is an
    ndarray; from 2.1 on .grad is a Tensor, and from 2.3 a non-leaf keeps its gradient only
    after retain_grads() (specs/dygraph.md#versions)."""
    global dynamic, legacy_grads, dynamic_asked
    dynamic = versions.switch("default_mode") == "dynamic"
    dynamic_asked = False
    legacy_grads = versions.switch("legacy_grads")


dynamic = legacy_grads = None
# whether dynamic mode was asked for (disable_static(), inside fluid.dygraph.guard()) rather
# than being the profile's start: static_only_api switches a script that never asked to
# static mode, and refuses inside a program_guard where it did
dynamic_asked = False
start_as_profile()
grad_enabled = True
# the tracer's train mode (Paddle 2.0's _dygraph_tracer()._train_mode, a flag apart from
# grad_enabled): Layer.train() / eval() set it in dynamic mode, and an eager
# fluid.layers.dropout with is_test None follows it
train_mode = True
_program_guards = 0    # open program_guards (see program_guard_scope)
eager = None           # installed by refimpl.dygraph: see install_eager


def install_eager(hooks):
    """Lend the framework dynamic mode's `hooks`: an object with Tensor, ParamBase,
    append_op(block, type, inputs, outputs, attrs), has_eager_input(inputs),
    placeholder(dtype, shape, stop_gradient), run_eagerly(op_type, inputs, attrs, ...) and
    run_op(op_type, inputs, outputs, attrs)."""
    global eager
    eager = hooks


def in_dynamic_mode():
    return dynamic


def in_pir_mode():
    """Paddle 3's question whether static programs are PIR programs: never in refimpl,
    whose programs are one IR with the legacy ProgramDesc's API in every profile (Paddle
    3's code and tests then take their legacy-IR branch; specs/versions.md,
    Divergences)."""
    return False


def in_dynamic_or_pir_mode():
    """Paddle 3's dispatch test (eager, or a PIR program): dynamic mode here."""
    return dynamic


def variable_kind():
    """What an op's input must be in the current mode, for error messages."""
    return "a Tensor (paddle.to_tensor(...))" if dynamic else "a static Variable"


# the unique-name generator static mode had when paddle.disable_static left it: Paddle's
# enable_dygraph enters fluid.dygraph.guard(), so dynamic mode names afresh (linear_0, ...)
# until enable_static puts the static names back
_static_names = None


def enable_static():
    global dynamic, _static_names, dynamic_asked
    dynamic = dynamic_asked = False
    if _static_names is not None:
        unique_name.switch(*_static_names)
        _static_names = None


def disable_static(place=None):
    """Dynamic mode from here, inside a program_guard too (Paddle 2.0's tests switch inside
    one; a program_guard that is static inside, under profile 3, gives back the mode it was
    entered in when left). From static mode it names afresh until enable_static() puts the
    static names back."""
    global dynamic, _static_names, train_mode, dynamic_asked
    if not dynamic:
        _static_names = unique_name.switch()
        train_mode = True       # Paddle makes a new tracer, in train mode
    dynamic = dynamic_asked = True


@contextlib.contextmanager
def dygraph_guard(enable=True):
    """fluid.dygraph.guard: dynamic inside, with a new tracer's train mode (True), as
    Paddle's guard makes one; the previous mode and train mode after."""
    global dynamic, train_mode, dynamic_asked
    old, dynamic = dynamic, bool(enable)
    old_train_mode, train_mode = train_mode, True
    old_asked, dynamic_asked = dynamic_asked, dynamic
    try:
        yield
    finally:
        dynamic, train_mode, dynamic_asked = old, old_train_mode, old_asked


@contextlib.contextmanager
def program_guard_scope(static):
    """What program_guard opens: static inside when `static` (the mode it was entered in
    after), else the mode left as it is (switch program_guard_mode)."""
    global dynamic, _program_guards
    old = dynamic
    if static:
        dynamic = False
    _program_guards += 1
    try:
        yield
    finally:
        _program_guards -= 1
        if static:
            dynamic = old


# how many dygraph-to-static translations are building a program now (jit.save's forward on
# InputSpecs, ProgramTranslator.get_program): eager Tensors the code captured stay welcome
# in fluid.layers there, as in Paddle 2.0's declarative mode
_translations = 0


@contextlib.contextmanager
def translating():
    """A dygraph-to-static translation builds a program inside."""
    global _translations
    _translations += 1
    try:
        yield
    finally:
        _translations -= 1


def in_translation():
    return _translations > 0


def static_only_api():
    """Called by the static-only data APIs (fluid.layers.data, fluid.data,
    paddle.static.data). In the dynamic mode a script starts in, the script is a static
    program after all (seed examples build fluid programs without enable_static()): the
    rest of it runs in static mode, as if enable_static() had come just before. Inside a
    program_guard in a dynamic mode asked for (disable_static(), fluid.dygraph.guard())
    they refuse, as Paddle 2.0's static_only APIs (an AssertionError; under 1.8 they switch
    to static mode there too: switch data_static_only)."""
    global dynamic
    if _program_guards and dynamic and dynamic_asked and versions.switch("data_static_only"):
        raise LayerAssertionError(
            "data() is only supported in static graph mode: this program_guard runs in "
            "dynamic mode (paddle.disable_static() or fluid.dygraph.guard(); call "
            "paddle.enable_static() first)")
    dynamic = False


# -- gradient recording

def is_grad_enabled():
    return grad_enabled


class _GradSwitch:
    """Context manager and decorator (`@no_grad()`, or 1.8's bare `@no_grad`) setting
    whether eager ops are recorded."""
    _enabled = True

    def __new__(cls, func=None):
        self = super().__new__(cls)
        return self if func is None else self(func)

    def __enter__(self):
        global grad_enabled
        self._old, grad_enabled = grad_enabled, self._enabled
        return self

    def __exit__(self, *exc):
        global grad_enabled
        grad_enabled = self._old
        return False

    def __call__(self, func):
        @functools.wraps(func)
        def wrapped(*args, **kwargs):
            with self._again():
                return func(*args, **kwargs)
        # getfullargspec (which ignores __wrapped__) shows func's arguments too, as Paddle's
        # decorators (made with the `decorator` package) kept them
        wrapped.__signature__ = inspect.signature(func)
        return wrapped

    def _again(self):
        """A fresh switch of the same kind, for one call of a decorated function."""
        return type(self)()


class no_grad(_GradSwitch):
    """No eager op run inside is recorded: results have stop_gradient=True."""
    _enabled = False


class enable_grad(_GradSwitch):
    _enabled = True


class set_grad_enabled(_GradSwitch):
    """`paddle.set_grad_enabled(mode)`: eager ops are recorded (mode True) or not from the
    call on; as a context manager the previous setting comes back at its exit, and as a
    decorator the function runs under `mode` (3.3.1's class; Paddle 3's
    test_imperative_decorator decorates test methods with it)."""

    def __new__(cls, mode):
        self = object.__new__(cls)
        self._enabled = bool(mode)
        _GradSwitch.__enter__(self)       # now; __exit__ puts the previous setting back
        return self

    def __enter__(self):
        return self

    def _again(self):
        return set_grad_enabled(self._enabled)
