#!/usr/bin/env python3
"""GPT-2 training with Nova against a reference, same parameters, same batches.

Nova's compiled training step (a .nvx on the cuda backend, or a planned
.mlir on the reference interpreter) and the PyTorch model of
utils/gpt2_torch_parity.py (the same architecture, computed in f64 and
rounded by explicit casts where --compute rounds, so the verdict depends on
neither the CPU nor the GPU that computes it) start from the same
initial parameters (made here from a seed: N(0, 0.02) weights, zero biases,
unit LayerNorm scales, named as nova-gpt2 names them) and train on the same
random batches (nova-run --train --batches) with AdamW at Nova's
nova-train-step defaults (betas 0.9/0.999, eps 1e-8, weight decay 0.01) and
a constant learning rate. Compared:
  - the loss of every step (normwise relative error < --loss-rtol);
  - the gradient of every parameter at step 1, which Nova's first Adam
    moment holds exactly (m1 = (1 - beta1) g; nova-run --save-state)
    (relative error < --grad-rtol per parameter; under bf16 and tf32 all
    of them together within --cast-rtol, the exact f64 model at least
    --cast-floor away: judge_gradients).
Exit status 0 when everything is within bounds. PyTorch's own TF32 or bf16
kernels' distances are printed, never judged.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import time

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..",
                                "utils"))
from gpt2_torch_parity import (Numerics, add_cast_bounds,  # noqa: E402
                               gpt2_loss, judge_gradients, read_safetensors,
                               write_safetensors)

BETA1, BETA2, EPS, WEIGHT_DECAY = 0.9, 0.999, 1e-8, 0.01


def parameters_of(model):
    """(name, shape) of every {nova.param} argument of nova-gpt2's loss."""
    text = open(model).read()
    found = re.findall(r'tensor<([0-9x]+)xf32> \{nova\.name = "([^"]+)", '
                       r'nova\.param\}', text)
    if not found:
        sys.exit("gpt2_parity: no {nova.param} arguments in " + model)
    return [(name, [int(d) for d in dims.split("x")]) for dims, name in found]


MASK32 = 0xFFFFFFFF


def hash32(x):
    """A 32-bit integer hash (lowbias32) on int64 tensors: the same values
    on every torch version and device, unlike torch's generators (1.13 and
    2.11 draw different numbers from one seed), so a run here and a run on
    the GPU machine start from bit-identical parameters and batches."""
    x = x & MASK32
    x = x ^ (x >> 16)
    x = (x * 0x7FEB352D) & MASK32
    x = x ^ (x >> 15)
    x = (x * 0x846CA68B) & MASK32
    return x ^ (x >> 16)


def counter_uniform(n, seed, stream):
    """n uniforms in (0, 1) from the counter (seed, stream, index)."""
    i = torch.arange(n, dtype=torch.int64)
    key = hash32(torch.tensor(seed * 0x9E3779B1 + stream * 0x85EBCA77))
    return (hash32(i ^ key).double() + 0.5) / 2.0 ** 32


def counter_normal(shape, seed, stream):
    n = 1
    for d in shape:
        n *= d
    u1 = counter_uniform(n, seed, 2 * stream)
    u2 = counter_uniform(n, seed, 2 * stream + 1)
    z = (-2.0 * u1.log()).sqrt() * torch.cos(2.0 * 3.141592653589793 * u2)
    return z.float().reshape(shape)


def initial(params, seed):
    out = {}
    for stream, (name, shape) in enumerate(params):
        if re.search(r"ln_[12f]\.weight$", name):
            out[name] = torch.ones(shape)
        elif name.endswith(".bias"):
            out[name] = torch.zeros(shape)
        else:
            out[name] = counter_normal(shape, seed, stream) * 0.02
    return out


def batches_of(cfg):
    n = cfg.steps * cfg.batch * cfg.seq
    shape = (cfg.steps, cfg.batch, cfg.seq)
    return {name: (hash32(torch.arange(n, dtype=torch.int64) ^ hash32(
        torch.tensor((cfg.seed + 1) * 0x27D4EB2F + k))) % cfg.vocab)
        .to(torch.int32).reshape(shape)
        for k, name in enumerate(("tokens", "targets"))}


def nova_run(cfg, *args):
    cmd = [cfg.nova_run, cfg.step, "--train", "--lr", str(cfg.lr), *args]
    print("+", " ".join(cmd), flush=True)
    done = subprocess.run(cmd, capture_output=True, text=True)
    sys.stdout.write(done.stdout)
    if done.returncode != 0:
        sys.stderr.write(done.stderr)
        sys.exit("gpt2_parity: nova-run failed (exit %d)" % done.returncode)
    return done.stdout


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--nova-run", required=True)
    p.add_argument("--step", required=True, help="step.nvx or planned .mlir")
    p.add_argument("--model", required=True, help="nova-gpt2's model.mlir")
    p.add_argument("--workdir", required=True)
    for name in ("layers", "heads", "embd", "vocab", "seq", "batch"):
        p.add_argument("--" + name, type=int, required=True)
    p.add_argument("--compute", choices=["f32", "tf32", "bf16"],
                   required=True)
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--lr", type=float, default=6e-4)
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--loss-rtol", type=float, required=True)
    p.add_argument("--grad-rtol", type=float, required=True)
    add_cast_bounds(p)
    p.add_argument("--reference-parts", type=int, default=1,
                   help="compute the reference's gradients over this many "
                   "slices of each batch (a divisor of --batch; bounds its "
                   "memory)")
    p.add_argument("--device", default="cuda" if torch.cuda.is_available()
                   else "cpu")
    p.add_argument("--json", help="write the figures here")
    p.add_argument("--save-grads", help="write Nova's step-1 gradients of "
                   "parameters up to 1M elements here (to compare them with "
                   "the interpreter's elsewhere)")
    cfg = p.parse_args()
    if cfg.reference_parts < 1 or cfg.batch % cfg.reference_parts:
        p.error("--reference-parts must divide --batch (%d)" % cfg.batch)
    os.makedirs(cfg.workdir, exist_ok=True)
    w = lambda name: os.path.join(cfg.workdir, name)
    # PyTorch's own TF32 kernels (printed beside the reference, never
    # judged); the f64 reference never takes TF32.
    torch.backends.cuda.matmul.allow_tf32 = cfg.compute == "tf32"
    torch.backends.cudnn.allow_tf32 = cfg.compute == "tf32"

    params = parameters_of(cfg.model)
    init = initial(params, cfg.seed)
    write_safetensors(w("init.safetensors"), init)
    batches = batches_of(cfg)
    write_safetensors(w("batches.safetensors"), batches)
    common = ["--batches", w("batches.safetensors"), "--params",
              w("init.safetensors")]

    # Nova: one step for the gradients (the first moment), then the run.
    nova_run(cfg, *common, "--steps", "1", "--save-state", w("s1.safetensors"))
    log = nova_run(cfg, *common, "--steps", str(cfg.steps), "--loss-log",
                   w("loss.txt"), "--log-every", str(max(1, cfg.steps // 4)))
    nova_losses = [float(line.split()[1]) for line in open(w("loss.txt"))]
    state = read_safetensors(w("s1.safetensors"))

    # The reference on the same data: f64, rounded as `compute` rounds.
    dev = torch.device(cfg.device)
    nova_grads = {n: state[n + ".adam_m"] / (1 - BETA1) for n in init}
    # Step s's loss over the k-th of `parts` slices of its sequences, scaled
    # by its share (the slices are of equal size).
    step_loss = lambda s, P, num, k, parts: gpt2_loss(
        P, batches["tokens"][s][k::parts].to(dev),
        batches["targets"][s][k::parts].to(dev), cfg, num) / parts
    ok, dist = judge_gradients(
        nova_grads, init, lambda *a: step_loss(0, *a), cfg.compute,
        cfg.grad_rtol, cfg.cast_rtol, cfg.cast_floor, dev, cfg.reference_parts)
    num = Numerics(cfg.compute)
    P = num.parameters(init, dev)
    opt = torch.optim.AdamW(list(P.values()), lr=cfg.lr, betas=(BETA1, BETA2),
                            eps=EPS, weight_decay=WEIGHT_DECAY)
    reference_losses = []
    for s in range(cfg.steps):
        opt.zero_grad()
        loss = 0.0
        for k in range(cfg.reference_parts):
            part = step_loss(s, P, num, k, cfg.reference_parts)
            part.backward()
            loss += part.item()
        opt.step()
        reference_losses.append(loss)

    if cfg.save_grads:
        write_safetensors(cfg.save_grads, {
            n: g for n, g in nova_grads.items() if g.numel() <= 1 << 20})

    worst_loss = 0.0
    for s, (a, b) in enumerate(zip(nova_losses, reference_losses), start=1):
        e = abs(a - b) / abs(b)
        worst_loss = max(worst_loss, e)
        print("step %2d: nova %.6f reference %.6f rel %.2e" % (s, a, b, e))
    if len(nova_losses) != cfg.steps:
        print("FAIL nova logged %d losses, expected %d"
              % (len(nova_losses), cfg.steps))
        ok = False
    if worst_loss >= cfg.loss_rtol:
        print("FAIL losses: worst rel %.2e" % worst_loss)
        ok = False
    print("step-1 gradients, relative error of nova against the %s reference "
          "and against exact f64" % cfg.compute)
    for n, e in dist["reference"].items():
        print("  %-26s %.2e %.2e%s" % (n, e, dist["exact"][n],
              "  FAIL" if e >= cfg.grad_rtol else ""))
    worst_name = max(dist["reference"], key=dist["reference"].get)
    print("%s: %d steps, worst loss rel %.2e (bound %.0e); step-1 gradients "
          "of %d parameters, worst rel %.2e at %s (bound %.0e)"
          % (cfg.compute, cfg.steps, worst_loss, cfg.loss_rtol,
             len(dist["reference"]), dist["reference"][worst_name],
             worst_name, cfg.grad_rtol))
    speed = re.findall(r"([0-9.]+) tok/s", log)
    if cfg.json:
        json.dump({"compute": cfg.compute, "steps": cfg.steps,
                   "nova_losses": nova_losses,
                   "reference_losses": reference_losses,
                   "worst_loss_rel": worst_loss,
                   "grad_rel": dist["reference"],
                   "grad_rel_nova_vs_exact": dist["exact"],
                   "all_grads_rel": dist.get("all"),
                   "nova_log_tok_s": [float(x) for x in speed],
                   "date": time.strftime("%Y-%m-%d"),
                   "torch": torch.__version__,
                   "device": torch.cuda.get_device_name()
                   if dev.type == "cuda" else "cpu"},
                  open(cfg.json, "w"), indent=1)
    print("GPT-2 PARITY OK" if ok else "GPT-2 PARITY FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
