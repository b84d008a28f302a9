"""paddle.distributed's collectives on Tensors: all_reduce, broadcast, reduce, all_gather,
scatter, barrier, ReduceOp (Paddle 2.0 signatures; specs/distributed.md#collectives).

Each builds the matching collective op (c_allreduce_sum, c_broadcast, ...) through
LayerHelper: on an eager Tensor it runs now, in place, over the process World; on a static
Variable it is appended to the program and runs when an Executor runs it."""
from ..dygraph.tensor import Tensor
from ..framework.dtypes import convert_dtype
from ..framework.layer_helper import LayerHelper
from ..framework.program import Variable
from .env import get_rank, get_world_size, require_parallel_env

__all__ = ["ReduceOp", "all_reduce", "broadcast", "reduce", "all_gather", "scatter",
           "barrier"]

_DTYPES = ("float16", "float32", "float64", "int32", "int64")


class ReduceOp:
    """How all_reduce and reduce combine the ranks' tensors."""
    SUM = 0
    MAX = 1
    MIN = 2
    PROD = 3


_REDUCTIONS = {ReduceOp.SUM: "sum", ReduceOp.MAX: "max", ReduceOp.MIN: "min",
               ReduceOp.PROD: "prod"}


def _check(tensor, what, arg="tensor"):
    if not isinstance(tensor, Variable):
        raise TypeError("paddle.distributed.%s: %s must be a Tensor (or a static Variable), "
                        "got %s" % (what, arg, type(tensor).__name__))
    dtype = convert_dtype(tensor.dtype)
    if dtype not in _DTYPES:
        raise TypeError("paddle.distributed.%s: %s %r has dtype %s; expected one of %s"
                        % (what, arg, tensor.name, dtype, list(_DTYPES)))


def _check_rank(value, what, arg):
    size = get_world_size()
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < size:
        raise ValueError("paddle.distributed.%s: %s must be a rank in [0, %d), got %r"
                         % (what, arg, size, value))


def _check_group(group, what):
    if group not in (0, None):
        raise NotImplementedError(
            "paddle.distributed.%s: group=%r; refimpl has one communication group, every "
            "process of the job (group=0)" % (what, group))


def _reduction(op, what):
    if op not in _REDUCTIONS:
        raise ValueError("paddle.distributed.%s: op must be ReduceOp.SUM, MAX, MIN or PROD, "
                         "got %r" % (what, op))
    return _REDUCTIONS[op]


def _start(tensor, what, group):
    _check(tensor, what)
    _check_group(group, what)
    require_parallel_env("paddle.distributed." + what)


def _in_place(op_type, tensor, attrs, x=None):
    """Run or append `op_type` from X (default: `tensor`) into `tensor`; eager: `tensor`."""
    LayerHelper(op_type).append_op(type=op_type, inputs={"X": [x if x is not None else tensor]},
                                   outputs={"Out": [tensor]}, attrs=attrs)
    return tensor if isinstance(tensor, Tensor) else None


def all_reduce(tensor, op=ReduceOp.SUM, group=0):
    """Every rank's `tensor` becomes the reduction (SUM, MAX, MIN, PROD) over ranks."""
    _start(tensor, "all_reduce", group)
    return _in_place("c_allreduce_" + _reduction(op, "all_reduce"), tensor, {})


def broadcast(tensor, src, group=0):
    """Every rank's `tensor` becomes rank `src`'s."""
    _start(tensor, "broadcast", group)
    _check_rank(src, "broadcast", "src")
    return _in_place("c_broadcast", tensor, {"roots": [src]})


def reduce(tensor, dst, op=ReduceOp.SUM, group=0):
    """Rank `dst`'s `tensor` becomes the reduction over ranks; the others keep theirs."""
    _start(tensor, "reduce", group)
    _check_rank(dst, "reduce", "dst")
    return _in_place("c_reduce_" + _reduction(op, "reduce"), tensor, {"roots": [dst]})


def all_gather(tensor_list, tensor, group=0):
    """Append every rank's `tensor`, in rank order, to the list `tensor_list` (tensors of
    one shape and dtype on every rank)."""
    _start(tensor, "all_gather", group)
    if not isinstance(tensor_list, list):
        raise TypeError("paddle.distributed.all_gather: tensor_list must be a list, got %s"
                        % type(tensor_list).__name__)
    from ..layers.tensor import split
    nranks = get_world_size()
    out = gathered(tensor, nranks)
    tensor_list.extend(split(out, nranks, 0) if nranks > 1 else [out])


def gathered(tensor, nranks):
    """Every rank's `tensor` concatenated along dim 0 in rank order (the c_allgather op,
    which fails naming both counts when `nranks` is not the number of processes taking
    part)."""
    helper = LayerHelper("c_allgather")
    out = helper.create_variable_for_type_inference(tensor.dtype)
    helper.append_op(type="c_allgather", inputs={"X": [tensor]}, outputs={"Out": [out]},
                     attrs={"nranks": nranks})
    return out


def scatter(tensor, tensor_list=None, src=0, group=0):
    """`tensor` becomes the rank-th of `tensor_list`, given on rank `src` (one tensor per
    rank, each of tensor's shape); the other ranks' tensor_list is not read."""
    _start(tensor, "scatter", group)
    _check_rank(src, "scatter", "src")
    from ..layers.tensor import concat
    nranks = get_world_size()
    if get_rank() == src:
        if not isinstance(tensor_list, (list, tuple)) or len(tensor_list) != nranks:
            raise ValueError("paddle.distributed.scatter: on the src rank %d tensor_list must "
                             "be a list of %d tensors (one per rank), got %r"
                             % (src, nranks, tensor_list))
        for i, t in enumerate(tensor_list):
            _check(t, "scatter", "tensor_list[%d]" % i)
            if list(t.shape) != list(tensor.shape):
                raise ValueError("paddle.distributed.scatter: tensor_list[%d] has shape %s, "
                                 "tensor %s" % (i, list(t.shape), list(tensor.shape)))
    else:
        tensor_list = [tensor] * nranks
    whole = concat(list(tensor_list), axis=0) if nranks > 1 else tensor_list[0]
    return _in_place("c_scatter", tensor, {"root": src, "nranks": nranks}, x=whole)


def barrier(group=0):
    """Wait until every rank has reached this barrier."""
    _check_group(group, "barrier")
    require_parallel_env("paddle.distributed.barrier")
    from ..layers.creation import fill_constant
    token = fill_constant([1], "int32", 0)
    LayerHelper("barrier").append_op(type="barrier", inputs={"X": [token]},
                                     outputs={"Out": [token]}, attrs={})
