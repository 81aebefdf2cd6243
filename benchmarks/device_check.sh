#!/usr/bin/env bash
# One device call: the GPU tests of the changed paths, then the path benchmarks.
# Run from the repository root on the device with the data carried in .data (and the
# wheels in .whl for the Dask GPU test):
#   bash benchmarks/device_check.sh            (logs and results under $OUT)
# TESTS (default: every gpu-marked test) and the time limits can be overridden.
set -u
OUT=${OUT:-/tmp/kleene_out}
mkdir -p "$OUT"
export PYTHONPATH=. KLEENE_DATA=${KLEENE_DATA:-$PWD/.data}
# Packages the device image lacks (dask, distributed, dask-cuda and their missing
# needs) travel as wheels in .whl (git-ignored; name it in carry): see
# /work/.library/device/README.md for the pip download line.
if ls .whl/*.whl >/dev/null 2>&1; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target /tmp/site .whl/*.whl && export PYTHONPATH=.:/tmp/site
fi
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/device.txt"
TESTS=${TESTS:-"tests"}
timeout "${TEST_LIMIT:-330}" python3 -m pytest -q -m gpu -p no:cacheprovider --durations=10 \
  ${DESELECT:-} $TESTS >"$OUT/gpu_tests.log" 2>&1
echo "gpu tests rc=$?" | tee -a "$OUT/device.txt"
tail -25 "$OUT/gpu_tests.log"
timeout "${INGEST_LIMIT:-200}" python3 benchmarks/bench_ingest.py --scales "${SCALES:-22,24,25}" \
  --out "$OUT/ingest_h100.json" >"$OUT/ingest.log" 2>&1
echo "bench_ingest rc=$?" | tee -a "$OUT/device.txt"
tail -30 "$OUT/ingest.log"
timeout "${PATHS_LIMIT:-150}" python3 benchmarks/bench_paths.py --scale 22 --data .data \
  --out "$OUT/paths_h100.json" >"$OUT/paths.log" 2>&1
echo "bench_paths rc=$?" | tee -a "$OUT/device.txt"
tail -8 "$OUT/paths.log"
