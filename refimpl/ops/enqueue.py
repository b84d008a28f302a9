"""enqueue: pushes a copy of X into the scope's queue `queue_name` (made by
queue_generator, refimpl/ops/queue_generator.py); run by the executor with the scope."""
from .queue_generator import no_eager_form, scope_queue
from .registry import OpDef, register


@register
class Enqueue(OpDef):
    type = "enqueue"
    inputs = ("X",)
    outputs = ()
    attrs = {"queue_name": ""}

    def infer_shape(self, ctx):
        ctx.expect(bool(ctx.attr("queue_name")), "the attribute 'queue_name' is empty")

    @staticmethod
    def forward(x, queue_name=""):
        no_eager_form("enqueue")

    @staticmethod
    def run_in_scope(op, env):
        name = op.input("X")[0]
        if env.get(name) is None:
            raise RuntimeError("enqueue: the variable %r has no value to push" % name)
        scope_queue(env, op.attrs["queue_name"], "enqueue").push(env[name], "enqueue")

    def samples(self, rng):
        return []
