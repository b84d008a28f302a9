"""Every op reachable from its name: where it is defined, its spec page, its kernels (and
which one runs under the current REFIMPL_KERNELS), its gradient, its samples and golden
vectors, and the tests that name it. `python -m refimpl ops [NAME]` prints this."""
import collections
import difflib
import glob
import inspect
import os
import re

import numpy as np

from ._kernels import backend
from .conformance.store import GOLDEN_DIR, read_index
from .dispatch import WHICH, kernels_of, select_kernel
from .ops.registry import all_op_types, get_op_def, slot_name

__all__ = ["OpInfo", "op_info", "all_op_infos", "main"]

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SPECS_DIR = os.path.join(ROOT, "specs")
TESTS_DIR = os.path.join(ROOT, "tests")

OpInfo = collections.namedtuple(
    "OpInfo", "type source spec kernels gradient samples goldens tests")
OpInfo.__doc__ = """What `ops NAME` prints about a forward op type:
source     "file:line" of the definition (relative to the checkout)
spec       the spec page listing it in its `Ops:` line (None when none does)
kernels    [(which, function, active)] for every kernel kind the op has
gradient   a sentence: its grad op and where the backward is, or why there is none
samples    how many Samples it has; goldens: how many golden cases
tests      test files naming it ("tests/test_ops.py" first when it has samples)"""


def _relative(path):
    return os.path.relpath(path, ROOT)


def _definition(op_def):
    """(file, line) where the op's type string is written: `type = "name"`, else the first
    line quoting it (activations made by a factory, fused types listed in a tuple)."""
    path = inspect.getsourcefile(type(op_def))
    with open(path) as f:
        lines = f.read().splitlines()
    quoted = re.compile(r"""["']%s["']""" % re.escape(op_def.type))
    for pattern in (re.compile(r"""\btype\s*=\s*["']%s["']""" % re.escape(op_def.type)),
                    quoted):
        for i, line in enumerate(lines):
            if pattern.search(line):
                return path, i + 1
    return path, inspect.getsourcelines(type(op_def))[1]


def _function_name(fn):
    if fn is None:
        return None
    owner = getattr(fn, "__self__", None)
    name = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", repr(fn))
    if owner is not None and not inspect.isclass(owner):
        name = "%s.%s" % (type(owner).__name__, getattr(fn, "__name__", name))
    module = getattr(fn, "__module__", None) or type(fn).__module__
    return "%s.%s" % (module, name) if module else name


def _kernels(op_type):
    """[(which, function description, active)]: the compiled kernel ("module:function") and
    the numpy function (variant or reference) for each kind the op has; `active` marks the
    one select_kernel picks now (default attrs, float32)."""
    entry = kernels_of(op_type)
    op_def = get_op_def(op_type)
    rows = []
    for which in WHICH:
        chosen = select_kernel(op_type, which, dict(op_def.attrs), "float32")
        if chosen is None:
            continue
        compiled = entry.compiled.get(which)
        if compiled is not None:
            rows.append((which, "compiled " + compiled, chosen.compiled))
        numpy_fn = entry.numpy.get(which)
        if numpy_fn is None and not chosen.compiled:
            numpy_fn = chosen.fn
        if numpy_fn is None and which in ("forward", "backward"):
            numpy_fn = getattr(op_def, which)
        if numpy_fn is not None:
            kind = "numpy variant " if which in entry.numpy else "reference "
            rows.append((which, kind + _function_name(numpy_fn), not chosen.compiled))
    return rows


def _gradient(op_def):
    if op_def.has_grad():
        grad = get_op_def(op_def.type + "_grad")
        path, line = inspect.getsourcefile(type(op_def)), None
        try:
            line = inspect.getsourcelines(op_def.backward)[1]
        except (OSError, TypeError):   # a ufunc or lambda made by a factory
            pass
        where = _relative(path) + (":%d" % line if line else "")
        return "%s (backward at %s), reads %s" % (
            grad.type, where, ", ".join(slot_name(s) for s in grad.inputs))
    if getattr(op_def, "control_grad", False):
        return "%s_grad, built with its sub-block by refimpl/backward" % op_def.type
    return "none"


def _spec_pages():
    """{op type: spec page} from every page's `Ops:` line."""
    pages = {}
    for path in sorted(glob.glob(os.path.join(SPECS_DIR, "**", "*.md"), recursive=True)):
        with open(path) as f:
            text = f.read()
        match = re.search(r"^Ops: (.*(?:\n  .*)*)", text, re.M)
        if match:
            for name in re.findall(r"`([^`]+)`", match.group(1)):
                pages.setdefault(name, []).append(_relative(path))
    return pages


def _golden_counts():
    try:
        cases = read_index(GOLDEN_DIR)["cases"]
    except (FileNotFoundError, ValueError):
        return {}
    return collections.Counter(c["op"] for c in cases if c.get("kind") == "op")


def _test_sources():
    sources = {}
    for path in sorted(glob.glob(os.path.join(TESTS_DIR, "test_*.py"))):
        with open(path) as f:
            sources[_relative(path)] = f.read()
    return sources


class _Index:
    """What every OpInfo needs, read once: spec pages, golden counts, test sources."""

    def __init__(self):
        self.specs = _spec_pages()
        self.goldens = _golden_counts()
        self.tests = _test_sources()

    def info(self, op_type):
        op_def = get_op_def(op_type)
        path, line = _definition(op_def)
        samples = len(list(op_def.samples(np.random.RandomState(0))))
        quoted = re.compile(r"""["']%s["']""" % re.escape(op_type))
        tests = [p for p, text in self.tests.items() if quoted.search(text)]
        if samples:
            tests = ["tests/test_ops.py"] + [t for t in tests if t != "tests/test_ops.py"]
        pages = self.specs.get(op_type)
        return OpInfo(op_type, "%s:%d" % (_relative(path), line),
                      pages[0] if pages else None, _kernels(op_type), _gradient(op_def),
                      samples, self.goldens.get(op_type, 0), tests)


def forward_type(name):
    """The forward op type of `name` (an auto-generated "<type>_grad" maps to <type>); a
    ValueError naming the closest types when there is none."""
    types = all_op_types()
    if name not in types:
        close = difflib.get_close_matches(name, types, n=3)
        raise ValueError("no op type %r%s" % (name, "; did you mean %s?" % ", ".join(close)
                                                if close else ""))
    fwd = getattr(get_op_def(name), "fwd", None)
    return fwd.type if fwd is not None else name


def forward_types():
    return [t for t in all_op_types() if getattr(get_op_def(t), "fwd", None) is None]


def op_info(name):
    return _Index().info(forward_type(name))


def all_op_infos():
    index = _Index()
    return [index.info(t) for t in forward_types()]


def _print_one(info, out):
    out("%s" % info.type)
    out("  defined   %s" % info.source)
    out("  spec      %s" % (info.spec or "(no spec page lists it)"))
    out("  kernels   (REFIMPL_KERNELS=%s; * = runs now)" % backend())
    for which, fn, active in info.kernels:
        out("    %s %-16s %s" % ("*" if active else " ", which, fn))
    out("  gradient  %s" % info.gradient)
    out("  samples   %d; golden cases %d" % (info.samples, info.goldens))
    out("  tests     %s" % (", ".join(info.tests) or "(none names it)"))


def _active(info):
    """The running kernel of each kind, e.g. "forward=compiled, backward=reference"."""
    return ", ".join("%s=%s" % (which, fn.split()[0]) for which, fn, active in info.kernels
                     if active)


def main(argv, out=print):
    """`ops`: every op type, one line each; `ops NAME`: everything about one op."""
    if argv and argv[0] in ("-h", "--help"):
        out("usage: python -m refimpl ops [NAME]\n\nWithout NAME: every op type with its "
            "definition, spec page, running kernels, gradient, samples, golden cases and "
            "test files. With NAME (an op type, or its <type>_grad): all of that in full.")
        return 0
    if argv:
        try:
            info = op_info(argv[0])
        except ValueError as e:
            out("refimpl ops: %s" % e)
            return 2
        _print_one(info, out)
        return 0
    out("%-34s %-40s %-28s %-44s %-5s %-7s %-7s %s" % (
        "op", "defined", "spec", "kernels (REFIMPL_KERNELS=%s)" % backend(), "grad",
        "samples", "goldens", "tests"))
    for info in all_op_infos():
        out("%-34s %-40s %-28s %-44s %-5s %-7d %-7d %d" % (
            info.type, info.source, info.spec or "-", _active(info),
            "yes" if info.gradient != "none" else "no", info.samples, info.goldens,
            len(info.tests)))
    return 0
