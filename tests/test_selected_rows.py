"""SelectedRows (specs/selected_rows.md): the scope handle Paddle 1.8 exposes and the ops that
take or make them, each checked against the same op on the dense tensor the SelectedRows
stands for (numpy)."""
import numpy as np
import pytest

from refimpl.fluid import core
from refimpl.fluid.op import Operator
from refimpl.framework.errors import OpError
from refimpl.pir_utils import OldIrGuard

PLACE = core.CPUPlace()


def _rows(scope, name, rows, height, value):
    sr = scope.var(name).get_selected_rows()
    sr.set_height(height)
    sr.set_rows(rows)
    sr.get_tensor().set(np.asarray(value), PLACE)
    return sr


def _dense(rows, height, value):
    out = np.zeros((height,) + np.shape(value)[1:], np.asarray(value).dtype)
    for r, v in zip(rows, value):
        out[r] += v
    return out


def _tensor(scope, name, value):
    scope.var(name).get_tensor().set(np.asarray(value), PLACE)


def _read(scope, name):
    return np.array(scope.find_var(name).get_tensor())


def test_handle_is_a_live_view_of_the_scope_variable():
    scope = core.Scope()
    sr = _rows(scope, "w", [3, 1], 5, np.ones((2, 4)))
    assert sr.rows() == [3, 1] and sr.height() == 5 and sr.numel() == 8
    later = scope.find_var("w").get_selected_rows()
    later.set_rows([0, 2])
    assert sr.rows() == [0, 2]                       # both see the variable
    with pytest.raises(TypeError, match="SelectedRows"):
        scope.find_var("w").get_tensor()
    _tensor(scope, "d", np.ones(3))
    with pytest.raises(TypeError, match="not a SelectedRows"):
        scope.find_var("d").get_selected_rows()
    free = core.SelectedRows([1, 2], 10)
    free.get_tensor().set(np.zeros((2, 3), "float32"), PLACE)
    assert free.rows() == [1, 2] and free.height() == 10 and free.get_tensor().shape() == [2, 3]


def test_sum_of_selected_rows_merges_rows_and_matches_the_dense_sum():
    scope = core.Scope()
    rng = np.random.RandomState(0)
    a, b = rng.rand(3, 4), rng.rand(2, 4)
    _rows(scope, "a", [4, 1, 4], 6, a)
    _rows(scope, "b", [1, 0], 6, b)
    _rows(scope, "empty", [], 6, rng.rand(3, 4))     # lists no rows: zeros
    out = scope.var("out").get_selected_rows()
    Operator("sum", X=["a", "b", "empty"], Out="out").run(scope, PLACE)
    assert out.rows() == [0, 1, 4] and out.height() == 6      # merged, ascending
    np.testing.assert_allclose(_dense(out.rows(), 6, np.array(out.get_tensor())),
                               _dense([4, 1, 4], 6, a) + _dense([1, 0], 6, b))


def test_sum_with_a_dense_input_is_dense():
    scope = core.Scope()
    rng = np.random.RandomState(1)
    a, d = rng.rand(3, 2), rng.rand(5, 2)
    _rows(scope, "a", [2, 2, 0], 5, a)
    _tensor(scope, "d", d)
    scope.var("out").get_tensor()
    Operator("sum", X=["a", "d"], Out="out").run(scope, PLACE)
    np.testing.assert_allclose(_read(scope, "out"), d + _dense([2, 2, 0], 5, a))


def test_scale_keeps_rows_and_scales_values():
    scope = core.Scope()
    value = np.arange(6.0).reshape(2, 3)
    _rows(scope, "x", [7, 2], 9, value)
    Operator("scale", X="x", Out="x", scale=-2.0, bias=1.0).run(scope, PLACE)
    sr = scope.find_var("x").get_selected_rows()
    assert sr.rows() == [7, 2] and sr.height() == 9
    np.testing.assert_array_equal(np.array(sr.get_tensor()), value * -2.0 + 1.0)


@pytest.mark.parametrize("max_norm", [1.0, 100.0])
def test_clip_by_norm_merges_rows_then_clips_their_norm(max_norm):
    scope = core.Scope()
    value = np.array([[3.0, 1.0], [1.0, 0.0], [2.0, 2.0], [-1.0, 4.0]])
    sr = scope.var("x").get_selected_rows()      # no height set (0), as Paddle's test does
    sr.set_rows([5, 1, 5, 0])
    sr.get_tensor().set(value, PLACE)
    Operator("clip_by_norm", X="x", Out="out", max_norm=max_norm).run(scope, PLACE)
    out = scope.find_var("out").get_selected_rows()
    merged = np.array([[-1.0, 4.0], [1.0, 0.0], [5.0, 3.0]])      # rows 0, 1, 5
    norm = np.sqrt((merged ** 2).sum())
    assert out.rows() == [0, 1, 5]
    np.testing.assert_allclose(np.array(out.get_tensor()),
                               merged * min(1.0, max_norm / norm), rtol=1e-12)


def test_fill_constant_into_a_selected_rows_fills_its_value():
    scope = core.Scope()
    out = scope.var("out").get_selected_rows()
    Operator("fill_constant", shape=[3, 2], value=1.5, Out="out").run(scope, PLACE)
    np.testing.assert_array_equal(np.array(out.get_tensor()), np.full((3, 2), 1.5, "float32"))
    # uniform_random (Paddle 1.8's test_uniform_random_op): the drawn tensor is its value;
    # diag_num sets flat elements i (diag_step + 1) to diag_val; a ShapeTensorList shape
    _tensor(scope, "rows", np.array([40], "int64"))
    _tensor(scope, "cols", np.array([30], "int32"))
    Operator("uniform_random", ShapeTensorList=["rows", "cols"], Out="out", min=-5.0,
             max=10.0, seed=10, diag_num=30, diag_step=30, diag_val=1.0).run(scope, PLACE)
    value = np.array(out.get_tensor())
    assert value.shape == (40, 30) and out.rows() == []
    np.testing.assert_array_equal(np.diag(value), np.ones(30))
    off = value[~np.eye(40, 30, dtype=bool)]
    assert -5.0 <= off.min() and off.max() < 10.0 and abs(off.mean() - 2.5) < 0.5


def test_lookup_table_in_a_selected_rows_table_finds_ids_among_its_rows():
    scope = core.Scope()
    value = np.arange(12.0, dtype="float32").reshape(3, 4)
    _rows(scope, "W", [10, 3, 7], 20, value)
    _tensor(scope, "Ids", np.array([[7], [10], [7]], "int64"))
    Operator("lookup_table", W="W", Ids="Ids", Out="Out").run(scope, PLACE)
    np.testing.assert_array_equal(_read(scope, "Out"), value[[2, 0, 2]])
    # lookup_table_v2: ids of any shape, Out = ids' shape + [width]
    _tensor(scope, "Ids2", np.array([[7, 3], [10, 7]], "int64"))
    Operator("lookup_table_v2", W="W", Ids="Ids2", Out="Out2").run(scope, PLACE)
    np.testing.assert_array_equal(_read(scope, "Out2"), value[[[2, 1], [0, 2]]])
    _tensor(scope, "Ids", np.array([[5]], "int64"))
    with pytest.raises(OpError, match=r"ids \[5\] are not rows"):
        Operator("lookup_table", W="W", Ids="Ids", Out="Out").run(scope, PLACE)


def test_get_tensor_from_selected_rows_is_its_value_as_listed():
    scope = core.Scope()
    value = np.arange(10, dtype="float32").reshape(5, 2)
    _rows(scope, "X", [0, 5, 5, 4, 19], 20, value)
    _tensor(scope, "D", value[:2])
    Operator("get_tensor_from_selected_rows", X="X", Out="Out").run(scope, PLACE)
    Operator("get_tensor_from_selected_rows", X="D", Out="DOut").run(scope, PLACE)
    np.testing.assert_array_equal(_read(scope, "Out"), value)    # duplicates kept
    np.testing.assert_array_equal(_read(scope, "DOut"), value[:2])


def test_sgd_with_sparse_grad_equals_sgd_with_its_dense_grad():
    scope = core.Scope()
    rng = np.random.RandomState(2)
    param, g = rng.rand(6, 3).astype("float32"), rng.rand(3, 3).astype("float32")
    _tensor(scope, "Param", param)
    _tensor(scope, "LearningRate", np.array([0.5], "float32"))
    _rows(scope, "Grad", [4, 0, 4], 6, g)            # a repeated row adds
    Operator("sgd", Param="Param", Grad="Grad", LearningRate="LearningRate",
             ParamOut="Param").run(scope, PLACE)
    np.testing.assert_allclose(_read(scope, "Param"), param - 0.5 * _dense([4, 0, 4], 6, g),
                               rtol=1e-6)


def test_sgd_on_a_selected_rows_param_updates_the_listed_rows():
    scope = core.Scope()
    value = np.arange(8.0, dtype="float32").reshape(4, 2)
    _rows(scope, "Param", [0, 5, 9, 2], 10, value)
    _rows(scope, "Grad", [9, 0], 10, np.ones((2, 2), "float32"))
    _tensor(scope, "LearningRate", np.array([0.25], "float32"))
    Operator("sgd", Param="Param", Grad="Grad", LearningRate="LearningRate",
             ParamOut="Param").run(scope, PLACE)
    expected = value.copy()
    expected[[2, 0]] -= 0.25
    param = scope.find_var("Param").get_selected_rows()
    assert param.rows() == [0, 5, 9, 2]
    np.testing.assert_array_equal(np.array(param.get_tensor()), expected)


def _optimizer_pair(op_type, slots, attrs, rows, seed=3):
    """Run `op_type` once with a SelectedRows Grad and once with its dense grad; the
    outputs of both runs, by slot."""
    rng = np.random.RandomState(seed)
    height, width = 5, 3
    dense_inputs = {s: rng.uniform(0.1, 1, v if v else (height, width)).astype("float32")
                    for s, v in slots.items()}
    g = rng.uniform(-1, 1, (len(rows), width)).astype("float32")
    results = []
    for sparse in (True, False):
        scope = core.Scope()
        for s, v in dense_inputs.items():
            _tensor(scope, s, v)
        if sparse:
            _rows(scope, "Grad", rows, height, g)
        else:
            _tensor(scope, "Grad", _dense(rows, height, g))
        outs = {s + "Out": s for s in dense_inputs if s != "LearningRate"}
        Operator(op_type, Grad="Grad", **{s: s for s in dense_inputs}, **outs,
                 **attrs).run(scope, PLACE)
        results.append({s: _read(scope, s) for s in outs.values()})
    return results, dense_inputs, g


@pytest.mark.parametrize("op_type,slots,attrs", [
    ("momentum", {"Param": None, "Velocity": None, "LearningRate": (1,)}, {"mu": 0.9}),
    ("momentum", {"Param": None, "Velocity": None, "LearningRate": (1,)},
     {"mu": 0.5, "use_nesterov": True}),
    ("lamb", {"Param": None, "Moment1": None, "Moment2": None, "LearningRate": (1,),
              "Beta1Pow": (1,), "Beta2Pow": (1,)}, {"weight_decay": 0.01}),
    ("adagrad", {"Param": None, "Moment": None, "LearningRate": (1,)}, {"epsilon": 2.0}),
    ("rmsprop", {"Param": None, "MeanSquare": None, "Moment": None, "LearningRate": (1,)},
     {"decay": 0.875, "momentum": 0.5}),
    ("rmsprop", {"Param": None, "MeanSquare": None, "MeanGrad": None, "Moment": None,
                 "LearningRate": (1,)}, {"centered": True, "epsilon": 0.25}),
])
def test_update_with_sparse_grad_equals_the_dense_update(op_type, slots, attrs):
    (sparse, dense), _, _ = _optimizer_pair(op_type, slots, attrs, rows=[3, 1, 3])
    for slot in dense:
        np.testing.assert_array_equal(sparse[slot], dense[slot], err_msg=slot)


def test_rmsprop_without_mean_grad_is_the_uncentered_update():
    # Paddle 1.8.5's test_rmsprop_op leaves MeanGrad / MeanGradOut out when not centered
    slots = {"Param": None, "MeanSquare": None, "Moment": None, "LearningRate": (1,)}
    attrs = {"decay": 0.875, "momentum": 0.5, "epsilon": 0.25}
    (sparse, _), given, g = _optimizer_pair("rmsprop", slots, attrs, rows=[3, 1, 3])
    grad = _dense([3, 1, 3], 5, g)
    mean_square = 0.875 * given["MeanSquare"] + 0.125 * grad * grad
    moment = 0.5 * given["Moment"] + given["LearningRate"] * grad / np.sqrt(mean_square + 0.25)
    np.testing.assert_allclose(sparse["MeanSquare"], mean_square, rtol=1e-6)
    np.testing.assert_allclose(sparse["Moment"], moment, rtol=1e-6)
    np.testing.assert_allclose(sparse["Param"], given["Param"] - moment, rtol=1e-6)


def _adam_op(grad_rows, lazy_mode=False, aliased=(True, True)):
    """One adam op on Paddle 1.8.5's measured case: Param ones [4, 2], lr 0.1, Grad the
    SelectedRows of rows [0, 2] (or None: its dense tensor), beta powers 0.9 / 0.999 whose
    outputs are their inputs where `aliased` says so. The scope after it."""
    scope = core.Scope()
    for name, value in (("Param", np.ones((4, 2))), ("Moment1", np.zeros((4, 2))),
                        ("Moment2", np.zeros((4, 2))), ("LearningRate", [0.1]),
                        ("B1", [0.9]), ("B2", [0.999]), ("B1o", [0.0]), ("B2o", [0.0])):
        _tensor(scope, name, np.asarray(value, "float32"))
    g = np.array([[1.0, -2.0], [3.0, 0.5]], "float32")
    if grad_rows:
        _rows(scope, "Grad", [0, 2], 4, g)
    else:
        _tensor(scope, "Grad", _dense([0, 2], 4, g))
    Operator("adam", Param="Param", Grad="Grad", Moment1="Moment1", Moment2="Moment2",
             LearningRate="LearningRate", Beta1Pow="B1", Beta2Pow="B2", ParamOut="Param",
             Moment1Out="Moment1", Moment2Out="Moment2",
             Beta1PowOut="B1" if aliased[0] else "B1o", Beta2PowOut="B2" if aliased[1] else "B2o",
             beta1=0.9, beta2=0.999, epsilon=1e-8, lazy_mode=lazy_mode).run(scope, PLACE)
    return scope


@pytest.mark.parametrize("aliased,param", [
    ((False, False), [0.9000000357627869, 1.100000023841858, 1.0, 1.0, 0.9000000357627869,
                      0.9000000357627869, 1.0, 1.0]),
    ((True, True), [0.9255865812301636, 1.0744134187698364, 1.0, 1.0, 0.9255865812301636,
                    0.9255866408348083, 1.0, 1.0]),
    ((True, False), [0.9473684430122375, 1.0526316165924072, 1.0, 1.0, 0.9473684430122375,
                     0.9473684430122375, 1.0, 1.0]),
    ((False, True), [0.8586145043373108, 1.141385555267334, 1.0, 1.0, 0.8586145043373108,
                     0.8586145639419556, 1.0, 1.0])])
def test_sparse_adam_reads_an_aliased_beta_power_one_step_ahead(aliased, param):
    """Paddle 1.8.5's values (fluid.op.Operator): with a SelectedRows Grad each beta power
    whose output is its input is advanced before the update reads it; the powers advance
    once either way. A dense Grad reads them as they are (the first row)."""
    scope = _adam_op(True, aliased=aliased)
    np.testing.assert_allclose(_read(scope, "Param").ravel(), param, rtol=3e-7)
    for name, given, ahead, alias in (("B1", 0.9, 0.81, aliased[0]),
                                      ("B2", 0.999, 0.998001, aliased[1])):
        np.testing.assert_allclose(_read(scope, name), [ahead if alias else given], rtol=1e-6)
        np.testing.assert_allclose(_read(scope, name + "o"), [0.0 if alias else ahead],
                                   rtol=1e-6)
    dense = _adam_op(False)
    np.testing.assert_allclose(_read(dense, "Param").ravel(),
                               [0.9, 1.1, 1.0, 1.0, 0.9, 0.9, 1.0, 1.0], rtol=1e-6)


def test_lazy_adam_moves_only_the_listed_rows():
    """lazy_mode: the listed rows move as without it (the powers one step ahead in both);
    the others, and their moments, stay."""
    lazy, eager = _adam_op(True, lazy_mode=True), _adam_op(True)
    for slot in ("Param", "Moment1", "Moment2"):
        np.testing.assert_array_equal(_read(lazy, slot)[[0, 2]], _read(eager, slot)[[0, 2]])
    np.testing.assert_array_equal(_read(lazy, "Param")[[1, 3]], 1.0)
    np.testing.assert_array_equal(_read(lazy, "Moment1")[[1, 3]], 0.0)
    np.testing.assert_allclose(_read(lazy, "B1"), [0.81], rtol=1e-6)


def test_lazy_adam_writes_only_the_listed_rows_into_separate_outputs():
    """ParamOut, Moment1Out, Moment2Out other than the inputs: Paddle 1.8.5's lazy kernel
    writes the listed rows there and leaves the rest of those tensors as they were (its
    own test_adam_op's TestSparseAdamOp checks this); the inputs stay unchanged."""
    rng = np.random.RandomState(1)
    height, width, rows = 6, 2, [4, 1]
    inputs = {s: rng.uniform(0.1, 1, (height, width)).astype("float32")
              for s in ("Param", "Moment1", "Moment2")}
    scope = core.Scope()
    for s, v in inputs.items():
        _tensor(scope, s, v)
        _tensor(scope, s + "Out", np.full((height, width), -7.0, "float32"))
    _tensor(scope, "LearningRate", np.array([0.5], "float32"))
    for s in ("Beta1Pow", "Beta2Pow"):
        _tensor(scope, s, np.array([0.9], "float32"))
    g = rng.uniform(-1, 1, (2, width)).astype("float32")
    _rows(scope, "Grad", rows, height, g)
    Operator("adam", Grad="Grad", LearningRate="LearningRate", Beta1Pow="Beta1Pow",
             Beta2Pow="Beta2Pow", **{s: s for s in inputs},
             **{s + "Out": s + "Out" for s in inputs}, lazy_mode=True,
             beta1=0.9, beta2=0.999, epsilon=1e-8).run(scope, PLACE)
    m1 = 0.9 * inputs["Moment1"][rows] + 0.1 * g
    m2 = 0.999 * inputs["Moment2"][rows] + 0.001 * g * g
    lr = 0.5 * np.sqrt(1 - 0.9) / (1 - 0.9)
    param = inputs["Param"][rows] - lr * m1 / (np.sqrt(m2) + 1e-8 * np.sqrt(1 - 0.9))
    for slot, moved in (("Param", param), ("Moment1", m1), ("Moment2", m2)):
        out = _read(scope, slot + "Out")
        np.testing.assert_allclose(out[rows], moved, rtol=1e-5, err_msg=slot)
        untouched = [r for r in range(height) if r not in rows]
        np.testing.assert_array_equal(out[untouched], -7.0)
        np.testing.assert_array_equal(_read(scope, slot), inputs[slot])


def test_an_op_without_a_selected_rows_rule_says_so():
    scope = core.Scope()
    _rows(scope, "x", [0], 2, np.ones((1, 2)))
    with pytest.raises(TypeError, match="relu.*on SelectedRows"):
        Operator("relu", X="x", Out="y").run(scope, PLACE)


def test_inconsistent_selected_rows_is_refused():
    scope = core.Scope()
    _rows(scope, "a", [0, 1, 2], 4, np.ones((2, 3)))
    scope.var("out").get_selected_rows()
    with pytest.raises(ValueError, match="lists 3 rows but its value has shape"):
        Operator("sum", X=["a"], Out="out").run(scope, PLACE)


# -- is_sparse embeddings: W@GRAD a SelectedRows consumed by the optimizer

def _embedding_program(is_sparse, make_optimizer, padding_idx=None):
    from refimpl import fluid
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        ids = fluid.data("ids", [4, 1], "int64")
        table = np.arange(12, dtype="float32").reshape(6, 2)
        emb = fluid.layers.embedding(
            ids, size=[6, 2], is_sparse=is_sparse, padding_idx=padding_idx,
            param_attr=fluid.ParamAttr(
                name="w", initializer=fluid.initializer.NumpyArrayInitializer(table)))
        weights = fluid.layers.assign(np.array([[1, 2], [3, 4], [5, 6], [7, 8]], "float32"))
        loss = fluid.layers.reduce_sum(emb * weights)
        make_optimizer().minimize(loss)
    return main, startup


def _train(main, startup, steps=2):
    from refimpl import fluid
    exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
    exe.run(startup, scope=scope)
    for _ in range(steps):
        exe.run(main, feed={"ids": np.array([[1], [2], [1], [4]], "int64")}, scope=scope)
    return np.array(scope.find_var("w").get_tensor())



@pytest.fixture
def legacy_ir():
    """A static program's sparse gradients stay SelectedRows only in the legacy IR under 3
    (3.3.1's PIR embedding_grad is dense: switch static_sparse_gradients)."""
    with OldIrGuard():
        yield

@pytest.mark.usefixtures("legacy_ir")
def test_sparse_embedding_sgd_matches_paddle_1_8_5():
    """Paddle 1.8.5, the same program, one step: W@GRAD is SELECTED_ROWS and the
    padding_idx row (2) is updated too (its sparse gradient lists every id)."""
    from refimpl import fluid
    main, startup = _embedding_program(True, lambda: fluid.optimizer.SGD(0.1), padding_idx=2)
    assert main.global_block().var("w@GRAD").type == "SELECTED_ROWS"
    np.testing.assert_allclose(_train(main, startup, steps=1), [
        [0.0, 1.0], [1.4, 2.1999998], [3.7, 4.6], [6.0, 7.0], [7.3, 8.2], [10.0, 11.0]],
        rtol=1e-6)
    exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
    exe.run(startup, scope=scope)
    with pytest.raises(TypeError, match="'w@GRAD': it is a SelectedRows"):
        exe.run(main, feed={"ids": np.array([[1], [2], [1], [4]], "int64")},
                fetch_list=["w@GRAD"], scope=scope)


@pytest.mark.parametrize("make", [
    lambda f: f.optimizer.SGD(0.1),
    lambda f: f.optimizer.Momentum(0.1, momentum=0.9),
    lambda f: f.optimizer.Momentum(0.1, momentum=0.9, use_nesterov=True),
    lambda f: f.optimizer.Adagrad(0.1),
    lambda f: f.optimizer.RMSProp(0.1, momentum=0.5),
    lambda f: f.optimizer.Lamb(0.1)])
def test_sparse_embedding_updates_equal_the_dense_ones(make):
    from refimpl import fluid
    sparse = _train(*_embedding_program(True, lambda: make(fluid)))
    dense = _train(*_embedding_program(False, lambda: make(fluid)))
    np.testing.assert_allclose(sparse, dense, rtol=1e-6)


@pytest.mark.usefixtures("legacy_ir")
def test_sparse_embedding_lazy_adam_moves_only_the_looked_up_rows():
    """numpy: two steps of Adam on rows 1 (ids twice: gradients summed) and 2, 4, the beta
    powers read one step ahead (beta^(t+1) at step t, as Paddle's sparse kernel reads them);
    the other rows (and their moments) stay as they were."""
    from refimpl import fluid
    main, startup = _embedding_program(True, lambda: fluid.optimizer.Adam(0.1,
                                                                           lazy_mode=True))
    got = _train(main, startup)
    w = np.arange(12, dtype="float64").reshape(6, 2)
    g = np.zeros_like(w)
    np.add.at(g, [1, 2, 1, 4], [[1, 2], [3, 4], [5, 6], [7, 8]])
    m1, m2 = np.zeros_like(w), np.zeros_like(w)
    rows = [1, 2, 4]
    for t in (2, 3):
        m1[rows] = 0.9 * m1[rows] + 0.1 * g[rows]
        m2[rows] = 0.999 * m2[rows] + 0.001 * g[rows] ** 2
        lr = 0.1 * np.sqrt(1 - 0.999 ** t) / (1 - 0.9 ** t)
        w[rows] -= lr * m1[rows] / (np.sqrt(m2[rows]) + 1e-8 * np.sqrt(1 - 0.999 ** t))
    np.testing.assert_allclose(got, w, rtol=1e-5)
    np.testing.assert_array_equal(got[[0, 3, 5]], [[0, 1], [6, 7], [10, 11]])


def test_sparse_embedding_gradient_stays_dense_where_refimpl_reads_it_as_a_tensor():
    """L2 regularization reads W@GRAD with other ops: it stays a dense tensor (the same
    update)."""
    from refimpl import fluid
    make = lambda: fluid.optimizer.SGD(0.1, regularization=fluid.regularizer.L2Decay(0.5))  # noqa: E731
    main, startup = _embedding_program(True, make)
    assert main.global_block().var("w@GRAD").type == "LOD_TENSOR"
    np.testing.assert_allclose(_train(main, startup),
                               _train(*_embedding_program(False, make)), rtol=1e-6)


@pytest.mark.usefixtures("legacy_ir")
def test_sparse_embedding_under_data_parallel_is_reduced_dense():
    """Two places: the gradient is all-reduced as a dense tensor; the update equals the
    one-place run on the whole batch (loss: the mean of the 4 x 2 looked-up values)."""
    from refimpl import fluid
    main, startup = fluid.Program(), fluid.Program()
    table = np.arange(12, dtype="float32").reshape(6, 2)
    with fluid.program_guard(main, startup):
        ids = fluid.data("ids", [-1, 1], "int64")
        emb = fluid.layers.embedding(ids, size=[6, 2], is_sparse=True, param_attr=fluid.ParamAttr(
            name="w", initializer=fluid.initializer.NumpyArrayInitializer(table)))
        loss = fluid.layers.mean(emb)
        fluid.optimizer.SGD(0.1).minimize(loss)
    exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
    exe.run(startup, scope=scope)
    compiled = fluid.CompiledProgram(main).with_data_parallel(
        loss_name=loss.name, places=[fluid.CPUPlace()] * 2)
    exe.run(compiled, feed={"ids": np.array([[1], [2], [1], [4]], "int64")}, scope=scope)
    assert main.global_block().var("w@GRAD").type == "SELECTED_ROWS"   # (a clone reduced)
    g = np.zeros_like(table)
    np.add.at(g, [1, 2, 1, 4], 1.0 / 8)
    np.testing.assert_allclose(np.array(scope.find_var("w").get_tensor()), table - 0.1 * g,
                               rtol=1e-6)


def test_rules_run_on_host_copies_on_a_gpu(monkeypatch):
    """On a GPU the rules (numpy code) get host copies and their results, SelectedRows
    values included, go back to the device (here a stand-in device: a wrapper class)."""
    from refimpl.executor import executor as executor_module
    from refimpl.framework.selected_rows import RowsValue

    class OnDevice:
        def __init__(self, a):
            self.a = a
    monkeypatch.setattr(executor_module, "to_host",
                        lambda v: v.a if isinstance(v, OnDevice) else v)
    monkeypatch.setattr(executor_module, "to_device", OnDevice)
    seen = []

    def rule(w, grad, out_buffers=(None,), scale=1.0):
        seen.extend([type(w), type(grad.value), type(out_buffers[0]), scale])
        return RowsValue(grad.rows, grad.height, grad.value * scale), w
    rows, w = executor_module._host_staged(rule)(
        OnDevice(np.ones(2)), RowsValue((1,), 3, OnDevice(np.ones((1, 2)))),
        out_buffers=(OnDevice(np.zeros(2)),), scale=2.0)
    assert seen == [np.ndarray, np.ndarray, np.ndarray, 2.0]
    assert rows.rows == (1,) and isinstance(rows.value, OnDevice) and isinstance(w, OnDevice)
    np.testing.assert_array_equal(rows.value.a, [[2.0, 2.0]])


def test_shape_of_selected_rows_is_its_value_tensors():
    # [listed rows, row width], not the height (2.0's test_shape_op)
    scope = core.Scope()
    _rows(scope, "x", [0, 1, 5, 4, 19], 20, np.ones((5, 2), "float32"))
    out = scope.var("out").get_tensor()
    Operator("shape", Input="x", Out="out").run(scope, PLACE)
    assert np.array(out).tolist() == [5, 2]
