"""The rnn op's kernels: its numpy reference (one input-projection GEMM per layer, one
recurrent GEMM per step, numpy cells) run with OpenBLAS on one thread per call. The
per-step GEMMs ([batch, H] x [H, G*H]) are small: waking OpenBLAS's second thread for each
cost more than it saved (issue 21, measured on 2 busy cores: 1450 -> 390 ms for the LSTM
LM's forward and backward). Factories: given the reference once (`falls_back`)."""
from .blas import single_threaded


def rnn_forward(reference):
    return single_threaded(reference)


def rnn_backward(reference):
    return single_threaded(reference)
