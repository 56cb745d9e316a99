#!/usr/bin/env bash
# Packs the built binaries, their shared libraries and the shared data into
# .devbundle/ for tools/device/run-gpu-suite.sh on the GPU machine.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD_DIR:-$root/build}
out=$root/.devbundle
rm -rf "$out"
bins=("$build/tools/warpmatch")
while IFS= read -r -d '' f; do bins+=("$f"); done < <(find "$build/tests" "$build/gpu" -maxdepth 3 -type f \
  \( -name 'test_*' -o -name 'bench_*' \) -perm -u+x -print0)
"$root/../shared/tools/device-bundle" "$out" "${bins[@]}" >/dev/null
strip --strip-debug "$out"/bin/* "$out"/lib/* 2>/dev/null || true
mkdir -p "$out/data"
cp /work/shared/data/pcaps.tar.xz /work/shared/data/rules.tar.xz \
   /work/shared/data/pcaps-large/merged-zeek-traces.pcap.xz "$out/data/"
cp -r /work/shared/data/peer-tests "$out/data/"
cp "$build/demo/demo.pcap" "$out/data/"
du -sh "$out"
