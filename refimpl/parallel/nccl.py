"""NCCL between the GPUs of one process (cupy.cuda.nccl): the allreduce of data-parallel
places that are all GPUs, device to device, instead of staging through the host."""
import importlib

from ..xp import gpu_module

__all__ = ["NcclClique", "nccl_available"]


def _nccl():
    """CuPy's NCCL binding, or None. `cupy.cuda.nccl` is a submodule `import cupy` does not
    load (reading the attribute alone found none on an H100 that had NCCL 2.28); where the
    library is missing CuPy puts a stand-in with `available = False` there."""
    xp = gpu_module()
    nccl = getattr(getattr(xp, "cuda", None), "nccl", None)
    if nccl is None and xp is not None:
        try:
            nccl = importlib.import_module(xp.__name__ + ".cuda.nccl")
        except Exception:    # no such module (a stand-in), or a broken install
            return None
    return None if nccl is None or getattr(nccl, "available", True) is False else nccl


def nccl_available():
    return _nccl() is not None


class NcclClique:
    """One NCCL communicator per GPU in `device_ids` (place i uses the i-th). Each place's
    thread calls allreduce with its own arrays; NCCL matches the calls across threads."""

    def __init__(self, device_ids):
        self._nccl = _nccl()
        self.device_ids = list(device_ids)
        self.comms = self._nccl.NcclCommunicator.initAll(self.device_ids)
        self._types = {"float32": self._nccl.NCCL_FLOAT32, "float64": self._nccl.NCCL_FLOAT64,
                       "int32": self._nccl.NCCL_INT32, "int64": self._nccl.NCCL_INT64}

    def allreduce(self, local_rank, arrays):
        """The sums over places of `arrays` (new arrays on this place's GPU), one NCCL call
        per dtype on a packed buffer."""
        xp = gpu_module()
        out = [None] * len(arrays)
        with xp.cuda.Device(self.device_ids[local_rank]):
            stream = xp.cuda.get_current_stream()
            by_dtype = {}
            for i, a in enumerate(arrays):
                by_dtype.setdefault(a.dtype.name, []).append(i)
            for dtype, members in by_dtype.items():
                if dtype not in self._types:
                    raise TypeError("NCCL allreduce: dtype %s is not supported (float32, "
                                    "float64, int32, int64)" % dtype)
                flat = xp.concatenate([arrays[i].reshape(-1) for i in members])
                self.comms[local_rank].allReduce(flat.data.ptr, flat.data.ptr, flat.size,
                                                 self._types[dtype], self._nccl.NCCL_SUM,
                                                 stream.ptr)
                offset = 0
                for i in members:
                    n = arrays[i].size
                    out[i] = flat[offset:offset + n].reshape(arrays[i].shape)
                    offset += n
        return out
