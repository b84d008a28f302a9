"""Collective ops inserted by the data-parallel rewrite. Each combines its inputs with the
other devices' through `group`, the running device's communicator group, which the
executor binds (refimpl/parallel/group.py has the interface: allreduce, broadcast). With no
group (a single place) they are identities."""
from .registry import OpDef, register


class _Collective(OpDef):
    inputs = ("X*",)
    outputs = ("Out*",)

    def infer_shape(self, ctx):
        for i, v in enumerate(ctx.input_vars("X")):
            ctx.set_output("Out", v.shape, v.dtype, i)


@register
class CAllreduceSum(_Collective):
    """Out_i = sum over devices of X_i; several X travel as one bucket."""
    type = "c_allreduce_sum"
    attrs = {"ring_id": 0}

    @staticmethod
    def forward(xs, ring_id=0, group=None):
        return group.allreduce(xs) if group is not None else xs


@register
class CReduceSum(_Collective):
    """X_i summed onto device root_i. The sum is computed by an allreduce; devices other
    than the root must not use the result (the Reduce strategy only reads it on the root)."""
    type = "c_reduce_sum"
    attrs = {"ring_id": 0, "roots": []}

    @staticmethod
    def forward(xs, ring_id=0, roots=(), group=None):
        return group.allreduce(xs) if group is not None else xs


@register
class CBroadcast(_Collective):
    """X_i takes device root_i's value, in place (fuse_broadcast_ops: one op, many X)."""
    type = "c_broadcast"
    attrs = {"ring_id": 0, "roots": []}

    @staticmethod
    def forward(xs, ring_id=0, roots=(), group=None):
        if group is not None:
            group.broadcast(xs, list(roots))
        return xs
