"""paddle.tensor: the tensor functions of the `paddle` namespace again, and grouped into
the submodules Paddle keeps them in (paddle.tensor.math.add, paddle.tensor.stat.std, ...),
which Paddle 2.0's own tests and user code call. Membership of each submodule is Paddle
3.3.1's (measured: the module each function is defined in), limited to the functions
refimpl has; the element-wise unary functions Paddle 3 moved to tensor.ops are in math,
where Paddle 2.0 had them (refimpl/submodules.py builds them).
specs/tensor_methods.md#paddletensor."""
from ..layers import exports
from ..submodules import group

SUBMODULES = {
    "array": ["array_length", "array_read", "array_write", "create_array"],
    "attribute": ["imag", "rank", "real", "shape"],
    "creation": ["arange", "polar", "assign", "create_global_var", "create_parameter", "create_tensor",
                 "diag", "empty", "empty_like", "eye", "fill_constant", "full", "full_like",
                 "linspace", "meshgrid", "ones", "ones_like", "to_tensor", "tril", "triu",
                 "zeros", "zeros_like"],
    "linalg": ["bmm", "cholesky", "cholesky_inverse", "cholesky_solve", "cond", "cross", "det",
               "dist", "dot", "eig", "eigh", "eigvals", "eigvalsh", "histogram",
               "householder_product", "lstsq", "lu", "lu_solve", "lu_unpack", "matmul",
               "matrix_exp", "matrix_norm", "matrix_power", "matrix_rank", "multi_dot", "mv",
               "norm", "ormqr", "pca_lowrank", "pinv", "qr", "slogdet", "solve", "svd",
               "svd_lowrank", "svdvals", "t", "transpose", "triangular_solve", "vector_norm"],
    "logic": ["allclose", "bitwise_and", "bitwise_not", "bitwise_or", "bitwise_xor", "equal",
              "equal_all", "greater_equal", "greater_than", "is_empty", "is_tensor",
              "less_equal", "less_than", "logical_and", "logical_not", "logical_or",
              "logical_xor", "not_equal"],
    "manipulation": ["as_complex", "as_real", "broadcast_to", "cast", "chunk", "concat", "expand", "expand_as",
                     "flatten", "flip", "gather", "gather_nd", "reshape", "reshape_", "roll",
                     "scatter", "scatter_", "scatter_nd", "scatter_nd_add", "shard_index",
                     "slice", "split", "squeeze", "squeeze_", "stack", "strided_slice",
                     "tensordot", "tile", "transpose", "unbind", "unique", "unsqueeze", "unsqueeze_", "unstack"],
    "math": ["abs", "acos", "add", "add_n", "addmm", "all", "angle", "any", "asin", "atan",
             "broadcast_shape", "ceil", "clip", "conj", "cos", "cosh", "cumsum", "divide", "erf", "exp", "floor",
             "floor_divide", "floor_mod", "increment", "inner", "inverse", "isfinite", "isinf", "isnan",
             "kron", "log", "log10", "log1p", "log2", "logsumexp", "max", "maximum", "min",
             "minimum", "mm", "mod", "multiplex", "multiply", "outer", "pow", "prod",
             "reciprocal", "remainder", "renorm", "round", "rsqrt", "scale", "sigmoid", "sign", "sin", "sinh", "sqrt",
             "square", "stanh", "subtract", "sum", "tan", "tanh", "tanh_", "trace"],
    "random": ["bernoulli", "gaussian", "multinomial", "normal", "rand", "randint", "randn",
               "randperm", "standard_normal", "uniform"],
    "search": ["argmax", "argmin", "argsort", "index_sample", "index_select", "masked_select",
               "nonzero", "sort", "topk", "where"],
    "stat": ["mean", "median", "numel", "std", "var"],
    "to_string": ["set_printoptions"],
    "tensor": [],       # 2.0's module of that name is empty
}


def populate(namespace):
    """Fill this package and its submodules from `namespace` (the refimpl module's
    globals, where every tensor function already is) and the layers' "tensor" exports
    (the tensor-array functions, which Paddle 2.0 has in paddle.tensor only), and the
    paddle.linalg functions (3.3.1's paddle.tensor.linalg holds them; paddle.norm is 2.0's
    where profiles differ: the namespace's wins)."""
    namespace = dict(exports("linalg"), **namespace, **exports("tensor"))
    package = globals()
    package.update(group(__name__, namespace, SUBMODULES))
    names = sorted({n for names in SUBMODULES.values() for n in names})
    package.update({n: namespace[n] for n in names})
    package["__all__"] = names
