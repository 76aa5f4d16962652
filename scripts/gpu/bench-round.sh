#!/usr/bin/env bash
# The benchmark round: Nova against cuBLAS, PyTorch SDPA (default backend
# selection), PyTorch eager, whole-model torch.compile, JAX/XLA, and under
# one enforced memory cap against each of them and PyTorch with activation
# checkpointing, on the same GPU in one run, in two halves because the GPU
# machine has no MLIR:
#
#   bench-round.sh prepare DIR   (here) the runtime-only nova-run into
#       DIR/bin, then bench/gpu/prepare.py DIR: every Nova input compiled
#       with this tree's tools (GEMMs, attention, the GPT-2 step at
#       vocabulary 50257 and 50304 with its cold and warm compile times, the
#       deepest GPT whose plan fits 12 GiB and the next depth) and
#       DIR/manifest.json. BENCH_SIZE=smoke prepares small shapes and
#       models (a check that every part runs); BENCH_PARTS, BENCH_GEMM and
#       BENCH_GEMM_DTYPES pick parts and shapes (see prepare.py);
#       BENCH_RUNTIME=skip leaves nova-run out (DIR/bin/nova-run must then
#       come from elsewhere).
#   bench-round.sh run DIR       (on the GPU machine) bench/gpu/run.py: each
#       part in its own process with a time limit, the whole round within
#       BENCH_BUDGET seconds (default 470), BENCH_JOBS parts at once
#       (default 1; more only for a quick check that every part runs, as
#       the timings are then shared); $OUT/bench.json, bench.md,
#       bench.png, logs.txt and round.log (OUT defaults to /tmp/nova-bench).
#       BENCH_RUN_PARTS picks the parts run (bench/gpu/run.py's names);
#       BENCH_COMPUTES=bf16 trains bf16 alone in the training parts
#       (default tf32,bf16); BENCH_MERGE names the bench.json of an earlier call on the same DIR,
#       whose other parts join this call's report (a round longer than one
#       call).
#       Exit 1 when any part or the report failed.
#   bench-round.sh report BENCH_JSON [SANITIZE_JSON...]   (here) the report of
#       a round brought back: bench/RESULTS.md's current table and the
#       round's details, written at the top of that file (the history below
#       stays), with sanitize-round.sh's summary when given.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
mode=${1:-}
dir=${2:-}
if [ -z "$dir" ] || { [ "$mode" != prepare ] && [ "$mode" != run ] &&
  [ "$mode" != report ]; }; then
  echo "usage: bench-round.sh prepare|run DIR | report BENCH_JSON [SANITIZE_JSON]" >&2
  exit 2
fi
case $mode in
report)
  extra=()
  for s in "${@:3}"; do extra+=(--sanitize "$s"); done
  python3 "$root/bench/gpu/report.py" "$dir" --md "$(dirname "$dir")/bench.md" \
    --results "$root/bench/RESULTS.md" "${extra[@]}"
  exit $?
  ;;
prepare)
  mkdir -p "$dir/bin" || exit 1
  if [ "${BENCH_RUNTIME:-}" != skip ]; then
    # The GPU machine has no MLIR and no FlatBuffers: the runtime-only
    # configuration (as scripts/gpu/build-carry.sh builds it), kept between
    # rounds in build-bench-runtime/ (git-ignored).
    rt=$root/build-bench-runtime
    cmake -G Ninja -S "$root" -B "$rt" -DNOVA_ENABLE_COMPILER=OFF \
      -DMLIR_DIR=/nonexistent -DCMAKE_BUILD_TYPE=Release > /dev/null &&
      ninja -j2 -C "$rt" nova-run > /dev/null &&
      cp "$rt/bin/nova-run" "$dir/bin/" || {
      echo "bench-round: FAILED to build the runtime-only nova-run" >&2
      exit 1
    }
  fi
  python3 "$root/bench/gpu/prepare.py" "$dir"
  status=$?
  du -sh "$dir"
  exit $status
  ;;
run)
  out=${OUT:-/tmp/nova-bench}
  mkdir -p "$out" || exit 1
  parts=()
  [ -n "${BENCH_RUN_PARTS:-}" ] && parts=(--parts "$BENCH_RUN_PARTS")
  [ -n "${BENCH_MERGE:-}" ] && parts+=(--merge "$BENCH_MERGE")
  python3 "$root/bench/gpu/run.py" "$dir" --out "$out" "${parts[@]}" \
    --budget "${BENCH_BUDGET:-470}" --jobs "${BENCH_JOBS:-1}" 2>&1 |
    tee "$out/round.log"
  exit "${PIPESTATUS[0]}"
  ;;
esac
