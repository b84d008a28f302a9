"""Regenerates refimpl/framework/paddle_formats/pir_op_facts.json from real Paddle 3:

    python tools/pir_op_facts.py --paddle /opt/paddle311/bin/python

refimpl builds an inference program using every op its PIR writer translates and saves it
as a ProgramDesc; Paddle translates that program to PIR (paddle.pir.translate_to_pir) and
serializes it as save_inference_model does. From Paddle's json this records, per PIR op:
its attributes in Paddle's order with their attribute types (array item types too) and
the value Paddle gave them, and its numbers of inputs and outputs - what the writer needs
to write attributes Paddle's deserializer accepts (a missing attribute, or an i32 where it
wants an i64, is refused). The value Paddle gave is the writer's default for attributes
a refimpl op does not carry.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
OUT = os.path.join(ROOT, "refimpl", "framework", "paddle_formats", "pir_op_facts.json")

# run by Paddle 3: legacy ProgramDesc file -> PIR json file, as save_inference_model writes
TRANSLATE = r"""
import sys
import paddle
from paddle.base import core
paddle.enable_static()
for model, out in zip(sys.argv[2::2], sys.argv[3::2]):
    with paddle.pir_utils.OldIrGuard():
        desc = paddle.static.Program.parse_from_string(open(model, "rb").read()).desc
    core.serialize_pir_program(paddle.pir.translate_to_pir(desc), out, True, False, True)
# the data and fetch ops as save_inference_model writes them (a translation has feed ops)
main = paddle.static.Program()
with paddle.static.program_guard(main):
    x = paddle.static.data("x", [None, 4], "float32")
    y = paddle.nn.functional.relu(x)
paddle.static.save_inference_model(sys.argv[1], [x], [y], paddle.static.Executor(), program=main)
# the rnn op as Paddle writes nn.LSTM (refimpl's DropoutState, shaped as Out, is one
# Paddle's translator cannot make a `full` of)
main, startup = paddle.static.Program(), paddle.static.Program()
with paddle.static.program_guard(main, startup):
    seq = paddle.static.data("seq", [None, 5, 4], "float32")
    y, _ = paddle.nn.LSTM(4, 3)(seq)
exe = paddle.static.Executor()
exe.run(startup)
paddle.static.save_inference_model(sys.argv[1] + "_rnn", [seq], [y], exe, program=main)
print(paddle.__version__)
"""


def every_op_program(paddle):
    """An inference program using every op type the PIR writer translates:
    (program, feed vars, fetch vars, startup program)."""
    F = paddle.nn.functional
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [None, 4], "float32")
        h = paddle.static.nn.fc(x, 6, activation="relu")
        img = paddle.static.data("img", [None, 1, 6, 6], "float32")
        c = paddle.static.nn.conv2d(img, 2, 3, padding=1)
        b = paddle.static.nn.batch_norm(c, act="relu")
        g = F.gelu(F.layer_norm(h, [6]))
        t = paddle.transpose(paddle.reshape(g, [-1, 2, 3]), [0, 2, 1])
        f = paddle.flatten(paddle.concat([t, paddle.scale(t, 2.0, 0.5)], axis=2), 1)
        d = F.dropout(paddle.tanh(f) + F.sigmoid(f), 0.3, training=False)
        m = d - paddle.mean(d, axis=1, keepdim=True)
        ids = paddle.static.data("ids", [None, 3], "int64")
        e = paddle.nn.Embedding(10, 4)(ids)
        fetches = [F.max_pool2d(b, 2, 2), F.avg_pool2d(b, 2, 2), paddle.matmul(e, e, transpose_y=True),
                   paddle.exp(m), paddle.sqrt(paddle.abs(m)), paddle.log(m * m), F.relu6(m),
                   F.leaky_relu(m, 0.1), F.hardswish(m), F.softmax(m), paddle.cast(m, "float64"),
                   paddle.sum(m, axis=0), paddle.max(m), paddle.min(m, axis=1),
                   paddle.squeeze(paddle.unsqueeze(m, 1), 1), paddle.divide(m, m),
                   paddle.maximum(m, m), paddle.minimum(m, m), paddle.pow(m, 2.0),
                   paddle.full([2, 3], 1.5), F.log_softmax(m), paddle.stack([m, m], axis=1),
                   paddle.slice(m, [1], [2], [8]), m[:, 2]] + paddle.split(m, [4, 8], axis=1)
    return main, [x, img, ids], fetches, startup


def inference_ops_program(paddle):
    """The other ops real inference programs hold (argmax, top-k, gather, comparisons,
    normalizations, interpolation, padding, matmul v1, ...): (program, feed vars, fetch
    vars, startup program)."""
    F = paddle.nn.functional
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [None, 4], "float32")
        img = paddle.static.data("img", [None, 2, 6, 6], "float32")
        ids = paddle.static.data("ids", [None, 3], "int64")
        index = paddle.full([2], 1, "int64")
        positive, small = x > 0, x < 1
        fetches = [paddle.mean(x), paddle.assign(x), paddle.shape(img), paddle.flatten(img, 1, 2),
                   paddle.argmax(x, axis=1), *paddle.topk(x, 2, axis=1), paddle.gather(x, index),
                   paddle.gather_nd(img, paddle.full([2, 2], 1, "int64")),
                   paddle.where(positive, x, x * 2), paddle.clip(x, -0.5, 0.5),
                   paddle.arange(0, 5, 1, "int64"),
                   paddle.expand(paddle.unsqueeze(x, 0), [2, -1, 4]), paddle.tile(x, [2, 1]),
                   paddle.cumsum(x, axis=1), paddle.equal(x, x), paddle.not_equal(x, x),
                   paddle.less_equal(x, x), paddle.greater_equal(x, x),
                   paddle.logical_and(positive, small), paddle.logical_or(positive, small),
                   paddle.logical_xor(positive, small), paddle.logical_not(positive),
                   paddle.cast(x, "bool"), paddle.prod(x, axis=1), paddle.any(positive, axis=1),
                   paddle.all(positive), F.one_hot(ids, 10), paddle.nn.InstanceNorm2D(2)(img),
                   paddle.nn.GroupNorm(2, 2)(img), paddle.nn.Conv2D(2, 2, 3, groups=2)(img),
                   paddle.nn.PReLU()(x), F.hardsigmoid(x),
                   F.swish(x), paddle.mod(x, x + 3.0),
                   paddle.floor_divide(ids, ids + 1), paddle.pow(x * x + 1.0, x),
                   paddle.nn.Conv2DTranspose(2, 3, 3, stride=2, padding=1, output_padding=1)(img),
                   F.interpolate(img, scale_factor=2, mode="bilinear"),
                   F.interpolate(img, size=[3, 4], mode="nearest"),
                   F.pad(img, [1, 1, 2, 0], mode="constant", value=0.5),
                   paddle.squeeze(paddle.unsqueeze(x, [0, 2]), [0]),
                   paddle.index_select(x, index, axis=1),
                   paddle.fluid.layers.embedding(paddle.unsqueeze(ids, 2), [10, 4]),
                   paddle.floor(x), paddle.square(x), paddle.erf(x), paddle.sin(x),
                   paddle.cos(x), paddle.reciprocal(x + 3.0), paddle.full_like(x, 2.5),
                   paddle.fluid.layers.matmul(x, x, transpose_y=True, alpha=0.5),
                   paddle.fluid.layers.matmul(x, x, transpose_x=True)] + paddle.split(x, 2, axis=1)
    return main, [x, img, ids], fetches, startup


def recurrent_ops_program(paddle):
    """Tensor arrays written and read in a while loop (one written there first: each
    step's item of the other), select_output (its branch not taken
    is not written: only select_input reads the branches) and select_input,
    fill_constant_batch_size_like (an RNN's initial state), a StaticRNN (unrolled:
    unstack, sum): (program, feed vars, fetch vars, startup program)."""
    layers = paddle.fluid.layers
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [None, 4], "float32")
        seq = paddle.static.data("seq", [3, None, 4], "float32")
        rnn = layers.StaticRNN()
        with rnn.step():
            word = rnn.step_input(seq)
            prev = rnn.memory(shape=[-1, 3], batch_ref=word)
            hidden = layers.fc(input=[word, prev], size=3, act="tanh")
            rnn.update_memory(prev, hidden)
            rnn.output(hidden)
        i, n = paddle.zeros([1], "int64"), paddle.full([1], 3, "int64")
        array, steps = layers.create_array("float32"), layers.create_array("float32")
        layers.array_write(x, i, array=array)

        def body(i, array, steps):
            item = layers.array_read(array, i)
            layers.array_write(item, i, array=steps)
            layers.array_write(item * 2.0, i + 1, array=array)
            return [i + 1, array, steps]
        i, array, steps = paddle.static.nn.while_loop(lambda i, *arrays: i < n, body,
                                                      [i, array, steps])
        mask = paddle.cast(paddle.mean(x) > 0, "int32")
        block = main.current_block()
        branches = [block.create_var(name="branch_%d" % k, dtype="float32", shape=[-1, 4])
                    for k in range(2)]
        layers.control_flow.select_output(x, branches, mask)
        fetches = [layers.array_read(array, i), layers.array_length(array),
                   layers.tensor_array_to_tensor(array, axis=0, use_stack=True)[0],
                   layers.tensor_array_to_tensor(steps, axis=1, use_stack=False)[0],
                   layers.control_flow.select_input([x * 2.0, x - 1.0], mask),
                   layers.control_flow.select_input(branches, mask),
                   layers.fill_constant_batch_size_like(x, [1, -1, 3], "float32", 0.5,
                                                        output_dim_idx=1), rnn()]
    return main, [x, seq], fetches, startup


def facts_of(doc, facts):
    """Add the ops of a PIR json doc to facts (the first use of each op gives its facts)."""
    from refimpl.framework.paddle_formats.pir_program import _all_ops
    for op in _all_ops(doc["program"]["regions"][0]["blocks"][0]["ops"]):
        name = op["#"]
        if name == "p" or "regions" in op or name.startswith("2."):
            continue         # parameters; if / while / yield: the writer's own form
        attrs = []
        for a in op.get("A", []):
            if a["N"] == "struct_name":      # the Layer that made the op (to_static's)
                continue
            at = a["AT"]
            item = at["D"][0]["#"] if at["#"] == "0.a_array" and at["D"] else None
            value = [i["D"] for i in at["D"]] if at["#"] == "0.a_array" else at["D"]
            attrs.append([a["N"], at["#"], item, value])
        if name in facts:     # an empty array's item type, from a later use of the op
            for known, seen in zip(facts[name]["attrs"], attrs):
                known[2] = known[2] or seen[2]
            continue
        facts[name] = {"attrs": attrs, "inputs": len(op.get("I", [])),
                       "outputs": len(op.get("O", []))}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--paddle", required=True, metavar="PYTHON")
    args = parser.parse_args()
    os.environ["REFIMPL_PADDLE"] = "3"
    import refimpl as paddle
    paddle.enable_static()
    exe = paddle.static.Executor(paddle.CPUPlace())
    ops = {}
    with tempfile.TemporaryDirectory() as tmp, paddle.pir_utils.OldIrGuard():
        files = []
        for build in (every_op_program, inference_ops_program, recurrent_ops_program):
            program, feeds, fetches, startup = build(paddle)
            exe.run(startup)
            prefix = os.path.join(tmp, build.__name__)
            paddle.static.save_inference_model(prefix, feeds, fetches, exe, program=program)
            files += [prefix + ".pdmodel", prefix + ".json"]
        native = os.path.join(tmp, "native")
        done = subprocess.run([args.paddle, "-c", TRANSLATE, native] + files,
                              capture_output=True, text=True, check=True)
        for out in files[1::2]:
            with open(out) as f:
                facts_of(json.load(f), ops)
        with open(native + ".json") as f:
            native_doc = json.load(f)
        with open(native + "_rnn.json") as f:
            rnn_doc = json.load(f)
    native_ops = {}      # data, fetch: as save_inference_model writes them
    facts_of(native_doc, native_ops)
    ops.update(native_ops)
    rnn_ops = {}         # rnn, full_with_tensor: the ops refimpl's programs cannot show
    facts_of(rnn_doc, rnn_ops)
    for name, op_facts in rnn_ops.items():
        ops.setdefault(name, op_facts)
    facts = {"paddle": done.stdout.strip().splitlines()[-1], "base_code": native_doc["base_code"],
             "ops": ops}
    ops = ",\n".join("  %s: %s" % (json.dumps(name), json.dumps(facts["ops"][name]))
                     for name in sorted(facts["ops"]))      # an op a line
    with open(OUT, "w") as f:
        f.write('{"paddle": %s, "base_code": %s, "ops": {\n%s\n}}\n'
                % (json.dumps(facts["paddle"]), json.dumps(facts["base_code"]), ops))
    print("wrote %s: %d PIR ops, Paddle %s" % (OUT, len(facts["ops"]), facts["paddle"]))


if __name__ == "__main__":
    main()
