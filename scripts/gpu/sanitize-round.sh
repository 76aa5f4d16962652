#!/usr/bin/env bash
# compute-sanitizer over a prepared round, on the GPU machine:
#
#   sanitize-round.sh KERNELS_DIR NOVA_RUN [GPT2_DIR]
#
# racecheck, then memcheck, on every kernel case of KERNELS_DIR (from
# `kernel-tests.sh prepare`), each still compared with the interpreter's
# outputs as `kernel-tests.sh run` does; with GPT2_DIR (from `gpt2-round.sh
# prepare`), the small model's bf16 step: parity over one step, then
# memcheck and racecheck on the step in guard-band mode. TOOL_TIMEOUT
# (seconds, default 200) bounds each tool's pass over the cases. Exit 1 on
# any hazard, memory error, mismatch or timeout.
set -uo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
kernels=${1:?usage: sanitize-round.sh KERNELS_DIR NOVA_RUN [GPT2_DIR]}
run=${2:?usage: sanitize-round.sh KERNELS_DIR NOVA_RUN [GPT2_DIR]}
gpt2=${3:-}
cs=$(command -v compute-sanitizer ||
  ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
[ -n "$cs" ] || { echo "sanitize-round: no compute-sanitizer here" >&2; exit 1; }
status=0
wrap=$(mktemp -d)
for tool in racecheck memcheck; do
  # nova-run under the tool, as kernel-tests.sh calls it.
  printf '#!/bin/sh\nexec "%s" --tool %s --error-exitcode 3 "%s" "$@"\n' \
    "$cs" "$tool" "$run" > "$wrap/$tool"
  chmod +x "$wrap/$tool"
  echo "== $tool on the kernel cases of $kernels"
  timeout "${TOOL_TIMEOUT:-200}" "$here/scripts/gpu/kernel-tests.sh" run \
    "$kernels" "$wrap/$tool" > "$wrap/$tool.log" 2>&1 || status=1
  grep -E "^\+ |^match|FAILED|MISMATCH|ERROR SUMMARY|RACECHECK SUMMARY" "$wrap/$tool.log"
done
if [ -n "$gpt2" ]; then
  MODELS=small COMPUTES=bf16 STEPS=1 SANITIZE=1 OUT=${OUT:-/tmp} \
    "$here/scripts/gpu/gpt2-round.sh" run "$gpt2" "$run" || status=1
fi
rm -rf "$wrap"
echo "sanitize round status $status"
exit $status
