"""fluid.contrib.mixed_precision.decorate (Paddle 1.8): an optimizer wrapper that rewrites
the program for float16 (fp16_utils.rewrite_program), scales the loss by a persistable
loss_scaling before the backward pass, divides the gradients by it, and with dynamic loss
scaling zeroes the gradients of a step whose gradients are not all finite and adjusts the
scaling (fp16_utils.update_loss_scaling)."""
from ...framework import default_main_program, default_startup_program
from ... import layers, unique_name
from .fp16_lists import AutoMixedPrecisionLists
from .fp16_utils import rewrite_program, update_loss_scaling, update_role_var_grad

__all__ = ["decorate"]


def _global_var(prefix, value, dtype):
    return layers.create_global_var(name=unique_name.generate(prefix), shape=[1],
                                    value=value, dtype=dtype, persistable=True)


def _one_element(total):
    """A full reduction as shape [1] for the concat: it is 0-D under 3 (switch
    scalar_shape)."""
    return layers.reshape(total, [1]) if len(total.shape) == 0 else total


class OptimizerWithMixedPrecision:
    def __init__(self, optimizer, amp_lists, init_loss_scaling, use_dynamic_loss_scaling,
                 incr_every_n_steps, decr_every_n_nan_or_inf, incr_ratio, decr_ratio):
        self._optimizer = optimizer
        self._amp_lists = amp_lists
        self._params_grads = None
        self._train_program = default_main_program()
        self._startup_prog = default_startup_program()
        self._scaled_loss = None
        self._loss_scaling = _global_var("loss_scaling", init_loss_scaling, "float32")
        self._use_dynamic_loss_scaling = use_dynamic_loss_scaling
        if use_dynamic_loss_scaling:
            self._incr_every_n_steps = layers.fill_constant(shape=[1], dtype="int32",
                                                            value=incr_every_n_steps)
            self._decr_every_n_nan_or_inf = layers.fill_constant(
                shape=[1], dtype="int32", value=decr_every_n_nan_or_inf)
            self._incr_ratio = incr_ratio
            self._decr_ratio = decr_ratio
            self._num_good_steps = _global_var("num_good_steps", 0, "int32")
            self._num_bad_steps = _global_var("num_bad_steps", 0, "int32")

    def get_loss_scaling(self):
        """The loss scaling variable (float32 [1])."""
        return self._loss_scaling

    def get_scaled_loss(self):
        """loss * loss_scaling (set by backward / minimize)."""
        return self._scaled_loss

    def backward(self, loss, startup_program=None, parameter_list=None, no_grad_set=None,
                 callbacks=None):
        """Rewrites the program, appends the backward pass of the scaled loss and returns
        [(param, grad / loss_scaling)]."""
        rewrite_program(self._train_program, self._amp_lists)
        self._scaled_loss = loss * self._loss_scaling
        self._params_grads = self._optimizer.backward(self._scaled_loss, startup_program,
                                                      parameter_list, no_grad_set, callbacks)
        update_role_var_grad(self._train_program, self._params_grads)
        unscaled = []
        for param, grad in self._params_grads:
            with self._train_program._optimized_guard([param, grad]):
                unscaled.append([param, grad / self._loss_scaling])
        return unscaled

    def apply_gradients(self, scaled_params_grads):
        if self._use_dynamic_loss_scaling:
            sums = layers.concat([_one_element(layers.reduce_sum(g))
                                  for _, g in scaled_params_grads])
            is_overall_finite = layers.isfinite(layers.reduce_sum(sums))
            update_loss_scaling(is_overall_finite, self._loss_scaling, self._num_good_steps,
                                self._num_bad_steps, self._incr_every_n_steps,
                                self._decr_every_n_nan_or_inf, self._incr_ratio,
                                self._decr_ratio)
            with layers.Switch() as switch:
                with switch.case(is_overall_finite):
                    pass
                with switch.default():
                    for _, grad in scaled_params_grads:
                        layers.assign(layers.zeros_like(grad), grad)
        return self._optimizer.apply_gradients(scaled_params_grads)

    def minimize(self, loss, startup_program=None, parameter_list=None, no_grad_set=None):
        scaled_params_grads = self.backward(loss, startup_program=startup_program,
                                            parameter_list=parameter_list,
                                            no_grad_set=no_grad_set)
        return self.apply_gradients(scaled_params_grads), scaled_params_grads


def decorate(optimizer, amp_lists=None, init_loss_scaling=2 ** 15, incr_every_n_steps=1000,
             decr_every_n_nan_or_inf=2, incr_ratio=2.0, decr_ratio=0.8,
             use_dynamic_loss_scaling=True):
    """`optimizer` wrapped for mixed precision training (the default lists when amp_lists
    is None)."""
    return OptimizerWithMixedPrecision(
        optimizer, amp_lists or AutoMixedPrecisionLists(), init_loss_scaling,
        use_dynamic_loss_scaling, incr_every_n_steps, decr_every_n_nan_or_inf, incr_ratio,
        decr_ratio)
