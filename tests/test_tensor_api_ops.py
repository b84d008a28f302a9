"""paddle.* tensor functions added for the 2.0 API (cumsum ... median) and their fluid.layers
1.8 forms: the programs they build compute what numpy computes; composed ones (norm, std,
var, median) get gradients that match finite differences; bad arguments fail clearly."""
import warnings

import numpy as np
import pytest

import refimpl as paddle
from refimpl import fluid, static, versions
from refimpl.framework.errors import OpError
from helpers import central_differences

RNG = np.random.RandomState(0)


def _run(fetch, feed=None):
    exe = static.Executor()
    exe.run(static.default_startup_program())
    return exe.run(static.default_main_program(), feed=feed or {}, fetch_list=fetch)


def _check(outs, wants, feed, rtol=1e-6, atol=1e-6):
    for i, (g, w) in enumerate(zip(_run(outs, feed), wants)):
        w = np.asarray(w)
        assert np.shape(g) == w.shape, "output %d: shape %s, want %s" % (i, np.shape(g), w.shape)
        np.testing.assert_allclose(g, w, rtol=rtol, atol=atol, err_msg="output %d" % i)


def _data(name, a):
    return static.data(name, list(a.shape), a.dtype.name)


def test_cumsum_flip_roll_tril_triu_match_numpy():
    a = RNG.rand(3, 4).astype("float32")
    x = _data("x", a)
    outs = [paddle.cumsum(x), paddle.cumsum(x, axis=0), paddle.cumsum(x, 1, dtype="float64"),
            fluid.layers.cumsum(x, exclusive=True), fluid.layers.cumsum(x, 0, reverse=True),
            paddle.flip(x, [0, 1]), fluid.layers.reverse(x, 1),
            paddle.roll(x, 1), paddle.roll(x, [1, -1], [0, 1]),
            paddle.tril(x), paddle.triu(x, 1), paddle.tril(x, -1)]
    excl = np.cumsum(a, 1) - a
    rev = np.flip(np.cumsum(np.flip(a, 0), 0), 0)
    wants = [np.cumsum(a), np.cumsum(a, 0), np.cumsum(a, 1), excl, rev, a[::-1, ::-1],
             a[:, ::-1], np.roll(a, 1), np.roll(a, [1, -1], [0, 1]), np.tril(a),
             np.triu(a, 1), np.tril(a, -1)]
    assert outs[2].dtype.name == "float64"
    _check(outs, wants, {"x": a})


def test_fluid_reverse_is_the_reverse_op_of_rank_up_to_6():
    # Paddle 1.8.5's reverse kernel refuses rank 7 when it runs (its test_reverse_op)
    x = fluid.layers.data("x", [1] * 8, "int64")          # declared rank 9, fed unchecked
    out = fluid.layers.reverse(x, axis=[-1, -2])
    assert static.default_main_program().global_block().ops[-1].type == "reverse"
    a = np.arange(60).reshape([10, 1, 1, 1, 2, 3])
    _check([out], [a[..., ::-1, ::-1]], {"x": a})
    with pytest.raises(ValueError, match="X has rank 7 .*takes ranks up to 6") as raised:
        _run([out], {"x": a[..., None]})
    assert isinstance(raised.value, IndexError)     # Paddle 2.0's OutOfRange


@pytest.mark.paddle("3")   # Paddle 3's 0-D results and integer floor division;
# the 1.8 / 2.0 rules are in tests/test_versions.py
def test_diag_eye_trace_kron_cross():
    v, m = RNG.rand(3).astype("float32"), RNG.rand(3, 4).astype("float32")
    c1, c2 = RNG.rand(2, 3).astype("float32"), RNG.rand(2, 3).astype("float32")
    xv, xm, y1, y2 = _data("v", v), _data("m", m), _data("c1", c1), _data("c2", c2)
    outs = [paddle.diag(xv), paddle.diag(xv, 1, padding_value=9), paddle.diag(xm, -1),
            fluid.layers.diag(np.array([1.0, 2.0], "float32")),
            paddle.eye(2, 3, "int64"), fluid.layers.eye(2, batch_shape=[2]),
            paddle.trace(xm, 1), paddle.kron(xv, xm), paddle.cross(y1, y2),
            paddle.cross(y1, y2, axis=1)]
    d1 = np.full((4, 4), 9.0)
    d1[np.arange(3), np.arange(3) + 1] = v
    wants = [np.diag(v), d1, np.diagonal(m, -1), np.diag([1.0, 2.0]), np.eye(2, 3),
             np.stack([np.eye(2)] * 2), np.trace(m, 1), np.kron(v, m), np.cross(c1, c2),
             np.cross(c1, c2)]
    _check(outs, wants, {"v": v, "m": m, "c1": c1, "c2": c2})


def test_indexing_layers_match_numpy():
    a = RNG.rand(4, 5).astype("float32")
    x = _data("x", a)
    idx = static.data("idx", [3], "int64")
    rows = static.data("rows", [4, 2], "int64")
    nd = static.data("nd", [2, 2], "int64")
    mask = static.data("mask", [4, 5], "bool")
    upd = static.data("upd", [2], "float32")
    feed = {"x": a, "idx": np.array([4, 0, 4]), "rows": RNG.randint(0, 5, (4, 2)),
            "nd": np.array([[1, 2], [1, 2]]), "mask": a > 0.5,
            "upd": np.array([1.0, 2.0], "float32")}
    outs = [paddle.index_select(x, idx, axis=1), paddle.index_sample(x, rows),
            paddle.gather_nd(x, nd), paddle.scatter_nd_add(x, nd, upd),
            paddle.scatter_nd(nd, upd, [2, 3]), paddle.masked_select(x, mask),
            paddle.strided_slice(x, [0, 1], [3, 0], [0, 5], [-2, 2]),
            fluid.layers.strided_slice(x, [1], [1], [4], [1])]
    added = a.copy()
    added[1, 2] += 3.0
    scattered = np.zeros((2, 3), "float32")
    scattered[1, 2] = 3.0
    wants = [a[:, [4, 0, 4]], np.take_along_axis(a, feed["rows"], 1), a[[1, 1], [2, 2]], added,
             scattered, a[a > 0.5], a[3:0:-2, 0:5:2], a[:, 1:4]]
    _check(outs, wants, feed)


def test_meshgrid_unbind_chunk_broadcast_expand_as_t():
    a, b = np.arange(2, dtype="float32"), np.arange(3, dtype="float32")
    m = RNG.rand(2, 3).astype("float32")
    xa, xb, xm = _data("a", a), _data("b", b), _data("m", m)
    y = static.data("y", [None, 2, 3], "float32")
    col = static.data("col", [2, 1], "float32")
    grids = paddle.meshgrid(xa, xb)
    grids2 = paddle.meshgrid([xa, xb])
    parts = paddle.unbind(xm, 1)
    chunks = paddle.chunk(xm, 3, axis=1)
    expanded = paddle.expand_as(col, y)
    assert list(expanded.shape) == [-1, 2, 3]
    outs = grids + grids2[:1] + parts + chunks + [
        paddle.broadcast_to(col, [2, 3]), expanded, fluid.layers.expand_as(col, xm),
        paddle.t(xm)]
    ga, gb = np.meshgrid(a, b, indexing="ij")
    c = np.array([[1.0], [2.0]], "float32")
    wants = [ga, gb, ga] + [m[:, i] for i in range(3)] + [m[:, i:i + 1] for i in range(3)] + [
        np.broadcast_to(c, (2, 3)), np.broadcast_to(c, (4, 2, 3)),
        np.broadcast_to(c, (2, 3)), m.T]
    _check(outs, wants, {"a": a, "b": b, "m": m, "y": np.zeros((4, 2, 3), "float32"),
                         "col": c})


@pytest.mark.paddle("3")   # Paddle 3's 0-D results and integer floor division;
# the 1.8 / 2.0 rules are in tests/test_versions.py
def test_linear_algebra_layers():
    a = RNG.rand(3, 3) + 3 * np.eye(3)
    spd = a @ a.T
    v, inp = RNG.rand(3), RNG.rand(3, 3)
    xa, xs, xv, xi = _data("a", a), _data("s", spd), _data("v", v), _data("i", inp)
    outs = [paddle.mv(xa, xv), paddle.addmm(xi, xa, xs, beta=0.5, alpha=2.0),
            paddle.inverse(xa), paddle.cholesky(xs), paddle.cholesky(xs, upper=True),
            paddle.dist(xa, xi), paddle.dist(xa, xi, p=float("inf")), paddle.dist(xa, xi, 0),
            paddle.allclose(xa, xa), paddle.allclose(xa, xi)]
    lower = np.linalg.cholesky(spd)
    wants = [a @ v, 0.5 * inp + 2.0 * a @ spd, np.linalg.inv(a), lower, lower.T,
             np.linalg.norm((a - inp).ravel()), np.abs(a - inp).max(), 9.0, True, False]
    _check(outs, wants, {"a": a, "s": spd, "v": v, "i": inp}, rtol=1e-9, atol=1e-9)


@pytest.mark.paddle("3")   # Paddle 3's 0-D results and integer floor division;
# the 1.8 / 2.0 rules are in tests/test_versions.py
def test_norm_std_var_median_match_numpy():
    a = RNG.rand(4, 5) - 0.5
    odd = RNG.rand(3, 5)
    x, xo = _data("x", a), _data("o", odd)
    outs = [paddle.norm(x), paddle.norm(x, "fro", axis=[0, 1]), paddle.norm(x, 2, axis=1),
            paddle.norm(x, 1), paddle.norm(x, 3, axis=0, keepdim=True),
            paddle.norm(x, float("inf"), 1), paddle.norm(x, float("-inf")), paddle.norm(x, 0),
            paddle.var(x), paddle.var(x, 0, unbiased=False), paddle.std(x, [0, 1]),
            paddle.std(x, 1, keepdim=True), paddle.median(x), paddle.median(x, 1),
            paddle.median(xo, 0, keepdim=True), paddle.median(xo)]
    wants = [np.linalg.norm(a), np.linalg.norm(a), np.linalg.norm(a, 2, 1),
             np.abs(a).sum(),   # p_norm's root is float32(1 / 3), as Paddle's kernel
             (np.abs(a) ** 3).sum(0, keepdims=True) ** float(np.float32(1) / np.float32(3)),
             np.abs(a).max(1), np.abs(a).min(), np.count_nonzero(a), a.var(ddof=1),
             a.var(0), a.std(ddof=1), a.std(1, ddof=1, keepdims=True), np.median(a),
             np.median(a, 1), np.median(odd, 0, keepdims=True), np.median(odd)]
    _check(outs, wants, {"x": a, "o": odd}, rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("build", [
    lambda x: paddle.norm(x, 3, axis=1), lambda x: paddle.norm(x),
    lambda x: paddle.std(x, 0), lambda x: paddle.median(x, 1), lambda x: paddle.median(x),
    lambda x: paddle.cumsum(paddle.flip(paddle.roll(x, 2), 0), 1),
    lambda x: paddle.trace(paddle.kron(x, x)),
    lambda x: paddle.inverse(paddle.tril(paddle.slice(x, [1], [0], [4]))
                             + 3 * paddle.eye(4, dtype="float64"))],
    ids=["pnorm", "fro", "std", "median_even", "median_all", "cumsum_flip_roll", "trace_kron",
         "inverse_tril"])


def test_composed_gradients_match_finite_differences(build):
    a = RNG.rand(4, 6) + 0.1
    x = static.data("x", [4, 6], "float64")
    x.stop_gradient = False
    loss = paddle.mean(build(x) * 1.7)
    (grad,) = static.gradients([loss], [x])
    got, dx = _run([loss, grad], {"x": a})

    def value(b):
        return float(_run([loss], {"x": b})[0])
    np.testing.assert_allclose(dx, central_differences(value, a), rtol=1e-5, atol=1e-6)


def test_sort_unique_nonzero_histogram():
    a = np.array([[3, 1, 3], [2, 1, 5]], "float32")
    x = _data("x", a)
    flat = static.data("f", [6], "int64")
    fv = np.array([4, 2, 4, 7, 2, 4])
    u, index, inverse, counts = paddle.unique(x, True, True, True)
    fu, fi = fluid.layers.unique(flat)
    wu, wi, wc = fluid.layers.unique_with_counts(flat)
    rows = paddle.unique(paddle.cast(x, "int64"), axis=0)
    outs = [paddle.sort(x), paddle.sort(x, 0, descending=True), u, index, inverse, counts,
            fu, fi, wu, wi, wc, rows, paddle.nonzero(x=x - 1)] + list(
        paddle.nonzero(x - 1, as_tuple=True)) + [
        paddle.histogram(x, bins=4, min=1, max=5), paddle.histogram(x, bins=2)]
    su, si, sv, sc = np.unique(a, True, True, True)
    nz = np.argwhere(a - 1)
    wants = [np.sort(a), -np.sort(-a, 0), su, si, sv.ravel(), sc, [4, 2, 7], [0, 1, 0, 2, 1, 0],
             [4, 2, 7], [0, 1, 0, 2, 1, 0], [3, 2, 1], np.unique(a.astype("int64"), axis=0), nz,
             nz[:, :1], nz[:, 1:], np.histogram(a, 4, (1, 5))[0], [3, 3]]
    _check(outs, wants, {"x": a, "f": fv})
    assert fi.dtype.name == "int32" and index.dtype.name == "int64"


def test_small_tensor_functions():
    a = RNG.rand(2, 3).astype("float32")
    x = _data("x", a)
    empty = static.data("e", [0, 3], "float32")
    sel = static.data("sel", [2, 1], "int32")
    ids = static.data("ids", [4, 1], "int64")
    assert paddle.is_tensor(x) and not paddle.is_tensor(a)
    outs = [paddle.rank(x), paddle.is_empty(x), paddle.is_empty(empty), fluid.layers.size(x),
            paddle.empty([2, 2], "int32"), paddle.empty_like(x), paddle.conj(x),
            paddle.multiplex([x, x * 2], sel),
            paddle.shard_index(ids, 20, 2, 1), fluid.layers.crop_tensor(x, [1, 2], [1, 1]),
            fluid.layers.crop(x, [2, -1], [0, 1])]
    one = versions.switch("scalar_shape")       # is_empty's, size's: [1], or 0-D under 3
    wants = [[2], np.reshape(False, one), np.reshape(True, one), np.reshape(6, one),
             np.zeros((2, 2)),
             np.zeros((2, 3)), a,
             [a[0] * 2, a[1]], [[-1], [0], [9], [-1]], a[1:2, 1:3],
             a[:, 1:]]
    _check(outs, wants, {"x": a, "e": np.zeros((0, 3), "float32"),
                         "sel": np.array([[1], [0]], "int32"),
                         "ids": np.array([[3], [10], [19], [9]])})


def test_inplace_variants_build_the_out_of_place_op_with_a_warning():
    a = RNG.rand(2, 3).astype("float32")
    x = _data("x", a)
    with pytest.warns(UserWarning, match="in-place is dygraph-only"):
        r = paddle.reshape_(x, [3, 2])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        outs = [r, paddle.unsqueeze_(x, 0), paddle.squeeze_(paddle.unsqueeze(x, 0), 0),
                paddle.tanh_(x), paddle.scatter_(x, paddle.to_tensor(np.array([1])),
                                                 paddle.zeros([1, 3]))]
    _check(outs, [a.reshape(3, 2), a[None], a, np.tanh(a), np.stack([a[0], np.zeros(3)])],
           {"x": a})


def test_bad_arguments_fail_clearly():
    x = static.data("x", [3, 4], "float32")
    with pytest.raises(OpError, match="axis 2 is out of range"):
        paddle.cumsum(x, axis=2)
    with pytest.raises(OpError, match="size 3"):
        paddle.cross(x, x, axis=1)
    with pytest.raises(OpError, match="square"):
        paddle.inverse(x)
    with pytest.raises(OpError, match="inner dims"):
        paddle.addmm(x, x, x)
    # Paddle 2.0's test_addmm_op: int32 operands are a TypeError once their shapes agree,
    # a ValueError before
    ints = static.data("ints", [4, 4], "int32")
    with pytest.raises(TypeError, match="expected dtype in"):
        paddle.addmm(ints, ints, ints)
    with pytest.raises(OpError, match="inner dims") as raised:
        paddle.addmm(ints, ints, x)
    assert not isinstance(raised.value, TypeError)
    with pytest.raises(OpError, match="Index .* must be 1-D"):
        paddle.index_select(x, static.data("i", [2, 2], "int64"))
    with pytest.raises(OpError, match="shifts"):
        paddle.roll(x, [1, 2], [0])
    with pytest.raises(ValueError, match="rank <= 2"):
        paddle.t(static.data("y", [2, 2, 2], "float32"))
    with pytest.raises(ValueError, match="must be known"):
        paddle.std(static.data("z", [None, 2], "float32"), 0)
    with pytest.raises(OpError, match="replacement"):
        paddle.multinomial(x, 5)


def test_gather_nd_and_scatter_nd_add_with_an_empty_index_address_all_of_x():
    # Index [2, 0]: each of its 2 rows picks all of X (Paddle 1.8.5's *WithEmptyIndex tests)
    a, upd = RNG.rand(3, 4), RNG.rand(2, 3, 4)
    x, u = _data("x", a), _data("u", upd)
    x.stop_gradient = u.stop_gradient = False
    index = static.data("index", [2, 0], "int32")
    gathered = paddle.gather_nd(x, index)
    added = paddle.scatter_nd_add(x, index, u)
    dx, du = static.gradients([paddle.sum(gathered) + paddle.sum(added * added)], [x, u])
    feed = {"x": a, "u": upd, "index": np.zeros((2, 0), "int32")}
    out = a + upd.sum(0)
    _check([gathered, added, dx, du], [np.stack([a, a]), out, 2 + 2 * out,
                                       np.stack([2 * out, 2 * out])], feed, rtol=1e-12)


def test_nd_index_errors_use_paddles_words():
    x = static.data("x", [3, 4, 5], "float32")
    with pytest.raises(OpError, match=r"Input\(Index\).shape\[-1\] should be no greater than "
                                      r"Input\(X\).rank"):
        paddle.gather_nd(x, static.data("i", [2, 10], "int32"))
    with pytest.raises(OpError, match="Updates has wrong shape"):
        paddle.scatter_nd(static.data("j", [2, 1], "int32"),
                          static.data("u", [2, 4, 5, 20], "float32"), [3, 4, 5])
    with pytest.raises(ValueError, match="same dtype"):
        paddle.scatter_nd_add(static.data("d", [3], "float64"), static.data("k", [1, 1], "int32"),
                              static.data("v", [1], "float32"))


@pytest.mark.parametrize("version, name", [("1.8", "input"), ("2.0", "x"), ("3", "x")])
def test_tril_triu_check_their_arguments_in_paddles_order_and_words(paddle_version, version,
                                                                      name):
    with paddle_version(version):
        x = static.data("x", [3, 3], "float64")
        for bad in ("1", [1], 1.5, None):
            with pytest.raises(TypeError, match="diagonal in tril must be a python Int"):
                paddle.tril(x, bad)
        # the shape is checked first; 1.8.5 (measured) and 2.0 name the argument differently
        with pytest.raises(ValueError, match="^%s shape in triu must be at least 2-D" % name):
            paddle.triu(static.data("v", [4], "float64"), None)


def test_an_attribute_given_as_none_takes_its_default():
    # Paddle's Operator skips None attributes (test_tril_triu_op's default case passes one)
    a = RNG.rand(3, 3)
    x = _data("x", a)
    block = static.default_main_program().global_block()
    out = block.create_var(name="tri_out", dtype="float64")
    op = block.append_op(type="tril_triu", inputs={"X": [x]}, outputs={"Out": [out]},
                         attrs={"diagonal": None, "lower": True})
    assert op.attr("diagonal") == 0
    _check([out], [np.tril(a)], {"x": a})


def test_crop_tensor_takes_variable_sizes_and_offsets_as_paddle_18():
    # the crops Paddle 1.8.5 gives for these (measured)
    a = np.arange(20, dtype="float32").reshape(4, 5)
    x = _data("x", a)
    s = static.data("s", [2], "int32")
    d = static.data("d", [1], "int32")
    off = static.data("off", [2], "int32")
    to_end = fluid.layers.crop_tensor(x, shape=[-1, 3], offsets=[1, 2])
    by_shape = fluid.layers.crop_tensor(x, shape=s, offsets=[1, 1])
    mixed = fluid.layers.crop_tensor(x, shape=[2, d], offsets=[0, d])
    by_offsets = fluid.layers.crop_tensor(x, shape=[2, -1], offsets=off)
    assert [list(v.shape) for v in (to_end, by_shape, mixed)] == [[3, 3], [-1, -1], [2, -1]]
    op = mixed.op
    assert op.type == "crop_tensor" and op.attr("shape") == [2, 0]
    assert op.attr("offsets") == [0, -1] and len(op.input("ShapeTensor")) == 2
    feed = {"x": a, "s": np.array([2, -1], "int32"), "d": np.array([2], "int32"),
            "off": np.array([1, 3], "int32")}
    _check([to_end, by_shape, mixed, by_offsets],
           [a[1:, 2:], a[1:3, 1:], a[0:2, 2:4], a[1:3, 3:]], feed)
    with pytest.raises(ValueError, match=r"the value \(5\) of the 0th element for shape "
                                         r"\(4\) should be less than or equal"):
        _run([by_shape], dict(feed, s=np.array([4, 2], "int32")))


def test_gather_nd_gradient_of_one_element_taken_as_one_value():
    # Paddle 2.0's TestGatherNdOpIndex1: Index [1, 2] picks one element of a [10, 10] X; its
    # Out@GRAD may be [1] (2.0's one-element results) where the op's Out is []
    from refimpl.ops.index_ops import GatherNd
    x = np.arange(100.0).reshape(10, 10)
    index = np.array([1, 2])
    assert GatherNd.forward(x, index) == 12.0
    dx = GatherNd.backward(x, index, np.array([3.0]))
    expected = np.zeros((10, 10))
    expected[1, 2] = 3.0
    np.testing.assert_array_equal(dx, expected)


@pytest.mark.parametrize("version", ["2.0", "3"])
def test_where_of_other_shapes_by_version(paddle_version, version):
    """2.0 builds x * cond + y * (not cond) (elementwise ops broadcast the run-time shapes,
    and a nan of the unselected x reaches the result); 3.3.1 expands to one shape."""
    with paddle_version(version):
        main = static.Program()
        with static.program_guard(main, static.Program()):
            x = static.data("x", [1, 4], "float32")
            y = static.data("y", [2, 4], "float32")
            out = paddle.where(x > 1, x=x, y=y)
        x_in = np.array([[0.5, np.nan, 3.0, 1.5]], "float32")
        y_in = np.array([[1, 2, 3, 4], [5, 6, 7, 8]], "float32")
        got, = static.Executor().run(main, feed={"x": x_in, "y": y_in}, fetch_list=[out])
        want = np.array([[1, 2, 3, 1.5], [5, 6, 3, 1.5]], "float32")
        if version == "2.0":
            want[:, 1] = np.nan       # nan * 0 + y
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("version", ["2.0", "3"])
def test_equal_of_a_number_by_version(paddle_version, version):
    """paddle.equal(x, 1): 3.3.1 makes the number a 0-D constant of x's dtype (its
    test_cond's `paddle.equal(i % 2, 0)`), 2.0 wants a Tensor; not_equal refuses in both."""
    with paddle_version(version):
        main = static.Program()
        with static.program_guard(main, static.Program()):
            x = static.data("x", [3], "int64")
            with pytest.raises(TypeError, match="not_equal: argument 'y'"):
                paddle.not_equal(x, 2)
            if version == "2.0":
                with pytest.raises(TypeError, match="equal: argument 'y'"):
                    paddle.equal(x, 1)
                return
            out = paddle.equal(x, 1)
        got, = static.Executor().run(main, feed={"x": np.array([1, 2, 1])}, fetch_list=[out])
        assert got.tolist() == [True, False, True]


def test_nonzero_names_its_tensor_by_release():
    # paddle.nonzero(x, ...) in 2.0 and 3.3.1; 1.8.5's fluid.layers.nonzero(input, ...)
    a = np.array([[0.0, 2.0], [3.0, 0.0]], "float32")
    with fluid.dygraph.guard():
        t = paddle.to_tensor(a)
        np.testing.assert_array_equal(paddle.nonzero(x=t).numpy(), [[0, 1], [1, 0]])
        np.testing.assert_array_equal(fluid.layers.nonzero(input=t).numpy(), [[0, 1], [1, 0]])
