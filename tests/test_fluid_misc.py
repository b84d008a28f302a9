"""fluid's 1.x helpers: LoD values, DataFeeder, flags, one_hot, versions, device_guard."""
import numpy as np
import pytest

import refimpl as paddle
from refimpl import fluid
from refimpl.framework.errors import FeedError
from refimpl.framework.program import Program, program_guard
from refimpl.framework.scope import Scope


def _run(main, feed, fetch, startup=None):
    exe = fluid.Executor(fluid.CPUPlace())
    scope = Scope()
    if startup is not None:
        exe.run(startup, scope=scope)
    return exe.run(main, feed=feed, fetch_list=fetch, scope=scope)


def test_create_lod_tensor_from_sequences():
    t = fluid.create_lod_tensor([[1, 2], [3, 4, 5]], [[2, 3]], fluid.CPUPlace())
    assert isinstance(t, fluid.LoDTensor)
    assert t.recursive_sequence_lengths() == [[2, 3]] and t.lod() == [[0, 2, 5]]
    np.testing.assert_array_equal(np.array(t), np.array([[1], [2], [3], [4], [5]]))
    assert np.array(t).dtype == np.int64
    with pytest.raises(ValueError, match=r"lengths \[\[2, 3\]\], but recursive_seq_lens"):
        fluid.create_lod_tensor([[1, 2], [3, 4, 5]], [[3, 2]], fluid.CPUPlace())


def test_create_lod_tensor_from_array_two_levels():
    data = np.arange(12, dtype="float32").reshape(6, 2)
    t = fluid.create_lod_tensor(data, [[2, 1], [1, 3, 2]], fluid.CPUPlace())
    assert t.lod() == [[0, 2, 3], [0, 1, 4, 6]]
    np.testing.assert_array_equal(np.array(t), data)
    again = fluid.create_lod_tensor(t, [[6]], fluid.CPUPlace())
    assert again.recursive_sequence_lengths() == [[6]]
    with pytest.raises(ValueError, match="do not match data of shape \\[6, 2\\]"):
        fluid.create_lod_tensor(data, [[2, 2]], fluid.CPUPlace())
    with pytest.raises(ValueError, match="not a valid LoD"):     # the levels themselves
        fluid.create_lod_tensor(data, [[2, 2], [1, 3, 2]], fluid.CPUPlace())


def test_lod_tensor_set_lod_and_feed():
    t = fluid.LoDTensor()
    t.set(np.ones((5, 3), "float32"), fluid.CPUPlace())
    t.set_lod([[0, 2, 5]])
    assert t.recursive_sequence_lengths() == [[2, 3]]
    assert t.has_valid_recursive_sequence_lengths()
    with pytest.raises(ValueError, match="offsets starting at 0"):
        t.set_lod([[1, 3]])
    # a program sees the rows; the sum drops the LoD
    main = Program()
    with program_guard(main, Program()):
        x = fluid.data("x", [None, 3])
        s = paddle.sum(x)
    assert float(_run(main, {"x": t}, [s])[0]) == 15.0
    t.set_recursive_sequence_lengths([[1, 1]])
    assert not t.has_valid_recursive_sequence_lengths()
    with pytest.raises(FeedError, match="feed 'x': its LoD \\[\\[0, 1, 2\\]\\]"):
        _run(main, {"x": t}, [s])


def test_create_random_int_lodtensor():
    np.random.seed(0)
    t = fluid.create_random_int_lodtensor([[2, 3]], [4], fluid.CPUPlace(), low=1, high=3)
    a = np.array(t)
    assert a.shape == (5, 4) and a.dtype == np.int64
    assert a.min() >= 1 and a.max() <= 3 and set(np.unique(a)) == {1, 2, 3}
    assert t.lod() == [[0, 2, 5]]


def test_lod_tensor_array_is_a_list():
    arr = fluid.LoDTensorArray()
    arr.append(np.ones(2))
    assert isinstance(arr, list) and len(arr) == 1


def test_data_feeder_builds_feed_dict_that_runs():
    main = Program()
    with program_guard(main, Program()):
        img = fluid.layers.data("img", [2, 2])
        label = fluid.layers.data("label", [1], dtype="int64")
        total = paddle.sum(img) + paddle.cast(paddle.sum(label), "float32")
    feeder = fluid.DataFeeder([img, "label"], fluid.CPUPlace(), program=main)
    batch = [(np.arange(4).reshape(2, 2), 1), ([[1, 1], [1, 1]], 2), (np.zeros((2, 2)), 0)]
    feed = feeder.feed(batch)
    # LoDTensors, as Paddle 1.8.5 / 2.0 feed (the 2.0 tree's fluid/tests/test_data_feeder)
    assert feed["img"].shape() == [3, 2, 2] and np.array(feed["img"]).dtype == np.float32
    assert feed["label"].shape() == [3, 1] and np.array(feed["label"]).dtype == np.int64
    assert feed["label"].recursive_sequence_lengths() == []
    np.testing.assert_array_equal(np.array(feed["label"])[:, 0], [1, 2, 0])
    assert float(_run(main, feed, [total])[0]) == 6 + 4 + 3
    with pytest.raises(ValueError, match="sample 1 has 1 fields, expected 2"):
        feeder.feed([(np.zeros((2, 2)), 1), (np.zeros((2, 2)),)])
    with pytest.raises(ValueError, match="'img' expects shape \\[-1, 2, 2\\]"):
        feeder.feed([(np.zeros(3), 1)])


def test_data_feeder_decorate_reader_feeds_one_dict_per_place(monkeypatch):
    # Paddle 1.8.5's test_parallel_executor_fetch_feed feeds a data-parallel program so
    main, startup = Program(), Program()
    with program_guard(main, startup):
        x = fluid.data("x", [None, 2], "float32")
        label = fluid.data("label", [None, 1], "int64")
        out = fluid.layers.reduce_sum(x, dim=1, keep_dim=True) + \
            fluid.layers.cast(label, "float32")
    feeder = fluid.DataFeeder([x, label], fluid.CPUPlace(), program=main)

    def reader():     # five minibatches of 2 samples: sample i is ([i, i], i)
        for b in range(5):
            yield [([2 * b + j] * 2, 2 * b + j) for j in range(2)]
    monkeypatch.setenv("CPU_NUM", "2")
    groups = list(feeder.decorate_reader(reader, multi_devices=True)())
    assert len(groups) == 2 and all(len(g) == 2 for g in groups)     # the fifth is dropped
    np.testing.assert_array_equal(np.array(groups[1][0]["label"])[:, 0], [4, 5])
    compiled = fluid.CompiledProgram(main).with_data_parallel()
    exe = fluid.Executor(fluid.CPUPlace())
    scope = Scope()
    exe.run(startup, scope=scope)
    got, = exe.run(compiled, feed=groups[1], fetch_list=[out], scope=scope)
    np.testing.assert_array_equal(got[:, 0], [12, 15, 18, 21])      # 3 i for i = 4..7
    single = list(feeder.decorate_reader(reader, multi_devices=False)())
    assert len(single) == 5 and np.array(single[4]["x"]).tolist() == [[8, 8], [9, 9]]
    with pytest.raises(ValueError, match="last 1 minibatches do not fill the 2 places"):
        list(feeder.decorate_reader(reader, multi_devices=True, drop_last=False)())
    with pytest.raises(ValueError, match="3 minibatches given for 2 places"):
        list(feeder.feed_parallel([[([0, 0], 0)]] * 3))


def test_data_feeder_builds_lod_tensors_of_one_and_two_levels():
    main = Program()
    with program_guard(main, Program()):
        words = fluid.layers.data("words", [1], dtype="int64", lod_level=1)
        sents = fluid.layers.data("sents", [1], dtype="int64", lod_level=2)
        label = fluid.layers.data("label", [1], dtype="int64")
    feed = fluid.DataFeeder([words, sents, label], fluid.CPUPlace(), program=main).feed(
        [([1, 2, 3], [[1, 2], [3]], [0]), ([4, 5], [[4]], [1])])
    # Paddle 1.8.5's DataFeeder gives these rows and lengths
    want = {"words": ([[1], [2], [3], [4], [5]], [[3, 2]]),
            "sents": ([[1], [2], [3], [4]], [[2, 1], [2, 1, 1]]), "label": ([[0], [1]], [])}
    for name, (rows, lengths) in want.items():
        value = feed[name]
        np.testing.assert_array_equal(np.array(value), rows)
        assert getattr(value, "recursive_sequence_lengths", lambda: [])() == lengths
    with pytest.raises(ValueError, match="'words' has lod_level 1, but sample 0's field is 7"):
        fluid.DataFeeder([words], fluid.CPUPlace(), program=main).feed([(7,)])


def test_data_feeder_decorate_reader_groups_lod_minibatches_per_place(monkeypatch):
    """Paddle 1.8's decorate_reader on LoD feeds: one feed per minibatch, or (multi_devices)
    lists of CPU_NUM (or num_places) feeds, the minibatches left over dropped; the errors
    are checked above."""
    monkeypatch.setenv("CPU_NUM", "2")
    main = Program()
    with program_guard(main, Program()):
        words = fluid.layers.data("words", [1], dtype="int64", lod_level=1)
    feeder = fluid.DataFeeder([words], fluid.CPUPlace(), program=main)
    batches = [[([k, k],)] for k in range(5)]

    def reader():
        return iter(batches)
    single = list(feeder.decorate_reader(reader, multi_devices=False)())
    assert [np.array(f["words"]).ravel().tolist() for f in single] == \
        [[k, k] for k in range(5)]
    grouped = list(feeder.decorate_reader(reader, multi_devices=True)())
    assert [[np.array(f["words"]).ravel()[0] for f in group] for group in grouped] == \
        [[0, 1], [2, 3]]
    assert grouped[0][1]["words"].recursive_sequence_lengths() == [[2]]
    assert len(list(feeder.decorate_reader(reader, True, num_places=5)())) == 1


def test_data_feed_desc(tmp_path):
    path = tmp_path / "data.proto"
    path.write_text('name: "MultiSlotDataFeed"\nbatch_size: 2\n# comment\n'
                    'multi_slot_desc {\n  slots {\n    name: "words"\n    type: "uint64"\n'
                    '    is_dense: false\n    is_used: true\n  }\n  slots {\n'
                    '    name: "label"\n    type: "uint64"\n    is_dense: false\n'
                    '    is_used: false\n  }\n}\n')
    desc = fluid.DataFeedDesc(str(path))
    assert desc.batch_size == 2 and [s["name"] for s in desc.slots] == ["words", "label"]
    desc.set_batch_size(128)
    desc.set_dense_slots(["words"])
    desc.set_use_slots(["label"])
    text = desc.desc()
    assert "batch_size: 128" in text
    reparsed_path = tmp_path / "again.proto"
    reparsed_path.write_text(text)
    again = fluid.DataFeedDesc(str(reparsed_path))
    assert again.slots == [
        {"name": "words", "type": "uint64", "is_dense": True, "is_used": True},
        {"name": "label", "type": "uint64", "is_dense": False, "is_used": True}]
    with pytest.raises(ValueError, match="no slot named 'nope'"):
        desc.set_use_slots(["nope"])


def test_flags():
    assert fluid.get_flags(["FLAGS_eager_delete_tensor_gb", "FLAGS_check_nan_inf"]) == {
        "FLAGS_eager_delete_tensor_gb": 0.0, "FLAGS_check_nan_inf": False}
    old = fluid.get_flags("FLAGS_eager_delete_tensor_gb")
    try:
        fluid.set_flags({"FLAGS_eager_delete_tensor_gb": 1})
        value = fluid.get_flags("FLAGS_eager_delete_tensor_gb")["FLAGS_eager_delete_tensor_gb"]
        assert value == 1.0 and isinstance(value, float)
    finally:
        fluid.set_flags(old)
    with pytest.raises(ValueError, match="unknown flag 'FLAGS_nope'"):
        fluid.get_flags("FLAGS_nope")
    with pytest.raises(ValueError, match="unknown flag 'FLAGS_nope'"):
        fluid.set_flags({"FLAGS_check_nan_inf": True, "FLAGS_nope": 1})
    assert fluid.get_flags("FLAGS_check_nan_inf")["FLAGS_check_nan_inf"] is False
    with pytest.raises(TypeError, match="FLAGS_check_nan_inf takes a bool, got 1"):
        fluid.set_flags({"FLAGS_check_nan_inf": 1})


def test_fluid_one_hot_is_v2():
    main = Program()
    with program_guard(main, Program()):
        ids = fluid.data("ids", [None, 2], dtype="int64")
        out = fluid.one_hot(ids, depth=3)
    assert tuple(out.shape) == (-1, 2, 3)
    assert main.global_block().ops[-1].type == "one_hot_v2"
    got, = _run(main, {"ids": np.array([[0, 2], [1, 1]], "int64")}, [out])
    np.testing.assert_array_equal(got, np.eye(3, dtype="float32")[[[0, 2], [1, 1]]])
    with program_guard(Program(), Program()):
        # float ids: a TypeError naming the op, as Paddle's check_variable_and_dtype
        with pytest.raises(TypeError, match=r"one_hot_v2.*\['int32', 'int64'\].*float32"):
            fluid.one_hot(fluid.data("f", [None, 1], dtype="float32"), depth=4)


@pytest.mark.paddle("2.0")     # the release the profile follows: 2.0.0
def test_require_version():
    fluid.require_version("1.8")
    fluid.require_version("2.0.0", "2.1")
    with pytest.raises(Exception, match="PaddlePaddle >= 2.1 is required; refimpl follows "
                                        "PaddlePaddle 2.0.0"):
        fluid.require_version("2.1")
    with pytest.raises(Exception, match="<= 1.8"):
        fluid.require_version("1.0", "1.8")
    with pytest.raises(TypeError, match="min_version must be a str"):
        fluid.require_version(2)
    with pytest.raises(ValueError, match="look like"):
        fluid.require_version("2.0-rc")


def test_places_and_unsupported(monkeypatch):
    monkeypatch.setenv("CPU_NUM", "3")
    assert fluid.cuda_pinned_places() == [fluid.CUDAPinnedPlace()] * 3
    assert len(fluid.cuda_pinned_places(2)) == 2
    with pytest.raises(NotImplementedError, match="custom C\\+\\+ operators"):
        fluid.load_op_library("custom_op.so")
    with pytest.warns(DeprecationWarning, match="memory_optimize is deprecated"):
        fluid.memory_optimize(Program())
    with pytest.warns(DeprecationWarning, match="release_memory is deprecated"):
        fluid.release_memory(Program())


@pytest.mark.parametrize("guard", [paddle.static.device_guard, fluid.device_guard])
def test_device_guard_marks_ops(guard):
    main = Program()
    with program_guard(main, Program()):
        x = fluid.data("x", [None, 2])
        a = paddle.scale(x, 2.0)
        with guard("gpu"):
            b = paddle.scale(a, 3.0)
            with guard("cpu"):
                c = paddle.scale(b, 0.5)
            d = b + c
    ops = main.global_block().ops
    assert [op.attrs["op_device"] for op in ops] == ["", "gpu", "cpu", "gpu"]
    got, = _run(main, {"x": np.ones((1, 2), "float32")}, [d])
    np.testing.assert_array_equal(got, [[9.0, 9.0]])
    with pytest.raises(ValueError, match="device must be 'cpu', 'gpu', 'gpu:N' or None, "
                                         "got 'tpu'"):
        with guard("tpu"):
            pass


def test_layer_helper_reads_a_user_layers_arguments():
    # a layer written the Paddle 1.8 way (as test_prelu_op's prelu_t is)
    from refimpl.fluid.layer_helper import LayerHelper
    with program_guard(Program(), Program()):
        x = fluid.data("x", [2, 3, 4, 5], "float64")
        y = fluid.data("y", [2, 3], "float32")
        helper = LayerHelper("prelu", x=x, param_attr=fluid.ParamAttr(name="alpha"))
        assert helper.input_dtype("x").name == "float64" and helper.input("x") is x
        assert helper.multiple_input("x") == [x] and helper.bias_attr.name is None
        alpha = helper.create_parameter(helper.param_attr, [1, 3, 1, 1], "float64")
        assert alpha.name == "alpha"
        with pytest.raises(ValueError, match="different dtypes"):
            LayerHelper("sum", input=[x, y]).input_dtype()
        with pytest.raises(ValueError, match="takes one 'input' input, got 2"):
            LayerHelper("sum", input=[x, y]).input()
        out = helper.create_variable_for_type_inference(x.dtype)
        # Paddle's build-time checks name their category
        with pytest.raises(ValueError, match=r"\[operator prelu\] InvalidArgumentError: mode"):
            helper.append_op(type="prelu", inputs={"X": x, "Alpha": alpha},
                             attrs={"mode": "any"}, outputs={"Out": out})


@pytest.mark.paddle("1.8")   # 1.8's attrs (3.3.1's op descs differ: switch op_desc_attrs)
def test_debugger_prints_blocks_in_paddle_18_layout(tmp_path, monkeypatch):
    from refimpl.fluid import core, debugger
    main = Program()
    block = main.global_block()
    block.create_var(name="rows", dtype="float32", shape=[5, 10],
                     type=core.VarDesc.VarType.SELECTED_ROWS)
    block.create_var(name="seq", dtype="int64", shape=[-1, 1], lod_level=1)
    w = block.create_parameter(name="w", dtype="float32", shape=[10, 8])
    block.create_var(name="out", dtype="float32", shape=[5, 8])
    block.append_op(type="mul", inputs={"X": ["rows"], "Y": [w]}, outputs={"Out": ["out"]},
                    attrs={"x_num_col_dims": 1})
    block.append_op(type="fill_constant", outputs={"Out": ["out@GRAD"]},
                    attrs={"shape": [5, 8], "value": 1.0, "dtype": "float32"})
    text = debugger.pprint_program_codes(main)
    lines = text.split("\n")
    assert lines[:7] == ["// block-0  parent--1", "// variables",
                         "SelectedRows rows (tensor(type=float32, shape=[5, 10]))",
                         "LoDTensor seq (level=1, tensor(type=int64, shape=[-1, 1]))",
                         "Tensor w (tensor(type=float32, shape=[10, 8]))",
                         "Tensor out (tensor(type=float32, shape=[5, 8]))", ""]
    assert lines[7] == "// operators"
    assert lines[8].startswith("out = mul(X=rows, Y=w) [{force_fp32_output=False,op_callstack=")
    assert lines[8].endswith(",x_num_col_dims=1,y_num_col_dims=1}]")
    assert len(lines) == 10     # the gradient's fill_constant is left out
    shown = debugger.pprint_block_codes(block, show_backward=True)
    assert "out@GRAD = 1.0 [shape=[5, 8]]" in shown.split("\n")
    # the DOT graph: w a parameter node, the op's edges; no graphviz here, so no PDF
    monkeypatch.setattr(debugger.shutil, "which", lambda name: None)
    path = str(tmp_path / "g.dot")
    with pytest.warns(UserWarning, match="dot is not installed"):
        assert debugger.draw_block_graphviz(block, highlights=["mul"], path=path) is None
    dot = open(path).read()
    assert dot.startswith("digraph G {") and "<b>w</b>" in dot
    assert "var_0 -> op_0;" in dot and "var_2 -> op_0;" in dot and "op_0 -> var_3;" in dot
    assert 'op_0 [label=<<B>mul</B>>, shape="box", style="rounded,filled,bold", ' \
           'color="#ff4040"' in dot


def test_data_feeder_argument_checks_refuse_in_static_mode_only():
    # Paddle 2.0's check_type / check_dtype / check_variable_and_dtype, which
    # PaddleDetection's ppdet/modeling/ops.py imports from paddle.fluid.data_feeder
    from refimpl.fluid.data_feeder import check_dtype, check_type, check_variable_and_dtype
    with program_guard(Program(), Program()):
        x = paddle.static.data("x", [None, 4], "int64")
        check_variable_and_dtype(x, "x", ["int32", "int64"], "roi_align")
        with pytest.raises(TypeError, match=r"roi_align: the dtype of 'x' must be in "
                                            r"\['float32', 'float64'\], got int64"):
            check_variable_and_dtype(x, "x", ["float32", "float64"], "roi_align")
        with pytest.raises(TypeError, match=r"roi_pool: 'output_size' must be .*int.*got float"):
            check_type(7.0, "output_size", (int, tuple), "roi_pool")
        with pytest.raises(TypeError, match="matrix_nms: 'rois' must be .*Variable.*got ndarray"):
            check_variable_and_dtype(np.zeros(4), "rois", ["float32"], "matrix_nms")
        check_dtype(x.dtype, "x", ["int64"], "op")
    with fluid.dygraph.guard():
        check_type(7.0, "output_size", int, "roi_pool")            # skipped, as in 2.0
        check_dtype("int64", "x", ["float32"], "op")
