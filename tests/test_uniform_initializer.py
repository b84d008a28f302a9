"""fluid.initializer.Uniform's Paddle 1.8 diagonal arguments (specs/initializer.md)."""
import numpy as np

from refimpl import fluid


def test_uniform_initializer_diag_init_as_paddle_1_8():
    # fluid.initializer.Uniform(low, high, seed, diag_num, diag_step, diag_val): the flat
    # elements i (diag_step + 1), i < diag_num, are diag_val (Paddle 1.8's uniform_random)
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        w = fluid.layers.create_parameter(
            [4, 5], "float32", default_initializer=fluid.initializer.Uniform(
                -5.0, 10.0, 7, diag_num=4, diag_step=5, diag_val=2.0))
    scope = fluid.Scope()
    fluid.Executor(fluid.CPUPlace()).run(startup, scope=scope)
    value = np.array(scope.find_var(w.name).get_tensor())
    np.testing.assert_array_equal(value.reshape(-1)[[0, 6, 12, 18]], [2.0] * 4)
    assert value.reshape(-1)[1] != 2.0
    # 2.0's positional name is still taken
    assert fluid.initializer.Uniform(-1.0, 1.0, 0, "u").diag["diag_num"] == 0


def test_an_unseeded_initializer_takes_the_startup_programs_random_seed():
    # Paddle 1.8.5: seed 0 -> block.program.random_seed of the startup block the op goes
    # to, so two programs whose startups are seeded alike start alike (main's is unset)
    values = []
    for _ in range(2):
        main, startup = fluid.Program(), fluid.Program()
        startup.random_seed = 3
        with fluid.program_guard(main, startup):
            w = fluid.layers.create_parameter([3, 4], "float32",
                                              default_initializer=fluid.initializer.Normal())
        assert main.random_seed == 0
        assert startup.global_block().ops[-1].attr("seed") == 3
        scope = fluid.Scope()
        fluid.Executor(fluid.CPUPlace()).run(startup, scope=scope)
        values.append(np.array(scope.find_var(w.name).get_tensor()))
    np.testing.assert_array_equal(values[0], values[1])
    assert values[0].std() > 0.5
