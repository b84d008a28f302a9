#!/usr/bin/env bash
# The GPU checks of specs/gpu.md in one run, for a GPU machine lent for minutes: the
# environment, the `-m gpu` tests, the GPU bench against PyTorch CUDA and the conformance
# goldens on the GPU. Each stage has its own time limit, so one that hangs or crashes
# still leaves the others' logs. Usage, from a checkout's root:
#   bash tools/gpu_check.sh [stage ...]     (stages: env build tests bench conformance eager;
#                                            default all)
# build compiles the Cython kernels there (the GPU machine's Python differs from this one's,
# so the .so built here do not load there): without it the numpy references stand in for
# them, and the host-side work of a GPU step (dropout's mt19937 masks) runs in Python.
# Logs: $OUT/<stage>.log (OUT defaults to ./gpu_check_out); the tail of each is printed.
set -u
out=${OUT:-gpu_check_out}
mkdir -p "$out"
export PYTHONPATH=$PWD PYTHONUNBUFFERED=1
py=${PYTHON:-python3}
stages=${*:-env build tests bench conformance eager}

stage() {
    local name=$1 limit=$2
    shift 2
    local start=$SECONDS
    timeout "$limit" "$@" >"$out/$name.log" 2>&1
    local rc=$?
    echo "=== $name: rc=$rc in $((SECONDS - start)) s (limit $limit s)"
    tail -n "${TAIL:-30}" "$out/$name.log"
}

for s in $stages; do
    case $s in
    env) stage env 60 bash -c "nvidia-smi -L; which mpirun; $py -c '
import cupy, numpy, torch
print(\"cupy\", cupy.__version__, \"numpy\", numpy.__version__, \"torch\", torch.__version__)
print(\"devices\", cupy.cuda.runtime.getDeviceCount())
try:
    from cupy.cuda import nccl; print(\"nccl\", nccl.get_version())
except Exception as e: print(\"no nccl:\", e)
import refimpl; print(\"is_compiled_with_cuda\", refimpl.is_compiled_with_cuda())'" ;;
    build) stage build "${BUILD_LIMIT:-300}" "$py" setup.py build_ext --inplace -j "$(nproc)" ;;
    tests) stage tests "${TESTS_LIMIT:-240}" "$py" -m pytest -m gpu tests/test_gpu.py -q \
        -p no:cacheprovider -rfEs --timeout=120 ${PYTEST_ARGS:-} ;;
    bench) stage bench "${BENCH_LIMIT:-150}" "$py" -m refimpl bench --device gpu --compare torch \
        --no-memory ${BENCH_ARGS:-} ;;
    conformance) stage conformance "${CONFORMANCE_LIMIT:-90}" "$py" -m refimpl conformance check \
        --device gpu ;;
    eager) stage eager-bench "${BENCH_LIMIT:-150}" "$py" -m refimpl bench --mode dynamic \
        --device gpu --compare torch --no-memory ${BENCH_ARGS:-}
        stage eager-conformance "${CONFORMANCE_LIMIT:-90}" "$py" -m refimpl conformance \
        check --mode dynamic --device gpu ;;
    *) echo "unknown stage $s (env build tests bench conformance eager)"; exit 2 ;;
    esac
done
