"""paddle.static.amp (Paddle 2.0): fluid.contrib.mixed_precision under its 2.0 name, and
its amp_nn module (Paddle 3's tests import `paddle.static.amp.amp_nn`)."""
from ..fluid.contrib.mixed_precision import *  # noqa: F401,F403
from ..fluid.contrib.mixed_precision import __all__  # noqa: F401
from ..fluid.contrib.mixed_precision import amp_nn  # noqa: F401
