"""The worker process: imports the implementation under test and runs the cases the
checker sends, one id per line on stdin, one JSON result per line back.

Results go to a private copy of the original stdout; fd 1 is pointed at stderr so that
whatever the implementation prints (C++ logs included) cannot corrupt the protocol.

    python -m refimpl.conformance.worker IMPL GOLDEN_DIR [static|dynamic]
"""
import importlib
import json
import os
import re
import sys
import time
import traceback

from .build import run_case
from .compare import compare
from .scenarios import MissingAPI
from .store import read_index, read_npz

# An op the implementation does not register is a missing API, not a failure.
# the op is unknown, or (Paddle 3.x) only its proto is left: no kernel of any type
_MISSING_OP = re.compile(r"has not been registered|no such operator is registered|"
                         r"There are no kernels which are registered in the")


def import_impl(name, mode="static"):
    """The module under test, in static-graph mode (or dynamic). Real Paddle 3.x needs the
    legacy static IR for block.append_op, so FLAGS_enable_pir_api defaults to 0 here."""
    os.environ.setdefault("FLAGS_enable_pir_api", "0")
    paddle = importlib.import_module(name)
    if mode == "dynamic":
        paddle.disable_static()
    elif hasattr(paddle, "enable_static"):
        paddle.enable_static()
    return paddle


def describe_impl(paddle, mode="static"):
    info = {"module": paddle.__name__, "version": getattr(paddle, "__version__", "?"),
            "profile": impl_profile(paddle), "mode": mode}
    if paddle.__name__ == "refimpl":
        from refimpl._kernels import backend
        info["kernels"] = backend()
    return info


def impl_profile(paddle):
    """The Paddle version profile the implementation under test follows: refimpl's own
    (REFIMPL_PADDLE), else from paddle.__version__ (1.x -> 1.8, 2.x -> 2.0, else 3)."""
    if paddle.__name__ == "refimpl":
        from refimpl import versions
        return versions.current()
    version = str(getattr(paddle, "__version__", ""))
    if version.startswith("1."):
        return "1.8"
    if version.startswith("2."):
        return "2.0"
    return "3"


class CaseRunner:
    """Runs cases of one golden directory against one imported implementation."""

    def __init__(self, paddle, golden_dir, mode="static"):
        self.paddle = paddle
        self.profile = impl_profile(paddle)
        self.golden_dir = golden_dir
        self.mode = mode
        self.cases = {c["id"]: c for c in read_index(golden_dir)["cases"]}
        self._files = {}

    def arrays(self, file_name):
        if file_name not in self._files:
            self._files[file_name] = read_npz(os.path.join(self.golden_dir, file_name))
        return self._files[file_name]

    def run(self, case_id):
        """{"id", "status", "max_abs", "max_rel", "message", "seconds"}; never raises."""
        case = self.cases[case_id]
        start = time.perf_counter()
        result = {"id": case_id, "max_abs": None, "max_rel": None, "message": ""}
        try:
            expected = self.arrays(case["file"])
            actual = run_case(self.paddle, case, expected, self.mode)
            result.update(compare(case, expected, actual, self.profile))
        except MissingAPI as e:
            result.update(status="skipped", message=str(e))
        except Exception as e:
            text = error_text(e)
            status = "skipped" if _MISSING_OP.search(text) else "error"
            if status == "error":
                text += "\n" + "".join(traceback.format_tb(e.__traceback__)[-3:])
            result.update(status=status, message=text.strip()[:2000])
        result["seconds"] = round(time.perf_counter() - start, 3)
        return result


def error_text(e):
    """`Type: message`. Paddle 1.x's messages open with the C++ call stack and end with an
    "Error Message Summary": the summary goes first, so that the report's cut keeps it."""
    stack, sep, summary = str(e).partition("Error Message Summary:")
    return "%s: %s" % (type(e).__name__, (sep + summary + "\n" + stack) if sep else stack)


def main(argv=None):
    args = sys.argv[1:] if argv is None else argv
    impl, golden_dir = args[:2]
    mode = args[2] if len(args) > 2 else "static"
    device = args[3] if len(args) > 3 else "cpu"
    results = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    sys.stdout = sys.stderr

    def send(obj):
        results.write(json.dumps(obj) + "\n")
        results.flush()

    try:
        paddle = import_impl(impl, mode)
        paddle.set_device(device)
        runner = CaseRunner(paddle, golden_dir, mode)
    except Exception as e:
        send({"fatal": "cannot import %r: %s: %s" % (impl, type(e).__name__, e)})
        return 2
    send({"ready": dict(describe_impl(paddle, mode), device=device)})
    for line in sys.stdin:
        case_id = line.strip()
        if case_id:
            send(runner.run(case_id))
    return 0


if __name__ == "__main__":
    sys.exit(main())
