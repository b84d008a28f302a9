"""paddle.complex (Paddle 1.8): layers over complex tensors. Paddle 1.8 held a complex
tensor as a ComplexVariable, a pair of real Variables, and built each of these layers
from the real layers of its parts; refimpl's tensors hold complex dtypes themselves, so
each layer is the one op on them. As in Paddle 1.8, at least one input must be complex
(the others are real and taken as complex with imaginary part 0). Paddle 2.0 dropped this
namespace for complex dtypes of the ordinary functions."""
from .framework.dtypes import COMPLEX_OF, convert_dtype
from .layers import linalg
from .layers.common import append_op_out, binary, check_variable
from .layers.math import cast, fluid_matmul
from .layers.tensor import fluid_reshape, transpose as _transpose

__all__ = ["elementwise_add", "elementwise_sub", "elementwise_mul", "elementwise_div",
           "trace", "sum", "kron", "reshape", "transpose", "matmul"]



def _is_complex(x):
    return convert_dtype(x.dtype) in ("complex64", "complex128")


def _complex_inputs(layer, *inputs):
    """The inputs, the real ones cast to the complex dtype of their precision; a
    ValueError when none is complex (Paddle 1.8's message: use the real layer)."""
    for name, x in inputs:
        check_variable(x, name, "complex." + layer)
    if not any(_is_complex(x) for _, x in inputs):
        raise ValueError("%s the input of layer complex.%s() must be a complex tensor (got %s); "
                         "use the layer for real numbers instead"
                         % ("At least one" if len(inputs) > 1 else "", layer,
                            ", ".join("%s %s" % (n, convert_dtype(x.dtype)) for n, x in inputs)))
    converted = []
    for name, x in inputs:
        dtype = convert_dtype(x.dtype)
        if not _is_complex(x):
            if dtype not in COMPLEX_OF:
                raise TypeError("complex.%s: the real input %s must be float32 or float64 to "
                                "pair with a complex one, got %s" % (layer, name, dtype))
            x = cast(x, COMPLEX_OF[dtype])
        converted.append(x)
    return converted


def _elementwise(op_type):
    layer = op_type

    def apply(x, y, axis=-1, name=None):
        x, y = _complex_inputs(layer, ("x", x), ("y", y))
        return binary(op_type, x, y, axis=axis, name=name)
    apply.__name__ = op_type
    apply.__doc__ = "%s of complex tensors, with Paddle's `axis` broadcasting." % op_type
    return apply


elementwise_add = _elementwise("elementwise_add")
elementwise_sub = _elementwise("elementwise_sub")
elementwise_mul = _elementwise("elementwise_mul")
elementwise_div = _elementwise("elementwise_div")


def trace(input, offset=0, dim1=0, dim2=1, name=None):
    """The sum of the diagonal `offset` of the (dim1, dim2) planes."""
    input, = _complex_inputs("trace", ("input", input))
    return linalg.trace(input, offset, dim1, dim2, name)


def sum(input, dim=None, keep_dim=False, name=None):
    """The sum over `dim` (an int or a list; every dim when None)."""
    input, = _complex_inputs("sum", ("input", input))
    dims = [] if dim is None else list(dim) if isinstance(dim, (list, tuple)) else [dim]
    return append_op_out("reduce_sum", {"X": [input]},
                         {"dim": dims or [0], "keep_dim": bool(keep_dim),
                          "reduce_all": not dims}, name)


def kron(x, y, name=None):
    """The Kronecker product."""
    x, y = _complex_inputs("kron", ("x", x), ("y", y))
    return linalg.kron(x, y, name)


def reshape(x, shape, inplace=False, name=None):
    """x with the new shape (0: copy that dim of x, -1: inferred). `inplace` is accepted
    as in Paddle 1.8, where it only let the output share x's memory."""
    x, = _complex_inputs("reshape", ("x", x))
    return fluid_reshape(x, list(shape), name=name)


def transpose(x, perm, name=None):
    """x with its dims permuted."""
    x, = _complex_inputs("transpose", ("x", x))
    return _transpose(x, perm, name)


def matmul(x, y, transpose_x=False, transpose_y=False, alpha=1.0, name=None):
    """alpha * (x @ y), either side transposed first (fluid.layers.matmul's rules)."""
    x, y = _complex_inputs("matmul", ("x", x), ("y", y))
    return fluid_matmul(x, y, transpose_x, transpose_y, alpha, name)
