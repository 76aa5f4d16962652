#!/usr/bin/env python3
"""Checks Nova's GPT-2 against the same model written in PyTorch.

Nova emits the model (nova-gpt2) and its initial parameters; this script
loads those parameters into a PyTorch implementation of the same
architecture and compares
  1. the loss and every parameter gradient after one forward/backward
     (nova-opt --nova-decompose --nova-autodiff, run by nova-run --backend=ref),
  2. the losses of 10 AdamW steps (nova-train-step) on 10 fresh batches, the
     learning rate fed at run time with a warm-up (so it changes per step),
     optionally with gradient clipping (--clip-norm: the step's grad_norm
     against torch.nn.utils.clip_grad_norm_'s) and gradient accumulation
     (--accumulate N: N micro-batches per update, whose mean loss PyTorch
     computes over the whole batch; the first update also against Nova's own
     step over the whole batch without accumulation, rel 1e-5),
  3. the eval entry's loss with the trained parameters.
Exit status 0 when everything is within tolerance. Needs only torch (Debian's
python3-torch) and the Nova tools on PATH.
"""
import argparse
import json
import math
import os
import re
import struct
import subprocess
import sys

import torch
import torch.nn.functional as F

DTYPES = {"F32": (torch.float32, "f"), "F64": (torch.float64, "d"),
          "I32": (torch.int32, "i"), "I64": (torch.int64, "q"),
          "BF16": (torch.bfloat16, "h")}  # bf16 travels as its 16 bits


def read_safetensors(path):
    data = open(path, "rb").read()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + n])
    out = {}
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        dtype, code = DTYPES[entry["dtype"]]
        begin, end = entry["data_offsets"]
        count = math.prod(entry["shape"])
        values = struct.unpack("<%d%s" % (count, code),
                               data[8 + n + begin:8 + n + end])
        if dtype == torch.bfloat16:
            t = torch.tensor(values, dtype=torch.int16).view(torch.bfloat16)
        else:
            t = torch.tensor(values, dtype=dtype)
        out[name] = t.reshape(entry["shape"])
    return out


def write_safetensors(path, tensors):
    header, blobs, offset = {}, [], 0
    codes = {v[0]: k for k, v in DTYPES.items()}
    for name, t in tensors.items():
        code = codes[t.dtype]
        t = t.detach().contiguous().cpu()
        if t.dtype == torch.bfloat16:
            t = t.view(torch.int16)
        blob = t.numpy().tobytes()  # little-endian, as safetensors wants
        header[name] = {"dtype": code, "shape": list(t.shape),
                        "data_offsets": [offset, offset + len(blob)]}
        blobs.append(blob)
        offset += len(blob)
    text = json.dumps(header).encode()
    text += b" " * ((8 - (len(text) + 8) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(blobs))


def gpt2_loss(P, tokens, targets, cfg, compute="f32"):
    """GPT-2 as Nova's examples/gpt2 builds it: pre-LayerNorm blocks, causal
    attention, tanh GELU, head tied to the token embedding.

    compute="bf16" writes out by hand the casts nova-autocast makes (torch
    1.13's CPU autocast would keep LayerNorm and softmax in bf16): products
    read bf16 operands and give bf16, a linear layer's bias and the
    attention scale join in bf16, softmax, LayerNorm and the loss run in
    f32, and everything else follows PyTorch's type promotion."""
    B, T = tokens.shape
    C, H = cfg.embd, cfg.heads
    D = C // H
    low = torch.bfloat16 if compute == "bf16" else torch.float32

    def mm(a, b):
        return a.to(low) @ b.to(low)

    def linear(a, w, b):
        y = mm(a, w)
        return y + b.to(y.dtype)

    x = P["wte"][tokens.long()] + P["wpe"][:T]
    causal = torch.tril(torch.ones(T, T, dtype=torch.bool, device=tokens.device))
    for layer in range(cfg.layers):
        h = "h.%d." % layer
        a = F.layer_norm(x, (C,), P[h + "ln_1.weight"], P[h + "ln_1.bias"], 1e-5)
        qkv = linear(a, P[h + "attn.c_attn.weight"], P[h + "attn.c_attn.bias"])
        q, k, v = (t.reshape(B, T, H, D).transpose(1, 2) for t in qkv.split(C, 2))
        att = mm(q, k.transpose(-2, -1))
        att = att * torch.tensor(1.0 / math.sqrt(D), dtype=att.dtype)
        att = att.masked_fill(~causal, float("-inf")).float().softmax(-1)
        o = mm(att, v).transpose(1, 2).reshape(B, T, C)
        x = x + linear(o, P[h + "attn.c_proj.weight"], P[h + "attn.c_proj.bias"])
        m = F.layer_norm(x, (C,), P[h + "ln_2.weight"], P[h + "ln_2.bias"], 1e-5)
        m = F.gelu(linear(m, P[h + "mlp.c_fc.weight"], P[h + "mlp.c_fc.bias"]),
                   approximate="tanh")
        x = x + linear(m, P[h + "mlp.c_proj.weight"], P[h + "mlp.c_proj.bias"])
    x = F.layer_norm(x, (C,), P["ln_f.weight"], P["ln_f.bias"], 1e-5)
    logits = mm(x, P["wte"].t()).float()
    return F.cross_entropy(logits.reshape(-1, logits.shape[-1]),
                           targets.reshape(-1).long())


def run(*cmd):
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)


def rel(a, b):
    return ((a - b).norm() / max(b.norm(), a.norm(), 1e-30)).item()


def same_as_whole_batch(cfg, w, options, state, batch, scalars, loss,
                        updated):
    """Nova's step over the whole batch (no accumulation) from `state`: its
    loss and updated state must match the accumulated step's within 1e-5."""
    whole_batch = ["--batch", str(cfg.batch * cfg.accumulate)]
    shape = ["--layers", str(cfg.layers), "--heads", str(cfg.heads),
             "--embd", str(cfg.embd), "--vocab", str(cfg.vocab),
             "--seq", str(cfg.seq)]
    run("nova-gpt2", *shape, *whole_batch, "-o", w("whole.mlir"))
    run("nova-opt", w("whole.mlir"), "--nova-decompose", "--nova-autodiff",
        "--nova-train-step=%s clip-norm=%g" % (options, cfg.clip_norm),
        "-o", w("whole-step.mlir"))
    write_safetensors(w("whole-batch.safetensors"),
                      dict({n: t.reshape(-1, cfg.seq)
                            for n, t in batch.items()}, **scalars))
    run("nova-run", w("whole-step.mlir"), "--entry", "train_step", "--inputs",
        w("state.safetensors") + "," + w("whole-batch.safetensors"),
        "-o", w("whole-out.safetensors"))
    ref = read_safetensors(w("whole-out.safetensors"))
    ref.pop("grad_norm", None)
    worst = max([rel(loss, ref.pop("loss"))] +
                [rel(updated[n], t) for n, t in ref.items()])
    print("accumulate=%d vs one step over the whole batch: worst rel %.2e"
          % (cfg.accumulate, worst))
    return worst < 1e-5


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--workdir", required=True)
    for name, default in [("layers", 2), ("heads", 2), ("embd", 32),
                          ("vocab", 64), ("seq", 16), ("batch", 2)]:
        p.add_argument("--" + name, type=int, default=default)
    p.add_argument("--steps", type=int, default=10)
    p.add_argument("--grad-rtol", type=float, default=1e-5)
    p.add_argument("--loss-rtol", type=float, default=1e-4)
    p.add_argument("--autocast", choices=["f32", "bf16"], default="f32",
                   help="run nova-autocast with this compute precision after "
                   "nova-autodiff / nova-train-step and compare with the "
                   "PyTorch model cast the same way")
    p.add_argument("--working-copies", action="store_true",
                   help="the train step carries each parameter's bf16 copy "
                   "(nova-autocast working-copies); the first step gets "
                   "bf16(param)")
    p.add_argument("--keep", default="",
                   help="composites nova-decompose keeps (its keep= option)")
    p.add_argument("--clip-norm", type=float, default=0.0)
    p.add_argument("--accumulate", type=int, default=1)
    cfg = p.parse_args()
    os.makedirs(cfg.workdir, exist_ok=True)
    w = lambda name: os.path.join(cfg.workdir, name)
    shape = ["--layers", str(cfg.layers), "--heads", str(cfg.heads),
             "--embd", str(cfg.embd), "--vocab", str(cfg.vocab),
             "--seq", str(cfg.seq), "--batch", str(cfg.batch)]
    run("nova-gpt2", *shape, "-o", w("model.mlir"),
        "--init-params", w("init.safetensors"), "--seed", "7")
    init = read_safetensors(w("init.safetensors"))

    gen = torch.Generator().manual_seed(0)
    micro = (cfg.accumulate,) if cfg.accumulate > 1 else ()
    batches = [{n: torch.randint(0, cfg.vocab, micro + (cfg.batch, cfg.seq),
                                 generator=gen, dtype=torch.int32)
                for n in ("tokens", "targets")} for _ in range(cfg.steps)]
    whole = lambda t: t.reshape(-1, cfg.seq)
    ok = True

    # 1. Loss and gradients after one forward/backward.
    decompose = "--nova-decompose"
    if cfg.keep:
        decompose += "=keep=" + cfg.keep
    autocast = ["--nova-autocast=compute=" + cfg.autocast]
    run("nova-opt", w("model.mlir"), decompose, "--nova-autodiff",
        *autocast, "-o", w("grad.mlir"))
    write_safetensors(w("batch0.safetensors"),
                      {n: t[0] if micro else t for n, t in batches[0].items()})
    run("nova-run", w("grad.mlir"), "--inputs",
        w("init.safetensors") + "," + w("batch0.safetensors"),
        "-o", w("grads.safetensors"))
    nova = read_safetensors(w("grads.safetensors"))
    P = {n: t.clone().requires_grad_(True) for n, t in init.items()}
    first = read_safetensors(w("batch0.safetensors"))
    loss = gpt2_loss(P, first["tokens"], first["targets"], cfg, cfg.autocast)
    loss.backward()
    e = rel(nova["loss"], loss.detach())
    print("loss: nova %.7f torch %.7f rel %.2e" % (nova["loss"].item(),
                                                   loss.item(), e))
    ok &= e < cfg.grad_rtol
    worst = 0.0
    for name, t in P.items():
        e = rel(nova[name + ".grad"], t.grad)
        worst = max(worst, e)
        if e >= cfg.grad_rtol:
            print("FAIL gradient of %s: rel %.2e" % (name, e))
            ok = False
    print("gradients: %d tensors, worst rel %.2e (bound %.0e)"
          % (len(P), worst, cfg.grad_rtol))
    if cfg.autocast != "f32":
        # The bound alone would also pass an f32 program: require Nova's
        # gradients to be nearer the cast model than the f32 model is, by
        # a margin (an f32 Nova would tie with the f32 model).
        P32 = {n: t.clone().requires_grad_(True) for n, t in init.items()}
        gpt2_loss(P32, first["tokens"], first["targets"], cfg).backward()
        flat = lambda grads: torch.cat([g.flatten() for g in grads])
        want = flat(t.grad for t in P.values())
        nova_gap = rel(flat(nova[n + ".grad"] for n in P), want)
        f32_gap = rel(flat(t.grad for t in P32.values()), want)
        print("all gradients against the %s model: nova %.2e, the f32 "
              "model %.2e" % (cfg.autocast, nova_gap, f32_gap))
        if not nova_gap < 0.9 * f32_gap:
            print("FAIL Nova's gradients are not 10%% nearer the %s model "
                  "than f32 ones" % cfg.autocast)
            ok = False

    # 2. Losses over AdamW steps.
    hyper = dict(beta1=0.9, beta2=0.95, eps=1e-8, weight_decay=0.1)
    options = ("beta1=%g beta2=%g eps=%g weight-decay=%g"
               % tuple(hyper.values()))
    run("nova-opt", w("model.mlir"), decompose, "--nova-autodiff",
        "--nova-train-step=%s clip-norm=%g accumulate=%d"
        % (options, cfg.clip_norm, cfg.accumulate),
        autocast[0] + (" working-copies=1" if cfg.working_copies else ""),
        "-o", w("step.mlir"))
    # A runtime input: warm up over 3 steps to a peak of 1e-2.
    lr_at = lambda step: 1e-2 * min(1.0, step / 3)
    state = dict(init)
    for n, t in init.items():
        state[n + ".adam_m"] = torch.zeros_like(t)
        state[n + ".adam_v"] = torch.zeros_like(t)
    carried = re.findall(r'nova\.name = "([^"]+)\.bf16"',
                         open(w("step.mlir")).read())
    for n in carried:
        state[n + ".bf16"] = init[n].bfloat16()
    if cfg.working_copies:
        print("working copies: %d parameters" % len(set(carried)))
    P = {n: t.clone().requires_grad_(True) for n, t in init.items()}
    opt = torch.optim.AdamW(list(P.values()), lr=lr_at(1),
                            betas=(hyper["beta1"], hyper["beta2"]),
                            eps=hyper["eps"],
                            weight_decay=hyper["weight_decay"])
    worst = 0.0
    for step, batch in enumerate(batches, start=1):
        write_safetensors(w("state.safetensors"), state)
        scalars = dict(step=torch.tensor(step, dtype=torch.int64),
                       lr=torch.tensor(lr_at(step), dtype=torch.float32))
        write_safetensors(w("batch.safetensors"), dict(batch, **scalars))
        run("nova-run", w("step.mlir"), "--entry", "train_step", "--inputs",
            w("state.safetensors") + "," + w("batch.safetensors"),
            "-o", w("out.safetensors"))
        out = read_safetensors(w("out.safetensors"))
        nova_loss = out.pop("loss")
        nova_norm = out.pop("grad_norm", None)
        if micro and step == 1:
            ok &= same_as_whole_batch(cfg, w, options, state, batch, scalars,
                                      nova_loss, out)
        state = out
        opt.zero_grad()
        loss = gpt2_loss(P, whole(batch["tokens"]), whole(batch["targets"]),
                         cfg, cfg.autocast)
        loss.backward()
        if cfg.clip_norm > 0:
            norm = torch.nn.utils.clip_grad_norm_(list(P.values()),
                                                  cfg.clip_norm)
            e = rel(nova_norm, norm)
            print("step %2d: grad_norm nova %.7f torch %.7f rel %.2e"
                  % (step, nova_norm.item(), norm.item(), e))
            ok &= e < cfg.loss_rtol
        for group in opt.param_groups:
            group["lr"] = lr_at(step)
        opt.step()
        e = rel(nova_loss, loss.detach())
        worst = max(worst, e)
        print("step %2d: nova %.7f torch %.7f rel %.2e"
              % (step, nova_loss.item(), loss.item(), e))
        ok &= e < cfg.loss_rtol
    print("AdamW losses: %d steps, worst rel %.2e (bound %.0e)"
          % (cfg.steps, worst, cfg.loss_rtol))

    # 3. The eval entry, fed the trained parameters by the same names.
    params = {n: t for n, t in state.items() if n in init}
    write_safetensors(w("trained.safetensors"), params)
    run("nova-run", w("step.mlir"), "--entry", "eval", "--inputs",
        w("trained.safetensors") + "," + w("batch0.safetensors"),
        "-o", w("eval.safetensors"))
    nova_eval = read_safetensors(w("eval.safetensors"))["loss"]
    with torch.no_grad():
        torch_eval = gpt2_loss(P, first["tokens"], first["targets"], cfg,
                               cfg.autocast)
    e = rel(nova_eval, torch_eval)
    print("eval: nova %.7f torch %.7f rel %.2e"
          % (nova_eval.item(), torch_eval.item(), e))
    ok &= e < cfg.loss_rtol
    print("PARITY OK" if ok else "PARITY FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
