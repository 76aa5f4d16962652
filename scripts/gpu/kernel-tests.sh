#!/usr/bin/env bash
# GPU kernel tests, in two halves because the GPU machine has no MLIR:
#
#   kernel-tests.sh prepare DIR [SEED]   (here) compile each case's kernels
#       through convert-tile-to-gpu to an sm_90a .nvx and compute the
#       reference outputs with the interpreter (nova-run --backend=ref);
#   kernel-tests.sh run DIR [NOVA_RUN]   (on the GPU machine) run each .nvx
#       on the same inputs with the arena poisoned (so an element no kernel
#       writes fails) and compare; exit 1 if any case fails.
#
# Inputs are random: the same seed gives both backends the same tensors,
# except where a case carries its inputs (the optimizer's, which the
# interpreter fits: step >= 1, second moments >= 0). A case built by
# "pack" goes through nova-configure, nova-outline-kernels and
# convert-tile-to-gpu to nova-gpu-pack (one arena slot per tensor); one
# built by "planned" goes the whole way from nova ops: nova-fuse,
# convert-nova-to-tile, nova-configure, nova-outline-kernels,
# nova-bufferize, nova-plan-memory, convert-tile-to-gpu, then
# nova-translate --nova-to-executable (the planned arena). One built by
# "skip" is planned too but meets bad data (labels, gather indices): its
# inputs and reference come from the file's @<entry>_unchanged (the state
# as it was) with random integers up to 1000, the interpreter must refuse
# them, and the GPU run must report the same label or index in an "out of
# range" status error, skip the optimizer's update (outputs equal to the
# inputs) and exit 1. One built by
# "guarded" is planned with --guard-bands=256: every buffer fenced by
# poisoned bytes that nova-run checks after the run; "planned-single" is
# "planned" with nova-fuse=single-gemms=true (the Hopper pipeline's GEMM
# kernels, padded copies of unaligned operands); "pack-det" is "pack"
# with convert-tile-to-gpu=deterministic=true, "pack-mma" with
# convert-tile-to-gpu=wgmma=false, "pack-fast" and "planned-fast" (the
# latter with single GEMMs) with convert-tile-to-gpu=fast-f32-math=true
# (the TF32 pipeline's exp and division). Tools come from PATH or
# NOVA_BIN. SEED "now" is the time, as when it is left out.
# An atol of "norm" compares float outputs norm-wise (nova-run
# --norm-rtol: ||got - want|| <= rtol ||want||), the bound for tensor-core
# products whose rounding differs from the interpreter's element by element.
# in_place_row's bound covers its bf16 output: its TF32 product rounds ties
# away from zero on the GPU, to even in the interpreter, and one element of
# the product one TF32 ulp off can move a bf16 result by one ulp (2.6e-4
# norm-wise on a 64 x 96 tensor, seen once); reading y for t, the fault the
# case guards, is off by order 1.
set -uo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
inputs=$here/test/GPU/Inputs
# name        file                    entry           rtol  atol  carry-inputs  build
cases="
pointwise      pointwise.mlir         pointwise       1e-6  1e-7  no   pack
pointwise_bf16 pointwise.mlir         pointwise_bf16  8e-3  0     no   pack
concat         pointwise.mlir         concat          0     0     no   pack
layer_norm     row-reduction.mlir     layer_norm      1e-5  1e-6  no   pack
softmax        row-reduction.mlir     softmax         1e-6  1e-9  no   pack
bias_grad      column-reduction.mlir  bias_grad       1e-6  1e-7  no   pack
adamw          optimizer.mlir         adamw           1e-6  1e-9  yes  pack
ln_xent        planned.mlir           ln_xent         3e-5  1e-6  no   planned
matmul_tf32    matmul.mlir            mm_tf32         1e-5  1e-4  no   pack
matmul_bf16    matmul.mlir            mm_bf16         8e-3  1e-3  no   pack
matmul_1000    matmul.mlir            mm_bf16_1000    8e-3  1e-3  no   pack
matmul_batched matmul.mlir            mm_batched_t    1e-5  1e-4  no   pack
matmul_gelu    matmul.mlir            mm_bias_gelu    8e-3  7e-2  no   pack
matmul_grouped matmul.mlir            mm_grouped      8e-3  1e-3  no   pack
attn_fwd_f32   attention.mlir         fwd_f32         5e-4  norm  no   pack
attn_fwd_bf16  attention.mlir         fwd_bf16_qkv    1e-2  norm  no   pack
attn_cross_bf16 attention.mlir        fwd_bf16_cross  1e-2  norm  no   pack
attn_bwd_f32   attention.mlir         bwd_f32         5e-4  norm  no   pack
attn_bwd_bf16  attention.mlir         bwd_bf16_qkv    1e-2  norm  no   pack
attn_gpt_small attention.mlir         gpt_small       1e-2  norm  no   pack
attn_bwd_d128  attention.mlir         bwd_bf16_padded 1e-2  norm  no   pack
attn_bwd_f32_cross attention.mlir     bwd_f32_cross   5e-4  norm  no   pack
attn_fwd_bf16_mma attention.mlir      fwd_bf16_qkv    1e-2  norm  no   pack-mma
attn_bwd_bf16_mma attention.mlir      bwd_bf16_qkv    1e-2  norm  no   pack-mma
attn_gpt2_124m attention-gpt2.mlir    gpt2_124m       1e-2  norm  no   pack
status_clean   status.mlir            step            1e-6  1e-9  yes  planned
status_labels  status.mlir            step            0     0     yes  skip
status_guarded status.mlir            step            1e-6  1e-9  yes  guarded
rowsum_ln      rowsum.mlir            ln_backward     8e-3  1e-6  no   pack
rowsum_xent    rowsum.mlir            xent            8e-3  1e-6  yes  pack
rowsum_long    rowsum.mlir            long_rows       1e-6  1e-6  no   pack
rowsum_many    rowsum.mlir            many_rows       1e-6  1e-6  no   pack
rowsum_chain   rowsum.mlir            chained         1e-6  1e-6  no   pack
gather_embed   gather.mlir            embed           0     0     yes  pack
gather_bf16    gather.mlir            rows_bf16       0     0     yes  pack
scatter_embed  scatter.mlir           embed_grad      1e-5  1e-6  yes  pack
scatter_pos    scatter.mlir           pos_grad        8e-3  0     yes  pack
scatter_hot    scatter.mlir           hot_rows        1e-4  5e-4  yes  pack
scatter_embed_det scatter.mlir        embed_grad      0     0     yes  pack-det
scatter_pos_det   scatter.mlir        pos_grad        0     0     yes  pack-det
scatter_hot_det   scatter.mlir        hot_rows        0     0     yes  pack-det
ln_xent_grads  planned.mlir           ln_xent_grads   1e-5  2e-5  no   planned
col_total      column-reduction.mlir  label_count     0     0     no   pack
col_batch      column-reduction.mlir  batch_sum       1e-6  1e-7  no   pack
mm_gpt_grouped matmul-gpt.mlir        grouped         1e-2  norm  no   pack
mm_gpt_dw      matmul-gpt.mlir        dw              1e-2  norm  no   pack
mm_gpt_dx      matmul-gpt.mlir        dx              1e-2  norm  no   pack
in_place_row   in-place.mlir          row             4e-3  norm  no   planned
matmul_f32     matmul.mlir            mm_f32          2e-6  norm  no   pack
attn_fwd_f32_exact attention.mlir    fwd_f32_exact   1e-5  norm  no   pack
attn_bwd_f32_exact attention.mlir    bwd_f32_exact   1e-5  norm  no   pack
status_gather  status.mlir            embed_step      0     0     yes  skip
wgmma_bf16_1024   matmul_wgmma.mlir   bf16_1024       8e-3  1e-3  no   pack
wgmma_bf16_ragged matmul_wgmma.mlir   bf16_ragged     8e-3  1e-3  no   pack
wgmma_fallback    matmul_wgmma.mlir   bf16_fallback   8e-3  1e-3  no   pack
wgmma_bf16_gelu   matmul_wgmma.mlir   bf16_bias_gelu  1.6e-2 7e-2  no   pack
wgmma_tf32_1000   matmul_wgmma.mlir   tf32_1000       1e-4  norm  no   pack
wgmma_tf32_gelu   matmul_wgmma.mlir   tf32_bias_gelu  1e-4  norm  no   pack
wgmma_planned     matmul_wgmma_planned.mlir linears 3e-3  norm  no   planned
wgmma_mn_xw       matmul_wgmma_mn.mlir xw             8e-3  1e-3  no   pack
wgmma_mn_dw       matmul_wgmma_mn.mlir dw             8e-3  1e-3  no   pack
wgmma_mn_ragged   matmul_wgmma_mn.mlir mk_ragged      8e-3  1e-3  no   pack
wgmma_mn_gelu     matmul_wgmma_mn.mlir xw_bias_gelu   1.6e-2 7e-2 no   pack
wgmma_split_dw    matmul_wgmma_split.mlir dw_split    1.6e-2 1e-2 no   pack
wgmma_split_twice matmul_wgmma_split_planned.mlir dw_twice 8e-3 1e-3 no planned
wgmma_staged_gelu matmul_wgmma_mn.mlir xw_gelu_staged 1.6e-2 7e-2 no   pack
attn_wgmma_qkv_d64   attn_wgmma.mlir  qkv_causal_d64  1e-2  norm  no   pack
attn_wgmma_cross_d128 attn_wgmma.mlir cross_d128      1e-2  norm  no   pack
attn_wgmma_d128_epi  attn_wgmma.mlir  causal_d128_epilogue 2e-2 norm no pack
col_gelu          column-reduction.mlir gelu_bias_grad 8e-3 1e-6 no   pack
col_narrow        column-reduction.mlir narrow_many_rows 1e-6 1e-7 no  pack
col_few_rows      column-reduction.mlir few_rows      1e-6  1e-7  no   pack
wgmma_exact_gelu  matmul_wgmma_mn.mlir xw_bias_gelu_exact 1.6e-2 7e-2 no pack
wgmma_copy_out    matmul_wgmma_mn.mlir x_wt_bias_odd_n 8e-3 1e-3 no  pack
pad_chain_bf16    matmul_padded.mlir  chain_bf16      2e-2  norm  no   planned
pad_chain_f32     matmul_padded.mlir  chain_f32       1e-5  norm  no   planned
pad_copy_odd      matmul_padded.mlir  copy_odd        1e-2  norm  no   planned-single
attn_wgmma_bwd_c64  attn_wgmma_bwd.mlir causal_d64  1e-2  norm  no   pack
attn_wgmma_bwd_f64  attn_wgmma_bwd.mlir full_d64    1e-2  norm  no   pack
attn_wgmma_bwd_c128 attn_wgmma_bwd.mlir causal_d128 1e-2  norm  no   pack
attn_wgmma_bwd_f128 attn_wgmma_bwd.mlir full_d128   1e-2  norm  no   pack
scatter_wide      scatter.mlir        wide_rows       1e-5  1e-6  yes  pack
scatter_wide_det  scatter.mlir        wide_rows       0     0     yes  pack-det
scatter_many      scatter.mlir        many_indices    1e-4  5e-4  yes  pack
scatter_many_det  scatter.mlir        many_indices    0     0     yes  pack-det
rowsum_ln768      rowsum.mlir         ln_backward_c768 8e-3 1e-5 no   pack
rowsum_ln768_f32  rowsum.mlir         ln_backward_c768_f32 1e-5 1e-6 no pack
attn_wgmma_bwd_long_c64 attn_wgmma_bwd.mlir causal_d64_long 1e-2 norm no pack
attn_wgmma_bwd_long_f64 attn_wgmma_bwd.mlir full_d64_long 1e-2 norm no pack
wgmma_tf32_round_gelu matmul_wgmma_tf32.mlir tf32_round_gelu 1e-4 norm no pack
wgmma_tf32_round  matmul_wgmma_tf32.mlir tf32_round_plain 1e-4  norm  no   pack
pad_copy_tf32     matmul_padded_tf32.mlir copy_odd_tf32 1e-4  norm  no   planned-single
pad_copy_tf32_tall matmul_padded_tf32.mlir tall_tf32   1e-4  norm  no   planned-single
rounded_tf32      matmul_rounded_tf32.mlir weight_tf32  1e-4  norm  no   planned-single
cls_1001_padded   classifier_padded.mlir classifier_1001  2e-2  norm  no  planned-single
cls_50257_padded  classifier_padded.mlir classifier_50257 2e-2  norm  no  planned-single
cls_1001_packed   classifier_padded.mlir classifier_packed 8e-3 1e-3  no  planned-single
softmax_50257     classifier_padded.mlir softmax_50257   1e-6  1e-9  no  planned-single
cls_1001_rows     classifier_padded.mlir classifier_1001_rows  2e-2 norm no planned-single
cls_50257_rows    classifier_padded.mlir classifier_50257_rows 2e-2 norm no planned-single
softmax_large     classifier_padded.mlir softmax_large   1e-5  1e-9  no  planned-single
softmax_staged    classifier_padded.mlir softmax_50257_staged 8e-3 norm no planned-single
cls_50257_large   classifier_padded.mlir classifier_50257_large 2e-2 norm no planned-single
cls_50257_f32     classifier_padded.mlir classifier_50257_f32 1e-3 norm no planned-single
cls_rows          classifier_rows.mlir classifier_rows  2e-2  norm  no   pack
cls_rows_1001     classifier_rows.mlir classifier_rows_1001 2e-2 norm no pack
cls_fixed         classifier_rows.mlir classifier_fixed 2e-2 norm no pack
cls_loss_fixed    classifier_rows.mlir classifier_loss_fixed 2e-2 norm no pack
ln_fwd768         row-reduction.mlir  layer_norm_c768 8e-3 1e-5  no   pack
ln_fwd768_f32     row-reduction.mlir  layer_norm_c768_f32 1e-5 1e-6 no pack
rowsum_ln768_first rowsum.mlir        ln_backward_first_c768 8e-3 1e-5 no pack
wgmma_dw_narrow   matmul_wgmma_step.mlir dw_narrow      8e-3  norm  no   pack
wgmma_dw_narrow_split matmul_wgmma_step.mlir dw_narrow_split 8e-3 norm no pack
wgmma_fc_gelu_dgelu matmul_wgmma_step.mlir fc_gelu_dgelu 1.6e-2 7e-2 no  pack
wgmma_narrow_odd  matmul_wgmma_step.mlir xwt_narrow_odd 8e-3  norm  no   pack
attn_wgmma_bwd_persist_c64  attn_wgmma_bwd.mlir persistent_c64  1e-2 norm no pack
attn_wgmma_bwd_persist_f128 attn_wgmma_bwd.mlir persistent_f128 1e-2 norm no pack
wgmma_tf32_mn_xw  matmul_wgmma_tf32_mn.mlir tf32_xw     1e-4  norm  no   pack
wgmma_tf32_mn_dw  matmul_wgmma_tf32_mn.mlir tf32_dw     1e-4  norm  no   pack
wgmma_tf32_mn_ragged matmul_wgmma_tf32_mn.mlir tf32_xw_ragged 1e-4 norm no pack
wgmma_tf32_mk_ragged matmul_wgmma_tf32_mn.mlir tf32_mk_ragged 1e-4 norm no pack
pad_copy_tf32_mn  matmul_padded_tf32.mlir nmajor_tf32   1e-4  norm  no   planned-single
wgmma_tf32_mn_narrow matmul_wgmma_tf32_mn.mlir tf32_dw_narrow 1e-4 norm no pack
wgmma_tf32_dw_192 matmul_wgmma_tf32_mn.mlir tf32_dw_192 1e-4 norm no pack
wgmma_tf32_dw_224 matmul_wgmma_tf32_mn.mlir tf32_dw_224 1e-4 norm no pack
ln_bwd_rowsums    ln_backward_planned.mlir ln_backward 1e-5 1e-6 no   planned
cls_50257_f32_fast classifier_padded.mlir classifier_50257_f32 1e-3 norm no planned-fast
softmax_50257_fast classifier_padded.mlir softmax_50257   4e-6  1e-9  no  planned-fast
softmax_f32_fast  row-reduction.mlir  softmax         4e-6  1e-9  no   pack-fast
ln_fwd768_f32_fast row-reduction.mlir layer_norm_c768_f32 1e-5 1e-6 no pack-fast
ln_bwd_rowsums_fast ln_backward_planned.mlir ln_backward 1e-5 1e-6 no planned-fast
wgmma_tf32_gelu_fast matmul_wgmma.mlir tf32_bias_gelu 1e-4  norm  no   pack-fast
"
# EXTRA_CASES names a file of more rows (scripts/gpu/step-kernels.py writes
# one per kernel of a compiled step); a file given by absolute path is read
# from there, not from test/GPU/Inputs.
[ -n "${EXTRA_CASES:-}" ] && cases="$cases$(grep -v '^#' "$EXTRA_CASES")"
bin() { if [ -n "${NOVA_BIN:-}" ]; then echo "$NOVA_BIN/$1"; else echo "$1"; fi; }
# Compiles one case (the fields of a row of $cases) and computes its
# reference; its row of cases.txt goes to DIR/NAME.case. Cases are
# independent, so prepare runs KERNEL_TESTS_JOBS of them at once.
prepare_case() {
  local name=$1 file=$2 entry=$3 rtol=$4 atol=$5 carry=$6 build=$7
  local gpu=$dir/$name.gpu.mlir src=$inputs/$file
  [[ $file == /* ]] && src=$file
  if [ "$build" = planned ] || [ "$build" = skip ] || [ "$build" = guarded ] ||
      [ "$build" = planned-single ] || [ "$build" = planned-fast ]; then
    guard=() fuse=--nova-fuse togpu=--convert-tile-to-gpu
    [ "$build" = guarded ] && guard=(--guard-bands=256)
    [ "$build" = planned-single ] && fuse=--nova-fuse=single-gemms=true
    if [ "$build" = planned-fast ]; then
      fuse=--nova-fuse=single-gemms=true
      togpu=--convert-tile-to-gpu=fast-f32-math=true
    fi
    "$(bin nova-opt)" "$src" "$fuse" --convert-nova-to-tile \
        --nova-configure=target=h200 --nova-outline-kernels \
        --nova-bufferize --nova-plan-memory "$togpu" -o "$gpu" &&
      "$(bin nova-translate)" --nova-to-executable "$gpu" "${guard[@]}" \
        -o "$dir/$name.nvx"
  else
    # pack-det: convert-tile-to-gpu without float atomics; pack-mma:
    # without the Hopper kernels (the mma.sync ones that other GPUs take).
    det=
    [ "$build" = pack-det ] && det="=deterministic=true"
    [ "$build" = pack-mma ] && det="=wgmma=false"
    [ "$build" = pack-fast ] && det="=fast-f32-math=true"
    "$(bin nova-opt)" "$src" --nova-configure=target=h200 \
        --nova-outline-kernels "--convert-tile-to-gpu$det" -o "$gpu" &&
      "$(bin nova-gpu-pack)" "$gpu" --entry "$entry" -o "$dir/$name.nvx"
  fi
  if [ $? -ne 0 ]; then
    echo "FAILED to compile $name"; return 1
  fi
  save=()
  [ "$carry" = yes ] && save=(--save-inputs "$dir/$name.in.safetensors")
  refEntry=$entry bound=() expect=
  [ "$build" = skip ] && refEntry=${entry}_unchanged bound=(--random-int-bound 1000)
  if ! "$(bin nova-run)" "$src" --backend=ref --entry "$refEntry" \
      --random-inputs "$seed" "${bound[@]}" "${save[@]}" \
      -o "$dir/$name.ref.safetensors"; then
    echo "FAILED: reference of $name"; return 1
  fi
  if [ "$build" = skip ]; then
    # The interpreter's verdict on the same inputs: the GPU must name
    # the same label or index.
    expect=$("$(bin nova-run)" "$src" --backend=ref --entry "$entry" \
        --inputs "$dir/$name.in.safetensors" 2>&1 |
      grep -oE 'label .* is not the ignore_index -?[0-9]+|index -?[0-9]+ at position [0-9]+ is out of range for axis 0 of size [0-9]+' |
      head -1)
    if [ -z "$expect" ]; then
      echo "FAILED: the interpreter accepts the data of $name"
      return 1
    fi
    echo "$expect" > "$dir/$name.expect"
    expect=skip
  fi
  rm -f "$gpu"
  echo "$name $entry $rtol $atol $carry $seed${expect:+ $expect}" > "$dir/$name.case"
}
mode=${1:?usage: kernel-tests.sh prepare|run DIR [SEED|NOVA_RUN] [CASE...]}
dir=${2:?usage: kernel-tests.sh prepare|run DIR [SEED|NOVA_RUN] [CASE...]}
shift 2
status=0
case $mode in
prepare)
  seed=${1:-now}
  [ "$seed" = now ] && seed=$(date +%s)
  shift $(( $# > 0 ? 1 : 0 ))
  only=" $* "
  mkdir -p "$dir"
  : > "$dir/cases.txt"
  echo "kernel tests: seed $seed"
  jobs=${KERNEL_TESTS_JOBS:-$(nproc)}
  names=()
  while read -r name file entry rtol atol carry build; do
    [ -z "$name" ] && continue
    [ "$only" != "  " ] && [[ "$only" != *" $name "* ]] && continue
    names+=("$name")
    rm -f "$dir/$name.case"
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
    prepare_case "$name" "$file" "$entry" "$rtol" "$atol" "$carry" "$build" \
      > "$dir/$name.log" 2>&1 &
  done <<< "$cases"
  wait
  # In the table's order, whatever order the jobs finished in.
  for name in "${names[@]}"; do
    cat "$dir/$name.log"
    if [ -f "$dir/$name.case" ]; then
      cat "$dir/$name.case" >> "$dir/cases.txt"
    else
      status=1
    fi
    rm -f "$dir/$name.log" "$dir/$name.case"
  done
  ;;
run)
  run=${1:-$(bin nova-run)}
  [ -s "$dir/cases.txt" ] || { echo "no cases in $dir (prepare first)"; exit 1; }
  while read -r name entry rtol atol carry seed expect; do
    given=(--random-inputs "$seed")
    [ "$carry" = yes ] && given=(--inputs "$dir/$name.in.safetensors")
    echo "+ $name"
    tolerance=(--rtol "$rtol" --atol "$atol")
    [ "$atol" = norm ] && tolerance=(--norm-rtol "$rtol")
    if [ "$expect" = skip ]; then
      # Exit 1 with the interpreter's label or index in a status error, the
      # update skipped, and every output equal to the reference (its input).
      "$run" "$dir/$name.nvx" --entry "$entry" --poison "${given[@]}" \
          --compare "$dir/$name.ref.safetensors" --rtol "$rtol" \
          --atol "$atol" > "$dir/$name.out" 2> "$dir/$name.err"
      rc=$?
      cat "$dir/$name.out" "$dir/$name.err"
      if [ $rc -ne 1 ] || grep -q MISMATCH "$dir/$name.out" ||
          ! grep -qF "$(cat "$dir/$name.expect")" "$dir/$name.err" ||
          ! grep -q "out of range ([a-z_]* in kernel @.*the optimizer skipped the update" "$dir/$name.err"; then
        echo "FAILED: $name (expected an out-of-range status error, the update skipped)"
        status=1
      fi
      continue
    fi
    if ! "$run" "$dir/$name.nvx" --entry "$entry" --poison "${given[@]}" \
        --compare "$dir/$name.ref.safetensors" "${tolerance[@]}"; then
      echo "FAILED: $name"; status=1
    fi
  done < "$dir/cases.txt"
  ;;
*)
  echo "kernel-tests.sh: unknown mode '$mode' (prepare or run)"; exit 2 ;;
esac
exit $status
