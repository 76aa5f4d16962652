#!/usr/bin/env python3
"""Randomized check of the passes from nova-fuse to nova_mem, with the
reference interpreter as the oracle.

For each of --count random GPTs (nova-gpt2 with random layer count, heads,
width, vocabulary, sequence length and batch; attention kept whole, written
from primitives by nova-decompose, or written from primitives and found
again by nova-collapse-attention; f32 or bf16 autocast, with or without
working copies), builds the training step, then runs nova-fuse,
convert-nova-to-tile, nova-bufferize and nova-plan-memory one at a time and
checks with nova-run that every entry (train_step and eval) gives the same
outputs after each pass as before it on fresh random inputs: after
nova-fuse within rtol 1e-5 of the step (its row-sum distribution sums
LayerNorm backward's terms in another order), after each later pass within
rtol 1e-6, atol 0 of the fused step. Prints one line per model and a
summary; exits 1 on any failure, keeping the model's files under --out.
"""

import argparse
import os
import random
import shutil
import subprocess
import sys

PASSES = [
    ("fuse", ["--nova-fuse"]),
    ("tile", ["--convert-nova-to-tile"]),
    ("buf", ["--nova-bufferize"]),
    ("plan", ["--nova-plan-memory"]),
]


def run(cmd, cwd):
    p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=600)
    return p.returncode, p.stdout + p.stderr


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", required=True, help="folder with nova-gpt2, nova-opt, nova-run")
    ap.add_argument("--out", required=True, help="scratch folder; failures are kept")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--count", type=int, default=4)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    tool = lambda name: os.path.join(args.bin, name)
    os.makedirs(args.out, exist_ok=True)
    failures = 0
    for n in range(args.count):
        heads = rng.choice([1, 2, 3])
        config = {
            "layers": rng.choice([1, 2]),
            "heads": heads,
            "embd": heads * rng.choice([2, 3, 4, 5]),
            "vocab": rng.choice([7, 16, 33]),
            "seq": rng.choice([1, 3, 8]),
            "batch": rng.choice([1, 2, 3]),
        }
        form = rng.choice(["composite", "primitives", "collapsed"])
        decompose = {
            "composite": ["--nova-decompose=keep=attention"],
            "primitives": ["--nova-decompose"],
            "collapsed": ["--nova-decompose", "--nova-collapse-attention",
                          "--nova-decompose=keep=attention"],
        }[form]
        compute = rng.choice(["f32", "bf16"])
        copies = rng.choice(["0", "1"]) if compute == "bf16" else "0"
        d = os.path.join(args.out, f"model-{n}")
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        what = (" ".join(f"--{k} {v}" for k, v in config.items()) +
                f" {form} compute={compute} working-copies={copies}")
        steps = [[tool("nova-gpt2")] + sum(([f"--{k}", str(v)] for k, v in config.items()), []) + ["-o", "gpt.mlir"],
                 [tool("nova-opt"), "gpt.mlir"] + decompose + ["--nova-autodiff",
                  "--nova-train-step", f"--nova-autocast=compute={compute} working-copies={copies}",
                  "--canonicalize", "--cse", "-o", "step.mlir"]]
        before = "step.mlir"
        for name, flags in PASSES:
            steps.append([tool("nova-opt"), before] + flags + ["-o", f"{name}.mlir"])
            before = f"{name}.mlir"
        problem = None
        for cmd in steps:
            rc, out = run(cmd, d)
            if rc:
                errors = [l for l in out.splitlines() if "error" in l] or [out.strip() or f"exit {rc}"]
                problem = f"{' '.join(os.path.basename(c) if c.startswith(args.bin) else c for c in cmd)}: {errors[0]}"
                break
        if not problem:
            for entry in ["train_step", "eval"]:
                # Inputs from the step on tensors: nova-run reads class
                # counts and table sizes from the ops that use them.
                rc, out = run([tool("nova-run"), "step.mlir", "--entry", entry, "--random-inputs",
                               str(rng.randint(0, 1000)), "--save-inputs", f"{entry}.in",
                               "-o", f"{entry}.out"], d)
                if rc:
                    problem = f"nova-run step.mlir --entry {entry}: {out.strip()}"
                    break
                for name, _ in PASSES:
                    fused = name == "fuse"
                    rc, out = run([tool("nova-run"), f"{name}.mlir", "--entry", entry, "--inputs",
                                   f"{entry}.in", "--compare",
                                   f"{entry}.out" if fused else f"{entry}.fused.out",
                                   "--rtol", "1e-5" if fused else "1e-6", "--atol", "0"] +
                                  (["-o", f"{entry}.fused.out"] if fused else []), d)
                    if rc:
                        mismatch = [l for l in out.splitlines() if "MISMATCH" in l or "error" in l]
                        problem = f"{entry} differs after {name}: {(mismatch or [out.strip()])[0]}"
                        break
                if problem:
                    break
        if problem:
            failures += 1
            print(f"model {n} ({what}): FAIL {problem}")
        else:
            print(f"model {n} ({what}): same outputs after {', '.join(p for p, _ in PASSES)}")
            shutil.rmtree(d)
    print(f"{args.count} models (seed {args.seed}): {args.count - failures} same, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
