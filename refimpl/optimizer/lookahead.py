"""LookaheadOptimizer (Paddle 1.8, fluid.optimizer): the inner optimizer updates the
parameters ("fast" weights) every step; every k steps the slow weights move alpha of the way
to the fast ones and the fast weights restart from there.

As Paddle 1.8 builds it: the slow weights `<param>@SLOW` start as copies of the parameters
(startup program); a step counter `lookahead_step` counts the runs of the main program; at
step 1 the slow weights take the fast ones (after the first inner update); at every step
that is a multiple of k, slow = fast = alpha * fast + (1 - alpha) * slow. Paddle selects
with Switch blocks; here 0/1 masks pick between the candidates (the same values).
"""
import numbers

from ..framework.math_patch import cast
from ..framework.program import default_startup_program, program_guard

__all__ = ["LookaheadOptimizer"]


class LookaheadOptimizer:
    def __init__(self, inner_optimizer, alpha=0.5, k=5):
        if inner_optimizer is None:
            raise ValueError("LookaheadOptimizer: inner_optimizer must not be None")
        if not isinstance(alpha, numbers.Real) or not 0.0 <= alpha <= 1.0:
            raise ValueError("LookaheadOptimizer: alpha must be a float in [0, 1], got %r"
                             % (alpha,))
        if not isinstance(k, int) or isinstance(k, bool) or k <= 0:
            raise ValueError("LookaheadOptimizer: k must be a positive int, got %r" % (k,))
        self.inner_optimizer = inner_optimizer
        self.alpha = float(alpha)
        self.k = k
        self.type = "lookahead"

    def minimize(self, loss, startup_program=None):
        """The inner optimizer's minimize, then the lookahead ops; returns what the inner
        minimize returned (its update ops, params_grads)."""
        result = self.inner_optimizer.minimize(loss, startup_program=startup_program)
        startup = startup_program or default_startup_program()
        params = [p for p, g in result[1] if g is not None and p.trainable]
        with program_guard(loss.block.program, startup):
            self._append_lookahead(loss.block.program.global_block(),
                                   startup.global_block(), params)
        return result

    def _append_lookahead(self, block, startup_block, params):
        slows = []
        for p in params:
            name = p.name + "@SLOW"
            slow = block.create_var(name=name, shape=p.shape, dtype=p.dtype, persistable=True)
            startup_block.create_var(name=name, shape=p.shape, dtype=p.dtype, persistable=True)
            fast_init = startup_block._find_var_recursive(p.name) or startup_block.create_var(
                name=p.name, shape=p.shape, dtype=p.dtype, persistable=True)
            startup_block.append_op(type="assign", inputs={"X": [fast_init]},
                                    outputs={"Out": [startup_block.var(name)]})
            slows.append(slow)
        step = block.create_var(name="lookahead_step", shape=[1], dtype="int32",
                                persistable=True)
        startup_step = startup_block.create_var(name="lookahead_step", shape=[1],
                                                dtype="int32", persistable=True)
        startup_block.append_op(type="fill_constant", outputs={"Out": [startup_step]},
                                attrs={"shape": [1], "dtype": "int32", "value": 0.0})
        block.append_op(type="increment", inputs={"X": [step]}, outputs={"Out": [step]},
                        attrs={"step": 1.0})
        is_first = self._mask(block, step, 1, 0)
        is_sync = self._mask(block, step, 0, self.k)
        for fast, slow in zip(params, slows):
            slow_now = fast * is_first + slow * (1.0 - is_first)
            blended = fast * self.alpha + slow_now * (1.0 - self.alpha)
            for target, kept in ((fast, fast), (slow, slow_now)):
                block.append_op(type="assign",
                                inputs={"X": [blended * is_sync + kept * (1.0 - is_sync)]},
                                outputs={"Out": [target]})

    @staticmethod
    def _mask(block, step, value, modulus):
        """float32 [1]: 1 where step (mod `modulus`, when given) equals `value`, else 0."""
        def constant(v):
            out = block.create_var(dtype="int32", shape=[1])
            block.append_op(type="fill_constant", outputs={"Out": [out]},
                            attrs={"shape": [1], "dtype": "int32", "value": float(v)})
            return out
        x = step
        if modulus:
            x = block.create_var(dtype="int32", shape=[1])
            block.append_op(type="elementwise_mod",
                            inputs={"X": [step], "Y": [constant(modulus)]},
                            outputs={"Out": [x]}, attrs={"axis": -1})
        hit = block.create_var(dtype="bool", shape=[1])
        block.append_op(type="equal", inputs={"X": [x], "Y": [constant(value)]},
                        outputs={"Out": [hit]}, attrs={"axis": -1})
        return cast(hit, "float32")
