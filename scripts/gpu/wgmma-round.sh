#!/usr/bin/env bash
# The Hopper GEMM round, in two halves (the GPU machine has no MLIR):
#
#   wgmma-round.sh prepare DIR   (here) a runtime-only nova-run, the wgmma
#       kernel tests (kernel-tests.sh prepare, cases named wgmma_*) and one
#       .nvx per timing entry of test/GPU/Inputs/matmul_wgmma_bench.mlir;
#   wgmma-round.sh run DIR       (on the GPU machine) the kernel tests, then
#       each timing entry with nova-run --iterations 50 --warmup 5 (median
#       of CUDA events) next to torch.matmul on the same shapes and layouts
#       (cuBLAS, same events, same counts): x @ w.t() for w [N, K] (layout
#       "nk", both K-major), x @ w for w [K, N] ("kn", B N-major), x.t() @ dy
#       for x [K, M] ("dw", A M-major, B N-major); one line per shape with
#       its floor (FLOPs at the dense peak), TFLOP/s and the ratio to cuBLAS
#       (DTYPES="bf16" times the bf16 entries only).
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
mode=${1:?usage: wgmma-round.sh prepare|run DIR}
dir=${2:?usage: wgmma-round.sh prepare|run DIR}
# entry  M K N layout dtypes
shapes="
4096      4096  4096 4096 nk bf16,tf32
8192      8192  8192 8192 nk bf16,tf32
gpt2_qkv  16384 768  2304 nk bf16,tf32
gpt2_fc   16384 768  3072 nk bf16,tf32
gpt2_proj 16384 3072 768  nk bf16,tf32
xw_qkv    16384 768  2304 kn bf16
xw_fc     16384 768  3072 kn bf16
xw_proj   16384 3072 768  kn bf16
dw_qkv    768   16384 2304 dw bf16
dw_fc     768   16384 3072 dw bf16
dw_proj   3072  16384 768  dw bf16
logits    16384 768  50304 nk bf16
dlogits   16384 50304 768  kn bf16
"
case $mode in
prepare)
  set -e
  mkdir -p "$dir/bin" "$dir/bench"
  cmake -G Ninja -S "$root" -B "$root/build-rt" -DNOVA_ENABLE_COMPILER=OFF \
    -DMLIR_DIR=/nonexistent -DCMAKE_BUILD_TYPE=Release > /dev/null
  ninja -j2 -C "$root/build-rt" nova-run
  cp "$root/build-rt/bin/nova-run" "$dir/bin/"
  cp "$0" "$root/scripts/gpu/kernel-tests.sh" "$dir/"
  cases=$(grep -o '^wgmma_[a-z0-9_]*' "$root/scripts/gpu/kernel-tests.sh" | tr '\n' ' ')
  NOVA_BIN=$root/build/bin "$root/scripts/gpu/kernel-tests.sh" prepare \
    "$dir/kernel-tests" "${KERNEL_TEST_SEED:-now}" $cases
  bin=$root/build/bin
  "$bin/nova-opt" "$root/test/GPU/Inputs/matmul_wgmma_bench.mlir" \
    --nova-configure=target=h200 --nova-outline-kernels --convert-tile-to-gpu=tf32-wgmma=true \
    -o "$dir/bench/gpu.mlir"
  while read -r name m k n layout dtypes; do
    [ -z "$name" ] && continue
    for t in ${dtypes//,/ }; do
      "$bin/nova-gpu-pack" "$dir/bench/gpu.mlir" --entry "${t}_$name" \
        -o "$dir/bench/${t}_$name.nvx"
    done
  done <<< "$shapes"
  rm "$dir/bench/gpu.mlir"
  du -sh "$dir"
  ;;
run)
  status=0
  # A kernel that never finishes fails the round instead of hanging it.
  timeout 90 bash "$dir/kernel-tests.sh" run "$dir/kernel-tests" \
    "$dir/bin/nova-run" || status=1
  nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader || true
  python3 - "$dir" "$shapes" <<'PY' || status=1
import os, re, subprocess, sys
import torch
d = sys.argv[1]
shapes = [(f[0], int(f[1]), int(f[2]), int(f[3]), f[4], f[5].split(","))
          for f in (l.split() for l in sys.argv[2].splitlines()) if f]
peak = {"bf16": 989e12, "tf32": 495e12}
def torch_ms(t, m, k, n, layout):
    torch.backends.cuda.matmul.allow_tf32 = t == "tf32"
    dt = torch.bfloat16 if t == "bf16" else torch.float32
    if layout == "dw":  # x.t() @ dy, x [K, M]
        x = torch.randn(k, m, device="cuda", dtype=dt)
        w = torch.randn(k, n, device="cuda", dtype=dt)
        f = lambda: torch.matmul(x.t(), w)
    else:
        x = torch.randn(m, k, device="cuda", dtype=dt)
        if layout == "kn":
            w = torch.randn(k, n, device="cuda", dtype=dt)
            f = lambda: torch.matmul(x, w)
        else:
            w = torch.randn(n, k, device="cuda", dtype=dt)
            f = lambda: torch.matmul(x, w.t())
    for _ in range(5):
        f()
    times = []
    for _ in range(50):
        a = torch.cuda.Event(enable_timing=True); b = torch.cuda.Event(enable_timing=True)
        a.record(); f(); b.record(); b.synchronize()
        times.append(a.elapsed_time(b))
    return sorted(times)[len(times) // 2]
print("| dtype | layout | shape (MxKxN) | floor ms | Nova ms | Nova TFLOP/s | cuBLAS ms | cuBLAS TFLOP/s | Nova / cuBLAS |")
print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
for t in os.environ.get("DTYPES", "bf16 tf32").split():
    for name, m, k, n, layout, dtypes in shapes:
        if t not in dtypes:
            continue
        flops = 2.0 * m * n * k
        out = subprocess.run([f"{d}/bin/nova-run", f"{d}/bench/{t}_{name}.nvx",
                              "--random-inputs", "1", "--iterations", "50",
                              "--warmup", "5"], capture_output=True, text=True,
                             timeout=60)
        got = re.search(r"median ([0-9.]+) ms", out.stdout)
        nova = float(got.group(1)) if got else float("nan")
        if not got:
            print(out.stdout[-500:], out.stderr[-800:], file=sys.stderr)
        ref = torch_ms(t, m, k, n, layout)
        print(f"| {t} | {layout} | {m}x{k}x{n} | {flops / peak[t] * 1e3:.3f} | {nova:.3f} | "
              f"{flops / nova / 1e9:.0f} | {ref:.3f} | {flops / ref / 1e9:.0f} | "
              f"{ref / nova:.2f} |", flush=True)
PY
  exit $status
  ;;
*)
  echo "wgmma-round.sh: unknown mode '$mode' (prepare or run)"; exit 2 ;;
esac
