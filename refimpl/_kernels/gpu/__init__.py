"""CuPy kernels: the table's `gpu` entries (refimpl/_kernels/table.py), drop-ins for op
references that take and return CuPy arrays on the current GPU. Element-wise work is
`ElementwiseKernel`s, windowed and per-row work `RawKernel`s (CUDA C++, compiled by NVRTC on
first call and cached by CuPy), products go to cuBLAS through `cupy.matmul`, reductions to
CuPy's own. Every kernel is made through refimpl._kernels.gpu.source, which records its
CUDA source so the tests compile each one with NVRTC even without a GPU (specs/gpu.md).
Importing a module here needs CuPy, not a GPU."""
