"""The drop-in runner: unmodified `import paddle` scripts run on refimpl."""
import subprocess
import sys
import textwrap


def _run(tmp_path, source, *args):
    script = tmp_path / "script.py"
    script.write_text(textwrap.dedent(source))
    return subprocess.run([sys.executable, "-m", "refimpl", "run", str(script)] + list(args),
                          capture_output=True, text=True, timeout=120, cwd=tmp_path)


def test_paddle_imports_resolve_to_refimpl(tmp_path):
    r = _run(tmp_path, """
        import sys
        import paddle
        import paddle.fluid as fluid
        import paddle.static as static
        from paddle.fluid import layers
        from paddle.fluid.framework import program_guard
        import refimpl
        assert paddle is refimpl and fluid is refimpl.fluid and static is refimpl.static
        assert layers is refimpl.fluid.layers
        assert __name__ == "__main__"
        print("ARGV", sys.argv[1:])
    """, "--epochs", "3")
    assert r.returncode == 0, r.stderr
    assert "ARGV ['--epochs', '3']" in r.stdout


def test_script_error_keeps_traceback_and_exit_code(tmp_path):
    r = _run(tmp_path, """
        import paddle
        raise RuntimeError("boom from the script")
    """)
    assert r.returncode != 0
    assert "boom from the script" in r.stderr


def test_missing_paddle_module_is_named(tmp_path):
    r = _run(tmp_path, "import paddle.no_such_module\n")
    assert r.returncode != 0 and "paddle.no_such_module" in r.stderr


def test_missing_script_and_help():
    r = subprocess.run([sys.executable, "-m", "refimpl", "run", "/nonexistent.py"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "no such script" in r.stderr
    r = subprocess.run([sys.executable, "-m", "refimpl", "--help"], capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 0 and "run SCRIPT" in r.stdout


def test_version():
    import refimpl
    assert refimpl.__version__.count(".") == 2
