"""safe_pickle's opcode walk skips an array's bytes instead of reading them (paddle.load
of Paddle 3's test_paddle_save_load's 2.7 GB parameter had copied it once more there):
the walk of a 64 MB pickle allocates next to nothing, and the load is still exact."""
import pickle
import tracemalloc

import numpy as np

from refimpl.framework.paddle_formats import safe_pickle


def test_the_opcode_walk_does_not_copy_array_bytes():
    array = np.arange(16 * 2 ** 20, dtype=np.float32)          # 64 MB
    data = pickle.dumps({"w": array}, protocol=4)
    tracemalloc.start()
    try:
        safe_pickle._check_opcodes(data)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 2 ** 20, peak
    loaded = safe_pickle.loads(data)
    np.testing.assert_array_equal(loaded["w"], array)
    assert loaded["w"].flags.writeable
