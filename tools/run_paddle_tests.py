"""Run PaddlePaddle's own unittest files, unmodified, on refimpl or on a real Paddle.

    python tools/run_paddle_tests.py DIR --list specs/paddle18_tests.txt --json r.json
    python tools/run_paddle_tests.py DIR --list ... --python /opt/paddle18/bin/python \
        --json p.json                                       # the same files on a real Paddle
    python tools/run_paddle_tests.py --table r.json p.json  # a markdown table of both
    python tools/run_paddle_tests.py DIR --list specs/paddle18_numpy1_tests.txt \
        --refimpl-python /opt/np1/bin/python                # refimpl under numpy 1.x

Each file runs in its own process, as Paddle's CI runs it (`python test_x.py`, which calls
unittest.main()), from DIR so that the files' helper modules (op_test.py, ...) import. On
refimpl the only change is the import alias: `python -m refimpl run --paddle 1.8 FILE`.
The files were written for numpy 1.x and Python 3.8 (Paddle 1.8.5's venv here has numpy
1.23.5): on numpy 2 the runner first puts back the aliases numpy removed that they call
(np.product, np.alltrue, np.float, ...: refimpl/legacy_numpy.py, which `run --paddle 1.8`
itself restores too; np.reshape's newshape keyword) and what Python 3.10 and 3.11 removed
(collections.Sequence and the other collections.abc aliases; inspect.getargspec, as
getfullargspec's first four fields; random.sample of a set, which 3.8 sampled as a tuple
of it), then runs refimpl's own `run` command; refimpl is not changed by it
(--no-numpy1-aliases runs the plain command). With --paddle 2.0 (the 2.x files:
specs/paddle20_tests.txt) it also lends fluid.framework._test_eager_guard, a no-op here,
to the later 2.x revisions that call it; with --paddle 3 (Paddle 3's test/legacy_test files:
specs/paddle3_tests.txt) it lends paddle.pir_utils.test_with_pir_api, which runs a test
once (refimpl has one program IR), and starts the file with FLAGS_enable_pir_api=0, its
revision's default, unless the environment sets the flag. A file that never calls unittest.main() and has no
`__main__` block (its suite comes from load_tests, e.g. rnn/test_rnn_cells.py) is loaded by
unittest's loader,
as Paddle's CI does, through a driver script in a temporary folder. So is a module that
Paddle 2.x's CI runs in static mode: those its tools/static_mode_white_list.py names (read
from the Paddle tree DIR is in, DIR/../../tools, when that file is there) start under
paddle.enable_static(), as its tools/test_runner.py starts them. And as in Paddle's
package, paddle.fluid.tests is the tree's fluid/tests (a 2.x file imports another's test
classes from paddle.fluid.tests.unittests).
Prints one line per file (exit status, tests run / failed / errored / skipped) and,
with --json, writes the results. The test files are Paddle's and stay out of this
repository (fetch them into DIR from Paddle's release/1.8 tree).
"""
import argparse
import ast
import json
import os
import re
import subprocess
import sys
import tempfile
import time

_RAN = re.compile(r"^Ran (\d+) tests? in", re.M)
_SUMMARY = re.compile(r"^(OK|FAILED)(?: \((.*)\))?\s*$", re.M)


def parse_unittest_output(text):
    """(ran, failures, errors, skipped) from unittest's closing lines; ran is None when
    the file never got to run its tests (an import error, a crash, a timeout)."""
    ran = _RAN.findall(text)
    summary = _SUMMARY.findall(text)
    if not ran or not summary:
        return None, 0, 0, 0
    counts = dict(failures=0, errors=0, skipped=0, expected_failures=0)
    for part in (summary[-1][1] or "").split(","):
        if "=" in part:
            key, value = part.strip().split("=")
            counts[key] = int(value)
    return int(ran[-1]), counts["failures"], counts["errors"], counts["skipped"]


def last_error_line(text):
    """The last `SomethingError: ...` line: why a file failed, in one line."""
    lines = [l for l in text.splitlines() if re.match(r"^\w+(\.\w+)*(Error|Exception)\b", l)]
    return lines[-1][:200] if lines else ""


_PRELUDE = ("import collections, inspect, io, numpy, runpy, sys\n"
            "from refimpl import legacy_numpy\n"
            "legacy_numpy.restore('1.8', io.StringIO())\n"
            "if not hasattr(inspect, 'getargspec'):\n"
            "    ArgSpec = collections.namedtuple('ArgSpec', 'args varargs keywords defaults')\n"
            "    inspect.getargspec = lambda f: ArgSpec(*inspect.getfullargspec(f)[:4])\n"
            "if 'newshape' not in inspect.signature(numpy.reshape).parameters:\n"
            "    _reshape = numpy.reshape\n"
            "    numpy.reshape = lambda a, shape=None, order='C', newshape=None, **kw: \\\n"
            "        _reshape(a, newshape if shape is None else shape, order=order, **kw)\n"
            "import collections.abc\n"
            "for _name in collections.abc.__all__:\n"
            "    if not hasattr(collections, _name):\n"
            "        setattr(collections, _name, getattr(collections.abc, _name))\n"
            "if sys.version_info >= (3, 11):\n"
            "    import random\n"
            "    _sample = random.sample\n"
            "    random.sample = lambda population, k, **kw: _sample(\n"
            "        tuple(population) if isinstance(population, (set, frozenset))\n"
            "        else population, k, **kw)\n"
            "%s"
            "sys.argv[0] = 'refimpl'\n"
            "runpy.run_module('refimpl', run_name='__main__', alter_sys=True)\n")

# The 2.x files' stored revisions (Paddle 2.3-2.4) run tests a second time inside
# fluid.framework._test_eager_guard(), a test-only switch to the eager mode those releases
# were moving to (gone in 3.0, absent from 2.0). refimpl has one dynamic mode: the guard
# the runner lends them changes nothing, so each such test runs its body twice, the same.
_EAGER_GUARD = ("import contextlib, refimpl.fluid.framework as _framework\n"
                "if not hasattr(_framework, '_test_eager_guard'):\n"
                "    _framework._test_eager_guard = lambda place=None: contextlib.nullcontext()\n")


# Paddle's package holds its test tree: a 2.x file imports another's classes as
# paddle.fluid.tests.unittests.<module> (test_parallel_executor_profiler's TestProfiler).
# The runner makes paddle.fluid.tests the tree's fluid/tests folder, Paddle's files.
_PADDLE_TESTS = ("import types\n"
                 "_tests = types.ModuleType('paddle.fluid.tests')\n"
                 "_tests.__path__ = [%r]\n"
                 "sys.modules['paddle.fluid.tests'] = _tests\n")


# The 3.x files' stored revision (early 2024, before PIR became the default program IR)
# decorates tests with paddle.pir_utils.test_with_pir_api, a test-only helper (gone in
# 3.3.1) that runs a test once under the legacy IR and again under PIR. refimpl's programs
# are one IR (paddle.framework.in_pir_mode() is False): the helper the runner lends runs
# the test once, under OldIrGuard.
_PIR_TEST = ("import functools, refimpl.pir_utils as _pir_utils\n"
             "def _test_with_pir_api(test):\n"
             "    @functools.wraps(test)\n"
             "    def once(*args, **kwargs):\n"
             "        with _pir_utils.OldIrGuard():\n"
             "            return test(*args, **kwargs)\n"
             "    return once\n"
             "_pir_utils.test_with_pir_api = _test_with_pir_api\n")


def prelude(paddle_version, tree_dir=None):
    """What runs before refimpl's `run` command: the numpy 1.x and Python 3.8 aliases,
    for the 2.x files the eager guard above and, given the Paddle tree (its
    python/paddle), its paddle.fluid.tests, and for the 3.x files the PIR test helper."""
    extra = ""
    if paddle_version in ("3", "3.0"):
        extra = _PIR_TEST
    elif paddle_version != "1.8":
        extra = _EAGER_GUARD
        if tree_dir is not None:
            extra += _PADDLE_TESTS % os.path.join(os.path.abspath(tree_dir), "fluid", "tests")
    return _PRELUDE % extra


_LOADER = ("import sys, unittest\n"
           "sys.path.insert(0, %r)\n"
           "%s"
           "unittest.main(module=%r, argv=[%r])\n")
_STATIC_START = "import paddle\npaddle.enable_static()\n"


def static_mode_modules(tree_dir):
    """The test modules Paddle 2.x's CI runs under paddle.enable_static() (its
    tools/test_runner.py does so for the names in tools/static_mode_white_list.py's
    STATIC_MODE_TESTING_LIST), read from the Paddle tree tree_dir (its python/paddle) is
    in; none when the tree has no such file (Paddle 1.8's: static is its default)."""
    path = os.path.join(tree_dir, os.pardir, os.pardir, "tools", "static_mode_white_list.py")
    if not os.path.isfile(path):
        return frozenset()
    with open(path) as f:
        module = ast.parse(f.read(), path)
    for node in module.body:
        if isinstance(node, ast.Assign) and any(
                getattr(t, "id", None) == "STATIC_MODE_TESTING_LIST" for t in node.targets):
            return frozenset(ast.literal_eval(node.value))
    raise ValueError("%s has no STATIC_MODE_TESTING_LIST" % path)


def _script(path, tmpdir, static=False):
    """What to run for `path`: the file itself (one calling unittest.main(), or a script
    whose `__main__` block runs it: fluid/tests/book/test_recommender_system), or a driver
    written to tmpdir that loads it with unittest's loader as Paddle's CI
    (tools/test_runner.py) does: for a file with neither (rnn/test_rnn_cells.py builds its
    suite in load_tests), and for a module that CI starts in static mode (`static`), after
    enable_static()."""
    with open(path) as f:
        text = f.read()
    # a script with its own __main__ block (the book files: main() trains, then infers)
    # runs as itself, as Paddle's CI runs it (py_test)
    if not static and ("unittest.main(" in text or "__name__ == '__main__'" in text
                       or '__name__ == "__main__"' in text):
        return os.path.basename(path)
    name = os.path.splitext(os.path.basename(path))[0]
    driver = os.path.join(tmpdir, "load_%s.py" % name)
    with open(driver, "w") as f:
        f.write(_LOADER % (os.path.dirname(os.path.abspath(path)),
                           _STATIC_START if static else "", name, name))
    return driver


def run_file(path, python, paddle_version, timeout, numpy1_aliases=True,
             refimpl_python=sys.executable, static=False, tree_dir=None):
    with tempfile.TemporaryDirectory() as tmpdir:
        script = _script(path, tmpdir, static)
        if python:
            cmd = [python, script]
        elif numpy1_aliases:
            cmd = [refimpl_python, "-c", prelude(paddle_version, tree_dir), "run", "--paddle",
                   paddle_version, script]
        else:
            cmd = [refimpl_python, "-m", "refimpl", "run", "--paddle", paddle_version, script]
        return _run(cmd, path, python, timeout,
                    _REVISION_FLAGS.get("3" if paddle_version == "3.0" else paddle_version))


# The 3.x files' stored revision ran its programs under the legacy IR by default
# (FLAGS_enable_pir_api became True with 3.0-beta); 3.3.1 still follows the flag where
# refimpl does (save_inference_model's format, the seed of dynamic-mode initializers:
# specs/runner.md, "Paddle 3 files"), so the runner starts them with it off unless the
# caller's environment sets it.
_REVISION_FLAGS = {"3": {"FLAGS_enable_pir_api": "0"}}


def _run(cmd, path, python, timeout, flags=None):
    env = dict(os.environ)
    for name, value in (flags or {}).items():
        env.setdefault(name, value)
    # Paddle runs its math library on FLAGS_paddle_num_threads threads, 1 by default
    # (1.8.5 too); numpy's OpenBLAS would take every core, and its threads spin while they
    # wait: on a loaded machine that multiplied a file's CPU time up to 9 times (numeric
    # gradients do many small matmuls). Both refimpl and Paddle runs get one BLAS thread,
    # and refimpl's compiled kernels a team of one OpenMP thread, for the same reason (the
    # spinning team took a quarter of an SE-ResNeXt step's CPU time: 20.8 s -> 15.3 s).
    env.setdefault("OPENBLAS_NUM_THREADS", "1")
    env.setdefault("OMP_NUM_THREADS", "1")
    if not python:
        repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        env["PYTHONPATH"] = repo + os.pathsep + env.get("PYTHONPATH", "")
    start = time.time()
    try:
        proc = subprocess.run(cmd, cwd=os.path.dirname(os.path.abspath(path)), env=env,
                              capture_output=True, text=True, timeout=timeout)
        output, status = proc.stdout + proc.stderr, proc.returncode
    except subprocess.TimeoutExpired as e:
        output = (e.stdout or b"").decode(errors="replace") + (e.stderr or b"").decode(
            errors="replace")
        status = "timeout"
    ran, failures, errors, skipped = parse_unittest_output(output)
    return {"file": os.path.relpath(path), "status": status, "passed": status == 0,
            "ran": ran, "failures": failures, "errors": errors, "skipped": skipped,
            "seconds": round(time.time() - start, 1),
            "reason": "" if status == 0 else last_error_line(output) or str(status),
            "output_tail": output[-3000:]}


def _tests_passed(r):
    if r["ran"] is None:
        return "-"
    return "%d/%d" % (r["ran"] - r["skipped"] - r["failures"] - r["errors"],
                      r["ran"] - r["skipped"])


def table(refimpl_json, paddle_json):
    """Markdown rows: file, Paddle's result, refimpl's, tests passed (of those not skipped)
    by each, and refimpl's reason when it fails."""
    with open(refimpl_json) as f:
        ours = json.load(f)
    with open(paddle_json) as f:
        theirs = {os.path.basename(r["file"]): r for r in json.load(f)}
    lines = ["| file | Paddle 1.8.5 | refimpl | tests passed (Paddle / refimpl) | why refimpl "
             "fails |", "|---|---|---|---|---|"]
    for r in ours:
        name = os.path.basename(r["file"])
        p = theirs.get(name)
        lines.append("| %s | %s | %s | %s / %s | %s |" % (
            name, ("pass" if p["passed"] else "fail") if p else "?",
            "pass" if r["passed"] else "fail", _tests_passed(p) if p else "?",
            _tests_passed(r), r["reason"].replace("|", "/")[:120]))
    n_ours = sum(r["passed"] for r in ours)
    n_theirs = sum(theirs[os.path.basename(r["file"])]["passed"] for r in ours
                   if os.path.basename(r["file"]) in theirs)
    lines.append("\n%d files: Paddle 1.8.5 passes %d, refimpl %d" % (len(ours), n_theirs, n_ours))
    return "\n".join(lines)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "--table":
        print(table(argv[1], argv[2]))
        return 0
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dir", help="folder holding Paddle's test files and their helpers")
    ap.add_argument("--list", help="text file naming the test files (one a line, relative "
                    "to DIR, '#' comments); default: every test_*.py in DIR")
    ap.add_argument("--python", help="a real Paddle's interpreter; default: refimpl")
    ap.add_argument("--refimpl-python", default=sys.executable,
                    help="the interpreter that runs refimpl (another numpy, e.g. a numpy 1.x "
                    "venv with refimpl's kernels built for it); default: this one")
    ap.add_argument("--paddle", default="1.8", help="refimpl's version profile")
    ap.add_argument("--timeout", type=float, default=600)
    ap.add_argument("--no-numpy1-aliases", action="store_true",
                    help="do not restore the numpy 1.x aliases the files use")
    ap.add_argument("--json", help="write the per-file results here")
    ap.add_argument("files", nargs="*", help="run only these (names relative to DIR)")
    args = ap.parse_args(argv)
    if args.files:
        names = args.files
    elif args.list:
        with open(args.list) as f:
            names = [l.split("#")[0].strip() for l in f]
        names = [n.split()[0] for n in names if n]
    else:
        names = sorted(n for n in os.listdir(args.dir) if re.match(r"test_.*\.py$", n))
    results, missing = [], []
    static_modules = static_mode_modules(args.dir)
    for name in names:
        if not os.path.isfile(os.path.join(args.dir, name)):
            # a list names more files than a partial checkout holds: say so, run the rest
            missing.append(name)
            print("%-5s %s" % ("MISS", name), flush=True)
            continue
        module = os.path.splitext(os.path.basename(name))[0]
        r = run_file(os.path.join(args.dir, name), args.python, args.paddle, args.timeout,
                     not args.no_numpy1_aliases, args.refimpl_python,
                     static=module in static_modules, tree_dir=args.dir)
        results.append(r)
        counts = ("ran %s, failed %d, errors %d, skipped %d"
                  % (r["ran"], r["failures"], r["errors"], r["skipped"])) \
            if r["ran"] is not None else "did not run"
        print("%-5s %-55s %s (%.0fs) %s" % ("PASS" if r["passed"] else "FAIL", name, counts,
                                            r["seconds"], r["reason"]), flush=True)
    passed = sum(r["passed"] for r in results)
    print("%d of %d files pass%s" % (passed, len(results),
                                     "; %d not in %s" % (len(missing), args.dir) if missing else ""))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
