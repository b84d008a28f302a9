"""Weight decay: a regularizer appends ops that add its term to a parameter's gradient."""

import contextlib

from . import mode
from .program import name_scope

__all__ = ["WeightDecayRegularizer", "L1Decay", "L2Decay", "L1DecayRegularizer",
           "L2DecayRegularizer", "append_regularization_ops"]


class WeightDecayRegularizer:
    def __init__(self, coeff=0.0, regularization_coeff=None):
        self.coeff = float(regularization_coeff if regularization_coeff is not None else coeff)

    def decay_term(self, param, block):
        """Append ops computing this regularizer's gradient term; return its variable."""
        raise NotImplementedError


class L2Decay(WeightDecayRegularizer):
    """grad += coeff * param"""

    def decay_term(self, param, block):
        out = block.create_var(shape=param.shape, dtype=param.dtype)   # _generated_var_N
        block.append_op(type="scale", inputs={"X": [param]}, outputs={"Out": [out]},
                        attrs={"scale": self.coeff})
        return out


class L1Decay(WeightDecayRegularizer):
    """grad += coeff * sign(param)"""

    def decay_term(self, param, block):
        sign = block.create_var(shape=param.shape, dtype=param.dtype)
        out = block.create_var(shape=param.shape, dtype=param.dtype)
        block.append_op(type="sign", inputs={"X": [param]}, outputs={"Out": [sign]})
        block.append_op(type="scale", inputs={"X": [sign]}, outputs={"Out": [out]},
                        attrs={"scale": self.coeff})
        return out


L1DecayRegularizer = L1Decay
L2DecayRegularizer = L2Decay


def append_regularization_ops(params_grads, regularization=None):
    """Add each parameter's decay term to its gradient (the parameter's own regularizer
    wins over the optimizer-wide one), as Paddle (1.8.5, 3.3.1) builds it: in name scope
    `regularization`, the term in unnamed variables, summed into the gradient in place (a
    SelectedRows gradient into a new dense `<grad>@NEWGRAD`; in dynamic mode a new tensor,
    and no name scope: Paddle's is a no-op in dygraph mode, and this runs every step)."""
    result = []
    with contextlib.nullcontext() if mode.dynamic else name_scope("regularization"):
        for param, grad in params_grads:
            reg = getattr(param, "regularizer", None) or regularization
            if grad is None or reg is None:
                result.append((param, grad))
                continue
            block = grad.block
            with block.program._optimized_guard([param, grad]):
                term = reg.decay_term(param, block)
                new_grad = grad
                if mode.dynamic:    # a new tensor: the parameter's .grad stays as it was
                    new_grad = block.create_var(shape=grad.shape, dtype=grad.dtype)
                elif grad.type == "SELECTED_ROWS":
                    new_grad = block.create_var(name=grad.name + "@NEWGRAD", shape=grad.shape,
                                                dtype=grad.dtype)
                block.append_op(type="sum", inputs={"X": [grad, term]},
                                outputs={"Out": [new_grad]})
            result.append((param, new_grad))
    return result
