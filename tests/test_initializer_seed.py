"""A random initializer without a seed of its own takes the random_seed of the startup
program its op goes to, as Paddle's do (specs/initializer.md)."""
import numpy as np

from refimpl import fluid


def _initial_weight(startup_seed, main_seed):
    main, startup = fluid.Program(), fluid.Program()
    main.random_seed, startup.random_seed = main_seed, startup_seed
    with fluid.program_guard(main, startup):
        w = fluid.layers.create_parameter([3, 4], "float32", default_initializer=
                                          fluid.initializer.Uniform(-1.0, 1.0))
    [op] = [op for op in startup.global_block().ops if op.type == "uniform_random"]
    scope = fluid.Scope()
    fluid.Executor(fluid.CPUPlace()).run(startup, scope=scope)
    return op.attr("seed"), np.array(scope.find_var(w.name).get_tensor())


def test_seed_comes_from_the_startup_program_not_the_main_one():
    seed, first = _initial_weight(startup_seed=123, main_seed=0)
    assert seed == 123
    np.random.uniform(size=10)        # draws elsewhere do not move a seeded op
    again_seed, again = _initial_weight(startup_seed=123, main_seed=5)
    assert again_seed == 123
    np.testing.assert_array_equal(first, again)
    unseeded, _ = _initial_weight(startup_seed=0, main_seed=5)
    assert unseeded == 0               # the global generator
