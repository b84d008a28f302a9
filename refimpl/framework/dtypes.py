"""Paddle data types and their numpy counterparts.

A `DType` compares equal to its Paddle name ('float32'), to the numpy dtype and to
the VarType spelling, so user code written against any of them keeps working.
"""
import numpy as np

__all__ = ["DType", "convert_dtype", "to_numpy_dtype", "VarType", "DataType",
           "get_default_dtype",
           "set_default_dtype",
           "float16", "float32", "float64", "int8", "int16", "int32", "int64",
           "uint8", "bool_", "complex64", "complex128", "is_integer_value",
           "FLOAT_DTYPES"]


def is_integer_value(value):
    """Whether `value` is a Python or numpy integer (a bool is not one, though Python's
    bool subclasses int: an index, axis or dtype code of True is a mistake)."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)


# Paddle's VarType enum codes (framework.proto): what int(VarType.FP32) gives, and what
# dtype attributes such as cast's out_dtype hold in Paddle's programs
_CODES = {"bool": 0, "int16": 1, "int32": 2, "int64": 3, "float16": 4, "float32": 5,
          "float64": 6, "uint8": 20, "int8": 21}
_NAME_OF_CODE = {code: name for name, code in _CODES.items()}


class DType:
    __slots__ = ("name", "np", "var_type")

    def __int__(self):
        return _CODES[self.name]

    __index__ = __int__

    def __init__(self, name, var_type):
        self.name = name
        self.np = np.dtype(name)
        self.var_type = var_type

    def __eq__(self, other):
        if isinstance(other, DType):
            return self.name == other.name
        try:
            return self.name == convert_dtype(other)
        except (TypeError, ValueError):
            return False

    def __hash__(self):
        return hash(self.name)

    def __repr__(self):
        return "paddle." + self.name

    __str__ = __repr__


_VAR_TYPES = {"bool": "BOOL", "int8": "INT8", "int16": "INT16", "int32": "INT32",
              "int64": "INT64", "float16": "FP16", "float32": "FP32", "float64": "FP64",
              "uint8": "UINT8", "complex64": "COMPLEX64", "complex128": "COMPLEX128"}
_BY_NAME = {name: DType(name, vt) for name, vt in _VAR_TYPES.items()}
# the real dtype of each complex one (|x|, real(x), imag(x))
REAL_OF = {"complex64": "float32", "complex128": "float64"}
COMPLEX_OF = {real: cplx for cplx, real in REAL_OF.items()}
_BY_VAR_TYPE = {vt: _BY_NAME[name] for name, vt in _VAR_TYPES.items()}


class _VarTypeNamespace:
    """`core.VarType.FP32` style access; also the non-tensor variable kinds."""
    LOD_TENSOR = "LOD_TENSOR"
    SELECTED_ROWS = "SELECTED_ROWS"
    LOD_TENSOR_ARRAY = "LOD_TENSOR_ARRAY"
    LOD_RANK_TABLE = "LOD_RANK_TABLE"
    FEED_MINIBATCH = "FEED_MINIBATCH"
    FETCH_LIST = "FETCH_LIST"
    STEP_SCOPES = "STEP_SCOPES"
    PLACE_LIST = "PLACE_LIST"
    READER = "READER"
    RAW = "RAW"
    # Paddle's bfloat16 tensors: refimpl has no bfloat16 dtype, so no tensor is one (the
    # name compares unequal to every dtype, and convert_dtype refuses it)
    BF16 = "BF16"


VarType = _VarTypeNamespace()
for _vt, _dt in _BY_VAR_TYPE.items():
    setattr(VarType, _vt, _dt)


class _DataTypeNamespace:
    """Paddle 3's `core.DataType` (its PIR dtype enum, whose members 3.3.1's paddle.float32
    and the rest are): the same DType objects under its names, FLOAT32, INT64, ...; BFLOAT16
    compares unequal to every dtype (refimpl has no bfloat16), as VarType.BF16."""
    BFLOAT16 = "BFLOAT16"


DataType = _DataTypeNamespace()
for _name, _dt in _BY_NAME.items():
    setattr(DataType, _name.upper(), _dt)


def convert_dtype(dtype):
    """Canonical Paddle dtype name ('float32', ...) of a str / numpy dtype / DType."""
    if isinstance(dtype, DType):
        return dtype.name
    if is_integer_value(dtype):
        if int(dtype) in _NAME_OF_CODE:
            return _NAME_OF_CODE[int(dtype)]
        raise TypeError("unsupported data type code %d; the codes are %s"
                        % (dtype, ", ".join("%d (%s)" % (c, n)
                                            for c, n in sorted(_NAME_OF_CODE.items()))))
    if isinstance(dtype, str):
        key = dtype[len("paddle."):] if dtype.startswith("paddle.") else dtype
        if key in _BY_NAME:
            return key
        if key in _BY_VAR_TYPE:
            return _BY_VAR_TYPE[key].name
    try:
        name = np.dtype(dtype).name
    except TypeError:
        raise TypeError("unsupported data type %r; expected one of %s"
                        % (dtype, ", ".join(sorted(_BY_NAME)))) from None
    if name not in _BY_NAME:
        raise TypeError("unsupported data type %r; expected one of %s"
                        % (dtype, ", ".join(sorted(_BY_NAME))))
    return name


def get_dtype(dtype):
    """The DType object for any dtype spelling."""
    return _BY_NAME[convert_dtype(dtype)]


def dtype_attr_is_a_name(defaults, value):
    """Whether an op's `dtype` attr given as `value` (a VarType or its code, as Paddle's
    OpTest and layers pass it) must become a dtype name: for the ops whose kernels take
    names (their default is one); ops taking codes (arg_max, cast) keep them."""
    return isinstance(defaults.get("dtype"), str) and not isinstance(value, str)


def to_numpy_dtype(dtype):
    return _BY_NAME[convert_dtype(dtype)].np


float16 = _BY_NAME["float16"]
float32 = _BY_NAME["float32"]
float64 = _BY_NAME["float64"]
int8 = _BY_NAME["int8"]
int16 = _BY_NAME["int16"]
int32 = _BY_NAME["int32"]
int64 = _BY_NAME["int64"]
uint8 = _BY_NAME["uint8"]
bool_ = _BY_NAME["bool"]
complex64 = _BY_NAME["complex64"]
complex128 = _BY_NAME["complex128"]


FLOAT_DTYPES = ("float16", "float32", "float64")
_default_dtype = "float32"


def get_default_dtype():
    return _default_dtype


def set_default_dtype(d):
    """Record the default float dtype (float16/32/64): to_tensor, Layer parameters and the
    random functions read it; other layers keep float32 (specs/environment.md)."""
    global _default_dtype
    name = convert_dtype(d.__name__ if isinstance(d, type) else d)
    if name not in FLOAT_DTYPES:
        raise TypeError("set_default_dtype only supports %s, got %s" % (FLOAT_DTYPES, name))
    _default_dtype = name
