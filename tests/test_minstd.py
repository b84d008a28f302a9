"""framework/minstd.py: std::minstd_rand through uniform_real_distribution<float>, drawn by
jump-ahead, against a one-number-at-a-time reference and masks recorded from Paddle 1.8.5."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from refimpl.framework import minstd


def reference_draws(seed, n):
    """The engine and distribution step by step, in plain Python."""
    state = (seed % 2**64) % (2**31 - 1) or 1
    draws = []
    for _ in range(n):
        state = state * 48271 % (2**31 - 1)
        u = np.float32(state - 1) / np.float32(2**31)
        draws.append(min(u, np.nextafter(np.float32(1), np.float32(0))))
    return np.array(draws, np.float32)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(-2**31, 2**31 - 1), n=st.integers(0, 300))
def test_jump_ahead_equals_the_sequential_engine(seed, n):
    np.testing.assert_array_equal(minstd.uniform_float32(seed, n), reference_draws(seed, n))


def test_first_outputs_are_the_engines():
    # the C++ standard's check value: the 10000th output of a default-seeded (1) minstd_rand
    assert minstd.states(1, 10000)[-1] == 399268537
    assert minstd.states(0, 3).tolist() == minstd.states(2**31 - 1, 3).tolist() == \
        [48271, 182605794, 1291394886]


# Paddle 1.8.5, fluid.layers.dropout(ones(shape), p, seed=seed) on the CPU: its Mask
MASKS_1_8_5 = [
    (1, 20, 0.5, "00111010010111111111"),
    (7, 15, 0.3, "010011111011010"),
    (90, 64, 0.1, "0111101111011110111111111111111111100111111011111111111110111111"),
    (123456, 40, 0.7, "1101101000001111100100001010001010000100"),
    (2**31 - 1, 16, 0.5, "0011101001011111"),
    (-5, 40, 0.5, "1100010110100000000011000010010110100001"),
    (-2**31 + 1, 40, 0.5, "0001110101000000111101111110101100101000"),
    (48271, 40, 0.5, "0111010010111111111001111011010010111101"),
]


@pytest.mark.parametrize("seed, n, p, mask", MASKS_1_8_5)
def test_masks_recorded_from_paddle_1_8_5(seed, n, p, mask):
    kept = (minstd.uniform_float32(seed, n) >= np.float32(p)).astype(int)
    assert "".join(map(str, kept)) == mask


def test_a_long_mask_recorded_from_paddle_1_8_5():
    # seed 90, 3003 elements ([3, 7, 11, 13]), p 0.1: 2707 kept; its first 256 bits packed
    kept = (minstd.uniform_float32(90, 3003) >= np.float32(0.1)).astype(np.uint8)
    assert int(kept.sum()) == 2707
    assert np.packbits(kept)[:32].tobytes().hex() == (
        "7bdeffffe7efffbf7eebf7fffffefffffffffdffbffdfbdfbffffefdfffb3d7f")


def test_draws_compare_in_float32():
    # seed 1's third draw rounds up onto 0.60135263 in float32: Paddle 1.8.5 keeps it
    # (draw < p is false), as an exact comparison would not
    p = float(np.float32(0.6013526320457458))
    assert minstd.states(1, 3)[2] - 1 < p * 2**31
    assert (minstd.uniform_float32(1, 3) >= np.float32(p)).tolist() == [False, False, True]
