#!/usr/bin/env bash
# Row kernels, AdamW and the configurator's predictions on the GPU machine:
# the copy bandwidth (PyTorch), the kernel tests of the bandwidth-bound
# families, then for GPT-2 124M bf16 and tf32 the old and new step on the
# same inputs, each with nova-run --profile (its table as text and as JSON:
# per kernel launches, ms, bytes), and the two steps' outputs compared. Its folder (built here) holds this script and the Python
# helpers beside it, bin/nova-run (runtime-only build), old/ and new/
# with {bf16,tf32}.nvx (scripts/gpu/gpt2-round.sh prepare with each
# compiler, MODELS=124m), kernel-tests.sh and kernel-tests/ (its prepare).
# VARIANTS names the step folders profiled in turn (default "old new"; each
# other than old is compared with old's outputs).
# COMPUTES picks the steps (default "bf16 tf32"); files gzipped to fit the
# carry are unpacked first; without old/ the new step is profiled alone.
# DETERMINISM="CASE ENTRY" also runs that kernel case twice on the same
# inputs and requires bit-for-bit equal outputs. NCU=REGEX profiles the new
# step's kernels of matching names with Nsight Compute (ncu-<compute>.txt).
set -uo pipefail
C=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-/tmp/rowbw-out}
mkdir -p "$OUT"
W=$(mktemp -d)
exec > >(tee "$OUT/round.log") 2>&1
R=$C/bin/nova-run
status=0
variants=${VARIANTS:-old new}
for gz in "$C"/*/*.gz; do
  [ -e "$gz" ] && gunzip -f "$gz"
done
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv
timeout 40 python3 "$C/copy_bandwidth.py" || status=1
timeout 50 bash "$C/kernel-tests.sh" run "$C/kernel-tests" "$R" > "$OUT/kernel-tests.log" 2>&1 || status=1
grep -E "^\+|FAILED|MISMATCH|max" "$OUT/kernel-tests.log" | head -80
if [ -n "${DETERMINISM:-}" ]; then
  read -r dcase dentry <<< "$DETERMINISM"
  echo "== determinism: $dcase twice"
  for i in 1 2; do
    timeout 10 "$R" "$C/kernel-tests/$dcase.nvx" --entry "$dentry" --random-inputs 5 \
      -o "$W/det$i.safetensors" > /dev/null 2>&1 || status=1
  done
  timeout 20 python3 "$C/compare_steps.py" "$W/det1.safetensors" "$W/det2.safetensors" 0 || status=1
  rm -f "$W"/det*.safetensors
fi
for c in ${COMPUTES:-bf16 tf32}; do
  timeout 40 python3 "$C/step_inputs.py" "$R" "$C/new/$c.nvx" "$W/in.safetensors" || status=1
  for v in $variants; do
    # Without an old step (no second compiler built), the new one alone.
    [ -e "$C/$v/$c.nvx" ] || { echo "== $v $c: none"; continue; }
    echo "== $v $c"
    timeout 40 "$R" "$C/$v/$c.nvx" --entry train_step --inputs "$W/in.safetensors" \
      -o "$W/$v.safetensors" --profile --iterations 5 --warmup 1 \
      --timing-json "$OUT/profile-$v-$c.json" \
      > "$OUT/profile-$v-$c.txt" 2>&1 || status=1
    head -4 "$OUT/profile-$v-$c.txt"; tail -1 "$OUT/profile-$v-$c.txt"
  done
  bound=$([ "$c" = bf16 ] && echo 1e-2 || echo 1e-3)
  if [ -e "$W/old.safetensors" ]; then
    for v in $variants; do
      [ "$v" = old ] || [ ! -e "$W/$v.safetensors" ] && continue
      echo "== $v against old ($c)"
      timeout 40 python3 "$C/compare_steps.py" "$W/old.safetensors" "$W/$v.safetensors" "$bound" || status=1
    done
  fi
  # NCU=REGEX: Nsight Compute's summary of the new step's kernels whose
  # names match (hardware counters; the clocks left as they are).
  if [ -n "${NCU:-}" ] && command -v ncu > /dev/null; then
    timeout "${NCU_TIMEOUT:-90}" ncu --clock-control none --kernel-name "regex:$NCU" \
      --launch-count "${NCU_COUNT:-20}" --section SpeedOfLight --section Occupancy \
      --section LaunchStats --section WarpStateStats --section MemoryWorkloadAnalysis \
      --section ComputeWorkloadAnalysis \
      "$R" "$C/new/$c.nvx" --entry train_step --inputs "$W/in.safetensors" \
      -o "$W/ncu.safetensors" > "$OUT/ncu-$c.txt" 2>&1 || echo "ncu: exit $? (see ncu-$c.txt)"
  fi
  rm -f "$W"/*.safetensors
done
echo "round status $status"
exit $status
