"""paddle.tensor and its submodules (paddle.tensor.stat.std, paddle.tensor.math.add, ...):
the same functions as the paddle namespace, importable through the paddle alias, as
Paddle 2.0's own tests call them (test_std_layer, test_variance_layer)."""
import subprocess
import sys
import textwrap

import numpy as np

import refimpl as paddle
from refimpl import tensor


def test_submodules_hold_the_paddle_functions():
    assert tensor.stat.std is tensor.std is paddle.std
    assert tensor.math.add is paddle.add and tensor.linalg.matmul is paddle.matmul
    assert set(tensor.__all__) == {n for names in tensor.SUBMODULES.values() for n in names}
    for sub, names in tensor.SUBMODULES.items():
        assert getattr(tensor, sub).__all__ == names


def test_values_through_the_submodules():
    paddle.disable_static()
    try:
        x = paddle.to_tensor(np.array([10.0, 12.0], "float32"))
        np.testing.assert_allclose(paddle.tensor.stat.std(x).numpy(), [np.sqrt(2.0)],
                                   rtol=1e-6)                    # unbiased: ((1+1)/1)^0.5
        np.testing.assert_allclose(paddle.tensor.stat.var(x, unbiased=False).numpy(), [1.0])
        np.testing.assert_allclose(paddle.tensor.math.add(x, x).numpy(), [20.0, 24.0])
        assert paddle.tensor.search.argmax(x).numpy().tolist() in ([1], 1)
    finally:
        paddle.enable_static()


def test_alias_imports_the_submodules(tmp_path):
    (tmp_path / "s.py").write_text(textwrap.dedent("""
        import paddle.tensor.stat as stat
        from paddle.tensor.math import multiply
        from paddle.tensor import linalg
        import paddle
        paddle.disable_static()
        x = paddle.to_tensor([1.0, 2.0, 4.0])
        print(float(stat.mean(x).numpy()), multiply(x, x).numpy().tolist(),
              float(linalg.dot(x, x).numpy()))
    """))
    r = subprocess.run([sys.executable, "-m", "refimpl", "run", "s.py"], cwd=tmp_path,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["2.3333332538604736", "[1.0,", "4.0,", "16.0]", "21.0"]


def test_tensor_array_functions_of_paddle_20():
    """paddle.tensor.create_array / array_write / array_read / array_length (and
    paddle.tensor.array.*), Paddle 2.0's names for fluid.layers' tensor-array functions:
    in dygraph mode an array is a list."""
    with paddle.fluid.dygraph.guard():
        arr = paddle.tensor.create_array(dtype="float32")
        x = paddle.full(shape=[3, 3], fill_value=5, dtype="float32")
        arr = paddle.tensor.array.array_write(x, paddle.zeros([1], "int64"), array=arr)
        assert int(paddle.tensor.array_length(arr)) == 1
        got = paddle.tensor.array_read(arr, paddle.zeros([1], "int64"))
        np.testing.assert_array_equal(got.numpy(), np.full((3, 3), 5., "float32"))
