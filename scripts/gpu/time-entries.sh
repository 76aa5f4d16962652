#!/usr/bin/env bash
# Times kernel variants on the GPU machine: every DIR/<entry>.nvx (one
# entry each, named like the file) with nova-run --random-inputs 1
# --iterations 30 --warmup 5 (median of CUDA events), one line per entry.
# With NCU=1 and Nsight Compute present, also its speed-of-light and warp
# state sections for the first launch of each (where the time goes).
#   time-entries.sh DIR NOVA_RUN
set -uo pipefail
dir=${1:?usage: time-entries.sh DIR NOVA_RUN}
run=${2:?usage: time-entries.sh DIR NOVA_RUN}
status=0
for nvx in "$dir"/*.nvx; do
  entry=$(basename "$nvx" .nvx)
  line=$("$run" "$nvx" --entry "$entry" --random-inputs 1 --iterations 30 \
    --warmup 5 2>&1 | grep -i "median\|error" | head -1) || status=1
  echo "$entry: ${line:-no timing line}"
  [ -n "$line" ] || status=1
done
if [ "${NCU:-0}" = 1 ]; then
  ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null || true)
  if [ -z "$ncu" ]; then
    echo "time-entries: no Nsight Compute (ncu) here"
  else
    for nvx in "$dir"/*.nvx; do
      entry=$(basename "$nvx" .nvx)
      echo "== ncu $entry"
      "$ncu" --launch-count 1 --section SpeedOfLight --section WarpStateStats \
        --section LaunchStats "$run" "$nvx" --entry "$entry" \
        --random-inputs 1 --no-graphs 2>&1 | grep -v "^==PROF==" | tail -60
    done
  fi
fi
exit $status
