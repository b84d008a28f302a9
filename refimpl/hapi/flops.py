"""paddle.flops: Paddle's operation counts of a network (specs/summary_flops.md).

A Layer: one forward pass on an input of `input_size`; every leaf layer (no sublayers)
is counted by the rule of its class (or custom_ops'), from its input and output shapes:
multiply-adds of convolutions and linear layers, 2 per element for batch norm in eval
mode, ... A static Program: its ops are counted by op type, per sample (batch dim left
out)."""
import numpy as np

from ..framework.program import Program
from ..nn import Layer
from ..nn.layer import activation, common, conv, norm, pooling
from .layer_probe import probe, shape_of

__all__ = ["flops"]


def _numel(shape):
    return int(np.prod(shape)) if len(shape) else 1


def _first(value):
    return value[0] if isinstance(value, (list, tuple)) else value


def count_conv(layer, x, y):
    """output elements x (input channels / groups x kernel elements + 1 for the bias)."""
    kernel = _numel(list(layer.weight.shape)[2:])
    bias = 1 if layer.bias is not None else 0
    ops = _numel(_first(y).shape) * (_first(x).shape[1] / layer._groups * kernel + bias)
    layer.total_ops += abs(int(ops))


def count_elements(layer, x, y):
    """one per input element (LeakyReLU)."""
    layer.total_ops += _numel(_first(x).shape)


def count_batch_norm(layer, x, y):
    """two per input element (scale and shift; layers are counted in eval mode)."""
    layer.total_ops += 2 * _numel(_first(x).shape)


def count_linear(layer, x, y):
    """in_features multiply-adds per output element."""
    layer.total_ops += layer.weight.shape[0] * _numel(_first(y).shape)


def count_avg_pool(layer, x, y):
    """one per output element."""
    layer.total_ops += _numel(_first(y).shape)


def count_adaptive_avg_pool(layer, x, y):
    """(the window's elements + 1 division) per output element; the window is the input's
    spatial size floor-divided by the output's."""
    window = np.array(_first(x).shape[2:]) // np.array(_first(y).shape[2:])
    layer.total_ops += abs(int((np.prod(window) + 1) * _numel(_first(y).shape)))


def count_nothing(layer, x, y):
    """zero (ReLU, ReLU6, Dropout)."""


# Paddle's table: exactly these classes (not their subclasses) have a rule
RULES = {
    conv.Conv1D: count_conv, conv.Conv2D: count_conv, conv.Conv3D: count_conv,
    conv.Conv1DTranspose: count_conv, conv.Conv2DTranspose: count_conv,
    conv.Conv3DTranspose: count_conv,
    norm.BatchNorm2D: count_batch_norm, norm.BatchNorm: count_batch_norm,
    activation.ReLU: count_nothing, activation.ReLU6: count_nothing,
    activation.LeakyReLU: count_elements,
    common.Linear: count_linear, common.Dropout: count_nothing,
    pooling.AvgPool1D: count_avg_pool, pooling.AvgPool2D: count_avg_pool,
    pooling.AvgPool3D: count_avg_pool,
    pooling.AdaptiveAvgPool1D: count_adaptive_avg_pool,
    pooling.AdaptiveAvgPool2D: count_adaptive_avg_pool,
    pooling.AdaptiveAvgPool3D: count_adaptive_avg_pool,
}


class Table:
    """Paddle's flops table: '+---+' rules, cells centred with one space of margin."""

    def __init__(self, heads):
        self.heads = list(heads)
        self.widths = [len(h) for h in heads]
        self.rows = []

    def add_row(self, row):
        if len(row) != len(self.heads):
            raise ValueError("Table: a row of %d cells for %d columns"
                             % (len(row), len(self.heads)))
        self.widths = [max(w, len(str(cell))) for w, cell in zip(self.widths, row)]
        self.rows.append(list(row))

    def _rule(self):
        return "".join("+" + "-" * (w + 2) for w in self.widths) + "+"

    def _line(self, row):
        return "".join("|" + str(cell).center(w + 2) for w, cell in zip(self.widths, row)) \
            + "|"

    def text(self):
        return "\n".join([self._rule(), self._line(self.heads), self._rule()]
                         + [self._line(row) for row in self.rows] + [self._rule()])


def _layer_flops(net, input_size, custom_ops, print_detail):
    custom_ops = dict(custom_ops or {})
    leaves = [layer for layer in net.sublayers(include_self=True)
              if not any(True for _ in layer.children())]
    leaf_ids = {id(layer) for layer in leaves}
    # Paddle visits children before their parent (Layer.apply) and names each class once
    announced = set()
    for layer in (layer for layer in _post_order(net) if id(layer) in leaf_ids):
        kind = type(layer)
        if kind in announced:
            continue
        announced.add(kind)
        if kind in custom_ops:
            print("Customize Function has been applied to %s" % kind)
        elif kind in RULES:
            print("%s's flops has been counted" % kind)
        else:
            print("Cannot find suitable count function for %s. Treat it as zero FLOPs." % kind)
    seen = {}          # id(layer) -> (input shape, output shape) of its last call

    def hook(layer, inputs, outputs):
        rule = custom_ops.get(type(layer), RULES.get(type(layer)))
        if rule is not None:
            rule(layer, inputs, outputs)
        seen[id(layer)] = (shape_of(_first(inputs)), shape_of(_first(outputs)))

    for layer in leaves:
        layer.total_ops = 0
    try:
        probe(net, leaves, hook, [tuple(input_size)], ["float32"])
        table = Table(["Layer Name", "Input Shape", "Output Shape", "Params", "Flops"])
        total_ops = total_params = 0
        for _, layer in net.named_sublayers():
            if id(layer) not in seen:
                continue
            params = sum(_numel(list(p.shape)) for p in layer.parameters())
            ops = int(layer.total_ops)
            total_ops += ops
            total_params += params
            table.add_row([layer.full_name(), seen[id(layer)][0], seen[id(layer)][1], params,
                           ops])
    finally:
        for layer in leaves:
            del layer.total_ops
    if print_detail:
        print(table.text())
    print("Total Flops: %d     Total Params: %d" % (total_ops, total_params))
    return total_ops


def _post_order(layer):
    for child in layer.children():
        yield from _post_order(child)
    yield layer


# -- static programs: by op type, per sample
def _var_shape(op, slot, output=False):
    names = op.output(slot) if output else op.input(slot)
    return list(op.block._find_var_recursive(names[0]).shape) if names else None


def _program_op_flops(op):
    """(flops, parameter name) of one op by Paddle's static rules; batch dims left out."""
    kind = op.type
    if kind in ("conv2d", "depthwise_conv2d"):
        kernel = _numel(_var_shape(op, "Filter")[1:])
        bias = 1 if op.input("Bias") else 0
        out = _numel(_var_shape(op, "Output", True)[1:])
        return abs(out * (kernel + bias)), op.input("Filter")[0]
    if kind == "pool2d":
        x, out = _var_shape(op, "X"), _var_shape(op, "Out", True)
        window = np.array(x[2:]) // np.array(out[2:])
        return abs(int((np.prod(window) + 1) * _numel(out[1:]))), ""
    if kind in ("mul", "matmul"):
        y = _var_shape(op, "Y")
        return abs(y[0] * _numel(_var_shape(op, "Out", True)[1:])), op.input("Y")[0]
    if kind == "batch_norm":
        return abs(2 * _numel(_var_shape(op, "Y", True)[1:])), ""
    if kind.startswith("element"):
        return abs(_numel(_var_shape(op, "X")[1:])), ""
    return 0, ""


def _program_flops(program, print_detail):
    table = Table(["OP Type", "Param name", "Flops"])
    total = 0
    for block in program.blocks:
        for op in block.ops:
            count, param = _program_op_flops(op)
            if count:
                total += count
                table.add_row([op.type, param, count])
    if print_detail:
        print(table.text())
    return total


def flops(net, input_size, custom_ops=None, print_detail=False):
    """The operation count of `net` (a Layer, on one input of shape `input_size`, batch
    included; or a static Program, per sample). custom_ops: {Layer class: fn(layer,
    inputs, output)} adding to `layer.total_ops`. print_detail: the per-layer (per-op)
    table."""
    if isinstance(net, Program):
        return _program_flops(net, print_detail)
    if not isinstance(net, Layer):
        raise TypeError("flops: net must be a paddle.nn.Layer or a static Program, got %s"
                        % type(net).__name__)
    if not isinstance(input_size, (list, tuple)) or not all(
            isinstance(d, (int, np.integer)) and d > 0 for d in input_size):
        raise ValueError("flops: input_size must be a list of positive ints (the input's "
                         "shape, batch included), got %r" % (input_size,))
    if custom_ops is not None and not isinstance(custom_ops, dict):
        raise TypeError("flops: custom_ops must be a dict {Layer class: function}, got %s"
                        % type(custom_ops).__name__)
    return _layer_flops(net, input_size, custom_ops, print_detail)
