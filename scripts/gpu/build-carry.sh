#!/usr/bin/env bash
# Builds what the GPU machine runs (it has no MLIR and no FlatBuffers):
# the runtime-only configuration (NOVA_ENABLE_COMPILER=OFF) and the test
# kernels, into gpu-carry/ (git-ignored; it travels to the GPU machine).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
carry=$root/gpu-carry
cmake -G Ninja -S "$root" -B "$carry/build" -DNOVA_ENABLE_COMPILER=OFF \
  -DMLIR_DIR=/nonexistent -DCMAKE_BUILD_TYPE=Release > /dev/null
ninja -C "$carry/build" nova-run nova-configure-explain NovaRuntimeTests NovaRuntimeGpuTests
mkdir -p "$carry/bin"
cp "$carry/build/bin/"{nova-run,nova-configure-explain,NovaRuntimeTests,NovaRuntimeGpuTests} "$carry/bin/"
"$root/utils/make-test-kernels.sh" "$carry/kernels"
rm -rf "$carry/build"
du -sh "$carry"
