#!/usr/bin/env bash
# The same training step compiled with one row kernel at several thread
# counts (the schedule's `threads` edited in the nova-train-pipeline output,
# then convert-tile-to-gpu and nova-translate here), profiled on the GPU
# machine, each variant's outputs compared norm-wise with the first one's:
#
#   row-threads-round.sh DIR KERNEL T1 T2 ...   (there) DIR holds nova-run
#       and g.<T>.nvx for each T; prints the step time and KERNEL's line of
#       each profile; logs under $OUT. Exit 1 if a run or a comparison fails.
set -uo pipefail
dir=${1:?usage: row-threads-round.sh DIR KERNEL T...}
kernel=${2:?usage: row-threads-round.sh DIR KERNEL T...}
shift 2
out=${OUT:-/tmp/nova-row-threads}
mkdir -p "$out"
cd "$dir" || exit 1
status=0
first=$1
./nova-run "g.$first.nvx" --entry train_step --random-inputs 1 \
  -o /tmp/row-threads-ref.safetensors > "$out/ref.log" 2>&1 || status=1
for t in "$@"; do
  echo "== $t threads"
  ./nova-run "g.$t.nvx" --entry train_step --random-inputs 1 --profile \
    --iterations 3 --warmup 1 > "$out/prof-$t.txt" 2>&1 || status=1
  grep "profile of entry\|$kernel" "$out/prof-$t.txt" | cut -c1-150
  [ "$t" = "$first" ] && continue
  ./nova-run "g.$t.nvx" --entry train_step --random-inputs 1 \
    --compare /tmp/row-threads-ref.safetensors --norm-rtol 1e-3 \
    > "$out/cmp-$t.txt" 2>&1 || { echo "FAILED: $t against $first"; status=1; }
done
exit $status
