#!/usr/bin/env bash
# LayerNorm row kernels: copy bandwidth, kernel cases, determinism, then the
# 124M bf16 step of main ("old") and four variants of the row kernels'
# column-sum groups, each with --profile on the same inputs, outputs compared
# with old's, and whole-step times alternating.
set -uo pipefail
C=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-/tmp/rows-out}
mkdir -p "$OUT"
W=$(mktemp -d)
exec > >(tee "$OUT/round.log") 2>&1
R=$C/bin/nova-run
status=0
find "$C" -name '*.gz' -exec gunzip -f {} +
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv
timeout 30 python3 "$C/copy_bandwidth.py" || status=1
timeout 45 bash "$C/kernel-tests.sh" run "$C/kernel-tests" "$R" > "$OUT/kernel-tests.log" 2>&1 || status=1
grep -E "^\+|FAILED|MISMATCH|passed|failed" "$OUT/kernel-tests.log" | head -60
for d in "rowsum_ln768 ln_backward_c768" "rowsum_ln768_first ln_backward_first_c768" "ln_fwd768 layer_norm_c768"; do
  read -r dcase dentry <<< "$d"
  echo "== determinism: $dcase twice"
  for i in 1 2; do
    timeout 10 "$R" "$C/kernel-tests/$dcase.nvx" --entry "$dentry" --random-inputs 5 \
      -o "$W/det$i.safetensors" > /dev/null 2>&1 || status=1
  done
  timeout 20 python3 "$C/compare_steps.py" "$W/det1.safetensors" "$W/det2.safetensors" 0 || status=1
  rm -f "$W"/det*.safetensors
done
timeout 40 python3 "$C/step_inputs.py" "$R" "$C/old/bf16.nvx" "$W/in.safetensors" || status=1
for v in old A B C D; do
  echo "== $v bf16 profile"
  timeout 30 "$R" "$C/$v/bf16.nvx" --entry train_step --inputs "$W/in.safetensors" \
    -o "$W/$v.safetensors" --profile --iterations 5 --warmup 1 \
    --timing-json "$OUT/profile-$v-bf16.json" > "$OUT/profile-$v-bf16.txt" 2>&1 || status=1
  head -4 "$OUT/profile-$v-bf16.txt"; tail -1 "$OUT/profile-$v-bf16.txt"
  grep -E "row_reduction_(dbb481d8|fdfcf698|9b8e60e9|0717d394)" "$OUT/profile-$v-bf16.txt"
  if [ "$v" != old ]; then
    timeout 20 python3 "$C/compare_steps.py" "$W/old.safetensors" "$W/$v.safetensors" 1e-2 || status=1
    rm -f "$W/$v.safetensors"
  fi
done
rm -f "$W"/*.safetensors
echo "== whole step, alternating (nova-run --random-inputs 1 --iterations 20 --warmup 3)"
for rep in 1 2; do
  for v in old A B C D; do
    printf '%s ' "$v"
    timeout 20 "$R" "$C/$v/bf16.nvx" --entry train_step --random-inputs 1 --iterations 20 --warmup 3 2>&1 | tail -1
  done
done
echo "round status $status"
exit $status
