#!/usr/bin/env bash
# GPT-2 training on the GPU against PyTorch, in two halves (the GPU machine
# has no MLIR):
#
#   gpt2-round.sh prepare DIR          (here) nova-gpt2 and the whole GPU
#       pipeline for each model and precision: DIR/<model>/model.mlir and
#       DIR/<model>/<compute>.nvx;
#   gpt2-round.sh run DIR NOVA_RUN     (on the GPU machine) trains each
#       .nvx for STEPS steps (default 20) and PyTorch on the same parameters
#       and batches (scripts/gpu/gpt2_parity.py): per-step losses and step-1
#       gradients, TF32 within 1e-3 and bf16 within 1e-2. Exit 1 if any fails.
#
# MODELS picks the models (default "small 124m"): small is 2 layers, 4 heads,
# width 128, vocabulary 50257 (odd, as GPT-2's), T 128, B 4; 124m is GPT-2
# 124M at B16 T1024.
set -uo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
bin() { if [ -n "${NOVA_BIN:-}" ]; then echo "$NOVA_BIN/$1"; else echo "$1"; fi; }
shape() {
  case $1 in
  small) echo "--layers 2 --heads 4 --embd 128 --vocab 50257 --seq 128 --batch 4" ;;
  124m) echo "--layers 12 --heads 12 --embd 768 --vocab 50257 --seq 1024 --batch 16" ;;
  *) echo "gpt2-round: unknown model '$1'" >&2; return 1 ;;
  esac
}
mode=${1:?usage: gpt2-round.sh prepare|run DIR [NOVA_RUN]}
dir=${2:?usage: gpt2-round.sh prepare|run DIR [NOVA_RUN]}
models=${MODELS:-small 124m}
status=0
case $mode in
prepare)
  for m in $models; do
    mkdir -p "$dir/$m"
    # shellcheck disable=SC2046
    "$(bin nova-gpt2)" $(shape "$m") -o "$dir/$m/model.mlir" || status=1
    for c in tf32 bf16; do
      start=$(date +%s.%N)
      if "$(bin nova-opt)" "$dir/$m/model.mlir" \
          --nova-train-pipeline="target=h200 compute=$c" --convert-tile-to-gpu \
          -o "$dir/$m/$c.gpu.mlir" &&
        "$(bin nova-translate)" --nova-to-executable "$dir/$m/$c.gpu.mlir" \
          -o "$dir/$m/$c.nvx"; then
        printf '%s %s: compiled in %.1f s\n' "$m" "$c" \
          "$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')"
      else
        echo "$m $c: FAILED to compile"
        status=1
      fi
      rm -f "$dir/$m/$c.gpu.mlir"
    done
  done
  ;;
run)
  nova_run=${3:?usage: gpt2-round.sh run DIR NOVA_RUN}
  for m in $models; do
    for c in tf32 bf16; do
      [ -f "$dir/$m/$c.nvx" ] || { echo "$m $c: no executable"; status=1; continue; }
      bound=$([ "$c" = bf16 ] && echo 1e-2 || echo 1e-3)
      echo "== $m $c"
      # shellcheck disable=SC2046
      python3 "$here/scripts/gpu/gpt2_parity.py" --nova-run "$nova_run" \
        --step "$dir/$m/$c.nvx" --model "$dir/$m/model.mlir" $(shape "$m") \
        --compute "$c" --steps "${STEPS:-20}" --loss-rtol "$bound" \
        --grad-rtol "$bound" --workdir "$(mktemp -d)" \
        --json "${OUT:-/tmp}/gpt2-$m-$c.json" || status=1
    done
  done
  ;;
*)
  echo "usage: gpt2-round.sh prepare|run DIR [NOVA_RUN]" >&2
  exit 2
  ;;
esac
exit $status
