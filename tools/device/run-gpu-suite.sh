#!/usr/bin/env bash
# The one GPU-machine run: tests, cross-checks and benchmarks in one call.
# Prepared here by tools/device/make-bundle.sh; on the GPU machine, from the
# repository root:  source .devbundle/env.sh && tools/device/run-gpu-suite.sh
# Logs go to $OUT (or /tmp/wm-out). Prints a short summary last; exits 1 when
# a test binary or a verified capture failed.
set -u
B=${BUNDLE:-.devbundle}
OUT=${OUT:-/tmp/wm-out}
mkdir -p "$OUT"
D=/tmp/wm-data
summary=()
failed=0 # test binaries and captures that failed: the exit status
note() { summary+=("$1"); echo "== $1"; }

nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm --format=csv | tee "$OUT/gpu.txt"
mkdir -p "$D/pcaps-large" "$D/rules"
tar xJf "$B/data/pcaps.tar.xz" -C "$D" && tar xJf "$B/data/rules.tar.xz" -C "$D/rules" &&
  xz -dc "$B/data/merged-zeek-traces.pcap.xz" > "$D/pcaps-large/merged-zeek-traces.pcap" &&
  cp -r "$B/data/peer-tests" "$D/" || note "data unpack failed"
# Tests were built on the development machine with paths under /work/main:
# recreate those paths here.
if [ ! -e /work/main ]; then mkdir -p /work && ln -s "$PWD" /work/main; fi
mkdir -p build/tools build/demo
ln -sfn "$D" build/data
ln -sf "$PWD/$B/bin/warpmatch" build/tools/warpmatch
cp "$B/data/demo.pcap" build/demo/demo.pcap

sections=${SECTIONS:-tests verify bench kernels}  # also: readsweep (3a), waitab (3a'), readcontend (3a''), abapi (3b), abpos (3b+), abpipe (3b'), abreplay (3b''), abreplaypos (3b'''), plugintrace (3c), streams (3d)
want() { [[ " $sections " == *" $1 "* ]]; }

# 1. Every test binary in the bundle (GPU cases run here instead of skipping).
want tests && for t in "$B"/bin/test_*; do
  name=$(basename "$t")
  [ -n "${TESTS:-}" ] && [[ " $TESTS " != *" $name "* ]] && continue
  timeout 240 "$t" --gtest_brief=1 >"$OUT/$name.log" 2>&1
  rc=$?
  res=$(grep -E "^\[  (PASSED|FAILED|SKIPPED) " "$OUT/$name.log" | tr '\n' ' ')
  note "$name rc=$rc $res"
  [ "$rc" -ne 0 ] && failed=$((failed + 1))
done

# 2. The ET Open prefilter set, and replay on the GPU cross-checked against
#    Hyperscan on every capture.
warpmatch rules import "$D"/rules/et-open-suricata5-2024-04-21/*.rules -o /tmp/et.yaml >"$OUT/import.log" 2>&1
note "import: $(head -1 "$OUT/import.log")"
fails=0; n=0
want verify && while IFS= read -r -d '' p; do
  n=$((n + 1))
  if ! warpmatch replay "$p" --rules /tmp/et.yaml --backend gpu --matches positions --verify -q \
       >>"$OUT/verify.log" 2>&1; then
    fails=$((fails + 1)); echo "FAILED: $p" >>"$OUT/verify.log"
  fi
done < <(find "$D/pcaps" "$D/pcaps-large" -name '*.pcap*' -print0)
want verify && note "replay --backend gpu --verify (positions) on $n captures: $fails failed"
failed=$((failed + fails))
want verify && warpmatch replay "$D/pcaps-large/merged-zeek-traces.pcap" --rules /tmp/et.yaml --backend gpu \
  --matches set --verify -q 2>&1 | tail -3 | tee -a "$OUT/verify.log"

# 3. Benchmarks: every engine through the C API on one corpus, same run.
#    BENCH_BATCH_MB: batch sizes to run (bench-<MB>.txt / .json each).
#    The replay rows also replay merged-zeek tiled REPLAY_TILE times (records
#    repeated after one file header, ~1 GB for 32). BENCH_POSITIONS=1 adds
#    the positions rows (Hyperscan, GPU plugin path, CPU replay).
Z="$D/pcaps-large/merged-zeek-traces.pcap"; BIG=/tmp/zeek-x${REPLAY_TILE:-32}.pcap
# tile N FILE: merged-zeek's records N times after its file header, into FILE.
tile() { { head -c 24 "$Z"; for i in $(seq "$1"); do tail -c +25 "$Z"; done; } > "$2"; }
{ want bench || want abreplay; } && tile ${REPLAY_TILE:-32} "$BIG"
want bench && for mb in ${BENCH_BATCH_MB:-64}; do
  warpmatch bench "$Z" --rules /tmp/et.yaml --corpus-mb ${CORPUS_MB:-1024} --replay-capture "$BIG" \
    --batch-mb "$mb" --repeats 3 ${BENCH_POSITIONS:+--positions} --json "$OUT/bench-$mb.json" 2>&1 | tee "$OUT/bench-$mb.txt"
done
# Reading alone: the tiled capture decoded into windows by threads, against
# libpcap's sequential read in the same run.
want bench && "$B/bin/bench_window_reader" "$BIG" --threads ${READ_THREADS:-1,4,8,15} --repeats 2 \
  2>&1 | tee "$OUT/bench-read.txt"
# Replay of the tiled capture by number of read threads and window size
# (GPU, set, -q; REPLAY_WINDOW_MB 0 = the default window).
want bench && for t in ${REPLAY_THREADS:-1 2 4 8 15}; do
  for wmb in ${REPLAY_WINDOW_MB:-0}; do
    wopt=(); [ "$wmb" != 0 ] && wopt=(--window-mb "$wmb")
    r=$(warpmatch replay "$BIG" --rules /tmp/et.yaml --backend gpu --matches set -q --read-threads "$t" "${wopt[@]}" \
        2>&1 | grep '"event_type":"stats"' | grep -o '"payload_bytes":[0-9]*\|"alerts":[0-9]*\|"seconds":[0-9.]*' | tr '\n' ' ')
    note "replay x${REPLAY_TILE:-32} gpu set read-threads $t window-mb $wmb: $r"
  done
done
# 3a. The warm replay row (window alerts) by read threads, the values of
#     READ_SWEEP in turn (repeat a value to alternate), and window sizes,
#     READ_WINDOWS_MB (0: the library's default, 16 MB on the GPU), with the
#     reader alone at the same counts and sizes: whether the scanning thread,
#     the CUDA driver's threads and 15 readers on 16 cores get in each
#     other's way.
Z32=/tmp/zeek-x32.pcap
read_sweep=${READ_SWEEP:-15 14 12 15 14 12}; read_windows=${READ_WINDOWS_MB:-0}
want readsweep && { [ -e "$Z32" ] || tile 32 "$Z32"; }
want readsweep && for t in $read_sweep; do
  for wmb in $read_windows; do
    warpmatch bench "$Z" --rules /tmp/et.yaml --corpus-mb 16 --replay-capture "$Z32" --rows "window alerts" \
      --read-threads "$t" --window-mb "$wmb" 2>&1 | tee -a "$OUT/readsweep.txt" | grep 'scanner warm' \
      | sed "s/^/read-threads $t window-mb $wmb: /" | tee -a "$OUT/readsweep-rows.txt"
  done
done
want readsweep && for wmb in $read_windows; do
  "$B/bin/bench_window_reader" "$Z32" --threads "$(echo $read_sweep | tr ' ' '\n' | sort -un | paste -sd,)" \
    --window-mb "$(( wmb ? wmb : 16 ))" --repeats 3 2>&1 | tee -a "$OUT/readsweep.txt"
done
# 3a'. How the scanning thread waits (--gpu-wait), alternated WAITAB_REPS
#      times on the same machine: the warm replay rows of the tiled capture
#      (per alert and window alerts) and the pipelined plugin path, with the
#      Hyperscan peer in each call. WAITAB_VARIANTS: WAIT[:READ_THREADS]
#      (read threads 0: the library's default).
want waitab && { [ -e "$Z32" ] || tile 32 "$Z32"; }
want waitab && for rep in $(seq ${WAITAB_REPS:-2}); do
  for v in ${WAITAB_VARIANTS:-spin block spin:16 block:16}; do
    w=${v%%:*}; t=0; [[ $v == *:* ]] && t=${v#*:}
    warpmatch bench "$Z" --rules /tmp/et.yaml --corpus-mb ${CORPUS_MB:-1024} --replay-capture "$Z32" --repeats 3 \
      --rows "hyperscan-cpu-all-cores set,set array pipelined,--replay-capture" --gpu-wait "$w" --read-threads "$t" \
      --json "$OUT/waitab-$v-$rep.json" > "$OUT/waitab-$v-$rep.txt" 2>&1
    note "waitab $v rep $rep: $(grep -E '^(hyperscan-cpu-all-cores set array|gpu plugin-path set array pipelined|replay .*scanner warm)' "$OUT/waitab-$v-$rep.txt" | awk '{n = NF; for (i = 1; i <= NF; ++i) if ($i ~ /^[0-9.]+$/) { n = i; break } s = ""; for (i = 1; i < n; ++i) s = s $i " "; printf "%s= %s s %s GB/s %sx; ", s, $n, $(n+1), $(n+3)}')"
  done
done
# 3a''. Whether the GPU's copies slow the reader: bench_window_reader on the
#       tiled capture alone, then while `warpmatch bench` streams a 3 GB
#       corpus to the GPU (the pipelined plugin path, its thread sleeping in
#       --gpu-wait block), then alone again.
rd_windows() {
  "$B/bin/bench_window_reader" "$Z32" --threads ${CONTEND_THREADS:-15} --repeats ${CONTEND_REPEATS:-5} 2>&1 |
    grep -A1 '^windows' | tr -s ' \n' ' '
}
want readcontend && { [ -e "$Z32" ] || tile 32 "$Z32"; }
want readcontend && {
  note "readcontend alone: $(rd_windows)"
  warpmatch bench "$Z" --rules /tmp/et.yaml --corpus-mb 3072 --rows "set array pipelined" --repeats ${CONTEND_STREAM_REPEATS:-200} \
    --gpu-wait block > "$OUT/contend-bench.txt" 2>&1 &
  bench_pid=$!
  for i in $(seq 120); do grep -q '^corpus' "$OUT/contend-bench.txt" && break; sleep 0.5; done
  sleep ${CONTEND_DELAY:-4}
  note "readcontend beside H2D: $(rd_windows)"
  kill -0 $bench_pid 2>/dev/null && note "readcontend: the H2D stream outlasted the reader" ||
    note "readcontend: the H2D stream ended before the reader (no full overlap)"
  wait $bench_pid
  note "readcontend H2D stream: $(grep -E '^gpu plugin-path' "$OUT/contend-bench.txt" | tr -s ' ')"
  note "readcontend alone again: $(rd_windows)"
}
# Helpers of 3b-3c: warpmatch of build $1 (new, or old: BUNDLE/old/bin with
# its libwarpmatch in BUNDLE/old/lib, put there by hand); a rule variant's file
# (full: the imported rules); "name seconds = GB/s (pairs); " for the bench
# rows of file $1 matching the regex $2.
wm_of() {
  local b=$1; shift
  if [ "$b" = old ]; then LD_LIBRARY_PATH="$PWD/$B/old/lib:$LD_LIBRARY_PATH" "$B/old/bin/warpmatch" "$@"; else warpmatch "$@"; fi
}
rules_of() { if [ "$1" = full ]; then echo /tmp/et.yaml; else echo "/tmp/etv-$1.yaml"; fi; }
rows_of() {
  grep -E "$2" "$1" | awk '{n = NF - 11; s = ""; for (i = 1; i <= n; ++i) s = s $i " "; printf "%s= %s GB/s (%s pairs); ", s, $(NF-10), $(NF-9)}'
}
AB_ROWS='^(hyperscan-cpu-all-cores set array|gpu plugin-path set array (pipelined|\(pinned))'
# 3b. The C API bench against a previous build (BUNDLE/old), alternated twice
#     on the same machine: 64 MB batches, no replay rows.
want abapi && [ -x "$B/old/bin/warpmatch" ] && for rep in 1 2; do
  for b in new old; do
    wm_of "$b" bench "$Z" --rules /tmp/et.yaml --corpus-mb ${CORPUS_MB:-1024} --batch-mb 64 --repeats 3 \
      --json "$OUT/abapi-$b-$rep.json" > "$OUT/abapi-$b-$rep.txt" 2>&1
    note "abapi $b rep $rep: $(rows_of "$OUT/abapi-$b-$rep.txt" "$AB_ROWS")"
  done
done
#     Then the new build on variants of the rules (rule-variants.py): no
#     protocol/ports; one rule per distinct literal; one per distinct
#     (literal, offset, depth) without protocol/ports. RULE_VARIANTS picks
#     (full: the imported rules as they are).
want abapi && python3 tools/device/rule-variants.py /tmp/et.yaml /tmp/etv && for v in ${RULE_VARIANTS:-noscope distinct unique}; do
  warpmatch bench "$Z" --rules "$(rules_of "$v")" --corpus-mb ${CORPUS_MB:-1024} --batch-mb 64 --repeats 3 \
    --json "$OUT/abapi-$v.json" > "$OUT/abapi-$v.txt" 2>&1
  note "abapi new, rules $v: $(rows_of "$OUT/abapi-$v.txt" "$AB_ROWS")"
done
# 3b+. Positions through the C API (wm_scan_batch, a callback per match)
#      against BUNDLE/old: the Hyperscan and GPU positions rows, 64 MB
#      batches, alternated twice.
want abpos && [ -x "$B/old/bin/warpmatch" ] && for rep in 1 2; do
  for b in new old; do
    wm_of "$b" bench "$Z" --rules /tmp/et.yaml --corpus-mb ${POS_CORPUS_MB:-512} --batch-mb 64 --repeats 2 \
      --positions --rows "cores positions,plugin-path positions" --json "$OUT/abpos-$b-$rep.json" \
      > "$OUT/abpos-$b-$rep.txt" 2>&1
    note "abpos $b rep $rep: $(rows_of "$OUT/abpos-$b-$rep.txt" 'positions')"
  done
done
# 3b'. The pipelined set-array row alone against the previous build
#      (BUNDLE/old, as in 3b; its CLI must know --rows and --depth), by
#      pipeline depth (AB_DEPTH), alternated twice.
want abpipe && [ -x "$B/old/bin/warpmatch" ] && for rep in 1 2; do
  for b in new old; do
    for depth in ${AB_DEPTH:-4 2}; do
      wm_of "$b" bench "$Z" --rules /tmp/et.yaml --corpus-mb ${CORPUS_MB:-1024} --batch-mb ${AB_BATCH_MB:-64} --repeats 3 \
        --depth "$depth" --rows pipelined --json "$OUT/abpipe-$b-d$depth-$rep.json" > "$OUT/abpipe-$b-d$depth-$rep.txt" 2>&1
      note "abpipe $b depth $depth rep $rep: $(rows_of "$OUT/abpipe-$b-d$depth-$rep.txt" '^gpu plugin-path set array pipelined')"
    done
  done
done
# 3b''. The pipelined row and the warm replay rows of the tiled capture
#       against the previous build (BUNDLE/old, as in 3b), alternated twice.
want abreplay && [ -x "$B/old/bin/warpmatch" ] && for rep in 1 2; do
  for b in new old; do
    wm_of "$b" bench "$Z" --rules /tmp/et.yaml --corpus-mb ${CORPUS_MB:-1024} --replay-capture "$BIG" --batch-mb 64 \
      --repeats 3 --rows "set array pipelined,--replay-capture,hyperscan-cpu-all-cores set array" \
      --json "$OUT/abreplay-$b-$rep.json" > "$OUT/abreplay-$b-$rep.txt" 2>&1
    note "abreplay $b rep $rep: $(rows_of "$OUT/abreplay-$b-$rep.txt" '(pipelined|scanner warm)')"
  done
done
# 3b'''. Replay by backend and mode (positions: one alert per packet and rule, at its
#        first match; -q counts them) of merged-zeek tiled POS_REPLAY_TILE
#        times, new build and BUNDLE/old alternated twice: POS_REPLAY_RUNS
#        backend:mode pairs (GPU and CPU, positions and set, by default).
PBIG=/tmp/zeek-x${POS_REPLAY_TILE:-8}.pcap
want abreplaypos && tile ${POS_REPLAY_TILE:-8} "$PBIG"
want abreplaypos && [ -x "$B/old/bin/warpmatch" ] && for rep in 1 2; do
  for b in new old; do
    for run in ${POS_REPLAY_RUNS:-gpu:positions cpu:positions gpu:set cpu:set}; do
      r=$(wm_of "$b" replay "$PBIG" --rules /tmp/et.yaml --backend "${run%%:*}" --matches "${run#*:}" -q 2>&1 | grep '"event_type":"stats"' |
          grep -o '"payload_bytes":[0-9]*\|"alerts":[0-9]*\|"seconds":[0-9.]*' | tr '\n' ' ')
      note "abreplaypos $b $run rep $rep: $r"
    done
  done
done
#        ... and the alerts themselves (no -q) of merged-zeek, new against
#        old: the same lines but for the stats line.
want abreplaypos && [ -x "$B/old/bin/warpmatch" ] && for run in ${POS_REPLAY_RUNS:-gpu:positions cpu:positions gpu:set cpu:set}; do
  for b in new old; do
    wm_of "$b" replay "$Z" --rules /tmp/et.yaml --backend "${run%%:*}" --matches "${run#*:}" 2>/dev/null |
      grep -v '"event_type":"stats"' > "$OUT/alerts-$b.json"
  done
  note "abreplaypos alerts $run: $(cmp -s "$OUT/alerts-new.json" "$OUT/alerts-old.json" && echo identical || echo DIFFER), $(wc -l < "$OUT/alerts-new.json") lines"
  rm -f "$OUT"/alerts-{new,old}.json
done
# 3c. The C API's pipelined set-array row alone (bench --rows), by rules
#     (TRACE_RULES: full or a rule-variants.py variant), batch size
#     (TRACE_BATCH_MB), pipeline depth (TRACE_DEPTH) and corpus size
#     (TRACE_CORPUS_MB); then, unless TRACE_OFF is set, one run of each
#     with WM_CHUNK_TRACE (two repeats: a new scanner's, then a warm one;
#     timelines to OUT/trace-*.txt, summarised).
want plugintrace && python3 tools/device/rule-variants.py /tmp/et.yaml /tmp/etv && for v in ${TRACE_RULES:-full}; do
  for mb in ${TRACE_BATCH_MB:-64}; do
    for depth in ${TRACE_DEPTH:-2 4}; do
      tag=$v-$mb-d$depth
      warpmatch bench "$Z" --rules "$(rules_of "$v")" --corpus-mb ${TRACE_CORPUS_MB:-1024} --batch-mb "$mb" --repeats 3 \
        --depth "$depth" --rows "pipelined,hyperscan-cpu-all-cores set array" --json "$OUT/pt-$tag.json" > "$OUT/pt-$tag.txt" 2>&1
      note "pipelined $tag: $(rows_of "$OUT/pt-$tag.txt" '^(hyperscan-cpu-all-cores set array|gpu plugin-path set array pipelined)')"
      [ -n "${TRACE_OFF:-}" ] && continue
      WM_CHUNK_TRACE="$OUT/trace-$tag.txt" warpmatch bench "$Z" --rules "$(rules_of "$v")" --corpus-mb ${TRACE_CORPUS_MB:-1024} \
        --batch-mb "$mb" --repeats 2 --depth "$depth" --rows pipelined > "$OUT/pt-$tag-traced.txt" 2>&1
      note "traced $tag: $(rows_of "$OUT/pt-$tag-traced.txt" '^gpu plugin-path set array pipelined'); $(python3 tools/device/trace-summary.py "$OUT/trace-$tag.txt" | sed 's/^[^:]*: //')"
    done
  done
done
# 3d. Replay with --streams (flows, TCP reassembly, carry; positions) by
#     backend, against the same replay without streams, of merged-zeek tiled
#     STREAM_TILES times (1: the capture itself), each STREAM_REPEATS times;
#     then the GPU's streams checked against Hyperscan stream mode once.
stat_of() { grep '"event_type":"stats"' | grep -o '"alerts":[0-9]*\|"batches":[0-9]*\|"seconds":[0-9.]*\|"windows":[0-9]*' | tr '\n' ' '; }
want streams && for n in ${STREAM_TILES:-1 8}; do
  f=$Z; [ "$n" != 1 ] && { f=/tmp/zeek-x$n.pcap; [ -e "$f" ] || tile "$n" "$f"; }
  for rep in $(seq ${STREAM_REPEATS:-2}); do
    for run in gpu:--streams cpu:--streams gpu:--no-streams cpu:--no-streams; do
      note "streams x$n ${run%%:*} ${run#*:} rep $rep: $(warpmatch replay "$f" --rules /tmp/et.yaml --backend "${run%%:*}" \
        --matches positions "${run#*:}" -q 2>&1 | stat_of)"
    done
  done
done
want streams && note "streams x1 gpu --verify: $(warpmatch replay "$Z" --rules /tmp/et.yaml --backend gpu --matches positions \
  --streams --verify -q 2>&1 | tee "$OUT/streams-verify.txt" | stat_of) $(grep -o '"oracle_mismatches":[0-9]*' "$OUT/streams-verify.txt")"
# 4. Kernel benchmarks of gpu/ (each compares with its CPU peer in-run).
want kernels && bash tools/device/bench-kernels.sh "$B" "$D" "$OUT" ${KERNELS:-}

echo; echo "==== summary ===="; printf '%s\n' "${summary[@]}"
for f in "$OUT"/bench-*.txt; do [ -f "$f" ] && { echo "-- $f"; grep -E "^(corpus|engine|hyperscan|gpu|replay|reader|libpcap|windows)" "$f"; }; done
# Failures only (a section left out is not one): 0 when every test binary and
# verified capture passed.
exit $((failed > 0))
