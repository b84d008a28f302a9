"""The inference API's data: PaddleDType (DataType), PaddlePlace (PlaceType), PaddleBuf,
PaddleTensor (what AnalysisPredictor.run takes and gives) and ZeroCopyTensor
(paddle.inference.Tensor: a handle on one input or output of a predictor).
specs/inference.md#tensors."""
import enum

import numpy as np

__all__ = ["PaddleDType", "PaddlePlace", "PaddleBuf", "PaddleTensor", "ZeroCopyTensor",
           "dtype_of", "num_bytes_of"]


class PaddleDType(enum.IntEnum):
    FLOAT32 = 0
    INT64 = 1
    INT32 = 2
    UINT8 = 3

    def __str__(self):
        return "PaddleDType.%s" % self.name

    __repr__ = __str__


class PaddlePlace(enum.IntEnum):
    UNK = -1
    CPU = 0
    GPU = 1

    def __str__(self):
        return "PaddlePlace.%s" % self.name

    __repr__ = __str__


_NUMPY = {PaddleDType.FLOAT32: np.float32, PaddleDType.INT64: np.int64,
          PaddleDType.INT32: np.int32, PaddleDType.UINT8: np.uint8}
_OF_NUMPY = {np.dtype(v): k for k, v in _NUMPY.items()}
# what copy_from_cpu and PaddleTensor(data) take (Paddle's bindings: int32, int64, float32)
_FEEDABLE = (np.dtype(np.float32), np.dtype(np.int64), np.dtype(np.int32))


def dtype_of(array, fn, feedable=True):
    """The PaddleDType of a numpy array; TypeError for one the API does not carry."""
    dt = np.asarray(array).dtype
    if dt not in (_FEEDABLE if feedable else _OF_NUMPY):
        raise TypeError("%s: data of dtype %s is not supported: only float32, int64 and "
                        "int32 arrays (convert with astype)" % (fn, dt))
    return _OF_NUMPY[dt]


def num_bytes_of(dtype):
    """get_num_bytes_of_data_type."""
    return np.dtype(_NUMPY[PaddleDType(dtype)]).itemsize


class PaddleBuf:
    """The bytes of a PaddleTensor: PaddleBuf(), PaddleBuf(length in bytes) or
    PaddleBuf(array / list of float32 / int64 / int32)."""

    def __init__(self, data=None):
        self._array = np.zeros(0, np.float32)
        if isinstance(data, int):
            self._array = np.zeros(data, np.uint8)
        elif data is not None:
            self.reset(data)

    def reset(self, data):
        array = np.asarray(data)
        if array.dtype == np.float64:       # a Python float list binds as float32
            array = array.astype(np.float32)
        dtype_of(array, "PaddleBuf.reset")
        self._array = np.ascontiguousarray(array).reshape(-1).copy()

    def resize(self, length):
        raw = np.zeros(length, np.uint8)
        old = self._array.view(np.uint8)[:length]
        raw[:len(old)] = old
        self._array = raw

    def empty(self):
        return self._array.nbytes == 0

    def length(self):
        return self._array.nbytes

    def _as(self, dtype):
        if self._array.nbytes % np.dtype(dtype).itemsize:
            raise ValueError("PaddleBuf: %d bytes are no whole number of %s values"
                             % (self._array.nbytes, np.dtype(dtype)))
        return self._array.view(dtype).tolist()

    def float_data(self):
        return self._as(np.float32)

    def int64_data(self):
        return self._as(np.int64)

    def int32_data(self):
        return self._as(np.int32)

    def tolist(self, dtype="float32"):
        return self._as(np.dtype(dtype))

    def _bytes(self):
        return self._array.view(np.uint8)


class PaddleTensor:
    """PaddleTensor() or PaddleTensor(data, name='', lod=[], copy=True): name, shape, data
    (a PaddleBuf), dtype and lod, writable; as_ndarray() the values."""

    def __init__(self, data=None, name="", lod=None, copy=True):
        self.name, self.lod = name, [list(level) for level in (lod or [])]
        if data is None:
            self.shape, self.dtype, self.data = [], PaddleDType.FLOAT32, PaddleBuf()
            return
        array = np.asarray(data)
        self.dtype = dtype_of(array, "PaddleTensor")
        self.shape = list(array.shape)
        self.data = PaddleBuf(array)

    def as_ndarray(self):
        dtype = _NUMPY[PaddleDType(self.dtype)]
        values = self.data._bytes()
        need = int(np.prod(self.shape, dtype=np.int64)) * np.dtype(dtype).itemsize
        if values.nbytes != need:
            raise ValueError("PaddleTensor %r: shape %s of %s needs %d bytes, its data holds "
                             "%d" % (self.name, self.shape, self.dtype, need, values.nbytes))
        return values.view(dtype).reshape(self.shape).copy()

    def __repr__(self):
        return "PaddleTensor(name=%r, shape=%s, dtype=%s, lod=%s)" % (
            self.name, self.shape, self.dtype, self.lod)


class ZeroCopyTensor:
    """A handle on input or output `name` of a predictor (get_input_tensor /
    get_input_handle, get_output_tensor / get_output_handle): it reads and writes the
    predictor's current value, so an output handle taken before a run sees its result."""

    def __init__(self, predictor, name, is_input):
        self._predictor, self._name, self._is_input = predictor, name, is_input

    def name(self):
        return self._name

    def _slot(self):
        return self._predictor._values(self._is_input)

    def reshape(self, shape):
        if not self._is_input:
            raise RuntimeError("Tensor %r: reshape is for inputs; %r is an output"
                               % (self._name, self._name))
        shape = [int(d) for d in shape]
        if any(d < 0 for d in shape):
            raise ValueError("Tensor %r: reshape to %s: every dimension must be >= 0"
                             % (self._name, shape))
        current = self._slot().get(self._name)
        dtype = current[0].dtype if current is not None else np.float32
        self._slot()[self._name] = (np.zeros(shape, dtype), [])

    def copy_from_cpu(self, data):
        if not self._is_input:
            raise RuntimeError("Tensor %r: copy_from_cpu is for inputs; %r is an output"
                               % (self._name, self._name))
        array = np.asarray(data)
        dtype_of(array, "Tensor %r copy_from_cpu" % self._name)
        current = self._slot().get(self._name)
        lod = current[1] if current is not None else []
        self._slot()[self._name] = (np.array(array, copy=True, order="C"), lod)

    def _current(self, what):
        current = self._slot().get(self._name)
        if current is None:
            raise RuntimeError("Tensor %r: %s before it has a value (%s)" % (
                self._name, what, "copy_from_cpu or reshape it first" if self._is_input
                else "run the predictor first"))
        return current

    def copy_to_cpu(self):
        return self._current("copy_to_cpu")[0].copy()

    def shape(self):
        return list(self._current("shape")[0].shape)

    def set_lod(self, lod):
        array = self._current("set_lod")[0]
        self._slot()[self._name] = (array, [list(level) for level in lod])

    def lod(self):
        current = self._slot().get(self._name)
        return [] if current is None else [list(level) for level in current[1]]

    def type(self):
        return dtype_of(self._current("type")[0], "Tensor %r" % self._name, feedable=False)

    def __repr__(self):
        return "Tensor(%r, %s)" % (self._name, "input" if self._is_input else "output")
