"""Optimizers on an is_sparse / sparse embedding's gradient, which Paddle keeps as a
SelectedRows (specs/selected_rows.md#optimizers): Adam reads the beta powers one step
ahead, static and eager, against the values Paddle 1.8.5 and 3.3.1 gave for the same
programs; the optimizers whose ops take no SelectedRows refuse it."""
import numpy as np
import pytest

import refimpl as paddle
from refimpl import fluid
from refimpl.pir_utils import OldIrGuard

# ids of the three steps: rows 0 (twice) and 2, then 1 and 2, then 0 and 2 again; the loss
# weighs each looked-up row by [1, -2] (times SCALE)
FEEDS = [np.array(ids, "int64").reshape(-1, 1) for ids in ([0, 2, 0], [1, 2], [0, 2, 0])]
WEIGHTS = np.array([[1.0, -2.0]], "float32")

# Paddle 1.8.5, a [4, 2] table of ones, Adam(0.1), static and dygraph alike: the table
# after each step
PADDLE_18 = {
    False: [[0.9255865812301636, 1.0744134187698364, 1.0, 1.0, 0.9255865812301636,
             1.0744134187698364, 1.0, 1.0],
            [0.8680649995803833, 1.1319350004196167, 0.9361190795898438, 1.0638809204101562,
             0.8397409319877625, 1.1602591276168823, 1.0, 1.0],
            [0.7936515808105469, 1.2063484191894531, 0.8837915062904358, 1.1162084341049194,
             0.7487713098526001, 1.2512288093566895, 1.0, 1.0]],
    True: [[0.9255865812301636, 1.0744134187698364, 1.0, 1.0, 0.9255865812301636,
            1.0744134187698364, 1.0, 1.0],
           [0.9255865812301636, 1.0744134187698364, 0.9361190795898438, 1.0638809204101562,
            0.8397409319877625, 1.1602591276168823, 1.0, 1.0],
           [0.847492516040802, 1.1525074243545532, 0.9361190795898438, 1.0638809204101562,
            0.7487713098526001, 1.2512288093566895, 1.0, 1.0]]}
# the dense gradient's first step
DENSE_18 = [0.8999999761581421, 1.100000023841858, 1.0, 1.0, 0.9000000357627869,
            1.100000023841858, 1.0, 1.0]
# Paddle 3.3.1, paddle.nn.Embedding(4, 2, sparse=True) in dynamic mode, gradients 1e-9
# times the above: epsilon (scaled by sqrt(1 - beta2^t) for the listed rows, unscaled for
# the others without lazy_mode) decides the steps
PADDLE_3_TINY = {
    False: [[0.9907782077789307, 1.016409993171692, 1.0, 1.0, 0.9950845241546631,
             1.0092217922210693, 1.0, 1.0],
            [0.9904168844223022, 1.0171281099319458, 0.9965114593505859, 1.0066157579421997,
             0.9886028170585632, 1.0212751626968384, 1.0, 1.0],
            [0.9811950325965881, 1.0335381031036377, 0.9963465929031372, 1.0069444179534912,
             0.981350839138031, 1.0347082614898682, 1.0, 1.0]],
    True: [[0.9907782077789307, 1.016409993171692, 1.0, 1.0, 0.9950845241546631,
            1.0092217922210693, 1.0, 1.0],
           [0.9907782077789307, 1.016409993171692, 0.9965114593505859, 1.0066157579421997,
            0.9886028170585632, 1.0212751626968384, 1.0, 1.0],
           [0.9810981154441833, 1.0336350202560425, 0.9965114593505859, 1.0066157579421997,
            0.981350839138031, 1.0347082614898682, 1.0, 1.0]]}
ATOL = 3e-7      # float32 rounding


def _static_steps(is_sparse, make_optimizer, scale=1.0):
    """The fluid 1.8 program: the table after each step, and the program."""
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        ids = fluid.data("ids", [None, 1], "int64")
        emb = fluid.embedding(ids, size=[4, 2], is_sparse=is_sparse, param_attr=fluid.ParamAttr(
            name="w", initializer=fluid.initializer.Constant(1.0)))
        loss = fluid.layers.reduce_sum(emb * fluid.layers.assign(WEIGHTS * scale))
        make_optimizer().minimize(loss)
    exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
    exe.run(startup, scope=scope)
    tables = []
    for feed in FEEDS:
        exe.run(main, feed={"ids": feed}, scope=scope)
        tables.append(np.array(scope.find_var("w").get_tensor()).ravel())
    return tables, main, scope


def _eager_steps(make_layer, make_optimizer, scale=1.0, extra_loss=None):
    emb = make_layer()
    opt = make_optimizer(emb.parameters())
    tables = []
    for feed in FEEDS:
        loss = paddle.sum(emb(paddle.to_tensor(feed)) * paddle.to_tensor(WEIGHTS * scale))
        if extra_loss is not None:
            loss = loss + extra_loss(emb.weight)
        loss.backward()
        opt.step()
        opt.clear_grad()
        tables.append(emb.weight.numpy().ravel())
    return tables


@pytest.mark.paddle("1.8")
@pytest.mark.parametrize("lazy_mode", [False, True])
def test_static_sparse_adam_as_paddle_1_8(lazy_mode):
    tables, main, scope = _static_steps(True, lambda: fluid.optimizer.Adam(
        0.1, lazy_mode=lazy_mode))
    assert main.global_block().var("w@GRAD").type == "SELECTED_ROWS"
    np.testing.assert_allclose(tables, PADDLE_18[lazy_mode], atol=ATOL)
    power = [v.name for v in main.list_vars() if "beta1_pow" in v.name][0]
    np.testing.assert_allclose(np.array(scope.find_var(power).get_tensor()), [0.9 ** 4],
                               rtol=1e-6)
    dense = _static_steps(False, lambda: fluid.optimizer.Adam(0.1, lazy_mode=lazy_mode))[0]
    np.testing.assert_allclose(dense[0], DENSE_18, atol=ATOL)


@pytest.mark.paddle("1.8")
@pytest.mark.parametrize("lazy_mode", [False, True])
def test_dygraph_sparse_adam_as_paddle_1_8(lazy_mode):
    with fluid.dygraph.guard():
        tables = _eager_steps(
            lambda: fluid.dygraph.Embedding([4, 2], is_sparse=True, param_attr=fluid.ParamAttr(
                initializer=fluid.initializer.Constant(1.0))),
            lambda params: fluid.optimizer.Adam(0.1, lazy_mode=lazy_mode,
                                                parameter_list=params))
    np.testing.assert_allclose(tables, PADDLE_18[lazy_mode], atol=ATOL)


def _paddle3_embedding(sparse=True):
    return paddle.nn.Embedding(4, 2, sparse=sparse, weight_attr=paddle.ParamAttr(
        initializer=paddle.nn.initializer.Constant(1.0)))


@pytest.mark.paddle("3")
@pytest.mark.parametrize("lazy_mode", [False, True])
def test_eager_sparse_adam_epsilon_as_paddle_3(lazy_mode):
    """Tiny gradients: the listed rows' epsilon is scaled (adam_epsilon), the others' not."""
    with fluid.dygraph.guard():
        tables = _eager_steps(_paddle3_embedding, lambda params: paddle.optimizer.Adam(
            0.1, parameters=params, lazy_mode=lazy_mode), scale=1e-9)
    np.testing.assert_allclose(tables, PADDLE_3_TINY[lazy_mode], atol=ATOL)


@pytest.mark.paddle("3")
def test_a_dense_contribution_makes_the_eager_gradient_dense():
    """The table also read densely (its sum in the loss): Paddle adds the SelectedRows into
    a dense gradient, and Adam runs its dense update, as for sparse=False."""
    def run(sparse):
        with fluid.dygraph.guard():
            return _eager_steps(lambda: _paddle3_embedding(sparse), lambda params:
                                paddle.optimizer.Adam(0.1, parameters=params),
                                extra_loss=lambda w: paddle.sum(w) * 0.5)
    np.testing.assert_array_equal(run(True), run(False))


@pytest.mark.paddle("3")
def test_paddle_3_static_programs_keep_sparse_gradients_only_under_the_old_ir():
    """Paddle 3.3.1's PIR embedding_grad ignores sparse (FLAGS_enable_pir_api, on by
    default): the dense update; under OldIrGuard a SelectedRows, one step ahead."""
    def steps():
        with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):
            return _static_steps(True, lambda: paddle.optimizer.Adam(0.1))
    tables, main, _ = steps()
    assert main.global_block().var("w@GRAD").type == "LOD_TENSOR"
    np.testing.assert_allclose(tables[0], DENSE_18, atol=ATOL)
    with OldIrGuard():
        tables, main, _ = steps()
    assert main.global_block().var("w@GRAD").type == "SELECTED_ROWS"
    np.testing.assert_allclose(tables[0], PADDLE_18[False][0], atol=ATOL)


@pytest.mark.paddle("1.8")
@pytest.mark.parametrize("name", ["Adamax", "Ftrl", "DecayedAdagrad", "Adadelta", "Dpsgd"])
def test_optimizers_without_a_selected_rows_kernel_refuse_one(name):
    """Paddle 1.8.5 refuses these when minimize builds the update (InvalidArgumentError:
    "The input var's type should be LoDTensor"), in static and dygraph mode."""
    match = "gradient 'w@GRAD' of parameter 'w' is a SelectedRows"
    with pytest.raises(TypeError, match=match):
        _static_steps(True, lambda: getattr(fluid.optimizer, name)(0.1))
    with np.errstate(all="ignore"):    # (Ftrl divides 0 by 0 on rows never looked up)
        _static_steps(False, lambda: getattr(fluid.optimizer, name)(0.1))   # dense: fine
    with fluid.dygraph.guard(), pytest.raises(TypeError, match="is a SelectedRows"):
        _eager_steps(lambda: fluid.dygraph.Embedding([4, 2], is_sparse=True),
                     lambda params: getattr(fluid.optimizer, name)(0.1, parameter_list=params))


@pytest.mark.paddle("3")
def test_eager_clipping_keeps_the_rows_weight_decay_is_refused():
    """Paddle 3.3.1 (dynamic mode): ClipGradByGlobalNorm(1.0) clips the SelectedRows, and
    Adam still reads the powers one step ahead (its values below); Adam with a weight_decay
    raises its RuntimeError for a sparse gradient."""
    clipped = [[0.9255865812301636, 1.0744134187698364, 1.0, 1.0, 0.9255865812301636,
                1.0744134187698364, 1.0, 1.0],
               [0.8680649995803833, 1.1319350004196167, 0.9361190795898438, 1.0638809204101562,
                0.8408540487289429, 1.1591459512710571, 1.0, 1.0],
               [0.7936515212059021, 1.2063484191894531, 0.8837915658950806, 1.1162084341049194,
                0.7522424459457397, 1.2477575540542603, 1.0, 1.0]]
    with fluid.dygraph.guard():
        tables = _eager_steps(_paddle3_embedding, lambda params: paddle.optimizer.Adam(
            0.1, parameters=params, grad_clip=paddle.nn.ClipGradByGlobalNorm(1.0)))
        np.testing.assert_allclose(tables, clipped, atol=ATOL)
        with pytest.raises(RuntimeError, match="Adam don't support weight_decay with sparse"):
            _eager_steps(_paddle3_embedding, lambda params: paddle.optimizer.Adam(
                0.1, parameters=params, weight_decay=0.01))


@pytest.mark.paddle("1.8")
def test_paddle_1_8_regularization_makes_the_gradient_dense():
    """fluid's Adam with L2Decay (1.8.5 static: the sparse run gives the dense run's values,
    the decay being added to every row): the regularized dense update, static and eager."""
    make = lambda: fluid.optimizer.Adam(0.1, regularization=fluid.regularizer.L2Decay(0.5))  # noqa: E731
    sparse, dense = _static_steps(True, make)[0], _static_steps(False, make)[0]
    np.testing.assert_array_equal(sparse, dense)
    np.testing.assert_allclose(dense[0], [0.9, 1.1, 0.9, 0.9, 0.9, 1.1, 0.9, 0.9], atol=ATOL)
    with fluid.dygraph.guard():
        eager = _eager_steps(
            lambda: fluid.dygraph.Embedding([4, 2], is_sparse=True, param_attr=fluid.ParamAttr(
                initializer=fluid.initializer.Constant(1.0))),
            lambda params: fluid.optimizer.Adam(0.1, parameter_list=params,
                                                regularization=fluid.regularizer.L2Decay(0.5)))
    np.testing.assert_allclose(eager, dense, atol=ATOL)


# Paddle 1.8.5, the static program with Adam(0.1, grad_clip=...): the clipped gradient is a
# SelectedRows too (GlobalNorm and Norm give the same tables here, rows 0 and 2 clipped to
# norm 1 differently from Value's 0.5 bound)
CLIPPED_18 = {
    "global_norm": [[0.9255866408348083, 1.0744134187698364, 1.0, 1.0, 0.9255867004394531,
                     1.0744134187698364, 1.0, 1.0],
                    [0.8680651187896729, 1.1319350004196167, 0.9361191391944885,
                     1.0638809204101562, 0.8408542275428772, 1.1591459512710571, 1.0, 1.0],
                    [0.7936517000198364, 1.2063484191894531, 0.8837916254997253,
                     1.1162084341049194, 0.7522426843643188, 1.2477575540542603, 1.0, 1.0]],
    "value": [[0.9255866408348083, 1.0744134187698364, 1.0, 1.0, 0.9255866408348083,
               1.0744134187698364, 1.0, 1.0],
              [0.8680650591850281, 1.1319350004196167, 0.9361191391944885, 1.0638809204101562,
               0.8397409915924072, 1.1602590084075928, 1.0, 1.0],
              [0.7936516404151917, 1.2063484191894531, 0.8837916254997253, 1.1162084341049194,
               0.7487713694572449, 1.2512286901474, 1.0, 1.0]]}


@pytest.mark.paddle("1.8")
@pytest.mark.parametrize("clip,want", [
    (lambda: fluid.clip.GradientClipByGlobalNorm(1.0), "global_norm"),
    (lambda: fluid.clip.GradientClipByNorm(1.0), "global_norm"),
    (lambda: fluid.clip.GradientClipByValue(0.5), "value")])
def test_static_clipping_passes_the_selected_rows_on(clip, want):
    tables, main, _ = _static_steps(True, lambda: fluid.optimizer.Adam(0.1, grad_clip=clip()))
    adam = [op for op in main.global_block().ops if op.type == "adam"][0]
    assert main.global_block().var(adam.input("Grad")[0]).type == "SELECTED_ROWS"
    np.testing.assert_allclose(tables, CLIPPED_18[want], atol=ATOL)


@pytest.mark.paddle("1.8")
def test_a_table_looked_up_twice_sums_selected_rows():
    """Two is_sparse lookups of one table (ids [0, 2] and [2, 1 + step], the second weighed
    by 0.5), Adam(0.1), two steps: Paddle 1.8.5 sums the two SelectedRows into one, and
    Adam reads the powers one step ahead (the dense run: 0.8000004 for row 0)."""
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        attr = fluid.ParamAttr(name="w", initializer=fluid.initializer.Constant(1.0))
        looked_up = [fluid.embedding(fluid.data(name, [None, 1], "int64"), size=[4, 2],
                                     is_sparse=True, param_attr=attr) for name in ("a", "b")]
        weights = fluid.layers.assign(WEIGHTS)
        loss = fluid.layers.reduce_sum(looked_up[0] * weights) + \
            fluid.layers.reduce_sum(looked_up[1] * weights * 0.5)
        fluid.optimizer.Adam(0.1).minimize(loss)
    assert main.global_block().var("w@GRAD").type == "SELECTED_ROWS"
    exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
    exe.run(startup, scope=scope)
    for step in range(2):
        exe.run(main, feed={"a": np.array([[0], [2]], "int64"),
                            "b": np.array([[2], [1 + step]], "int64")}, scope=scope)
    np.testing.assert_allclose(np.array(scope.find_var("w").get_tensor()).ravel(), [
        0.8397409319877625, 1.1602591276168823, 0.8680650591850281, 1.1319350004196167,
        0.8399707674980164, 1.1600292921066284, 1.0, 1.0], atol=ATOL)


def _ftrl_on_rows(rows, grad_rows):
    """Run the ftrl op with a SelectedRows Grad on a [5, 2] Param; the dense ftrl kernel on
    the same rows gives the expected values."""
    from refimpl.fluid import core
    from refimpl.fluid.op import Operator
    place, scope = core.CPUPlace(), core.Scope()
    param = np.arange(10, dtype="float32").reshape(5, 2) / 10
    squared, linear = np.full((5, 2), 0.1, "float32"), np.full((5, 2), 0.2, "float32")
    lr = np.array([0.01], "float32")
    for name, value in (("P", param), ("S", squared), ("L", linear), ("LR", lr)):
        scope.var(name).get_tensor().set(value, place)
    grad = scope.var("G").get_selected_rows()
    grad.set_height(5)
    grad.set_rows(rows)
    grad.get_tensor().set(grad_rows, place)
    attrs = {"l1": 0.1, "l2": 0.2, "lr_power": -0.5}
    Operator("ftrl", Param="P", Grad="G", ParamOut="P", SquaredAccumulator="S",
             SquaredAccumOut="S", LinearAccumulator="L", LinearAccumOut="L",
             LearningRate="LR", **attrs).run(scope, place)
    got = [np.array(scope.find_var(n).get_tensor()) for n in ("P", "S", "L")]
    return (param, squared, linear, lr, attrs), got


@pytest.mark.paddle("2.0")
def test_ftrl_updates_only_the_rows_of_a_selected_rows_grad():
    # Paddle 2.0's sparse ftrl (its test_ftrl_op's TestSparseFTRLOp): rows merged (row 3
    # listed twice adds up), those rows updated as the dense kernel updates them, the rest
    # kept; Paddle 1.8.5 refuses the SelectedRows (switch ftrl_selected_rows)
    from refimpl.ops.registry import get_op_def
    grad_rows = np.array([[1.0, -1.0], [0.5, 0.5], [0.25, 2.0]], "float32")
    (param, squared, linear, lr, attrs), got = _ftrl_on_rows([3, 0, 3], grad_rows)
    merged = np.array([[0.5, 0.5], [1.25, 1.0]], "float32")      # rows 0 and 3
    want = get_op_def("ftrl").forward(param[[0, 3]].copy(), squared[[0, 3]].copy(),
                                      linear[[0, 3]].copy(), merged, lr, **attrs)
    for out, before, rows_want in zip(got, (param, squared, linear), want):
        np.testing.assert_array_equal(out[[1, 2, 4]], before[[1, 2, 4]])
        np.testing.assert_allclose(out[[0, 3]], rows_want, rtol=1e-6)
    assert not np.allclose(got[0][[0, 3]], param[[0, 3]])


@pytest.mark.paddle("1.8")
def test_ftrl_refuses_a_selected_rows_grad_under_18():
    with pytest.raises(Exception, match="ftrl op takes no SelectedRows Grad"):
        _ftrl_on_rows([0], np.ones((1, 2), "float32"))


def test_eager_sparse_lookup_gradients_equal_the_dense_ones_bit_for_bit():
    """An is_sparse table's eager gradient travels as its rows and is made dense once, when
    the table's contributions are summed (autograd's _RowsGrad): the same float32 values as
    the dense lookup's scatter-adds summed, with repeated ids, padding_idx, three lookups
    and a dense use of the table in one loss; the rows listed are every lookup's ids."""
    rng = np.random.RandomState(3)
    table = rng.randn(50, 4).astype("float32")
    ids = [np.array([[3, 7, 3], [0, 3, 49]], "int64"), np.array([7, 7, 2], "int64"),
           np.array([[5], [3]], "int64")]
    weights = [rng.randn(*(i.shape + (4,))).astype("float32") for i in ids]

    def grad(sparse):
        paddle.disable_static()
        emb = paddle.nn.Embedding(50, 4, padding_idx=2, sparse=sparse)
        emb.weight.set_value(table)
        loss = paddle.sum(paddle.matmul(emb.weight, emb.weight, transpose_y=True)) * 1e-3
        for i, w in zip(ids, weights):
            loss = loss + paddle.sum(emb(paddle.to_tensor(i)) * paddle.to_tensor(w))
        loss.backward()
        return emb.weight

    dense, sparse = grad(False), grad(True)
    assert dense._grad_rows is None and sparse._grad_rows is None   # the matmul: dense
    np.testing.assert_array_equal(np.asarray(sparse.grad), np.asarray(dense.grad))
    expected = 2e-3 * table.sum(0, keepdims=True).repeat(50, 0).astype("float64")
    for i, w in zip(ids, weights):
        np.add.at(expected, i.reshape(-1), w.reshape(-1, 4) * (i.reshape(-1, 1) != 2))
    np.testing.assert_allclose(np.asarray(sparse.grad), expected, rtol=1e-5, atol=1e-5)

    paddle.disable_static()
    emb = paddle.nn.Embedding(50, 4, sparse=True)
    (paddle.sum(emb(paddle.to_tensor(ids[0]))) + paddle.sum(emb(paddle.to_tensor(ids[1])))
     ).backward()
    assert sorted(emb.weight._grad_rows) == sorted([3, 7, 3, 0, 3, 49, 7, 7, 2])
    counts = np.bincount(np.concatenate([ids[0].ravel(), ids[1]]), minlength=50)
    np.testing.assert_array_equal(np.asarray(emb.weight.grad), np.repeat(counts[:, None], 4, 1))
