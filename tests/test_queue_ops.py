"""The queue ops (queue_generator, enqueue, dequeue): tensors pushed through a scope-held
queue come out in order and as they were pushed; the waits Paddle would do are errors;
create_global_var of a one-element array under the profiles numpy 1.x served."""
import numpy as np
import pytest

from refimpl import fluid
from refimpl.fluid import core
from refimpl.framework.errors import OpError


def _queue_programs(capacity=2, pushes=("a",), pops=("out",)):
    """(startup, main): startup declares the data and the queue 'q' and generates it;
    main pushes the variables `pushes`, then pops into `pops`."""
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        for name in set(pushes) | set(pops):
            fluid.layers.create_global_var([2, 2], 0.0, "float32", persistable=True,
                                           name=name)
    startup.global_block().create_var(name="q", persistable=True,
                                      type=core.VarDesc.VarType.RAW)
    startup.global_block().append_op(type="queue_generator",
                                     attrs={"names": ["q"], "capacity": capacity})
    block = main.global_block()
    for name in pushes:
        block.append_op(type="enqueue", inputs={"X": [block.var(name)]},
                        attrs={"queue_name": "q"})
    if pops:
        block.append_op(type="dequeue", outputs={"Out": [block.var(n) for n in pops]},
                        attrs={"queue_name": "q"})
    return startup, main


def test_tensors_come_out_in_order_as_they_were_pushed():
    startup, main = _queue_programs(pushes=("a", "b"), pops=("first", "second"))
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup)
    scope = fluid.global_scope()
    a = np.arange(4, dtype="float32").reshape(2, 2)
    scope.var("a").get_tensor().set(a, fluid.CPUPlace())
    scope.var("b").get_tensor().set(a * 10, fluid.CPUPlace())
    first, second = exe.run(main, fetch_list=["first", "second"])
    np.testing.assert_array_equal(first, a)
    np.testing.assert_array_equal(second, a * 10)
    # a pushed value is a copy: setting the variable afterwards does not reach the queue
    push_only = _queue_programs(pushes=("a",), pops=())[1]
    pop_only = _queue_programs(pushes=(), pops=("out",))[1]
    exe.run(push_only)
    scope.var("a").get_tensor().set(a + 100, fluid.CPUPlace())
    out, = exe.run(pop_only, fetch_list=["out"])
    np.testing.assert_array_equal(out, a)


def test_the_waits_paddle_would_do_are_errors():
    startup, main = _queue_programs(capacity=1, pushes=("a", "a"), pops=())
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup)
    # (the executor reports them as the op's error, naming it)
    with pytest.raises(OpError, match="\\[operator enqueue\\] RuntimeError: enqueue: the "
                       "queue 'q' is full \\(capacity 1\\)"):
        exe.run(main)
    empty = _queue_programs(pushes=(), pops=("out",))[1]
    exe.run(empty)                          # pops the one value pushed before the error
    with pytest.raises(OpError, match="dequeue: the queue 'q' is empty"):
        exe.run(empty)
    with pytest.raises(OpError, match="queue_generator: the queue 'q' already exists"):
        exe.run(startup)
    fresh = fluid.Scope()
    with pytest.raises(OpError, match="no blocking queue named 'q' in the scope"):
        exe.run(empty, scope=fresh)


def test_build_time_checks():
    block = fluid.Program().global_block()
    with pytest.raises(OpError, match="'names' must name at least one"):
        block.append_op(type="queue_generator", attrs={"names": []})
    with pytest.raises(OpError, match="no variable 'nowhere' is declared"):
        block.append_op(type="queue_generator", attrs={"names": ["nowhere"]})


def test_create_global_var_of_a_one_element_array(paddle_version):
    with paddle_version("2.0"):
        var = fluid.layers.create_global_var([2], np.array([0.25]), "float32",
                                             persistable=True, name="g")
        exe = fluid.Executor(fluid.CPUPlace())
        exe.run(fluid.default_startup_program())
        np.testing.assert_array_equal(np.array(fluid.global_scope().find_var(var.name)
                                               .get_tensor()), [0.25, 0.25])
    with paddle_version("3"):
        with pytest.raises(TypeError, match="value must be a number, got an array of "
                           "shape \\[1\\]"):
            fluid.layers.create_global_var([2], np.array([0.25]), "float32")
