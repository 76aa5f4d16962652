#!/usr/bin/env bash
# `make demo`: a small GPT, written with Nova's C++ capture API, goes through
# decompose (keeping attention) -> autodiff -> train-step and trains on the
# reference interpreter
# on examples/gpt2/data/tiny-stories.txt. The loss must fall from about
# ln 256 = 5.5 to below 2.5; the script fails otherwise.
set -euo pipefail
BUILD_DIR=${BUILD_DIR:-build}
BIN=$BUILD_DIR/bin
STEPS=${STEPS:-250}
TEXT=examples/gpt2/data/tiny-stories.txt
OUT=$BUILD_DIR/demo
mkdir -p "$OUT"

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

CONFIG=(--layers 2 --heads 4 --embd 128 --vocab 256 --seq 64 --batch 8)
step "1. Capture: nova-gpt2 ${CONFIG[*]} (byte-level GPT, tied embeddings)"
"$BIN/nova-gpt2" "${CONFIG[@]}" -o "$OUT/gpt.mlir" \
  --init-params "$OUT/init.safetensors" --seed 0
echo "$OUT/gpt.mlir: $(grep -c ' = nova\.' "$OUT/gpt.mlir") nova ops in @gpt2_loss;" \
  "parameters in $OUT/init.safetensors"
grep -o '= nova\.[a-z_]*' "$OUT/gpt.mlir" | sed 's/= //' | sort | uniq -c | sort -rn | head -8

# Attention stays fused: autodiff gives it an attention_fwd/attention_bwd
# pair, so no T x T tensor is built.
step "2. nova-opt --nova-decompose=keep=attention --nova-autodiff --nova-train-step (AdamW)"
start=$(date +%s.%N)
"$BIN/nova-opt" "$OUT/gpt.mlir" --nova-decompose=keep=attention --nova-autodiff \
  --nova-train-step="beta2=0.99 weight-decay=0.0" -o "$OUT/train.mlir"
end=$(date +%s.%N)
printf '%s: @train_step (forward + backward + optimizer) and @eval (forward), %d ops (%.2f s)\n' \
  "$OUT/train.mlir" "$(grep -c ' = nova\.' "$OUT/train.mlir")" \
  "$(awk -v a="$start" -v b="$end" 'BEGIN { print b - a }')"
grep -m1 -o 'func.func @train_step([^)]\{0,160\}' "$OUT/train.mlir" | sed 's/$/ .../'

step "3. Train $STEPS steps on the reference interpreter ($TEXT)"
"$BIN/nova-run" "$OUT/train.mlir" --train --steps "$STEPS" --text "$TEXT" --lr 3e-3 \
  --params "$OUT/init.safetensors" --save "$OUT/trained.safetensors" \
  --log-every 1 | tee "$OUT/train.log"

final=$(sed -n 's/.*mean of the last [0-9]* steps \([0-9.]*\)).*/\1/p' "$OUT/train.log")
if [ -z "$final" ] || ! awk -v l="$final" 'BEGIN { exit !(l < 2.5) }'; then
  echo "demo: the loss did not fall below 2.5 (got '${final}')" >&2
  exit 1
fi
step "Done: loss fell from ~5.5 to $final (< 2.5); trained parameters in $OUT/trained.safetensors"
