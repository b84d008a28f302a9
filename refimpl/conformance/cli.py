"""`python -m refimpl conformance {generate,check,list}`."""
import argparse
import json
import sys
import tempfile

from ..framework import atomic_file
from .store import GOLDEN_DIR

__all__ = ["main"]


def _parser():
    p = argparse.ArgumentParser(prog="python -m refimpl conformance",
                                description="Golden vectors for the paddle static-graph API, "
                                            "and a checker that scores an implementation.")
    sub = p.add_subparsers(dest="command", required=True)

    g = sub.add_parser("generate", help="regenerate the golden vectors (deterministic)")
    g.add_argument("--out", default=GOLDEN_DIR, help="directory to write (default: the "
                   "shipped refimpl/conformance/golden)")
    g.add_argument("--check", action="store_true", help="do not write; exit 1 if the goldens "
                   "in --out are stale against the registry and scenarios")

    c = sub.add_parser("check", help="run the golden cases against an implementation")
    c.add_argument("--impl", default="refimpl", help="module exposing the paddle API "
                   "(refimpl, paddle, ...); default refimpl")
    c.add_argument("--golden", default=GOLDEN_DIR, help="golden directory")
    c.add_argument("-k", dest="patterns", action="append", default=[],
                   help="run cases whose id contains PATTERN (glob if it has * ? [); "
                        "repeatable")
    c.add_argument("--lod", dest="lod_only", action="store_true",
                   help="run only the cases that feed or return LoD")
    c.add_argument("--timeout", type=float, default=60.0, help="seconds per case (default 60)")
    c.add_argument("--xfails", help="expected failures: one `PATTERN  # reason` a line")
    c.add_argument("--device", default="cpu", help="where the cases run: cpu (default), "
                   "gpu or gpu:i (paddle.set_device; refimpl needs CuPy and a GPU)")
    c.add_argument("--mode", choices=["static", "dynamic"], default="static",
                   help="drive the cases as static programs (default) or through the "
                        "eager Tensor API (dynamic mode: ops run by LayerHelper.append_op "
                        "on Tensors, gradients by paddle.grad)")
    c.add_argument("--report", default="conformance_report.json", help="JSON report path")
    c.add_argument("-v", "--verbose", action="store_true", help="show the worker's stderr and "
                   "every case")

    ls = sub.add_parser("list", help="list case ids")
    ls.add_argument("--golden", default=GOLDEN_DIR)
    ls.add_argument("-k", dest="patterns", action="append", default=[])
    ls.add_argument("--lod", dest="lod_only", action="store_true",
                    help="list only the cases that feed or return LoD")
    return p


def cmd_generate(args):
    from .generate import diff_goldens, generate
    if not args.check:
        index = generate(args.out)
        print("wrote %d cases to %s" % (len(index["cases"]), args.out))
        for name, why in sorted(index["scenarios_not_generated"].items()):
            print("  scenario %s not generated (refimpl lacks it): %s" % (name, why))
        return 0
    with tempfile.TemporaryDirectory() as fresh:
        generate(fresh)
        problems = diff_goldens(fresh, args.out)
    for line in problems:
        print(line)
    if problems:
        print("goldens in %s are stale: run `python -m refimpl conformance generate`" % args.out)
    return 1 if problems else 0


def cmd_check(args):
    from .check import check, failed, format_table, read_expectations
    expectations = read_expectations(args.xfails) if args.xfails else []

    def progress(result):
        if args.verbose or result["status"] in ("fail", "error", "xpass"):
            print("%-7s %s %s" % (result["status"], result["id"],
                                  result["message"].splitlines()[0] if result["message"]
                                  else ""), flush=True)

    report = check(args.impl, args.golden, args.patterns, args.timeout, expectations,
                   args.verbose, progress, args.mode, args.device, args.lod_only)
    atomic_file.write_bytes(args.report, (json.dumps(report, indent=1) + "\n").encode("utf-8"))
    print(format_table(report))
    print("report: %s" % args.report)
    return 1 if failed(report) else 0


def cmd_list(args):
    from .check import select_cases
    from .store import read_index
    for case_id in select_cases(read_index(args.golden), args.patterns, args.lod_only):
        print(case_id)
    return 0


def main(argv=None):
    args = _parser().parse_args(sys.argv[1:] if argv is None else argv)
    return {"generate": cmd_generate, "check": cmd_check, "list": cmd_list}[args.command](args)
