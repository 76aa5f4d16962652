#!/usr/bin/env bash
# A short GPU round for a whole tree (when device time is scarce), in two
# halves because the GPU machine has no MLIR:
#
#   check-round.sh prepare DIR   (here) the runtime-only nova-run, the GPT-2
#       steps (gpt2-round.sh prepare; MODELS, default "small 124m"), the
#       kernel-test cases named in CASES (default: the newest ones) and the
#       benchmark inputs of BENCH_PARTS (default gemm,attention,gpt2).
#   check-round.sh run DIR       (there) the kernel tests, the benchmark
#       parts named in BENCH_RUN_PARTS (default
#       bandwidth,gemm,attention,nova_train) within BENCH_BUDGET seconds, then
#       GPT-2 parity against PyTorch (STEPS, default 5; PARITY_TIMEOUT). Logs
#       and results under $OUT (kernels.log, bench.log, bench.json, bench.md,
#       bench.png, logs.txt, gpt2.log). Exit 1 if any check failed.
#       KERNELS=0 or PARITY=0 leave the kernel tests or the parity run out,
#       so a round longer than one call splits in two (the second with
#       BENCH_MERGE=<the first call's bench.json>).
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
mode=${1:?usage: check-round.sh prepare|run DIR}
dir=${2:?usage: check-round.sh prepare|run DIR}
cases=${CASES:-in_place_row matmul_f32 attn_fwd_f32_exact attn_bwd_f32_exact status_gather matmul_grouped mm_gpt_grouped}
status=0
case $mode in
prepare)
  mkdir -p "$dir"
  BENCH_PARTS=${BENCH_PARTS:-gemm,attention,gpt2} \
    "$root/scripts/gpu/bench-round.sh" prepare "$dir/bench" || status=1
  mkdir -p "$dir/bin" && cp "$dir/bench/bin/nova-run" "$dir/bin/" || status=1
  MODELS=${MODELS:-small 124m} NOVA_BIN=$root/build/bin \
    "$root/scripts/gpu/gpt2-round.sh" prepare "$dir/gpt2" || status=1
  # shellcheck disable=SC2086
  NOVA_BIN=$root/build/bin "$root/scripts/gpu/kernel-tests.sh" prepare \
    "$dir/kernels" now $cases || status=1
  du -sh "$dir"
  ;;
run)
  # A merge file named but absent would only surface after the kernel
  # tests, as a benchmark half that did nothing: refuse it first.
  if [ -n "${BENCH_MERGE:-}" ] && [ ! -f "$BENCH_MERGE" ]; then
    echo "check-round: error: BENCH_MERGE '$BENCH_MERGE' is not a file" >&2
    exit 2
  fi
  # At most a few files come back from the GPU machine: the three logs and
  # the benchmark's JSON, table and chart land in $OUT, the rest in $work.
  # Order: the kernel tests, the benchmark, then GPT-2 parity (within
  # PARITY_TIMEOUT seconds, default 300), so a call cut short still has the
  # cheap checks and the timings.
  out=${OUT:-/tmp/nova-check}
  work=$(mktemp -d)
  mkdir -p "$out"
  run=$PWD/$dir/bin/nova-run
  [ "$dir" = "${dir#/}" ] || run=$dir/bin/nova-run
  if [ "${KERNELS:-1}" != 0 ]; then
    "$root/scripts/gpu/kernel-tests.sh" run "$dir/kernels" "$run" \
      > "$out/kernels.log" 2>&1 || status=1
    grep "^+ \|FAILED\|MISMATCH" "$out/kernels.log"
  fi
  OUT=$work/bench BENCH_RUN_PARTS=${BENCH_RUN_PARTS:-bandwidth,gemm,attention,nova_train} \
    BENCH_BUDGET=${BENCH_BUDGET:-200} \
    "$root/scripts/gpu/bench-round.sh" run "$dir/bench" > "$out/bench.log" 2>&1 ||
    status=1
  cp "$work"/bench/bench.{json,md,png} "$work"/bench/logs.txt "$out/" 2>/dev/null
  tail -5 "$out/bench.log"
  if [ "${PARITY:-1}" != 0 ]; then
    MODELS=${MODELS:-small 124m} STEPS=${STEPS:-5} SANITIZE=0 OUT=$work \
      timeout "${PARITY_TIMEOUT:-300}" \
      "$root/scripts/gpu/gpt2-round.sh" run "$dir/gpt2" "$run" \
      > "$out/gpt2.log" 2>&1 || status=1
    grep "PARITY\|worst rel" "$out/gpt2.log"
  fi
  echo "check round status $status"
  ;;
*)
  echo "usage: check-round.sh prepare|run DIR" >&2
  exit 2
  ;;
esac
exit $status
