"""Plain helpers shared by test modules (tests/ is on sys.path, as for `from test_conv_pool
import conv_loops`): running what a test built, reading a variable's value, running
something that might hang, writing a dataset's downloaded files, loading a script of
tools/ as a module, and eager tensors with the gradients of a function of them."""
import importlib.util
import io
import os
import sys
import tarfile
import threading
import traceback
from unittest import mock

import numpy as np
import pytest

import refimpl as paddle
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


def run_default_programs(fetch, feed=None, return_numpy=True):
    """Run the default startup program, then the default main program on `feed`; the
    fetched numpy values (LoDTensors with return_numpy=False)."""
    return startup_executor().run(static.default_main_program(), feed=feed or {},
                                  fetch_list=list(fetch), return_numpy=return_numpy)


def build_programs(build):
    """(main, startup, build()'s result) with `build` run in fresh programs."""
    main, startup = Program(), Program()
    with program_guard(main, startup):
        outs = build()
    return main, startup, outs


def run_programs(main, startup, feed, fetch):
    """Run startup then main in a fresh scope: (fetched values as arrays, LoD or not,
    {parameter: value})."""
    exe, scope = fluid.Executor(fluid.CPUPlace()), Scope()
    exe.run(startup, scope=scope)
    values = [np.array(v) for v in exe.run(main, feed=feed, fetch_list=fetch, scope=scope,
                                           return_numpy=False)]
    params = {p.name: np.array(scope.find_var(p.name).get_tensor())
              for p in main.all_parameters()}
    return values, params


def build_and_run(build, feed=None, return_numpy=True):
    """Build `build()` (returns the fetch Variables) in fresh programs, run its startup and
    main program in a fresh scope on `feed`; the fetched numpy values (LoDTensors with
    return_numpy=False: outputs that carry a LoD)."""
    main, startup = Program(), Program()
    with program_guard(main, startup):
        fetch = build()
    exe = fluid.Executor(fluid.CPUPlace())
    scope = Scope()
    exe.run(startup, scope=scope)
    return exe.run(main, feed=feed or {}, fetch_list=list(fetch), scope=scope,
                   return_numpy=return_numpy)


def build_and_run_rows(build, feed=None):
    """build_and_run's fetched values as arrays, whether they carry a LoD or not (their
    rows; Executor.run would refuse to make arrays of LoD outputs)."""
    return [np.array(t) for t in build_and_run(build, feed, return_numpy=False)]


def train_layer_statically(main, startup, net, loss, init, x, y, steps):
    """Runs `startup`, loads the state dict `init` into `net` and trains `main` (built with
    `net`, feeds "x" and "y") `steps` times: (the fetched losses, net's final state as
    numpy), to compare with the same layer trained eagerly."""
    exe, scope = static.Executor(), Scope()
    exe.run(startup, scope=scope)
    net.set_state_dict(init, scope=scope)
    losses = [exe.run(main, feed={"x": x, "y": y}, fetch_list=[loss], scope=scope)[0]
              for _ in range(steps)]
    return losses, {k: np.array(scope.find_var(v.name).get_tensor())
                    for k, v in net.state_dict().items()}


def lengths(tensor):
    """A fetched LoDTensor's recursive sequence lengths."""
    return tensor.recursive_sequence_lengths()


def within_watchdog(fn, *args, timeout_s=90, stall_timeout_s=30):
    """fn(*args) on a daemon thread, with REFIMPL_STALL_TIMEOUT=stall_timeout_s. If it has
    not returned after `timeout_s`, the test fails with every thread's stack. The threads it
    starts inherit the daemon flag, so a hung run cannot keep the test process alive."""
    outcome = {}

    def target():
        try:
            outcome["value"] = fn(*args)
        except BaseException as e:  # re-raised on the test's thread
            outcome["error"] = e
    with mock.patch.dict(os.environ, {"REFIMPL_STALL_TIMEOUT": str(stall_timeout_s)}):
        worker = threading.Thread(target=target, daemon=True)
        worker.start()
        worker.join(timeout_s)
    if worker.is_alive():
        pytest.fail("hung: no result after %d s; every thread's stack:\n%s"
                    % (timeout_s, _stacks()))
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


def _stacks():
    names = {t.ident: t.name for t in threading.enumerate()}
    return "\n".join("--- %s\n%s" % (names.get(ident, ident), "".join(
        traceback.format_stack(frame))) for ident, frame in sys._current_frames().items())


def train_small_cnn(place, places=None, steps=3, batch=4, channels=2, size=6, filters=3,
                    classes=4):
    """(losses fetched per step, scope, program) of a conv + batch norm + pool + fc + Adam
    model trained on `place` (data parallel over `places` if given): the GPU tests'
    end-to-end run, compared with the same run on CPUPlace."""
    main, startup = fluid.Program(), fluid.Program()
    main.random_seed = startup.random_seed = 1
    with fluid.program_guard(main, startup):
        x = fluid.data("x", [None, channels, size, size], "float32")
        y = fluid.data("y", [None, 1], "int64")
        h = fluid.layers.conv2d(x, filters, 3, padding=1, act="relu")
        h = fluid.layers.pool2d(fluid.layers.batch_norm(h), 2, "max", 2)
        logits = fluid.layers.fc(h, classes)
        loss = fluid.layers.mean(fluid.layers.softmax_with_cross_entropy(logits, y))
        fluid.optimizer.Adam(0.01).minimize(loss)
    exe, scope = fluid.Executor(place), fluid.Scope()
    rng = np.random.RandomState(0)
    feed = {"x": rng.randn(batch, channels, size, size).astype("float32"),
            "y": rng.randint(0, classes, (batch, 1)).astype("int64")}
    program = main if places is None else fluid.CompiledProgram(main).with_data_parallel(
        loss_name=loss.name, places=places)
    with fluid.scope_guard(scope):
        exe.run(startup)
        losses = [exe.run(program, feed=feed, fetch_list=[loss])[0] for _ in range(steps)]
    return losses, scope, program


def paddle_loss_name(program):
    """The loss of a training program Paddle saved: what the fill_constant making
    `<loss>@GRAD` (Paddle's loss gradient) differentiates."""
    for op in program.global_block().ops:
        if op.type == "fill_constant" and op.output("Out")[0].endswith("@GRAD"):
            return op.output("Out")[0][:-len("@GRAD")]
    raise AssertionError("no loss gradient in the program")


def train_eager(model, device, steps=3, batch=4):
    """(losses per step, {parameter name: host value}, net, optimizer) of eager training on
    `device` ("cpu" or "gpu:i", paddle.set_device) from the same seed and data: "mlp"
    (Linear-ReLU-Linear, Momentum) or "cnn" (Conv2D + BatchNorm2D + ReLU + MaxPool2D +
    Linear, Adam). The GPU tests' dynamic-mode run, compared with the same run on the CPU.
    set_device is put back to the CPU after."""
    from refimpl import nn
    paddle.set_device(device)
    try:
        paddle.seed(3)
        rng = np.random.RandomState(0)
        if model == "mlp":
            net = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 4))
            x = rng.randn(batch, 6).astype("float32")
            optimizer = paddle.optimizer.Momentum(0.1, parameters=net.parameters())
        else:
            # no conv bias: batch norm cancels it, and Adam would scale its rounding noise up
            net = nn.Sequential(nn.Conv2D(2, 3, 3, padding=1, bias_attr=False),
                                nn.BatchNorm2D(3), nn.ReLU(),
                                nn.MaxPool2D(2), nn.Flatten(), nn.Linear(27, 4))
            x = rng.randn(batch, 2, 6, 6).astype("float32")
            optimizer = paddle.optimizer.Adam(0.01, parameters=net.parameters())
        y = rng.randint(0, 4, (batch, 1)).astype("int64")
        losses = []
        for _ in range(steps):
            loss = nn.functional.cross_entropy(net(paddle.to_tensor(x)), paddle.to_tensor(y))
            loss.backward()
            optimizer.step()
            optimizer.clear_grad()
            losses.append(float(loss))
        state = {k: v.numpy() for k, v in net.state_dict().items()}
    finally:
        paddle.set_device("cpu")
    return losses, state, net, optimizer


def central_differences(f, x, eps=1e-6):
    """The gradient of the scalar function f at x by central differences, element by
    element."""
    g = np.zeros_like(x)
    for k in range(x.size):
        d = np.zeros_like(x)
        d.flat[k] = eps
        g.flat[k] = (f(x + d) - f(x - d)) / (2 * eps)
    return g


def put_data_file(home, module, name, data):
    """Writes `data` as a dataset module's downloaded file `name` under DATA_HOME `home`."""
    path = home / module / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def tar_archive(members, mode="w:gz"):
    """The bytes of a tar archive (gzipped by default) holding {name: bytes}."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode=mode) as tar:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def conformance_results_on_gpu(paddle, mode):
    """Every conformance case run in this process on set_device('gpu:0') (`conformance
    check --device gpu --mode MODE`): (the results, those neither passed nor skipped)."""
    from refimpl.conformance.store import GOLDEN_DIR
    from refimpl.conformance.worker import CaseRunner
    paddle.set_device("gpu:0")
    runner = CaseRunner(paddle, GOLDEN_DIR, mode)
    results = [runner.run(case_id) for case_id in runner.cases]
    failed = [(r["id"], r["status"], r["message"][:200]) for r in results
              if r["status"] not in ("pass", "skipped")]
    return results, failed


def export_from_mirror(mirror, commit, paths, dest, what):
    """`git archive` of `paths` at `commit` from the bare mirror `mirror` extracted into
    `dest` (a model library run from outside this repository); skips the test where the
    mirror, git or that commit is absent. `what` names the library in the skip reason."""
    import shutil
    import subprocess
    if not os.path.isdir(mirror) or shutil.which("git") is None:
        pytest.skip("no %s mirror (or git) here" % what)
    archive = subprocess.run(["git", "--git-dir", mirror, "archive", commit] + list(paths),
                             capture_output=True, timeout=120)
    if archive.returncode != 0:
        pytest.skip("the %s mirror lacks %s: %s" % (what, commit, archive.stderr[-200:]))
    with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
        tar.extractall(dest)
    return dest


def tool_module(name):
    """tools/<name>.py loaded as a module (tools/ is not a package)."""
    path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tools",
                        name + ".py")
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def static_and_dynamic(f, x):
    """(f's value in a static program fed x as variable "x", f's value on the eager tensor
    of x): what a layer function gives built and run, and run at once."""
    import refimpl as paddle
    main, startup, out = build_programs(
        lambda: f(paddle.static.data("x", list(x.shape), x.dtype.name)))
    (static_value,), _ = run_programs(main, startup, {"x": x}, [out])
    paddle.disable_static()
    try:
        return static_value, f(paddle.to_tensor(x)).numpy()
    finally:
        paddle.enable_static()


def eager_gradient(f, x):
    """d sum(f(x)) / dx in dynamic mode (the caller's mode), as numpy."""
    import refimpl as paddle
    v = paddle.to_tensor(x, stop_gradient=False)
    (g,) = paddle.grad(paddle.sum(f(v)), v)
    return g.numpy()
def eager_tensor(value, dtype="float64", grad=False):
    """An eager tensor of `value` (dynamic mode turned on), needing a gradient when
    `grad`."""
    paddle.disable_static()
    t = paddle.to_tensor(np.array(value, dtype=dtype))
    t.stop_gradient = not grad
    return t


def eager_value_and_grads(fn, *arrays, **kwargs):
    """fn(*tensors of arrays, **kwargs) as numpy, and the gradients of its sum with respect
    to each tensor (None where it does not reach one), eager, float64."""
    xs = [eager_tensor(a, grad=True) for a in arrays]
    out = fn(*xs, **kwargs)
    grads = paddle.grad(out.sum(), xs, allow_unused=True)
    return out.numpy(), [None if g is None else g.numpy() for g in grads]
