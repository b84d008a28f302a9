"""The dropout op's masks under the 1.8 profile (Paddle 1.8.5's stream, the same in static
and dynamic mode) and its arithmetic, against values recorded from Paddle 1.8.5 / 3.3.1."""
import numpy as np
import pytest

import refimpl as paddle
from refimpl import fluid

SEED7_MASK_15 = [0, 1, 0, 0, 1, 1, 1, 1, 1, 0, 1, 1, 0, 1, 0]   # Paddle 1.8.5, seed 7, p 0.3


def _static_dropout(build, feed):
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        fetch = build()
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup)
    return [exe.run(main, feed=feed, fetch_list=fetch) for _ in range(2)]


def test_program_seed_fixes_the_mask_as_in_paddle_1_8_5(paddle_version):
    ones = np.ones([15], "float32")

    def build():
        fluid.default_main_program().random_seed = 7
        x = fluid.data("x", [15], "float32")
        return [fluid.layers.dropout(x, 0.3)]

    with paddle_version("1.8"):
        first, second = _static_dropout(build, {"x": ones})
        with fluid.dygraph.guard():
            fluid.default_main_program().random_seed = 7
            x = fluid.dygraph.to_variable(ones)
            eager = [fluid.dygraph.Dropout(0.3)(x).numpy(), fluid.layers.dropout(x, 0.3).numpy()]
            fluid.default_main_program().random_seed = 0
    assert first[0].tolist() == second[0].tolist() == SEED7_MASK_15
    assert eager[0].tolist() == eager[1].tolist() == SEED7_MASK_15


def test_seed_input_overrides_the_attribute_and_no_seed_varies(paddle_version):
    def build():
        block = fluid.default_main_program().global_block()
        x = fluid.data("x", [15], "float32")
        seed = fluid.data("s", [1], "int32")
        out, mask = (block.create_var(name=n, dtype=d) for n, d in [("o", "float32"),
                                                                    ("m", "uint8")])
        block.append_op(type="dropout", inputs={"X": [x], "Seed": [seed]},
                        outputs={"Out": [out], "Mask": [mask]},
                        attrs={"dropout_prob": 0.3, "fix_seed": True, "seed": 99})
        return [mask, fluid.layers.dropout(x, 0.5)]

    feed = {"x": np.ones([15], "float32"), "s": np.array([7], "int32")}
    with paddle_version("1.8"):
        first, second = _static_dropout(build, feed)
    assert first[0].tolist() == second[0].tolist() == SEED7_MASK_15
    assert first[1].tolist() != second[1].tolist()   # 2**-15 odds of a false failure


def test_explicit_seed_zero_is_a_fixed_seed_like_one(paddle_version):
    # Paddle 1.8.5: seed=0 with no program seed still sets fix_seed; the engine takes 0 as 1
    def build(seed):
        return lambda: [fluid.layers.dropout(fluid.data("x", [40], "float32"), 0.5, seed=seed)]

    feed = {"x": np.ones([40], "float32")}
    with paddle_version("1.8"):
        (zero,), _ = _static_dropout(build(0), feed)
        (one,), _ = _static_dropout(build(1), feed)
    assert zero.tolist() == one.tolist()
    assert "".join(str(int(v)) for v in one[:20]) == "00111010010111111111"


# Paddle 1.8.5, dropout(seed 3, upscale_in_train) and dropout(is_test) of these values; the
# same arithmetic in 3.3.1: kept elements divided by float32(1 - p) in the data's dtype
UPSCALE_1_8_5 = [
    ("float32", 0.3, -0.4580712, -0.6543874, -2.8519275, -4.074182),
    ("float32", 0.3, 1.6831751, 2.4045358, 1.788281, 2.554687),
    ("float64", 0.4, 0.616580256429863, 1.0276337198819432, -0.7334889642451143,
     -1.2224815584981379),
    ("float64", 0.4, -0.45807120396657197, -0.7634519762740973, -2.8519276296520126,
     -4.753212527210992),
]


# the mask drawn from the 2.x stream (mt19937_64 seeded 10 keeps the element; 1.8.5's
# minstd would drop it); the arithmetic is 1.8.5's and 3.3.1's alike
@pytest.mark.paddle("3")
@pytest.mark.parametrize("dtype, p, x, out, dout, dx", UPSCALE_1_8_5)
def test_upscale_divides_by_the_float32_kept_fraction(dtype, p, x, out, dout, dx):
    from refimpl.ops.dropout import Dropout
    x, dout = np.array([x], dtype), np.array([dout], dtype)
    got, mask = Dropout.forward(x, None, p, fix_seed=True, seed=10,
                                dropout_implementation="upscale_in_train")
    assert mask.tolist() == [1]   # mt19937_64 seeded 10: its first draw, 0.601, keeps it
    assert got[0] == np.array([out], dtype)[0]
    got = Dropout.backward(mask, dout, p, dropout_implementation="upscale_in_train")
    assert got[0] == np.array([dx], dtype)[0]


def test_downgrade_inference_multiplies_by_the_float32_kept_fraction():
    from refimpl.ops.dropout import Dropout
    x = np.array([0.2928810235639485, 1.2911361982345166])
    got, _ = Dropout.forward(x, None, 0.4, is_test=True)
    # Paddle 1.8.5 and 3.3.1; x * (1 - 0.4) in double gives ...1757286141383691
    assert got.tolist() == [0.17572862112119686, 0.7746817497237958]


def test_2_x_profiles_draw_paddle_2_x_stream(paddle_version):
    # a fixed seed: a fresh std::mt19937_64 seeded with it (an int read as 64 bits), one
    # uniform_real_distribution<float> draw per element, kept where u >= p
    from refimpl.framework import mt19937
    from refimpl.ops.dropout import Dropout
    for version in ("2.0", "3"):
        with paddle_version(version):
            _, mask = Dropout.forward(np.ones(50, "float32"), None, 0.3, fix_seed=True,
                                      seed=-7)
        expected = mt19937.Engine.from_seed(2**64 - 7).uniform(0, 1, 50, "float32") >= 0.3
        np.testing.assert_array_equal(mask, expected.astype(np.uint8))
    with paddle_version("1.8"):
        paddle.seed(3)
        _, a = Dropout.forward(np.ones(50, "float32"), None, 0.3)
        paddle.seed(3)
        _, b = Dropout.forward(np.ones(50, "float32"), None, 0.3)
    np.testing.assert_array_equal(a, b)   # no fixed seed: a seed drawn from paddle.seed's


def _one_pass_masking(values, mask, divisor):
    # what the GPU's fused kernel computes (refimpl/_kernels/gpu/dropout.py), in numpy
    return np.where(mask != 0, values / divisor, values.dtype.type(0))


# the mask drawn from the 2.x stream (mt19937_64 seeded 10 keeps the element; 1.8.5's
# minstd would drop it); the arithmetic is 1.8.5's and 3.3.1's alike
@pytest.mark.paddle("3")
@pytest.mark.parametrize("dtype, p, x, out, dout, dx", UPSCALE_1_8_5)
def test_one_pass_masking_gives_paddles_upscaled_values(dtype, p, x, out, dout, dx):
    from refimpl.ops.dropout import Dropout
    x, dout = np.array([x], dtype), np.array([dout], dtype)
    got, mask = Dropout.forward(x, None, p, fix_seed=True, seed=10,
                                dropout_implementation="upscale_in_train",
                                masking=_one_pass_masking)
    assert got[0] == np.array([out], dtype)[0]
    got = Dropout.backward(mask, dout, p, dropout_implementation="upscale_in_train",
                           masking=_one_pass_masking)
    assert got[0] == np.array([dx], dtype)[0]


@pytest.mark.parametrize("implementation", ["downgrade_in_infer", "upscale_in_train"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("p", [0.35, 1.0])
def test_one_pass_masking_is_the_reference_to_the_bit(implementation, dtype, p):
    from refimpl.ops.dropout import Dropout
    rng = np.random.RandomState(4)
    x, dout = rng.randn(60).astype(dtype), rng.randn(60).astype(dtype)
    attrs = dict(dropout_prob=p, fix_seed=True, seed=9, dropout_implementation=implementation)
    want, mask = Dropout.forward(x, None, **attrs)
    got, got_mask = Dropout.forward(x, None, masking=_one_pass_masking, **attrs)
    np.testing.assert_array_equal(got_mask, mask)
    assert got.dtype == want.dtype and got.tobytes() == want.tobytes()
    assert 0 < mask.sum() < 60 or p == 1.0
    want = Dropout.backward(mask, dout, **attrs)
    got = Dropout.backward(mask, dout, masking=_one_pass_masking, **attrs)
    assert got.dtype == want.dtype and got.tobytes() == want.tobytes()
