"""Errors that name the op, the variable, expected vs got, and the user's line."""
import os
import sys

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def user_frame():
    """'file:line' of the innermost caller outside refimpl (the user's script), or ''."""
    f = sys._getframe(1)
    while f is not None:
        fname = f.f_code.co_filename
        if not os.path.abspath(fname).startswith(_PACKAGE_DIR) and not fname.startswith("<frozen"):
            return "%s:%d" % (fname, f.f_lineno)
        f = f.f_back
    return ""


class EnforceNotMet(Exception):
    """Paddle's C++ check failures (fluid.core.EnforceNotMet); refimpl's op and feed errors
    are also EnforceNotMet, so `except core.EnforceNotMet` catches what it did in Paddle."""


class OpError(ValueError, EnforceNotMet):
    """Raised when an op is built or run with bad inputs."""

    def __init__(self, op_type, message, created_at=""):
        self.op_type = op_type
        self.created_at = created_at
        where = " (op created at %s)" % created_at if created_at else ""
        super().__init__("[operator %s] %s%s" % (op_type, message, where))


def names_its_op(error):
    """Whether `error` already says which op failed: an OpError, or a check made after an
    op ran (op_type set on it, FLAGS_check_nan_inf's EnforceNotMet), reported as it is."""
    return isinstance(error, OpError) or getattr(error, "op_type", None) is not None


class OpTypeError(OpError, TypeError):
    """An op input of a dtype the op does not take (a TypeError, as in Paddle's layers)."""


class OpIndexError(OpError, IndexError):
    """An index out of range when the op runs (Paddle 2.0's OutOfRange, an IndexError)."""


class OpRuntimeError(OpError, RuntimeError):
    """A build-time check Paddle 3 raises as a RuntimeError (its PreconditionNotMet:
    searchsorted's mismatched leading dims)."""


class LayerAssertionError(ValueError, AssertionError):
    """A layer argument that Paddle checks with `assert` (an AssertionError there, e.g.
    reshape's shape with two -1): a ValueError in refimpl's terms, an AssertionError in
    Paddle's."""


class ArgumentTypeAssertionError(TypeError, AssertionError):
    """An argument of the wrong type that Paddle checks with `assert` (paddle.io's
    DataLoader dataset): a TypeError in refimpl's terms, an AssertionError in Paddle's."""


class NotATensorError(TypeError, ValueError):
    """A layer's tensor argument that is no Variable / Tensor (a numpy array, a LoDTensor):
    a TypeError in refimpl's terms (and Paddle's static-graph checks), a ValueError in
    Paddle 3's eager kernels' (their InvalidArgument: "must be Tensor, but got ...")."""


class NoLengthError(TypeError, RuntimeError):
    """len() of what has no length (an IterableDataset): a TypeError, as Python's
    list() and length hints expect, and Paddle 2.0's RuntimeError."""


class DygraphOnlyError(RuntimeError, AssertionError):
    """A dygraph-only method called on a static Variable: a RuntimeError in refimpl's
    terms, an AssertionError in Paddle 1.8's (its fake_interface_only asserts)."""


class ParameterFileError(ValueError, RuntimeError):
    """fluid.io parameter files that do not fit the variables loaded from them (shape,
    dtype, how many): a ValueError in refimpl's terms, a RuntimeError in Paddle 1.8's
    (load_vars' shape check, load / load_program_state's "Failed to load model file")."""


class ReaderKilledError(EnforceNotMet, SystemError):
    """Reading from a queue whose reader raised: Paddle 1.8's EnforceNotMet, 2.0's and
    3.3.1's errors::Fatal, which Python sees as a SystemError (2.0's
    test_multiprocess_reader_exception catches it; 3.3.1 measured)."""


class WorkerProcessError(EnforceNotMet, RuntimeError, SystemError):
    """A loader's worker process died (a non-zero exit, a signal): a RuntimeError in
    refimpl's terms, Paddle 1.8's EnforceNotMet and 2.0's errors::Fatal, which Python sees
    as a SystemError (test_imperative_signal_handler of each catches its own)."""


class EOFException(Exception):
    """A started reader has no more batches (Paddle: fluid.core.EOFException)."""


class FeedError(ValueError, EnforceNotMet):
    """A fed value does not match its `data` variable."""


class TensorValueError(ValueError, EnforceNotMet):
    """A value a tensor cannot hold (Tensor.set of strings): Paddle's InvalidArgument check,
    an EnforceNotMet in 1.8.5 (measured), a ValueError in 2.0 and 3.3.1."""


class DeviceFeedError(FeedError, RuntimeError):
    """A feed that cannot be split over the devices (fewer samples than devices, a
    persistable feed of neither 1 nor one per device): Paddle's PreconditionNotMet, an
    EnforceNotMet in 1.8.5 and a RuntimeError in 2.0 (its
    test_parallel_executor_feed_persistable_var asserts it)."""
