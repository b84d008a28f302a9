"""Weight decay: a regularizer appends ops that add its term to a parameter's gradient."""

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
        out = block.create_var(name=param.name + "@L2DECAY", shape=param.shape,
                               dtype=param.dtype)
        block.append_op(type="scale", inputs={"X": [param]}, outputs={"Out": [out]},
                        attrs={"scale": self.coeff})
        return out


class L1Decay(WeightDecayRegularizer):
    """grad += coeff * sign(param)"""

    def decay_term(self, param, block):
        sign = block.create_var(name=param.name + "@SIGN", shape=param.shape, dtype=param.dtype)
        block.append_op(type="sign", inputs={"X": [param]}, outputs={"Out": [sign]})
        out = block.create_var(name=param.name + "@L1DECAY", shape=param.shape,
                               dtype=param.dtype)
        block.append_op(type="scale", inputs={"X": [sign]}, outputs={"Out": [out]},
                        attrs={"scale": self.coeff})
        return out


L1DecayRegularizer = L1Decay
L2DecayRegularizer = L2Decay


def append_regularization_ops(params_grads, regularization=None):
    """Add each parameter's decay term to its gradient (the parameter's own regularizer
    wins over the optimizer-wide one, as in Paddle)."""
    result = []
    for param, grad in params_grads:
        reg = getattr(param, "regularizer", None) or regularization
        if grad is None or reg is None:
            result.append((param, grad))
            continue
        block = grad.block
        program = block.program
        with program._optimized_guard([param, grad]):
            term = reg.decay_term(param, block)
            new_grad = block.create_var(name=grad.name + "@REGULARIZED", shape=grad.shape,
                                        dtype=grad.dtype)
            block.append_op(type="sum", inputs={"X": [grad, term]},
                            outputs={"Out": [new_grad]})
        result.append((param, new_grad))
    return result
