"""FLAGS_check_nan_inf (refimpl/executor/nan_inf.py): after each op, a nan or inf in a
floating output raises Paddle 1.8.5's EnforceNotMet naming the op and the variable
("===ERROR: in [op=log] [tensor=log_0.tmp_0] find nan or inf===", measured on 1.8.5)."""
import os
import subprocess
import sys

import numpy as np
import pytest

from refimpl import fluid
from refimpl.fluid import core
from refimpl.framework.program import Program, program_guard
from refimpl.framework.scope import Scope, scope_guard

pytestmark = pytest.mark.paddle("1.8")     # 1.8.5's error; 2.0's below (switch nan_inf_error)


@pytest.fixture
def check_nan_inf():
    fluid.set_flags({"FLAGS_check_nan_inf": True})
    try:
        yield
    finally:
        fluid.set_flags({"FLAGS_check_nan_inf": False})


def _log_program():
    """x -> log -> scale(2) -> relu: log(0) is -inf, which relu makes 0."""
    main, startup = Program(), Program()
    with program_guard(main, startup):
        x = fluid.data("x", [None, 3], dtype="float32")
        logged = fluid.layers.log(x)
        out = fluid.layers.relu(fluid.layers.scale(logged, 2.0))
    return main, logged, out


def _run(program, x, fetch, places=None):
    if places is not None:
        program = fluid.CompiledProgram(program).with_data_parallel(places=places)
    with scope_guard(Scope()):
        with np.errstate(divide="ignore", invalid="ignore"):
            return fluid.Executor(fluid.CPUPlace()).run(program, feed={"x": x},
                                                        fetch_list=[fetch])[0]


_WITH_ZERO = np.array([[1.0, 0.0, np.e], [2.0, 3.0, 4.0]], "float32")


def test_an_inf_raises_naming_the_op_and_the_variable(check_nan_inf):
    main, logged, out = _log_program()
    with pytest.raises(core.EnforceNotMet) as info:
        _run(main, _WITH_ZERO, out)
    message = str(info.value)
    assert type(info.value) is core.EnforceNotMet      # as 1.8.5's check_nan_inf_base asserts
    assert "===ERROR: in [op=log] [tensor=%s] find nan or inf===" % logged.name in message
    assert "0 nan, 1 inf and 5 finite values of 6" in message


@pytest.mark.paddle("2.0")
def test_paddle_20_raises_a_plain_runtime_error(check_nan_inf):
    """Paddle 2.0's PreconditionNotMet: exactly RuntimeError (its check_nan_inf_base
    compares the type), "There are `nan` or `inf` in tensor (VAR) of operator (OP)."."""
    main, logged, out = _log_program()
    with pytest.raises(RuntimeError) as info:
        _run(main, _WITH_ZERO, out)
    assert type(info.value) is RuntimeError
    assert str(info.value).startswith("There are `nan` or `inf` in tensor (%s) of operator "
                                      "(log)." % logged.name)
    assert "0 nan, 1 inf and 5 finite values of 6" in str(info.value)


def test_without_the_flag_the_inf_flows_on():
    main, logged, out = _log_program()
    got = _run(main, _WITH_ZERO, out)
    with np.errstate(divide="ignore"):
        expected = np.maximum(2 * np.log(_WITH_ZERO.astype("float64")), 0)
    np.testing.assert_allclose(got, expected, rtol=1e-6)
    assert got[0, 1] == 0.0    # relu(-inf)


def test_finite_values_pass_with_the_flag(check_nan_inf):
    main, logged, out = _log_program()
    x = np.array([[1.0, 0.5, np.e]], "float32")
    np.testing.assert_allclose(_run(main, x, out), [[0.0, 0.0, 2.0]], atol=1e-6)


def test_setting_the_flag_rebuilds_a_cached_plan():
    main, logged, out = _log_program()
    exe = fluid.Executor(fluid.CPUPlace())
    with scope_guard(Scope()), np.errstate(divide="ignore"):
        exe.run(main, feed={"x": _WITH_ZERO}, fetch_list=[out])
        fluid.set_flags({"FLAGS_check_nan_inf": True})
        try:
            with pytest.raises(core.EnforceNotMet, match=r"\[op=log\]"):
                exe.run(main, feed={"x": _WITH_ZERO}, fetch_list=[out])
        finally:
            fluid.set_flags({"FLAGS_check_nan_inf": False})
        exe.run(main, feed={"x": _WITH_ZERO}, fetch_list=[out])


def test_a_nan_in_a_backward_op_is_found_on_every_place(check_nan_inf):
    """sqrt's gradient at 0 is inf; the grad op is named (two places, data parallel)."""
    main, startup = Program(), Program()
    with program_guard(main, startup):
        x = fluid.data("x", [None, 3], dtype="float32")
        w = fluid.layers.create_parameter([3], "float32", name="w",
                                          default_initializer=fluid.initializer.Constant(0.0))
        loss = fluid.layers.mean(fluid.layers.sqrt(w * x))
        fluid.optimizer.SGD(0.1).minimize(loss, startup_program=startup)
    with scope_guard(Scope()), np.errstate(divide="ignore", invalid="ignore"):
        exe = fluid.Executor(fluid.CPUPlace())
        exe.run(startup)
        compiled = fluid.CompiledProgram(main).with_data_parallel(
            loss_name=loss.name, places=fluid.cpu_places(2))
        with pytest.raises(core.EnforceNotMet,
                           match=r"\[op=sqrt_grad\] \[tensor=[^\]]*@GRAD\] find nan or inf"):
            exe.run(compiled, feed={"x": np.ones((4, 3), "float32")}, fetch_list=[loss])
        fluid.set_flags({"FLAGS_check_nan_inf": False})   # the plans are built again
        exe.run(compiled, feed={"x": np.ones((4, 3), "float32")}, fetch_list=[loss])


def test_the_skip_environment_variables(check_nan_inf, monkeypatch):
    main, logged, out = _log_program()
    monkeypatch.setenv("PADDLE_INF_NAN_SKIP_OP", "log")
    with pytest.raises(core.EnforceNotMet, match=r"\[op=scale\]"):
        _run(main, _WITH_ZERO, out)
    monkeypatch.setenv("PADDLE_INF_NAN_SKIP_VAR", "scale:.tmp_")
    np.testing.assert_allclose(_run(main, _WITH_ZERO, out)[0], [0.0, 0.0, 2.0], atol=1e-6)
    monkeypatch.delenv("PADDLE_INF_NAN_SKIP_OP")
    monkeypatch.delenv("PADDLE_INF_NAN_SKIP_VAR")
    monkeypatch.setenv("PADDLE_INF_NAN_SKIP_ROLE", "forward")
    _run(main, _WITH_ZERO, out)
    monkeypatch.setenv("PADDLE_INF_NAN_SKIP_ROLE", "bogus")
    with pytest.raises(core.EnforceNotMet, match="Skip role must be one of"):
        _run(main, _WITH_ZERO, out)


def test_a_script_setting_the_environment_before_import_paddle(tmp_path):
    """`refimpl run` imports refimpl first; the flag is read again at the script's
    `import paddle`, as Paddle reads it at its import."""
    script = tmp_path / "s.py"
    script.write_text(
        "import os\n"
        "os.environ['FLAGS_check_nan_inf'] = '1'\n"
        "import numpy as np\n"
        "import paddle.fluid as fluid\n"
        "x = fluid.data('x', [2], dtype='float32')\n"
        "y = fluid.layers.log(x)\n"
        "try:\n"
        "    fluid.Executor(fluid.CPUPlace()).run(feed={'x': np.zeros(2, 'float32')},\n"
        "                                         fetch_list=[y])\n"
        "except fluid.core.EnforceNotMet as e:\n"
        "    print(str(e).splitlines()[0])\n")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ, PYTHONPATH=root)
    env.pop("FLAGS_check_nan_inf", None)
    done = subprocess.run([sys.executable, "-m", "refimpl", "run", "--paddle", "1.8",
                           str(script)], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == ("PreconditionNotMetError: ===ERROR: in [op=log] "
                                   "[tensor=%s] find nan or inf===" % "log_0.tmp_0")
