# cython: language_level=3
"""elementwise_add + relu with a per-column bias (the fc epilogue), forward and backward,
each one pass over the data with the GIL released. Drop-ins for the
fused_elemwise_add_relu(_grad) ops (refimpl/ops/fused.py); the fusion pass picks those ops
only for a 2-D X and a 1-D Y on its last axis, so that is the only layout handled here.

The backward sums dY row by row in order, as numpy's column sum does, so results are
bit-identical to the unfused ops."""
import numpy as np

ctypedef fused real:
    float
    double


cdef void _bias_relu(real[:, ::1] x, real[::1] b, real[:, ::1] out) noexcept nogil:
    cdef Py_ssize_t i, j
    cdef real v
    for i in range(x.shape[0]):
        for j in range(x.shape[1]):
            v = x[i, j] + b[j]
            out[i, j] = v if v > 0 else 0


cdef void _bias_relu_grad(real[:, ::1] out, real[:, ::1] dout, real[:, ::1] dx,
                          real[::1] db) noexcept nogil:
    cdef Py_ssize_t i, j
    cdef real v
    for j in range(db.shape[0]):
        db[j] = 0
    for i in range(out.shape[0]):
        for j in range(out.shape[1]):
            v = dout[i, j] * (out[i, j] > 0)   # relu_grad's product, signed zeros and all
            dx[i, j] = v
            db[j] += v


def _values(xs, input_names):
    return dict(zip(input_names, xs))


def add_relu(xs, sub_ops=(), functor_list=(), input_names=(), output_names=()):
    inputs = sub_ops[0][1]
    value = _values(xs, input_names)
    x = np.ascontiguousarray(value[inputs["X"][0]])
    b = np.ascontiguousarray(value[inputs["Y"][0]], dtype=x.dtype)
    out = np.empty_like(x)
    if x.dtype == np.float32:
        _bias_relu[float](x, b, out)
    else:
        _bias_relu[double](x, b, out)
    return [out]


def add_relu_grad(xs, sub_ops=(), functor_list=(), input_names=(), output_names=()):
    """sub_ops: relu_grad(Out, Out@GRAD) -> X@GRAD, then elementwise_add_grad(X, Y,
    Out@GRAD) -> X@GRAD, Y@GRAD. dX is relu's X@GRAD itself, as in the unfused ops."""
    (_, relu_in, relu_out, _), (_, add_in, add_out, _) = sub_ops
    value = _values(xs, input_names)
    out = np.ascontiguousarray(value[relu_in["Out"][0]])
    dout = np.ascontiguousarray(value[relu_in["Out@GRAD"][0]], dtype=out.dtype)
    dx = np.empty_like(out)
    db = np.empty(out.shape[1], dtype=out.dtype)
    if out.dtype == np.float32:
        _bias_relu_grad[float](out, dout, dx, db)
    else:
        _bias_relu_grad[double](out, dout, dx, db)
    y_shape = value[add_in["Y"][0]].shape
    results = {}
    for names, v in ((relu_out.get("X@GRAD"), dx), (add_out.get("X@GRAD"), dx),
                     (add_out.get("Y@GRAD"), db.reshape(y_shape))):
        if names:
            results[names[0]] = v
    return [results[n] for n in output_names]
