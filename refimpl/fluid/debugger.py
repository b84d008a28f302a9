"""paddle.fluid.debugger: Paddle 1.8's program pretty-printer and block graph.

`pprint_program_codes(program)` writes each block as pseudo-code in Paddle 1.8's layout:

    // block-0  parent--1
    // variables
    Tensor mul.x (tensor(type=float32, shape=[5, 10]))
    SelectedRows rows (tensor(type=float32, shape=[5, 10]))

    // operators
    mul.out = mul(X=mul.x, Y=mul.y) [{x_num_col_dims=1,...}]

Gradient variables and ops are left out unless `show_backward`. Variables are listed in
their block's order and attributes by name (Paddle 1.8 lists both in its desc's hash
order). `draw_block_graphviz(block, highlights, path)` writes the block as a Graphviz DOT
file (parameters, other variables, ops and the edges between them) and renders it to a
PDF beside it when graphviz's `dot` is installed (Paddle 1.8 fails without it)."""
import re
import shutil
import subprocess
import warnings

from ..framework import atomic_file
from ..framework.program import Parameter, Program

__all__ = ["pprint_program_codes", "pprint_block_codes", "repr_var", "repr_op",
           "draw_block_graphviz"]

_VAR_KIND = {"LOD_TENSOR": "Tensor", "SELECTED_ROWS": "SelectedRows"}
_DOT_TIMEOUT_S = 60


def _repr_tensor(var):
    dtype = var.dtype.name if var.dtype is not None else "unknown"
    shape = list(var.shape) if var.shape is not None else []
    return "tensor(type=%s, shape=%s)" % (dtype, shape)


def repr_var(var):
    """One line for a variable: its kind, name, LoD level where it has one, and tensor."""
    kind = str(var.type)
    if kind == "LOD_TENSOR" and var.lod_level:
        return "LoDTensor %s (level=%d, %s)" % (var.name, var.lod_level, _repr_tensor(var))
    if kind == "LOD_TENSOR_ARRAY":
        return "TensorArray %s (level=%d, %s)" % (var.name, var.lod_level, _repr_tensor(var))
    if kind in _VAR_KIND:
        return "%s %s (%s)" % (_VAR_KIND[kind], var.name, _repr_tensor(var))
    return "%s %s" % (kind, var.name)


def _repr_args(names):
    return names[0] if len(names) == 1 else str(list(names))


def repr_op(op):
    """`outputs = type(Slot=arg, ...) [{attr=value,...}]`; fill_constant as
    `out = value [shape=...]`."""
    outputs = ", ".join(_repr_args(names) for names in op.outputs.values())
    if op.type == "fill_constant":
        return "%s = %s [shape=%s]" % (outputs, op.attrs.get("value"), op.attrs.get("shape"))
    inputs = ", ".join("%s=%s" % (slot, _repr_args(names)) for slot, names in op.inputs.items())
    attrs = ",".join("%s=%s" % (k, getattr(v, "name", v)) for k, v in sorted(op.attrs.items()))
    return "%s = %s(%s) [{%s}]" % (outputs, op.type, inputs, attrs)


def _is_backward_op(op):
    return op.type.endswith("_grad") or any(
        "@GRAD" in slot or any("@GRAD" in n for n in names)
        for slots in (op.inputs, op.outputs) for slot, names in slots.items())


def pprint_block_codes(block, show_backward=False):
    variables = [repr_var(v) for v in block.vars.values()
                 if show_backward or "@GRAD" not in v.name]
    ops = [repr_op(op) for op in block.ops if show_backward or not _is_backward_op(op)]
    return "// block-%d  parent-%d\n// variables\n%s\n\n// operators\n%s\n" % (
        block.idx, block.parent_idx, "\n".join(variables), "\n".join(ops))


def pprint_program_codes(program):
    if not isinstance(program, Program):
        raise TypeError("pprint_program_codes: expected a Program, got %s"
                        % type(program).__name__)
    return "\n".join(pprint_block_codes(program.block(i)) for i in range(program.num_blocks))


def _dot_label(text):
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def draw_block_graphviz(block, highlights=None, path="./temp.dot"):
    """Write `block` as a DOT graph to `path`; the path of the PDF `dot` rendered from it,
    or None (with a warning) when graphviz is not installed. `highlights`: regular
    expressions; matching variables and op types are drawn highlighted."""
    patterns = list(highlights or ())
    for pattern in patterns:
        if not isinstance(pattern, str):
            raise TypeError("draw_block_graphviz: highlights must be strings, got %r"
                            % (pattern,))

    def marked(name):
        return any(re.match(p, name) for p in patterns)

    nodes, edges, node_of = [], [], {}

    def var_node(name):
        if name not in node_of:
            node_of[name] = "var_%d" % len(node_of)
            var = block._find_var_recursive(name)
            color = "#ff4040" if marked(name) else "#dddddd"
            if isinstance(var, Parameter):
                label = "<<b>%s</b><br/>%s>" % (_dot_label(name), _dot_label(_repr_tensor(var)))
                nodes.append('%s [label=%s, shape="box", style="rounded,filled,bold", '
                             'color="#148b97", fontcolor="#ffffff", fontname="Arial"];'
                             % (node_of[name], label))
            else:
                nodes.append('%s [label="%s", shape="box", style="rounded,filled,bold", '
                             'color="%s", fontcolor="#999999", fontname="Arial"];'
                             % (node_of[name], name.replace('"', '\\"'), color))
        return node_of[name]

    for v in block.vars.values():
        var_node(v.name)
    for i, op in enumerate(block.ops):
        op_node = "op_%d" % i
        color = "#ff4040" if marked(op.type) else "#303A3A"
        nodes.append('%s [label=<<B>%s</B>>, shape="box", style="rounded,filled,bold", '
                     'color="%s", fontcolor="#ffffff", fontname="Arial"];'
                     % (op_node, op.type, color))
        edges += ["%s -> %s;" % (var_node(n), op_node) for n in op.input_arg_names]
        edges += ["%s -> %s;" % (op_node, var_node(n)) for n in op.output_arg_names]
    text = "digraph G {\nlayout=\"dot\";\nconcentrate=\"true\";\nrankdir=\"TB\";\n%s\n%s\n}\n" % (
        "\n".join(nodes), "\n".join(edges))
    atomic_file.write_bytes(path, text.encode())
    dot = shutil.which("dot")
    if dot is None:
        warnings.warn("draw_block_graphviz: graphviz's dot is not installed; wrote the graph "
                      "to %s only (render it with `dot -Tpdf`)" % path)
        return None
    image = path[:-len(".dot")] + ".pdf" if path.endswith(".dot") else path + ".pdf"
    subprocess.run([dot, "-Tpdf", path, "-o", image], check=True, timeout=_DOT_TIMEOUT_S,
                   capture_output=True)
    return image
