#!/usr/bin/env python3
"""Checks that passes keep a program's meaning, with the reference interpreter
as the oracle.

Runs `nova-opt` one stage at a time over a model (each stage is one nova-opt
argument, e.g. `--nova-decompose=keep=attention`) and, for every stage named
by --check (or all with --check all), executes the module before and after the
stage with `nova-run --backend=ref` on the same fresh random inputs and
compares every output the two share by name at --rtol/--atol. A stage may add
outputs (autodiff adds gradients) or replace some (the training step returns
updated parameters instead of gradients); the shared ones (the loss at least)
must agree, and a stage with no shared output is an error.

Inputs are drawn for the module after the stage (it may take more: the
optimizer state of nova-train-step) and the module before reads the ones it
names. The entry is --entry where the module has it, else @train_step.

Exit status 0 only if every checked stage agrees; each check prints one line:
  stage 3 --nova-autodiff: 1 shared output equal (max rel 2.1e-08)
"""
import argparse
import json
import math
import os
import re
import struct
import subprocess
import sys

DTYPES = {"F64": "d", "F32": "f", "I64": "q", "I32": "i", "BOOL": "?",
          "BF16": None, "F16": "e"}


def read_safetensors(path):
    """name -> flat list of Python numbers (bf16 widened to float)."""
    with open(path, "rb") as f:
        data = f.read()
    (header_len,) = struct.unpack_from("<Q", data, 0)
    header = json.loads(data[8:8 + header_len])
    base = 8 + header_len
    tensors = {}
    for name, desc in header.items():
        if name == "__metadata__":
            continue
        begin, end = desc["data_offsets"]
        raw = data[base + begin:base + end]
        kind = desc["dtype"]
        if kind not in DTYPES:
            raise SystemExit("error: %s: tensor '%s' has dtype %s this check "
                             "does not read" % (path, name, kind))
        if kind == "BF16":
            halves = struct.unpack("<%dH" % (len(raw) // 2), raw)
            values = [struct.unpack("<f", struct.pack("<I", h << 16))[0]
                      for h in halves]
        else:
            code = DTYPES[kind]
            values = list(struct.unpack(
                "<%d%s" % (len(raw) // struct.calcsize(code), code), raw))
        tensors[name] = (kind, desc["shape"], values)
    return tensors


def compare(name, want, got, rtol, atol):
    """(ok, max relative error, message)."""
    if want[1] != got[1]:
        return False, math.inf, "'%s' has shape %s after, %s before" % (
            name, got[1], want[1])
    worst = 0.0
    for k, (w, g) in enumerate(zip(want[2], got[2])):
        if isinstance(w, float) and math.isnan(w) and math.isnan(g):
            continue
        if isinstance(w, float) and (math.isinf(w) or math.isinf(g)):
            if w != g:
                return False, math.inf, "'%s'[%d]: %r before, %r after" % (
                    name, k, w, g)
            continue
        d = abs(g - w)
        if not d <= atol + rtol * abs(w):  # a NaN on one side fails
            return False, d / abs(w) if w else math.inf, (
                "'%s'[%d]: %r before, %r after" % (name, k, w, g))
        if w:
            worst = max(worst, d / abs(w))
    return True, worst, ""


def entry_of(module_path, wanted):
    text = open(module_path).read()
    if re.search(r"func\.func @%s\(" % re.escape(wanted), text):
        return wanted
    if "func.func @train_step(" in text:
        return "train_step"
    raise SystemExit("error: %s has neither @%s nor @train_step" %
                     (module_path, wanted))


def run(cmd):
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True)
    if proc.returncode != 0:
        sys.stderr.write("error: command failed (exit %d): %s\n%s%s" % (
            proc.returncode, " ".join(cmd), proc.stdout, proc.stderr))
        raise SystemExit(1)
    return proc.stdout


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("model", help="the .mlir module the stages start from")
    ap.add_argument("--stage", action="append", default=[], metavar="ARG",
                    help="one nova-opt argument per stage, in order")
    ap.add_argument("--check", default="all",
                    help="'all' or comma-separated 1-based stage numbers")
    ap.add_argument("--entry", default="gpt2_loss")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--rtol", type=float, default=1e-6)
    ap.add_argument("--atol", type=float, default=0.0)
    ap.add_argument("--nova-opt", default="nova-opt")
    ap.add_argument("--nova-run", default="nova-run")
    ap.add_argument("--workdir", required=True)
    args = ap.parse_args()
    if not args.stage:
        raise SystemExit("error: give at least one --stage")
    checked = (set(range(1, len(args.stage) + 1)) if args.check == "all" else
               {int(s) for s in args.check.split(",")})
    os.makedirs(args.workdir, exist_ok=True)

    before = args.model
    failures = 0
    for number, stage in enumerate(args.stage, start=1):
        after = os.path.join(args.workdir, "stage%d.mlir" % number)
        run([args.nova_opt, before, stage, "-o", after])
        if number in checked:
            prefix = os.path.join(args.workdir, "stage%d" % number)
            run([args.nova_run, after, "--entry", entry_of(after, args.entry),
                 "--random-inputs", str(args.seed), "--save-inputs",
                 prefix + ".in", "-o", prefix + ".after"])
            run([args.nova_run, before, "--entry",
                 entry_of(before, args.entry), "--inputs", prefix + ".in",
                 "-o", prefix + ".before"])
            want = read_safetensors(prefix + ".before")
            got = read_safetensors(prefix + ".after")
            shared = sorted(set(want) & set(got))
            worst, problems = 0.0, []
            for name in shared:
                ok, rel, message = compare(name, want[name], got[name],
                                           args.rtol, args.atol)
                worst = max(worst, rel)
                if not ok:
                    problems.append(message)
            if not shared:
                problems.append("no output is shared by name")
            if problems:
                failures += 1
                print("stage %d %s: MISMATCH %s" % (number, stage,
                                                    "; ".join(problems)))
            else:
                print("stage %d %s: %d shared output%s equal (max rel %.1e)" %
                      (number, stage, len(shared),
                       "" if len(shared) == 1 else "s", worst))
        before = after
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
