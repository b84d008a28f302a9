"""paddle.incubate.optimizer.LookAhead (Paddle 2.0): after the inner optimizer's update
(the "fast" weights), a step counter; at count 1 the slow weights take the parameters, and
at every count that is a multiple of k parameters and slow weights both become
alpha * param + (1 - alpha) * slow. The choices are 0/1 masks, as Paddle builds them, so
static programs and eager steps run the same ops. What the counter counts is the switch
`lookahead_step_count`: Paddle 2.0 increments it once per parameter updated (so a step of
n parameters advances it by n), 3.3.1 once per step."""
import numbers

from ... import versions
from ...dygraph.tensor import Tensor
from ...framework import mode, unique_name
from ...framework.program import Variable, default_main_program, default_startup_program, \
    program_guard
from ...layers.common import append_op_out
from ...layers.creation import assign, create_global_var, fill_constant
from ...layers.math import cast
from ...layers.tensor import increment
from ...optimizer.optimizer import Optimizer

__all__ = ["LookAhead"]


class LookAhead(Optimizer):
    _slow_str = "slow"

    def __init__(self, inner_optimizer, alpha=0.5, k=5, name=None):
        if inner_optimizer is None:
            raise ValueError("LookAhead: inner_optimizer must not be None")
        if isinstance(alpha, bool) or not isinstance(alpha, numbers.Real) or \
                not 0.0 <= alpha <= 1.0:
            raise ValueError("LookAhead: alpha must be a float in [0, 1], got %r" % (alpha,))
        if isinstance(k, bool) or not isinstance(k, int) or k <= 0:
            raise ValueError("LookAhead: k must be a positive int, got %r" % (k,))
        self.inner_optimizer = inner_optimizer
        params = inner_optimizer._parameter_list
        if params is None:      # static mode: the main program's parameters
            params = default_main_program().global_block().all_parameters()
        super().__init__(learning_rate=float(alpha), parameters=params, name=name)
        self.alpha = float(alpha)
        self.k = k
        self.type = "lookahead"
        self._global_step_var = None

    def _create_accumulators(self, block, parameters):
        for param in parameters:
            self._add_accumulator(self._slow_str, param)

    def _count_step(self):
        if self._global_step_var is None:
            self._global_step_var = create_global_var(
                shape=[1], value=0, dtype="int32", persistable=True,
                name=unique_name.generate("lookahead_step"))
        increment(self._global_step_var, 1.0)

    def _append_optimize_op(self, block, param_and_grad):
        if versions.switch("lookahead_step_count") == "per_parameter":
            self._count_step()
        param = param_and_grad[0]
        step = self._global_step_var

        def int32(value):
            return fill_constant([1], "int32", value)

        def where_equal(x, value):
            """1 where x == value, else 0, in the parameter's dtype."""
            hit = append_op_out("equal", {"X": [x], "Y": [int32(value)]}, {"axis": -1},
                                out_dtype="bool", stop_gradient=True)
            return cast(hit, param.dtype)

        is_first = where_equal(step, 1)
        remainder = append_op_out("elementwise_mod", {"X": [step], "Y": [int32(self.k)]},
                                  {"axis": -1}, stop_gradient=True)
        is_sync = where_equal(remainder, 0)
        slow = self._get_accumulator(self._slow_str, param)
        assign(param * is_first + slow * (1.0 - is_first), output=slow)
        blended = param * self.alpha + slow * (1.0 - self.alpha)
        assign(blended * is_sync + param * (1.0 - is_sync), output=param)
        assign(blended * is_sync + slow * (1.0 - is_sync), output=slow)

    def _lookahead(self, params_grads):
        if versions.switch("lookahead_step_count") == "per_step":
            self._count_step()
        self._create_optimization_pass(params_grads)

    @mode.no_grad()
    def step(self):
        """The inner optimizer's step, then the lookahead update of every trainable
        parameter that has a gradient (dynamic mode)."""
        self._check_eager("step")
        self.inner_optimizer.step()
        self._lookahead([(p, Tensor(p._grad)) for p in self._parameter_list
                         if p.trainable and not p.stop_gradient and p._grad is not None])

    def minimize(self, loss, startup_program=None, parameters=None, no_grad_set=None):
        """The inner optimizer's minimize, then the lookahead ops (static mode: into the
        loss's program); returns the inner minimize's (ops, params_grads)."""
        if not isinstance(loss, (Variable, Tensor)):
            raise TypeError("LookAhead.minimize: loss must be a Tensor, got %s"
                            % type(loss).__name__)
        ops, params_grads = self.inner_optimizer.minimize(
            loss, startup_program=startup_program, parameters=parameters,
            no_grad_set=no_grad_set)
        if self._eager:
            with mode.no_grad():
                self._lookahead(params_grads)
        else:
            self._startup_program = startup_program
            with program_guard(loss.block.program,
                               startup_program or default_startup_program()):
                self._lookahead(params_grads)
        return ops, params_grads
