#!/usr/bin/env python3
"""One trial of the memory-cap part of the benchmark round, in a process of
its own (so that the NVML process peak the round samples belongs to this
trial alone): whether a GPT of LAYERS layers trains under CAP bytes in
PyTorch (eager, activation checkpointing, whole-model torch.compile), with
torch.cuda.set_per_process_memory_fraction enforcing the cap.

  cap_trial.py --mode eager|checkpoint|compile|compile-max \\
      --config '{"heads": 12, ...}' --layers 18 --cap 12884901888 \\
      --json out.json

Writes fits, the allocator's peaks (allocated, reserved), the losses and
tokens/s to out.json; an out-of-memory is a result (exit 0), anything
else an error (exit 1).
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--mode", required=True)
    p.add_argument("--config", required=True)
    p.add_argument("--layers", type=int, required=True)
    p.add_argument("--cap", type=int, required=True)
    p.add_argument("--json", required=True)
    a = p.parse_args()
    import torch
    import gpt2_torch
    # Room for recompiles (a silent fall-back to eager would measure eager).
    for name in ("recompile_limit", "cache_size_limit"):
        if hasattr(torch._dynamo.config, name):
            setattr(torch._dynamo.config, name, 64)
    result = gpt2_torch.trial(json.loads(a.config), a.layers, "bf16", a.mode,
                              a.cap)
    print(json.dumps(result), flush=True)
    with open(a.json, "w") as f:
        json.dump(result, f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
