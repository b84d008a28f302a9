"""Places that do not exist on this machine are refused, not run silently on the CPU
(issue #13). Paddle's CPU build refuses CUDAPlace(0) as it is made: 1.8.5 logs "Cannot use
GPU because you have installed CPU version PaddlePaddle. ... If you only have CPU, please
change CUDAPlace(0) to be CPUPlace()." and exits the process; 3.3.1 logs the same and raises
ValueError "(InvalidArgument) use wrong place". Mixed place kinds: Paddle 1.8.5 asserts
"Place type not match. You may set wrong type of places.\""""
import pytest

import refimpl as paddle
from refimpl import fluid, static
from refimpl.framework.place import as_place, device_count

no_gpu = pytest.mark.skipif(device_count() > 0, reason="this machine has a GPU")
NO_GPU = r"CUDAPlace\(0\): no GPU is usable here .* use CPUPlace\(\)"


@no_gpu
def test_cuda_place_without_a_gpu_is_refused_when_made():
    with pytest.raises(ValueError, match=NO_GPU):
        paddle.CUDAPlace(0)
    with pytest.raises(ValueError, match=NO_GPU):
        static.Executor(paddle.CUDAPlace(0))
    with pytest.raises(ValueError, match=NO_GPU):
        static.Executor("gpu:0")
    with pytest.raises(ValueError, match=r"cuda_places\(\): no GPU is usable here"):
        static.cuda_places()
    with pytest.raises(ValueError, match=r"cuda_places\(\): no GPU is usable here"):
        static.ParallelExecutor(use_cuda=True)
    assert not paddle.is_compiled_with_cuda()


@no_gpu
def test_gpu_places_in_with_data_parallel_are_refused_at_once():
    main = static.default_main_program()
    with pytest.raises(ValueError, match=NO_GPU):
        static.CompiledProgram(main).with_data_parallel(places=["gpu:0", "cpu"])


@pytest.mark.paddle("2.0")   # 2.0's place names in the message (3: 'Place(cpu)', switch place_repr)
def test_places_must_be_of_one_kind_the_executors():
    from refimpl.compiler.compiled_program import resolve_places
    with pytest.raises(ValueError, match=r"every place must be of one kind, the Executor's "
                                         r"\(CPUPlace\); Paddle says \"Place type not match"):
        resolve_places([paddle.CPUPlace(), fluid.CUDAPinnedPlace()], paddle.CPUPlace())
    with pytest.raises(ValueError, match="Place type not match"):
        resolve_places([fluid.CUDAPinnedPlace()] * 2, paddle.CPUPlace())
    assert resolve_places(["cpu", paddle.CPUPlace()], paddle.CPUPlace()) == \
        [paddle.CPUPlace()] * 2


@pytest.mark.parametrize("bad", ["tpu", "gpu:x", "cpu:1", 3, None.__class__])
def test_a_place_must_be_a_place_or_its_name(bad):
    with pytest.raises(ValueError, match="expected CPUPlace\\(\\), CUDAPlace\\(i\\) or a "
                                         "string 'cpu' or 'gpu:i'"):
        as_place(bad)


def test_a_place_name_is_read_in_any_case():
    """'CPU' is 'cpu', as Paddle 2.0's set_device lowers the name (its test_rnn_decode_api
    passes "CPU")."""
    assert isinstance(as_place("CPU"), paddle.CPUPlace)
    assert isinstance(paddle.set_device("CPU"), paddle.CPUPlace)


@pytest.mark.parametrize("value", ["abc", "0", "-2"])
def test_cpu_num_must_be_a_positive_integer(monkeypatch, value):
    monkeypatch.setenv("CPU_NUM", value)
    with pytest.raises(ValueError, match="CPU_NUM=%r: the number of CPU places must be an "
                                         "integer >= 1" % value):
        static.cpu_places()


def test_cuda_place_index_is_checked():
    with pytest.raises(ValueError, match=r"CUDAPlace\(-1\): device_id must be an integer >= 0"):
        paddle.CUDAPlace(-1)
    with pytest.raises(ValueError, match=r"CUDAPlace\('0'\): device_id must be an integer"):
        paddle.CUDAPlace("0")
