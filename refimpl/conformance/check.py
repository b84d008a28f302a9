"""Score an implementation against the golden cases and write the report.

Cases run in a worker subprocess (refimpl.conformance.worker) that imports the
implementation once and takes cases one at a time. A case that crashes the worker or
runs past the time limit is recorded as an error, the worker is replaced, and the run
goes on with the next case.
"""
import fnmatch
import json
import os
import select
import subprocess
import sys
import tempfile
import time

from .store import GOLDEN_DIR, read_index

__all__ = ["select_cases", "read_expectations", "run_cases", "check", "format_table",
           "failed", "STATUSES"]

STATUSES = ("pass", "fail", "error", "skipped", "xfail", "xpass")
READY_TIMEOUT = 300.0     # importing a large framework (real paddle) can take a while


def _matches(case_id, pattern):
    if any(c in pattern for c in "*?["):
        return fnmatch.fnmatchcase(case_id, pattern)
    return pattern in case_id


def select_cases(index, patterns=(), lod_only=False):
    """Case ids matching any -k pattern (substring, or glob if it has * ? [); with
    lod_only, only the cases that feed or return a LoD (their "lods" entry)."""
    ids = [c["id"] for c in index["cases"] if c.get("lods") or not lod_only]
    return [i for i in ids if not patterns or any(_matches(i, p) for p in patterns)]


def read_expectations(path):
    """[(pattern, reason)] from an expected-failures file: one `PATTERN  # reason` a line."""
    out = []
    with open(path) as f:
        for line in f:
            pattern, _, reason = line.partition("#")
            if pattern.strip():
                out.append((pattern.strip(), reason.strip()))
    return out


class Worker:
    """One worker subprocess and its line protocol, with a time limit per answer."""

    def __init__(self, impl, golden_dir, verbose=False, mode="static", device="cpu"):
        self.log = None if verbose else tempfile.TemporaryFile()
        env = dict(os.environ)
        # the worker must import this refimpl, wherever the checker was started from
        root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "refimpl.conformance.worker", impl, golden_dir, mode,
             device],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log, env=env)
        self._buffer = b""

    def read(self, timeout):
        """The next JSON message, or None if the worker died or timed out."""
        fd = self.proc.stdout.fileno()
        deadline = time.monotonic() + timeout
        while b"\n" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                return None
            chunk = os.read(fd, 65536)
            if not chunk:        # the worker closed its end: it is exiting
                self.proc.wait()
                return None
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        return json.loads(line)

    def ask(self, case_id, timeout):
        try:
            self.proc.stdin.write((case_id + "\n").encode())
            self.proc.stdin.flush()
        except BrokenPipeError:
            return None
        return self.read(timeout)

    def why_gone(self):
        """Why the worker stopped answering: its exit status and last stderr lines."""
        code = self.proc.poll()
        reason = "worker exited with status %s" % code if code is not None else \
            "no result within the time limit"
        if self.log is not None:
            self.log.seek(0)
            tail = self.log.read().decode(errors="replace").strip().splitlines()[-5:]
            if tail:
                reason += ": " + " | ".join(tail)
        return reason

    def close(self):
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        self.proc.stdin.close()
        self.proc.stdout.close()
        if self.log is not None:
            self.log.close()


def run_cases(impl, case_ids, golden_dir=GOLDEN_DIR, timeout=60.0, verbose=False,
              on_result=None, mode="static", device="cpu"):
    """(implementation info, [result]) running each case once, isolated in a worker."""
    results, info = [], None
    pending = list(case_ids)
    while pending:
        worker = Worker(impl, golden_dir, verbose, mode, device)
        try:
            hello = worker.read(READY_TIMEOUT)
            if hello is None or "fatal" in hello:
                raise RuntimeError(hello["fatal"] if hello else worker.why_gone())
            info = hello["ready"]
            while pending:
                case_id = pending.pop(0)
                result = worker.ask(case_id, timeout)
                lost = result is None
                if lost:
                    result = {"id": case_id, "status": "error", "max_abs": None,
                              "max_rel": None, "seconds": None, "message": worker.why_gone()}
                results.append(result)
                if on_result:
                    on_result(result)
                if lost:
                    break           # a fresh worker takes the remaining cases
        finally:
            worker.close()
    return info, results


def _apply_expectation(result, expectations):
    """fail/error -> xfail and pass -> xpass for a case listed as an expected failure."""
    for pattern, reason in expectations:
        if _matches(result["id"], pattern):
            if result["status"] in ("fail", "error"):
                result["status"] = "xfail"
            elif result["status"] == "pass":
                result["status"] = "xpass"
            result["expected_failure"] = reason
            return


def summarize(results, groups):
    """Counts overall and per group (op type or scenario family), in first-seen order."""
    total = dict.fromkeys(STATUSES, 0)
    by_group = {}
    for r in results:
        g = by_group.setdefault(groups[r["id"]], dict(dict.fromkeys(STATUSES, 0),
                                                      max_abs=0.0, max_rel=0.0, note=""))
        total[r["status"]] += 1
        g[r["status"]] += 1
        for k in ("max_abs", "max_rel"):
            if r.get(k) is not None:
                g[k] = max(g[k], r[k])
        if r["status"] in ("fail", "error", "skipped", "xfail") and not g["note"]:
            g["note"] = "%s: %s" % (r["id"], r["message"].splitlines()[0] if r["message"]
                                    else r["status"])
    return total, by_group


def check(impl, golden_dir=GOLDEN_DIR, patterns=(), timeout=60.0, expectations=(),
          verbose=False, progress=None, mode="static", device="cpu", lod_only=False):
    """The report: {"implementation", "golden", "summary", "groups", "cases"}."""
    index = read_index(golden_dir)
    ids = select_cases(index, patterns, lod_only)

    def on_result(result):
        _apply_expectation(result, expectations)
        if progress:
            progress(result)

    info, results = run_cases(impl, ids, golden_dir, timeout, verbose, on_result, mode,
                              device)
    groups = {c["id"]: ("op/" if c["kind"] == "op" else "class/") + c["group"]
              for c in index["cases"]}
    total, by_group = summarize(results, groups)
    return {"implementation": info or {"module": impl}, "golden": os.path.abspath(golden_dir),
            "summary": total, "groups": by_group, "cases": results}


def format_table(report, width=60):
    """A plain-text table: one row per group, then the totals."""
    cols = ("pass", "fail", "error", "skipped", "xfail", "xpass")
    head = "%-34s" % "group" + "".join("%8s" % c for c in cols) + "  %9s %9s  %s" % (
        "max abs", "max rel", "first problem")
    lines = [head, "-" * len(head)]
    for name, g in report["groups"].items():
        note = g["note"].replace("\n", " ")
        lines.append("%-34s" % name + "".join("%8d" % g[c] for c in cols) +
                     "  %9.2g %9.2g  %s" % (g["max_abs"], g["max_rel"],
                                            note[:width] + ("..." if len(note) > width else "")))
    lines.append("-" * len(head))
    s = report["summary"]
    lines.append("%-34s" % "total" + "".join("%8d" % s[c] for c in cols))
    impl = report["implementation"]
    lines.append("implementation: %s" % ", ".join("%s=%s" % kv for kv in sorted(impl.items())))
    return "\n".join(lines)


def failed(report):
    """True when some case failed or errored without being an expected failure."""
    return report["summary"]["fail"] + report["summary"]["error"] > 0
