#!/usr/bin/env bash
# gpu/exact/device_run.sh - everything gpu/exact needs on a GPU machine, in one
# call: GPU tests, the seed tables (2^20..2^30) and the engine routing bench.
# Run from the repo root after ../shared/tools/device-bundle (see README.md):
#   source .devbundle-exact/env.sh && gpu/exact/device_run.sh .devbundle-exact $OUT
set -uo pipefail
B=${1:-.devbundle-exact}
OUT=${2:-/tmp/exact-out}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,memory.total --format=csv | tee "$OUT/gpu.txt"
echo "== test_exact"
timeout 60 "$B/bin/test_exact" --gtest_brief=1 2>&1 | tail -30
echo "test_exact rc=${PIPESTATUS[0]}"
echo "== bench_exact tables"
timeout 130 "$B/bin/bench_exact" tables --sizes 20,22,24,26,28,30 --reps 10 --cpu-reps 3 --json "$OUT/bench_exact_tables.json"
echo "tables rc=$?"
echo "== bench_exact engine"
timeout 90 "$B/bin/bench_exact" engine --literals "$B/et_literals.txt" --corpus "$B/zeek_corpus.bin" \
  --batch-mb 32 --reps 5 --json "$OUT/bench_exact_engine.json"
echo "engine rc=$?"
