"""paddle.incubate.hapi (Paddle 1.8.5): the preview of 2.0's high-level API that 1.8.5 ships,
its vision transforms and DistributedBatchSampler, which Paddle 2.0 moved to
paddle.vision.transforms and paddle.io; here they are those."""
from ... import io, vision
from ...submodules import group

__all__ = ["distributed", "vision"]

globals().update(group(__name__, {"DistributedBatchSampler": io.DistributedBatchSampler},
                       {"distributed": ["DistributedBatchSampler"]}))
