#!/usr/bin/env bash
# Builds of the same GEMMs against cuBLAS, on the GPU machine, in one call:
#
#   gemm-variants.sh DIR V1 V2 ...
#
# Each DIR/V is a GEMM benchmark folder that bench-round.sh prepare made
# here with one build of the compiler (BENCH_PARTS=gemm, the same shapes
# and layout for every V). The builds run in turn, ROUNDS times (default
# 2: v1 v2 .. v1 v2 ..), so that a drift of the GPU's clocks reaches every
# build alike; each run times Nova and cuBLAS side by side (bench/gpu/run.py
# part gemm). Results under $OUT/V-rN/ (bench.json, bench.md) and a table
# of every run in $OUT/variants.md. NCU="V NAME" also profiles build V's
# GEMM NAME (a manifest name, e.g. tf32_3072x16384x768) with Nsight
# Compute (ncu-NAME.txt). Exit 1 if any run failed.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
dir=${1:?usage: gemm-variants.sh DIR V1 [V2 ...]}
shift
out=${OUT:-/tmp/nova-gemm-variants}
mkdir -p "$out"
status=0
for round in $(seq "${ROUNDS:-2}"); do
  for v in "$@"; do
    OUT=$out/$v-r$round BENCH_RUN_PARTS=gemm BENCH_BUDGET=${BENCH_BUDGET:-60} \
      "$root/scripts/gpu/bench-round.sh" run "$dir/$v" \
      > "$out/$v-r$round.log" 2>&1 || { echo "FAILED: $v round $round"; status=1; }
  done
done
{
  echo "| build | run | GEMM | Nova ms | cuBLAS ms | cuBLAS / Nova |"
  echo "| --- | --- | --- | --- | --- | --- |"
  for round in $(seq "${ROUNDS:-2}"); do
    for v in "$@"; do
      python3 - "$out/$v-r$round/bench.json" "$v" "$round" <<'EOF'
import json, sys
path, v, r = sys.argv[1:]
try:
    rows = json.load(open(path))["parts"]["gemm"]["rows"]
except Exception as e:
    print("| %s | %s | (no results: %s) | | | |" % (v, r, e))
    sys.exit(1)
for row in rows:
    print("| %s | %s | %s | %s | %s | %s |" % (
        v, r, row["name"], "%.4f" % row["nova_ms"] if "nova_ms" in row else "-",
        "%.4f" % row["cublas_ms"] if "cublas_ms" in row else "-",
        "%.3f" % row["ratio"] if "ratio" in row else "FAILED"))
    if "ratio" not in row:
        sys.exit(1)
EOF
      [ $? -eq 0 ] || status=1
    done
  done
} | tee "$out/variants.md"
if [ -n "${NCU:-}" ] && command -v ncu > /dev/null; then
  read -r nv nname <<< "$NCU"
  timeout "${NCU_TIMEOUT:-120}" ncu --clock-control none --launch-count 1 \
    --section SpeedOfLight --section MemoryWorkloadAnalysis \
    --section ComputeWorkloadAnalysis --section WarpStateStats \
    "$dir/$nv/bin/nova-run" "$dir/$nv/gemm/$nname.nvx" --random-inputs 1 \
    > "$out/ncu-$nname.txt" 2>&1 || echo "ncu: exit $? (see ncu-$nname.txt)"
fi
echo "gemm variants status $status"
exit $status
