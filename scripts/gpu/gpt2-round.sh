#!/usr/bin/env bash
# GPT-2 training on the GPU against PyTorch, in two halves (the GPU machine
# has no MLIR):
#
#   gpt2-round.sh prepare DIR          (here) nova-gpt2 and nova-compile for
#       each model, precision and target: DIR/<model>/model.mlir and
#       DIR/<model>/<compute>.nvx for h200, DIR/<model>/<compute>.<target>.nvx
#       for the others of TARGETS (default h200; a100, rtx3060 and
#       rtx6000ada executables carry their PTX, which a Hopper driver
#       JIT-compiles: how their kernels are checked on the GPU machine), and
#       small/bf16.guarded.nvx;
#   gpt2-round.sh run DIR NOVA_RUN     (on the GPU machine) trains each
#       .nvx for STEPS steps (default 20) and the f64 reference rounded as
#       each precision rounds, on the same parameters and batches
#       (scripts/gpu/gpt2_parity.py): per-step losses and step-1
#       gradients, TF32 within 1e-3 and bf16 within 1e-2; then
#       compute-sanitizer memcheck and racecheck on one step of the small
#       model compiled with --guard-bands. Exit 1 if any fails.
#
# SANITIZE=0 skips compute-sanitizer; COMPUTES picks the precisions run
# (default "tf32 bf16"); TARGETS the targets (default h200). MODELS picks the models (default "small 124m"): small is 2 layers, 4 heads,
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
# The executable of precision $1 for target $2.
exe() { if [ "$2" = h200 ]; then echo "$1.nvx"; else echo "$1.$2.nvx"; fi; }
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
    for t in ${TARGETS:-h200}; do
      for c in tf32 bf16; do
        start=$(date +%s.%N)
        if "$(bin nova-compile)" "$dir/$m/model.mlir" -o "$dir/$m/$(exe "$c" "$t")" \
            --target="$t" --compute="$c"; then
          printf '%s %s %s: compiled in %.1f s\n' "$m" "$t" "$c" \
            "$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')"
        else
          echo "$m $t $c: FAILED to compile"
          status=1
        fi
      done
    done
    # The small model's bf16 step in guard-band mode, for compute-sanitizer.
    if [ "$m" = small ]; then
      "$(bin nova-compile)" "$dir/$m/model.mlir" -o "$dir/$m/bf16.guarded.nvx" \
        --target=h200 --compute=bf16 --guard-bands=256 || status=1
    fi
  done
  ;;
run)
  nova_run=${3:?usage: gpt2-round.sh run DIR NOVA_RUN}
  for m in $models; do
    for t in ${TARGETS:-h200}; do
      for c in ${COMPUTES:-tf32 bf16}; do
        step=$dir/$m/$(exe "$c" "$t")
        [ -f "$step" ] || { echo "$m $t $c: no executable"; status=1; continue; }
        # Each gradient within $bound of the f64 reference rounded as $c
        # rounds, all together within $bound, and at least $floor from exact
        # f64 (an f32 program would be within it).
        bound=$([ "$c" = bf16 ] && echo 1e-2 || echo 1e-3)
        floor=$([ "$c" = bf16 ] && echo 1e-3 || echo 3e-5)
        parts=$([ "$m" = 124m ] && echo 4 || echo 1)
        echo "== $m $t $c"
        tag=$m-$c$([ "$t" = h200 ] || echo "-$t")
        work=$dir/$m/$tag.work
        # shellcheck disable=SC2046
        python3 "$here/scripts/gpu/gpt2_parity.py" --nova-run "$nova_run" \
          --step "$step" --model "$dir/$m/model.mlir" $(shape "$m") \
          --compute "$c" --steps "${STEPS:-20}" --loss-rtol "$bound" \
          --grad-rtol "$bound" --cast-rtol "$bound" --cast-floor "$floor" \
          --reference-parts "$parts" --workdir "$work" \
          --json "${OUT:-/tmp}/gpt2-$tag.json" \
          $([ "$m" = small ] && echo --save-grads "${OUT:-/tmp}/gpt2-$tag.grads.safetensors") ||
          status=1
        # compute-sanitizer on one step of the small model in guard-band mode
        # (nova-run checks the guards after the step and fails on a touched one).
        cs=$(command -v compute-sanitizer ||
          ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
        if [ "$m$c$t" = smallbf16h200 ] && [ -n "$cs" ] && [ "${SANITIZE:-1}" = 1 ]; then
          for tool in memcheck racecheck; do
            echo "+ compute-sanitizer --tool $tool (small bf16 step, guard bands)"
            "$cs" --tool $tool --error-exitcode 3 "$nova_run" \
              "$dir/$m/bf16.guarded.nvx" --train --steps 1 --no-graphs \
              --batches "$work/batches.safetensors" \
              --params "$work/init.safetensors" || { echo "FAILED: $tool"; status=1; }
          done
        fi
      done
    done
  done
  ;;
*)
  echo "usage: gpt2-round.sh prepare|run DIR [NOVA_RUN]" >&2
  exit 2
  ;;
esac
exit $status
