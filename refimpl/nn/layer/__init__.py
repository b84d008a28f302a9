"""paddle.nn's Layer classes (static-graph mode): see specs/nn_layer.md."""
from .activation import *  # noqa: F401,F403
from .base import Layer
from .common import *  # noqa: F401,F403
from .container import *  # noqa: F401,F403
from .conv import *  # noqa: F401,F403
from .decode import *  # noqa: F401,F403
from .distance import *  # noqa: F401,F403
from .loss import *  # noqa: F401,F403
from .norm import *  # noqa: F401,F403
from .padding import *  # noqa: F401,F403
from .pooling import *  # noqa: F401,F403
from .rearrangement import *  # noqa: F401,F403
from .reshaping import *  # noqa: F401,F403
from .rnn import *  # noqa: F401,F403
from .spectral_norm import *  # noqa: F401,F403
from .torch_names import *  # noqa: F401,F403
from .transformer import *  # noqa: F401,F403
from . import (activation, common, container, conv, decode, distance, loss, norm, padding,
               pooling, rearrangement, reshaping, rnn, spectral_norm, torch_names,
               transformer)
from ...submodules import group

globals().update(group(__name__, globals(), {"vision": ["PixelShuffle"]}))   # 2.0's

__all__ = ["Layer"] + [name for module in (activation, common, container, conv, decode, distance,
                                           loss, norm, padding, pooling, rearrangement,
                                           reshaping, rnn, spectral_norm, torch_names,
                                           transformer)
                       for name in module.__all__]
