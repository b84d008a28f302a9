"""What Paddle 1.8.5's test_layers.py builds and runs, against values measured on Paddle
1.8.5: inputs its kernels read flat (hsigmoid's Label, nce's SampleWeight, a Trans larger
than part_size), leading dims bpr_loss keeps, checks made when the op runs rather than when
it is built, eye's argument errors, pad2d's Variable paddings and the static-only
fluid.dygraph.nn.SequenceConv / RowConv."""
import numpy as np
import pytest

from refimpl import fluid
from refimpl.fluid import layers

pytestmark = pytest.mark.paddle("1.8")


def _run(feed, fetch):
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(fluid.default_startup_program())
    return exe.run(feed=feed, fetch_list=fetch, return_numpy=False)


def _set(name, value):
    fluid.global_scope().find_var(name).get_tensor().set(value, fluid.CPUPlace())


def test_hsigmoid_reads_the_first_n_labels_flat():
    x = layers.data(name="x", shape=[2], dtype="float32")
    wide = layers.data(name="wide", shape=[2], dtype="int64")
    first = layers.data(name="first", shape=[1], dtype="int64")
    outs = [layers.hsigmoid(x, label, num_classes=4, param_attr="w", bias_attr="b")
            for label in (wide, first)]
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(fluid.default_startup_program())
    _set("w", np.array([[0.1, 0.2], [0.3, -0.4], [0.5, 0.6]], "float32"))
    _set("b", np.array([[0.1], [0.2], [-0.3]], "float32"))
    got = exe.run(feed={"x": np.array([[1, 2], [3, -1]], "float32"),
                        "wide": np.array([[2, 1], [3, 0]], "int64"),
                        "first": np.array([[2], [1]], "int64")}, fetch_list=outs)
    np.testing.assert_allclose(got[0].ravel(), [2.0579057, 0.99955213], rtol=1e-6)
    np.testing.assert_array_equal(got[0], got[1])


def test_bpr_loss_keeps_the_leading_dims():
    x = layers.data(name="x", shape=[3, 4], dtype="float32")
    label = layers.data(name="label", shape=[3, 1], dtype="int64")
    loss = layers.bpr_loss(x, label)
    assert tuple(loss.shape) == (-1, 3, 1)
    got, = _run({"x": np.random.RandomState(1).rand(2, 3, 4).astype("float32"),
                 "label": np.array([[[1], [0], [3]], [[2], [2], [0]]], "int64")}, [loss])
    np.testing.assert_allclose(np.array(got).ravel(), [0.48510337, 0.7256284, 0.5836211,
                                                       1.0191613, 0.8291983, 0.6332324],
                               rtol=1e-6)


def test_nce_weights_row_n_by_the_nth_sample_weight():
    x = layers.data(name="x", shape=[4], dtype="float32")
    label = layers.data(name="label", shape=[1], dtype="int64")
    weights = [layers.data(name="w%d" % n, shape=[n, 1], dtype="float32",
                           append_batch_size=False) for n in (3, 2)]
    costs = [layers.nce(x, label, 6, sample_weight=w, param_attr="nce.w", bias_attr="nce.b",
                        num_neg_samples=2, sampler="uniform", seed=3) for w in weights]
    feed = {"x": np.ones((2, 4), "float32"), "label": np.array([[1], [2]], "int64"),
            "w3": np.array([[2], [3], [5]], "float32"), "w2": np.array([[2], [3]], "float32")}
    long, exact = (np.array(c) for c in _run(feed, costs))
    np.testing.assert_array_equal(long, exact)
    with pytest.raises(Exception, match="SampleWeight holds 2 values, fewer than the 3 rows"):
        _run(dict(feed, x=np.ones((3, 4), "float32"),
                  label=np.array([[1], [2], [0]], "int64")), costs[1:])


def test_deformable_roi_pooling_reads_trans_as_part_size():
    """Trans [2, 3, 8, 8] with part_size (2, 2): Paddle's kernel reads it flat as
    [2, 2, 2, 2] (one class); values measured on Paddle 1.8.5."""
    x = layers.data(name="input", shape=[2, 3, 8, 8], dtype="float32",
                    append_batch_size=False)
    rois = layers.data(name="rois", shape=[4], dtype="float32", lod_level=1)
    trans = layers.data(name="trans", shape=[2, 3, 8, 8], dtype="float32",
                        append_batch_size=False)
    out = layers.deformable_roi_pooling(x, rois, trans, no_trans=False, spatial_scale=1.0,
                                        group_size=(1, 1), pooled_height=2, pooled_width=2,
                                        part_size=(2, 2), sample_per_part=2, trans_std=0.1)
    rs = np.random.RandomState(0)
    xv, tv = rs.rand(2, 3, 8, 8).astype("float32"), rs.rand(2, 3, 8, 8).astype("float32")
    rv = fluid.create_lod_tensor(np.array([[0, 0, 4, 4], [1, 2, 6, 7]], "float32"), [[1, 1]],
                                 fluid.CPUPlace())
    got, = _run({"input": xv, "rois": rv, "trans": tv}, [out])
    np.testing.assert_allclose(np.array(got).ravel(), [
        0.65548, 0.56373, 0.39789, 0.60183, 0.54532, 0.44182, 0.47976, 0.42205, 0.56054,
        0.5092, 0.5579, 0.57989, 0.6219, 0.48375, 0.46077, 0.55566, 0.55289, 0.59562,
        0.41423, 0.60939, 0.41553, 0.48244, 0.63521, 0.57693], atol=1e-5)


def test_filter_by_instag_takes_rows_with_unit_trailing_dims():
    ins = layers.data(name="ins", shape=[2, 1], dtype="float32")
    tag = layers.data(name="tag", shape=[1], dtype="int64")
    keep = layers.create_global_var(shape=[1], value=7, dtype="int64", persistable=True,
                                    force_cpu=True, name="keep")
    out, weight = layers.filter_by_instag(ins, tag, keep, is_lod=False)
    assert tuple(out.shape) == (-1, 2)
    values = np.arange(6, dtype="float32").reshape(3, 2, 1)
    got, = _run({"ins": values, "tag": np.array([[7], [1], [7]], "int64")}, [out])
    np.testing.assert_array_equal(np.array(got), [[0, 1], [4, 5]])


def test_sequence_softmax_checks_the_step_width_when_it_runs():
    seq = layers.data(name="seq", shape=[3], dtype="float32", lod_level=1)
    out = layers.sequence_softmax(seq)        # builds, as Paddle 1.8.5 does
    lod = fluid.create_lod_tensor(np.ones((4, 3), "float32"), [[1, 3]], fluid.CPUPlace())
    with pytest.raises(Exception, match="each time step of X must be one value"):
        _run({"seq": lod}, [out])


def test_warpctc_checks_the_ranks_when_it_runs():
    logits = layers.data(name="logits", shape=[4, 4, 8], dtype="float32")
    label = layers.data(name="label", shape=[12, 1], dtype="int32")
    lengths = [layers.data(name=n, shape=[1], dtype="int64", append_batch_size=False)
               for n in ("logits_length", "label_length")]
    loss = layers.warpctc(logits, label, input_length=lengths[0], label_length=lengths[1])
    feed = {"logits": np.zeros((2, 4, 4, 8), "float32"),
            "label": np.zeros((2, 12, 1), "int32"),
            "logits_length": np.array([4], "int64"), "label_length": np.array([1], "int64")}
    with pytest.raises(Exception, match=r"Logits must be \[Tmax, B, C\].*\[2, 4, 4, 8\]"):
        _run(feed, [loss])


@pytest.mark.parametrize("kwargs, message", [
    ({"num_rows": 3.1}, "num_rows should be a non-negative int"),
    ({"num_rows": 3, "num_columns": 2.2}, "num_columns should be a non-negative int"),
    ({"num_rows": 3, "batch_shape": 2}, "batch_shape should be a list or tuple"),
    ({"num_rows": 3, "batch_shape": [-1]}, "each dim of batch_shape"),
    ({"num_rows": 3, "batch_shape": [2, 0]}, "batch_shape should hold positive ints")])
def test_eye_argument_errors(kwargs, message):
    with pytest.raises(TypeError, match=message):
        layers.eye(**kwargs)


def test_eye_batch_shape():
    out = layers.eye(3, 2, batch_shape=[4, 3])
    got, = _run({}, [out])
    np.testing.assert_array_equal(np.array(got), np.broadcast_to(np.eye(3, 2), (4, 3, 3, 2)))


def test_pad2d_paddings_variable():
    x = layers.data(name="x", shape=[1, 2, 3], dtype="float32")
    paddings = layers.fill_constant(shape=[4], dtype="int32", value=1)
    out = layers.pad2d(x, paddings=paddings, mode="reflect")
    op = fluid.default_main_program().global_block().ops[-1]
    assert op.input("Paddings") == [paddings.name] and op.attr("paddings") == []
    xv = np.arange(6, dtype="float32").reshape(1, 1, 2, 3)
    got, = _run({"x": xv}, [out])
    np.testing.assert_array_equal(np.array(got),
                                  np.pad(xv, [(0, 0), (0, 0), (1, 1), (1, 1)], "reflect"))


def _lod_feed(name, data, lengths):
    return {name: fluid.create_lod_tensor(data, [lengths], fluid.CPUPlace())}


def test_sequence_conv_layer_builds_what_fluid_layers_sequence_conv_builds():
    seq = layers.data(name="seq", shape=[3, 4], dtype="float32", lod_level=1,
                      append_batch_size=False)
    conv = fluid.dygraph.nn.SequenceConv("seq_conv", num_filters=2, act="sigmoid",
                                         param_attr=fluid.initializer.Constant(0.1),
                                         bias_attr=fluid.initializer.Constant(0.5))
    out = conv(seq)
    assert list(conv.weight.shape) == [12, 2] and list(conv.bias.shape) == [2]
    ref = layers.sequence_conv(seq, 2, act="sigmoid",
                               param_attr=fluid.initializer.Constant(0.1),
                               bias_attr=fluid.initializer.Constant(0.5))
    data = np.arange(12, dtype="float32").reshape(3, 4)
    got, want = _run(_lod_feed("seq", data, [1, 2]), [out, ref])
    np.testing.assert_array_equal(np.array(got), np.array(want))
    # rows 1 and 2 form one sequence: row 1 sees (zeros, row 1, row 2), row 0 only itself
    sums = [data[0].sum(), data[1:].sum(), data[1:].sum()]
    np.testing.assert_allclose(np.array(got), 1 / (1 + np.exp(-(0.1 * np.array(sums) + 0.5)))
                               [:, None].repeat(2, 1), rtol=1e-6)


def test_row_conv_layer_builds_what_fluid_layers_row_conv_builds():
    x = layers.data(name="x", shape=[3, 5], dtype="float32", lod_level=1,
                    append_batch_size=False)
    conv = fluid.dygraph.nn.RowConv("row_conv", future_context_size=2,
                                    param_attr=fluid.initializer.Constant(1.0))
    out = conv(x)
    assert list(conv.weight.shape) == [3, 5]
    ref = layers.row_conv(x, 2, param_attr=fluid.initializer.Constant(1.0))
    data = np.arange(15, dtype="float32").reshape(3, 5)
    got, want = _run(_lod_feed("x", data, [2, 1]), [out, ref])
    np.testing.assert_array_equal(np.array(got), np.array(want))
    np.testing.assert_array_equal(np.array(got), [data[0] + data[1], data[1], data[2]])


def test_sequence_layers_are_static_only():
    with fluid.dygraph.guard():
        for make in (lambda: fluid.dygraph.nn.SequenceConv("s", num_filters=2),
                     lambda: fluid.dygraph.nn.RowConv("r", future_context_size=2)):
            with pytest.raises(AssertionError, match="not supported by dynamic graph mode"):
                make()
    assert not hasattr(fluid.dygraph, "SequenceConv")      # fluid.dygraph.nn only, as 1.8


def test_dygraph_place_guard_sets_the_place_inside():
    from refimpl.framework.place import current_place
    before = current_place()
    with fluid.framework._dygraph_place_guard(place=fluid.CPUPlace()):
        assert isinstance(current_place(), fluid.CPUPlace)
    assert current_place() == before
