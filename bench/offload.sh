#!/usr/bin/env bash
# offload.sh - the drop-in BLAS's GPU offload on one large GEMM of host matrices, against
# the host's OpenBLAS (at its best core type) and NVIDIA's offloading BLAS (NVBLAS), on GPU
# 0 and on every GPU, one process a library (bench/offload.c); build as bench/gpu_run.sh does.
#   OUT=/tmp/out SIZE=32768 MODES="f32 f64" CALLS=2 bash bench/offload.sh
# OpenBLAS is timed on one call, NVBLAS on $NVBLAS_CALLS (default 1: its pageable copies are
# slow), libmmtuned's offload on $CALLS after an untimed first; each run stops after $LIMIT s.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/mmtune-offload}
SIZE=${SIZE:-32768}
MODES=${MODES:-f32 f64}
CALLS=${CALLS:-2}
NVBLAS_CALLS=${NVBLAS_CALLS:-1}
LIMIT=${LIMIT:-300}
LIBS=${LIBS:-openblas mmtune nvblas} # which of the three to run
mkdir -p "$OUT"
BUILD=${BUILD:-build-gpu}
[ -x "$BUILD/bench/offload" ] || . scripts/gpu-build.sh
openblas=$(ldconfig -p | awk '/libopenblas\.so\.0 / {print $NF; exit}')
nvblas=$(ls /usr/local/cuda/lib64/libnvblas.so 2>/dev/null || ldconfig -p | awk '/libnvblas\.so / {print $NF; exit}')
grep -q avx512f /proc/cpuinfo && export OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-SKYLAKEX}
echo "OpenBLAS: ${openblas:-none} (core type ${OPENBLAS_CORETYPE:-detected}), NVBLAS: ${nvblas:-none}, $(nproc) cores"
nvidia-smi -L
for devices in 0 all; do # NVBLAS's configuration: the CPU BLAS it forwards to, the GPUs
  printf 'NVBLAS_LOGFILE %s\nNVBLAS_CPU_BLAS_LIB %s\nNVBLAS_GPU_LIST %s\nNVBLAS_AUTOPIN_MEM_ENABLED\n' \
    "$OUT/nvblas.log" "$openblas" "$([ $devices = 0 ] && echo 0 || echo ALL)" >"$OUT/nvblas_$devices.conf"
done
run() { # name, then the command
  local name=$1; shift
  echo "== $name"
  timeout "$LIMIT" "$@" 2>&1 | grep -v ": 0 served.* 0 offloaded\|other routines go"
}
for mode in $MODES; do
  if [ -n "$openblas" ] && [[ $LIBS == *openblas* ]]; then
    run "OpenBLAS on the host, $mode" "$BUILD/bench/offload" "$openblas" "$mode" "$SIZE" 1
  fi
  for devices in 0 all; do
    if [[ $LIBS == *mmtune* ]]; then
      MMTUNE_OFFLOAD=cuda:0 MMTUNE_OOC_DEVICES=$devices MMTUNE_BLAS_STATS=1 \
        run "libmmtuned_blas offload, GPUs $devices, $mode" "$BUILD/bench/offload" "$BUILD/blas/libmmtuned_blas.so" \
        "$mode" "$SIZE" "$CALLS"
    fi
    if [ -n "$nvblas" ] && [[ $LIBS == *nvblas* ]]; then
      NVBLAS_CONFIG_FILE=$OUT/nvblas_$devices.conf \
        run "NVBLAS, GPUs $devices, $mode" "$BUILD/bench/offload" "$nvblas" "$mode" "$SIZE" "$NVBLAS_CALLS"
    fi
  done
done
