#!/usr/bin/env bash
# One device call: the GPU test suite, then the core benchmark. Logs under $OUT.
# Usage (device tool, carry .data):  bash scripts/device_check.sh [test-seconds] [bench-args...]
# TESTS="tests/gpu" (or any pytest paths/-k) narrows the run: the whole GPU suite needs
# about 8-9 minutes, so one call can run tests/gpu and another the rest.
set -uo pipefail
OUT="${OUT:-/tmp/kleene-out}"
mkdir -p "$OUT"
export PYTHONPATH=. PYTHONUNBUFFERED=1 KLEENE_DATA="$PWD/.data" CI=1
TEST_S="${1:-360}"; shift || true
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$OUT/gpu.txt"
python3 -c "import cupy, numpy, scipy; print('cupy', cupy.__version__, 'numpy', numpy.__version__, 'scipy', scipy.__version__)" | tee -a "$OUT/gpu.txt"
start=$(date +%s)
# shellcheck disable=SC2086
timeout "$TEST_S" python3 -m pytest -m gpu ${TESTS:-} -q -p no:cacheprovider --durations=15 -rfE 2>&1 | tee "$OUT/gpu_tests.log" | tail -40
echo "gpu tests: $(( $(date +%s) - start )) s"
if [ "$#" -gt 0 ]; then
    python3 "$@" 2>&1 | tee "$OUT/bench.log" | tail -30
fi
