"""The rnn op's kernels: its numpy reference (one input-projection GEMM per layer, one
recurrent GEMM per step) with the time steps run with OpenBLAS on one thread, and for
float32 the LSTM cell compiled (lstm_cell.pyx: one pass per step each way, where the numpy
cell is a dozen array ops) and two stacked layers of a one-direction LSTM run as a pipeline,
one thread each (lstm_pipeline.pyx). The per-step GEMMs ([batch, H] x [H, G*H]) are small:
waking OpenBLAS's second thread for each cost more than it saved (issue 21, measured on 2
busy cores: 1450 -> 390 ms for the LSTM LM's forward and backward). The large GEMMs outside
the loops (input projections, weight grads, dInput) keep all threads, the kernels' team's
(blas.matmul: numpy's own threads would spin on after the op and slow the kernels that
follow). Factories: given the reference once (`falls_back`)."""
import functools

import numpy as np

from .blas import matmul, single_threaded
from .lstm_cell import lstm_grad_step, lstm_step
from .lstm_pipeline import lstm_pair_backward, lstm_pair_forward


def _compiled(reference):
    @functools.wraps(reference)
    def run(x, *args, **attrs):
        if x.dtype == np.float32:
            attrs = dict(attrs, lstm_kernels=(lstm_step, lstm_grad_step),
                         lstm_pair=(lstm_pair_forward, lstm_pair_backward))
        return reference(x, *args, step_loop=single_threaded, gemm=matmul, **attrs)
    return run


def rnn_forward(reference):
    return _compiled(reference)


def rnn_backward(reference):
    return _compiled(reference)
