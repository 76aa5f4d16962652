#!/usr/bin/env bash
# nova-run with the learning rate 0.0006 replaced by 0.003: a training run
# that parity checks must reject.
args=()
for a in "$@"; do
  [ "$a" = 0.0006 ] && a=0.003
  args+=("$a")
done
exec nova-run "${args[@]}"
