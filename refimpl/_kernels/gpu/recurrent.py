"""The rnn op on a GPU: its array-generic reference (one input-projection GEMM per layer,
one recurrent GEMM per step) with an unmasked LSTM step's cell fused into one element-wise
kernel forward and one backward, where the reference's numpy cell is a dozen launches a
step each way. Each thread owns one (row, unit): it reads the four gate sums, writes the
activated gates, c and h into the step's Reserve row, and forward returns (h, c); backward
writes the four gates' grads and returns the carried dc. The formulas are the reference's
(refimpl/ops/rnn.py). A factory (the table's falls_back): given the reference once."""
import cupy

from .source import elementwise

__all__ = ["with_fused_lstm"]

_STEP = elementwise(
    "raw T xw, raw T hw, T c, int64 hidden", "raw T record, T c_new, T h_new",
    "long long row = i / hidden, k = i % hidden;"
    " long long g = row * 4 * hidden + k, r = row * 6 * hidden + k;"
    " T gi = 1 / (1 + exp(-(xw[g] + hw[g])));"
    " T gf = 1 / (1 + exp(-(xw[g + hidden] + hw[g + hidden])));"
    " T gg = tanh(xw[g + 2 * hidden] + hw[g + 2 * hidden]);"
    " T go = 1 / (1 + exp(-(xw[g + 3 * hidden] + hw[g + 3 * hidden])));"
    " c_new = gf * c + gi * gg; h_new = go * tanh(c_new);"
    " record[r] = gi; record[r + hidden] = gf; record[r + 2 * hidden] = gg;"
    " record[r + 3 * hidden] = go; record[r + 4 * hidden] = c_new;"
    " record[r + 5 * hidden] = h_new",
    "refimpl_lstm_step")
_GRAD_STEP = elementwise(
    "raw T record, T c_prev, T dh, T dc, int64 hidden", "raw T grads, T dc_out",
    "long long row = i / hidden, k = i % hidden;"
    " long long r = row * 6 * hidden + k, g = row * 4 * hidden + k;"
    " T gi = record[r], gf = record[r + hidden], gg = record[r + 2 * hidden];"
    " T go = record[r + 3 * hidden], tc = tanh(record[r + 4 * hidden]);"
    " T dcn = dh * go * (1 - tc * tc) + dc;"
    " grads[g] = dcn * gg * gi * (1 - gi);"
    " grads[g + hidden] = dcn * c_prev * gf * (1 - gf);"
    " grads[g + 2 * hidden] = dcn * gi * (1 - gg * gg);"
    " grads[g + 3 * hidden] = dh * tc * go * (1 - go);"
    " dc_out = dcn * gf",
    "refimpl_lstm_grad_step")


def _flat(a):
    """A contiguous array's flat view: the kernels index Reserve rows by hand."""
    if not a.flags.c_contiguous:
        raise ValueError("fused LSTM step: expected a contiguous array, got strides %s"
                         % (a.strides,))
    return a.reshape(-1)


def _step(xw_t, hw, c, record, hidden):
    h_new, c_new = cupy.empty(c.shape, c.dtype), cupy.empty(c.shape, c.dtype)
    _STEP(_flat(xw_t), _flat(hw), c, hidden, _flat(record), c_new, h_new)
    return h_new, c_new


def _grad_step(record, c_prev, dh, dc, grads, hidden):
    dc_out = cupy.empty(dh.shape, dh.dtype)
    _GRAD_STEP(_flat(record), c_prev, dh, dc, hidden, _flat(grads), dc_out)
    return dc_out


def with_fused_lstm(reference):
    """The rnn reference (forward or backward) running unmasked LSTM steps fused."""
    def run(*args, **attrs):
        return reference(*args, lstm_kernels=(_step, _grad_step), **attrs)
    run.__wrapped__ = reference
    return run
