#!/usr/bin/env bash
# compute-sanitizer over the GPU tree as it is, and a determinism check, in
# two halves (the GPU machine has no MLIR):
#
#   sanitize-round.sh prepare DIR          (here) the steps and kernel cases:
#       DIR/m124/{bf16,tf32}.nvx    GPT-2 124M (B16 T1024, vocabulary 50257)
#       DIR/l2/{bf16,tf32}.nvx      2 layers at the 124M widths and
#                                   sequence, batch SANITIZE_L2_BATCH
#                                   (default 2): the same kernel families,
#                                   fewer launches and rows, which bounds
#                                   racecheck's cost
#       DIR/m124/bf16.det.nvx       the 124M bf16 step compiled with
#                                   --deterministic (no float atomics)
#       DIR/kernels/                every kernel case (kernel-tests.sh
#                                   prepare)
#       SANITIZE_SIZE=small builds the small GPT (2 layers, width 128, T128,
#       B4, vocabulary 50257) in place of both models and a few kernel
#       cases: a quick check that every check runs.
#   sanitize-round.sh run DIR NOVA_RUN     (on the GPU machine)
#       memcheck and initcheck on one training step of m124 bf16 and TF32;
#       racecheck and synccheck on one step of l2 bf16 and TF32 and on every
#       kernel case (on its inputs, the arena poisoned), whose outputs under
#       the tool must match a plain run's (the comparison with the
#       interpreter is kernel-tests.sh's);
#       determinism: the same steps run twice from the same state
#       (parameters, batches): the losses must be bitwise identical (the
#       first step's loss for the default steps, whose embedding gradient
#       sums with float atomics; every loss of three steps and the whole
#       state after them for the --deterministic step), and whether the
#       default steps' state after three steps repeats is reported.
#       Writes $OUT/sanitize.json (each check, its result and time) and
#       $OUT/sanitize.log. TOOL_TIMEOUT (seconds, default 240) bounds each
#       tool run; SANITIZE_CHECKS picks the checks (default all:
#       memcheck,initcheck,racecheck,synccheck,determinism; the kernel cases
#       run with racecheck and synccheck, 8 at a time; SANITIZE_CASES names
#       the cases to run, default all). Before the tools,
#       each model's step runs once plainly: a step that fails by itself
#       is told apart from one that fails under a tool. Exit 1 on any
#       error, hazard, failed step, difference or timeout.
set -uo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
mode=${1:-}
dir=${2:-}
usage() {
  echo "usage: sanitize-round.sh prepare DIR | run DIR NOVA_RUN" >&2
  exit 2
}
[ -n "$dir" ] || usage
bin() { if [ -n "${NOVA_BIN:-}" ]; then echo "$NOVA_BIN/$1"; else echo "$here/build/bin/$1"; fi; }
small=--layers=2\ --heads=4\ --embd=128\ --vocab=50257\ --seq=128\ --batch=4
shape() {
  if [ "${SANITIZE_SIZE:-full}" = small ]; then echo "$small"; return; fi
  case $1 in
  m124) echo "--layers=12 --heads=12 --embd=768 --vocab=50257 --seq=1024 --batch=16" ;;
  l2) echo "--layers=2 --heads=12 --embd=768 --vocab=50257 --seq=1024 --batch=${SANITIZE_L2_BATCH:-2}" ;;
  esac
}
# A few cases of each family for the quick check.
small_cases="pointwise layer_norm softmax bias_grad adamw ln_xent scatter_embed
attn_wgmma_qkv_d64 wgmma_bf16_1024 wgmma_tf32_1000 status_clean"

case $mode in
prepare)
  status=0
  for m in m124 l2; do
    mkdir -p "$dir/$m"
    # shellcheck disable=SC2046
    "$(bin nova-gpt2)" $(shape $m) -o "$dir/$m/model.mlir" || status=1
    for c in bf16 tf32; do
      "$(bin nova-compile)" "$dir/$m/model.mlir" -o "$dir/$m/$c.nvx" \
        --target=h200 --compute=$c || { echo "FAILED: $m $c"; status=1; }
    done
    # The parameters' names and shapes, for the inputs made there.
    python3 - "$dir/$m/model.mlir" "$dir/$m/params.json" "$(shape $m)" <<'EOF' || status=1
import json, re, sys
text = open(sys.argv[1]).read()
found = re.findall(r'tensor<([0-9x]+)xf32> \{nova\.name = "([^"]+)", '
                   r'nova\.param\}', text)
cfg = {k.lstrip("-"): int(v) for k, v in
       (a.split("=") for a in sys.argv[3].split())}
json.dump({"config": cfg, "params": [[n, [int(d) for d in s.split("x")]]
                                     for s, n in found]},
          open(sys.argv[2], "w"))
EOF
    rm -f "$dir/$m/model.mlir.keep"
  done
  "$(bin nova-compile)" "$dir/m124/model.mlir" -o "$dir/m124/bf16.det.nvx" \
    --target=h200 --compute=bf16 --deterministic || status=1
  rm -f "$dir"/m124/model.mlir "$dir"/l2/model.mlir
  cases=
  [ "${SANITIZE_SIZE:-full}" = small ] && cases=$small_cases
  # shellcheck disable=SC2086
  NOVA_BIN=$(dirname "$(bin nova-opt)") "$here/scripts/gpu/kernel-tests.sh" \
    prepare "$dir/kernels" 7 $cases > "$dir/kernels.prepare.log" 2>&1 ||
    { tail -5 "$dir/kernels.prepare.log"; status=1; }
  # The interpreter's references stay here: the tools need the kernels and
  # their inputs only.
  rm -f "$dir"/kernels/*.ref.safetensors
  echo "${SANITIZE_SIZE:-full}" > "$dir/size"
  du -sh "$dir"
  exit $status
  ;;
run) ;;
*) usage ;;
esac

run=${3:-}
[ -n "$run" ] || usage
run=$(cd "$(dirname "$run")" && pwd)/$(basename "$run")
out=${OUT:-/tmp/nova-sanitize}
mkdir -p "$out"
export ROOT=$here
cs=$(command -v compute-sanitizer ||
  ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
work=$(mktemp -d)
checks=$work/checks.tsv
: > "$checks"
status=0
log=$out/sanitize.log
: > "$log"
to=${TOOL_TIMEOUT:-240}
# $OUT/sanitize.json from the checks so far (written after each one, so a
# call stopped at its time limit still brings back what it checked).
write_summary() {
  python3 - "$checks" "$out/sanitize.json" "$status" "$dir" <<'EOF'
import json, subprocess, sys, time
checks = []
for line in open(sys.argv[1]):
    tool, what, result, seconds, ok = line.rstrip("\n").split("\t")
    checks.append({"tool": tool, "what": what, "result": result,
                   "seconds": int(seconds), "ok": ok == "1"})
try:
    dev = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version",
                          "--format=csv,noheader"], capture_output=True,
                         text=True).stdout.strip()
except OSError:
    dev = "unknown (no nvidia-smi)"
size = open(sys.argv[4] + "/size").read().strip()
json.dump({"date": time.strftime("%Y-%m-%d", time.gmtime()), "device": dev,
           "size": size, "status": int(sys.argv[3]),
           "command": "scripts/gpu/sanitize-round.sh run DIR NOVA_RUN" +
           (" (prepared with SANITIZE_SIZE=small)" if size == "small" else ""),
           "checks": checks}, open(sys.argv[2], "w"), indent=1)
EOF
}
# record TOOL WHAT RESULT SECONDS OK
record() {
  printf '%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "$5" >> "$checks"
  printf '%-10s %-36s %s (%s s)\n' "$1" "$2" "$3" "$4"
  [ "$5" = 1 ] || status=1
  write_summary
}
[ -n "$cs" ] || record compute-sanitizer "-" "not found" 0 0

# Parameters (N(0, 0.02), zero biases, unit LayerNorm scales) and three
# random batches for each model, made once on the CPU.
for m in m124 l2; do
  python3 - "$dir/$m/params.json" "$work/$m" <<'EOF' || status=1
import json, os, sys
sys.path.insert(0, os.path.join(os.environ.get("ROOT", "."), "bench", "gpu"))
import run as bench
spec = json.load(open(sys.argv[1]))
os.makedirs(sys.argv[2], exist_ok=True)
bench.initial_parameters(spec["params"], sys.argv[2] + "/init.safetensors",
                         device="cpu")
bench.random_batches(spec["config"], 3, sys.argv[2] + "/batches.safetensors")
EOF
done

# One training step of MODEL/COMPUTE under TOOL (no CUDA graph: each
# kernel launched where the tool sees it).
sanitize() {
  local tool=$1 m=$2 c=$3 t0 rc summary
  local nvx=$dir/$m/$c.nvx
  t0=$(date +%s)
  echo "+ $tool $m $c" >> "$log"
  timeout "$to" "$cs" --tool "$tool" --error-exitcode 3 --print-limit 10 \
    "$run" "$nvx" --train --steps 1 --no-graphs --params "$work/$m/init.safetensors" \
    --batches "$work/$m/batches.safetensors" --lr 6e-4 > "$work/out" 2>&1
  rc=$?
  cat "$work/out" >> "$log"
  summary=$(grep -E "ERROR SUMMARY|RACECHECK SUMMARY|SYNCCHECK SUMMARY" "$work/out" |
    sed 's/^========= //' | tr '\n' ' ')
  [ $rc = 124 ] && summary="timed out after $to s; $summary"
  # The step's own failure (a status error, say) beside the tool's summary.
  [ $rc != 0 ] && [ $rc != 124 ] &&
    summary="exit $rc: $(grep -m1 'error' "$work/out" | cut -c1-200); $summary"
  record "$tool" "$m $c step" "$summary" $(($(date +%s) - t0)) \
    "$([ $rc = 0 ] && echo 1 || echo 0)"
}

wanted=",${SANITIZE_CHECKS:-memcheck,initcheck,racecheck,synccheck,determinism},"
want() { [[ $wanted == *",$1,"* ]]; }
# The step by itself (no tool), the baseline of each model the tools run.
plain() {
  local m=$1 c=$2 t0 rc
  t0=$(date +%s)
  echo "+ plain $m $c" >> "$log"
  "$run" "$dir/$m/$c.nvx" --train --steps 1 --no-graphs \
    --params "$work/$m/init.safetensors" --batches "$work/$m/batches.safetensors" \
    --lr 6e-4 > "$work/out" 2>&1
  rc=$?
  cat "$work/out" >> "$log"
  record none "$m $c step" "exit $rc: $(grep -E '^step|error' "$work/out" | tail -1)" \
    $(($(date +%s) - t0)) "$([ $rc = 0 ] && echo 1 || echo 0)"
}
if [ -n "$cs" ]; then
  if want memcheck || want initcheck; then
    for c in bf16 tf32; do
      plain m124 $c
      for tool in memcheck initcheck; do want $tool && sanitize $tool m124 $c; done
    done
  fi
  if want racecheck || want synccheck; then
    for c in bf16 tf32; do
      plain l2 $c
      for tool in racecheck synccheck; do want $tool && sanitize $tool l2 $c; done
    done
  fi
  # Every kernel case under racecheck and synccheck, on its inputs with the
  # arena poisoned, as kernel-tests.sh runs it (its comparison with the
  # interpreter is kernel-tests.sh's own check; the references stay here).
  for tool in racecheck synccheck; do
    want $tool || continue
    t0=$(date +%s)
    echo "+ $tool kernel cases" >> "$log"
    mkdir -p "$work/cases-$tool"
    # One case: the tool's exit status and findings in cases-TOOL/NAME. The
    # case runs plainly first and its outputs are kept: the run under the
    # tool must reproduce them within the case's tolerance, so a kernel
    # whose result changes under the tool's scheduling names itself even
    # when the tool reports no hazard.
    export cs run to dir tool work
    one_case() {
      read -r name entry rtol atol carry seed expect <<< "$1"
      local o=$work/cases-$tool/$name
      given=(--random-inputs "$seed")
      [ "$carry" = yes ] && given=(--inputs "$dir/kernels/$name.in.safetensors")
      tolerance=(--rtol "$rtol" --atol "$atol")
      [ "$atol" = norm ] && tolerance=(--norm-rtol "$rtol")
      # A case that meets bad data on purpose exits 1 with a status error.
      ok_exit() { [ "$1" = 0 ] || { [ "$expect" = skip ] && [ "$1" = 1 ]; }; }
      "$run" "$dir/kernels/$name.nvx" --entry "$entry" --poison "${given[@]}" \
        -o "$o.plain.safetensors" > "$o.plain" 2>&1
      rc=$?
      if ! ok_exit $rc || [ ! -s "$o.plain.safetensors" ]; then
        echo "$name(plain exit $rc)" > "$o.bad"; return
      fi
      timeout "$to" "$cs" --tool "$tool" --error-exitcode 3 --print-limit 10 \
        "$run" "$dir/kernels/$name.nvx" --entry "$entry" --poison "${given[@]}" \
        --compare "$o.plain.safetensors" "${tolerance[@]}" > "$o.out" 2>&1
      rc=$?
      rm -f "$o.plain.safetensors"
      if grep -q MISMATCH "$o.out"; then
        echo "$name(differs under $tool: $(grep -m1 MISMATCH "$o.out" | tr -s ' ' | cut -c1-120))" > "$o.bad"
      elif ! ok_exit $rc; then
        echo "$name(exit $rc)" > "$o.bad"
      fi
    }
    export -f one_case
    # SANITIZE_CASES names the cases to run (default: every one).
    if [ -n "${SANITIZE_CASES:-}" ]; then
      : > "$work/cases.txt"
      for name in $SANITIZE_CASES; do
        grep "^$name " "$dir/kernels/cases.txt" >> "$work/cases.txt" ||
          record "$tool" "kernel case $name" "no such case" 0 0
      done
    else
      cp "$dir/kernels/cases.txt" "$work/cases.txt"
    fi
    tr '\n' '\0' < "$work/cases.txt" | xargs -0 -P 8 -I{} bash -c 'one_case "$1"' _ {}
    n=$(wc -l < "$work/cases.txt")
    bad=$(ls "$work/cases-$tool"/*.bad 2>/dev/null | wc -l)
    hazards=$(cat "$work/cases-$tool"/*.bad 2>/dev/null | tr '\n' ' ')
    for f in "$work/cases-$tool"/*.out; do
      [ -f "$f" ] || continue
      echo "++ $(basename "$f" .out)" >> "$log"
      # A case with findings keeps the tool's whole report (the hazards'
      # kernels, addresses and lines), the others their summary.
      if [ -f "${f%.out}.bad" ]; then
        head -400 "$f" >> "$log"
      else
        grep -E "SUMMARY|Error|Hazard|error" "$f" >> "$log"
      fi
    done
    record "$tool" "kernel cases" "$n cases, $bad with findings or errors${hazards:+: $hazards}" \
      $(($(date +%s) - t0)) "$([ "$bad" = 0 ] && [ "$n" -gt 0 ] && echo 1 || echo 0)"
  done
fi

# Determinism: the same steps twice from the same state.
twice() {
  local m=$1 c=$2 steps=$3 strict=$4 t0 a b
  t0=$(date +%s)
  for k in 1 2; do
    "$run" "$dir/$m/$c.nvx" --train --steps "$steps" \
      --params "$work/$m/init.safetensors" --batches "$work/$m/batches.safetensors" \
      --lr 6e-4 --loss-log "$work/loss$k" --save-state "$work/state$k" \
      >> "$log" 2>&1 || { record determinism "$m $c" "nova-run failed (see the log)" 0 0; return; }
  done
  a=$(head -1 "$work/loss1"); b=$(head -1 "$work/loss2")
  local same_losses=0 same_state=0
  cmp -s "$work/loss1" "$work/loss2" && same_losses=1
  cmp -s "$work/state1" "$work/state2" && same_state=1
  local what="losses of $steps steps $([ $same_losses = 1 ] && echo identical || echo DIFFER), state after them $([ $same_state = 1 ] && echo identical || echo differs); first loss $a / $b"
  local ok=0
  if [ "$strict" = 1 ]; then
    [ -s "$work/loss1" ] && [ $same_losses = 1 ] && [ $same_state = 1 ] && ok=1
  else
    [ -n "$a" ] && [ "$a" = "$b" ] && ok=1
  fi
  record determinism "$m $c$([ "$strict" = 1 ] && echo ' (--deterministic)')" "$what" \
    $(($(date +%s) - t0)) $ok
  echo "--- $m $c losses" >> "$log"
  paste "$work/loss1" "$work/loss2" >> "$log"
}
if want determinism; then
  twice m124 bf16 3 0
  twice m124 tf32 3 0
  twice m124 bf16.det 3 1
fi

write_summary
rm -rf "$work"
echo "sanitize round status $status"
exit $status
