"""The protobuf text format of DistributedStrategy's save_to_prototxt /
load_from_prototxt: Paddle 2.0 writes its DistributedStrategy message
(distributed_strategy.proto), whose fields set so far appear in field-number order as
`name: value` lines and `name {` ... `}` blocks for the configs, a repeated field one line
per element; floats as float32 with 6 significant digits ("1024", "0.8"), booleans `true` /
`false`, strings quoted (measured on Paddle 3.3.1's protobuf)."""
import ast
import re

import numpy as np

__all__ = ["dump", "load"]

# The message's fields refimpl keeps, in field-number order (2.0's proto).
FIELDS = ("amp", "recompute", "localsgd", "dgc", "gradient_merge", "lars", "lamb", "pipeline",
          "elastic", "auto", "a_sync", "sync_nccl_allreduce", "nccl_comm_num",
          "use_hierarchical_allreduce", "hierarchical_allreduce_inter_nranks",
          "sync_batch_norm", "fuse_all_reduce_ops", "fuse_grad_size_in_MB",
          "fuse_grad_size_in_TFLOPS", "cudnn_exhaustive_search", "conv_workspace_size_limit",
          "cudnn_batchnorm_spatial_persistent", "adaptive_localsgd", "fp16_allreduce",
          "sharding", "last_comm_group_size_MB", "recompute_configs", "amp_configs",
          "localsgd_configs", "gradient_merge_configs", "dgc_configs", "pipeline_configs",
          "a_sync_configs", "lars_configs", "lamb_configs", "adaptive_localsgd_configs",
          "sharding_configs", "build_strategy", "execution_strategy")

_LINE = re.compile(r"^(\w+)\s*(?::\s*(.+?)|(\{))\s*$")


def _scalar(value):
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        # protobuf's float form: 6 significant digits, 9 when 6 do not give it back
        single = np.float32(value)
        text = "%.6g" % single
        return text if np.float32(text) == single else "%.9g" % single
    if isinstance(value, str):
        return '"%s"' % value.replace("\\", "\\\\").replace('"', '\\"')
    return str(value)


def _lines(name, value, indent):
    values = value if isinstance(value, list) else [value]
    return ["%s%s: %s" % (indent, name, _scalar(v)) for v in values]


def dump(fields):
    """`fields`: [(name, value or [(key, value)] for a message)] in field-number order."""
    out = []
    for name, value in fields:
        if isinstance(value, tuple):        # a message: its (key, value) pairs
            out.append("%s {" % name)
            for key, v in value:
                out += _lines(key, v, "  ")
            out.append("}")
        else:
            out += _lines(name, value, "")
    return "".join(line + "\n" for line in out)


def _value(text, where):
    if text in ("true", "false"):
        return text == "true"
    if text.startswith('"'):
        return ast.literal_eval(text)
    try:
        return float(text) if re.search(r"[.eE]|inf|nan", text) else int(text)
    except ValueError:
        raise ValueError("load_from_prototxt: %s: cannot read the value %r" % (where, text))


def load(text):
    """{name: value or {key: value}} of a DistributedStrategy text; a repeated field's
    lines gather into a list."""
    top, current, scope = {}, None, None

    def put(target, key, value):
        if key in target:
            previous = target[key]
            target[key] = (previous if isinstance(previous, list) else [previous]) + [value]
        else:
            target[key] = value

    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        where = "line %d (%r)" % (number, raw.strip())
        if line == "}":
            if current is None:
                raise ValueError("load_from_prototxt: %s: a '}' closes no block" % where)
            current = None
            continue
        match = _LINE.match(line)
        if match is None:
            raise ValueError("load_from_prototxt: %s: expected 'name: value', 'name {' or '}'"
                             % where)
        name, value, opens = match.groups()
        if opens:
            if current is not None:
                raise ValueError("load_from_prototxt: %s: blocks do not nest here" % where)
            current, scope = top.setdefault(name, {}), name
        else:
            put(current if current is not None else top, name, _value(value, where))
    if current is not None:
        raise ValueError("load_from_prototxt: the block %r is not closed" % scope)
    return top
