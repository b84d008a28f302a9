"""fc's forward chain, and the relu-and-bias part of its gradient, each run as one call.

A fc layer runs mul -> elementwise_add (its bias) [-> relu] forward (a 2.x nn.Linear
matmul_v2 -> elementwise_add [-> relu]), and relu_grad ->
elementwise_add_grad before its mul_grad backward. As ops, each makes an activation-sized
array that the next reads back: a pass over memory and a dispatch each, on one thread
below the team's split size (mlp_deep: 16 layers of 64 x 256, issue 21). When the kernel
table has a kernel for the chain (FOLDED_CHAINS, compiled backend only), the plan runs it
as one call: the forward adds the bias [and relu] to each part of the product right after
its GEMM, while that block is in its core's cache; the backward masks the gradient and
sums the bias's in one pass.

Only where no one can see the values between the ops: each dies at the chain's next op
but for its shape (elementwise_add_grad reads X and Y for their shapes only: later readers
get a buffer-less stand-in), none is fetched or persistable, and every member is a plain
kernel call (no LoD, no in-place output, no hand-off, no SelectedRows). The values are the
members' to the bit: the kernels do the same arithmetic over the same parts."""
from ..dispatch import select_folded_chain
from ..framework.program import EMPTY_VAR_NAME
from ._stand_in import stand_in
from .binding import main_dtype

__all__ = ["folded_chains", "bind_chain"]

# (op types, the slot of each op after the first that reads the op before's output, the
# slot that output is written to)
_CHAINS = ((("mul", "elementwise_add", "relu"), ("X", "X"), ("Out", "Out")),
           (("mul", "elementwise_add"), ("X",), ("Out",)),
           (("matmul_v2", "elementwise_add", "relu"), ("X", "X"), ("Out", "Out")),
           (("matmul_v2", "elementwise_add"), ("X",), ("Out",)),
           (("matmul", "elementwise_add", "relu"), ("X", "X"), ("Out", "Out")),
           (("matmul", "elementwise_add"), ("X",), ("Out",)),
           (("relu_grad", "elementwise_add_grad"), ("Out@GRAD",), ("X@GRAD",)))


def folded_chains(ops, dead_after, shrink_after, plain):
    """{i: (kernel, the chain's length, its intermediates)} for each chain of ops starting
    at ops[i] that runs as one call. `dead_after` / `shrink_after`: per op, the names dead
    after it, and those whose value dies there but whose shape later ops read
    (Plan._free_lists); `plain[i]`: whether op i is bound as a plain CPU kernel call."""
    chains, i = {}, 0
    while i < len(ops):
        found = _chain_at(ops, i, dead_after, shrink_after, plain)
        if found is None:
            i += 1
            continue
        chains[i] = found
        i += found[1]
    return chains


def _chain_at(ops, i, dead_after, shrink_after, plain):
    for types, reads, writes in _CHAINS:
        n = len(types)
        members = ops[i:i + n]
        if tuple(op.type for op in members) != types or not all(plain[i:i + n]) or \
                (types[0] in _LINEAR_PRODUCTS and _linear_rank(members[0]) is None):
            continue
        middle = []
        for k in range(1, n):
            made = members[k - 1].output(writes[k - 1])
            if len(made) != 1 or members[k].input(reads[k - 1]) != made or \
                    sum(op.input_arg_names.count(made[0]) for op in members[k:]) != 1 or \
                    made[0] not in dead_after[i + k] + shrink_after[i + k]:
                break
            middle.append(made[0])
        else:
            kernel = select_folded_chain(types, [op.attrs for op in members],
                                         main_dtype(members[0]))
            if kernel is not None:
                return kernel, n, tuple(middle)
    return None


# the products a Linear builds: matmul_v2 (3.x), matmul (v1, Paddle 2.0's F.linear)
_LINEAR_PRODUCTS = ("matmul_v2", "matmul")


def _linear_rank(op):
    """The rank of X when matmul_v2 / matmul `op` is a Linear's product, which mul computes
    at x_num_col_dims = rank - 1: X of rank 2 or more times an untransposed 2-D Y (and
    matmul's alpha 1); else None (broadcast batches, vectors, transposes and scaling are
    the matmul ops' own)."""
    block = op.block
    x, y = (block._find_var_recursive(op.input(s)[0]) for s in ("X", "Y"))
    if op.attrs.get("trans_x") or op.attrs.get("trans_y") or op.attrs.get("transpose_X") or \
            op.attrs.get("transpose_Y") or op.attrs.get("alpha", 1.0) != 1.0 or x is None or \
            y is None or len(y.shape) != 2 or len(x.shape) < 2:
        return None
    return len(x.shape)


def bind_chain(ops, kernel, middle, shape_read, alloc=None, wrap_kernel=None):
    """`run(env)` running the chain `ops` (see folded_chains) as one call of `kernel`.
    `middle`: the values passed between the ops, which only a stand-in of their shape
    reaches env for the names in `shape_read` (those that later ops read for their
    shape). `wrap_kernel(op, fn)` as in bind_op: the call counts as the first op's."""
    if wrap_kernel is not None:
        kernel = wrap_kernel(ops[0], kernel)
    kept = tuple(n for n in middle if n in shape_read)
    if ops[0].type == "mul" or ops[0].type in _LINEAR_PRODUCTS:
        return _bound_forward(ops, kernel, kept, alloc)
    return _bound_backward(ops, kernel, kept)


def _bound_forward(ops, kernel, kept, alloc):
    mul, add = ops[0], ops[1]
    names = (mul.input("X")[0], mul.input("Y")[0], add.input("Y")[0])
    out = ops[-1].output("Out")[0]
    if mul.type in _LINEAR_PRODUCTS:
        attrs = {"x_num_col_dims": _linear_rank(mul) - 1, "y_num_col_dims": 1}
    else:
        attrs = {"x_num_col_dims": mul.attrs.get("x_num_col_dims", 1),
                 "y_num_col_dims": mul.attrs.get("y_num_col_dims", 1)}
    attrs["axis"] = add.attrs.get("axis", -1)
    if alloc is not None:
        attrs["alloc"] = alloc
    linear = mul.type in _LINEAR_PRODUCTS

    def run(env):
        args = [env[n] for n in names]
        if linear and args[0].ndim != attrs["x_num_col_dims"] + 1:
            # fed at another rank than declared (a [13] sample for a [-1, 13] x, which
            # Paddle feeds): the matmul's own semantics, a vector times Y drops its dim
            value = _linear_of_fed_rank(kernel, args, attrs)
        else:
            value = kernel(*args, **attrs)
        env[out] = value
        for n in kept:     # every value of the chain has the product's shape and dtype
            env[n] = stand_in(value.shape, value.dtype)
    return run


def _linear_of_fed_rank(kernel, args, attrs):
    x = args[0]
    vector = x.ndim == 1
    value = kernel(x.reshape(1, -1) if vector else x, *args[1:],
                   **dict(attrs, x_num_col_dims=max(x.ndim, 2) - 1))
    return value.reshape(value.shape[1:]) if vector else value


def _bound_backward(ops, kernel, kept):
    relu_grad, add_grad = ops
    names = (relu_grad.input("Out")[0], relu_grad.input("Out@GRAD")[0],
             add_grad.input("X")[0], add_grad.input("Y")[0])
    axis = add_grad.attrs.get("axis", -1)
    dx, dy = [(add_grad.output(s) or [EMPTY_VAR_NAME])[0] for s in ("X@GRAD", "Y@GRAD")]

    def run(env):
        grads = kernel(*[env[n] for n in names], axis=axis)
        for name, value in zip((dx, dy), grads):
            if name != EMPTY_VAR_NAME:
                env[name] = value
        for n in kept:
            env[n] = stand_in(grads[0].shape, grads[0].dtype)
    return run
