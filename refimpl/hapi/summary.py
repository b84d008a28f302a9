"""paddle.summary: Paddle's table of a network's layers (input and output shapes, parameter
counts) and its size estimates, from one forward pass (specs/summary_flops.md)."""
import collections
import numbers

import numpy as np

from ..framework.program import Program
from ..nn import Layer, LayerList, Sequential
from ..static.input_spec import InputSpec
from .layer_probe import probe, shape_of

__all__ = ["summary"]


def _is_shape(value):
    return isinstance(value, (list, tuple)) and all(
        isinstance(d, numbers.Number) or d is None for d in value)


def _checked_shape(shape):
    """The batch dim may be unknown (None or -1: summarized as 1), no other."""
    unknown = [i for i, d in enumerate(shape) if d is None or d == -1]
    if len(unknown) > 1:
        raise ValueError("summary: only the batch dim of input_size may be None or -1, got %s"
                         % (list(shape),))
    for d in shape:
        if d is not None and d != -1 and d <= 0:
            raise ValueError("summary: input_size dims must be > 0, got %s" % (list(shape),))
    return tuple(1 if d is None or d == -1 else int(d) for d in shape)


def _input_shapes(input_size):
    """A list of input shapes from a shape, an int, an InputSpec or a list of those."""
    if isinstance(input_size, InputSpec):
        return [_checked_shape(input_size.shape)]
    if isinstance(input_size, numbers.Integral):
        return [_checked_shape((input_size,))]
    if _is_shape(input_size):
        return [_checked_shape(input_size)]
    if isinstance(input_size, (list, tuple)):
        return [_entry_shape(item) for item in input_size]
    raise TypeError("summary: input_size must be a shape, an InputSpec or a list of them, got "
                    "%s" % type(input_size).__name__)


def _entry_shape(item):
    """One forward argument's shape, or for an argument that is a list of tensors (an
    RNN's initial states) a list of their shapes."""
    if isinstance(item, numbers.Integral):
        item = (item,)
    if isinstance(item, InputSpec):
        item = item.shape
    if _is_shape(item):
        return _checked_shape(item)
    if isinstance(item, (list, tuple)) and item:
        return [_entry_shape(sub) for sub in item]
    raise TypeError("summary: each entry of input_size must be a shape (tuple), an InputSpec "
                    "or a list of them, got %r" % (item,))


def _input_numel(shape):
    """Elements of an input shape, or of each shape of a nested list of shapes."""
    if isinstance(shape, list):
        return sum(_input_numel(s) for s in shape)
    return _numel(shape)


def _dtypes(dtypes, count):
    if dtypes is None:
        return ["float32"] * count
    if isinstance(dtypes, (list, tuple)):
        if len(dtypes) != count:
            raise ValueError("summary: %d dtypes for %d inputs" % (len(dtypes), count))
        return list(dtypes)
    return [dtypes] * count


def _layer_key(layer, rows):
    """'Conv2D-1': the class and 1 + the number ending its unique name (conv2d_0)."""
    try:
        index = int(layer.full_name().split("_")[-1])
    except ValueError:
        index = len(rows)
    return "%s-%d" % (type(layer).__name__, index + 1)


def _numel(shape):
    return int(np.prod(shape)) if shape else 0


def _layer_rows(net, shapes, dtypes, given):
    rows = collections.OrderedDict()

    def record(layer, inputs, outputs):
        params = [p for p in layer._parameters.values() if p is not None]
        rows[_layer_key(layer, rows)] = {
            "input_shape": shape_of(inputs),
            "output_shape": shape_of(outputs),
            "params": sum(_numel(p.shape) for p in params),
            "trainable": sum(_numel(p.shape) for p in params
                             if p.trainable and not p.stop_gradient),
        }

    sublayers = net.sublayers()
    # containers are not rows, nor a net that has sublayers; an RNN layer running its
    # fused op (could_use_cudnn) is one row, whose cells never run
    hooked = [layer for layer in net.sublayers(include_self=True)
              if (not isinstance(layer, (Sequential, LayerList))
                  and (layer is not net or not sublayers))
              or getattr(layer, "could_use_cudnn", False)]
    probe(net, hooked, record, shapes, dtypes, given)
    return rows


def _output_numel(shape):
    """Elements of an output shape, or of each shape of a list of outputs, summed."""
    if shape and isinstance(shape[0], list):
        return sum(_output_numel(s) for s in shape)
    return _numel(shape)


def _table(rows, input_numel):
    widths = {"layer": 15, "input": 20, "output": 20, "params": 15}
    for key, row in rows.items():
        widths["layer"] = max(widths["layer"], len(key))
        widths["input"] = max(widths["input"], len(str(row["input_shape"])))
        widths["output"] = max(widths["output"], len(str(row["output_shape"])))
        widths["params"] = max(widths["params"], len(str(row["params"])))
    width = max(75, sum(widths.values()) + 5)

    def line(layer, inputs, outputs, params):
        # format's centring (the odd space goes right), not str.center's
        return "{:^{}} {:^{}} {:^{}} {:^{}}".format(
            layer, widths["layer"], inputs, widths["input"], outputs, widths["output"],
            params, widths["params"])

    total = sum(row["params"] for row in rows.values())
    trainable = sum(row["trainable"] for row in rows.values())
    output_numel = sum(_output_numel(row["output_shape"]) for row in rows.values())
    input_mb = input_numel * 4.0 / 1024 ** 2
    output_mb = 2.0 * output_numel * 4.0 / 1024 ** 2     # forward values and gradients
    params_mb = total * 4.0 / 1024 ** 2
    lines = ["-" * width, line("Layer (type)", "Input Shape", "Output Shape", "Param #"),
             "=" * width]
    lines += [line(key, str(row["input_shape"]), str(row["output_shape"]),
                   "{:,}".format(row["params"])) for key, row in rows.items()]
    lines += ["=" * width,
              "Total params: {:,}".format(total),
              "Trainable params: {:,}".format(trainable),
              "Non-trainable params: {:,}".format(total - trainable),
              "-" * width,
              "Input size (MB): %.2f" % input_mb,
              "Forward/backward pass size (MB): %.2f" % output_mb,
              "Params size (MB): %.2f" % params_mb,
              "Estimated Total Size (MB): %.2f" % (params_mb + output_mb + input_mb),
              "-" * width]
    return "\n".join(lines) + "\n", {"total_params": total, "trainable_params": trainable}


def _program_summary(program):
    """refimpl's listing of a static Program's parameters (Paddle's summary takes Layers)."""
    params = program.global_block().all_parameters()
    lines = ["%-40s %-20s %12s" % ("Parameter", "Shape", "Count")]
    total = trainable = 0
    for p in params:
        count = _numel(p.shape)
        total += count
        trainable += count if p.trainable else 0
        lines.append("%-40s %-20s %12d" % (p.name, list(p.shape), count))
    lines.append("Total params: %d, trainable: %d" % (total, trainable))
    print("\n".join(lines))
    return {"total_params": total, "trainable_params": trainable}


def summary(net, input_size=None, dtypes=None, input=None):
    """Print the table of `net`'s layers for inputs of `input_size` (a shape, an
    InputSpec, or a list of them; the batch dim may be None / -1) in `dtypes` (default
    float32), or for the tensor(s) `input`; return {'total_params', 'trainable_params'}.
    A static Program: its parameters are listed instead."""
    if isinstance(net, Program):
        return _program_summary(net)
    if not isinstance(net, Layer):
        raise TypeError("summary: net must be a paddle.nn.Layer (or a static Program), got %s"
                        % type(net).__name__)
    if input is not None:
        shapes = [tuple(s) for s in _given_shapes(input)]
        rows = _layer_rows(net, None, None, input)
    elif input_size is None:
        raise ValueError("summary: give input_size or input")
    else:
        shapes = _input_shapes(input_size)
        rows = _layer_rows(net, shapes, _dtypes(dtypes, len(shapes)), None)
    text, counts = _table(rows, sum(_input_numel(s) for s in shapes))
    print(text)
    return counts


def _given_shapes(value):
    if isinstance(value, dict):
        return [shape_of(v) for v in value.values()]
    if isinstance(value, (list, tuple)):
        return [shape_of(v) for v in value]
    if not hasattr(value, "shape"):
        raise TypeError("summary: input must be a Tensor, or a list / tuple / dict of them, "
                        "got %s" % type(value).__name__)
    return [shape_of(value)]
