#!/usr/bin/env bash
# Builds what the GPU machine runs (it has no MLIR and no FlatBuffers):
# the runtime-only configuration (NOVA_ENABLE_COMPILER=OFF), the test
# kernels, and the GPU kernel tests (Nova's own kernels compiled here by
# the compiler in build/, with the interpreter's reference outputs; see
# scripts/gpu/kernel-tests.sh), into gpu-carry/ (git-ignored; it travels to
# the GPU machine). KERNEL_TEST_SEED fixes the inputs' seed (default: the
# time, so each round draws fresh inputs).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
carry=$root/gpu-carry
cmake -G Ninja -S "$root" -B "$carry/build" -DNOVA_ENABLE_COMPILER=OFF \
  -DMLIR_DIR=/nonexistent -DCMAKE_BUILD_TYPE=Release > /dev/null
ninja -j2 -C "$carry/build" nova-run nova-configure-explain NovaRuntimeTests NovaRuntimeGpuTests
mkdir -p "$carry/bin"
cp "$carry/build/bin/"{nova-run,nova-configure-explain,NovaRuntimeTests,NovaRuntimeGpuTests} "$carry/bin/"
"$root/utils/make-test-kernels.sh" "$carry/kernels"
ninja -j2 -C "$root/build" nova-opt nova-gpu-pack nova-translate nova-run \
  nova-compile nova-gpt2
rm -rf "$carry/kernel-tests"
NOVA_BIN=$root/build/bin "$root/scripts/gpu/kernel-tests.sh" prepare \
  "$carry/kernel-tests" ${KERNEL_TEST_SEED:-}
# GPT-2 steps for the training parity round (GPT2_MODELS, default
# "small 124m"; "none" skips them).
rm -rf "$carry/gpt2"
if [ "${GPT2_MODELS:-}" != none ]; then
  MODELS=${GPT2_MODELS:-small 124m} NOVA_BIN=$root/build/bin \
    "$root/scripts/gpu/gpt2-round.sh" prepare "$carry/gpt2"
fi
rm -rf "$carry/build"
du -sh "$carry"
