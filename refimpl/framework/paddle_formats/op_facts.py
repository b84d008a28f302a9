"""paddle_op_facts.json (tools/paddle_op_facts.py, measured from real Paddle 3.3.1 and 1.8.5):
the attribute types each release's OpProto declares, each op's definition version, and, for
releases whose op descs hold attributes refimpl's ops do not declare, those attributes'
defaults (`attr_defaults`); the input slots each op's OpProto declares (`proto_inputs`); and
for those releases the grad ops each op's grad op maker makes (`grad_makers`); and each op's
phi kernel signature under Paddle 3.3.1 (`kernel_signatures`)."""
import json
import os

__all__ = ["FACTS", "undeclared_attr_defaults", "proto_inputs", "grad_makers",
           "kernel_signature"]

with open(os.path.join(os.path.dirname(__file__), "paddle_op_facts.json")) as _f:
    FACTS = json.load(_f)


def undeclared_attr_defaults(release, op_type):
    """{attribute: default} of the attributes the op descs of Paddle `release` hold for
    `op_type` that refimpl's op does not declare (Paddle 1.8.5's use_mkldnn,
    x_data_format, ...); empty where the release keeps no such attributes in the desc."""
    return FACTS["attr_defaults"].get(release, {}).get(op_type, {})


def proto_inputs(release, op_type):
    """The input slots Paddle `release`'s OpProto declares for `op_type` (the reference
    release's where `release` was not measured or does not differ); () if unknown."""
    table = FACTS["proto_inputs"]
    found = table.get(release, {}).get(op_type)
    return tuple(found if found is not None else table[FACTS["reference"]].get(op_type, ()))


def grad_makers(release, op_type):
    """[{type, inputs, outputs, copies_attrs}] of the grad ops Paddle `release`'s grad op
    maker of `op_type` makes (from a desc with every slot filled); None where not measured."""
    return FACTS["grad_makers"].get(release, {}).get(op_type)


def kernel_signature(op_type):
    """([input slots], [attributes], [output slots]) of the phi kernel Paddle 3.3.1's
    dygraph tracer maps `op_type` to (its required slots filled, attributes at their
    defaults), in the kernel's argument order; None for an op it maps to no kernel."""
    found = FACTS["kernel_signatures"][FACTS["reference"]].get(op_type)
    return None if found is None else tuple(list(part) for part in found)
