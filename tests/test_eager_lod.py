"""LoD on eager tensors: a LoD set through Paddle 1.8's `value().get_tensor()` stays on the
tensor, and eager ops read and pass it on by the same rules as static mode (specs/lod.md;
what Paddle 1.8's OpTest does in its dygraph check)."""
import numpy as np
import pytest

from refimpl import fluid
from refimpl.framework.errors import OpError


def _eager(value, lod=None, stop_gradient=True):
    t = fluid.dygraph.to_variable(value)
    t.stop_gradient = stop_gradient
    if lod is not None:
        t.value().get_tensor().set_recursive_sequence_lengths(lod)
    return t


def _run(op_type, inputs, out_slots, attrs=None):
    """One op appended to the current block, as OpTest's dygraph check does."""
    block = fluid.default_main_program().global_block()
    outs = {slot: block.create_var(name="%s_%s" % (op_type, slot.lower()), dtype="float32")
            for slot in out_slots}
    block.append_op(type=op_type, inputs=inputs, outputs=outs, attrs=attrs or {})
    return outs


def _lod(t):
    return t.value().get_tensor().recursive_sequence_lengths()


def test_a_lod_set_through_value_stays_on_the_tensor():
    with fluid.dygraph.guard():
        x = _eager(np.arange(6, dtype="float32").reshape(3, 2), [[2, 1]])
        assert _lod(x) == [[2, 1]]
        np.testing.assert_array_equal(x.numpy(), np.arange(6).reshape(3, 2))


def test_eager_ops_read_and_pass_on_the_lod_as_static_mode():
    x_value = np.array([[1.0, -2.0], [3.0, 4.0], [-5.0, 6.0]], "float32")
    with fluid.dygraph.guard():
        x = _eager(x_value, [[2, 1]])
        pooled = _run("sequence_pool", {"X": x}, ["Out", "MaxIndex"],
                      {"pooltype": "SUM"})["Out"]
        np.testing.assert_allclose(pooled.numpy(), [[4.0, 2.0], [-5.0, 6.0]])
        assert _lod(pooled) == []                 # one row per sequence: no LoD left
        relu = _run("relu", {"X": x}, ["Out"])["Out"]
        np.testing.assert_allclose(relu.numpy(), np.maximum(x_value, 0))
        assert _lod(relu) == [[2, 1]]             # relu shares X's LoD
        ids = _eager(np.array([[3], [12], [7]], "int64"), [[1, 2]])
        shard = _run("shard_index", {"X": ids}, ["Out"],
                     {"index_num": 20, "nshards": 2, "shard_id": 1, "ignore_value": -1})["Out"]
        np.testing.assert_array_equal(shard.numpy(), [[-1], [2], [-1]])
        assert _lod(shard) == [[1, 2]]


def test_a_lengths_input_comes_from_the_lod_and_reaches_the_gradient():
    """roi_align's images are ROIs' LoD (1.8's form), RoisNum (2.x's), or 1.8's RoisLod
    offsets: all three give the same output and input gradient."""
    rng = np.random.RandomState(0)
    x_value = rng.uniform(-1, 1, (2, 1, 4, 4)).astype("float64")
    rois = np.array([[0, 0, 3, 3], [1, 1, 2, 3], [0.5, 0, 3, 2]], "float64")
    attrs = {"pooled_height": 2, "pooled_width": 2, "spatial_scale": 1.0,
             "sampling_ratio": 2}
    results = []
    with fluid.dygraph.guard():
        for extra, lod in (({}, [[2, 1]]),
                           ({"RoisNum": np.array([2, 1], "int32")}, None),
                           ({"RoisLod": np.array([0, 2, 3], "int64")}, None)):
            x = _eager(x_value, stop_gradient=False)
            inputs = {"X": x, "ROIs": _eager(rois, lod)}
            inputs.update((k, _eager(v)) for k, v in extra.items())
            out = _run("roi_align", inputs, ["Out"], attrs)["Out"]
            fluid.layers.reduce_sum(out * out).backward()
            results.append((out.numpy(), x.gradient()))
    # image 0 holds RoIs 0 and 1, image 1 RoI 2: each RoI reads its own image
    assert not np.allclose(results[0][0][2], _one_image_roi_align(x_value, rois, attrs))
    for out, grad in results[1:]:
        np.testing.assert_allclose(out, results[0][0])
        np.testing.assert_allclose(grad, results[0][1])
    assert np.abs(results[0][1][1]).sum() > 0     # RoI 2's gradient went to image 1


def _one_image_roi_align(x_value, rois, attrs):
    with fluid.dygraph.guard():
        inputs = {"X": _eager(x_value[:1]), "ROIs": _eager(rois)}
        return _run("roi_align", inputs, ["Out"], attrs)["Out"].numpy()[2]


def test_an_op_that_reads_sequences_of_an_input_without_lod_names_it():
    with fluid.dygraph.guard():
        emission = _eager(np.zeros((3, 2), "float64"))
        transition = _eager(np.zeros((4, 2), "float64"))
        with pytest.raises(OpError, match=r"crf_decoding.*Emission.*carries no LoD"):
            _run("crf_decoding", {"Emission": emission, "Transition": transition},
                 ["ViterbiPath"])


def test_a_list_slot_reads_each_inputs_lod():
    # sequence_concat's X is a list: each input's lengths come from its own LoD
    a = np.arange(6, dtype="float32").reshape(3, 2)
    b = -np.arange(4, dtype="float32").reshape(2, 2)
    with fluid.dygraph.guard():
        out = _run("sequence_concat", {"X": [_eager(a, [[2, 1]]), _eager(b, [[0, 2]])]},
                   ["Out"])["Out"]
        np.testing.assert_array_equal(out.numpy(), np.concatenate([a[:2], a[2:], b]))
        assert _lod(out) == [[2, 3]]
