#!/usr/bin/env python3
"""Bounded random-mutation fuzzing of a Nova tool on .mlir inputs.

Each mutant of the seed files (numbers, element types, keywords and tokens
changed, lines dropped or repeated) is fed to the tool; any exit other than
0 (accepted) or 1 (rejected with a diagnostic) -- a signal, an abort, a
hang -- is a failure, reported with the mutant saved next to --out.
"""
import argparse
import os
import random
import re
import subprocess
import sys

# Not `index`: `array<index: ...>` crashes MLIR 22's own attribute parser
# (reproducible with plain mlir-opt), which is not Nova's to fix.
TYPES = ["f32", "bf16", "f16", "i32", "i64", "i1", "f64", "ui8"]
NUMBERS = ["0", "1", "-1", "2", "3", "7", "64", "1024", "-0.0", "1.0e+38", "4294967296"]
KEYWORDS = ["dims", "axis", "dim", "starts", "limits", "strides", "keep_dims", "causal",
            "transpose_lhs", "transpose_rhs", "scale", "eps", "lr", "tanh", "erf", "sum", "max"]


def split_chunks(text):
    return [c for c in re.split(r"^// -----\s*$", text, flags=re.M) if "func.func" in c]


def mutate(chunk, rng):
    lines = chunk.splitlines()
    for _ in range(rng.randint(1, 3)):
        kind = rng.randrange(6)
        i = rng.randrange(len(lines))
        line = lines[i]
        if kind == 0:  # change a number
            nums = list(re.finditer(r"-?\d+(\.\d+)?(e[+-]?\d+)?", line))
            if nums:
                m = rng.choice(nums)
                line = line[: m.start()] + rng.choice(NUMBERS) + line[m.end():]
        elif kind == 1:  # change an element type
            line = re.sub(r"\b(f32|bf16|f16|i32|i64|i1)\b", lambda m: rng.choice(TYPES), line, count=1)
        elif kind == 2:  # change a keyword
            words = [w for w in KEYWORDS if w in line]
            if words:
                line = line.replace(rng.choice(words), rng.choice(KEYWORDS), 1)
        elif kind == 3:  # drop a token
            toks = line.split(" ")
            if len(toks) > 1:
                del toks[rng.randrange(len(toks))]
                line = " ".join(toks)
        elif kind == 4:  # drop the line
            line = ""
        else:  # repeat the line
            line = line + "\n" + line
        lines[i] = line
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--tool", required=True)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=200)
    ap.add_argument("--out", required=True, help="folder for the mutant being run")
    ap.add_argument("--tool-args", default="", help="extra arguments for the tool")
    ap.add_argument("inputs", nargs="+")
    args = ap.parse_args()

    rng = random.Random(args.seed)
    chunks = []
    for path in args.inputs:
        with open(path) as f:
            chunks += split_chunks(f.read())
    os.makedirs(args.out, exist_ok=True)
    mutant_path = os.path.join(args.out, "mutant.mlir")
    outcomes = {0: 0, 1: 0}
    for n in range(args.count):
        text = mutate(rng.choice(chunks), rng)
        with open(mutant_path, "w") as f:
            f.write(text)
        cmd = [args.tool, mutant_path] + args.tool_args.split()
        try:
            rc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=30).returncode
        except subprocess.TimeoutExpired:
            rc = "timeout"
        if rc not in (0, 1):
            kept = os.path.join(args.out, f"crash-{n}.mlir")
            os.replace(mutant_path, kept)
            print(f"mutant {n}: exit {rc} from {' '.join(cmd)}; input kept in {kept}")
            return 1
        outcomes[rc] += 1
    print(f"{args.count} mutants: {outcomes[0]} accepted, {outcomes[1]} rejected, 0 crashed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
