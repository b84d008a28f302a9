"""What the batch_norm kernels (Cython and CuPy) read from the op's arguments, by the rules
of refimpl.ops.batch_norm's uses_running_stats and momentum_of (kernels do not import ops)."""


def uses_running_stats(is_test, use_global_stats, trainable_statistics):
    """Whether X is normalized with the running Mean/Variance instead of batch statistics."""
    return use_global_stats or (is_test and not trainable_statistics)


def momentum_of(momentum_tensor, momentum, use_momentum_tensor):
    """MomentumTensor's value when the op has one and uses it, else the attr (32-bit as
    Paddle's, from the binding: refimpl.ops.batch_norm.momentum_of)."""
    if momentum_tensor is not None and use_momentum_tensor:
        return float(momentum_tensor.reshape(-1)[0])
    return momentum
