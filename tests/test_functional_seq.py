"""ctc_loss / warpctc against brute-force alignment enumeration, hsigmoid_loss against an
explicit tree walk, gather_tree against a hand-traced beam."""
import itertools

import numpy as np
import pytest

import refimpl.nn.functional as F
from refimpl import fluid, static, versions

from test_functional_loss import run

RNG = np.random.RandomState(13)


def ctc_brute_force(logits, label, blank=0):
    """-log sum over every alignment path that collapses to `label` of prod softmax."""
    probs = np.exp(logits - logits.max(-1, keepdims=True))
    probs /= probs.sum(-1, keepdims=True)
    total = 0.0
    for path in itertools.product(range(logits.shape[1]), repeat=logits.shape[0]):
        collapsed = [k for i, k in enumerate(path) if k != blank and (i == 0 or path[i - 1] != k)]
        if collapsed == list(label):
            total += np.prod(probs[np.arange(len(path)), path])
    return -np.log(total)


@pytest.mark.parametrize("reduction", ["none", "sum", "mean"])
def test_ctc_loss_against_enumeration(reduction):
    logits = RNG.randn(5, 3, 3)
    labels = np.array([[1, 2], [1, 1], [2, 0]], "int32")
    in_len, lab_len = np.array([5, 4, 3], "int64"), np.array([2, 2, 1], "int64")
    got = run(lambda x, l, a, b: F.ctc_loss(x, l, a, b, reduction=reduction), x=logits,
              l=labels, a=in_len, b=lab_len)
    want = np.array([ctc_brute_force(logits[:in_len[b], b], labels[b, :lab_len[b]])
                     for b in range(3)])
    expected = {"none": want, "sum": want.sum(), "mean": (want / lab_len).mean()}[reduction]
    np.testing.assert_allclose(got, expected, rtol=1e-10)


def test_ctc_of_an_empty_label_is_the_all_blank_path():
    # label length 0 (2.0's test_warpctc_op TestCTCLossAPICase): one path, blank each step
    logits = RNG.randn(3, 2, 4)
    labels = np.array([[2, 3], [1, 2]], "int32")
    got = run(lambda x, l, a, b: F.ctc_loss(x, l, a, b, reduction="none"), x=logits,
              l=labels, a=np.array([3, 3], "int64"), b=np.array([0, 2], "int64"))
    log_softmax = logits - np.log(np.exp(logits).sum(-1, keepdims=True))
    np.testing.assert_allclose(got.ravel(), [-log_softmax[:, 0, 0].sum(),
                                             ctc_brute_force(logits[:, 1], [1, 2])],
                               rtol=1e-10)


def test_ctc_impossible_alignment_is_zero_and_fluid_needs_lengths():
    """A label that needs more steps than there are has loss 0 and no gradient (warp-ctc's
    rule; Paddle 1.8.5 and 3.3.1 give 0). Without input_length/label_length, fluid's
    warpctc takes sequences whose lengths it knows (layers/sequence.py); plain dense input
    is refused, naming the variable."""
    logits = RNG.randn(2, 1, 3).astype("float32")      # 1.8.5's warpctc takes float32 only
    got = run(lambda x, l, a, b: fluid.layers.warpctc(x, l, input_length=a, label_length=b),
              x=logits, l=np.array([[1, 1]], "int32"), a=np.array([2], "int64"),
              b=np.array([2], "int64"))
    assert got[0, 0] == 0.0   # "1 1" needs a blank between: 3 steps
    with pytest.raises(ValueError, match="warpctc"):
        run(lambda x, l: fluid.layers.warpctc(x, l), x=logits, l=np.array([[1]], "int32"))


def test_ctc_gradient_through_backward():
    """append_backward's dLogits matches finite differences of the loss."""
    logits = RNG.randn(4, 2, 3)
    labels, in_len, lab_len = np.array([[1, 2], [2, 0]], "int32"), np.array([4, 3]), \
        np.array([2, 1])
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data("x", [4, 2, 3], "float64")
        x.stop_gradient = False
        loss = F.ctc_loss(x, static.data("l", [2, 2], "int32"), static.data("a", [2], "int64"),
                          static.data("b", [2], "int64"), reduction="sum")
        grad = static.gradients([loss], [x])[0]
    feed = {"l": labels, "a": in_len.astype("int64"), "b": lab_len.astype("int64")}
    exe = static.Executor()
    g = exe.run(main, feed=dict(feed, x=logits), fetch_list=[grad])[0]

    def f(v):
        return exe.run(main, feed=dict(feed, x=v), fetch_list=[loss])[0]
    eps = 1e-6
    for idx in [(0, 0, 1), (2, 1, 2), (3, 0, 0), (3, 1, 1)]:
        d = np.zeros_like(logits)
        d[idx] = eps
        assert g[idx] == pytest.approx((f(logits + d) - f(logits - d)) / (2 * eps), abs=1e-6)


def test_warpctc_of_lod_sequences_matches_enumeration_and_finite_differences():
    """Paddle 1.8's LoD form: packed logits [sum T, C] and labels [sum L, 1] whose LoD gives
    the lengths; Logits@GRAD comes back packed, WarpCTCGrad padded [Tmax, B, C]."""
    logits = RNG.randn(7, 3)                                  # sequences of 4 and 3 steps
    labels = np.array([[1], [2], [2]], "int64")               # labels "1 2" and "2"
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = fluid.data("x", [None, 3], "float64", lod_level=1)
        x.stop_gradient = False
        y = fluid.data("y", [None, 1], "int64", lod_level=1)
        block = main.global_block()
        loss = block.create_var(name="loss", dtype="float64")
        grad_out = block.create_var(name="warpctc_grad", dtype="float64")
        block.append_op("warpctc", inputs={"Logits": [x], "Label": [y]},
                        outputs={"Loss": [loss], "WarpCTCGrad": [grad_out]},
                        attrs={"blank": 0, "norm_by_times": False})
        total = fluid.layers.reduce_sum(loss)
        dx = static.gradients([total], [x])[0]
    place = fluid.CPUPlace()
    exe = static.Executor(place)

    def feed(v):
        return {"x": fluid.create_lod_tensor(v, [[4, 3]], place),
                "y": fluid.create_lod_tensor(labels, [[2, 1]], place)}
    got, g, padded = (np.array(t) for t in exe.run(main, feed=feed(logits), return_numpy=False,
                                                   fetch_list=[loss, dx, grad_out]))
    np.testing.assert_allclose(got.ravel(), [ctc_brute_force(logits[:4], [1, 2]),
                                             ctc_brute_force(logits[4:], [2])], rtol=1e-10)
    assert g.shape == (7, 3) and padded.shape == (4, 2, 3)
    eps = 1e-6
    for idx in [(0, 1), (3, 2), (4, 0), (6, 2)]:
        d = np.zeros_like(logits)
        d[idx] = eps
        numeric = (exe.run(main, feed=feed(logits + d), fetch_list=[total])[0] -
                   exe.run(main, feed=feed(logits - d), fetch_list=[total])[0]) / (2 * eps)
        assert g[idx] == pytest.approx(float(np.ravel(numeric)[0]), abs=1e-6)


def test_hsigmoid_loss_default_tree():
    x, w, b = RNG.randn(3, 4), RNG.randn(5, 4), RNG.randn(5, 1)
    label = np.array([[0], [3], [5]], "int64")
    got = run(lambda x, l, w, b: F.hsigmoid_loss(x, l, 6, w, b), x=x, l=label, w=w, b=b)
    for n, c in enumerate(label[:, 0]):
        code, loss = int(c) + 6, 0.0
        steps = code.bit_length() - 1
        for j in range(steps):
            node, bit = (code >> (j + 1)) - 1, (code >> j) & 1
            p = w[node] @ x[n] + b[node, 0]
            loss += np.log1p(np.exp(p)) - bit * p
        # Paddle sums softplus over all 3 = bit_length(5) columns: log 2 per missing step
        assert got[n, 0] == pytest.approx(loss + (3 - steps) * np.log(2))


def test_fluid_hsigmoid_creates_its_parameters():
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data("x", [2, 3], "float32")
        fluid.layers.hsigmoid(x, static.data("l", [2, 1], "int64"), num_classes=4)
    shapes = sorted(tuple(p.shape) for p in main.all_parameters())
    assert shapes == [(3, 1), (3, 3)]


def _hsigmoid_training_losses(is_sparse):
    """Ten SGD steps of embedding -> hsigmoid (custom tree) with is_sparse on both
    (Paddle 1.8.5's test_hsigmoid_op TestHSigmoidOpWithSparseGrad net), and the
    parameters after them."""
    main, startup = fluid.Program(), fluid.Program()
    startup.random_seed = 1
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        word = fluid.data("x", [None, 1], "int64")
        table = fluid.data("path_table", [None, 3], "int64")
        code = fluid.data("path_code", [None, 3], "int64")
        label = fluid.data("label", [None, 1], "int64")
        emb = fluid.layers.embedding(word, size=[3, 3], is_sparse=is_sparse)
        cost = fluid.layers.hsigmoid(emb, label, num_classes=3, bias_attr=True,
                                     path_table=table, path_code=code, is_custom=True,
                                     is_sparse=is_sparse)
        loss = fluid.layers.reduce_mean(cost)
        fluid.optimizer.SGD(learning_rate=0.1).minimize(loss)
    exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
    losses = []
    with fluid.scope_guard(scope):
        exe.run(startup)
        for i in range(10):
            feed = {"x": np.array([[i % 2]], "int64"),
                    "path_table": np.array([[(1, 2, -1), (1, 2, -1)][i % 2]], "int64"),
                    "path_code": np.array([[(1, 0, -1), (0, 0, -1)][i % 2]], "int64"),
                    "label": np.array([[1, 4][i % 2]], "int64").reshape(1, 1)}
            losses.append(exe.run(main, feed=feed, fetch_list=[loss])[0])
        params = {p.name: np.array(scope.find_var(p.name).get_tensor())
                  for p in main.all_parameters()}
    grad_types = {v.name: v.type for v in main.global_block().vars.values()
                  if v.name.endswith(".w_0@GRAD") or v.name.endswith(".b_0@GRAD")}
    return losses, params, grad_types


def test_hsigmoid_sparse_gradients_train_as_the_dense_ones():
    """is_sparse: W's (and the embedding's) gradients are SelectedRows rows; the training
    is the dense one's, bit for bit (Paddle 1.8.5's test asserts equality)."""
    dense, dense_params, dense_types = _hsigmoid_training_losses(False)
    sparse, sparse_params, types = _hsigmoid_training_losses(True)
    assert [float(v) for v in sparse] == [float(v) for v in dense]
    assert dense[0] != dense[-1]          # the steps did train
    for name, value in dense_params.items():
        np.testing.assert_array_equal(sparse_params[name], value)
    assert set(dense_types.values()) == {"LOD_TENSOR"}
    # as Paddle 1.8.5: W's gradients SelectedRows, hsigmoid's bias gradient dense
    # (dense under 3, as 3.3.1's PIR makes them: switch static_sparse_gradients)
    sparse = "SELECTED_ROWS" if versions.switch("static_sparse_gradients") == \
        "selected_rows" else "LOD_TENSOR"
    assert types == {"embedding_0.w_0@GRAD": sparse,
                     "hierarchical_sigmoid_0.w_0@GRAD": sparse,
                     "hierarchical_sigmoid_0.b_0@GRAD": "LOD_TENSOR"}


def test_gather_tree():
    ids = np.array([[[2, 5]], [[7, 1]], [[4, 3]]], "int64")       # T=3, B=1, beam=2
    parents = np.array([[[0, 0]], [[1, 0]], [[1, 0]]], "int64")
    got = run(lambda i, p: F.gather_tree(i, p), i=ids, p=parents)
    # beam 0 ends with 4, came from beam 1 at t=1 (id 1), whose parent is beam 0 (id 2)
    np.testing.assert_array_equal(got[:, 0, 0], [2, 1, 4])
    # beam 1 ends with 3, came from beam 0 at t=1 (id 7), whose parent is beam 1 (id 5)
    np.testing.assert_array_equal(got[:, 0, 1], [5, 7, 3])
