#!/usr/bin/env python3
"""GPT-2 training in JAX/XLA for the benchmark round: the architecture of
bench/gpu/gpt2_torch.py (pre-LayerNorm blocks, causal attention, tanh GELU,
biases, the head tied to the token embedding), the layers' parameters
stacked and run by lax.scan, AdamW written out (no optax), the whole step
one jitted function with its state donated.

compute=tf32: f32 everything, matrix products at TF32 precision;
compute=bf16: f32 master weights and optimizer state, products and
attention in bf16 (cuDNN's fused attention when JAX offers it), LayerNorm,
softmax and the loss in f32.

  gpt2_jax.py --config '{"layers": 12, ...}' --compute bf16 --steps 10 \\
      --json out.json

Prints and writes tokens/s (timed steps after a warm-up), the device's peak
memory (memory_stats()["peak_bytes_in_use"]) and the first step's wall
time (the compile is in it). Run with XLA_PYTHON_CLIENT_PREALLOCATE=false
so that the peak is what the step needs, not a preallocated pool.

--trial L: whether L layers train two steps (bf16) under the memory
limit the caller set (XLA_PYTHON_CLIENT_MEM_FRACTION with
XLA_PYTHON_CLIENT_PREALLOCATE=false: XLA's allocator refuses to grow past
that fraction of the device); out of memory is a result, not an error.
"""
import argparse
import json
import math
import time

import jax
import jax.numpy as jnp

BETA1, BETA2, EPS, WEIGHT_DECAY = 0.9, 0.999, 1e-8, 0.01


def init(cfg, key):
    C, V, T, L = cfg["embd"], cfg["vocab"], cfg["seq"], cfg["layers"]
    k = iter(jax.random.split(key, 8))

    def normal(shape):
        return 0.02 * jax.random.normal(next(k), shape, jnp.float32)

    return {
        "wte": normal((V, C)), "wpe": normal((T, C)),
        "ln_f": {"w": jnp.ones((C,)), "b": jnp.zeros((C,))},
        "blocks": {
            "ln_1": {"w": jnp.ones((L, C)), "b": jnp.zeros((L, C))},
            "ln_2": {"w": jnp.ones((L, C)), "b": jnp.zeros((L, C))},
            "c_attn": {"w": normal((L, C, 3 * C)),
                       "b": jnp.zeros((L, 3 * C))},
            "attn_proj": {"w": normal((L, C, C)), "b": jnp.zeros((L, C))},
            "c_fc": {"w": normal((L, C, 4 * C)), "b": jnp.zeros((L, 4 * C))},
            "mlp_proj": {"w": normal((L, 4 * C, C)), "b": jnp.zeros((L, C))},
        },
    }


def layer_norm(x, p):
    x32 = x.astype(jnp.float32)
    mean = x32.mean(-1, keepdims=True)
    var = ((x32 - mean) ** 2).mean(-1, keepdims=True)
    return (x32 - mean) * jax.lax.rsqrt(var + 1e-5) * p["w"] + p["b"]


def make_loss(cfg, compute, attention_impl):
    low = jnp.bfloat16 if compute == "bf16" else jnp.float32
    H = cfg["heads"]

    # As torch's autocast: products (and their bias) in `low`, the residual
    # stream in f32.
    def linear(x, p):
        return jnp.dot(x.astype(low), p["w"].astype(low)) + p["b"].astype(low)

    def block(x, p):
        B, T, C = x.shape
        qkv = linear(layer_norm(x, p["ln_1"]), p["c_attn"])
        q, k, v = (t.reshape(B, T, H, C // H) for t in jnp.split(qkv, 3, -1))
        o = jax.nn.dot_product_attention(q, k, v, is_causal=True,
                                         implementation=attention_impl)
        x = x + linear(o.reshape(B, T, C), p["attn_proj"])
        m = jax.nn.gelu(linear(layer_norm(x, p["ln_2"]), p["c_fc"]),
                        approximate=True)
        return x + linear(m, p["mlp_proj"]), None

    def loss(params, tokens, targets):
        T = tokens.shape[1]
        x = params["wte"][tokens] + params["wpe"][:T]
        x, _ = jax.lax.scan(block, x, params["blocks"])
        x = layer_norm(x, params["ln_f"])
        logits = jnp.dot(x.astype(low), params["wte"].astype(low).T)
        logp = jax.nn.log_softmax(logits.astype(jnp.float32), -1)
        return -jnp.take_along_axis(logp, targets[..., None], -1).mean()

    return loss


def make_step(cfg, compute, attention_impl, lr):
    loss_fn = make_loss(cfg, compute, attention_impl)

    def step(params, m, v, t, tokens, targets):
        loss, grads = jax.value_and_grad(loss_fn)(params, tokens, targets)
        t = t + 1
        m = jax.tree.map(lambda m, g: BETA1 * m + (1 - BETA1) * g, m, grads)
        v = jax.tree.map(lambda v, g: BETA2 * v + (1 - BETA2) * g * g, v,
                         grads)
        c1, c2 = 1 - BETA1 ** t, 1 - BETA2 ** t
        params = jax.tree.map(
            lambda p, m, v: p - lr * ((m / c1) / (jnp.sqrt(v / c2) + EPS) +
                                      WEIGHT_DECAY * p), params, m, v)
        return params, m, v, t, loss

    return jax.jit(step, donate_argnums=(0, 1, 2))


def run(cfg, compute, steps, warmup=2, lr=6e-4):
    if compute == "tf32":
        jax.config.update("jax_default_matmul_precision", "tensorfloat32")
    # cuDNN's fused attention takes bf16/fp16; f32 goes through XLA.
    impls = ["cudnn", None] if compute == "bf16" else ["xla"]
    key = jax.random.PRNGKey(0)
    # Tokens below the real vocabulary (a padded one's extra rows are never
    # a token).
    bound = cfg.get("token_bound", cfg["vocab"])
    tokens = jax.random.randint(jax.random.PRNGKey(1),
                                (1 + warmup + steps, cfg["batch"], cfg["seq"]),
                                0, bound, jnp.int32)
    targets = jax.random.randint(jax.random.PRNGKey(2), tokens.shape, 0,
                                 bound, jnp.int32)
    last_error = None
    for impl in impls:
        try:
            step = make_step(cfg, compute, impl, lr)
            params = init(cfg, key)
            m = jax.tree.map(jnp.zeros_like, params)
            v = jax.tree.map(jnp.zeros_like, params)
            t = jnp.zeros((), jnp.float32)
            t0 = time.perf_counter()
            params, m, v, t, loss = step(params, m, v, t, tokens[0],
                                         targets[0])
            first = float(loss)
            first_s = time.perf_counter() - t0
            break
        except Exception as e:  # an attention implementation JAX lacks here
            if is_oom(e):
                raise
            last_error = "%s: %s" % (type(e).__name__, str(e)[:300])
            continue
    else:
        raise RuntimeError("no attention implementation ran: " + last_error)
    for s in range(1, 1 + warmup):
        params, m, v, t, loss = step(params, m, v, t, tokens[s], targets[s])
    loss.block_until_ready()
    t0 = time.perf_counter()
    for s in range(1 + warmup, 1 + warmup + steps):
        params, m, v, t, loss = step(params, m, v, t, tokens[s], targets[s])
    last = float(loss)  # waits for the last step
    seconds = time.perf_counter() - t0
    stats = jax.devices()[0].memory_stats() or {}
    n = sum(x.size for x in jax.tree.leaves(params))
    return {"tokens_per_s": cfg["batch"] * cfg["seq"] * steps / seconds,
            "step_ms": seconds * 1e3 / steps,
            "peak_bytes": stats.get("peak_bytes_in_use"),
            "first_step_s": first_s, "first_loss": first, "last_loss": last,
            "steps": steps, "params": int(n),
            "attention": impl or "default", "jax": jax.__version__,
            "fallback_error": last_error,
            "configuration": configuration(compute, impl)}


def configuration(compute, impl):
    return ("JAX %s, one jitted step, state donated, layers under lax.scan, "
            "jax.nn.dot_product_attention(implementation=%s), AdamW, %s" % (
                jax.__version__, repr(impl),
                "bf16 products and attention, f32 master weights, "
                "LayerNorm and loss" if compute == "bf16" else
                "f32 with TF32 matmuls"))


def is_oom(e):
    text = str(e)
    return "RESOURCE_EXHAUSTED" in text or "out of memory" in text.lower()


def trial(cfg, layers, steps=2):
    """Whether `layers` layers train `steps` bf16 steps under the caller's
    memory limit, and the peak in use."""
    cfg = dict(cfg, layers=layers)
    t0 = time.perf_counter()
    result = {"layers": layers}
    try:
        r = run(cfg, "bf16", steps=steps - 1, warmup=0)
        result.update(fits=True, losses=[r["first_loss"], r["last_loss"]],
                      tokens_per_s=r["tokens_per_s"],
                      configuration=r["configuration"])
    except Exception as e:
        if not is_oom(e):
            raise
        result.update(fits=False, error="%s: %s" % (
            type(e).__name__, str(e).splitlines()[0][:300]),
            configuration=configuration("bf16", "cudnn"))
    stats = jax.devices()[0].memory_stats() or {}
    result.update(peak_bytes=stats.get("peak_bytes_in_use"),
                  limit_bytes=stats.get("bytes_limit"),
                  seconds=round(time.perf_counter() - t0, 1))
    return result


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--config", required=True, help="GPT-2 shape, JSON")
    p.add_argument("--compute", choices=["tf32", "bf16"], default="bf16")
    p.add_argument("--steps", type=int, default=10)
    p.add_argument("--trial", type=int, metavar="LAYERS",
                   help="a memory-cap trial of this depth (bf16)")
    p.add_argument("--json", required=True)
    a = p.parse_args()
    cfg = json.loads(a.config)
    if a.trial:
        result = trial(cfg, a.trial)
    else:
        result = run(cfg, a.compute, a.steps)
        result["loss_at_init"] = math.log(cfg["vocab"])
    print(json.dumps(result))
    with open(a.json, "w") as f:
        json.dump(result, f)


if __name__ == "__main__":
    main()
