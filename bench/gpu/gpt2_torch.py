"""GPT-2 in PyTorch for the benchmark round: the architecture of Nova's
nova-gpt2 and utils/gpt2_torch_parity.py (pre-LayerNorm blocks, causal
attention, tanh GELU, biases, the head tied to the token embedding, an
unpadded vocabulary), written as PyTorch users write it (nn.Linear,
F.scaled_dot_product_attention, fused AdamW) so that eager and
torch.compile run at their best.

  train(cfg, compute, mode, steps)  tokens/s, peak memory, first-step time
  deepest(cfg, compute, mode, cap)  the deepest model that trains under a
                                    memory cap
"""
import gc
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

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
    def __init__(self, layers, heads, embd, vocab, seq):
        super().__init__()
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


def build(cfg, layers, mode, device="cuda"):
    model = GPT(layers, cfg["heads"], cfg["embd"], cfg["vocab"],
                cfg["seq"]).to(device)
    opt = torch.optim.AdamW(model.parameters(), lr=6e-4, betas=BETAS,
                            eps=EPS, weight_decay=WEIGHT_DECAY,
                            fused=device == "cuda")
    if mode == "compile":
        model = torch.compile(model)
    elif mode == "compile-blocks":
        # Regional compilation: one compiled graph shared by every block
        # (compile time independent of depth), the rest eager.
        for block in model.blocks:
            block.compile()
    elif mode != "eager":
        raise ValueError("mode must be eager, compile or compile-blocks")
    return model, opt


def batches(cfg, count, device="cuda", seed=0):
    gen = torch.Generator(device="cpu").manual_seed(seed)
    shape = (count, cfg["batch"], cfg["seq"])
    return (torch.randint(0, cfg["vocab"], shape, generator=gen).to(device),
            torch.randint(0, cfg["vocab"], shape, generator=gen).to(device))


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
              "params": sum(p.numel() for p in model.parameters())}
    del model, opt
    release()
    return result


def release():
    gc.collect()
    torch.cuda.empty_cache()
    torch._dynamo.reset()


def fits(cfg, layers, compute, mode):
    """Whether `layers` layers train (two steps: the second with the
    optimizer's moments allocated) under the process's memory cap, and the
    peak allocated."""
    autocast = precision(compute)
    model = opt = None
    torch.cuda.reset_peak_memory_stats()
    try:
        model, opt = build(cfg, layers, mode)
        tokens, targets = batches(cfg, 2)
        for s in range(2):
            step(model, opt, autocast, tokens[s], targets[s])
        torch.cuda.synchronize()
        return True, torch.cuda.max_memory_allocated()
    except Exception as e:  # torch.OutOfMemoryError, or one inside inductor
        if "out of memory" not in str(e).lower():
            raise
        return False, None
    finally:
        del model, opt
        gc.collect()
        torch.cuda.empty_cache()


def deepest(cfg, compute, mode, cap_bytes, max_trials=8, log=print):
    """The deepest model that trains under `cap_bytes`: the peak grows by
    the same bytes per layer, so one and two layers predict the depth and
    trials around the prediction confirm it (the deepest that fits, and one
    more that does not)."""
    total = torch.cuda.get_device_properties(0).total_memory
    torch.cuda.set_per_process_memory_fraction(min(1.0, cap_bytes / total))
    trials = {}

    def trial(layers):
        if layers not in trials:
            t0 = time.perf_counter()
            trials[layers] = fits(cfg, layers, compute, mode)
            log("deepest %s %s: %d layers %s (peak %s, %.1f s)" % (
                mode, compute, layers,
                "fit" if trials[layers][0] else "out of memory",
                trials[layers][1], time.perf_counter() - t0))
        return trials[layers][0]

    result = {"cap_bytes": cap_bytes, "mode": mode, "compute": compute}
    if trial(1) and trial(2):
        one, two = trials[1][1], trials[2][1]
        predicted = max(3, int((cap_bytes - one) // max(1, two - one)) + 1)
        result["predicted_layers"] = predicted
        # The deepest that fits (lo) and the shallowest that does not (hi):
        # from the prediction outwards by steps of 1, 2, 4, ... (the
        # allocator's rounding moves the answer by a few layers), then
        # bisection between the two.
        lo, hi, probe, step = 2, None, predicted, 1
        while len(trials) < max_trials:
            if trial(probe):
                lo = probe
            else:
                hi = probe
            if hi is not None and hi - lo <= 1:
                break
            if hi is None:
                probe = lo + step
            elif lo < predicted - step and lo <= 2:
                probe = max(3, hi - step)
            else:
                probe = (lo + hi) // 2
                continue
            step *= 2
    deepest_fit = max([n for n, (ok, _) in trials.items() if ok], default=0)
    result["layers"] = deepest_fit
    # Exact when the next depth was tried and did not fit; else the trials
    # ran out first and the figure is a lower bound.
    result["exact"] = not trials.get(deepest_fit + 1, (True,))[0]
    result["trials"] = {str(k): {"fits": v[0], "peak_bytes": v[1]}
                        for k, v in sorted(trials.items())}
    result["params"] = params_of(cfg, deepest_fit)
    return result


def params_of(cfg, layers):
    C, V, T = cfg["embd"], cfg["vocab"], cfg["seq"]
    per_layer = 12 * C * C + 13 * C
    return V * C + T * C + layers * per_layer + 2 * C


def flops_per_token(cfg):
    """Training FLOPs per token (6 N plus the attention's scores)."""
    n = params_of(cfg, cfg["layers"])
    return 6 * n + 6 * cfg["layers"] * cfg["seq"] * cfg["embd"]

