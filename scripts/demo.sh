#!/usr/bin/env bash
# `make demo`: what the toolchain does today, on examples/mlp/mlp-loss.mlir.
# The training demo (a small GPT trained on the reference interpreter) replaces
# this once autodiff and the interpreter land.
set -euo pipefail
BUILD_DIR=${BUILD_DIR:-build}
BIN=$BUILD_DIR/bin
EXAMPLE=examples/mlp/mlp-loss.mlir
MLIR_OPT=/usr/lib/llvm-22/bin/mlir-opt

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

step "1. The loss of a two-layer perceptron in the nova dialect ($EXAMPLE)"
cat "$EXAMPLE"

step "2. nova-opt --nova-canonicalize --nova-explicit-broadcast"
"$BIN/nova-opt" "$EXAMPLE" --nova-canonicalize --nova-explicit-broadcast

step "3. The same passes inside Debian's own mlir-opt, loaded from nova-plugin.so"
"$MLIR_OPT" "$EXAMPLE" \
  --load-dialect-plugin="$BUILD_DIR/lib/nova-plugin.so" \
  --load-pass-plugin="$BUILD_DIR/lib/nova-plugin.so" \
  --pass-pipeline='builtin.module(nova-canonicalize,nova-explicit-broadcast)'

step "4. A malformed op is rejected with a located diagnostic"
bad=$(mktemp --suffix=.mlir)
trap 'rm -f "$bad"' EXIT
cat > "$bad" <<'MLIR'
func.func @bad(%a: tensor<4x8xf32>, %b: tensor<6x4xf32>) -> tensor<4x4xf32> {
  %0 = nova.matmul %a, %b : tensor<4x8xf32>, tensor<6x4xf32> -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}
MLIR
if "$BIN/nova-opt" "$bad"; then
  echo "demo: expected nova-opt to reject the malformed matmul" >&2
  exit 1
fi

step "Done. Generated dialect and pass reference: $BUILD_DIR/docs/"
ls "$BUILD_DIR"/docs/*/
