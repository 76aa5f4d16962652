#!/usr/bin/env bash
# Installs the Debian packages Nova builds and tests with; does nothing when
# they are all present. Safe to run repeatedly (CI runs it on a clean machine).
set -euo pipefail

packages=(
  llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools
  cmake ninja-build libgtest-dev ccache nlohmann-json3-dev
  flatbuffers-compiler libflatbuffers-dev
  # zlib's and zstd's archives, for the static toolchain (NOVA_STATIC_TOOLCHAIN).
  zlib1g-dev libzstd-dev
  # PyTorch parity tests (test/Integration/torch-*); installs for /usr/bin/python3.
  python3-torch
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq "${missing[@]}"
