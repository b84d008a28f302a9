"""print: Out = In, printing In to stdout as it passes (Paddle 1.8's Print), and its grad
(print_phase BACKWARD / BOTH) printing Out's gradient. Each print is Paddle 1.8.5's text:

    <unix time>\t<message>\tThe place is:CPUPlace
    Tensor[<name>]
    \tshape: [2,3,]
    \tdtype: f              (C++ type letters: f float32, d float64, i int32, l int64, b bool)
    \tdata: 0,1,2,3,        (the first `summarize` values, -1: all)

first_n >= 0 prints only the first n runs of that op. `tensor_name` is refimpl's attr (the
layer sets it: Paddle's op reads the name from its input); the grad prints it with @GRAD.
The LoD line of Paddle (print_tensor_lod) is not printed. As in Paddle 1.8.5, the grad op
append_backward writes is a second `print` (is_forward False: In = Out@GRAD, Out = In@GRAD)
that prints in the BACKWARD and BOTH phases."""
import time

import numpy as np

from ..xp import to_host
from .registry import OpDef, Sample, register, share_lod

_TYPE_LETTERS = {"float32": "f", "float64": "d", "int32": "i", "int64": "l", "bool": "b",
                 "float16": "N5paddle8platform7float16E"}
_printed = {}       # (phase, attrs) -> runs printed so far, for first_n


def _print(x, name, phase, first_n, summarize, message, print_tensor_name, print_tensor_type,
           print_tensor_shape):
    key = (phase, name, message)
    if first_n >= 0:
        if _printed.get(key, 0) >= first_n:
            return
        _printed[key] = _printed.get(key, 0) + 1
    x = np.asarray(to_host(x))
    lines = ["%d\t%s\tThe place is:CPUPlace" % (int(time.time()), message)]
    if print_tensor_name:
        lines.append("Tensor[%s]" % name)
    if print_tensor_shape:
        lines.append("\tshape: [%s]" % "".join("%d," % d for d in x.shape))
    if print_tensor_type:
        lines.append("\tdtype: %s" % _TYPE_LETTERS.get(x.dtype.name, x.dtype.name))
    values = x.reshape(-1) if summarize < 0 else x.reshape(-1)[:summarize]
    lines.append("\tdata: %s" % "".join("%g," % v for v in values.tolist()))
    print("\n".join(lines), flush=True)


def print_tensor(x, name, summarize):
    """x printed once as the print op prints it, with its name, shape and dtype."""
    _print(x, name, "forward", -1, summarize, "", True, True, True)


@register
class Print(OpDef):
    type = "print"
    inputs = ("In",)
    outputs = ("Out",)
    attrs = {"first_n": -1, "summarize": 20, "message": "", "print_tensor_name": True,
             "print_tensor_type": True, "print_tensor_shape": True, "print_tensor_lod": True,
             "print_phase": "BOTH", "is_forward": True, "tensor_name": ""}
    grad_inputs = ("Out@GRAD",)
    lod_outputs = {"Out": share_lod("In")}

    def infer_shape(self, ctx):
        ctx.expect(ctx.attr("print_phase") in ("FORWARD", "BACKWARD", "BOTH"),
                   "print_phase must be FORWARD, BACKWARD or BOTH, got %r"
                   % ctx.attr("print_phase"))
        ctx.same_as("In", "Out")

    def static_grad_op(self, inputs, outputs, attrs):
        return "print", {"In": inputs["Out@GRAD"]}, {"Out": outputs["In@GRAD"]}, \
            dict(attrs, is_forward=False)

    @classmethod
    def forward(cls, x, is_forward=True, **attrs):
        if not is_forward:
            return cls.backward(x, **attrs)
        return cls._forward(x, **attrs)

    @staticmethod
    def _forward(x, first_n=-1, summarize=20, message="", print_tensor_name=True,
                 print_tensor_type=True, print_tensor_shape=True, print_tensor_lod=True,
                 print_phase="BOTH", tensor_name=""):
        if print_phase in ("FORWARD", "BOTH"):
            _print(x, tensor_name, "forward", first_n, summarize, message, print_tensor_name,
                   print_tensor_type, print_tensor_shape)
        return x.copy()

    @staticmethod
    def backward(dout, first_n=-1, summarize=20, message="", print_tensor_name=True,
                 print_tensor_type=True, print_tensor_shape=True, print_tensor_lod=True,
                 print_phase="BOTH", is_forward=True, tensor_name=""):
        if print_phase in ("BACKWARD", "BOTH"):
            _print(dout, tensor_name + "@GRAD", "backward", first_n, summarize, message,
                   print_tensor_name, print_tensor_type, print_tensor_shape)
        return dout.copy()

    def samples(self, rng):
        # Paddle (1.8.5 and 3.3.1) gives `message`, `summarize` and the print_tensor_* flags
        # no default: the sample passes them
        yield Sample({"In": rng.uniform(-1, 1, (2, 3))},
                     {"print_phase": "FORWARD", "first_n": 0, "message": "", "summarize": 20,
                      "print_tensor_name": True, "print_tensor_type": True,
                      "print_tensor_shape": True, "print_tensor_lod": True})
