#!/usr/bin/env bash
# The TF32 half of a benchmark round, for a change that touches only TF32
# kernels (the bf16 figures of the last full round stand), in two halves:
#
#   tf32-round.sh prepare DIR   (here) TF32 GEMMs of GPT-2's shapes in the
#       three layouts the step uses (nt: x W^T, nn: x W, tn: x^T dy, each
#       against cuBLAS on the same layout; nt also the squares, the
#       vocabulary and the ragged shapes), the GPT-2 124M step, the TF32
#       wgmma kernel cases and the GPT-2 steps for parity, into DIR.
#   tf32-round.sh run DIR       (there) the kernel cases, the three GEMM
#       sets, Nova's TF32 training against torch.compile's, then GPT-2 TF32
#       parity with PyTorch (STEPS, default 3); results under $OUT.
#       Exit 1 if any of them failed.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
mode=${1:?usage: tf32-round.sh prepare|run DIR}
dir=${2:?usage: tf32-round.sh prepare|run DIR}
gpt2_shapes=16384x768x2304,16384x768x3072,16384x3072x768
dw_shapes=768x16384x2304,3072x16384x768,768x16384x3072
# nt (x W^T) also takes the issue's other bar shapes: the squares, the
# vocabulary product and the ragged ones (NT_SHAPES overrides).
nt_shapes=${NT_SHAPES:-$gpt2_shapes,16384x768x50304,4096x4096x4096,8192x8192x8192,1000x1000x1000,4095x1023x4097,16384x768x50257}
status=0
case $mode in
prepare)
  mkdir -p "$dir"
  for layout in nt nn tn; do
    case $layout in
    nt) shapes=$nt_shapes ;;
    nn) shapes=$gpt2_shapes ;;
    tn) shapes=$dw_shapes ;;
    esac
    BENCH_PARTS=gemm BENCH_GEMM=$shapes BENCH_GEMM_DTYPES=tf32 \
      BENCH_GEMM_LAYOUT=$layout BENCH_RUNTIME=$([ $layout = nt ] || echo skip) \
      "$root/scripts/gpu/bench-round.sh" prepare "$dir/gemm-$layout" || status=1
  done
  for layout in nn tn; do
    cp "$dir/gemm-nt/bin/nova-run" "$dir/gemm-$layout/bin/" || status=1
  done
  BENCH_PARTS=gpt2 BENCH_RUNTIME=skip \
    "$root/scripts/gpu/bench-round.sh" prepare "$dir/train" || status=1
  mkdir -p "$dir/bin" "$dir/train/bin" &&
    cp "$dir/gemm-nt/bin/nova-run" "$dir/bin/" &&
    cp "$dir/gemm-nt/bin/nova-run" "$dir/train/bin/" || status=1
  MODELS="small 124m" NOVA_BIN=$root/build/bin \
    "$root/scripts/gpu/gpt2-round.sh" prepare "$dir/gpt2" || status=1
  NOVA_BIN=$root/build/bin "$root/scripts/gpu/kernel-tests.sh" prepare \
    "$dir/kernels" now ${CASES:-wgmma_tf32_mn_xw wgmma_tf32_mn_dw \
    wgmma_tf32_mn_ragged wgmma_tf32_mk_ragged pad_copy_tf32_mn \
    wgmma_tf32_mn_narrow wgmma_tf32_round wgmma_tf32_1000 pad_copy_tf32} ||
    status=1
  du -sh "$dir"
  ;;
run)
  out=${OUT:-/tmp/nova-tf32}
  mkdir -p "$out"
  run=$PWD/$dir/bin/nova-run
  [ "$dir" = "${dir#/}" ] || run=$dir/bin/nova-run
  "$root/scripts/gpu/kernel-tests.sh" run "$dir/kernels" "$run" \
    > "$out/kernels.log" 2>&1 || status=1
  grep "^+ \|FAILED\|MISMATCH" "$out/kernels.log"
  for layout in nt nn tn; do
    OUT=$out/gemm-$layout BENCH_RUN_PARTS=gemm BENCH_BUDGET=90 \
      "$root/scripts/gpu/bench-round.sh" run "$dir/gemm-$layout" \
      > "$out/gemm-$layout.log" 2>&1 || status=1
    grep "| tf32 |" "$out/gemm-$layout/bench.md"
  done
  OUT=$out/train BENCH_RUN_PARTS=nova_train,torch_compile BENCH_COMPUTES=tf32 \
    BENCH_BUDGET=240 "$root/scripts/gpu/bench-round.sh" run "$dir/train" \
    > "$out/train.log" 2>&1 || status=1
  grep "| tf32 |" "$out/train/bench.md"
  mkdir -p "$out/parity"
  MODELS="124m small" COMPUTES=tf32 STEPS=${STEPS:-3} SANITIZE=0 OUT=$out/parity \
    timeout "${PARITY_TIMEOUT:-200}" \
    "$root/scripts/gpu/gpt2-round.sh" run "$dir/gpt2" "$run" \
    > "$out/gpt2.log" 2>&1 || status=1
  grep "PARITY\|worst rel" "$out/gpt2.log"
  echo "tf32 round status $status"
  ;;
*)
  echo "usage: tf32-round.sh prepare|run DIR" >&2
  exit 2
  ;;
esac
exit $status
