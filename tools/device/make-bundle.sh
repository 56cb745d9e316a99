#!/usr/bin/env bash
# Packs the built binaries, their shared libraries and the shared data into
# .devbundle/ for tools/device/run-gpu-suite.sh on the GPU machine. Binaries
# travel xz-compressed (the working tree that travels is capped at 64 MiB).
# There:  tar xJf .devbundle/pack.tar.xz -C .devbundle && source .devbundle/env.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD_DIR:-$root/build}
out=$root/.devbundle
stage=$root/.devbundle-stage
rm -rf "$out" "$stage"
bins=("$build/tools/warpmatch")
while IFS= read -r -d '' f; do bins+=("$f"); done < <(find "$build/tests" "$build/gpu" "$build/plugin" -maxdepth 3 -type f \
  \( -name 'test_*' -o -name 'bench_*' \) -perm -u+x -print0)
"$root/../shared/tools/device-bundle" "$stage" "${bins[@]}" >/dev/null
strip --strip-debug "$stage"/bin/* "$stage"/lib/* 2>/dev/null || true
mkdir -p "$out/data"
tar cJf "$out/pack.tar.xz" -C "$stage" bin lib env.sh
rm -rf "$stage"
cp /work/shared/data/pcaps.tar.xz /work/shared/data/rules.tar.xz \
   /work/shared/data/pcaps-large/merged-zeek-traces.pcap.xz "$out/data/"
cp -r /work/shared/data/peer-tests "$out/data/"
cp "$build/demo/demo.pcap" "$out/data/"
du -sh "$out"
