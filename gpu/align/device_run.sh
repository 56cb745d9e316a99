#!/usr/bin/env bash
# gpu/align/device_run.sh BUNDLE OUT - everything issue 5 runs on a GPU machine,
# in one go: CPU + GPU tests, the SASS check for DPX instructions, the sweep on
# GPU 0 alone, then on every visible GPU (the scaling figure).
# BUNDLE is a ../shared/tools/device-bundle folder holding test_align_cpu,
# test_align_gpu, bench_align and payload_corpus.bin.
set -uo pipefail
B=$1; O=$2
source "$B/env.sh"
nvidia-smi -L; nproc
echo "== tests"; timeout 30 test_align_cpu --gtest_brief=1; echo "rc=$?"
timeout 80 test_align_gpu --gtest_brief=1; echo "rc=$?"
echo "== SASS of the 16-bit wavefront kernel (DPX: VIMNMX3 / VIADDMNMX)"
cuobjdump -sass "$B/bin/bench_align" 2>/dev/null | awk '/Function : .*wavefront_kernel.*Lanes16x2ELi32ELb0/{on=1} /Function :/ && !/Lanes16x2ELi32ELb0/{on=0} on' \
  | grep -oE '^ +/\*[0-9a-f]+\*/ +[A-Z0-9]+' | awk '{print $2}' | sort | uniq -c | sort -rn | head -14
echo "== bench, 1 GPU"
CUDA_VISIBLE_DEVICES=0 timeout 110 bench_align --corpus "$B/payload_corpus.bin" --peer-threads "$(nproc)" --json "$O/bench_1gpu.json"
echo "rc=$?"
echo "== bench, all GPUs"
timeout 70 bench_align --devices all --corpus "$B/payload_corpus.bin" --peer-threads "$(nproc)" --sizes-mb 16,64,128,256 --json "$O/bench_allgpu.json"
echo "rc=$?"
