#!/usr/bin/env bash
# The attention round, in two halves (the GPU machine has no MLIR):
#
#   attn-round.sh prepare DIR   (here) a runtime-only nova-run, the
#       attention kernel tests (kernel-tests.sh prepare, cases named attn_*)
#       and one .nvx per entry of test/GPU/Inputs/attn_wgmma_bench.mlir
#       (bf16; attn_tf32_bench.mlir with ATTN_BENCH=tf32, below);
#   attn-round.sh run DIR       (on the GPU machine) the kernel tests, then
#       each timing entry with nova-run --iterations 50 --warmup 5 (median
#       of CUDA events) next to torch.nn.functional.scaled_dot_product_attention
#       (is_causal=True, same dtype, events and counts) on PyTorch's default
#       backend and on flash alone (bf16 only), one line per entry with
#       TFLOP/s against the dense peak's floor and the ratios to both; then
#       nova-run --profile of the forward + backward entries (the time of
#       each kernel). An entry nova-run could not time fails the round.
#   OLD_NOVA_BIN=DIR (prepare): the forward + backward entries compiled by
#       the compiler in DIR too (bench-old/), profiled in the same run, so
#       that a change's kernels are timed next to the ones before it.
#   ATTN_BENCH=tf32 (prepare; run reads it from DIR/bench-kind): the TF32
#       entries of test/GPU/Inputs/attn_tf32_bench.mlir (f32 operands, the
#       mma.sync kernels) against SDPA on f32 with TF32 allowed (the TF32
#       dense peak as the floor), and the kernel tests of the f32 cases
#       (attn_*f32*) unless ATTN_CASES says others.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
mode=${1:?usage: attn-round.sh prepare|run DIR}
dir=${2:?usage: attn-round.sh prepare|run DIR}
bench=${ATTN_BENCH:-bf16}
[ "$mode" = run ] && [ -f "$dir/bench-kind" ] && bench=$(cat "$dir/bench-kind")
case $bench in
bf16) entries="fwd_d64 fwdbwd_d64 fwd_d128 fwdbwd_d128"
      input=attn_wgmma_bench.mlir case_pattern='^attn_[a-z0-9_]*' ;;
tf32) entries="fwd_tf32_d64 fwdbwd_tf32_d64"
      input=attn_tf32_bench.mlir case_pattern='^attn_[a-z0-9_]*f32[a-z0-9_]*' ;;
*) echo "attn-round.sh: ATTN_BENCH is bf16 or tf32, not '$bench'"; exit 2 ;;
esac
case $mode in
prepare)
  set -e
  mkdir -p "$dir/bin" "$dir/bench"
  echo "$bench" > "$dir/bench-kind"
  # NOVA_RT_BUILD: where the runtime-only build lives (default build-rt).
  rt=${NOVA_RT_BUILD:-$root/build-rt}
  cmake -G Ninja -S "$root" -B "$rt" -DNOVA_ENABLE_COMPILER=OFF \
    -DMLIR_DIR=/nonexistent -DCMAKE_BUILD_TYPE=Release > /dev/null
  ninja -j2 -C "$rt" nova-run
  cp "$rt/bin/nova-run" "$dir/bin/"
  cp "$0" "$root/scripts/gpu/kernel-tests.sh" "$dir/"
  # ATTN_CASES: the kernel-test cases to prepare (default: every attn_*
  # row); EXTRA_CASES rows (scripts/gpu/step-kernels.py) come too.
  cases=${ATTN_CASES:-$(grep -o "$case_pattern" "$root/scripts/gpu/kernel-tests.sh" | tr '\n' ' ')}
  [ -n "${EXTRA_CASES:-}" ] &&
    cases="$cases $(grep -v '^#' "$EXTRA_CASES" | awk '{print $1}' | tr '\n' ' ')"
  NOVA_BIN=$root/build/bin "$root/scripts/gpu/kernel-tests.sh" prepare \
    "$dir/kernel-tests" "${KERNEL_TEST_SEED:-now}" $cases
  bin=$root/build/bin
  "$bin/nova-opt" "$root/test/GPU/Inputs/$input" \
    --nova-configure=target=h200 --nova-outline-kernels --convert-tile-to-gpu \
    -o "$dir/bench/gpu.mlir"
  for e in $entries; do
    "$bin/nova-gpu-pack" "$dir/bench/gpu.mlir" --entry "$e" -o "$dir/bench/$e.nvx"
  done
  rm "$dir/bench/gpu.mlir"
  if [ -n "${OLD_NOVA_BIN:-}" ]; then
    mkdir -p "$dir/bench-old"
    "$OLD_NOVA_BIN/nova-opt" "$root/test/GPU/Inputs/$input" \
      --nova-configure=target=h200 --nova-outline-kernels --convert-tile-to-gpu \
      -o "$dir/bench-old/gpu.mlir"
    for e in $entries; do
      [[ $e == fwdbwd* ]] || continue
      "$OLD_NOVA_BIN/nova-gpu-pack" "$dir/bench-old/gpu.mlir" --entry "$e" \
        -o "$dir/bench-old/$e.nvx"
    done
    rm "$dir/bench-old/gpu.mlir"
  fi
  du -sh "$dir"
  ;;
run)
  status=0
  # A kernel that never finishes fails the round instead of hanging it.
  timeout 80 bash "$dir/kernel-tests.sh" run "$dir/kernel-tests" \
    "$dir/bin/nova-run" || status=1
  nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader || true
  python3 - "$dir" "$bench" <<'PY' || status=1
import re, subprocess, sys
import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel
d, bench = sys.argv[1], sys.argv[2]
# entry, B, H, T, D, with backward
cases = {"bf16": [("fwd_d64", 16, 12, 1024, 64, False), ("fwdbwd_d64", 16, 12, 1024, 64, True),
                  ("fwd_d128", 2, 3, 4096, 128, False), ("fwdbwd_d128", 2, 3, 4096, 128, True)],
         "tf32": [("fwd_tf32_d64", 16, 12, 1024, 64, False),
                  ("fwdbwd_tf32_d64", 16, 12, 1024, 64, True)]}[bench]
# The dense tensor-core peak of the operand type (the floor's rate); TF32
# allowed for the f32 peer (SDPA has no flash kernel for f32: its default
# backend runs, and the flash column is left out).
peak = {"bf16": 989e12, "tf32": 495e12}[bench]
dtype = {"bf16": torch.bfloat16, "tf32": torch.float32}[bench]
torch.backends.cuda.matmul.allow_tf32 = True
torch.backends.cudnn.allow_tf32 = True
def sdpa_ms(b, h, t, dim, backward, backends=None):
    q, k, v, dy = (torch.randn(b, h, t, dim, device="cuda", dtype=dtype)
                   for _ in range(4))
    for x in (q, k, v):
        x.requires_grad_(backward)
    def step():
        if backends:
            with sdpa_kernel(backends):
                o = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        else:
            o = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        if backward:
            o.backward(dy)
    for _ in range(5):
        step()
    times = []
    for _ in range(50):
        a = torch.cuda.Event(enable_timing=True); e = torch.cuda.Event(enable_timing=True)
        a.record(); step(); e.record(); e.synchronize()
        times.append(a.elapsed_time(e))
    return sorted(times)[len(times) // 2]
failed = False
print("| entry | B H T D | floor ms | Nova ms | Nova TFLOP/s | SDPA ms | SDPA TFLOP/s | Nova / SDPA (speed) | SDPA flash ms | Nova / flash |")
print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
for name, b, h, t, dim, backward in cases:
    flops = 4.0 * b * h * t * t * dim / 2 * (3.5 if backward else 1.0)
    out = subprocess.run([f"{d}/bin/nova-run", f"{d}/bench/{name}.nvx",
                          "--random-inputs", "1", "--iterations", "50",
                          "--warmup", "5"], capture_output=True, text=True,
                         timeout=60)
    got = re.search(r"median ([0-9.]+) ms", out.stdout)
    nova = float(got.group(1)) if got else float("nan")
    if not got:
        print(out.stdout[-500:], out.stderr[-800:], file=sys.stderr)
        failed = True
    ref = sdpa_ms(b, h, t, dim, backward)
    flash = (sdpa_ms(b, h, t, dim, backward, [SDPBackend.FLASH_ATTENTION])
             if bench == "bf16" else float("nan"))
    print(f"| {name} | {b} {h} {t} {dim} | {flops / peak * 1e3:.3f} | {nova:.3f} | "
          f"{flops / nova / 1e9:.0f} | {ref:.3f} | {flops / ref / 1e9:.0f} | "
          f"{ref / nova:.2f} | {flash:.3f} | {flash / nova:.2f} |", flush=True)
sys.exit(1 if failed else 0)
PY
  for e in $entries; do
    [[ $e == fwdbwd* ]] || continue
    for kind in bench bench-old; do
      [ -f "$dir/$kind/$e.nvx" ] || continue
      echo "--profile $e ($kind)"
      timeout 15 "$dir/bin/nova-run" "$dir/$kind/$e.nvx" --random-inputs 1 \
        --iterations 20 --profile 2>&1 | tail -8
    done
  done
  exit $status
  ;;
*)
  echo "attn-round.sh: unknown mode '$mode' (prepare or run)"; exit 2 ;;
esac
