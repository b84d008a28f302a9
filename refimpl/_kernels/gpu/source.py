"""Making CuPy kernels, and recording their CUDA sources for compile checks.

`elementwise(...)` and `raw(...)` return cupy.ElementwiseKernel / cupy.RawKernel, as CuPy's
constructors, and add the kernel to DEFINITIONS. `check_source(definition)` is CUDA C++ that
NVRTC compiles without a device: a RawKernel's own source, or an ElementwiseKernel's
operation inside a kernel that declares its parameters as CuPy does (inputs by value,
outputs by reference, `raw` ones as pointers, `i` the element index), instantiated for
float and double."""
import re

import cupy

__all__ = ["elementwise", "raw", "raw_per_dtype", "row_block", "DEFINITIONS", "check_source",
           "BLOCK_REDUCE", "MAX_ROW_BLOCK"]

DEFINITIONS = []   # (kind, name, fields) in the order the modules made them

_CTYPES = {"float32": "float", "float64": "double", "int32": "int", "int64": "long long",
           "uint8": "unsigned char", "bool": "bool"}

# The row kernels' block-wide reductions (layer_norm, softmax: one block per row), in double
# whatever the data's type. blockDim.x must be a power of two of at most MAX_ROW_BLOCK
# (row_block picks it); every thread of the block must call them (they synchronize).
MAX_ROW_BLOCK = 512
BLOCK_REDUCE = "#define MAX_ROW_BLOCK %d\n" % MAX_ROW_BLOCK + r"""
__device__ double nan_max(double a, double b) { return (a != a || a > b) ? a : b; }

__device__ double block_reduce(double v, double* shared, bool is_max) {
  shared[threadIdx.x] = v;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) {
      double o = shared[threadIdx.x + s];
      shared[threadIdx.x] = is_max ? nan_max(shared[threadIdx.x], o)
                                   : shared[threadIdx.x] + o;
    }
    __syncthreads();
  }
  double r = shared[0];
  __syncthreads();   // shared is reused by the next reduction
  return r;
}
"""


def row_block(cols):
    """Threads per block for a row of `cols` elements: the power of two covering the row,
    at least a warp, at most MAX_ROW_BLOCK (longer rows: each thread strides over it)."""
    block = 32
    while block < cols and block < MAX_ROW_BLOCK:
        block *= 2
    return block


def elementwise(in_params, out_params, operation, name, preamble=""):
    DEFINITIONS.append(("elementwise", name, dict(in_params=in_params, out_params=out_params,
                                                   operation=operation, preamble=preamble)))
    return cupy.ElementwiseKernel(in_params, out_params, operation, name, preamble=preamble)


def raw(code, name):
    DEFINITIONS.append(("raw", name, dict(code=code)))
    return cupy.RawKernel(code, name)


# the suffix a RawKernel's float32 / float64 instantiation carries in its extern "C" name
DTYPE_SUFFIX = {"float32": "f", "float64": "d"}


def raw_per_dtype(code, stem):
    """{dtype: RawKernel `<stem>_f` / `<stem>_d`} for float32 and float64."""
    return {dtype: raw(code, "%s_%s" % (stem, suffix)) for dtype, suffix in DTYPE_SUFFIX.items()}


def _params(params, out):
    """CUDA declarations for CuPy's 'T x, raw float32 y' parameter list."""
    args, locals_ = [], []
    for param in (p.strip() for p in params.split(",") if p.strip()):
        words = param.split()
        is_raw = words[0] == "raw"
        ctype, pname = words[-2], words[-1]
        ctype = _CTYPES.get(ctype, ctype)
        const = "" if out else "const "
        if is_raw:
            args.append("%s%s* %s" % (const, ctype, pname))
        else:
            args.append("%s%s* %s_array" % (const, ctype, pname))
            locals_.append("%s%s%s %s = %s_array[i];" % (const, ctype, "&" if out else "",
                                                          pname, pname))
    return args, locals_


def check_source(definition):
    kind, name, fields = definition
    if kind == "raw":
        return fields["code"]
    in_args, in_locals = _params(fields["in_params"], out=False)
    out_args, out_locals = _params(fields["out_params"], out=True)
    types = sorted(set(re.findall(r"\b([A-Z])\b", fields["in_params"] + fields["out_params"])))
    template = "template <%s> " % ", ".join("typename " + t for t in types) if types else ""
    body = "%s\n%s__global__ void %s(%s, long long size) {\n  long long i = blockIdx.x * " \
           "blockDim.x + threadIdx.x;\n  if (i >= size) return;\n  %s\n  %s\n  %s;\n}\n" % (
               fields["preamble"], template, name, ", ".join(in_args + out_args),
               "\n  ".join(in_locals), "\n  ".join(out_locals), fields["operation"])
    for ctype in ("float", "double") if types else ():
        body += "template __global__ void %s<%s>(%s, long long);\n" % (
            name, ", ".join([ctype] * len(types)),
            ", ".join(re.sub(r"\b[A-Z]\b", ctype, a.rsplit(" ", 1)[0])
                      for a in in_args + out_args))
    return body
