"""Collective ops inserted by the data-parallel engine. Each asks the running device's
communicator (refimpl.parallel.context) to combine its inputs with the other devices'.
With no data-parallel context (a single place) they are identities."""
from ..parallel import context
from .registry import OpDef, register


class _Collective(OpDef):
    inputs = ("X*",)
    outputs = ("Out*",)
    collective = True

    def infer_shape(self, ctx):
        for i, v in enumerate(ctx.input_vars("X")):
            ctx.set_output("Out", v.shape, v.dtype, i)


@register
class CAllreduceSum(_Collective):
    """Out_i = sum over devices of X_i; several X travel as one bucket."""
    type = "c_allreduce_sum"
    attrs = {"ring_id": 0}

    @staticmethod
    def forward(xs, ring_id=0):
        ctx = context.current()
        return ctx.communicator.allreduce(ctx.local_rank, xs) if ctx is not None else xs


@register
class CReduceSum(_Collective):
    """X_i summed onto device root_i. The sum is computed by an allreduce; devices other
    than the root must not use the result (the Reduce strategy only reads it on the root)."""
    type = "c_reduce_sum"
    attrs = {"ring_id": 0, "roots": []}

    @staticmethod
    def forward(xs, ring_id=0, roots=()):
        ctx = context.current()
        return ctx.communicator.allreduce(ctx.local_rank, xs) if ctx is not None else xs


@register
class CBroadcast(_Collective):
    """X_i takes device root_i's value, in place (fuse_broadcast_ops: one op, many X)."""
    type = "c_broadcast"
    attrs = {"ring_id": 0, "roots": []}

    @staticmethod
    def forward(xs, ring_id=0, roots=()):
        ctx = context.current()
        if ctx is not None:
            ctx.communicator.broadcast(ctx.local_rank, xs, list(roots))
        return xs
