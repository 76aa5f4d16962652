#!/usr/bin/env bash
# `make demo`: a small GPT, written with Nova's C++ capture API, trains on
# examples/gpt2/data/tiny-stories.txt. The loss must fall from about
# ln 256 = 5.5 to below 2.5; the script fails otherwise.
#
#   scripts/demo.sh               on the GPU when one is usable (nvidia-smi
#                                 sees one and nova-run's cuda backend opens
#                                 it): capture -> nova-compile -> .nvx ->
#                                 nova-run --train; else decompose ->
#                                 autodiff -> train-step on the reference
#                                 interpreter
#   scripts/demo.sh --prepare DIR capture and nova-compile into DIR (needs
#                                 the compiler, not a GPU)
#   scripts/demo.sh --run DIR     train DIR's executable on the GPU (needs
#                                 only a nova-run, e.g. the runtime-only
#                                 build, and the GPU)
#
# The two halves serve a GPU machine without MLIR: prepare here, carry DIR
# and a runtime-only nova-run there, run there. Environment: BUILD_DIR
# (default build), NOVA_RUN (default $BUILD_DIR/bin/nova-run), STEPS
# (default 250), DEMO_BACKEND=ref|cuda (instead of detecting the GPU),
# DEMO_TARGET (nova-compile --target, default h200).
set -euo pipefail
BUILD_DIR=${BUILD_DIR:-build}
BIN=$BUILD_DIR/bin
NOVA_RUN=${NOVA_RUN:-$BIN/nova-run}
STEPS=${STEPS:-250}
TARGET=${DEMO_TARGET:-h200}
TEXT=examples/gpt2/data/tiny-stories.txt
CONFIG=(--layers 2 --heads 4 --embd 128 --vocab 256 --seq 64 --batch 8)
LR=3e-3

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
usage() {
  echo "usage: scripts/demo.sh [--prepare DIR | --run DIR]" >&2
  exit 2
}

# A usable GPU: the driver sees one and nova-run's cuda backend opens it.
gpu_usable() {
  command -v nvidia-smi > /dev/null 2>&1 && nvidia-smi -L > /dev/null 2>&1 &&
    "$NOVA_RUN" --list-devices > /dev/null 2>&1
}

capture() {
  local out=$1
  step "1. Capture: nova-gpt2 ${CONFIG[*]} (byte-level GPT, tied embeddings)"
  "$BIN/nova-gpt2" "${CONFIG[@]}" -o "$out/gpt.mlir" \
    --init-params "$out/init.safetensors" --seed 0
  echo "$out/gpt.mlir: $(grep -c ' = nova\.' "$out/gpt.mlir") nova ops in @gpt2_loss;" \
    "parameters in $out/init.safetensors"
  grep -o '= nova\.[a-z_]*' "$out/gpt.mlir" | sed 's/= //' | sort | uniq -c |
    sort -rn | head -8
}

seconds_since() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'; }

# The GPU's half of the work, compiled: the train step (TF32 matrix
# products on tensor cores, f32 elsewhere) and what training reads.
prepare() {
  local out=$1
  mkdir -p "$out"
  capture "$out"
  step "2. nova-compile --target=$TARGET --compute=tf32: the loss -> training step (AdamW) -> GPU kernels -> $out/train.nvx"
  local start
  start=$(date +%s.%N)
  "$BIN/nova-compile" "$out/gpt.mlir" -o "$out/train.nvx" --target="$TARGET" \
    --compute=tf32
  echo "$out/train.nvx: $(stat -c %s "$out/train.nvx") bytes, compiled in $(seconds_since "$start") s"
  cp "$TEXT" "$out/text.txt"
}

# The loss of the last steps (nova-run --train's summary) must be below 2.5.
check_loss() {
  local log=$1 final
  final=$(sed -n 's/.*mean of the last [0-9]* steps \([0-9.]*\)).*/\1/p' "$log")
  if [ -z "$final" ] || ! awk -v l="$final" 'BEGIN { exit !(l < 2.5) }'; then
    echo "demo: the loss did not fall below 2.5 (got '${final}')" >&2
    exit 1
  fi
  step "Done: loss fell from ~5.5 to $final (< 2.5); trained parameters in $2"
}

run_gpu() {
  local out=$1
  for f in train.nvx init.safetensors text.txt; do
    [ -f "$out/$f" ] || { echo "demo: no $out/$f (run scripts/demo.sh --prepare $out first)" >&2; exit 1; }
  done
  if ! gpu_usable; then
    echo "demo: no usable CUDA device (nvidia-smi -L and $NOVA_RUN --list-devices):" >&2
    "$NOVA_RUN" --list-devices >&2 || true
    exit 1
  fi
  "$NOVA_RUN" --list-devices
  step "3. Train $STEPS steps on the GPU: nova-run $out/train.nvx --train"
  "$NOVA_RUN" "$out/train.nvx" --train --steps "$STEPS" --text "$out/text.txt" \
    --lr "$LR" --params "$out/init.safetensors" \
    --save "$out/trained.safetensors" --log-every 1 | tee "$out/train.log"
  check_loss "$out/train.log" "$out/trained.safetensors"
}

run_interpreter() {
  local out=$1
  mkdir -p "$out"
  capture "$out"
  # Attention stays fused: autodiff gives it an attention_fwd/attention_bwd
  # pair, so no T x T tensor is built.
  step "2. nova-opt --nova-decompose=keep=attention --nova-autodiff --nova-train-step (AdamW)"
  local start
  start=$(date +%s.%N)
  "$BIN/nova-opt" "$out/gpt.mlir" --nova-decompose=keep=attention --nova-autodiff \
    --nova-train-step="beta2=0.99 weight-decay=0.0" -o "$out/train.mlir"
  printf '%s: @train_step (forward + backward + optimizer) and @eval (forward), %d ops (%s s)\n' \
    "$out/train.mlir" "$(grep -c ' = nova\.' "$out/train.mlir")" "$(seconds_since "$start")"
  grep -m1 -o 'func.func @train_step([^)]\{0,160\}' "$out/train.mlir" | sed 's/$/ .../'

  step "3. Train $STEPS steps on the reference interpreter ($TEXT)"
  "$BIN/nova-run" "$out/train.mlir" --train --steps "$STEPS" --text "$TEXT" \
    --lr "$LR" --params "$out/init.safetensors" \
    --save "$out/trained.safetensors" --log-every 1 | tee "$out/train.log"
  check_loss "$out/train.log" "$out/trained.safetensors"
}

case ${1:-} in
--prepare)
  [ $# -eq 2 ] || usage
  prepare "$2"
  echo "demo: train it on the GPU machine with: NOVA_RUN=<nova-run> scripts/demo.sh --run $2"
  ;;
--run)
  [ $# -eq 2 ] || usage
  run_gpu "$2"
  ;;
"")
  OUT=$BUILD_DIR/demo
  backend=${DEMO_BACKEND:-}
  if [ -z "$backend" ]; then
    if gpu_usable; then backend=cuda; else backend=ref; fi
  fi
  case $backend in
  cuda)
    echo "demo: training on the GPU ($("$NOVA_RUN" --list-devices | head -1))"
    prepare "$OUT/gpu"
    run_gpu "$OUT/gpu"
    ;;
  ref)
    echo "demo: no usable CUDA device; training on the reference interpreter"
    run_interpreter "$OUT"
    ;;
  *)
    echo "demo: DEMO_BACKEND must be ref or cuda, got '$backend'" >&2
    exit 2
    ;;
  esac
  ;;
*)
  usage
  ;;
esac
