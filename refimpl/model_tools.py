"""`python -m refimpl dump-model` and `check-model`: look at a saved model, and run a saved
inference model in refimpl (and in real Paddle) to compare outputs (specs/model_tools.md).

A model is given as a path prefix (`dir/model` for model.pdmodel or Paddle 3's model.json,
with model.pdiparams), a program file (`.pdmodel`, `.json`, `__model__`) or a directory
(Paddle 1.8's `__model__` with `__params__` or one file per parameter).
"""
import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

from . import versions
from .framework import serialization
from .framework.paddle_formats import DecodeError, pir_program, program_desc

_WORKER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "paddle_model_worker.py")


class ModelFiles(collections.namedtuple("ModelFiles", "model params prefix")):
    """The program file, the parameters (a combined file, or None: one file per variable
    next to the program) and the checkpoint prefix whose manifest covers them."""


def locate(path, params=None):
    """ModelFiles of a model given as a prefix, a program file or a directory; `params`
    overrides where the parameters are."""
    path = os.fspath(path)
    if os.path.isdir(path):
        model = os.path.join(path, "__model__")
        if not os.path.isfile(model):
            found = sorted(f for f in os.listdir(path) if f.endswith((".pdmodel", ".json")))
            if len(found) != 1:
                raise FileNotFoundError("%s: no __model__, and %s program files (.pdmodel / "
                                        ".json); name the one to check" % (path, len(found)))
            model = os.path.join(path, found[0])
        combined = os.path.join(path, "__params__")
        default = combined if os.path.isfile(combined) else None
        if model.endswith((".pdmodel", ".json")):
            pdiparams = os.path.splitext(model)[0] + ".pdiparams"
            default = pdiparams if os.path.isfile(pdiparams) else default
        return ModelFiles(model, params or default, os.path.join(path, ""))
    if path.endswith((".pdmodel", ".json")) or os.path.basename(path) == "__model__":
        if os.path.basename(path) == "__model__":
            directory = os.path.dirname(path)
            combined = os.path.join(directory, "__params__")
            return ModelFiles(path, params or (combined if os.path.isfile(combined) else None),
                              os.path.join(directory, ""))
        prefix = os.path.splitext(path)[0]
        return ModelFiles(path, params or prefix + ".pdiparams", prefix)
    from .static.io import inference_model_files
    prefix, model, combined = inference_model_files(path)
    return ModelFiles(model, params or combined, prefix)


def _read(path):
    return serialization.read_file(path, "check-model")


# -- what a program needs: ops refimpl lacks, feed targets


def unsupported_ops(data):
    """Op types of a program's bytes that refimpl does not implement (ProgramDesc: Paddle's
    op types; PIR: pd_op names)."""
    if pir_program.is_pir_json(data):
        return pir_program.unsupported_op_types(data)
    if data.lstrip()[:1] == b"{":
        return []
    return program_desc.unsupported_op_types(program_desc.decode_desc(data))


def feed_specs(data):
    """[(name, dtype, shape)] of the feed targets, read without building the program (so
    also for programs refimpl cannot run)."""
    if pir_program.is_pir_json(data):
        return pir_program.feed_specs(data)
    if data.lstrip()[:1] == b"{":
        from .framework import model_formats
        program, feeds, _ = model_formats.inference_program_from_bytes(data)
        block = program.global_block()
        return [(n, block.vars[n].dtype.name, list(block.vars[n].shape)) for n in feeds]
    return program_desc.feed_specs(program_desc.decode_desc(data))


def random_inputs(specs, batch, seed):
    """{name: array} for the feed targets: -1 dims are `batch`; floats standard normal,
    integers in [0, 2), bools fair coins."""
    rng = np.random.RandomState(seed)
    out = {}
    for name, dtype, shape in specs:
        shape = [batch if d < 0 else d for d in shape]
        kind = np.dtype(dtype).kind
        if kind == "f":
            out[name] = rng.standard_normal(shape).astype(dtype)
        elif kind == "b":
            out[name] = rng.rand(*shape) > 0.5
        else:
            out[name] = rng.randint(0, 2, size=shape).astype(dtype)
    return out


# -- running


def run_refimpl(files, inputs):
    """(fetch names, [arrays]) of the model run in refimpl on `inputs`, in a scope of its
    own."""
    from . import static
    from .executor import Executor
    from .framework.scope import Scope, scope_guard
    program, feeds, fetches, values = static.io.read_inference_model(
        files.prefix, files.model, files.params, "check-model")
    missing = [n for n in feeds if n not in inputs]
    if missing:
        raise ValueError("no input for feed targets %s" % missing)
    scope = Scope()
    with scope_guard(scope):
        scope.set_values(values)
        outputs = Executor().run(program, feed={n: inputs[n] for n in feeds},
                                 fetch_list=fetches)
    return [v.name for v in fetches], [np.asarray(o) for o in outputs]


def run_paddle(python, files, inputs, timeout):
    """(fetch names, [arrays], Paddle's version) of the model run by real Paddle in a
    subprocess of `python` (paddle_model_worker.py); RuntimeError with its stderr if it
    fails, and after `timeout` seconds."""
    return run_paddle_many(python, [(files, inputs)], timeout)[0]


def run_paddle_many(python, jobs, timeout):
    """run_paddle of each (files, inputs) in `jobs`, in one Paddle process."""
    with tempfile.TemporaryDirectory(prefix="refimpl-check-model-") as tmp:
        args, outputs = [], []
        for i, (files, inputs) in enumerate(jobs):
            inputs_path = os.path.join(tmp, "in%d.npz" % i)
            outputs.append(os.path.join(tmp, "out%d.npz" % i))
            np.savez(inputs_path, **inputs)
            params = files.params or os.path.dirname(os.path.abspath(files.model))
            args += [files.model, params, inputs_path, outputs[-1]]
        try:
            # -I: without the worker's folder (refimpl/) on sys.path, whose modules
            # (sysconfig, onnx, ...) would stand in for the standard library's and Paddle's
            done = subprocess.run([python, "-I", _WORKER] + args, capture_output=True,
                                  text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            raise RuntimeError("%s did not finish in %d s" % (python, timeout)) from None
        if done.returncode != 0:
            raise RuntimeError("Paddle (%s) failed:\n%s" % (python, done.stderr.strip()[-4000:]))
        results = []
        for path in outputs:
            with np.load(path, allow_pickle=False) as out:
                names = json.loads(out["names"].tobytes().decode("utf-8"))
                results.append((names["fetches"], [out["out%d" % i] for i in
                                                   range(len(names["fetches"]))],
                                names["paddle"]))
    return results


def compare(got, expected, rtol, atol):
    """{shape, dtype, max_abs, max_rel, ok} of refimpl's output against Paddle's; max_rel is
    max |got - expected| / max(|expected|, atol). ok needs the same shape and dtype (an
    int64 index that comes back float64 is a difference, however equal its values)."""
    report = {"shape": list(got.shape), "paddle_shape": list(expected.shape),
              "dtype": str(got.dtype), "paddle_dtype": str(expected.dtype)}
    if got.shape != expected.shape:
        return dict(report, max_abs=None, max_rel=None, ok=False)
    a, b = got.astype(np.float64), expected.astype(np.float64)
    diff = np.abs(a - b)
    report.update(max_abs=float(diff.max()) if diff.size else 0.0,
                  max_rel=float((diff / np.maximum(np.abs(b), atol)).max()) if diff.size
                  else 0.0,
                  ok=got.dtype == expected.dtype and
                  bool(np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=True)))
    return report


def profile_of(paddle_version):
    """The version profile of a Paddle release: '1.8.5' -> '1.8', '2.x' -> '2.0', '3.x' -> '3'."""
    major = paddle_version.split(".")[0]
    return {"1": "1.8", "2": "2.0"}.get(major, "3")


def check(path, paddle_python=None, inputs=None, batch=2, seed=0, rtol=1e-5, atol=1e-6,
          params=None, timeout=600):
    """The check-model report (a dict) of the model at `path`."""
    files = locate(path, params)
    data = _read(files.model)
    report = {"model": files.model, "params": files.params or "one file per variable",
              "missing_ops": unsupported_ops(data)}
    given = dict(inputs or {})
    specs = feed_specs(data)
    report["inputs"] = {n: {"dtype": d, "shape": s, "given": n in given} for n, d, s in specs}
    generated = random_inputs([s for s in specs if s[0] not in given], batch, seed)
    feed = dict(generated, **given)
    for name, value in feed.items():
        report["inputs"].setdefault(name, {"given": True})
        report["inputs"][name].update(dtype=str(value.dtype), shape=list(value.shape))
    outputs = None
    if paddle_python:
        paddle_names, expected, version = run_paddle(paddle_python, files, feed, timeout)
        report["paddle"] = version
    # refimpl runs as the Paddle it is compared with (shapes of one-number results, ...),
    # else as the Paddle that wrote the file (a PIR json: 3), else as the current profile
    report["profile"] = profile_of(version) if paddle_python else \
        "3" if pir_program.is_pir_json(data) else versions.current()
    if not report["missing_ops"]:
        with versions.use(report["profile"]):
            names, outputs = run_refimpl(files, feed)
        report["outputs"] = [{"name": n, "shape": list(v.shape), "dtype": str(v.dtype),
                              "finite": bool(np.isfinite(v).all()) if v.dtype.kind in "fc"
                              else True} for n, v in zip(names, outputs)]
    if paddle_python:
        if outputs is not None:
            if len(expected) != len(outputs):
                raise RuntimeError("refimpl fetched %d outputs, Paddle %d"
                                   % (len(outputs), len(expected)))
            for out, got, want, paddle_name in zip(report["outputs"], outputs, expected,
                                                   paddle_names):
                out.update(compare(got, want, rtol, atol), paddle_name=paddle_name)
    report["ok"] = not report["missing_ops"] and all(o.get("ok", True)
                                                    for o in report.get("outputs", []))
    return report


def _format(report):
    lines = ["model:   %s" % report["model"], "params:  %s" % report["params"]]
    for name, spec in report["inputs"].items():
        lines.append("input:   %s %s %s (%s)" % (name, spec["dtype"], spec["shape"],
                                                "given" if spec["given"] else "random"))
    missing = report["missing_ops"]
    lines.append("refimpl lacks ops: %s" % (", ".join(missing) if missing else "none"))
    if "paddle" in report:
        lines.append("paddle:  %s" % report["paddle"])
    lines.append("profile: %s (refimpl's version profile for this run)" % report["profile"])
    for i, out in enumerate(report.get("outputs", [])):
        line = "output %d %s %s %s" % (i, out["name"], out["dtype"], out["shape"])
        if "max_abs" in out:
            line += ": max abs %s, max rel %s  %s" % (
                "-" if out["max_abs"] is None else "%.3g" % out["max_abs"],
                "-" if out["max_rel"] is None else "%.3g" % out["max_rel"],
                "ok" if out["ok"] else "DIFFERS (Paddle: %s %s)"
                % (out["paddle_dtype"], out["paddle_shape"]))
        elif not out["finite"]:
            line += ": not finite"
        lines.append(line)
    lines.append("result:  %s" % ("ok" if report["ok"] else "FAILED"))
    return "\n".join(lines)


def _named_arrays(pairs):
    out = {}
    for pair in pairs or []:
        name, sep, path = pair.partition("=")
        if not sep:
            raise SystemExit("check-model: --input takes NAME=FILE.npy, got %r" % pair)
        out[name] = np.load(path, allow_pickle=False)
    return out


def check_model_main(argv):
    parser = argparse.ArgumentParser(
        prog="python -m refimpl check-model",
        description="Run a saved inference model in refimpl (and, with --paddle-python, in "
                    "real Paddle) on given or random inputs; report each output's max "
                    "abs / rel difference and the ops refimpl lacks. Exit status 0 when "
                    "refimpl runs every op and matches within the tolerances.")
    parser.add_argument("path", help="model prefix, program file or model directory")
    parser.add_argument("--paddle-python", metavar="PYTHON",
                        help="a Python with paddle installed: also run the model there")
    parser.add_argument("--params", help="the parameter file (default: found next to the "
                                         "program; none: one file per variable)")
    parser.add_argument("--input", action="append", metavar="NAME=FILE.npy",
                        help="an input (repeatable); the others are random")
    parser.add_argument("--batch", type=int, default=2, help="size of -1 dims (default 2)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the random inputs")
    parser.add_argument("--rtol", type=float, default=1e-5)
    parser.add_argument("--atol", type=float, default=1e-6)
    parser.add_argument("--timeout", type=int, default=600,
                        help="seconds Paddle may take (default 600)")
    parser.add_argument("--json", metavar="FILE", help="also write the report as JSON")
    args = parser.parse_args(argv)
    try:
        report = check(args.path, args.paddle_python, _named_arrays(args.input), args.batch,
                       args.seed, args.rtol, args.atol, args.params, args.timeout)
    except (OSError, ValueError, RuntimeError, DecodeError) as e:
        print("check-model: %s" % e, file=sys.stderr)
        return 2
    print(_format(report))
    if args.json:
        from .framework import atomic_file
        atomic_file.write_bytes(args.json, json.dumps(report, indent=1).encode("utf-8"))
    return 0 if report["ok"] else 1


def dump_model_main(argv):
    parser = argparse.ArgumentParser(
        prog="python -m refimpl dump-model",
        description="Print a saved program as refimpl's readable JSON (specs/io.md), or "
                    "with --desc the fields of a ProgramDesc as JSON (any op, also ones "
                    "refimpl lacks).")
    parser.add_argument("path", help="model prefix, program file or model directory")
    parser.add_argument("--desc", action="store_true",
                        help="the ProgramDesc message itself (framework.proto field names)")
    args = parser.parse_args(argv)
    try:
        data = _read(locate(args.path).model)
        if args.desc:
            if data.lstrip()[:1] == b"{":
                raise ValueError("--desc reads ProgramDesc files; this is a JSON program")
            print(json.dumps(program_desc.decode_desc(data), indent=1))
            return 0
        from .framework import model_formats
        program, feeds, fetches = model_formats.program_from_bytes(data, args.path)
        extra = {} if feeds is None else {"feed_names": feeds, "fetch_names": fetches}
        print(json.dumps(serialization.program_to_dict(program, **extra), indent=1))
    except (OSError, ValueError, DecodeError) as e:
        print("dump-model: %s" % e, file=sys.stderr)
        return 2
    return 0
