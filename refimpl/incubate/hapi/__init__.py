"""paddle.incubate.hapi (Paddle 1.8.5): the preview of 2.0's high-level API that 1.8.5 ships,
its vision transforms and DistributedBatchSampler, which Paddle 2.0 moved to
paddle.vision.transforms and paddle.io; here they are those."""
import sys

from ... import io, vision
from ...submodules import group

__all__ = ["distributed", "vision"]

# `from paddle.incubate.hapi.vision.transforms import ...` finds refimpl.vision's modules
# under these names, instead of running their files again in a package whose relative
# imports (`from ... import versions`) point elsewhere
for _name, _module in list(sys.modules.items()):
    if _name == vision.__name__ or _name.startswith(vision.__name__ + "."):
        sys.modules[__name__ + ".vision" + _name[len(vision.__name__):]] = _module
del _name, _module

globals().update(group(__name__, {"DistributedBatchSampler": io.DistributedBatchSampler},
                       {"distributed": ["DistributedBatchSampler"]}))
