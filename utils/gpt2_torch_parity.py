#!/usr/bin/env python3
"""Checks Nova's GPT-2 against the same model written in PyTorch.

Nova emits the model (nova-gpt2) and its initial parameters; this script
loads those parameters into a PyTorch implementation of the same
architecture, computed in f64 and rounded by explicit casts where Nova's
compute precision rounds (Numerics: the verdict does not depend on the
CPU's instruction set), and compares
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


def to_bf16(x):
    """`x` rounded to bf16 (nearest even) and kept in its own dtype."""
    return x.to(torch.bfloat16).to(x.dtype)


def to_tf32(x):
    """`x` rounded to TF32 (10 mantissa bits, nearest even, Inf and NaN
    kept), as Nova's interpreter and kernels round a TF32 product's
    operands; integer arithmetic on the f32 bits, the same on every CPU."""
    bits = x.detach().float().view(torch.int32).to(torch.int64) & 0xFFFFFFFF
    special = (bits & 0x7F800000) == 0x7F800000
    rounded = (bits + 0xFFF + ((bits >> 13) & 1)) & 0xFFFFE000
    bits = torch.where(special, bits, rounded)
    bits = bits - (bits >= 1 << 31).to(torch.int64) * (1 << 32)
    return bits.to(torch.int32).view(torch.float32).to(x.dtype)


class RoundedProduct(torch.autograd.Function):
    """a @ b with both operands rounded by `operand` and the result by
    `result`, and the backward products likewise: how a bf16 or TF32
    training step computes every product, forward and backward, with the
    accumulation in the operands' dtype. `b` may be broadcast over a's
    leading dims."""

    @staticmethod
    def forward(ctx, a, b, operand, result):
        a, b = operand(a), operand(b)
        ctx.save_for_backward(a, b)
        ctx.operand, ctx.result = operand, result
        return result(a @ b)

    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_tensors
        g = ctx.operand(g)
        ga = ctx.result(g @ b.transpose(-2, -1))
        gb = a.transpose(-2, -1) @ g
        while gb.dim() > b.dim():
            gb = gb.sum(0)
        return ga, ctx.result(gb), None, None


class RoundedValue(torch.autograd.Function):
    """A value rounded by `rounding` whose gradient passes unrounded: a
    16-bit copy made for the forward computation while the backward sums
    the full-precision gradient (Nova's bias gradients)."""

    @staticmethod
    def forward(ctx, x, rounding):
        return rounding(x)

    @staticmethod
    def backward(ctx, g):
        return g, None


class RoundedGelu(torch.autograd.Function):
    """tanh GELU whose output and input gradient are both rounded by
    `rounding`: a 16-bit GELU computed at full precision, forward and
    backward."""

    @staticmethod
    def forward(ctx, x, rounding):
        ctx.save_for_backward(x)
        ctx.rounding = rounding
        return rounding(F.gelu(x, approximate="tanh"))

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        with torch.enable_grad():
            x = x.detach().requires_grad_(True)
            (slope,) = torch.autograd.grad(F.gelu(x, approximate="tanh").sum(),
                                           x)
        return ctx.rounding(g * ctx.rounding(slope)), None


class Numerics:
    """Where a model rounds. A reference (`wide` = f64) computes in f64 and
    rounds by explicit casts at the points Nova's `compute` policy does, so
    its verdicts do not depend on the CPU's instruction set; `native` runs
    PyTorch's own bf16 / TF32 kernels instead (their error is printed beside
    the reference's, never used as a bound).

      compute  products                        elsewhere
      f32      exact                           exact
      tf32     operands rounded to TF32        exact
      bf16     operands and result in bf16     bias, scale and GELU join
               (16-bit tensors)                in bf16; softmax, LayerNorm
                                               and the loss in `wide`
    """

    def __init__(self, compute, native=False):
        self.compute = compute
        self.wide = torch.float32 if native else torch.float64
        keep = lambda x: x
        if native:
            self.low = (lambda x: x.to(torch.bfloat16)) if compute == "bf16" \
                else keep
            # Native tf32 is torch's matmul with allow_tf32 (the caller's).
            self.product = lambda a, b: self.low(a) @ self.low(b)
            self.joined = self.low
            self.gelu = lambda x: self.low(F.gelu(x, approximate="tanh"))
            return
        result = to_bf16 if compute == "bf16" else keep
        operand = {"bf16": to_bf16, "tf32": to_tf32}.get(compute, keep)
        self.product = lambda a, b: RoundedProduct.apply(a, b, operand,
                                                         result)
        self.low = lambda x: RoundedValue.apply(x, result)
        self.joined = self.low
        self.gelu = lambda x: RoundedGelu.apply(x, result)

    def parameters(self, params, device="cpu"):
        """Leaf copies of `params` in this model's dtype."""
        return {n: t.detach().to(device=device, dtype=self.wide)
                .requires_grad_(True) for n, t in params.items()}


def gpt2_loss(P, tokens, targets, cfg, num):
    """GPT-2 as Nova's examples/gpt2 builds it: pre-LayerNorm blocks, causal
    attention, tanh GELU, head tied to the token embedding; rounded as
    `num` (a Numerics) says, with parameters `P` in num.wide."""
    B, T = tokens.shape
    C, H = cfg.embd, cfg.heads
    D = C // H
    mm, low = num.product, num.low

    def linear(a, w, b):
        return low(mm(a, w) + num.joined(b))

    x = P["wte"][tokens.long()] + P["wpe"][:T]
    causal = torch.tril(torch.ones(T, T, dtype=torch.bool, device=tokens.device))
    for layer in range(cfg.layers):
        h = "h.%d." % layer
        a = F.layer_norm(x, (C,), P[h + "ln_1.weight"], P[h + "ln_1.bias"], 1e-5)
        qkv = linear(a, P[h + "attn.c_attn.weight"], P[h + "attn.c_attn.bias"])
        q, k, v = (t.reshape(B, T, H, D).transpose(1, 2) for t in qkv.split(C, 2))
        att = mm(q, k.transpose(-2, -1))
        att = low(att * low(torch.tensor(1.0 / math.sqrt(D), dtype=att.dtype,
                                         device=att.device)))
        att = att.masked_fill(~causal, float("-inf")).to(num.wide).softmax(-1)
        o = mm(att, v).transpose(1, 2).reshape(B, T, C)
        x = x + linear(o, P[h + "attn.c_proj.weight"], P[h + "attn.c_proj.bias"])
        m = F.layer_norm(x, (C,), P[h + "ln_2.weight"], P[h + "ln_2.bias"], 1e-5)
        m = num.gelu(linear(m, P[h + "mlp.c_fc.weight"], P[h + "mlp.c_fc.bias"]))
        x = x + linear(m, P[h + "mlp.c_proj.weight"], P[h + "mlp.c_proj.bias"])
    x = F.layer_norm(x, (C,), P["ln_f.weight"], P["ln_f.bias"], 1e-5)
    logits = mm(x, P["wte"].t()).to(num.wide)
    return F.cross_entropy(logits.reshape(-1, logits.shape[-1]),
                           targets.reshape(-1).long())


def step_gradients(init, loss_of, num, device="cpu", parts=1):
    """The loss and its gradients at the parameters `init`, computed as
    `num` (a Numerics) rounds: `loss_of(P, num, k, parts)` is the loss of
    the k-th of `parts` slices of the batch, scaled by its share, and the
    gradients are summed over the slices (which bounds the memory an f64
    reference takes on the GPU)."""
    P = num.parameters(init, device)
    loss = 0.0
    for k in range(parts):
        part = loss_of(P, num, k, parts)
        part.backward()
        loss += part.detach().cpu()
    return loss, {n: t.grad.cpu() for n, t in P.items()}


def judge_gradients(nova, init, loss_of, compute, grad_rtol, cast_rtol=0.0,
                    cast_floor=0.0, device="cpu", parts=1):
    """Nova's gradients (`nova`: parameter name -> tensor) against the
    reference that rounds as `compute` does: each parameter's within
    `grad_rtol` (normwise relative). Under bf16 or tf32 also all of them
    together within `cast_rtol` of that reference, and at least
    `cast_floor` from the exact f64 model: a program that does not round
    as asked (an f32 program where bf16 was asked) lands within the floor
    and is named so. The reference itself must be beyond the floor, or the
    test could not tell. PyTorch's own kernels' distances are printed,
    never judged. `loss_of` and `parts` as step_gradients takes them.
    Returns (whether everything holds, the distances: "reference" and
    "exact" per parameter, "all" together; "loss", the reference's)."""
    loss, want = step_gradients(init, loss_of, Numerics(compute), device,
                                parts)
    exact = want if compute == "f32" else step_gradients(
        init, loss_of, Numerics("f32"), device, parts)[1]
    dist = {"loss": loss,
            "reference": {n: rel(nova[n], g) for n, g in want.items()},
            "exact": {n: rel(nova[n], g) for n, g in exact.items()}}
    ok = True
    for name, e in dist["reference"].items():
        if e >= grad_rtol:
            print("FAIL gradient of %s: rel %.2e" % (name, e))
            ok = False
    worst = max(dist["reference"], key=dist["reference"].get)
    print("gradients: %d tensors, worst rel %.2e at %s (bound %.0e) against "
          "the %s reference" % (len(want), dist["reference"][worst], worst,
                                grad_rtol, compute))
    if compute == "f32":
        return ok, dist
    if not (cast_rtol > 0 and cast_floor > 0):
        sys.exit("judge_gradients: %s needs a bound and a floor" % compute)
    flat = lambda grads: torch.cat([grads[n].double().flatten() for n in want])
    all_nova, all_want, all_exact = flat(nova), flat(want), flat(exact)
    dist["all"] = {"nova": rel(all_nova, all_want),
                   "nova_exact": rel(all_nova, all_exact),
                   "reference_exact": rel(all_want, all_exact)}
    d = dist["all"]
    print("all gradients: nova %.2e from the %s reference (bound %.2g), "
          "%.2e from exact f64 (floor %.2g); the reference %.2e from exact"
          % (d["nova"], compute, cast_rtol, d["nova_exact"], cast_floor,
             d["reference_exact"]))
    try:
        _, native = step_gradients(init, loss_of,
                                   Numerics(compute, native=True), device,
                                   parts)
        d["torch"] = rel(flat(native), all_want)
        d["torch_exact"] = rel(flat(native), all_exact)
        print("PyTorch's own %s kernels (printed only): %.2e from the "
              "reference, %.2e from exact" % (compute, d["torch"],
                                              d["torch_exact"]))
    except RuntimeError as e:  # oneDNN capped below its bf16 kernels, say
        print("PyTorch's own %s kernels (printed only): failed: %s"
              % (compute, str(e).splitlines()[0]))
    if d["reference_exact"] < cast_floor:
        print("FAIL the %s reference is within the floor of the exact model: "
              "the test cannot tell a %s program from an f32 one"
              % (compute, compute))
        ok = False
    if d["nova"] >= cast_rtol:
        print("FAIL all gradients: nova is %.2e from the %s reference"
              % (d["nova"], compute))
        ok = False
    if d["nova_exact"] < cast_floor:
        print("FAIL nova is within the floor of the exact model: not a %s "
              "program" % compute)
        ok = False
    return ok, dist


def add_cast_bounds(parser):
    """The options of judge_gradients' bound and floor (bf16 and tf32)."""
    parser.add_argument("--cast-rtol", type=float, default=0.0,
                        help="bf16 and tf32: all gradients together within "
                        "this of the rounded reference")
    parser.add_argument("--cast-floor", type=float, default=0.0,
                        help="bf16 and tf32: Nova's gradients at least this "
                        "far from the exact f64 model (an f32 program is "
                        "within it)")


def run(*cmd):
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)


def rel(a, b):
    """Normwise relative distance, in f64."""
    a, b = a.double().flatten(), b.double().flatten()
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
    p.add_argument("--nova-autocast", choices=["f32", "bf16"],
                   help="Nova's compute precision when it differs from the "
                   "reference's (a negative control: an f32 program judged "
                   "as bf16)")
    add_cast_bounds(p)
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
    autocast = ["--nova-autocast=compute=" + (cfg.nova_autocast or cfg.autocast)]
    run("nova-opt", w("model.mlir"), decompose, "--nova-autodiff",
        *autocast, "-o", w("grad.mlir"))
    write_safetensors(w("batch0.safetensors"),
                      {n: t[0] if micro else t for n, t in batches[0].items()})
    run("nova-run", w("grad.mlir"), "--inputs",
        w("init.safetensors") + "," + w("batch0.safetensors"),
        "-o", w("grads.safetensors"))
    nova = read_safetensors(w("grads.safetensors"))
    first = read_safetensors(w("batch0.safetensors"))
    loss_of = lambda P, num, k=0, parts=1: gpt2_loss(
        P, first["tokens"], first["targets"], cfg, num)
    num = Numerics(cfg.autocast)
    judged, dist = judge_gradients({n: nova[n + ".grad"] for n in init}, init,
                                   loss_of, cfg.autocast, cfg.grad_rtol,
                                   cfg.cast_rtol, cfg.cast_floor)
    e = rel(nova["loss"], dist["loss"])
    print("loss: nova %.7f reference %.7f rel %.2e" % (nova["loss"].item(),
                                                       dist["loss"].item(), e))
    ok &= judged and e < cfg.grad_rtol

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
    P = num.parameters(init)
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
                         cfg, num)
        loss.backward()
        if cfg.clip_norm > 0:
            norm = torch.nn.utils.clip_grad_norm_(list(P.values()),
                                                  cfg.clip_norm)
            e = rel(nova_norm, norm)
            print("step %2d: grad_norm nova %.7f reference %.7f rel %.2e"
                  % (step, nova_norm.item(), norm.item(), e))
            ok &= e < cfg.loss_rtol
        for group in opt.param_groups:
            group["lr"] = lr_at(step)
        opt.step()
        e = rel(nova_loss, loss.detach())
        worst = max(worst, e)
        print("step %2d: nova %.7f reference %.7f rel %.2e"
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
        torch_eval = loss_of(P, num)
    e = rel(nova_eval, torch_eval)
    print("eval: nova %.7f reference %.7f rel %.2e"
          % (nova_eval.item(), torch_eval.item(), e))
    ok &= e < cfg.loss_rtol
    print("PARITY OK" if ok else "PARITY FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
