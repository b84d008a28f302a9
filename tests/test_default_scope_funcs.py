"""paddle.fluid.default_scope_funcs: a per-thread stack of scopes (Paddle 1.8 / 2.0)."""
import threading

from refimpl.fluid import default_scope_funcs as dsf


def test_local_scopes_see_their_parents_and_are_dropped_on_leaving():
    outer = dsf.get_cur_scope()
    assert dsf.get_cur_scope() is outer and dsf.find_var("dsf_missing") is None
    dsf.var("dsf_a").set_int(3)
    dsf.enter_local_scope()
    inner = dsf.get_cur_scope()
    assert inner is not outer and dsf.find_var("dsf_a").get_int() == 3
    dsf.var("dsf_b")
    assert dsf.find_var("dsf_b") is not None
    dsf.leave_local_scope()
    assert dsf.get_cur_scope() is outer and dsf.find_var("dsf_b") is None


def test_scoped_function_leaves_its_scope_even_when_the_function_raises():
    outer = dsf.get_cur_scope()
    seen = []

    def body():
        seen.append(dsf.get_cur_scope())
        dsf.var("dsf_i").set_int(10)
        raise KeyError("stop")

    try:
        dsf.scoped_function(body)
    except KeyError:
        pass
    assert seen[0] is not outer and dsf.get_cur_scope() is outer
    assert dsf.find_var("dsf_i") is None


def test_each_thread_has_its_own_stack():
    main_scope = dsf.get_cur_scope()
    other = []
    t = threading.Thread(target=lambda: other.append(dsf.get_cur_scope()))
    t.start()
    t.join()
    assert other[0] is not main_scope
