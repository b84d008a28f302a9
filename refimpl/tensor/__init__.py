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
    "creation": ["arange", "assign", "create_global_var", "create_parameter", "create_tensor",
                 "diag", "empty", "empty_like", "eye", "fill_constant", "full", "full_like",
                 "linspace", "meshgrid", "ones", "ones_like", "to_tensor", "tril", "triu",
                 "zeros", "zeros_like"],
    "linalg": ["bmm", "cholesky", "cross", "dist", "dot", "histogram", "matmul", "mv", "norm",
               "t", "transpose"],
    "logic": ["allclose", "bitwise_and", "bitwise_not", "bitwise_or", "bitwise_xor", "equal",
              "equal_all", "greater_equal", "greater_than", "is_empty", "is_tensor",
              "less_equal", "less_than", "logical_and", "logical_not", "logical_or",
              "logical_xor", "not_equal"],
    "manipulation": ["broadcast_to", "cast", "chunk", "concat", "expand", "expand_as",
                     "flatten", "flip", "gather", "gather_nd", "reshape", "reshape_", "roll",
                     "scatter", "scatter_", "scatter_nd", "scatter_nd_add", "shard_index",
                     "slice", "split", "squeeze", "squeeze_", "stack", "strided_slice", "tile",
                     "transpose", "unbind", "unique", "unsqueeze", "unsqueeze_", "unstack"],
    "math": ["abs", "acos", "add", "add_n", "addmm", "all", "any", "asin", "atan",
             "broadcast_shape", "ceil", "clip", "conj", "cos", "cosh", "cumsum", "divide", "erf", "exp", "floor",
             "floor_divide", "floor_mod", "increment", "inverse", "isfinite", "isinf", "isnan",
             "kron", "log", "log10", "log1p", "log2", "logsumexp", "max", "maximum", "min",
             "minimum", "mm", "mod", "multiplex", "multiply", "pow", "prod", "reciprocal",
             "remainder", "round", "rsqrt", "scale", "sigmoid", "sign", "sin", "sinh", "sqrt",
             "square", "stanh", "subtract", "sum", "tan", "tanh", "tanh_", "trace"],
    "random": ["bernoulli", "gaussian", "multinomial", "normal", "rand", "randint", "randn",
               "randperm", "standard_normal", "uniform"],
    "search": ["argmax", "argmin", "argsort", "index_sample", "index_select", "masked_select",
               "nonzero", "sort", "topk", "where"],
    "stat": ["mean", "median", "numel", "std", "var"],
    "to_string": ["set_printoptions"],
    "tensor": [],       # 2.0's module of that name is empty
}

# Paddle 3's functions in 3.3.1's submodules (measured): statistics, scans and searches
# (layers/reductions.py, cumulative.py, ...), creation, random and Tensor-fill ones
# (layers/tensor_*.py, random_fill.py), indexing and shape ones (layers/index_update.py,
# reshaping.py, matrix_building.py), linear algebra (refimpl/linalg.py)
PADDLE3_SUBMODULES = {
    "attribute": ["is_complex", "is_floating_point", "is_integer"],
    "creation": ["as_tensor", "asarray", "cauchy_", "clone", "diag_embed", "diagflat",
                 "from_numpy", "geometric_", "logspace", "polar", "range", "tril_",
                 "tril_indices", "triu_", "triu_indices"],
    "linalg": ["bincount", "cdist", "cholesky_inverse", "cholesky_solve", "cond",
               "corrcoef", "cov", "det", "diagonal", "eig", "eigh", "eigvals", "eigvalsh",
               "histogram_bin_edges", "histogramdd", "householder_product", "lstsq", "lu",
               "lu_solve", "lu_unpack", "matrix_exp", "matrix_norm", "matrix_power",
               "matrix_rank", "matrix_transpose", "multi_dot", "ormqr", "pca_lowrank",
               "permute", "pinv", "qr", "slogdet", "solve", "svd", "svd_lowrank", "svdvals",
               "t_", "transpose_", "triangular_solve", "vecdot", "vector_norm"],
    "manipulation": ["as_complex", "as_real", "as_strided", "atleast_1d", "atleast_2d",
                     "atleast_3d", "block_diag", "broadcast_tensors", "column_stack",
                     "diagonal_scatter", "dsplit", "dstack", "fill_", "fill_diagonal_",
                     "fill_diagonal_tensor", "fill_diagonal_tensor_", "flatten_", "hsplit",
                     "hstack", "index_add", "index_add_", "index_fill", "index_fill_",
                     "index_put", "index_put_", "masked_fill", "masked_fill_",
                     "masked_scatter", "masked_scatter_", "moveaxis", "narrow",
                     "put_along_axis", "ravel", "repeat_interleave", "rot90", "row_stack",
                     "scatter_add", "scatter_add_", "scatter_reduce", "select_scatter",
                     "slice_scatter", "take_along_axis", "tensor_split", "tensordot",
                     "tolist", "unflatten", "unfold", "unique_consecutive", "view",
                     "view_as", "vsplit", "vstack", "zero_"],
    "math": ["amax", "amin", "angle", "broadcast_shapes", "cartesian_prod", "combinations",
             "count_nonzero", "cummax", "cummin", "cumprod", "cumprod_",
             "cumulative_trapezoid", "diff", "inner", "logcumsumexp", "nanmean", "nansum",
             "outer", "reduce_as", "renorm", "take", "trapezoid", "vander"],
    "random": ["bernoulli_", "binomial", "exponential_", "log_normal", "log_normal_",
               "normal_", "poisson", "rand_like", "randint_like", "randn_like",
               "standard_gamma", "uniform_"],
    "search": ["argwhere", "bucketize", "kthvalue", "mode", "msort", "searchsorted",
               "where_"],
    "stat": ["nanmedian", "nanquantile", "quantile"],
}
for _module, _names in PADDLE3_SUBMODULES.items():
    SUBMODULES[_module] = sorted(SUBMODULES[_module] + _names)
del _module, _names


def populate(namespace):
    """Fill this package and its submodules from `namespace` (the refimpl module's
    globals, where every tensor function already is) and the layers' "tensor" exports
    (the tensor-array functions, which Paddle 2.0 has in paddle.tensor only), and the
    paddle.linalg functions (3.3.1's paddle.tensor.linalg holds them; paddle.norm is 2.0's
    where profiles differ: the namespace's wins)."""
    namespace = {**exports("linalg"), **namespace, **exports("tensor")}
    package = globals()
    package.update(group(__name__, namespace, SUBMODULES))
    names = sorted({n for names in SUBMODULES.values() for n in names})
    package.update({n: namespace[n] for n in names})
    package["__all__"] = names
