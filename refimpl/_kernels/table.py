"""The kernel table: everything about running an op type fast, keyed by op type. The op's
definition (refimpl.ops) says what it computes; this says which other functions may
compute it and what they need from whoever binds them. refimpl.dispatch.select_kernel reads
it; nothing here imports the ops or the framework.

Kernel kinds (`which`), each a function with the reference's arguments:
  forward, backward   the op and its gradient (the grad op "<type>_grad")
  forward_out,        the same, each result written into `alloc(shape, dtype)` (a keyword):
  backward_out        memory_optimize hands the buffers of dead temporaries this way
  forward_inplace     the result written into the first input (enable_inplace, when that
                      input dies at this op)
Runtime keywords a binder passes besides the attrs (see OpKernels):
  alloc   to the *_out kernels
  need    (bool per input grad) to backward kernels of ops with `partial_grads`
  saved   a SavedForGrad shared by a forward and its grad op, ops with `saves_for_grad`
  group   the device's communicator group, ops with `collective` (references too)
"""
import numpy as np

from .. import versions
from . import out_variants as out

__all__ = ["OpKernels", "KERNELS", "WHICH", "FOLDED_UPDATES", "FOLDED_CHAINS"]

WHICH = ("forward", "backward", "forward_out", "backward_out", "forward_inplace")


def _float(attrs, dtype):
    return dtype in (None, "float32", "float64")


def _pool_divisor_is_window(attrs):
    """Whether an average pool divides by the window inside the padded input (what the
    compiled and CuPy kernels do), not by the kernel's area (Paddle 1.8, non-exclusive
    ceil_mode: the avg_pool_ceil_divisor switch)."""
    return attrs["exclusive"] or not attrs["ceil_mode"] or \
        versions.switch("avg_pool_ceil_divisor") != "kernel"


def _adam_scaled():
    """Whether Adam scales epsilon by sqrt(1 - beta2^t), as the fast kernels do."""
    return versions.switch("adam_epsilon") == "scaled"


class OpKernels:
    """How one op type runs fast.

    compiled        {which: "module:function"} in refimpl._kernels: Cython drop-ins, used by
                    the `cython` backend when `fast_ok(attrs, dtype)` (attrs and dtype are
                    fixed when an op is bound)
    falls_back      the compiled (and CuPy) kernels that cover only some shapes:
                    "module:function" is then a factory, called once with the function the
                    kernel replaces (the numpy variant or the reference), which it calls for
                    the other shapes
    numpy           {which: function}: numpy out and in-place variants (both backends)
    gpu             {which: "gpu.module:function"}: CuPy kernels (refimpl/_kernels/gpu/),
                    drop-ins taking and returning CuPy arrays, used on a CUDAPlace unless
                    REFIMPL_KERNELS=numpy, when `gpu_ok` (default: fast_ok); they take `need`
                    as the compiled ones do, never `saved` or `alloc`
    fast_ok         (attrs, dtype) -> bool; default: float32 and float64
    partial_grads   the backward kernels take `need` and skip the input grads nobody reads
                    (the reference computes them all)
    saves_for_grad  the compiled forward hands work to its grad op through `saved`:
                    "little" when it is no larger than the forward's output (kept under
                    memory_optimize=True), "large" otherwise (dropped then)
    collective      every function of the op, the reference included, takes `group`; each
                    device must issue these ops in the same order
    """

    def __init__(self, compiled=None, falls_back=(), numpy=None, gpu=None, fast_ok=_float,
                 gpu_ok=None, partial_grads=False, saves_for_grad=None, collective=False):
        assert set(compiled or {}).union(numpy or {}, gpu or {}) <= set(WHICH)
        assert saves_for_grad in (None, "little", "large")
        self.compiled = dict(compiled or {})
        self.falls_back = frozenset(falls_back)
        self.numpy = dict(numpy or {})
        self.gpu = dict(gpu or {})
        self.gpu_ok = gpu_ok or fast_ok
        self.fast_ok = fast_ok
        # False: the choice depends on the dtype alone (callers may cache by dtype)
        self.fast_ok_reads_attrs = fast_ok is not _float
        self.partial_grads = partial_grads
        self.saves_for_grad = saves_for_grad
        self.collective = collective


_ELEMENTWISE = {op_type: OpKernels(numpy={"forward_out": out.elementwise_out(ufunc),
                                          "forward_inplace": out.elementwise_inplace(ufunc)})
                for op_type, ufunc in (("elementwise_add", np.add),
                                       ("elementwise_sub", np.subtract),
                                       ("elementwise_mul", np.multiply))}
_ELEMENTWISE["elementwise_add"].compiled = {
    "forward": "elementwise:add_forward", "forward_out": "elementwise:add_forward",
    "backward": "elementwise:add_backward"}

_CONV2D = OpKernels(compiled={"forward": "im2col:conv2d_forward",
                              "backward": "im2col:conv2d_backward"},
                    gpu={"forward": "gpu.conv:conv2d_forward",
                         "backward": "gpu.conv:conv2d_backward"},
                    partial_grads=True, saves_for_grad="large")

_COLLECTIVE = OpKernels(collective=True)

KERNELS = dict(_ELEMENTWISE, **{
    "relu": OpKernels(
        compiled={"forward": "activation:relu_forward", "backward": "activation:relu_backward",
                  "forward_out": "activation:relu_forward",
                  "backward_out": "activation:relu_backward"},
        numpy={"forward_out": out.relu_out, "backward_out": out.relu_grad_out,
               "forward_inplace": out.relu_inplace},
        gpu={"forward": "gpu.activation:relu_forward",
             "backward": "gpu.activation:relu_backward"}),
    "abs": OpKernels(numpy={"forward_out": out.abs_out}),
    "gelu": OpKernels(compiled={"forward": "activation:gelu_forward",
                                "backward": "activation:gelu_backward"},
                      gpu={"forward": "gpu.activation:gelu_forward",
                           "backward": "gpu.activation:gelu_backward"}),
    "scale": OpKernels(numpy={"forward_out": out.scale_out,
                              "forward_inplace": out.scale_inplace}),
    "sum": OpKernels(compiled={"forward": "sum:sum_forward"}, falls_back=("forward",),
                     numpy={"forward_inplace": out.sum_inplace}),
    "mul": OpKernels(
        compiled={"forward": "matmul:mul_forward", "forward_out": "matmul:mul_forward",
                  "backward": "matmul:mul_backward", "backward_out": "matmul:mul_backward"},
        numpy={"forward_out": out.mul_out, "backward_out": out.mul_grad_out},
        gpu={"forward": "gpu.matmul:mul_forward", "backward": "gpu.matmul:mul_backward"},
        partial_grads=True),
    "matmul_v2": OpKernels(
        compiled={"forward": "matmul:matmul_v2_forward",
                  "forward_out": "matmul:matmul_v2_forward",
                  "backward": "matmul:matmul_v2_backward"},
        falls_back=("backward",),
        numpy={"forward_out": out.matmul_v2_out},
        gpu={"forward": "gpu.matmul:matmul_v2_forward"},
        partial_grads=True),
    "matmul": OpKernels(
        compiled={"forward": "matmul:matmul_forward", "backward": "matmul:matmul_backward"},
        falls_back=("forward", "backward"), partial_grads=True),
    "conv2d": _CONV2D,
    "depthwise_conv2d": _CONV2D,
    "pool2d": OpKernels(compiled={"forward": "pool:pool2d_forward",
                                  "backward": "pool:pool2d_backward"},
                        gpu={"forward": "gpu.pool:pool2d_forward",
                             "backward": "gpu.pool:pool2d_backward"},
                        # they divide by the window inside the padded input, which Paddle
                        # 1.8 does not for non-exclusive ceil_mode averages (the profile)
                        fast_ok=lambda attrs, dtype: _float(attrs, dtype)
                        and _pool_divisor_is_window(attrs),
                        gpu_ok=lambda attrs, dtype: _float(attrs, dtype)
                        and _pool_divisor_is_window(attrs),
                        saves_for_grad="little"),
    "batch_norm": OpKernels(
        compiled={"forward": "batch_norm:batch_norm_forward",
                  "backward": "batch_norm:batch_norm_backward"},
        gpu={"forward": "gpu.batch_norm:batch_norm_forward",
             "backward": "gpu.batch_norm:batch_norm_backward"},
        fast_ok=lambda attrs, dtype: _float(attrs, dtype) and attrs["data_layout"] == "NCHW"),
    "softmax_with_cross_entropy": OpKernels(
        compiled={"forward": "softmax_ce:softmax_ce_forward",
                  "backward": "softmax_ce:softmax_ce_backward"},
        gpu={"forward": "gpu.softmax_ce:softmax_ce_forward",
             "backward": "gpu.softmax_ce:softmax_ce_backward"},
        fast_ok=lambda attrs, dtype: _float(attrs, dtype) and not attrs["soft_label"]
        and attrs["axis"] == -1),
    "transpose2": OpKernels(compiled={"forward": "transpose:transpose2_forward",
                                      "backward": "transpose:transpose2_backward"},
                            falls_back=("forward", "backward"),
                            fast_ok=lambda attrs, dtype: True),
    "softmax": OpKernels(compiled={"forward": "softmax:softmax_forward",
                                   "backward": "softmax:softmax_backward"},
                         gpu={"forward": "gpu.softmax:softmax_forward",
                              "backward": "gpu.softmax:softmax_backward"},
                         falls_back=("forward", "backward"),
                         fast_ok=lambda attrs, dtype: dtype == "float32", gpu_ok=_float),
    "layer_norm": OpKernels(compiled={"forward": "layer_norm:layer_norm_forward",
                                      "backward": "layer_norm:layer_norm_backward"},
                            gpu={"forward": "gpu.layer_norm:layer_norm_forward",
                                 "backward": "gpu.layer_norm:layer_norm_backward"}),
    "dropout": OpKernels(gpu={"forward": "gpu.dropout:with_fused_mask",
                              "backward": "gpu.dropout:with_fused_mask"},
                         falls_back=("forward", "backward")),
    "lookup_table": OpKernels(gpu={"forward": "gpu.lookup:lookup_table_forward",
                                   "backward": "gpu.lookup:lookup_table_backward"}),
    "lookup_table_v2": OpKernels(gpu={"forward": "gpu.lookup:lookup_table_v2_forward",
                                      "backward": "gpu.lookup:lookup_table_backward"}),
    "rnn": OpKernels(compiled={"forward": "recurrent:rnn_forward",
                               "backward": "recurrent:rnn_backward"},
                     gpu={"forward": "gpu.recurrent:with_fused_lstm",
                          "backward": "gpu.recurrent:with_fused_lstm"},
                     falls_back=("forward", "backward")),
    "sgd": OpKernels(compiled={"forward": "optim:sgd"}, gpu={"forward": "gpu.optim:sgd"}),
    "momentum": OpKernels(
        compiled={"forward": "optim:momentum"}, gpu={"forward": "gpu.optim:momentum"},
        fast_ok=lambda attrs, dtype: _float(attrs, dtype)
        and not attrs["regularization_method"]),
    # they scale epsilon by sqrt(1 - beta2^t), which Paddle 1.8 does not (the profile)
    "adam": OpKernels(compiled={"forward": "optim:adam"}, gpu={"forward": "gpu.optim:adam"},
                      fast_ok=lambda attrs, dtype: _float(attrs, dtype) and _adam_scaled(),
                      gpu_ok=lambda attrs, dtype: _float(attrs, dtype) and _adam_scaled()),
    "fused_elemwise_add_relu": OpKernels(
        compiled={"forward": "fused:add_relu"}, gpu={"forward": "gpu.activation:add_relu"},
        numpy={"forward_inplace": out.fused_add_relu_inplace}),
    "sync_batch_norm": _COLLECTIVE,
}, **{op_type: _COLLECTIVE for op_type in (
    ["c_allreduce_" + r for r in ("sum", "max", "min", "prod")]
    + ["c_reduce_" + r for r in ("sum", "max", "min", "prod")]
    + ["c_broadcast", "c_allgather", "c_scatter", "barrier"])})


# Compiled kernels that run a grad op and the plain parameter update right after it as one
# call, keyed by (forward op type, update op type): the grad op's backward with the update
# of its input `param_slot` folded into that input's gradient GEMM, whose result the update
# alone reads (refimpl/executor/folded_updates.py pairs the two ops). Each is a drop-in for
# the grad op's backward kernel followed by the update op's reference; `fn(*grad op inputs,
# lr, **attrs, need_x=, alloc=)` updates the parameter in place and returns the other
# input's gradient. The numpy backend runs the two ops as they are.
FOLDED_UPDATES = {
    ("mul", "sgd"): {"kernel": "matmul:mul_backward_sgd", "param_slot": "Y"},
}



# Compiled kernels that run a chain of consecutive ops as one call, keyed by the ops' types
# (refimpl/executor/folded_chains.py finds the chains): fc's forward, whose kernel takes
# mul's inputs, the bias (elementwise_add's Y), mul's num_col_dims and the add's axis and
# returns the chain's output; and its relu-and-bias gradient, whose kernel takes relu_grad's
# inputs, then elementwise_add_grad's X and Y (read for their shapes) and axis, and returns
# the add's X and Y gradients. Each is a drop-in, to the bit, for the members' compiled
# kernels run in turn; the numpy backend runs the ops as they are.
FOLDED_CHAINS = {
    ("mul", "elementwise_add", "relu"): "matmul:mul_bias_relu_forward",
    ("mul", "elementwise_add"): "matmul:mul_bias_forward",
    # nn.Linear's (2.x static graphs): matmul_v2 of x [..., K] and an untransposed 2-D
    # weight is mul at x_num_col_dims = rank(x) - 1 (folded_chains checks the ranks)
    ("matmul_v2", "elementwise_add", "relu"): "matmul:mul_bias_relu_forward",
    ("matmul_v2", "elementwise_add"): "matmul:mul_bias_forward",
    # Paddle 2.0's nn.Linear builds matmul (v1, alpha 1, untransposed) instead
    ("matmul", "elementwise_add", "relu"): "matmul:mul_bias_relu_forward",
    ("matmul", "elementwise_add"): "matmul:mul_bias_forward",
    ("relu_grad", "elementwise_add_grad"): "fused:relu_bias_backward",
}
