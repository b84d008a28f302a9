"""paddle.linalg (Paddle 3; Paddle 2.0 has no such module): 3.3.1's 40 names, from the
layers' "linalg" exports (refimpl/layers/matrix_solve.py, decompositions.py,
matrix_norms.py), plus the functions it shares with the paddle namespace (3.3.1's
paddle.linalg.matmul is paddle.matmul, ...). specs/linalg.md."""
from .layers import exports as _exports

# the functions paddle.linalg holds under their paddle.<name> that no layers module
# exports to "linalg" (diagonal / matrix_transpose are indexing's; the statistics' cov,
# corrcoef and vecdot are exported there; fp8_fp8_half_gemm_fused is GPU-only, not here)
SHARED_WITH_PADDLE = ("cholesky", "cross", "matmul", "diagonal", "matrix_transpose")

_paddle = _exports("paddle")
globals().update({name: _paddle[name] for name in SHARED_WITH_PADDLE})
globals().update(_exports("linalg"))
del _paddle

__all__ = sorted(name for name in globals() if not name.startswith("_") and
                 name != "SHARED_WITH_PADDLE")
