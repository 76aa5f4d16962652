#!/usr/bin/env python3
"""Turns every kernel of a compiled step into a kernel-test case.

Reads the output of `nova-opt --nova-train-pipeline` (the outlined
`nova_tile.kernel` ops) and writes one function per kernel, a
`nova_tile.fusion` of the kernel's family around the kernel's own body, to
OUT.mlir, and to OUT.cases the kernel-tests.sh table rows for them: each
kernel of a real model runs on the GPU against the interpreter on fresh
random inputs, so a wrong kernel is named even when the whole step only
shows wrong gradients. Kernels of a family in --skip (default: optimizer,
whose inputs must be valid Adam state) and kernels whose operands hold
more than --max-elements elements in all (the interpreter's time) are
left out, and the rows say why in a comment.
"""
import argparse
import os
import re
import sys

HEADER = re.compile(r"^\s*nova_tile\.kernel @(\w+) (\w+) schedule <[^>]*> \{$")
BLOCK = re.compile(r"^\s*\^bb0\((.*)\):$")
YIELD = re.compile(r"^\s*nova_tile\.yield (.*) : (.*)$")
TENSOR = re.compile(r"tensor<([^>]*)>")


def elements(type_text):
    total = 0
    for shape in TENSOR.findall(type_text):
        n = 1
        for d in shape.split("x")[:-1]:
            n *= int(d)
        total += n
    return total


def split_types(text):
    """Splits 'tensor<..>, tensor<..>' at top-level commas."""
    out, depth, cur = [], 0, ""
    for ch in text:
        depth += ch == "<"
        depth -= ch == ">"
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def kernels(lines):
    i = 0
    while i < len(lines):
        m = HEADER.match(lines[i])
        if not m:
            i += 1
            continue
        name, family = m.groups()
        block = BLOCK.match(lines[i + 1])  # none when it takes no operands
        start = i + 2 if block else i + 1
        j = start
        while not YIELD.match(lines[j]):
            j += 1
        yield (name, family, block.group(1) if block else "",
               lines[start:j], YIELD.match(lines[j]))
        i = j + 1


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("step", help="nova-opt --nova-train-pipeline output")
    p.add_argument("out", help="writes OUT.mlir and OUT.cases")
    p.add_argument("--max-elements", type=int, default=1 << 22)
    p.add_argument("--skip", default="optimizer")
    p.add_argument("--norm-rtol", default="1e-2",
                   help="the cases' norm-wise bound (1e-2 bf16, 5e-4 TF32)")
    cfg = p.parse_args()
    skip = set(cfg.skip.split(",")) if cfg.skip else set()
    funcs, rows, seen = [], [], set()
    for name, family, args, body, yld in kernels(
            open(cfg.step).read().splitlines()):
        if name in seen:
            continue
        seen.add(name)
        params = split_types(args)
        arg_names = [a.split(":")[0].strip() for a in params]
        in_types = [a.split(":", 1)[1].strip() for a in params]
        out_types = split_types(yld.group(2))
        size = elements(args) + elements(yld.group(2))
        if family in skip or size > cfg.max_elements:
            rows.append("# %s (%s, %d elements): left out" % (name, family, size))
            continue
        n = len(out_types)
        res = "%r" if n == 1 else "%%r:%d" % n
        outs = out_types[0] if n == 1 else "(%s)" % ", ".join(out_types)
        rets = ", ".join("%r" if n == 1 else "%%r#%d" % k for k in range(n))
        fargs = ", ".join("%%in%d: %s" % (k, t) for k, t in enumerate(in_types))
        funcs.append("\n".join([
            "func.func @%s(%s) -> %s {" % (name, fargs, outs),
            "  %s = nova_tile.fusion %s (%s) : (%s) -> %s {" % (
                res, family, ", ".join("%%in%d" % k for k in range(len(in_types))),
                ", ".join(in_types), outs),
            *(["  ^bb0(%s):" % ", ".join("%s: %s" % (a, t) for a, t in
                                       zip(arg_names, in_types))]
              if params else []),
            *body,
            "    nova_tile.yield %s : %s" % yld.groups(),
            "  }",
            "  return %s : %s" % (rets, ", ".join(out_types)),
            "}"]))
        # Integer operands (indices, labels) travel with the case: the GPU
        # side cannot draw them within the bounds that the interpreter
        # reads from their uses.
        carry = "yes" if any(re.search(r"xi(32|64)>", t) for t in in_types) \
            else "no"
        rows.append("%s %s %s %s norm %s pack" % (
            name, os.path.abspath(cfg.out + ".mlir"), name, cfg.norm_rtol,
            carry))
    open(cfg.out + ".mlir", "w").write(
        "// Every kernel of %s, one function each (scripts/gpu/step-kernels.py).\n\n"
        % cfg.step + "\n\n".join(funcs) + "\n")
    open(cfg.out + ".cases", "w").write("\n".join(rows) + "\n")
    print("step-kernels: %d kernels, %d left out"
          % (sum(1 for r in rows if not r.startswith("#")),
             sum(1 for r in rows if r.startswith("#"))))


if __name__ == "__main__":
    main()
