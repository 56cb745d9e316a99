#!/usr/bin/env bash
# Kernel benchmarks of gpu/, each beside its CPU peer measured in the same run.
#   bench-kernels.sh BUNDLE DATA OUT [ac pairs chunks ab ncu exact seedac approx align]
# (pairs: the plugin path's per-chunk timeline, bench_pairs_trace; chunks: the
# chunk-size study; ab: against an old build; ncu: a profile of one launch per NCU_KINDS; floor:
# bench_walk_floor beside bench_ac_kernel, and the floor under ncu; hits:
# bench_walk_hits beside both; runs: bench_run_literals beside the kernels
# with and without those literals; grams: bench_gram_filter beside both; groups: one
# case-folded automaton against two; carveout: shared memory against L1;
# keys: the trie's depth limit;
# none of these in the default list)
# Inputs (literal lists, payload corpora) are derived here from the capture
# and the ET Open rules, so only the raw data travels.
set -u
B=$1 D=$2 O=$3; shift 3
which=${*:-ac exact seedac approx align}
pcap=$D/pcaps-large/merged-zeek-traces.pcap
et=$D/rules/et-open-suricata5-2024-04-21
run() { echo "== $*"; "$@"; echo "rc=$?"; }
# The ET literal list and the zeek payload corpus, made once per call.
ac_inputs() {
  [ -s /tmp/ac_literals.txt ] || bench_ac_kernel --import-rules /tmp/ac_literals.txt "$et"/*.rules >/dev/null
  [ -s /tmp/zeek.corpus ] || bench_ac_kernel --extract "$pcap" /tmp/zeek.corpus >/dev/null
}
for k in $which; do
  case $k in
  ac)
    ac_inputs
    run timeout 200 bench_ac_kernel --literals /tmp/ac_literals.txt --corpus /tmp/zeek.corpus --gb 4 \
      --json "$O/bench_ac.json" ;;
  pairs)
    ac_inputs
    for mb in ${PAIRS_MB:-256 64}; do
      for pipe in 0 1; do
        run timeout 60 bench_pairs_trace --literals /tmp/ac_literals.txt --corpus /tmp/zeek.corpus --mb "$mb" \
          --pipeline "$pipe"
      done
    done ;;
  chunks)
    # Chunk-size study: the kernels over the same payloads in 1 GiB and 32 MB
    # chunks, units by fixed stride or handed out, and the pipelined matcher
    # with 16 / 32 / 64 MB chunks.
    ac_inputs
    for cm in 1024 32; do
      for dyn in 0 1; do
        run timeout 120 bench_ac_kernel --literals /tmp/ac_literals.txt --corpus /tmp/zeek.corpus --gb 2 \
          --sweep 0 --chunk-mb "$cm" --dynamic "$dyn" --plugin-mb 256 --hs-mb 32 --json "$O/bench_ac_chunk$cm-dyn$dyn.json"
      done
    done
    for cm in 16 32 64; do
      run timeout 60 bench_pairs_trace --literals /tmp/ac_literals.txt --corpus /tmp/zeek.corpus --mb 256 \
        --pipeline 1 --chunk-mb "$cm" | grep -v '^ '
    done ;;
  carveout)
    # Shared memory against L1: the kernels with the driver's carveout and
    # with CARVEOUTS percent of the maximum shared memory (fewer blocks per SM,
    # more L1), alternated twice on the same machine.
    ac_inputs
    for rep in 1 2; do
      for co in default ${CARVEOUTS:-85 71 57}; do
        opt=(); [ "$co" = default ] || opt=(--carveout "$co")
        echo "== carveout $co rep $rep"
        timeout 100 bench_ac_kernel --literals /tmp/ac_literals.txt --corpus /tmp/zeek.corpus --gb 2 \
          --sweep "${AB_SWEEP:-3000,0}" --plugin-mb 64 --hs-mb 16 "${opt[@]}" --json "$O/bench_ac_carveout$co-$rep.json" |
          grep -E "^([0-9]+ |CHECK|resident)"
      done
    done ;;
  groups)
    # One case-folded automaton against case and nocase apart (--case-groups),
    # alternated twice on the same machine.
    ac_inputs
    for rep in 1 2; do
      for cg in split folded; do
        run timeout 100 bench_ac_kernel --literals /tmp/ac_literals.txt --corpus /tmp/zeek.corpus --gb 2 --sweep 0 \
          --plugin-mb 64 --hs-mb 16 --case-groups "$cg" --json "$O/bench_ac_groups_$cg-$rep.json" | grep -E "^(17918|CHECK|text|automaton)"
      done
    done ;;
  keys)
    # The trie's depth limit (--key-bytes; ac_tuning.h's kKeyBytes is the
    # matcher's): shorter keys shrink the rows and add checked hits.
    # KEY_BYTES values alternated twice on the same machine, full ET set.
    ac_inputs
    for rep in 1 2; do
      for kb in ${KEY_BYTES:-16 12 8}; do
        echo "== key bytes $kb rep $rep"
        timeout 100 bench_ac_kernel --literals /tmp/ac_literals.txt --corpus /tmp/zeek.corpus --gb 2 --sweep 0 \
          --plugin-mb 64 --hs-mb 16 --key-bytes "$kb" --json "$O/bench_ac_keys$kb-$rep.json" |
          grep -E "^(17918|CHECK|text|automaton)"
      done
    done ;;
  ab)
    # The kernel against previous builds (BUNDLE/old/bench_ac_kernel and any
    # BUNDLE/old/bench_ac_kernel.VARIANT, put there by hand), alternated twice
    # on the same machine, at the pattern counts of AB_SWEEP (0 = every
    # literal; AB_ARGS: more options for every build, e.g. --chunk-mb 32) ...
    ac_inputs
    for rep in 1 2; do
      for exe in "$B"/old/bench_ac_kernel "$B"/old/bench_ac_kernel.* bench_ac_kernel; do
        [ -x "$exe" ] || command -v "$exe" >/dev/null || continue
        b=${exe##*/}; b=${b#bench_ac_kernel}; b=${b#.}; [ "$exe" = bench_ac_kernel ] && b=new; b=${b:-old}
        echo "== $b rep $rep"
        timeout 100 "$exe" --literals /tmp/ac_literals.txt --corpus /tmp/zeek.corpus --gb 2 --sweep "${AB_SWEEP:-0}" \
          --plugin-mb 64 --hs-mb 16 ${AB_ARGS:-} --json "$O/bench_ac_ab_$b-$rep.json" | grep -E "^([0-9]+ |CHECK|text)"
      done
    done
    # ... and the pipelined matcher (BUNDLE/old/bench_pairs_trace), when there.
    [ -x "$B/old/bench_pairs_trace" ] && for rep in 1 2; do
      for b in old new; do
        exe=bench_pairs_trace; [ "$b" = old ] && exe=$B/old/bench_pairs_trace
        echo "== $b pairs rep $rep"
        timeout 60 "$exe" --literals /tmp/ac_literals.txt --corpus /tmp/zeek.corpus --mb 256 --pipeline 1 | grep "^batch\|^pipelined"
      done
    done ;;
  floor)
    # The floor of a one-byte-per-load walk (bench_walk_floor) beside the
    # kernels over the same 2 GB, then one floor launch on the full ET set
    # under Nsight Compute (details page).
    ac_inputs
    run timeout 150 bench_walk_floor --literals /tmp/ac_literals.txt --corpus /tmp/zeek.corpus --gb 2 \
      --sweep ${FLOOR_SWEEP:-1000,3000,10000,0} ${FLOOR_ARGS:---walks 1,2 --blocks-per-sm 8,6,4 --entry-bits 32,16}
    run timeout 150 bench_ac_kernel --literals /tmp/ac_literals.txt --corpus /tmp/zeek.corpus --gb 2 \
      --sweep ${FLOOR_SWEEP:-1000,3000,10000,0} --plugin-mb 64 --hs-mb 64 --json "$O/bench_ac_floor.json"
    run timeout 200 /usr/local/cuda/bin/ncu --kernel-name-base mangled --kernel-name regex:floor_kernelIjLi1E \
      --launch-skip 2 --launch-count 1 --section SpeedOfLight --section WarpStateStats --section Occupancy \
      --section InstructionStats --section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables \
      bench_walk_floor --literals /tmp/ac_literals.txt --corpus /tmp/zeek.corpus --gb 0.5 --sweep 0 --walks 1 \
      > "$O/ncu_floor.txt" 2>&1
    tail -5 "$O/ncu_floor.txt" ;;
  hits)
    # Where the Set kernel's time goes (bench_walk_hits: a lean walk, its
    # hits counted, stored, drained apart or fused) on the full ET set,
    # beside the floor and the Set kernel over the same 2 GB in the same call.
    ac_inputs
    run timeout 240 bench_walk_hits --literals /tmp/ac_literals.txt --corpus /tmp/zeek.corpus --gb 2 \
      ${HITS_ARGS:---rows 32,16f,16b --blocks-per-sm 8,6,4}
    # HITS_AC_ARGS: more options for the matcher's row, e.g. --drop-runs
    # (then run beside the full set's row).
    [ -n "${HITS_AC_ARGS:-}" ] && run timeout 150 bench_ac_kernel --literals /tmp/ac_literals.txt --corpus /tmp/zeek.corpus \
      --gb 2 --sweep 0 --plugin-mb 64 --hs-mb 64 $HITS_AC_ARGS --json "$O/bench_ac_hits_args.json"
    run timeout 100 bench_walk_floor --literals /tmp/ac_literals.txt --corpus /tmp/zeek.corpus --gb 2 --sweep 0 \
      --walks 1 --blocks-per-sm 6,4 --entry-bits 32,16
    run timeout 150 bench_ac_kernel --literals /tmp/ac_literals.txt --corpus /tmp/zeek.corpus --gb 2 --sweep 0 \
      --plugin-mb 64 --hs-mb 64 --json "$O/bench_ac_hits.json" ;;
  runs)
    # The literals that are one byte repeated found by a pass of their own
    # (bench_run_literals), beside the matcher's kernels without those
    # literals (--drop-runs) and with them, over the same 2 GB in the same call.
    ac_inputs
    run timeout 120 bench_run_literals --literals /tmp/ac_literals.txt --corpus /tmp/zeek.corpus --gb 2 \
      ${RUNS_ARGS:---blocks-per-sm 8,6,4}
    run timeout 150 bench_ac_kernel --literals /tmp/ac_literals.txt --corpus /tmp/zeek.corpus --gb 2 --sweep 0 \
      --plugin-mb 64 --hs-mb 64 --drop-runs --json "$O/bench_ac_drop_runs.json"
    run timeout 150 bench_ac_kernel --literals /tmp/ac_literals.txt --corpus /tmp/zeek.corpus --gb 2 --sweep 0 \
      --plugin-mb 64 --hs-mb 64 --json "$O/bench_ac_runs_full.json" ;;
  grams)
    # The literals found by a filter on short windows and a check per pass
    # (bench_gram_filter; windows chosen by the quads' counts in every other
    # capture's payloads), beside the run-literal pass that finds the rest and
    # the matcher's kernels, over the same 2 GB in the same call.
    ac_inputs
    mkdir -p /tmp/grams_train
    n=0
    find "$D/pcaps" -type f \( -name '*.pcap' -o -name '*.pcapng' -o -name '*.cap' \) | grep -v 'zeek+zeek' | sort |
      while read -r f; do n=$((n + 1)); bench_ac_kernel --extract "$f" /tmp/grams_train/$n.wmc >/dev/null 2>&1 ||
        rm -f /tmp/grams_train/$n.wmc; done
    run timeout 200 bench_gram_filter --literals /tmp/ac_literals.txt --corpus /tmp/zeek.corpus --gb 2 \
      --train /tmp/grams_train/*.wmc ${GRAMS_ARGS:---bloom-bits 18,19,20}
    run timeout 120 bench_run_literals --literals /tmp/ac_literals.txt --corpus /tmp/zeek.corpus --gb 2 \
      --blocks-per-sm 8,6
    run timeout 150 bench_ac_kernel --literals /tmp/ac_literals.txt --corpus /tmp/zeek.corpus --gb 2 --sweep 0 \
      --plugin-mb 64 --hs-mb 64 --json "$O/bench_ac_grams.json" ;;
  ncu)
    # Where a kernel's time goes: one launch on the full ET set (32-bit states,
    # one group) under Nsight Compute per kind in NCU_KINDS (set, count,
    # positions; default set): per-SASS-instruction executed counts and stall
    # samples (source page, CSV), and the details page.
    ac_inputs
    ncu=/usr/local/cuda/bin/ncu
    for kind in ${NCU_KINDS:-set}; do
      case $kind in positions) e=0 ;; set) e=1 ;; count) e=2 ;; *) echo "ncu: unknown kind $kind"; continue ;; esac
      # Either instance: with the sparse step (Lb1) or without (Lb0, every state dense).
      k="regex:_ZN2wm3gpu14ac_scan_kernelILNS0_8EmitKindE${e}EjLj1ELb[01]EEEvNS0_10ScanParamsE"
      run timeout 300 $ncu --kernel-name-base mangled --kernel-name "$k" --launch-skip 2 --launch-count 1 \
        --section SourceCounters --section WarpStateStats --section SpeedOfLight --section Occupancy \
        --section InstructionStats --section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables \
        -f -o /tmp/ac_$kind bench_ac_kernel --literals /tmp/ac_literals.txt --corpus /tmp/zeek.corpus --gb 0.5 \
        --sweep 0 --plugin-mb 16 --hs-mb 4 > "$O/ncu_run_$kind.txt" 2>&1
      $ncu --import /tmp/ac_$kind.ncu-rep --page details > "$O/ncu_details_$kind.txt" 2>&1
      $ncu --import /tmp/ac_$kind.ncu-rep --page source --csv --print-source sass > /tmp/ncu_source_$kind.csv 2>&1
      xz -T4 -c /tmp/ncu_source_$kind.csv > "$O/ncu_source_$kind.csv.xz"
      echo "ncu $kind: $(wc -l < /tmp/ncu_source_$kind.csv) source lines"
    done ;;
  exact)
    bench_exact_export --rules-dir "$et" --pcap "$pcap" --literals /tmp/exact_literals.txt \
      --corpus /tmp/exact_corpus.bin >/dev/null
    run timeout 130 bench_exact tables --sizes 20,22,24,26,28,30 --reps 10 --cpu-reps 3 \
      --json "$O/bench_exact_tables.json"
    run timeout 90 bench_exact engine --literals /tmp/exact_literals.txt --corpus /tmp/exact_corpus.bin \
      --batch-mb 32 --reps 5 --json "$O/bench_exact_engine.json" ;;
  seedac)
    run timeout 120 bench_seed_ac --json "$O/bench_seed_ac.json" ;;
  approx)
    run timeout 120 bench_approx --pcap "$pcap" --json "$O/bench_approx.json" --threads "$(nproc)" --repeats 5 ;;
  align)
    bench_align --make-corpus "$pcap" /tmp/align_corpus_full.bin >/dev/null
    head -c 3145728 /tmp/align_corpus_full.bin > /tmp/align_corpus.bin
    run env CUDA_VISIBLE_DEVICES=0 timeout 110 bench_align --corpus /tmp/align_corpus.bin --peer-threads "$(nproc)" \
      --json "$O/bench_align_1gpu.json"
    if [ "$(nvidia-smi -L | wc -l)" -gt 1 ]; then
      run timeout 70 bench_align --devices all --corpus /tmp/align_corpus.bin --peer-threads "$(nproc)" \
        --sizes-mb 16,64,128,256 --json "$O/bench_align_allgpu.json"
    fi ;;
  esac
done
