"""Collective ops: inserted by the data-parallel rewrite, or built by paddle.distributed's
functions (all_reduce, broadcast, reduce, all_gather, scatter, barrier). Each combines its
inputs with the other devices' through `group`, the running device's communicator group
(refimpl/parallel/group.py has the interface), which the executor binds -- a place of a
data-parallel program, or the process's own device once init_parallel_env has run -- and
the eager tracer passes the same way. With no group (a single device) they are
identities."""
import numpy as np

from .registry import OpDef, register


class _Collective(OpDef):
    inputs = ("X*",)
    outputs = ("Out*",)

    def infer_shape(self, ctx):
        for i, v in enumerate(ctx.input_vars("X")):
            ctx.set_output("Out", v.shape, v.dtype, i)


class _AllReduce(_Collective):
    """Out_i = the reduction over devices of X_i; several X travel as one bucket."""
    attrs = {"ring_id": 0, "use_calc_stream": False}
    reduction = "sum"

    def forward(self, xs, ring_id=0, use_calc_stream=False, group=None):
        return group.allreduce(xs, self.reduction) if group is not None else xs


@register
class CAllreduceSum(_AllReduce):
    type = "c_allreduce_sum"


@register
class CAllreduceMax(_AllReduce):
    type = "c_allreduce_max"
    reduction = "max"


@register
class CAllreduceMin(_AllReduce):
    type = "c_allreduce_min"
    reduction = "min"


@register
class CAllreduceProd(_AllReduce):
    type = "c_allreduce_prod"
    reduction = "prod"


class _Reduce(_Collective):
    """X_i reduced onto device roots[i] (computed by an allreduce); every other device
    keeps X_i as it was."""
    attrs = {"ring_id": 0, "roots": [], "use_calc_stream": False}
    reduction = "sum"

    def forward(self, xs, ring_id=0, roots=(), use_calc_stream=False, group=None):
        if group is None:
            return xs
        totals = group.allreduce(xs, self.reduction)
        me = group.global_rank
        return [t if root == me else x for x, t, root in zip(xs, totals, roots)]


@register
class CReduceSum(_Reduce):
    type = "c_reduce_sum"


@register
class CReduceMax(_Reduce):
    type = "c_reduce_max"
    reduction = "max"


@register
class CReduceMin(_Reduce):
    type = "c_reduce_min"
    reduction = "min"


@register
class CReduceProd(_Reduce):
    type = "c_reduce_prod"
    reduction = "prod"


@register
class CBroadcast(_Collective):
    """X_i takes device root_i's value, in place (fuse_broadcast_ops: one op, many X)."""
    type = "c_broadcast"
    attrs = {"ring_id": 0, "roots": [], "use_calc_stream": False}

    @staticmethod
    def forward(xs, ring_id=0, roots=(), use_calc_stream=False, group=None):
        if group is not None:
            group.broadcast(xs, list(roots))
        return xs


@register
class CAllgather(OpDef):
    """Out = every device's X concatenated along dim 0, in rank order (`nranks` of them)."""
    type = "c_allgather"
    inputs = ("X",)
    outputs = ("Out",)
    attrs = {"ring_id": 0, "nranks": 1, "use_calc_stream": False}

    def infer_shape(self, ctx):
        x = ctx.input_var("X")
        first = x.shape[0] * ctx.attr("nranks") if x.shape and x.shape[0] >= 0 else -1
        ctx.set_output("Out", (first,) + tuple(x.shape[1:]), x.dtype)

    @staticmethod
    def forward(x, ring_id=0, nranks=1, use_calc_stream=False, group=None):
        parts = group.allgather(x) if group is not None else [x]
        if len(parts) != nranks:
            raise ValueError("c_allgather: nranks=%d, but %d devices take part"
                             % (nranks, len(parts)))
        return np.concatenate(parts, axis=0)


@register
class CScatter(OpDef):
    """Out = part `rank` of root's X cut into `nranks` equal parts along dim 0."""
    type = "c_scatter"
    inputs = ("X",)
    outputs = ("Out",)
    attrs = {"ring_id": 0, "root": 0, "nranks": 1, "use_calc_stream": False}

    def infer_shape(self, ctx):
        x, nranks = ctx.input_var("X"), ctx.attr("nranks")
        if x.shape and x.shape[0] >= 0 and x.shape[0] % nranks:
            ctx.fail("X %r has %d rows, which %d devices cannot share equally"
                     % (x.name, x.shape[0], nranks))
        first = x.shape[0] // nranks if x.shape and x.shape[0] >= 0 else -1
        ctx.set_output("Out", (first,) + tuple(x.shape[1:]), x.dtype)

    @staticmethod
    def forward(x, ring_id=0, root=0, nranks=1, use_calc_stream=False, group=None):
        if group is None:
            return np.split(x, nranks)[0] if nranks > 1 else x
        if group.nranks != nranks:
            raise ValueError("c_scatter: nranks=%d, but %d devices take part"
                             % (nranks, group.nranks))
        whole = np.array(x)
        group.broadcast([whole], [root])
        return np.split(whole, nranks)[group.global_rank]


@register
class Barrier(OpDef):
    """Every device waits here for the others; Out is X."""
    type = "barrier"
    inputs = ("X?",)
    outputs = ("Out?",)
    attrs = {"ring_id": 0}

    def infer_shape(self, ctx):
        if ctx.has_input("X"):
            x = ctx.input_var("X")
            ctx.set_output("Out", x.shape, x.dtype)

    @staticmethod
    def forward(x, ring_id=0, group=None):
        if group is not None:
            group.barrier()
        return x
