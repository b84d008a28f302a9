"""Run the example code in PaddlePaddle's API docstrings, unmodified, on refimpl.

    python tools/run_api_examples.py SRC --json r.json          # every example under SRC
    python tools/run_api_examples.py SRC --manifest ../shared/api_manifest.tsv --json r.json
    python tools/run_api_examples.py SRC --list specs/paddle20_api_examples.txt
    python tools/run_api_examples.py SRC -k paddle.tensor.math.add --show

SRC is Paddle's python/paddle package of the release the profile names (release/2.0 for
--paddle 2.0). Paddle's CI ran each docstring's `.. code-block:: python` blocks as a
script and counted one that exited 0 a pass (tools/sampcd_processor.py: with
CUDA_VISIBLE_DEVICES empty on its CPU machines; a block marked `# required: gpu` or
`# required: distributed` ran only where that was there). This runs the same blocks the
same way, each as `python -m refimpl run --paddle P example.py` in its own process, and
skips the GPU- and distributed-only ones by their marks. An example is named by the
module and qualified name of the function, class or method whose docstring holds it
(paddle.tensor.math.add, paddle.nn.layer.conv.Conv2D, ...), with `#N` after the name
when the docstring has several blocks. The examples are Paddle's and stay out of this
repository.

--manifest keeps the examples of the names in the API index (a manifest line's name is
matched to a docstring's object by its name under the namespace's source folder); --list
runs the examples a file names, one a line. Prints one line per example and a summary;
--json writes every result (name, file, line, status, seconds, last error line).
"""
import argparse
import ast
import concurrent.futures
import json
import os
import re
import subprocess
import sys
import tempfile
import time

_BLOCK = re.compile(r"code-block::\s*python\s*\n")
_REQUIRED = re.compile(r"#\s*required:\s*([\w, ]+)")
_ERROR_LINE = re.compile(r"^\w+(\.\w+)*(Error|Exception|Warning)\b")

# The source folders a manifest namespace's names are defined in (paddle.X: the tensor
# functions, the framework, the top-level package).
_NAMESPACE_DIRS = {
    "paddle": ("tensor", "framework", "fluid", "", "device", "hapi", "nn", "static",
               "autograd", "jit", "distributed", "io", "metric", "optimizer", "amp"),
    "paddle.fluid": ("fluid",),
    "paddle.fluid.layers": ("fluid/layers", "fluid"),
    "paddle.nn": ("nn/layer", "nn", "fluid/dygraph", "fluid"),
    "paddle.nn.functional": ("nn/functional", "nn", "fluid/layers", "fluid"),
    "paddle.static": ("static", "fluid"),
    "paddle.vision.transforms": ("vision/transforms",),
}


def code_blocks(docstring):
    """The `.. code-block:: python` blocks of a docstring, dedented: a block is the
    lines after the directive down to the first non-blank line indented less than its
    first line."""
    blocks = []
    for match in _BLOCK.finditer(docstring):
        lines = docstring[match.end():].expandtabs(4).split("\n")
        while lines and not lines[0].strip():
            lines.pop(0)
        if not lines:
            continue
        indent = len(lines[0]) - len(lines[0].lstrip())
        kept = []
        for line in lines:
            if not line.strip():
                kept.append("")
                continue
            if len(line) - len(line.lstrip()) < indent:
                break
            kept.append(line[indent:])
        blocks.append("\n".join(kept).strip("\n") + "\n")
    return blocks


def examples_in_file(path, module):
    """(name, line, code) of every example in the docstrings of a source file's
    module, its top-level functions and classes and their methods."""
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read(), path)
    owners = [(module, tree)]
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            owners.append((f"{module}.{node.name}", node))
            if isinstance(node, ast.ClassDef):
                owners += [(f"{module}.{node.name}.{m.name}", m) for m in node.body
                           if isinstance(m, ast.FunctionDef)]
    found = []
    # fluid/layers/ops.py gives its generated functions their examples at import time:
    # add_sample_code(globals()["sigmoid"], r"""...""")
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and getattr(node.func, "id", "") == "add_sample_code"
                and len(node.args) == 2 and isinstance(node.args[0], ast.Subscript)
                and isinstance(node.args[1], ast.Constant)):
            key = node.args[0].slice
            if isinstance(key, ast.Constant):
                owners.append((f"{module}.{key.value}", node.args[1].value))
    for name, node in owners:
        doc = node if isinstance(node, str) else ast.get_docstring(node, clean=False)
        blocks = code_blocks(doc) if doc else []
        for i, code in enumerate(blocks):
            label = name if len(blocks) == 1 else f"{name}#{i + 1}"
            found.append((label, getattr(node, "lineno", 1), code))
    return found


def collect(src):
    """Every example under a python/paddle folder, its tests folders left out."""
    root = os.path.dirname(os.path.abspath(src))
    found = []
    for folder, dirs, files in os.walk(src):
        dirs[:] = sorted(d for d in dirs if d not in ("tests", "__pycache__"))
        for file in sorted(files):
            if not file.endswith(".py"):
                continue
            path = os.path.join(folder, file)
            module = os.path.relpath(path, root)[:-3].replace(os.sep, ".")
            module = module[:-len(".__init__")] if module.endswith(".__init__") else module
            found += [dict(name=n, file=os.path.relpath(path, root), line=l, code=c)
                      for n, l, c in examples_in_file(path, module)]
    return found


def manifest_names(path):
    with open(path, encoding="utf-8") as f:
        rows = [l.rstrip("\n").split("\t") for l in f if l.strip() and not l.startswith("#")]
    return [(ns, name) for ns, name in rows[1:]]


def select_manifest(examples, manifest):
    """The examples of the manifest's names: the first of the namespace's folders that
    defines an object of that name wins. Returns (examples, names without one)."""
    by_object = {}
    for ex in examples:
        obj = ex["name"].split("#")[0]
        by_object.setdefault(obj, []).append(ex)
    chosen, missing = [], []
    for namespace, name in manifest:
        hit = None
        for folder in _NAMESPACE_DIRS.get(namespace, ("",)):
            prefix = "paddle." + folder.replace("/", ".") if folder else "paddle"
            candidates = sorted(o for o in by_object
                                if o.startswith(prefix + ".") and o.rsplit(".", 1)[-1] == name
                                and o.count(".") - prefix.count(".") <= 2)
            if candidates:
                hit = candidates[0]
                break
        if hit is None:
            missing.append(f"{namespace}.{name}")
        else:
            for ex in by_object[hit]:
                if ex not in chosen:
                    chosen.append(dict(ex, api=f"{namespace}.{name}"))
    return chosen, missing


def needs(code):
    """What an example's `# required:` marks ask for beyond a CPU (gpu, distributed...)."""
    marks = set()
    for match in _REQUIRED.finditer(code):
        marks |= {m.strip() for m in match.group(1).split(",") if m.strip()}
    return marks - {"cpu"}


def run_example(example, python, profile, timeout, workdir):
    """Runs one example as a script in a fresh folder; returns its result row."""
    folder = tempfile.mkdtemp(dir=workdir)
    path = os.path.join(folder, "example.py")
    with open(path, "w", encoding="utf-8") as f:
        f.write(example["code"])
    cmd = [python, path] if python else \
        [sys.executable, "-m", "refimpl", "run", "--paddle", profile, path]
    env = dict(os.environ, CUDA_VISIBLE_DEVICES="", OMP_NUM_THREADS="1",
               OPENBLAS_NUM_THREADS="1", PYTHONWARNINGS="ignore")
    start = time.time()
    try:
        out = subprocess.run(cmd, cwd=folder, env=env, capture_output=True, text=True,
                             timeout=timeout, stdin=subprocess.DEVNULL)
        status = "pass" if out.returncode == 0 else "fail"
        text = out.stdout + out.stderr
    except subprocess.TimeoutExpired as e:
        status, text = "timeout", (e.stdout or b"").decode(errors="replace") if isinstance(
            e.stdout, bytes) else (e.stdout or "")
    errors = [l for l in text.splitlines() if _ERROR_LINE.match(l)]
    return dict({k: v for k, v in example.items() if k != "code"}, status=status,
                seconds=round(time.time() - start, 2),
                error=errors[-1][:240] if errors and status != "pass" else "",
                output=text[-4000:] if status != "pass" else "")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("src", help="Paddle's python/paddle folder")
    parser.add_argument("--manifest", help="keep the API index's names (api_manifest.tsv)")
    parser.add_argument("--list", help="run the examples this file names, one a line")
    parser.add_argument("-k", action="append", default=[],
                        help="run the examples whose name contains this (repeatable)")
    parser.add_argument("--paddle", default="2.0", help="refimpl's version profile")
    parser.add_argument("--python", help="run on this interpreter (a real Paddle) instead")
    parser.add_argument("--timeout", type=float, default=120)
    parser.add_argument("-j", "--jobs", type=int, default=2)
    parser.add_argument("--json", help="write the results here")
    parser.add_argument("--show", action="store_true", help="print each failure's output")
    args = parser.parse_args(argv)

    examples = collect(args.src)
    if args.manifest:
        examples, missing = select_manifest(examples, manifest_names(args.manifest))
        print(f"{len(missing)} index names have no docstring example under {args.src}",
              file=sys.stderr)
    if args.list:
        with open(args.list, encoding="utf-8") as f:
            wanted = [l.strip() for l in f if l.strip() and not l.startswith("#")]
        named = {ex["name"]: ex for ex in examples}
        absent = [w for w in wanted if w not in named]
        if absent:
            parser.error(f"{len(absent)} listed examples are not under {args.src}: "
                         + ", ".join(absent[:5]))
        examples = [named[w] for w in wanted]
    if args.k:
        examples = [ex for ex in examples if any(k in ex["name"] for k in args.k)]

    results, skipped = [], []
    runnable = []
    for ex in examples:
        marks = needs(ex["code"])
        if marks:
            skipped.append(dict({k: v for k, v in ex.items() if k != "code"},
                                status="skipped", reason="required: " + ", ".join(sorted(marks))))
        else:
            runnable.append(ex)
    with tempfile.TemporaryDirectory() as workdir, \
            concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        futures = [pool.submit(run_example, ex, args.python, args.paddle, args.timeout,
                               workdir) for ex in runnable]
        for future in futures:
            row = future.result()
            results.append(row)
            print(f"{row['status']:8s} {row['seconds']:6.1f}s {row['name']}  {row['error']}",
                  flush=True)
            if args.show and row["status"] != "pass":
                print(row["output"])
    counts = {s: sum(r["status"] == s for r in results) for s in ("pass", "fail", "timeout")}
    print(f"{counts['pass']} passed, {counts['fail']} failed, {counts['timeout']} timed out,"
          f" {len(skipped)} skipped (GPU / distributed only) of {len(examples)} examples")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(results + skipped, f, indent=1)
    return 0 if counts["fail"] == counts["timeout"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
