#!/usr/bin/env bash
# One round on the GPU machine (run from the repository root there, after
# scripts/gpu/build-carry.sh here): runtime unit tests, GPU integration
# tests, nova-run on the executables they wrote (correctness, PTX JIT,
# timing with and without CUDA graphs, the training driver), Nova's own
# GPU kernels against the interpreter and the configurator on GPT-2. Everything goes to $OUT/round.log.
set -uo pipefail
C=gpu-carry
OUT=${OUT:-/tmp/nova-out}
W=$(mktemp -d)
mkdir -p "$OUT"
exec > >(tee "$OUT/round.log") 2>&1
status=0
run() { echo "+ $*"; "$@" || { echo "FAILED ($?): $*"; status=1; }; }

nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv
export NOVA_TEST_KERNELS=$PWD/$C/kernels NOVA_TEST_OUT=$W
# The status-word GPU test reads the kernel tests' status_labels case.
export NOVA_TEST_STATUS=$PWD/$C/kernel-tests
run $C/bin/NovaRuntimeTests --gtest_brief=1
run $C/bin/NovaRuntimeGpuTests
ls -la "$W"

# Correctness through nova-run: cubin, then the PTX-only executable (JIT).
run $C/bin/nova-run "$W/add_scale.nvx" --entry add_scale \
  --inputs "$W/add_scale.in.safetensors" --compare "$W/add_scale.out.safetensors" --rtol 0 --atol 0
run $C/bin/nova-run "$W/add_scale.ptx.nvx" --entry add_scale \
  --inputs "$W/add_scale.in.safetensors" --compare "$W/add_scale.out.safetensors" --rtol 0 --atol 0

# Host overhead per launch: 256 launches of a small kernel, graphs on / off.
for flag in "" --no-graphs; do
  run $C/bin/nova-run "$W/chain.nvx" --entry chain --random-inputs 1 \
    --iterations 200 --warmup 10 $flag
done
run $C/bin/nova-run "$W/add_scale.nvx" --entry add_scale --random-inputs 2 --iterations 100

# The training driver: parameters resident, aliased in place, saved at the end.
run $C/bin/nova-run "$W/toy_train.nvx" --entry train_step --train --steps 20 --text README.md \
  --params "$W/toy_train.params.safetensors" --save "$W/trained.safetensors" --log-every 5
python3 - "$W/trained.safetensors" <<'PY' || status=1
import json, struct, sys
d = open(sys.argv[1], "rb").read(); n = struct.unpack("<Q", d[:8])[0]
h = json.loads(d[8:8 + n]); b, e = h["w"]["data_offsets"]
w = struct.unpack("<%df" % ((e - b) // 4), d[8 + n + b:8 + n + e])
want = [(1.0 + i) * 0.9 ** 20 for i in range(len(w))]
err = max(abs(a - x) / x for a, x in zip(w, want))
print("trained w vs w0 * 0.9^20: max rel err %.2e" % err)
sys.exit(0 if err < 1e-5 else 1)
PY

# Errors: a corrupt executable and a missing entry must each fail with a
# message (exit 1), not crash and not succeed.
expect_error() {
  echo "+ (expect an error) $*"
  local err rc
  err=$("$@" 2>&1 >/dev/null); rc=$?
  echo "$err"
  if [ "$rc" -ne 1 ] || ! grep -q "error" <<<"$err"; then
    echo "FAILED (exit $rc, expected 1 with an error): $*"; status=1
  fi
}
head -c 100 "$W/add_scale.nvx" > "$W/truncated.nvx"
expect_error $C/bin/nova-run "$W/truncated.nvx" --random-inputs 1
expect_error $C/bin/nova-run "$W/add_scale.nvx" --entry nope

# Nova's own kernels (convert-tile-to-gpu) against the interpreter.
run scripts/gpu/kernel-tests.sh run $C/kernel-tests $C/bin/nova-run

# compute-sanitizer memcheck and racecheck on a planned step in guard-band
# mode (the status word, check_labels and AdamW), when the machine has it.
cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
if [ -n "$cs" ]; then
  for tool in memcheck racecheck; do
    run "$cs" --tool $tool --error-exitcode 3 $C/bin/nova-run \
      $C/kernel-tests/status_guarded.nvx --entry step --no-graphs \
      --inputs $C/kernel-tests/status_guarded.in.safetensors \
      --compare $C/kernel-tests/status_guarded.ref.safetensors --rtol 1e-6 --atol 1e-9
  done
fi

# GPT-2 (small, 124M) trained with Nova's kernels against PyTorch.
if [ -d $C/gpt2 ]; then
  run scripts/gpu/gpt2-round.sh run $C/gpt2 "$PWD/$C/bin/nova-run"
fi

run $C/bin/nova-configure-explain --device h200 --gpt2 --summary
echo "round status $status"
exit $status
