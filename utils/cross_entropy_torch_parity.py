#!/usr/bin/env python3
"""Checks nova.cross_entropy (ignore_index included) against PyTorch.

For each case, a loss function `cross_entropy(logits {nova.param}, labels)`
goes through three pipelines:
  composite     nova-opt --nova-autodiff            (the op's own rule)
  decomposed    nova-opt --nova-decompose --nova-autodiff
  decomp-after  nova-opt --nova-autodiff --nova-decompose
and nova-run --backend=ref computes the loss and d loss / d logits, which are
compared with torch.nn.functional.cross_entropy and its autograd gradient
(normwise relative error below 1e-5; a NaN loss must be NaN on both sides).
Exit status 0 when every case matches. Needs torch and the Nova tools on PATH.
"""
import argparse
import math
import os
import subprocess
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gpt2_torch_parity import read_safetensors, write_safetensors  # noqa: E402

PIPELINES = {
    "composite": ["--nova-autodiff"],
    "decomposed": ["--nova-decompose", "--nova-autodiff"],
    "decomp-after": ["--nova-autodiff", "--nova-decompose"],
}


def module_text(logits_shape, label_dtype, ignore_index):
    def ty(shape, elem):
        return "tensor<%s>" % "x".join([str(d) for d in shape] + [elem])

    lt = ty(logits_shape, "f32")
    yt = ty(logits_shape[:-1], label_dtype)
    attr = "" if ignore_index == -100 else " ignore_index %d" % ignore_index
    return (
        "func.func @loss(%%x: %s {nova.param, nova.name = \"logits\"},\n"
        "                %%y: %s {nova.name = \"labels\"})\n"
        "    -> (tensor<f32> {nova.name = \"loss\"}) {\n"
        "  %%l = nova.cross_entropy %%x, %%y%s : %s, %s -> tensor<f32>\n"
        "  return %%l : tensor<f32>\n"
        "}\n" % (lt, yt, attr, lt, yt))


def torch_reference(logits, labels, ignore_index):
    x = logits.to(torch.float64).requires_grad_(True)
    classes = logits.shape[-1]
    loss = F.cross_entropy(x.reshape(-1, classes), labels.reshape(-1).long(),
                           ignore_index=ignore_index)
    loss.backward()
    return loss.detach(), x.grad


def rel(a, b):
    a, b = a.to(torch.float64), b.to(torch.float64)
    return ((a - b).norm() / max(b.norm().item(), a.norm().item(),
                                 1e-30)).item()


def same_loss(got, want):
    if math.isnan(want):
        return math.isnan(got), float("nan")
    err = abs(got - want) / max(abs(want), 1e-30)
    return err < 1e-5, err


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--workdir", required=True)
    args = p.parse_args()
    os.makedirs(args.workdir, exist_ok=True)
    g = torch.Generator().manual_seed(0)

    def randn(*shape):
        return torch.randn(*shape, generator=g) * 2.0

    # (name, logits, labels, ignore_index)
    cases = [
        ("no-ignored", randn(2, 5, 7),
         torch.randint(0, 7, (2, 5), generator=g), -100),
        ("default-ignore", randn(2, 5, 7),
         torch.tensor([[0, -100, 6, 3, -100], [1, 2, -100, 5, 4]]), -100),
        ("ignore-a-class-i32", randn(6, 4),
         torch.tensor([2, 0, 2, 3, 1, 2], dtype=torch.int32), 2),
        ("ignore-minus-1", randn(8, 3),
         torch.tensor([-1, 0, 1, 2, -1, 2, 0, -1]), -1),
        ("all-ignored", randn(3, 5), torch.tensor([-100, -100, -100]), -100),
    ]
    failures = 0
    for name, logits, labels, ignore in cases:
        want_loss, want_grad = torch_reference(logits, labels, ignore)
        label_dtype = "i32" if labels.dtype == torch.int32 else "i64"
        src = os.path.join(args.workdir, name + ".mlir")
        with open(src, "w") as f:
            f.write(module_text(list(logits.shape), label_dtype, ignore))
        inputs = os.path.join(args.workdir, name + ".in.safetensors")
        write_safetensors(inputs, {"logits": logits.float(), "labels": labels})
        for pipe, passes in PIPELINES.items():
            grad_mlir = os.path.join(args.workdir, "%s.%s.mlir" % (name, pipe))
            out = os.path.join(args.workdir,
                               "%s.%s.out.safetensors" % (name, pipe))
            subprocess.run(["nova-opt", src, *passes, "-o", grad_mlir],
                           check=True)
            subprocess.run(["nova-run", grad_mlir, "--entry", "loss",
                            "--inputs", inputs, "-o", out], check=True,
                           stdout=subprocess.DEVNULL)
            got = read_safetensors(out)
            loss_ok, loss_err = same_loss(got["loss"].item(),
                                          want_loss.item())
            grad = got["logits.grad"]
            grad_ok = bool(torch.isfinite(grad).all()) and \
                rel(grad, want_grad) < 1e-5
            ok = loss_ok and grad_ok
            failures += not ok
            print("%-4s %-18s %-12s loss %.6g (torch %.6g, rel %.2g), "
                  "gradient rel %.2g" % ("ok" if ok else "FAIL", name, pipe,
                                         got["loss"].item(), want_loss.item(),
                                         loss_err, rel(grad, want_grad)))
    print("CROSS-ENTROPY PARITY OK" if failures == 0 else
          "%d MISMATCHES" % failures)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
