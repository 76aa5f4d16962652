#!/usr/bin/env bash
# utils/make-test-kernels.sh OUTDIR
# Compiles test/Runtime/Inputs/kernels.mlir with Debian's upstream mlir-opt to PTX
# for sm_90a (OUTDIR/kernels.ptx) and, where the CUDA toolkit's ptxas exists,
# to a cubin (OUTDIR/kernels.sm_90a.cubin). No Nova code is involved: the
# runtime is tested on kernels it did not generate.
set -euo pipefail
out=${1:?usage: make-test-kernels.sh OUTDIR}
here=$(cd "$(dirname "$0")/.." && pwd)
mlir_opt=${MLIR_OPT:-/usr/lib/llvm-22/bin/mlir-opt}
mkdir -p "$out"
"$mlir_opt" "$here/test/Runtime/Inputs/kernels.mlir" --pass-pipeline='builtin.module(gpu.module(convert-scf-to-cf,convert-gpu-to-nvvm{use-bare-ptr-memref-call-conv=1},canonicalize),nvvm-attach-target{chip=sm_90a},gpu-module-to-binary{format=isa})' \
  -o "$out/kernels.isa.mlir"
# The PTX is the gpu.object's `assembly` string, with MLIR's \XX escapes.
python3 - "$out/kernels.isa.mlir" "$out/kernels.ptx" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
m = re.search(r'assembly = "((?:[^"\\]|\\.)*)"', text, re.S)
if not m:
    sys.exit("make-test-kernels: no PTX (assembly = ...) in " + sys.argv[1])
raw = re.sub(r'\\([0-9A-Fa-f]{2})', lambda g: chr(int(g.group(1), 16)), m.group(1))
raw = raw.replace('\\"', '"').replace('\\\\', '\\')
open(sys.argv[2], "w").write(raw)
PY
ptxas=$(command -v ptxas || echo /usr/local/cuda/bin/ptxas)
if [ -x "$ptxas" ]; then
  "$ptxas" -arch=sm_90a "$out/kernels.ptx" -o "$out/kernels.sm_90a.cubin"
  echo "make-test-kernels: $out/kernels.ptx and $out/kernels.sm_90a.cubin"
else
  rm -f "$out/kernels.sm_90a.cubin"
  echo "make-test-kernels: $out/kernels.ptx (no ptxas: no cubin; the driver JIT-compiles the PTX)"
fi
