"""The drop-in runner: unmodified `import paddle` scripts run on refimpl."""
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from refimpl import versions

from helpers import tool_module


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


@pytest.mark.skipif(versions.switch("default_mode") == "static",
                    reason="a Paddle 2.x script: the 1.8 profile starts in static mode "
                           "(switch default_mode)")
def test_dygraph_tutorial_runs_unmodified():
    """The Paddle 2.0 LeNet tutorial (nn.Layer, Adam, loss.backward(), step, clear_grad)
    trains in the default (dynamic) mode of the runner."""
    import os
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    r = subprocess.run([sys.executable, "-m", "refimpl", "run",
                        os.path.join(root, "examples", "dygraph_lenet.py")],
                       capture_output=True, text=True, timeout=300,
                       env=dict(os.environ, PYTHONPATH=root))
    assert r.returncode == 0, r.stderr[-2000:]
    lines = r.stdout.splitlines()
    assert lines[-1] == "OK" and lines[-2].startswith("test accuracy: ")
    assert float(lines[-2].split()[-1]) > 0.9


@pytest.mark.skipif(versions.switch("default_mode") == "static",
                    reason="a Paddle 2.x script: the 1.8 profile starts in static mode "
                           "(switch default_mode)")
def test_scripts_start_in_dynamic_mode_and_static_data_switches_to_static(tmp_path):
    """Paddle 2.0's default is dynamic; a fluid program built without enable_static()
    (as the seed examples do) still builds a program."""
    r = _run(tmp_path, """
        import paddle
        import paddle.fluid as fluid
        assert paddle.in_dynamic_mode()
        t = paddle.to_tensor([[1., 2.], [3., 4.]])
        print("SUM", float(paddle.sum(t)))
        x = fluid.layers.data(name="x", shape=[2], dtype="float32")
        assert not paddle.in_dynamic_mode()
        y = fluid.layers.fc(x, 1)
        assert y.block is fluid.default_main_program().global_block()
        print("OK")
    """)
    assert r.returncode == 0, r.stderr
    assert "SUM 10.0" in r.stdout and r.stdout.strip().endswith("OK")


NUMPY_1_SCRIPT = """
    import numpy as np
    import paddle
    print(np.zeros(2, np.int).dtype, np.float(1.5), np.product([2, 3]), np.Inf,
          np.trapz([1.0, 2.0, 4.0], [0.0, 1.0, 3.0]), np.round_(2.345, 2))
"""


def _run_profile(tmp_path, version):
    return subprocess.run([sys.executable, "-m", "refimpl", "run", "--paddle", version,
                           str(tmp_path / "script.py")],
                          capture_output=True, text=True, timeout=120, cwd=tmp_path)


@pytest.mark.parametrize("version", ["1.8", "2.0"])
def test_runner_restores_numpy_1_aliases_for_18_and_20_scripts(tmp_path, version):
    # Paddle 2.0's tutorials (numpy 1.19 / 1.20) write np.int (image_segmentation) and
    # np.str (cyclegan) as 1.8-era scripts do; a Paddle 3 script meets numpy as it is
    _run(tmp_path, NUMPY_1_SCRIPT)
    r = _run_profile(tmp_path, "3")
    assert r.returncode != 0 and "has no attribute 'int'" in r.stderr
    r = _run_profile(tmp_path, version)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["int64", "1.5", "6", "inf", "7.5", "2.35"]
    notices = [line for line in r.stderr.splitlines() if " numpy " in line and "restored" in line]
    assert notices[0].endswith("(Paddle %s profile)" % version)
    # exactly the names this numpy lacks: np.int under numpy 1.24 and later, np.product
    # and NEP 52's names under numpy 2, np.bool under numpy 1.24-1.26 only
    missing = _in_fresh_numpy("print(' '.join(n for n in legacy_numpy.ALIASES "
                              "if not hasattr(np, n)))").split()
    version = np.lib.NumpyVersion(np.__version__)
    assert "int" in missing and ("product" in missing) == (version >= "2.0.0")
    assert ("trapz" in missing) == (version >= "2.4.0")
    assert len(notices) == 1 and notices[0].split(" lacks ")[1].split(";")[0] == \
        ", ".join("np." + name for name in missing)


PILLOW_9_SCRIPT = """
    import numpy as np
    from PIL import Image
    import paddle
    ramp = Image.fromarray(np.tile(np.arange(0, 256, 8, dtype=np.uint8), (4, 1)))
    for name, kept in (("ANTIALIAS", "LANCZOS"), ("LINEAR", "BILINEAR"), ("CUBIC", "BICUBIC")):
        old = np.asarray(ramp.resize((13, 3), getattr(Image, name)))
        new = np.asarray(ramp.resize((13, 3), getattr(Image.Resampling, kept)))
        print(name, int(getattr(Image, name)), (old == new).all())
"""


def test_paddle_18_runner_restores_pillow_9_resampling_names(tmp_path):
    """Pillow 10 removed Image.ANTIALIAS / LINEAR / CUBIC (aliases of LANCZOS, BILINEAR,
    BICUBIC = 1, 2, 3); the models repository's 1.8 scripts resize with Image.ANTIALIAS."""
    pytest.importorskip("PIL")
    from PIL import Image
    _run(tmp_path, PILLOW_9_SCRIPT)
    if not hasattr(Image, "ANTIALIAS"):                # 3 profile: Pillow as it is
        r = _run_profile(tmp_path, "3")
        assert r.returncode != 0 and "ANTIALIAS" in r.stderr
    r = _run_profile(tmp_path, "1.8")
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["ANTIALIAS", "1", "True", "LINEAR", "2", "True",
                                "CUBIC", "3", "True"]
    notices = [line for line in r.stderr.splitlines() if "Pillow" in line]
    assert len(notices) == (0 if hasattr(Image, "ANTIALIAS") else 1)


PILLOW_9_TEXTSIZE_SCRIPT = """
    from PIL import Image, ImageDraw
    import paddle
    draw = ImageDraw.Draw(Image.new("RGB", (64, 32)))
    w, h = draw.textsize("red 0.93")
    box = draw.textbbox((0, 0), "red 0.93")
    print(w == box[2] and h == box[3], w > draw.textsize("r")[0] > 0, h > 0)
"""


def test_paddle_20_runner_restores_pillow_9_textsize(tmp_path):
    """Pillow 10 removed ImageDraw.textsize; PaddleDetection 2.0 sizes its box labels with
    it (deploy/python/visualize.py, ppdet/utils/visualizer.py): the text's extent drawn at
    the origin, its textbbox's right and bottom."""
    pytest.importorskip("PIL")
    from PIL import ImageDraw
    _run(tmp_path, PILLOW_9_TEXTSIZE_SCRIPT)
    if not hasattr(ImageDraw.ImageDraw, "textsize"):   # 3 profile: Pillow as it is
        r = _run_profile(tmp_path, "3")
        assert r.returncode != 0 and "textsize" in r.stderr
    r = _run_profile(tmp_path, "2.0")
    notices = [line for line in r.stderr.splitlines() if "ImageDraw.textsize" in line]
    assert len(notices) == (0 if hasattr(ImageDraw.ImageDraw, "textsize") else 1)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["True", "True", "True"]


YAML_5_SCRIPT = """
    import yaml
    import paddle
    print(yaml.load("a: [1, 2]\\nb: {c: x}"), list(yaml.load_all("1\\n---\\n[2]")),
          yaml.load("d: 1", Loader=yaml.BaseLoader))
"""


def test_paddle_18_runner_gives_yaml_load_pyyaml_5s_default_loader(tmp_path):
    """PyYAML 6 made yaml.load's Loader required; the models repository's 1.8 dygraph/lac
    reads conf/args.yaml with yaml.load(f), which PyYAML 5 read with FullLoader."""
    yaml = pytest.importorskip("yaml")
    import inspect
    _run(tmp_path, YAML_5_SCRIPT)
    r = _run_profile(tmp_path, "3")
    requires_loader = inspect.signature(yaml.load).parameters["Loader"].default \
        is inspect.Parameter.empty
    if requires_loader:                                # 3 profile: PyYAML as it is
        assert r.returncode != 0 and "Loader" in r.stderr
    for version in ("1.8", "2.0"):
        r = _run_profile(tmp_path, version)
        assert r.returncode == 0, r.stderr
        # an explicit Loader still rules: BaseLoader reads every scalar as a string
        assert r.stdout.strip() == "{'a': [1, 2], 'b': {'c': 'x'}} [1, [2]] {'d': '1'}"
        notices = [line for line in r.stderr.splitlines() if "PyYAML" in line]
        assert len(notices) == (1 if requires_loader else 0)
        assert all("(Paddle %s profile)" % version in line for line in notices)


COLLECTIONS_39_SCRIPT = """
    import collections
    import paddle
    print(collections.Sequence is collections.abc.Sequence,
          isinstance([1], collections.Sequence), isinstance({}, collections.Mapping))
"""


def test_paddle_18_runner_restores_python_39s_collections_abc_aliases(tmp_path):
    """Python 3.10 removed collections.Sequence and the other collections.abc aliases; the
    models repository's 1.8 similarity_net tests isinstance(seq, collections.Sequence)."""
    import collections
    _run(tmp_path, COLLECTIONS_39_SCRIPT)
    r = _run_profile(tmp_path, "3")
    if not hasattr(collections, "Sequence"):           # 3 profile: Python as it is
        assert r.returncode != 0 and "Sequence" in r.stderr
    for version in ("1.8", "2.0"):
        r = _run_profile(tmp_path, version)
        assert r.returncode == 0, r.stderr
        assert r.stdout.split() == ["True", "True", "True"]
        notices = [line for line in r.stderr.splitlines() if "collections." in line]
        assert len(notices) == (0 if hasattr(collections, "Sequence") else 1)
        assert all("(Paddle %s profile)" % version in line for line in notices)


def _in_fresh_numpy(code):
    """What `code` prints in a fresh interpreter that has imported numpy as np and
    refimpl.legacy_numpy, and nothing else of refimpl."""
    r = subprocess.run([sys.executable, "-W", "ignore", "-c",
                        "import numpy as np\nfrom refimpl import legacy_numpy\n" + code],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return r.stdout


def test_importing_refimpl_leaves_numpy_alone():
    changed = _in_fresh_numpy(
        "before = dict(vars(np))\n"
        "import refimpl, refimpl.fluid, refimpl.static\n"
        "print([n for n in legacy_numpy.ALIASES if vars(np).get(n) is not before.get(n)])")
    assert changed.strip() == "[]"


def test_python_processes_the_script_starts_import_refimpl_as_paddle(tmp_path):
    # Paddle 1.8.5's test_run_fluid_by_module_or_command_line and test_nan_inf start
    # `python -c 'import paddle.fluid'`, `python -m paddle.fluid.reader` and `python x.py`
    (tmp_path / "child.py").write_text(textwrap.dedent("""
        import sys
        import paddle
        import refimpl
        assert paddle is refimpl, paddle
        print("CHILD", refimpl.versions.current(), paddle.fluid.in_dygraph_mode(), sys.argv[1:])
    """))
    (tmp_path / "script.py").write_text(textwrap.dedent("""
        import subprocess, sys
        run = lambda *a: subprocess.run([sys.executable] + list(a), capture_output=True,
                                        text=True, timeout=120)
        code = "import paddle.fluid as f, refimpl; assert f is refimpl.fluid; print('C', 1)"
        print(run("-c", code).stdout.strip())
        print("MODULE", run("-m", "paddle.fluid.reader").returncode)
        missing = run("-m", "paddle.no_such_module")
        print("MISSING", missing.returncode, "paddle.no_such_module" in missing.stderr)
        print(run("child.py", "--x", "1").stdout.strip())
    """))
    r = subprocess.run([sys.executable, "-m", "refimpl", "run", "--paddle", "1.8", "script.py"],
                       capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split("\n")[:4] == ["C 1", "MODULE 0", "MISSING 1 True",
                                        "CHILD 1.8 False ['--x', '1']"], r.stdout


def _run_paddle_tests_module():
    return tool_module("run_paddle_tests")


def test_paddle_test_runner_gives_blas_and_kernels_one_thread_unless_told(tmp_path,
                                                                         monkeypatch):
    # as Paddle's FLAGS_paddle_num_threads (1 by default) runs its math library
    test = tmp_path / "test_blas_threads.py"

    def passes_expecting(blas, team):
        test.write_text(textwrap.dedent("""
            import os, unittest
            class T(unittest.TestCase):
                def test_threads(self):
                    self.assertEqual(os.environ.get("OPENBLAS_NUM_THREADS"), %r)
                    self.assertEqual(os.environ.get("OMP_NUM_THREADS"), %r)
            if __name__ == "__main__":
                unittest.main()
        """ % (blas, team)))
        result = runner.run_file(str(test), None, "1.8", 120)
        assert result["ran"] == 1, result["output_tail"]
        return result["passed"]

    runner = _run_paddle_tests_module()
    monkeypatch.delenv("OPENBLAS_NUM_THREADS", raising=False)
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    assert passes_expecting("1", "1")
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "3")      # the user's settings stay
    monkeypatch.setenv("OMP_NUM_THREADS", "2")
    assert passes_expecting("3", "2") and not passes_expecting("1", "1")


def test_paddle_test_runner_lends_2x_files_an_eager_guard_that_changes_nothing(tmp_path):
    # Paddle 2.3-2.4 revisions of the 2.x tests run bodies inside _test_eager_guard();
    # 1.8's files never call it and 1.8 has none, so the 1.8 profile gets no guard
    (tmp_path / "test_guard.py").write_text(textwrap.dedent("""
        import unittest
        import paddle
        from paddle.fluid.framework import _test_eager_guard
        class T(unittest.TestCase):
            def test_same_mode_inside(self):
                paddle.disable_static()
                with _test_eager_guard():
                    self.assertTrue(paddle.in_dynamic_mode())
                    self.assertEqual(paddle.to_tensor([2.0]).numpy().tolist(), [2.0])
                self.assertTrue(paddle.in_dynamic_mode())
        if __name__ == "__main__":
            unittest.main()
    """))
    _passes_only_where_lent(tmp_path / "test_guard.py", "2.0", "1.8", 1, "_test_eager_guard")


def _passes_only_where_lent(path, lent, not_lent, ran, name):
    """The file at `path` passes its `ran` tests under the profile the runner lends `name`
    to, and fails naming it under the one it does not."""
    runner = _run_paddle_tests_module()
    under = runner.run_file(str(path), None, lent, 120)
    assert under["passed"] and under["ran"] == ran, under["output_tail"]
    under = runner.run_file(str(path), None, not_lent, 120)
    assert not under["passed"] and name in under["reason"]


def test_paddle_test_runner_lends_3x_files_test_with_pir_api_that_runs_once(tmp_path):
    # the 3.x files (early 2024) decorate tests with pir_utils.test_with_pir_api, gone in
    # 3.3.1: the runner's runs the test once, under OldIrGuard (refimpl has one IR)
    (tmp_path / "test_pir.py").write_text(textwrap.dedent("""
        import unittest
        import paddle
        from paddle.pir_utils import test_with_pir_api
        RUNS = []
        class T(unittest.TestCase):
            @test_with_pir_api
            def test_once_without_pir(self):
                RUNS.append(paddle.get_flags("FLAGS_enable_pir_api")["FLAGS_enable_pir_api"])
                self.assertFalse(paddle.framework.in_pir_mode())
            def test_z_ran_once(self):
                self.assertEqual(RUNS, [False])
        if __name__ == "__main__":
            unittest.main()
    """))
    _passes_only_where_lent(tmp_path / "test_pir.py", "3", "2.0", 2, "test_with_pir_api")


def test_paddle_test_runner_loads_files_without_unittest_main(tmp_path):
    # as Paddle's CI (tools/test_runner.py) does for files such as rnn/test_rnn_cells.py,
    # whose suite comes from load_tests
    (tmp_path / "test_loaded.py").write_text(textwrap.dedent("""
        import unittest
        class T(unittest.TestCase):
            def __init__(self, value):
                super().__init__("runTest")
                self.value = value
            def runTest(self):
                self.assertLess(self.value, 3)
        def load_tests(loader, tests, pattern):
            return unittest.TestSuite([T(1), T(2), T(5)])
    """))
    runner = _run_paddle_tests_module()
    result = runner.run_file(str(tmp_path / "test_loaded.py"), None, "2.0", 120)
    assert (result["ran"], result["failures"], result["passed"]) == (3, 1, False), \
        result["output_tail"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["test_loaded.py"]   # no driver left


def test_paddle_test_runner_runs_a_script_with_its_own_main_block(tmp_path):
    # Paddle's book files (fluid/tests/book/test_recommender_system): no unittest.main(),
    # a __main__ block that trains; Paddle's CI runs them as scripts (py_test)
    (tmp_path / "test_script.py").write_text(textwrap.dedent("""
        import sys
        def main():
            sys.exit("main ran")
        if __name__ == '__main__':
            main()
    """))
    runner = _run_paddle_tests_module()
    result = runner.run_file(str(tmp_path / "test_script.py"), None, "2.0", 120)
    assert not result["passed"] and "main ran" in result["output_tail"], result["output_tail"]


def test_paddle_test_runner_reports_listed_files_it_does_not_find(tmp_path, capsys):
    # a list run over a partial checkout of Paddle's tests ran until the first absent file
    # and ended in a FileNotFoundError, losing the results before it
    (tmp_path / "test_present.py").write_text(textwrap.dedent("""
        import unittest
        class T(unittest.TestCase):
            def test_one(self):
                self.assertEqual(1 + 1, 2)
        if __name__ == "__main__":
            unittest.main()
    """))
    (tmp_path / "list.txt").write_text("test_absent.py\ntest_present.py  # comment\n")
    runner = _run_paddle_tests_module()
    assert runner.main([str(tmp_path), "--list", str(tmp_path / "list.txt"),
                        "--json", str(tmp_path / "r.json")]) == 0
    lines = capsys.readouterr().out.strip().split("\n")
    assert lines[0] == "MISS  test_absent.py"
    assert lines[1].startswith("PASS  test_present.py") and "ran 1, failed 0" in lines[1]
    assert lines[2] == "1 of 1 files pass; 1 not in %s" % tmp_path
    import json
    assert [r["passed"] for r in json.loads((tmp_path / "r.json").read_text())] == [True]


def test_paddle_test_runner_starts_the_2x_ci_static_mode_modules_in_static_mode(tmp_path,
                                                                                capsys):
    # Paddle 2.x's CI (tools/test_runner.py) enables static mode before loading the modules
    # its tools/static_mode_white_list.py names (2.0's test_full_op builds fluid.data and
    # fill_constant without enable_static); the others start in 2.0's dynamic default
    tree = tmp_path / "python" / "paddle"
    tests = tree / "fluid" / "tests"
    tests.mkdir(parents=True)
    (tmp_path / "tools").mkdir()
    (tmp_path / "tools" / "static_mode_white_list.py").write_text(
        "# the CI's list\nSTATIC_MODE_TESTING_LIST = [\n    'test_listed',\n]\n")
    for name in ("test_listed", "test_other"):
        (tests / (name + ".py")).write_text(textwrap.dedent("""
            import unittest
            import paddle
            class T(unittest.TestCase):
                def test_mode(self):
                    print("dynamic:", paddle.in_dynamic_mode())
            if __name__ == "__main__":
                unittest.main()
        """))
    runner = _run_paddle_tests_module()
    assert runner.static_mode_modules(str(tree)) == {"test_listed"}
    assert runner.static_mode_modules(str(tests)) == frozenset()     # no list there
    (tmp_path / "list.txt").write_text("fluid/tests/test_listed.py\nfluid/tests/test_other.py\n")
    assert runner.main([str(tree), "--list", str(tmp_path / "list.txt"), "--paddle", "2.0",
                        "--json", str(tmp_path / "r.json")]) == 0
    import json
    results = json.loads((tmp_path / "r.json").read_text())
    assert [r["passed"] for r in results] == [True, True]
    assert "dynamic: False" in results[0]["output_tail"]
    assert "dynamic: True" in results[1]["output_tail"]


def test_paddle_test_runner_makes_the_trees_tests_paddle_fluid_tests(tmp_path):
    # Paddle's package holds its tests: 2.0's test_parallel_executor_profiler imports
    # TestProfiler from paddle.fluid.tests.unittests.test_profiler
    tree = tmp_path / "python" / "paddle"
    unittests = tree / "fluid" / "tests" / "unittests"
    unittests.mkdir(parents=True)
    (unittests / "__init__.py").write_text("")
    (unittests / "test_base.py").write_text(textwrap.dedent("""
        import unittest
        class Base(unittest.TestCase):
            def test_base(self):
                self.assertEqual(type(self).__name__, "Derived")
    """))
    (unittests / "test_derived.py").write_text(textwrap.dedent("""
        import unittest
        import paddle
        from paddle.fluid.tests.unittests.test_base import Base
        class Derived(Base):
            pass
        del Base
        if __name__ == "__main__":
            unittest.main()
    """))
    runner = _run_paddle_tests_module()
    path = str(unittests / "test_derived.py")
    found = runner.run_file(path, None, "2.0", 120, tree_dir=str(tree))
    assert found["passed"] and found["ran"] == 1, found["output_tail"]
    alone = runner.run_file(path, None, "2.0", 120)
    assert not alone["passed"] and "paddle.fluid.tests" in alone["reason"]


def test_paddle_test_runner_starts_paddle3_files_with_the_legacy_ir(tmp_path, monkeypatch):
    # the 3.x files' revision ran with FLAGS_enable_pir_api off (PIR became the default in
    # 3.0-beta); a caller's own setting wins; the 2.0 files get no such flag
    (tmp_path / "test_flag.py").write_text(textwrap.dedent("""
        import os, unittest
        class T(unittest.TestCase):
            def test_flag(self):
                self.assertEqual(os.environ.get("FLAGS_enable_pir_api", "None"), os.environ["WANT"])
        if __name__ == "__main__":
            unittest.main()
    """))
    runner = _run_paddle_tests_module()
    monkeypatch.delenv("FLAGS_enable_pir_api", raising=False)
    for version, caller, want in (("3", None, "0"), ("3", "1", "1"), ("2.0", None, None)):
        if caller is None:
            monkeypatch.delenv("FLAGS_enable_pir_api", raising=False)
        else:
            monkeypatch.setenv("FLAGS_enable_pir_api", caller)
        monkeypatch.setenv("WANT", str(want))
        result = runner.run_file(str(tmp_path / "test_flag.py"), sys.executable, version, 120)
        assert result["passed"], (version, caller, result["output_tail"])
