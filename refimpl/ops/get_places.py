"""get_places (Paddle 1.8, fluid.layers.device.get_places): the list of places a (removed)
ParallelDo would run on, in a PLACE_LIST variable. device_type "AUTO" is CUDA when a GPU is
usable, else CPU; device_count 0 is every device of that type (the CPU's hardware threads,
as Paddle). refimpl holds a place list as the places' device ids, int64 [count], -1 for a
CPU place. No gradient."""
import os

import numpy as np

from ..framework.place import device_count as gpu_count
from .registry import OpDef, Sample, register


def _places(device_count, device_type):
    kind = device_type.upper()
    if kind == "AUTO":
        kind = "CUDA" if gpu_count() > 0 else "CPU"
    if kind not in ("CPU", "CUDA"):
        raise ValueError("get_places: device_type must be 'AUTO', 'CPU' or 'CUDA', got %r"
                         % device_type)
    available = (os.cpu_count() or 1) if kind == "CPU" else gpu_count()
    if kind == "CUDA" and available == 0:
        raise ValueError("get_places: device_type 'CUDA' but no GPU is usable here")
    count = device_count or available
    if kind == "CUDA" and count > available:
        raise ValueError("get_places: device_count %d is more than the %d GPUs here"
                         % (count, available))
    return np.full(count, -1, np.int64) if kind == "CPU" else np.arange(count, dtype=np.int64)


@register
class GetPlaces(OpDef):
    type = "get_places"
    inputs = ()
    outputs = ("Out",)
    attrs = {"device_count": 0, "device_type": "AUTO"}

    def infer_shape(self, ctx):
        ctx.expect(ctx.attr("device_count") >= 0, "device_count must be >= 0, got %r"
                   % (ctx.attr("device_count"),))
        ctx.set_output("Out", (ctx.attr("device_count") or -1,), "int64")

    @staticmethod
    def forward(device_count=0, device_type="AUTO"):
        return _places(device_count, device_type)

    def samples(self, rng):
        yield Sample({}, {"device_count": 2, "device_type": "CPU"}, grad=False)
