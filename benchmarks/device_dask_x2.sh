#!/usr/bin/env bash
# Issue 16's device call on nvidia-h200-x2 (carry .whl: dask, distributed, dask-cuda and
# their missing needs, as benchmarks/device_check.sh says). From the repository root:
#   bash benchmarks/device_dask_x2.sh            GPU Dask tests, then every row (~8 min)
#   ARGS="--gpus 2 --scale 0" bash benchmarks/device_dask_x2.sh     the 2-GPU APSP rows only
# Logs and results under $OUT. NVLink multicast stays off in every process.
set -u
OUT=${OUT:-/tmp/kleene_out}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1 NCCL_NVLS_ENABLE=0
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
  --target /tmp/site .whl/*.whl || exit 1
export PYTHONPATH=.:/tmp/site
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$OUT/device.txt"
nvidia-smi topo -m >>"$OUT/device.txt"
python3 -c "import dask_cuda, distributed; print('dask-cuda', dask_cuda.__version__,
'distributed', distributed.__version__)" | tee -a "$OUT/device.txt"
timeout "${TEST_LIMIT:-170}" python3 -m pytest -q -m gpu -p no:cacheprovider \
  tests/gpu/test_dask_cuda.py >"$OUT/tests.log" 2>&1
echo "gpu dask tests rc=$?"; tail -3 "$OUT/tests.log"
nvidia-smi --query-gpu=timestamp,index,clocks.sm,power.draw,temperature.gpu,utilization.gpu,memory.used,clocks_throttle_reasons.active \
  --format=csv -l 2 >"$OUT/smi.csv" 2>&1 &
timeout "${LIMIT:-560}" python3 benchmarks/bench_dask_gpu.py --require-ipc ${ARGS:---apsp-all-gpus 131072} \
  --out "$OUT/dask_h200x2.json" 2>&1 | tee "$OUT/bench.log" | grep -v "^\s*$" | tail -40
kill %1 2>/dev/null
