"""paddle.seed, paddle.framework.seed and 2.0's paddle.framework.random._manual_program_seed
(refimpl/framework/random.py): which state each sets."""
import numpy as np

import refimpl as paddle
from refimpl import fluid, static


def _draw(n):
    with fluid.dygraph.guard():
        return paddle.rand([n]).numpy()


def test_framework_seed_is_paddle_seed_and_replays_the_global_stream():
    assert paddle.framework.seed is paddle.seed
    paddle.framework.seed(11)
    assert static.default_main_program().random_seed == 11
    assert static.default_startup_program().random_seed == 11
    first = _draw(4)
    paddle.seed(11)
    np.testing.assert_array_equal(_draw(4), first)


def test_manual_program_seed_sets_the_default_programs_only():
    paddle.seed(3)
    first = _draw(3)
    paddle.seed(3)
    paddle.framework.random._manual_program_seed(2020)
    assert static.default_main_program().random_seed == 2020
    assert static.default_startup_program().random_seed == 2020
    np.testing.assert_array_equal(_draw(3), first)
