"""debug_graphviz_path: the built graph as a Graphviz .dot file (ops and variables as nodes)."""

from ...framework import atomic_file

__all__ = ["to_dot", "write"]


def _quote(s):
    return '"%s"' % str(s).replace("\\", "\\\\").replace('"', '\\"')


def to_dot(program):
    block = program.global_block()
    lines = ["digraph program {", "  rankdir=TB;", "  node [fontsize=10];"]
    seen_vars = set()

    def var_node(name):
        if name not in seen_vars:
            seen_vars.add(name)
            v = block._find_var_recursive(name)
            shape = list(v.shape) if v is not None and v.shape is not None else "?"
            style = "filled" if v is not None and v.persistable else "solid"
            lines.append("  %s [shape=ellipse, style=%s, label=%s];"
                         % (_quote("var:" + name), style, _quote("%s\n%s" % (name, shape))))
        return _quote("var:" + name)

    for i, op in enumerate(block.ops):
        op_id = _quote("op:%d" % i)
        lines.append("  %s [shape=box, style=filled, fillcolor=lightblue, label=%s];"
                     % (op_id, _quote("%s #%d" % (op.type, i))))
        for name in op.input_arg_names:
            lines.append("  %s -> %s;" % (var_node(name), op_id))
        for name in op.output_arg_names:
            lines.append("  %s -> %s;" % (op_id, var_node(name)))
    lines.append("}")
    return "\n".join(lines) + "\n"


def write(program, path_prefix):
    """Write `<path_prefix>.dot` (Paddle appends its own suffixes; one file is enough here)."""
    path = path_prefix if path_prefix.endswith(".dot") else path_prefix + ".dot"
    atomic_file.write_bytes(path, to_dot(program).encode("utf-8"))
    return path
