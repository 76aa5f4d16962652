#!/usr/bin/env bash
# LayerNorm row kernels round (its folder: bin/nova-run, old/ and new/
# bf16.nvx of the 124M step, gzipped, kernel-tests/ prepared, and the copy,
# input and compare scripts beside it): copy bandwidth, the row kernel cases against
# the interpreter (arena poisoned), one case run twice (bit-for-bit), the
# 124M bf16 step old (main) and new (this branch) with nova-run --profile on
# the same inputs, and the two steps' outputs compared.
set -uo pipefail
C=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-/tmp/rows-out}
mkdir -p "$OUT"
W=$(mktemp -d)
exec > >(tee "$OUT/round.log") 2>&1
R=$C/bin/nova-run
status=0
gunzip -f "$C"/old/*.gz "$C"/new/*.gz "$C"/kernel-tests/*.gz
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv
timeout 30 python3 "$C/copy_bandwidth.py" || status=1
timeout 45 bash "$C/kernel-tests.sh" run "$C/kernel-tests" "$R" > "$OUT/kernel-tests.log" 2>&1 || status=1
grep -cE "^\+" "$OUT/kernel-tests.log"; grep -E "FAILED|MISMATCH" "$OUT/kernel-tests.log" | head -40
echo "== determinism: rowsum_ln768 twice"
for i in 1 2; do
  timeout 10 "$R" "$C/kernel-tests/rowsum_ln768.nvx" --entry ln_backward_c768 --random-inputs 5 -o "$W/det$i.safetensors" > /dev/null 2>&1 || status=1
done
timeout 20 python3 "$C/compare_steps.py" "$W/det1.safetensors" "$W/det2.safetensors" 0 || status=1
rm -f "$W"/det*.safetensors
c=bf16
timeout 30 python3 "$C/step_inputs.py" "$R" "$C/new/$c.nvx" "$W/in.safetensors" || status=1
for v in old new; do
  echo "== $v $c"
  timeout 30 "$R" "$C/$v/$c.nvx" --entry train_step --inputs "$W/in.safetensors" \
    -o "$W/$v.safetensors" --profile --iterations 5 --warmup 1 \
    --timing-json "$OUT/profile-$v-$c.json" \
    > "$OUT/profile-$v-$c.txt" 2>&1 || status=1
  head -4 "$OUT/profile-$v-$c.txt"; tail -1 "$OUT/profile-$v-$c.txt"
done
timeout 30 python3 "$C/compare_steps.py" "$W/old.safetensors" "$W/new.safetensors" 1e-2 || status=1
rm -rf "$W"
echo "round status $status"
exit $status
