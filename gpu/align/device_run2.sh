#!/usr/bin/env bash
# gpu/align/device_run2.sh BUNDLE OUT - the shorter re-run after the traceback
# fix: GPU tests, then the sweep's large sizes on GPU 0 and on every GPU.
set -uo pipefail
B=$1; O=$2
source "$B/env.sh"
nvidia-smi -L
timeout 60 test_align_gpu --gtest_brief=1; echo "rc=$?"
CUDA_VISIBLE_DEVICES=0 timeout 60 bench_align --corpus "$B/payload_corpus.bin" --peer-threads "$(nproc)" --sizes-mb 1,16,64,100,128,256 --rowpar-max-mb 1 --json "$O/bench2_1gpu.json"; echo "rc=$?"
timeout 45 bench_align --devices all --corpus "$B/payload_corpus.bin" --peer-threads "$(nproc)" --sizes-mb 64,100,128,256 --json "$O/bench2_allgpu.json"; echo "rc=$?"
