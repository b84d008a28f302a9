"""paddle.static.amp (Paddle 2.0): fluid.contrib.mixed_precision under its 2.0 name."""
from ..fluid.contrib.mixed_precision import *  # noqa: F401,F403
from ..fluid.contrib.mixed_precision import __all__  # noqa: F401
