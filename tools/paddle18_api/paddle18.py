"""Paddle 1.8.5's fluid API under the names the conformance builder looks up (Paddle 2.x /
3.x's `static`, `base`), so `python -m refimpl conformance check --impl paddle18` scores
real Paddle 1.8.5. Run it with Paddle 1.8.5's Python and this folder on PYTHONPATH
(specs/conformance.md). Only names are mapped; every op runs in Paddle itself."""
import types

import paddle
import paddle.fluid as fluid

__version__ = paddle.__version__
static = types.SimpleNamespace(Program=fluid.Program, program_guard=fluid.program_guard,
                               data=fluid.data, Executor=fluid.Executor,
                               gradients=fluid.gradients)
base = types.SimpleNamespace(framework=types.SimpleNamespace(
    convert_np_dtype_to_dtype_=fluid.framework.convert_np_dtype_to_dtype_))
CPUPlace = fluid.CPUPlace


def get_device():
    return "cpu"


def set_device(device):
    if device != "cpu":
        raise ValueError("the Paddle 1.8.5 probe runs on the CPU only, got %r" % device)


def enable_static():
    """fluid programs are static already."""
