"""PipelineOptimizer: fluid.optimizer's name in 1.8 / 2.0, paddle.incubate.optimizer's in
Paddle 3."""
from ..framework import mode


class PipelineOptimizer:
    """Paddle's pipeline-parallel wrapper: dynamic mode raises Paddle's Exception; refimpl
    does not split static programs into pipeline stages (NotImplementedError)."""

    def __init__(self, optimizer, num_microbatches=1, start_cpu_core_id=0):
        if mode.dynamic:
            raise Exception("In dygraph, don't support PipelineOptimizer.")
        raise NotImplementedError("PipelineOptimizer: refimpl runs a program on one device "
                                  "group, without pipeline stages; minimize with %s itself"
                                  % type(optimizer).__name__)
