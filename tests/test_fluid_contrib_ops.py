"""fluid.contrib's op builders (Paddle 1.8): fused_elemwise_activation, partial_concat,
partial_sum, shuffle_batch, multiclass_nms2, sequence_topk_avg_pooling,
match_matrix_tensor, fused_embedding_seq_pool, tdm_child, tdm_sampler, ctr_metric_bundle,
checked against values recorded on Paddle 1.8.5
(specs/ops/fluid_contrib_ops.md)."""
import numpy as np
import pytest

from refimpl import fluid

pytestmark = pytest.mark.paddle("1.8")

X = np.array([[0.5, -1.0, 2.0], [0.1, -0.3, 0.7]], np.float32)
Y = np.array([-0.2, 0.4, 1.5], np.float32)

# functor_list -> Paddle 1.8.5's Out, d/dX and d/dY of sum(Out * Out), scale 0.5
FUSED_185 = {
    ("elementwise_mul", "tanh"): (
        [-0.09868764877, -0.3799489737, 1.810296535, -0.0197375305, -0.1139846966,
         0.6336037517],
        [0.03895700723, -0.2887224555, 3.277173519, 0.007791401818, -0.08661673963,
         1.147010684],
        [-0.09863679856, 0.70871591568, 1.468825340]),
    ("tanh", "elementwise_add"): (
        [0.2913125753, -0.5370495319, 0.9981780052, -0.0996679664, 0.0996679068, 0.9757430553],
        [0.5331818461, -0.764304996, 0.007268036716, -0.1973557919, 0.1973556727,
         0.09352589399],
        [0.3358260393, -0.5669493079, 0.1007939279]),
    ("elementwise_mul", "sigmoid"): (
        [0.2250830084, -0.5986876488, 1.635148883, 0.04501660169, -0.1796063036, 0.5723021031],
        [0.2026494443, -0.7168537974, 2.673711777, 0.04052988812, -0.2150561512, 0.9357991219],
        [0.05794025213, 0.3135737181, 1.095006347]),
    ("scale", "elementwise_add"): (
        [0.15, -0.3, 1.75, -0.05, 0.05, 1.1], [0.15, -0.3, 1.75, -0.05, 0.05, 1.1],
        [0.1, -0.25, 2.85]),
}


def _run(main, startup, feed, fetch, **kwargs):
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup)
    return exe.run(main, feed=feed, fetch_list=fetch, **kwargs)


@pytest.mark.parametrize("functors", sorted(FUSED_185))
def test_fused_elemwise_activation_as_paddle_185(functors):
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        a = fluid.data("a", [2, 3], "float32")
        b = fluid.data("b", [3], "float32")
        a.stop_gradient = b.stop_gradient = False
        functor_arg = ",".join(functors) if functors[0] == "scale" else list(functors)
        out = fluid.contrib.fused_elemwise_activation(a, b, functor_arg, scale=0.5)
        grads = fluid.backward.gradients([fluid.layers.reduce_sum(out * out)], [a, b])
    results = _run(main, startup, {"a": X, "b": Y}, [out] + grads)
    for got, want in zip(results, FUSED_185[functors]):
        np.testing.assert_allclose(got.ravel(), want, rtol=2e-6, atol=1e-6)


def test_fused_elemwise_activation_refuses_what_paddle_185_does_not_implement():
    with fluid.program_guard(fluid.Program()):
        a = fluid.data("a", [2, 3], "float32")
        with pytest.raises(Exception, match="functor_list .*sigmoid.*not one of the pairs"):
            fluid.contrib.fused_elemwise_activation(a, a, ["sigmoid", "elementwise_add"])
        with pytest.raises(ValueError, match="list of two"):
            fluid.contrib.fused_elemwise_activation(a, a, ["relu"])


def test_partial_concat_and_sum_as_paddle_185():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        a = fluid.data("a", [2, 3], "float32")
        b = fluid.data("b", [2, 3], "float32")
        joined = fluid.contrib.partial_concat([a, b], start_index=-2, length=1)
        summed = fluid.contrib.partial_sum([a, b], start_index=1, length=-1)
        with pytest.raises(TypeError, match="start_index must be an int"):
            fluid.contrib.partial_sum([a, b], start_index=1.0)
        with pytest.raises(Exception, match=r"select columns \[2, 4\)"):
            fluid.contrib.partial_concat([a, b], start_index=2, length=2)
    joined, summed = _run(main, startup, {"a": X, "b": X * 10}, [joined, summed])
    np.testing.assert_allclose(joined, [[-1.0, -10.0], [-0.3, -3.0]], rtol=1e-6)  # 1.8.5
    np.testing.assert_allclose(summed, [[-11.0, 22.0], [-3.3, 7.7]], rtol=1e-6)


def test_shuffle_batch_permutes_rows_anew_each_run_and_routes_gradients_back():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = fluid.data("x", [8, 2], "float32")
        x.stop_gradient = False
        out = fluid.contrib.shuffle_batch(x, seed=3)
        weights = fluid.layers.assign(np.arange(16, dtype=np.float32).reshape(8, 2))
        dx, = fluid.backward.gradients([fluid.layers.reduce_sum(out * weights)], [x])
    index_name = main.global_block().ops[0].output("ShuffleIdx")[0]
    seed_name = main.global_block().ops[0].input("Seed")[0]
    assert main.global_block().var(seed_name).persistable
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup)
    rows = np.arange(16, dtype=np.float32).reshape(8, 2)
    orders = []
    for _ in range(3):
        shuffled, index, grad = exe.run(main, feed={"x": rows}, fetch_list=[out, index_name, dx])
        assert sorted(index.tolist()) == list(range(8))
        np.testing.assert_array_equal(shuffled, rows[index])
        expected = np.empty_like(rows)
        expected[index] = np.arange(16, dtype=np.float32).reshape(8, 2)
        np.testing.assert_array_equal(grad, expected)
        orders.append(index.tolist())
    assert orders[0] != orders[1] or orders[1] != orders[2]   # SeedOut feeds the next run


def test_multiclass_nms2_from_contrib_returns_the_index():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        boxes = fluid.data("boxes", [1, 2, 4], "float32")
        scores = fluid.data("scores", [1, 2, 2], "float32")
        out, index = fluid.contrib.multiclass_nms2(boxes, scores, 0.1, 10, 10,
                                                   return_index=True)
        alone = fluid.contrib.multiclass_nms2(boxes, scores, 0.1, 10, 10)
    assert main.global_block().ops[0].type == "multiclass_nms2"
    feed = {"boxes": np.array([[[0, 0, 1, 1], [2, 2, 3, 3]]], np.float32),
            "scores": np.array([[[0.0, 0.0], [0.9, 0.2]]], np.float32)}
    out, index, alone = _run(main, startup, feed, [out, index, alone], return_numpy=False)
    assert out.lod() == index.lod() == [[0, 2]]                  # as 1.8.5
    out, index, alone = np.array(out), np.array(index), np.array(alone)
    np.testing.assert_allclose(out, [[1, 0.9, 0, 0, 1, 1], [1, 0.2, 2, 2, 3, 3]], rtol=1e-6)
    assert index.ravel().tolist() == [0, 1]
    np.testing.assert_array_equal(alone, out)


# sequence 0: a 2-channel 2 x 3 grid with ties, sequence 1: 2 channels of a 3 x 1 grid
TOPK_X = np.array([3, 1, 3, 2, 2, 5, 0, 4, 4, 1, 1, 1, 7, 8, 9, 6, 5, 4], np.float32)
# Paddle 1.8.5: Out (topks [1, 2]) and d/dX of sum(Out * [[1, 2, 3, 4], [5, 6, 7, 8], ...])
TOPK_OUT_185 = [[3, 3, 4, 4], [5, 3.5, 1, 1], [7, 3.5, 6, 3], [8, 4, 5, 2.5], [9, 4.5, 4, 2]]
TOPK_GX_185 = [2, 0, 1, 3, 0, 8, 0, 5, 2, 11, 4, 0, 14, 20, 26, 17, 23, 29]


def test_sequence_topk_avg_pooling_as_paddle_185():
    """A tie takes the lower column first; a 1-column row still divides its top-2 by 2."""
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = fluid.data("x", [None, 1], "float32", lod_level=1)
        x.stop_gradient = False
        row = fluid.data("row", [None, 2], "float32", lod_level=1)
        col = fluid.data("col", [None, 2], "float32", lod_level=1)
        out = fluid.contrib.sequence_topk_avg_pooling(x, row, col, topks=[1, 2],
                                                      channel_num=2)
        weights = fluid.layers.assign(np.arange(1, 21, dtype=np.float32).reshape(5, 4))
        gx = fluid.gradients([fluid.layers.reduce_sum(out * weights)], [x])[0]
    place = fluid.CPUPlace()
    feed = {"x": fluid.create_lod_tensor(TOPK_X.reshape(-1, 1), [[12, 6]], place),
            "row": fluid.create_lod_tensor(np.zeros((5, 2), np.float32), [[2, 3]], place),
            "col": fluid.create_lod_tensor(np.zeros((4, 2), np.float32), [[3, 1]], place)}
    got, grad = _run(main, startup, feed, [out, gx], return_numpy=False)
    assert got.recursive_sequence_lengths() == [[2, 3]]
    np.testing.assert_array_equal(np.array(got), TOPK_OUT_185)
    np.testing.assert_array_equal(np.array(grad).ravel(), TOPK_GX_185)
    with pytest.raises(Exception, match="channel_num \\* rows \\* cols"):
        _run(main, startup, dict(feed, x=fluid.create_lod_tensor(
            TOPK_X.reshape(-1, 1), [[10, 8]], place)), [out])


MATCH_A = (np.arange(15, dtype=np.float32).reshape(5, 3) % 7) / 5
MATCH_B = (np.arange(18, dtype=np.float32).reshape(6, 3) % 5) / 4
# Paddle 1.8.5, W = arange(18).reshape(3, 2, 3) / 10, sequences [2, 3] and [4, 2]
MATCH_OUT_185 = [0.525, 1.11, 1.02, 0.78, 1.56, 3.18, 3.0, 2.22, 0.66, 1.425, 1.29, 1.005,
                 2.1, 4.44, 4.08, 3.12, 0.925, 0.355, 3.465, 1.215, 2.225, 0.815, 1.87, 0.67,
                 4.68, 1.62, 3.71, 1.31]
# d/dW of sum(Out * Out)
MATCH_GW_185 = [11.147, 14.029, 15.471, 16.79, 21.526, 24.282, 14.064, 16.7895, 17.43,
                20.1705, 24.264, 25.5075, 15.161, 16.498, 15.105, 20.975, 22.69, 20.685]
MATCH_GA_185 = [5.61375, 18.83925, 32.06475, 17.424, 57.474, 97.524, 4.6195, 13.0885,
                21.5575, 12.2355, 36.7785, 61.3215, 9.3935, 27.3305, 45.2675]


def test_match_matrix_tensor_as_paddle_185():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        a = fluid.data("a", [None, 3], "float32", lod_level=1)
        b = fluid.data("b", [None, 3], "float32", lod_level=1)
        a.stop_gradient = False
        w_init = fluid.initializer.NumpyArrayInitializer(
            np.arange(18, dtype=np.float32).reshape(3, 2, 3) / 10)
        out, tmp = fluid.contrib.match_matrix_tensor(a, b, channel_num=2,
                                                     param_attr=fluid.ParamAttr(initializer=w_init))
        w = main.global_block().all_parameters()[0]
        assert list(w.shape) == [3, 2, 3] and list(tmp.shape) == [-1, 1]
        ga, gw = fluid.gradients([fluid.layers.reduce_sum(out * out)], [a, w])
    place = fluid.CPUPlace()
    feed = {"a": fluid.create_lod_tensor(MATCH_A, [[2, 3]], place),
            "b": fluid.create_lod_tensor(MATCH_B, [[4, 2]], place)}
    got, t, grad_a, grad_w = _run(main, startup, feed, [out, tmp, ga, gw], return_numpy=False)
    assert got.recursive_sequence_lengths() == [[16, 12]]      # 2 channels x 2 x 4, 2 x 3 x 2
    np.testing.assert_allclose(np.array(got).ravel(), MATCH_OUT_185, rtol=1e-5)
    # Tmp: sequence 0's A W, (row, channel, column)
    np.testing.assert_allclose(np.array(t)[:12].ravel(), np.einsum(
        "ih,htk->itk", MATCH_A[:2], np.arange(18).reshape(3, 2, 3) / 10).ravel(), rtol=1e-6)
    np.testing.assert_allclose(np.array(grad_a).ravel(), MATCH_GA_185, rtol=1e-5)
    np.testing.assert_allclose(np.array(grad_w).ravel(), MATCH_GW_185, rtol=1e-5)


TREE = np.array([[0, 0, 0, 1, 2], [0, 1, 0, 3, 4], [0, 1, 0, 5, 6], [0, 2, 1, 0, 0],
                 [1, 2, 1, 0, 0], [2, 2, 2, 0, 0], [3, 2, 2, 0, 0]], np.int32)


def _array_attr(value):
    return fluid.ParamAttr(initializer=fluid.initializer.NumpyArrayInitializer(value))


def test_fused_embedding_seq_pool_as_paddle_185():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        ids = fluid.layers.data(name="ids", shape=[1], dtype="int64", lod_level=1)
        out = fluid.contrib.fused_embedding_seq_pool(
            ids, [5, 4], padding_idx=2, param_attr=fluid.ParamAttr(
                name="w", initializer=fluid.initializer.NumpyArrayInitializer(
                    np.arange(20, dtype=np.float32).reshape(5, 4))))
        loss = fluid.layers.reduce_sum(
            out * fluid.layers.assign(np.array([[1, 2, 3, 4]], np.float32)))
        fluid.backward.append_backward(loss)
    assert out.shape == (-1, 4)
    feed = {"ids": fluid.create_lod_tensor(np.array([[1], [2], [3], [4], [1]], np.int64),
                                           [[2, 3]], fluid.CPUPlace())}
    o, dw = _run(main, startup, feed, [out, "w@GRAD"])
    np.testing.assert_array_equal(o, [[4, 5, 6, 7], [32, 35, 38, 41]])
    np.testing.assert_array_equal(dw, np.outer([0, 2, 0, 1, 1], [1, 2, 3, 4]))


def test_tdm_child_as_paddle_185():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = fluid.data(name="x", shape=[None, 1], dtype="int32", lod_level=1)
        child, leaf_mask = fluid.contrib.layers.tdm_child(x, 7, 2,
                                                          param_attr=_array_attr(TREE))
    assert child.shape == (-1, 1, 2)
    c, m = _run(main, startup, {"x": np.arange(7, dtype=np.int32).reshape(7, 1)},
                [child, leaf_mask])
    assert c.dtype == np.int32 and m.dtype == np.int32
    np.testing.assert_array_equal(c.reshape(7, 2), [[0, 0], [3, 4], [5, 6]] + [[0, 0]] * 4)
    np.testing.assert_array_equal(m.reshape(7, 2), [[0, 0], [0, 1], [1, 1]] + [[0, 0]] * 4)


def test_tdm_sampler_positives_negatives_and_padding_as_paddle_185():
    travel = np.array([[1, 3], [1, 4], [2, 5], [2, 6], [2, 0]], np.int32)
    nodes = np.arange(1, 7, dtype=np.int32).reshape(6, 1)
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = fluid.data(name="x", shape=[None, 1], dtype="int32", lod_level=1)
        samples, labels, masks = fluid.contrib.layers.tdm_sampler(
            x, [1, 2], [2, 4], 5, tree_travel_attr=_array_attr(travel),
            tree_layer_attr=_array_attr(nodes))
    assert [v.shape for v in samples] == [(-1, 2, 1), (-1, 3, 1)]
    got = _run(main, startup, {"x": np.arange(5, dtype=np.int32).reshape(5, 1)},
               samples + labels + masks)
    s1, s2, l1, l2, m1, m2 = [a.reshape(5, -1) for a in got]
    # positives first, then distinct negatives of the layer (1.8.5's structure)
    np.testing.assert_array_equal(s1[:, 0], [1, 1, 2, 2, 2])
    np.testing.assert_array_equal(s1[:, 1], [2, 2, 1, 1, 1])     # the layer's other node
    np.testing.assert_array_equal(s2[:4, 0], [3, 4, 5, 6])
    for row, pos in zip(s2[:4], [3, 4, 5, 6]):
        assert len(set(row[1:])) == 2 and set(row[1:]) <= {3, 4, 5, 6} - {pos}
    np.testing.assert_array_equal(s2[4], [0, 0, 0])                # path padding
    np.testing.assert_array_equal(l1, [[1, 0]] * 5)
    np.testing.assert_array_equal(l2, [[1, 0, 0]] * 4 + [[0, 0, 0]])
    np.testing.assert_array_equal(m1, [[1, 1]] * 5)
    np.testing.assert_array_equal(m2, [[1, 1, 1]] * 4 + [[0, 0, 0]])
    with pytest.raises(ValueError, match="must be less than the number of nodes"):
        fluid.contrib.layers.tdm_sampler(x, [2, 2], [2, 4], 5)


def test_ctr_metric_bundle_accumulates_as_paddle_185():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        data = fluid.layers.data(name="data", shape=[1], dtype="float32")
        label = fluid.layers.data(name="label", shape=[1], dtype="float32")
        outs = fluid.contrib.layers.ctr_metric_bundle(input=data, label=label)
    exe = fluid.Executor(fluid.CPUPlace())
    scope = fluid.Scope()
    feed = {"data": np.array([[0.2], [0.9], [-0.5]], np.float32),
            "label": np.array([[0], [1], [1]], np.float32)}
    with fluid.scope_guard(scope):
        exe.run(startup)
        once = exe.run(main, feed=feed, fetch_list=list(outs))
        twice = exe.run(main, feed=feed, fetch_list=list(outs))
    expected = [2.3, 1.8, 0.6, 1.63832, 2.0, 3.0]     # Paddle 1.8.5
    np.testing.assert_allclose(np.concatenate(once), expected, rtol=1e-5)
    np.testing.assert_allclose(np.concatenate(twice), np.multiply(expected, 2), rtol=1e-5)


def test_var_conv_2d_as_paddle_185():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = fluid.layers.data(name="x", shape=[1], lod_level=1)
        x.stop_gradient = False
        row = fluid.layers.data(name="row", shape=[6], lod_level=1)
        col = fluid.layers.data(name="col", shape=[6], lod_level=1)
        w = (np.arange(36).reshape(3, 12) / 10.0 - 1).astype(np.float32)
        out = fluid.contrib.var_conv_2d(
            input=x, row=row, col=col, input_channel=2, output_channel=3,
            filter_size=[3, 2], stride=[2, 1], param_attr=fluid.ParamAttr(
                name="vw", initializer=fluid.initializer.NumpyArrayInitializer(w)))
        fluid.backward.append_backward(fluid.layers.reduce_sum(out * out))
    place = fluid.CPUPlace()
    # images 2 x [3, 2] and 2 x [2, 3]: positions 2 x 2 and 1 x 3
    feed = {"x": fluid.create_lod_tensor((np.arange(24) % 7 / 7.0).astype(np.float32)
                                         .reshape(-1, 1), [[12, 12]], place),
            "row": fluid.create_lod_tensor(np.zeros((5, 6), np.float32), [[3, 2]], place),
            "col": fluid.create_lod_tensor(np.zeros((5, 6), np.float32), [[2, 3]], place)}
    o, dw, dx = _run(main, startup, feed, [out, "vw@GRAD", "x@GRAD"], return_numpy=False)
    assert o.recursive_sequence_lengths() == [[12, 9]]
    # Paddle 1.8.5
    np.testing.assert_allclose(np.array(o).ravel()[:6],
                               [-0.2143, -0.6286, -0.7429, -1.9143, 1.3286, 1.9429], atol=1e-4)
    np.testing.assert_allclose(np.array(dw).ravel()[:4], [-1.094, -2.065, -6.612, -7.355],
                               atol=1e-3)
    np.testing.assert_allclose(np.array(dx).ravel()[:4], [28.397, 18.171, 64.689, 44.211],
                               atol=1e-3)


@pytest.mark.paddle("2.0")
def test_batch_fc_is_one_fc_per_slot_with_its_gradients():
    """Paddle 2.0's batch_fc (GPU-only there): Out[s] = Input[s] @ W[s] + Bias[s], then
    act; by hand for 2 slots of 2 rows, W = [[1, 2], [3, 4]] and [[-1, 0], [0, 1]]."""
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = fluid.data("x", [2, 2, 2], "float32")
        x.stop_gradient = False
        out = fluid.contrib.layers.batch_fc(
            x, [2, 2, 2], fluid.ParamAttr(name="w", initializer=fluid.initializer.
                                          NumpyArrayInitializer(np.array(
                                              [[[1, 2], [3, 4]], [[-1, 0], [0, 1]]]))),
            [2, 2], fluid.ParamAttr(name="b", initializer=fluid.initializer.Constant(0.5)),
            act="relu")
        fluid.backward.append_backward(fluid.layers.reduce_sum(out))
        with pytest.raises(ValueError, match=r"bias_size \[2, 3\]"):
            fluid.contrib.layers.batch_fc(x, [2, 2, 2], None, [2, 3], None)
    assert [op.type for op in main.global_block().ops][:2] == ["batch_fc", "relu"]
    xv = np.array([[[1, 0], [0, 2]], [[1, 1], [-3, 2]]], np.float32)
    got, dx, db, dw = _run(main, startup, {"x": xv}, [out, "x@GRAD", "b@GRAD", "w@GRAD"])
    # slot 0: [1, 2] + .5, [6, 8] + .5; slot 1: [-1, 1] + .5 -> relu 0, 1.5; [3, 2] + .5
    np.testing.assert_allclose(got, [[[1.5, 2.5], [6.5, 8.5]], [[0, 1.5], [3.5, 2.5]]])
    live = (got > 0).astype(np.float32)
    np.testing.assert_allclose(db, live.sum(1))
    np.testing.assert_allclose(dx, [[[3, 7], [3, 7]], [[0, 1], [-1, 1]]])
    np.testing.assert_allclose(dw, np.einsum("sni,sno->sio", xv, live))
