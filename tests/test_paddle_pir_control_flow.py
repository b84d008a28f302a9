"""Paddle 3's PIR json beyond straight-line programs (specs/paddle_formats.md, "PIR
program"): control flow (pd_op.if, pd_op.while, cf.yield) and the ops real inference
programs hold, both ways. Paddle 3.3.1's own jit.save files (tests/fixtures/paddle_models,
make_pir3.py) run in refimpl with Paddle's outputs; what refimpl writes under profile 3
(save_inference_model, paddle.jit.save) Paddle 3.3.1 loads and computes the same (run when
/opt/paddle311 exists)."""
import json
import os
import subprocess

import numpy as np
import pytest

import refimpl as paddle
from refimpl import model_tools, static
from refimpl.framework.paddle_formats import DecodeError, pir_program
from refimpl.framework.program import Program, program_guard
from refimpl.framework.scope import Scope, scope_guard

from helpers import tool_module

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
P3 = os.path.join(ROOT, "tests", "fixtures", "paddle_models", "paddle3.3.1")
PADDLE3 = os.environ.get("REFIMPL_PADDLE3_PYTHON", "/opt/paddle311/bin/python")
_NEEDS_PADDLE3 = pytest.mark.skipif(not os.path.exists(PADDLE3),
                                    reason="Paddle 3.3.1 is not installed at %s" % PADDLE3)


def _against_paddle3(test):
    """A slow profile-3 test that runs Paddle 3.3.1 (skipped where it is not installed)."""
    return pytest.mark.slow(pytest.mark.paddle("3")(_NEEDS_PADDLE3(test)))


def _run_fixture(name):
    """Paddle 3.3.1's jit.save of `name` run by refimpl on each input batch: [(refimpl's
    outputs, Paddle's outputs)]."""
    inputs = np.load(os.path.join(P3, name + "_inputs.npz"))
    want = np.load(os.path.join(P3, name + "_outputs.npz"))
    exe = static.Executor()
    runs = []
    with scope_guard(Scope()):
        program, feeds, fetches = static.load_inference_model(os.path.join(P3, name, "model"),
                                                              exe)
        for k in range(len(inputs[feeds[0]])):
            got = exe.run(program, feed={f: inputs[f][k] for f in feeds}, fetch_list=fetches)
            runs.append(([np.asarray(g) for g in got],
                         [want["out%d_%d" % (i, k)] for i in range(len(fetches))]))
    return runs


@pytest.mark.paddle("3")
def test_paddle3_saved_inference_ops_run_with_paddles_outputs():
    (got, want), = _run_fixture("pir_ops")
    assert len(got) == len(want) == 44
    for i, (g, w) in enumerate(zip(got, want)):
        assert g.dtype == w.dtype and g.shape == w.shape, (i, g.dtype, w.dtype, g.shape, w.shape)
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6, err_msg="output %d" % i)


@pytest.mark.paddle("3")
def test_paddle3_saved_if_and_while_run_with_paddles_outputs():
    """An if on a tensor, then a while loop whose body holds an if, then a for over the
    batch size (a slice of a shape the loop computes) appending to a list (a tensor
    array), stacked and indexed: each input batch takes another branch of the first if
    (s is 14 y in both; t halves y plus 1 twice; the rows are 2 x)."""
    runs = _run_fixture("pir_control_flow")
    assert len(runs) == 2
    for got, want in runs:
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(got[1], 14 * got[0], rtol=1e-5)
        np.testing.assert_allclose(got[2], (got[0] * 0.5 + 1) * 0.5 + 1, rtol=1e-6)
        np.testing.assert_array_equal(got[3][0], got[4])      # the stacked array, its 0th
    with open(os.path.join(P3, "pir_control_flow", "model.json"), "rb") as f:
        program, _, _ = pir_program.decode_program(f.read())
    # the if: a conditional_block per branch; the while's block holds the inner if's two
    types = [op.type for op in program.global_block().ops]
    assert types.count("conditional_block") == 2 and types.count("while") == 2
    assert {"tensor_array_to_tensor", "read_from_array"} <= set(types)
    assert program.num_blocks == 7      # the program, 2 branches, a loop, 2 branches, a loop


def _cond_and_while_program():
    """fc, cond on the sign of its mean, while_loop adding 1 three times: (main, startup,
    x, outputs)."""
    main, startup = Program(), Program()
    with program_guard(main, startup):
        x = static.data("x", [None, 4], "float32")
        h = static.nn.fc(x, 4, bias_attr=False)
        y = static.nn.cond(paddle.mean(h) > 0, lambda: h * 2.0, lambda: paddle.tanh(h) - 1.0)
        limit = paddle.full([1], 3, "int64")
        i, y2 = static.nn.while_loop(lambda i, v: i < limit, lambda i, v: [i + 1, v + 1.0],
                                     [paddle.zeros([1], "int64"), y])
    return main, startup, x, [y, y2, i]


def _save_and_run(prefix, main, startup, feeds, fetches, batches):
    """main saved by save_inference_model at prefix (after startup); its outputs on each
    feed dict of `batches`."""
    exe = static.Executor()
    with scope_guard(Scope()):
        exe.run(startup)
        static.save_inference_model(prefix, feeds, fetches, exe, program=main)
        test_program = main.clone(for_test=True)
        return [[np.asarray(e) for e in exe.run(test_program, feed=batch, fetch_list=fetches)]
                for batch in batches]


def _saved_cond_and_while(prefix):
    """The program saved by save_inference_model; (its outputs on x and -x: each takes
    another branch, the inputs)."""
    main, startup, x, outs = _cond_and_while_program()
    x_in = np.random.RandomState(4).standard_normal([2, 4]).astype("float32")
    inputs = [x_in, -x_in]
    return _save_and_run(prefix, main, startup, [x], outs, [{"x": v} for v in inputs]), inputs


def _region_ops(op):
    return [[o["#"] for o in region["blocks"][0]["ops"]] for region in op["regions"]]


@pytest.mark.paddle("3")
def test_cond_and_while_loop_are_written_as_if_and_while_and_read_back(tmp_path):
    prefix = str(tmp_path / "m")
    expected, inputs = _saved_cond_and_while(prefix)
    assert not np.allclose(expected[0][0], -expected[1][0])    # two branches taken
    with open(prefix + ".json") as f:
        top = json.load(f)["program"]["regions"][0]["blocks"][0]["ops"]
    if_op, = [op for op in top if op["#"] == "1.if"]
    while_op, = [op for op in top if op["#"] == "1.while"]
    assert _region_ops(if_op) == [["1.full", "1.scale", "1.assign", "2.yield"],
                                  ["1.tanh", "1.full", "1.scale", "1.assign", "2.yield"]]
    # the loop carries i and v: block arguments -1, -2 (the condition is yielded first)
    args = while_op["regions"][0]["blocks"][0]["args"]
    assert [a["#"] for a in args] == [-1, -2] and len(while_op["I"]) == 3
    assert _region_ops(while_op)[0][-1] == "2.yield"
    exe = static.Executor()
    with scope_guard(Scope()):
        program, feeds, fetches = static.load_inference_model(prefix, exe)
        for x_in, want in zip(inputs, expected):
            got = exe.run(program, feed={"x": x_in}, fetch_list=fetches)
            for g, w in zip(got, want):
                np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-6, atol=1e-6)
    assert [op.type for op in program.global_block().ops].count("conditional_block") == 2


@_against_paddle3
def test_paddle3_computes_refimpls_if_and_while(tmp_path):
    prefix = str(tmp_path / "m")
    expected, inputs = _saved_cond_and_while(prefix)
    files = model_tools.locate(prefix)
    results = model_tools.run_paddle_many(PADDLE3, [(files, {"x": x}) for x in inputs], 300)
    for (_, got, version), want in zip(results, expected):
        assert version == "3.3.1"
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, np.asarray(w), rtol=1e-5, atol=1e-6)


def _inference_ops_program():
    """tools/pir_op_facts.py's program of the other inference ops."""
    return tool_module("pir_op_facts").inference_ops_program(paddle)


def _saved_inference_ops(prefix):
    main, feeds, fetches, startup = _inference_ops_program()
    rng = np.random.RandomState(2)
    inputs = {"x": rng.standard_normal([3, 4]).astype("float32"),
              "img": rng.standard_normal([3, 2, 6, 6]).astype("float32"),
              "ids": rng.randint(0, 10, [3, 3]).astype("int64")}
    expected, = _save_and_run(prefix, main, startup, feeds, fetches, [inputs])
    return expected, inputs


@pytest.mark.paddle("3")
def test_inference_ops_are_written_as_pir_and_read_back(tmp_path):
    prefix = str(tmp_path / "m")
    expected, inputs = _saved_inference_ops(prefix)
    with open(prefix + ".json") as f:
        ops = {op["#"] for op in json.load(f)["program"]["regions"][0]["blocks"][0]["ops"]}
    assert {"1.mean", "1.argmax", "1.topk", "1.arange", "1.remainder", "1.floor_divide",
            "1.split_with_num", "1.conv2d_transpose", "1.bilinear_interp", "1.pad3d",
            "1.embedding", "1.squeeze", "1.hardsigmoid", "1.full_like"} <= ops
    exe = static.Executor()
    with scope_guard(Scope()):
        program, _, fetches = static.load_inference_model(prefix, exe)
        got = exe.run(program, feed=inputs, fetch_list=fetches)
    assert len(got) == len(expected) == 55
    for i, (g, e) in enumerate(zip(got, expected)):
        assert np.asarray(g).dtype == e.dtype, i
        np.testing.assert_allclose(np.asarray(g), e, rtol=1e-6, atol=1e-6, err_msg=str(i))


@_against_paddle3
def test_paddle3_computes_refimpls_inference_ops(tmp_path):
    prefix = str(tmp_path / "m")
    expected, inputs = _saved_inference_ops(prefix)
    names, got, version = model_tools.run_paddle(PADDLE3, model_tools.locate(prefix), inputs,
                                                 300)
    assert version == "3.3.1" and len(got) == len(expected) == 55
    for i, (g, e) in enumerate(zip(got, expected)):
        assert g.shape == e.shape and g.dtype == e.dtype, (names[i], g.dtype, e.dtype)
        np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-5, err_msg=names[i])


def _saved_tensor_attributes(prefix):
    """reshape to a shape tensor, tile / expand by computed tensors, clip between tensors:
    the legacy ops' tensor inputs are PIR's inputs (no constant); (outputs, inputs)."""
    main, startup = Program(), Program()
    with program_guard(main, startup):
        x = static.data("x", [None, 4], "float32")
        y = static.data("y", [None, 2, 2], "float32")
        size = paddle.concat([paddle.full([1], 2, "int32"), paddle.shape(x)])
        outs = [paddle.reshape(x, paddle.shape(y)), paddle.tile(x, paddle.full([2], 2, "int32")),
                paddle.expand(paddle.unsqueeze(x, 0), size),
                paddle.clip(x, paddle.full([1], -0.2), paddle.full([1], 0.3))]
    inputs = {"x": np.random.RandomState(6).standard_normal([2, 4]).astype("float32"),
              "y": np.zeros([2, 2, 2], "float32")}
    expected, = _save_and_run(prefix, main, startup, [x, y], outs, [inputs])
    return expected, inputs


@pytest.mark.paddle("3")
def test_attributes_given_as_tensors_stay_tensors(tmp_path):
    prefix = str(tmp_path / "m")
    expected, inputs = _saved_tensor_attributes(prefix)
    assert [e.shape for e in expected] == [(2, 2, 2), (4, 8), (2, 2, 4), (2, 4)]
    with open(prefix + ".json") as f:
        ops = json.load(f)["program"]["regions"][0]["blocks"][0]["ops"]
    reshape, = [op for op in ops if op["#"] == "1.reshape"]
    shapes = [op["O"][0]["%"] for op in ops if op["#"] == "1.shape"]
    assert reshape["I"][1]["%"] in shapes       # a shape op's value, no constant
    exe = static.Executor()
    with scope_guard(Scope()):
        program, _, fetches = static.load_inference_model(prefix, exe)
        got = exe.run(program, feed=inputs, fetch_list=fetches)
    for g, e in zip(got, expected):
        np.testing.assert_array_equal(np.asarray(g), e)
    # a constant read back is an attribute again (clip's bounds, tile's [2, 2])
    assert program.global_block().ops[-1].attrs["max"] == pytest.approx(0.3)


@_against_paddle3
def test_paddle3_computes_refimpls_tensor_attributes(tmp_path):
    prefix = str(tmp_path / "m")
    expected, inputs = _saved_tensor_attributes(prefix)
    _, got, _ = model_tools.run_paddle(PADDLE3, model_tools.locate(prefix), inputs, 300)
    for g, e in zip(got, expected):
        np.testing.assert_array_equal(g, e)


# run by Paddle 3.3.1: paddle.jit.load of a prefix, its output on <prefix>_x.npy
_JIT_LOAD = r"""
import sys
import numpy as np
import paddle
layer = paddle.jit.load(sys.argv[1])
out = layer(paddle.to_tensor(np.load(sys.argv[1] + "_x.npy")))
np.save(sys.argv[1] + "_paddle.npy", (out[0] if isinstance(out, (list, tuple)) else out).numpy())
"""


class _Encoder(paddle.nn.Layer):
    """Embedding, a 2-layer TransformerEncoder (matmul v1 with alpha in its attention)."""

    def __init__(self):
        super().__init__()
        self.emb = paddle.nn.Embedding(20, 16)
        self.enc = paddle.nn.TransformerEncoder(paddle.nn.TransformerEncoderLayer(16, 2, 32), 2)

    def forward(self, x):
        return self.enc(self.emb(x))


class _IfAndWhile(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(4, 4)

    def forward(self, x):
        y = self.fc(x)
        if paddle.mean(y) > 0:
            y = y * 2.0
        else:
            y = y - 1.0
        i = paddle.zeros([1], "int64")
        while i < 3:
            y = y + 1.0
            i = i + 1
        return y


class _Recurrent(paddle.nn.Layer):
    """nn.LSTM, GRU and SimpleRNN, then a while loop reading and writing a tensor array."""

    def __init__(self):
        super().__init__()
        self.lstm = paddle.nn.LSTM(4, 3)
        self.gru = paddle.nn.GRU(3, 3, direction="bidirect")
        self.rnn = paddle.nn.SimpleRNN(6, 2)

    def forward(self, x):
        i, array = paddle.zeros([1], "int64"), paddle.tensor.create_array("float32")
        paddle.tensor.array_write(self.rnn(self.gru(self.lstm(x)[0])[0])[0], i, array=array)
        while i < 3:        # each item the last one halved plus 1
            i = i + 1
            paddle.tensor.array_write(1.0 + 0.5 * paddle.tensor.array_read(array, i - 1), i,
                                      array=array)
        length = paddle.tensor.array_length(array)
        return paddle.tensor.array_read(array, i) + length.astype("float32")


@_against_paddle3
@pytest.mark.parametrize("name", ["mobilenet_v2", "resnet18", "encoder", "if_and_while",
                                  "recurrent"])
def test_paddle3_jit_loads_refimpls_jit_save(tmp_path, name):
    """paddle.jit.save of a to_static Layer under profile 3 writes PIR json (control flow,
    rnn ops and tensor arrays included); Paddle 3.3.1's paddle.jit.load computes refimpl's
    output."""
    paddle.disable_static()
    try:
        paddle.seed(3)
        rng = np.random.RandomState(1)
        if name == "if_and_while":
            net, spec = _IfAndWhile(), paddle.static.InputSpec([None, 4], "float32", "x")
        elif name == "recurrent":
            net, spec = _Recurrent(), paddle.static.InputSpec([None, 5, 4], "float32", "x")
        elif name == "encoder":
            net, spec = _Encoder(), paddle.static.InputSpec([None, 5], "int64", "x")
        else:
            net = getattr(paddle.vision.models, name)()
            spec = paddle.static.InputSpec([None, 3, 32, 32], "float32", "x")
        net.eval()
        x = rng.randint(0, 20, [2, 5]) if name == "encoder" else rng.standard_normal(
            [2] + list(spec.shape[1:])).astype("float32")
        prefix = str(tmp_path / "model")
        paddle.jit.save(paddle.jit.to_static(net, input_spec=[spec]), prefix)
        want = net(paddle.to_tensor(x)).numpy()
    finally:
        paddle.enable_static()
    assert os.path.exists(prefix + ".json") and not os.path.exists(prefix + ".pdmodel")
    np.save(prefix + "_x.npy", x)
    done = subprocess.run([PADDLE3, "-I", "-c", _JIT_LOAD, prefix], timeout=300,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-3000:]
    got = np.load(prefix + "_paddle.npy")
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5 * np.abs(want).max())


@pytest.mark.paddle("3")
def test_paddle3_saved_rnns_and_tensor_arrays_run_with_paddles_outputs():
    """nn.LSTM on sequence lengths 5 and 3, a bidirectional 2-layer nn.GRU and
    nn.SimpleRNN (pd_op.rnn, initial states full_with_tensor of a stacked shape, the
    dropout state a non-persistable parameter), then a while loop over a tensor array: the
    LSTM's outputs past a sequence's end are 0, the array's last item is the rnn's output
    halved plus 1 three times, its length 4."""
    (got, want), = _run_fixture("pir_recurrent")
    assert len(got) == len(want) == 8
    for i, (g, w) in enumerate(zip(got, want)):
        assert g.dtype == w.dtype and g.shape == w.shape, (i, g.dtype, w.dtype, g.shape, w.shape)
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6, err_msg="output %d" % i)
    assert [g.shape for g in got[:6]] == [(2, 5, 3), (1, 2, 3), (1, 2, 3), (2, 5, 6), (2, 5, 2),
                                          (1, 2, 2)]
    assert not got[0][1, 3:].any() and got[0][1, :3].all() and got[0][0].all()
    np.testing.assert_allclose(got[6], ((got[4] * 0.5 + 1) * 0.5 + 1) * 0.5 + 1, rtol=1e-6)
    assert got[7].tolist() == [4]
    with open(os.path.join(P3, "pir_recurrent", "model.json"), "rb") as f:
        program, _, _ = pir_program.decode_program(f.read())
    types = [op.type for op in program.global_block().ops]
    assert types.count("rnn") == 3 and types.count("while") == 1
    modes = [op.attrs["mode"] for op in program.global_block().ops if op.type == "rnn"]
    assert modes == ["LSTM", "GRU", "RNN_TANH"]


@pytest.mark.paddle("3")
def test_paddle3_saved_select_input_and_output_run_with_paddles_outputs():
    """Paddle's translation of select_output of x to two branches, select_input of x * 2 /
    x - 1 and of the branches, on the mask mean(x) > 0: the input picked by the mask, and
    x back."""
    runs = _run_fixture("pir_select")
    x = np.load(os.path.join(P3, "pir_select_inputs.npz"))["x"]
    for (got, want), batch in zip(runs, x):
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g, w)
        picked = batch - 1.0 if batch.mean() > 0 else batch * 2.0
        np.testing.assert_allclose(got[0], picked, rtol=1e-6)
        np.testing.assert_array_equal(got[1], batch)
    assert [batch.mean() > 0 for batch in x] == [True, False]      # both masks taken


def _recurrent_ops_program():
    """tools/pir_op_facts.py's program of tensor arrays in a while loop, select_input /
    select_output, fill_constant_batch_size_like and a StaticRNN."""
    return tool_module("pir_op_facts").recurrent_ops_program(paddle)


def _rnn_program():
    """nn.LSTM on sequence lengths, a bidirectional 2-layer nn.GRU on it, nn.SimpleRNN:
    each one's outputs and final states."""
    main, startup = Program(), Program()
    with program_guard(main, startup):
        seq = static.data("seq", [None, 5, 4], "float32")
        lengths = static.data("lengths", [None], "int64")
        lstm, (h, c) = paddle.nn.LSTM(4, 3)(seq, sequence_length=lengths)
        gru, gru_h = paddle.nn.GRU(3, 3, num_layers=2, direction="bidirect")(lstm)
        rnn, rnn_h = paddle.nn.SimpleRNN(6, 2)(gru)
    return main, [seq, lengths], [lstm, h, c, gru, gru_h, rnn, rnn_h], startup


def _loop_local_array_program():
    """A while loop whose body makes its own tensor array each step (x, 2x in it, their sum
    read back): y = 27 x after three steps."""
    layers = paddle.fluid.layers
    main, startup = Program(), Program()
    with program_guard(main, startup):
        x = static.data("x", [None, 4], "float32")

        def body(i, y):
            local = layers.create_array("float32")
            zero, one = paddle.zeros([1], "int64"), paddle.ones([1], "int64")
            layers.array_write(y, zero, array=local)
            layers.array_write(y * 2.0, one, array=local)
            return [i + 1, layers.array_read(local, one) + layers.array_read(local, zero)]
        _, y = static.nn.while_loop(lambda i, y: i < 3, body, [paddle.zeros([1], "int64"), x])
    return main, [x], [y], startup


def _saved_recurrent_ops(prefix):
    """The programs saved (prefix_arrays, prefix_rnn, prefix_local); [(outputs, inputs,
    prefix)]."""
    rng = np.random.RandomState(8)
    saved = []
    for build, name, inputs in (
            (_recurrent_ops_program, "arrays",
             {"x": rng.standard_normal([3, 4]).astype("float32"),
              "seq": rng.standard_normal([3, 2, 4]).astype("float32")}),
            (_rnn_program, "rnn", {"seq": rng.standard_normal([2, 5, 4]).astype("float32"),
                                   "lengths": np.array([2, 5], "int64")}),
            (_loop_local_array_program, "local",
             {"x": rng.standard_normal([2, 4]).astype("float32")})):
        main, feeds, fetches, startup = build()
        expected, = _save_and_run(prefix + "_" + name, main, startup, feeds, fetches, [inputs])
        saved.append((expected, inputs, prefix + "_" + name))
    return saved


@pytest.mark.paddle("3")
def test_tensor_arrays_select_and_rnn_are_written_as_pir_and_read_back(tmp_path):
    saved = _saved_recurrent_ops(str(tmp_path / "m"))
    ops = []
    for _, _, prefix in saved:
        with open(prefix + ".json") as f:
            ops.append([op["#"] for op in pir_program._all_ops(
                json.load(f)["program"]["regions"][0]["blocks"][0]["ops"])])
    assert {"1.create_array", "1.array_write_", "1.array_read", "1.array_length",
            "1.array_to_tensor", "1.while", "1.select_input", "1.select_output",
            "1.full_batch_size_like", "1.unstack", "1.add_n"} <= set(ops[0])
    # an array written first in the loop is created before it
    assert ops[0].count("1.create_array") == 2 and ops[0].count("1.array_write_") == 3
    assert ops[1].count("1.rnn") == 3 and ops[1].count("1.full_batch_size_like") == 4
    with open(saved[2][2] + ".json") as f:      # the body's array: made in its region
        loop, = [op for op in json.load(f)["program"]["regions"][0]["blocks"][0]["ops"]
                 if op["#"] == "1.while"]
    assert _region_ops(loop)[0].count("1.create_array") == 1
    exe = static.Executor()
    for expected, inputs, prefix in saved:
        with scope_guard(Scope()):
            program, _, fetches = static.load_inference_model(prefix, exe)
            got = exe.run(program, feed=inputs, fetch_list=fetches)
        assert len(got) == len(expected)
        for i, (g, e) in enumerate(zip(got, expected)):
            assert np.asarray(g).dtype == e.dtype and np.asarray(g).shape == e.shape, i
            np.testing.assert_allclose(np.asarray(g), e, rtol=1e-6, atol=1e-7, err_msg=str(i))
    arrays = saved[0]
    x = arrays[1]["x"]
    mask_taken = x.mean() > 0
    np.testing.assert_allclose(arrays[0][0], 8 * x, rtol=1e-6)      # doubled three times
    assert arrays[0][1].tolist() == [4]
    np.testing.assert_allclose(arrays[0][3], np.concatenate([x, 2 * x, 4 * x], axis=1),
                               rtol=1e-6)      # the steps' items, concatenated
    np.testing.assert_allclose(arrays[0][4], x - 1 if mask_taken else 2 * x, rtol=1e-6)
    np.testing.assert_array_equal(arrays[0][5], x)
    lstm = saved[1][0][0]
    assert not lstm[0, 2:].any() and lstm[0, :2].all()     # past the first sequence's end
    np.testing.assert_allclose(saved[2][0][0], 27 * saved[2][1]["x"], rtol=1e-6)
    assert arrays[0][7].shape == (3, 2, 3) and np.abs(arrays[0][7]).max() < 1   # tanh steps


@_against_paddle3
def test_paddle3_computes_refimpls_tensor_arrays_select_and_rnn(tmp_path):
    saved = _saved_recurrent_ops(str(tmp_path / "m"))
    results = model_tools.run_paddle_many(
        PADDLE3, [(model_tools.locate(prefix), inputs) for _, inputs, prefix in saved], 300)
    for (names, got, version), (expected, _, _) in zip(results, saved):
        assert version == "3.3.1" and len(got) == len(expected)
        for name, g, e in zip(names, got, expected):
            assert g.shape == e.shape and g.dtype == e.dtype, name
            np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-6, err_msg=name)


def _pir(ops):
    return json.dumps({"base_code": {"magic": "pir", "version": 4}, "program": {"regions": [
        {"blocks": [{"ops": ops}]}]}}).encode()


_BOOL = {"#": "0.t_dtensor", "D": [{"#": "0.t_bool"}, [1], "NCHW", [], 0]}


def test_malformed_control_flow_is_refused_naming_the_op():
    cond = {"#": "1.full", "A": [{"N": "shape", "AT": {"#": "1.a_intarray", "D": [1]}},
                                 {"N": "value", "AT": {"#": "0.a_f64", "D": 1.0}},
                                 {"N": "dtype", "AT": {"#": "1.a_dtype", "D": "bool"}}],
            "I": [], "O": [{"%": 1, "TT": _BOOL}]}
    no_yield = {"#": "1.if", "I": [{"%": 1}], "O": [], "regions": [
        {"blocks": [{"args": [], "ops": []}]}, {"blocks": [{"args": [], "ops": []}]}]}
    with pytest.raises(DecodeError, match=r"PIR op 1 \(pd_op.if\) region 0: a region that "
                                          r"does not end in cf.yield"):
        pir_program.decode_program(_pir([cond, no_yield]))
    one_region = dict(no_yield, regions=no_yield["regions"][:1])
    with pytest.raises(DecodeError, match=r"1 regions, an if has two"):
        pir_program.decode_program(_pir([cond, one_region]))
    stray = {"#": "2.yield", "I": [{"%": 1}], "O": []}
    with pytest.raises(DecodeError, match=r"cf.yield outside a region's end"):
        pir_program.decode_program(_pir([cond, stray]))


def _dense(dims, dtype="0.t_f32"):
    return {"#": "0.t_dtensor", "D": [{"#": dtype}, dims, "NCHW", [], 0]}


@pytest.mark.paddle("3")
def test_builtin_slice_takes_one_element_of_a_vector():
    """Paddle's translation of an unrolled StaticRNN: unstack's vector, each step's item
    taken by builtin.slice (index), summed by add_n."""
    data = {"#": "1.data", "A": [{"N": "name", "AT": {"#": "0.a_str", "D": "x"}},
                                 {"N": "shape", "AT": {"#": "1.a_intarray", "D": [3, 2]}},
                                 {"N": "dtype", "AT": {"#": "1.a_dtype", "D": "float32"}}],
            "I": [], "O": [{"%": 1, "TT": _dense([3, 2])}]}
    unstack = {"#": "1.unstack", "A": [{"N": "axis", "AT": {"#": "0.a_i32", "D": 0}},
                                       {"N": "num", "AT": {"#": "0.a_i32", "D": 3}}],
               "I": [{"%": 1}], "O": [{"%": 2, "TT": {"#": "0.t_vec", "D": [_dense([2])] * 3}}]}
    items = [{"#": "0.slice", "A": [{"N": "index", "AT": {"#": "0.a_i32", "D": k}}],
              "I": [{"%": 2}], "O": [{"%": 3 + k, "TT": _dense([2])}]} for k in (2, 0)]
    combine = {"#": "0.combine", "A": [], "I": [{"%": 3}, {"%": 5}],
               "O": [{"%": 6, "TT": {"#": "0.t_vec", "D": [_dense([2])] * 2}}]}
    add_n = {"#": "1.add_n", "A": [], "I": [{"%": 6}], "O": [{"%": 7, "TT": _dense([2])}]}
    fetch = {"#": "1.fetch", "A": [], "I": [{"%": 7}], "O": []}
    program, feeds, fetches = pir_program.decode_program(
        _pir([data, unstack] + items + [combine, add_n, fetch]))
    x = np.arange(6, dtype="float32").reshape(3, 2)
    got, = static.Executor().run(program, feed={"x": x}, fetch_list=fetches)
    np.testing.assert_array_equal(np.asarray(got), [4.0 + 0.0, 5.0 + 1.0])     # x[2] + x[0]
