"""GPT-2 in PyTorch for the benchmark round: the architecture of Nova's
nova-gpt2 and utils/gpt2_torch_parity.py (pre-LayerNorm blocks, causal
attention, tanh GELU, biases, the head tied to the token embedding, an
vocabulary of cfg["vocab"], 50257 or the padded 50304), written as
PyTorch users write it (nn.Linear, F.scaled_dot_product_attention with its
default backend selection, fused AdamW) so that eager and torch.compile run
at their best.

Modes: eager; checkpoint (eager, each block under
torch.utils.checkpoint, non-reentrant: what a user short of memory reaches
for); compile (the whole model under torch.compile, default mode);
compile-max (the same with mode="max-autotune-no-cudagraphs").

  train(cfg, compute, mode, steps)  tokens/s, peak memory, first-step time
  trial(cfg, layers, mode, cap)     whether `layers` layers train under an
                                    enforced memory cap (one process each)
"""
import gc
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.utils.checkpoint

BETAS, EPS, WEIGHT_DECAY = (0.9, 0.999), 1e-8, 0.01


class Block(nn.Module):
    def __init__(self, embd, heads):
        super().__init__()
        self.heads = heads
        self.ln_1 = nn.LayerNorm(embd)
        self.c_attn = nn.Linear(embd, 3 * embd)
        self.attn_proj = nn.Linear(embd, embd)
        self.ln_2 = nn.LayerNorm(embd)
        self.c_fc = nn.Linear(embd, 4 * embd)
        self.mlp_proj = nn.Linear(4 * embd, embd)

    def forward(self, x):
        B, T, C = x.shape
        q, k, v = self.c_attn(self.ln_1(x)).split(C, dim=2)
        q, k, v = (t.view(B, T, self.heads, C // self.heads).transpose(1, 2)
                   for t in (q, k, v))
        o = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.attn_proj(o.transpose(1, 2).reshape(B, T, C))
        m = F.gelu(self.c_fc(self.ln_2(x)), approximate="tanh")
        return x + self.mlp_proj(m)


class GPT(nn.Module):
    def __init__(self, layers, heads, embd, vocab, seq, checkpoint=False):
        super().__init__()
        self.checkpoint = checkpoint
        self.wte = nn.Embedding(vocab, embd)
        self.wpe = nn.Embedding(seq, embd)
        self.blocks = nn.ModuleList(Block(embd, heads) for _ in range(layers))
        self.ln_f = nn.LayerNorm(embd)
        # Nova's initialization: N(0, 0.02) weights, zero biases.
        for name, p in self.named_parameters():
            if name.endswith(".bias"):
                nn.init.zeros_(p)
            elif p.dim() > 1:
                nn.init.normal_(p, std=0.02)

    def forward(self, tokens, targets):
        T = tokens.shape[1]
        x = self.wte(tokens) + self.wpe.weight[:T]
        for block in self.blocks:
            if self.checkpoint and torch.is_grad_enabled():
                x = torch.utils.checkpoint.checkpoint(block, x,
                                                      use_reentrant=False)
            else:
                x = block(x)
        logits = F.linear(self.ln_f(x), self.wte.weight)
        return F.cross_entropy(logits.view(-1, logits.shape[-1]).float(),
                               targets.view(-1))


def precision(compute):
    """TF32 matmuls for compute=tf32 (f32 parameters and activations);
    bf16 autocast (f32 master weights) for compute=bf16."""
    tf32 = compute == "tf32"
    torch.backends.cuda.matmul.allow_tf32 = tf32
    torch.backends.cudnn.allow_tf32 = tf32
    if compute == "bf16":
        return lambda: torch.autocast("cuda", dtype=torch.bfloat16)
    return _nothing


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


MODES = {
    "eager": "eager",
    "checkpoint": "eager, activation checkpointing per block "
                  "(torch.utils.checkpoint, non-reentrant)",
    "compile": "torch.compile(model), default mode",
    "compile-max": 'torch.compile(model, mode="max-autotune-no-cudagraphs")',
}


def configuration(mode, compute):
    """The row's configuration in words."""
    return "PyTorch %s, %s; SDPA default backend, fused AdamW, %s" % (
        torch.__version__.split("+")[0], MODES[mode],
        "bf16 autocast, f32 master weights" if compute == "bf16" else
        "f32 with TF32 matmuls")


def build(cfg, layers, mode, device="cuda"):
    if mode not in MODES:
        raise ValueError("mode must be one of " + ", ".join(MODES))
    model = GPT(layers, cfg["heads"], cfg["embd"], cfg["vocab"],
                cfg["seq"], checkpoint=mode == "checkpoint").to(device)
    opt = torch.optim.AdamW(model.parameters(), lr=6e-4, betas=BETAS,
                            eps=EPS, weight_decay=WEIGHT_DECAY,
                            fused=device == "cuda")
    if mode == "compile":
        model = torch.compile(model)
    elif mode == "compile-max":
        model = torch.compile(model, mode="max-autotune-no-cudagraphs")
    return model, opt


def batches(cfg, count, device="cuda", seed=0):
    """Random tokens and targets below the real vocabulary (token_bound:
    a padded vocabulary's extra rows are never a token)."""
    bound = cfg.get("token_bound", cfg["vocab"])
    gen = torch.Generator(device="cpu").manual_seed(seed)
    shape = (count, cfg["batch"], cfg["seq"])
    return (torch.randint(0, bound, shape, generator=gen).to(device),
            torch.randint(0, bound, shape, generator=gen).to(device))


def step(model, opt, autocast, tokens, targets):
    with autocast():
        loss = model(tokens, targets)
    loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)
    return loss


def train(cfg, compute, mode, steps, warmup=2):
    """Tokens/s over `steps` timed steps (CUDA events, after the first step
    and `warmup` more), the peak of allocated memory over the whole run, and
    the first step's wall time (torch.compile's compile is in it)."""
    autocast = precision(compute)
    torch.manual_seed(0)
    torch.cuda.reset_peak_memory_stats()
    model, opt = build(cfg, cfg["layers"], mode)
    tokens, targets = batches(cfg, 1 + warmup + steps)
    t0 = time.perf_counter()
    first = step(model, opt, autocast, tokens[0], targets[0]).item()
    first_s = time.perf_counter() - t0
    for s in range(1, 1 + warmup):
        step(model, opt, autocast, tokens[s], targets[s])
    start, stop = (torch.cuda.Event(enable_timing=True) for _ in range(2))
    torch.cuda.synchronize()
    start.record()
    for s in range(1 + warmup, 1 + warmup + steps):
        loss = step(model, opt, autocast, tokens[s], targets[s])
    stop.record()
    stop.synchronize()
    seconds = start.elapsed_time(stop) / 1e3
    result = {"tokens_per_s": cfg["batch"] * cfg["seq"] * steps / seconds,
              "step_ms": seconds * 1e3 / steps,
              "peak_bytes": torch.cuda.max_memory_allocated(),
              "first_step_s": first_s, "first_loss": first,
              "last_loss": loss.item(), "steps": steps,
              "params": sum(p.numel() for p in model.parameters()),
              "configuration": configuration(mode, compute)}
    del model, opt
    release()
    return result


def release():
    gc.collect()
    torch.cuda.empty_cache()
    torch._dynamo.reset()


def is_oom(e):
    text = str(e).lower()
    return isinstance(e, torch.OutOfMemoryError) or "out of memory" in text


def trial(cfg, layers, compute, mode, cap_bytes, steps=2):
    """Whether `layers` layers train `steps` steps (the second and later
    with the optimizer's moments allocated) with the caching allocator
    capped at `cap_bytes` (torch.cuda.set_per_process_memory_fraction: an
    allocation that would take the reserved memory above it raises
    out-of-memory). Returns fits, the peaks allocated and reserved, the
    losses and the timed steps' tokens/s."""
    total = torch.cuda.get_device_properties(0).total_memory
    torch.cuda.set_per_process_memory_fraction(min(1.0, cap_bytes / total))
    autocast = precision(compute)
    torch.manual_seed(0)
    result = {"layers": layers, "mode": mode, "compute": compute,
              "cap_bytes": cap_bytes, "total_bytes": total,
              "configuration": configuration(mode, compute)}
    t0 = time.perf_counter()
    try:
        model, opt = build(cfg, layers, mode)
        result["params"] = sum(p.numel() for p in model.parameters())
        tokens, targets = batches(cfg, steps)
        losses = []
        for s in range(steps):
            if s == 1:
                torch.cuda.synchronize()
                t1 = time.perf_counter()
            losses.append(step(model, opt, autocast, tokens[s],
                               targets[s]).item())
        torch.cuda.synchronize()
        result.update(fits=True, losses=losses, tokens_per_s=(
            cfg["batch"] * cfg["seq"] * (steps - 1) /
            (time.perf_counter() - t1)))
    except Exception as e:  # torch.OutOfMemoryError, or one inside inductor
        if not is_oom(e):
            raise
        result.update(fits=False, error="%s: %s" % (
            type(e).__name__, str(e).splitlines()[0][:300]))
    result.update(peak_allocated_bytes=torch.cuda.max_memory_allocated(),
                  peak_reserved_bytes=torch.cuda.max_memory_reserved(),
                  seconds=round(time.perf_counter() - t0, 1))
    return result


def params_of(cfg, layers):
    C, V, T = cfg["embd"], cfg["vocab"], cfg["seq"]
    per_layer = 12 * C * C + 13 * C
    return V * C + T * C + layers * per_layer + 2 * C


def flops_per_token(cfg):
    """Model FLOPs of a training step per token: 6 N for the matrix
    products of N parameters (the blocks' weights and the tied head,
    V x C; the position table is no product), and 6 L T C for causal
    attention's two products (QK^T and PV, half the T x T square, forward
    and twice backward)."""
    C, V, T, L = cfg["embd"], cfg["vocab"], cfg["seq"], cfg["layers"]
    n = L * 12 * C * C + V * C
    return 6 * n + 6 * L * T * C

