# cython: language_level=3
"""Two stacked float32 LSTM layers (one direction, no SequenceLength) run as a pipeline on
two threads: the rnn op's time loops for a pair of layers (refimpl.ops.rnn takes the pair
as `lstm_pair`), with its formulas (fast_exp.h holds the cells).

Why: each step of an LSTM layer is one small recurrent GEMM ([batch, H] x [H, 4H]) and the
cell, too small to split over two cores (splitting each step lost: the wait at the end of
every ~100 us step cost as much as it saved, issue 21). So the layers are not split but
overlapped: forward, thread A runs layer 1's steps and thread B layer 2's, one step or more
behind. B needs layer 1's h_t for its input projection xw2_t = h_t W_ih2^T + b_ih2; A
computes half of its columns (gates i, f) right after h_t and B the other half, so both
threads do one and a half small GEMMs a step, and only B ever waits (for A's count of
finished steps). Backward, B runs layer 2's BPTT from the last step and A layer 1's one
step or more behind, each computing half of the columns of layer 1's output grad
dgates2_t W_ih2. The column halves are fixed, so the results do not depend on how many
threads run: with one thread (a small problem, OMP_NUM_THREADS=1, or the team taken) A's
part runs first and B's after, and B never waits.

Arrays are C-contiguous float32: Reserve rows [T, B, 6H] (gates i f g o, c, h), gate sums
or their grads [T, B, 4H], states [B, H], W_hh and W_ih2 [4H, H], biases [4H]."""
import numpy as np
from cython.parallel cimport prange
from libc.string cimport memcpy
from refimpl._kernels.blas cimport Team, gemm_team, release_team, sgemm
from refimpl._kernels.lstm_rows cimport refimpl_lstm_grad_row_f, refimpl_lstm_row_f

cdef extern from *:
    """
    #include <sched.h>
    /* The count of steps a thread has finished: written with release, read with acquire,
       so the arrays written before a step is counted are seen by the reader. */
    static inline void refimpl_publish(int *count, int value)
    {
        __atomic_store_n(count, value, __ATOMIC_RELEASE);
    }
    /* Wait until *count >= value. Only B waits, and only for A, which never waits: with
       both threads running A always gets there; on one thread A's part has run first.
       Spins briefly (a step is ~100 us), then yields the core to A. */
    static inline void refimpl_wait_for(int *count, int value)
    {
        int spins = 0;
        while (__atomic_load_n(count, __ATOMIC_ACQUIRE) < value) {
            if (++spins > 256)
                sched_yield();
        }
    }
    """
    void refimpl_publish(int *count, int value) noexcept nogil
    void refimpl_wait_for(int *count, int value) noexcept nogil


cdef struct Layer:
    const float* w_hh       # [4H, H]
    const float* b_hh       # [4H]
    const float* h0         # [B, H]
    const float* c0         # [B, H]
    float* rec              # Reserve [T, B, 6H]
    float* gates            # forward: the input projections xw [T, B, 4H]; backward: dgates
    float* work             # forward: h W_hh^T + b_hh; backward: dh + dout [B, H]
    float* carry            # backward: the state grad carried from the step after [B, H]
    float* dc               # backward: dc carried in and out, two [B, H] buffers
    float* dc_next
    float* dout             # backward: Out@GRAD [T, B, H]


cdef struct Pair:
    Py_ssize_t steps, batch, hidden, split   # split: the columns of W_ih2 that A does
    Layer one, two
    const float* w_ih2      # [4H, H]
    const float* b_ih2      # [4H]
    float* out2             # forward: layer 2's Out [T, B, H]
    int done                # steps A has finished


cdef inline const float* _state(const Layer* l, Py_ssize_t t, Py_ssize_t B, Py_ssize_t H,
                                int which, Py_ssize_t* ld) noexcept nogil:
    """The state (which 4: c, 5: h) that step t read: h0/c0 before the first step."""
    if t == 0:
        ld[0] = H
        return l.c0 if which == 4 else l.h0
    ld[0] = 6 * H
    return l.rec + (t - 1) * B * 6 * H + which * H


cdef void _cell_forward(const Layer* l, Py_ssize_t t, Py_ssize_t B, Py_ssize_t H) noexcept nogil:
    """One forward step of one layer: h W_hh^T + b_hh, then the cells into Reserve."""
    cdef Py_ssize_t G = 4 * H, ld_h, ld_c, b
    cdef const float* h = _state(l, t, B, H, 5, &ld_h)
    cdef const float* c = _state(l, t, B, H, 4, &ld_c)
    for b in range(B):
        memcpy(l.work + b * G, l.b_hh, G * sizeof(float))
    sgemm(False, True, B, G, H, 1, h, ld_h, l.w_hh, H, 1, l.work, G)
    for b in range(B):
        refimpl_lstm_row_f(l.gates + (t * B + b) * G, l.work + b * G, c + b * ld_c,
                           l.rec + (t * B + b) * 6 * H, H)


cdef void _project(Pair* p, Py_ssize_t t, Py_ssize_t lo, Py_ssize_t hi) noexcept nogil:
    """Columns [lo, hi) of layer 2's input projection at step t: b_ih2 + h1_t W_ih2^T."""
    cdef Py_ssize_t B = p.batch, H = p.hidden, G = 4 * p.hidden, b
    if hi <= lo:
        return
    for b in range(B):
        memcpy(p.two.gates + (t * B + b) * G + lo, p.b_ih2 + lo, (hi - lo) * sizeof(float))
    sgemm(False, True, B, hi - lo, H, 1, p.one.rec + t * B * 6 * H + 5 * H, 6 * H,
          p.w_ih2 + lo * H, H, 1, p.two.gates + t * B * G + lo, G)


cdef void _forward_role(Pair* p, int role) noexcept nogil:
    cdef Py_ssize_t B = p.batch, H = p.hidden, t, b
    for t in range(p.steps):
        if role == 0:
            _cell_forward(&p.one, t, B, H)
            _project(p, t, 0, p.split)
            refimpl_publish(&p.done, <int>(t + 1))
        else:
            refimpl_wait_for(&p.done, <int>(t + 1))
            _project(p, t, p.split, 4 * H)
            _cell_forward(&p.two, t, B, H)
            for b in range(B):
                memcpy(p.out2 + (t * B + b) * H, p.two.rec + (t * B + b) * 6 * H + 5 * H,
                       H * sizeof(float))


cdef void _cell_backward(Layer* l, Py_ssize_t t, Py_ssize_t B, Py_ssize_t H) noexcept nogil:
    """One BPTT step of one layer: dh = carry + dout[t], the cells' grads into dgates[t]
    and dc, then the carry to the step before, dgates[t] W_hh."""
    cdef Py_ssize_t G = 4 * H, ld_c, b, j
    cdef const float* c_prev = _state(l, t, B, H, 4, &ld_c)
    cdef float* swap
    for j in range(B * H):
        l.work[j] = l.carry[j] + l.dout[t * B * H + j]
    for b in range(B):
        refimpl_lstm_grad_row_f(l.rec + (t * B + b) * 6 * H, c_prev + b * ld_c,
                                l.work + b * H, l.dc + b * H, l.gates + (t * B + b) * G,
                                l.dc_next + b * H, H)
    swap = l.dc
    l.dc = l.dc_next
    l.dc_next = swap
    sgemm(False, False, B, H, G, 1, l.gates + t * B * G, G, l.w_hh, H, 0, l.carry, H)


cdef void _output_grad(Pair* p, Py_ssize_t t, Py_ssize_t lo, Py_ssize_t hi) noexcept nogil:
    """Columns [lo, hi) of layer 1's Out@GRAD at step t: dgates2_t W_ih2."""
    cdef Py_ssize_t B = p.batch, H = p.hidden, G = 4 * p.hidden
    if hi > lo:
        sgemm(False, False, B, hi - lo, G, 1, p.two.gates + t * B * G, G, p.w_ih2 + lo, H,
              0, p.one.dout + t * B * H + lo, H)


cdef void _backward_role(Pair* p, int role) noexcept nogil:
    cdef Py_ssize_t B = p.batch, H = p.hidden, t, n
    for n in range(p.steps):
        t = p.steps - 1 - n
        if role == 0:   # layer 2, ahead
            _cell_backward(&p.two, t, B, H)
            _output_grad(p, t, 0, p.split)
            refimpl_publish(&p.done, <int>(n + 1))
        else:
            refimpl_wait_for(&p.done, <int>(n + 1))
            _output_grad(p, t, p.split, H)
            _cell_backward(&p.one, t, B, H)


cdef object _run(Pair* p, bint forward):
    """Both roles, on two threads when the work is worth waking the team for."""
    cdef double work = <double>p.steps * p.batch * 4 * p.hidden * p.hidden * 3
    cdef Team team = gemm_team(work, 2)
    cdef int role
    p.done = 0
    try:
        for role in prange(2, nogil=True, num_threads=team.threads, schedule="static",
                           chunksize=1):
            if forward:
                _forward_role(p, role)
            else:
                _backward_role(p, role)
    finally:
        release_team()


def _checked(name, a, shape):
    """a C-contiguous float32 of `shape` (the loops read raw memory: a wrong shape would
    read out of bounds, not raise)."""
    if (not isinstance(a, np.ndarray) or a.dtype != np.float32 or a.shape != shape
            or not a.flags.c_contiguous):
        raise ValueError("lstm_pair: %s expected C-contiguous float32 %s, got %s %s"
                         % (name, list(shape), getattr(a, "dtype", type(a)),
                            list(getattr(a, "shape", ()))))
    return a


cdef float* _ptr(name, a, shape) except NULL:
    """The data of a checked array (written only where the caller passes it to be)."""
    cdef const float[::1] flat = _checked(name, a, shape).reshape(-1)
    return <float*>&flat[0]


cdef _fill_layer(Layer* l, str name, layer, gates, Py_ssize_t T, Py_ssize_t B,
                 Py_ssize_t H):
    w_hh, b_hh, h0, c0, reserve = layer
    l.w_hh = _ptr(name + " w_hh", w_hh, (4 * H, H))
    l.b_hh = _ptr(name + " b_hh", b_hh, (4 * H,))
    l.h0 = _ptr(name + " h0", h0, (B, H))
    l.c0 = _ptr(name + " c0", c0, (B, H))
    l.rec = _ptr(name + " reserve", reserve, (T, B, 6 * H))
    l.gates = _ptr(name + " gates", gates, (T, B, 4 * H))


def lstm_pair_forward(layer1, layer2, w_ih2, b_ih2, xw1, xw2, out2):
    """layer1, layer2: (w_hh, b_hh, h0, c0, reserve) of each. From layer 1's input
    projections xw1 [T, B, 4H], fills both Reserves, layer 2's input projections xw2 and
    its Out out2 [T, B, H]."""
    cdef Py_ssize_t T = xw1.shape[0], B = xw1.shape[1], H = layer1[0].shape[1]
    if T == 0 or B == 0 or H == 0:
        return
    cdef Pair p
    p.steps, p.batch, p.hidden, p.split = T, B, H, 2 * H
    _fill_layer(&p.one, "layer 1", layer1, xw1, T, B, H)
    _fill_layer(&p.two, "layer 2", layer2, xw2, T, B, H)
    p.w_ih2 = _ptr("w_ih2", w_ih2, (4 * H, H))
    p.b_ih2 = _ptr("b_ih2", b_ih2, (4 * H,))
    p.out2 = _ptr("out2", out2, (T, B, H))
    work = [np.empty((B, 4 * H), np.float32) for _ in range(2)]
    p.one.work = _ptr("work", work[0], (B, 4 * H))
    p.two.work = _ptr("work", work[1], (B, 4 * H))
    _run(&p, True)


def lstm_pair_backward(layer1, layer2, w_ih2, dgates1, dgates2, dout1, dout2, dstates1,
                       dstates2):
    """BPTT through lstm_pair_forward: layer1, layer2 as there; from layer 2's Out@GRAD
    dout2 [T, B, H] and each layer's final state grads dstates (dh, dc) [B, H], fills the
    gate sums' grads dgates1, dgates2 [T, B, 4H] and layer 1's Out@GRAD dout1; returns
    ((dh0, dc0) of layer 1, (dh0, dc0) of layer 2)."""
    cdef Py_ssize_t T = dout2.shape[0], B = dout2.shape[1], H = layer1[0].shape[1]
    states = [[np.array(s, np.float32, order="C") for s in dstates]
              for dstates in (dstates1, dstates2)]
    if T == 0 or B == 0 or H == 0:
        return tuple(tuple(s) for s in states)
    cdef Pair p
    p.steps, p.batch, p.hidden, p.split = T, B, H, H // 2
    _fill_layer(&p.one, "layer 1", layer1, dgates1, T, B, H)
    _fill_layer(&p.two, "layer 2", layer2, dgates2, T, B, H)
    p.w_ih2 = _ptr("w_ih2", w_ih2, (4 * H, H))
    p.one.dout = _ptr("dout1", dout1, (T, B, H))
    p.two.dout = _ptr("dout2", dout2, (T, B, H))
    buffers = [[np.empty((B, H), np.float32) for _ in range(2)] for _ in range(2)]
    cdef Layer* layers[2]
    layers[0], layers[1] = &p.one, &p.two
    cdef int k
    for k in range(2):
        layers[k].carry = _ptr("dh", states[k][0], (B, H))
        layers[k].dc = _ptr("dc", states[k][1], (B, H))
        layers[k].dc_next = _ptr("work", buffers[k][0], (B, H))
        layers[k].work = _ptr("work", buffers[k][1], (B, H))
    _run(&p, False)
    # after T steps the dc buffers swapped T times: dc0 is where dc points now
    return tuple((states[k][0], states[k][1] if T % 2 == 0 else buffers[k][0])
                 for k in range(2))
