"""Regenerates refimpl/framework/paddle_formats/paddle_op_facts.json from real Paddle:

    python tools/paddle_op_facts.py --paddle /opt/paddle311/bin/python \
                                    --paddle /opt/paddle18/bin/python

For the op types refimpl implements, the type Paddle declares for each attribute (its
OpProto), and each op's definition version (ProgramDesc.op_version_map) - the facts the
ProgramDesc writer needs where a Python value does not tell (INT or LONG, BLOCK, a dtype
code, the element type of an empty list). The first --paddle is the reference release;
the others are stored as their differences from it. For the releases in
DESC_DEFAULTS_RELEASES, also the default of each attribute their op descs hold that
refimpl's op does not declare (use_mkldnn, x_data_format, ...: OpDesc.check_attrs fills
them), which refimpl's ops carry under that release's profile. And each op's input slots
(`proto_inputs`: Python's Operator lists every one in the desc, an absent one empty), and
for those releases each op's grad op maker (`grad_makers`: the grad ops' slots, and whether
they copy the forward op's attributes; Paddle's backward writes them so). For the other
releases, also the attributes the reference declares that they do not (`absent_attrs`).
And, measured on programs typical fluid scripts build (LOD_PROBE), which op outputs hold a
lod_level in those releases' descs (`output_lod_levels`). And for a release with phi
kernels (3.x), the kernel signature its dygraph tracer maps each op to
(`kernel_signatures`: what Paddle 3's op tests call an op's python API with).
"""
import argparse
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

OUT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                   "refimpl", "framework", "paddle_formats", "paddle_op_facts.json")

# run inside each Paddle interpreter: its version, op protos and op versions as JSON
PROBE = r"""
import json
import re
import paddle
try:
    from paddle.base import core
    from paddle.base.proto import framework_pb2 as fp
except ImportError:
    from paddle.fluid import core
    from paddle.fluid.proto import framework_pb2 as fp
names = {v: k for k, v in fp.AttrType.items()}
# a stand-in of each type for the attributes without a default (pool2d's pooling_type)
PLACEHOLDERS = {"INT": 0, "FLOAT": 0.0, "STRING": "", "BOOLEAN": False, "INTS": [0],
                "FLOATS": [0.0], "STRINGS": [""], "BOOLEANS": [False], "LONG": 1 << 40,
                "LONGS": [1 << 40]}
# a required attribute left unset: 1.8's words, then 3.x's
required = re.compile(r"Attribute (?:'|\()(\w+)(?:' is required|\) is not set correctly)")
enum = re.compile(r"not in enum container \[(\w+)")
protos, defaults, inputs, filled = {}, {}, {}, {}
holder = core.ProgramDesc()
for raw in core.get_all_op_protos():
    proto = fp.OpProto.FromString(raw)
    protos[proto.type] = {a.name: names[a.type] for a in proto.attrs}
    inputs[proto.type] = [i.name for i in proto.inputs]
    desc = core.OpDesc()
    desc.set_type(proto.type)
    placed, last = set(), None
    while True:
        try:
            desc.check_attrs()
        except Exception as e:
            choice = enum.search(str(e))
            if choice and last is not None and (last, choice.group(1)) not in placed:
                placed.add((last, choice.group(1)))      # a string one of several
                desc._set_attr(last, choice.group(1))
                continue
            name = required.search(str(e))
            kind = protos[proto.type].get(name.group(1)) if name else None
            if (kind not in PLACEHOLDERS and kind != "BLOCK") or name.group(1) in placed:
                break
            placed.add(name.group(1))
            last = name.group(1)
            if kind == "BLOCK":     # a sub-block: an empty program's block stands in
                if not hasattr(desc, "set_block_attr"):
                    break
                desc.set_block_attr(name.group(1), holder.block(0))
            else:
                desc._set_attr(name.group(1), PLACEHOLDERS[kind])
        else:
            defaults[proto.type] = {n: desc.attr(n) for n in desc.attr_names()
                                    if n not in placed}
            # (a BLOCK attribute's value, read back, corrupts 3.3.1's heap: left out; an
            # empty list goes back as INTS, so an empty list of another type is its stand-in)
            filled[proto.type] = {
                n: desc.attr(n) if desc.attr(n) != [] else
                PLACEHOLDERS.get(protos[proto.type][n], [])
                for n in desc.attr_names()
                if protos[proto.type].get(n) not in ("BLOCK", "BLOCKS")}
            break
# the grad op makers of the releases whose descs refimpl writes slot for slot: for each op,
# the grad ops its maker makes from a desc with every slot filled, their slots, and whether
# they copy the forward op's attributes (an op with a sub-block is left out: no block here)
makers = {}
if paddle.__version__ in @GRAD_MAKER_RELEASES@:
    for raw in core.get_all_op_protos():
        proto = fp.OpProto.FromString(raw)
        if any(a.type in (fp.BLOCK, fp.BLOCKS) for a in proto.attrs):
            continue
        desc = core.OpDesc()
        desc.set_type(proto.type)
        for slot in proto.inputs:
            desc.set_input(slot.name, [slot.name + "_var"])
        for slot in proto.outputs:
            desc.set_output(slot.name, [slot.name + "_var"])
        desc._set_attr("op_namescope", "/probe/")
        try:
            grads, _ = core.get_grad_op_desc(desc, set(), [])
        except Exception:       # no grad maker, or one that needs real attributes
            continue
        makers[proto.type] = [{"type": g.type(), "inputs": sorted(g.input_names()),
                               "outputs": sorted(g.output_names()),
                               "copies_attrs": g.has_attr("op_namescope")} for g in grads]
# the phi kernel signature the dygraph tracer maps each op to (releases with phi: 3.x): the
# op's input slots, attributes and output slots in the kernel's argument order, for a desc
# with the attributes at their defaults (a required one at its stand-in above): its input
# slots with every slot filled (an optional input is a kernel argument too), its
# attributes with only the required ones (an optional input such as concat's AxisTensor
# takes an attribute's place when given); for the ops refimpl computes (feed's signature
# query crashes 3.3.1)
signatures = {}
tracer = paddle.base.framework._dygraph_tracer() if hasattr(paddle, "base") else None
if tracer is not None and hasattr(tracer, "_get_kernel_signature"):
    def one():      # a tensor of its own for each slot (one shared by all crashed 3.3.1)
        return [paddle.to_tensor([1.0])]
    for raw in core.get_all_op_protos():
        proto = fp.OpProto.FromString(raw)
        if proto.type not in filled or proto.type not in @KERNEL_OPS@:
            continue
        try:
            with_required = tracer._get_kernel_signature(
                proto.type, {s.name: one() for s in proto.inputs if not s.dispensable},
                {s.name: one() for s in proto.outputs}, filled[proto.type])
            every = tracer._get_kernel_signature(
                proto.type, {s.name: one() for s in proto.inputs},
                {s.name: one() for s in proto.outputs}, filled[proto.type])
        except Exception:       # no phi kernel for the op
            continue
        # the kernel's tensor inputs, optional ones included (the desc with every slot
        # filled), and its attributes as attributes (the one with only the required)
        signatures[proto.type] = [list(every[0]), list(with_required[1]),
                                  list(with_required[2])]
versions = core.get_op_version_map() if hasattr(core, "get_op_version_map") else {}
print(json.dumps({"version": paddle.__version__, "attr_types": protos,
                  "attr_defaults": defaults, "proto_inputs": inputs, "grad_makers": makers,
                  "kernel_signatures": signatures,
                  "op_versions": {k: v.version_id() for k, v in versions.items()}}))
"""

# run inside a fluid (1.8) interpreter: programs typical scripts build, and for each op type
# and output slot whether the variables it writes hold a lod_level (each kernel's compile-time
# InferShape sets one where it shares a LoD); a slot seen both ways, or a variable more than
# one op writes, is left out
LOD_PROBE = r"""
import json
import paddle.fluid as fluid
from paddle.fluid.proto import framework_pb2 as fp

def programs():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = fluid.data("x", [-1, 4], "float32")
        y = fluid.data("y", [-1, 1], "int64")
        loss = fluid.layers.softmax_with_cross_entropy(fluid.layers.fc(x, 3), y)
        fluid.layers.cast(x, "float64")
        fluid.optimizer.Adam(0.01).minimize(fluid.layers.mean(loss))
    yield main
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        img = fluid.data("img", [-1, 1, 12, 12], "float32")
        label = fluid.data("label", [-1, 1], "int64")
        conv = fluid.layers.conv2d(img, 4, 3, act="relu")
        dropped = fluid.layers.dropout(fluid.layers.batch_norm(conv), 0.3)
        pool = fluid.layers.pool2d(dropped, 2, pool_stride=2, pool_type="avg")
        pred = fluid.layers.fc(fluid.layers.pool2d(pool, 2, pool_type="max"), 3,
                               act="softmax")
        loss = fluid.layers.mean(fluid.layers.cross_entropy(pred, label))
        fluid.layers.accuracy(pred, label)
        fluid.optimizer.Momentum(0.1, 0.9, regularization=fluid.regularizer.L2Decay(1e-4),
                                 grad_clip=fluid.clip.GradientClipByGlobalNorm(1.0)
                                 ).minimize(loss)
    yield main
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        words = fluid.data("words", [-1, 1], "int64", lod_level=1)
        label = fluid.data("label", [-1, 1], "int64")
        emb = fluid.layers.embedding(words, [100, 16])
        hidden, _ = fluid.layers.dynamic_lstm(fluid.layers.fc(emb, 32), 32)
        gru = fluid.layers.dynamic_gru(fluid.layers.fc(emb, 24), 8)
        pooled = [fluid.layers.sequence_pool(hidden, "max"),
                  fluid.layers.sequence_pool(gru, "average")]
        pred = fluid.layers.fc(pooled, 2, act="softmax")
        loss = fluid.layers.mean(fluid.layers.cross_entropy(pred, label))
        fluid.optimizer.Adagrad(0.01).minimize(loss)
    yield main
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = fluid.data("x", [-1, 3], "float32")
        x.stop_gradient = False
        h = fluid.layers.reshape(fluid.layers.transpose(
            fluid.layers.reshape(fluid.layers.scale(x, 2.0), [-1, 3, 1]), [0, 2, 1]), [-1, 3])
        h = fluid.layers.elementwise_mul(fluid.layers.tanh(h), fluid.layers.sigmoid(h))
        h = fluid.layers.concat([h, fluid.layers.layer_norm(h)], axis=1)
        loss = fluid.layers.reduce_mean(fluid.layers.square_error_cost(
            fluid.layers.fc(h, 1), fluid.layers.reduce_sum(x, dim=1, keep_dim=True)))
        fluid.optimizer.SGD(0.01).minimize(loss)
    yield main

seen, writers = {}, {}
for program in programs():
    desc = fp.ProgramDesc.FromString(program.desc.serialize_to_string())
    for block in desc.blocks:
        has = {v.name: v.type.lod_tensor.HasField("lod_level") for v in block.vars
               if v.type.type == fp.VarType.LOD_TENSOR}
        for op in block.ops:
            for slot in op.outputs:
                for name in slot.arguments:
                    writers.setdefault((block.idx, name), []).append(
                        (op.type, slot.parameter, has.get(name)))
facts = {}
for found in writers.values():
    if len(found) != 1 or found[0][2] is None:
        continue
    op_type, slot, has = found[0]
    seen.setdefault(op_type, {}).setdefault(slot, set()).add(has)
print(json.dumps({op: {slot: values.pop() for slot, values in sorted(slots.items())
                       if len(values) == 1} for op, slots in sorted(seen.items())}))
"""

# every op carries these, with the same types in every release (written by rule)
COMMON_ATTRS = {"op_role", "op_role_var", "op_namescope", "op_callstack", "op_device",
                "with_quant_attr"}

# the releases whose op descs hold attributes refimpl's ops do not declare (2.0 and later
# keep those extra attributes out of the desc)
DESC_DEFAULTS_RELEASES = ("1.8.5",)


def undeclared_defaults(defaults):
    """{op: {attribute: default}} of the attributes refimpl's op does not declare."""
    from refimpl.framework.program import op_definition, op_types
    table = {}
    for op, attrs in sorted(defaults.items()):
        if op not in op_types():     # feed, fetch
            continue
        op_def = op_definition(op)
        known = set(op_def.attrs) | set(op_def.inert_attrs) | set(op_def.renamed_attrs)
        extra = {a: v for a, v in sorted(attrs.items())
                 if a not in known and a not in COMMON_ATTRS}
        if extra:
            table[op] = extra
    return table


def probe(python, kernel_ops):
    code = PROBE.replace("@GRAD_MAKER_RELEASES@", repr(DESC_DEFAULTS_RELEASES)).replace(
        "@KERNEL_OPS@", repr(set(kernel_ops)))
    done = subprocess.run([python, "-c", code], capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--paddle", action="append", required=True, metavar="PYTHON")
    args = parser.parse_args()
    from refimpl.ops.registry import all_op_types
    wanted = {t for t in all_op_types() if not t.endswith("_grad")} | {"feed", "fetch"}
    facts = {"attr_types": {}, "op_versions": {}, "attr_defaults": {}, "proto_inputs": {},
             "grad_makers": {}, "absent_attrs": {}, "output_lod_levels": {},
             "kernel_signatures": {}}
    reference = None
    for python in args.paddle:
        found = probe(python, wanted - {"feed", "fetch"})
        types = {op: {a: t for a, t in attrs.items() if a not in COMMON_ATTRS}
                 for op, attrs in found["attr_types"].items() if op in wanted}
        if reference is None:
            reference = types
            facts["reference"] = found["version"]
        else:   # only what differs from the reference release, and what it lacks
            facts["absent_attrs"][found["version"]] = {
                op: sorted(set(reference[op]) - set(attrs))
                for op, attrs in sorted(types.items())
                if op in reference and set(reference[op]) - set(attrs)}
            types = {op: {a: t for a, t in attrs.items() if reference.get(op, {}).get(a) != t}
                     for op, attrs in types.items()}
        facts["attr_types"][found["version"]] = {op: attrs for op, attrs in sorted(types.items())
                                                 if attrs}
        if found["version"] in DESC_DEFAULTS_RELEASES:
            facts["attr_defaults"][found["version"]] = undeclared_defaults(
                {op: attrs for op, attrs in found["attr_defaults"].items() if op in wanted})
            facts["grad_makers"][found["version"]] = {
                op: grads for op, grads in sorted(found["grad_makers"].items()) if op in wanted}
            lods = subprocess.run([python, "-c", LOD_PROBE], capture_output=True, text=True,
                                  check=True)
            facts["output_lod_levels"][found["version"]] = json.loads(
                lods.stdout.strip().splitlines()[-1])
        inputs = {op: slots for op, slots in sorted(found["proto_inputs"].items())
                  if op in wanted and slots}
        if found["version"] != facts["reference"]:     # the ops whose slots differ
            inputs = {op: slots for op, slots in inputs.items()
                      if facts["proto_inputs"][facts["reference"]].get(op) != slots}
        facts["proto_inputs"][found["version"]] = inputs
        if found["kernel_signatures"]:
            facts["kernel_signatures"][found["version"]] = {
                op: sig for op, sig in sorted(found["kernel_signatures"].items())
                if op in wanted}
        if found["op_versions"]:
            facts["op_versions"][found["version"]] = dict(sorted(found["op_versions"].items()))
    with open(OUT, "w") as f:
        f.write("{\n")
        f.write('"reference": %s,\n' % json.dumps(facts["reference"]))
        keys = ("attr_types", "op_versions", "attr_defaults", "proto_inputs", "grad_makers",
                "absent_attrs", "output_lod_levels", "kernel_signatures")
        for key in keys:
            f.write('"%s": {\n' % key)
            releases = list(facts[key].items())
            for i, (release, table) in enumerate(releases):
                f.write(' %s: {\n' % json.dumps(release))
                rows = ['  %s: %s' % (json.dumps(op), json.dumps(v, sort_keys=True))
                        for op, v in table.items()]
                f.write(",\n".join(rows))
                f.write("\n }%s\n" % ("," if i < len(releases) - 1 else ""))
            f.write("}%s\n" % ("," if key != keys[-1] else ""))
        f.write("}\n")
    print("wrote", OUT)


if __name__ == "__main__":
    main()
