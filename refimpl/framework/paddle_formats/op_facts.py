"""paddle_op_facts.json (tools/paddle_op_facts.py, measured from real Paddle 3.3.1 and 1.8.5):
the attribute types each release's OpProto declares, each op's definition version, and, for
releases whose op descs hold attributes refimpl's ops do not declare, those attributes'
defaults (`attr_defaults`)."""
import json
import os

__all__ = ["FACTS", "undeclared_attr_defaults"]

with open(os.path.join(os.path.dirname(__file__), "paddle_op_facts.json")) as _f:
    FACTS = json.load(_f)


def undeclared_attr_defaults(release, op_type):
    """{attribute: default} of the attributes the op descs of Paddle `release` hold for
    `op_type` that refimpl's op does not declare (Paddle 1.8.5's use_mkldnn,
    x_data_format, ...); empty where the release keeps no such attributes in the desc."""
    return FACTS["attr_defaults"].get(release, {}).get(op_type, {})
