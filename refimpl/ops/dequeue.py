"""dequeue: pops one tensor from the scope's queue `queue_name` into each Out variable,
in order (refimpl/ops/queue_generator.py); run by the executor with the scope."""
from .queue_generator import no_eager_form, scope_queue
from .registry import OpDef, register


@register
class Dequeue(OpDef):
    type = "dequeue"
    inputs = ()
    outputs = ("Out*",)
    attrs = {"queue_name": ""}

    def infer_shape(self, ctx):
        ctx.expect(bool(ctx.attr("queue_name")), "the attribute 'queue_name' is empty")
        ctx.expect(ctx.has_output("Out"), "the output Out must be set")

    @staticmethod
    def forward(queue_name=""):
        no_eager_form("dequeue")

    @staticmethod
    def run_in_scope(op, env):
        queue = scope_queue(env, op.attrs["queue_name"], "dequeue")
        for name in op.output("Out"):
            env[name] = queue.pop("dequeue")

    def samples(self, rng):
        return []
