#!/usr/bin/env python3
"""The GPU half of the benchmark round: every figure of Nova next to its
peer, measured in the same run on the same GPU.

  run.py DIR --out OUT [--nova-run PATH] [--budget SECONDS] [--parts a,b]

DIR is what bench/gpu/prepare.py wrote here (manifest.json, the .nvx
files). Each part runs in its own process with a time limit (a crash, an
out-of-memory or a hang fails that part only, the others still run) and
writes OUT/parts/<part>.json; its messages go to OUT/logs/<part>.log.
At the end the figures are gathered in OUT/bench.json and the logs in
OUT/logs.txt (the per-part files are removed), and bench/gpu/report.py turns
OUT/bench.json into OUT/bench.md and OUT/bench.png. Exit status 1 when any
part or the report failed.

Parts, in order:
  bandwidth        torch copy_ of 1 GiB: the device's copy bandwidth
  gemm             Nova's GEMM (nova-run --iterations, --timing-json)
                   against torch.matmul (cuBLAS), same shapes and dtype
  attention        Nova's causal attention forward and forward+backward
                   against torch SDPA (flash)
  nova_train       GPT-2 training with nova-run --train (tokens/s, peak),
                   nova-run --profile of the step (per-kernel bytes / time),
                   and the deepest GPT whose plan fits the cap, trained
  torch_eager      GPT-2 training in PyTorch eager, TF32 and bf16
  torch_compile    the same under torch.compile (default mode)
  jax              the same in JAX/XLA (bench/gpu/gpt2_jax.py)
  deepest_eager    the deepest GPT that trains under the cap, eager bf16
  deepest_compile  the same with the blocks torch.compile'd
All times on the GPU are CUDA events after warm-up runs.
"""
import argparse
import json
import math
import os
import re
import shutil
import signal
import statistics
import struct
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PARTS = ["bandwidth", "gemm", "attention", "nova_train", "torch_eager",
         "torch_compile", "jax", "deepest_eager", "deepest_compile"]
# The training parts' precisions (BENCH_COMPUTES=bf16 times bf16 alone, for
# a call too short for both).
COMPUTES = [c for c in os.environ.get("BENCH_COMPUTES", "tf32,bf16").split(",")
            if c]
# Each part's time limit (s); the round's budget caps them further.
LIMITS = {"bandwidth": 30, "gemm": 150, "attention": 60, "nova_train": 120,
          "torch_eager": 60, "torch_compile": 200, "jax": 150,
          "deepest_eager": 90, "deepest_compile": 150}


class PartFailed(Exception):
    pass


# --- helpers of the parts (run inside a part's process) --------------------

class Context:
    def __init__(self, args):
        self.dir = os.path.abspath(args.dir)
        self.out = os.path.abspath(args.out)
        self.nova_run = os.path.abspath(args.nova_run)
        self.manifest = json.load(open(os.path.join(self.dir,
                                                    "manifest.json")))
        self.smoke = self.manifest.get("size") == "smoke"
        self.work = tempfile.mkdtemp(prefix="nova-bench-")

    def path(self, rel):
        return os.path.join(self.dir, rel)

    def nova(self, args, what):
        """nova-run with `args`; its output, or PartFailed with its
        messages."""
        cmd = [self.nova_run] + [str(a) for a in args]
        print("+ " + " ".join(cmd), flush=True)
        done = subprocess.run(cmd, capture_output=True, text=True)
        sys.stdout.write(done.stdout[-4000:])
        if done.returncode != 0:
            sys.stdout.write(done.stderr[-4000:])
            raise PartFailed("%s: nova-run exit %d: %s" % (
                what, done.returncode,
                (done.stderr.strip().splitlines() or ["?"])[-1]))
        return done.stdout

    def nova_timing(self, nvx, extra, iterations, warmup, what):
        record = os.path.join(self.work, "timing.json")
        if os.path.exists(record):
            os.remove(record)
        self.nova([self.path(nvx)] + extra +
                  ["--iterations", iterations, "--warmup", warmup,
                   "--timing-json", record], what)
        return json.load(open(record))


def iterations_for(seconds_each, target=0.15, low=5, high=200):
    return int(max(low, min(high, math.ceil(target / max(seconds_each,
                                                         1e-7)))))


def event_times(fn, iterations, warmup=3):
    """Median and all of `iterations` runs of fn, each between two CUDA
    events and synchronized (as nova-run --iterations times an entry)."""
    import torch
    for _ in range(warmup):
        fn()
    start, stop = (torch.cuda.Event(enable_timing=True) for _ in range(2))
    samples = []
    for _ in range(iterations):
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        samples.append(start.elapsed_time(stop))
    return statistics.median(samples), samples


def graphed(fn, warmup=3):
    """fn captured in a CUDA graph (nova-run replays one too), or None when
    it cannot be captured."""
    import torch
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(warmup):
            fn()
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    try:
        with torch.cuda.graph(graph):
            fn()
    except Exception as e:
        print("CUDA graph capture failed (%s); timing eager launches" % e)
        return None
    return graph.replay


def write_safetensors(path, tensors):
    """tensors: name -> torch tensor (f32 or i32/i64), written as is."""
    import torch
    codes = {torch.float32: "F32", torch.int32: "I32", torch.int64: "I64"}
    header, offset = {}, 0
    for name, t in tensors.items():
        size = t.numel() * t.element_size()
        header[name] = {"dtype": codes[t.dtype], "shape": list(t.shape),
                        "data_offsets": [offset, offset + size]}
        offset += size
    text = json.dumps(header).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text)
        for t in tensors.values():
            t.detach().contiguous().cpu().view(torch.uint8).numpy().tofile(f)


def write_zeros_safetensors(path, shapes):
    """F32 zeros of the given shapes, as a sparse file (nothing to write)."""
    header, offset = {}, 0
    for name, shape in shapes:
        size = 4 * math.prod(shape)
        header[name] = {"dtype": "F32", "shape": shape,
                        "data_offsets": [offset, offset + size]}
        offset += size
    text = json.dumps(header).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text)
        f.truncate(8 + len(text) + offset)


def initial_parameters(params, path, seed=7):
    """Nova's initialization (as scripts/gpu/gpt2_parity.py): N(0, 0.02)
    weights, zero biases, unit LayerNorm scales, on the GPU then saved."""
    import torch
    gen = torch.Generator(device="cuda").manual_seed(seed)
    out = {}
    for name, shape in params:
        if re.search(r"ln_[12f]\.weight$", name):
            out[name] = torch.ones(shape, device="cuda")
        elif name.endswith(".bias"):
            out[name] = torch.zeros(shape, device="cuda")
        else:
            out[name] = torch.randn(shape, generator=gen,
                                    device="cuda") * 0.02
    write_safetensors(path, out)


def random_batches(cfg, steps, path, seed=8):
    import torch
    gen = torch.Generator().manual_seed(seed)
    shape = (steps, cfg["batch"], cfg["seq"])
    write_safetensors(path, {n: torch.randint(0, cfg["vocab"], shape,
                                              generator=gen,
                                              dtype=torch.int32)
                             for n in ("tokens", "targets")})


STEP_LINE = re.compile(r"^step\s+(\d+)/(\d+)\s+loss (\S+)\s+lr \S+\s+(\d+) "
                       r"tok/s", re.M)
PEAK_LINE = re.compile(r"peak device memory: measured (\d+) bytes, planned "
                       r"(\d+) bytes")


def nova_training_figures(log, skip=2):
    """Tokens/s (median of the steps after the first `skip`, which load
    kernels and capture the graph), the losses and the peak-memory line of
    nova-run --train's log."""
    steps = [(int(s), float(loss), float(tps))
             for s, _, loss, tps in STEP_LINE.findall(log)]
    if not steps:
        raise PartFailed("no 'step N/M loss ... tok/s' lines in the log")
    warm = [tps for s, _, tps in steps if s > skip] or [steps[-1][2]]
    peak = PEAK_LINE.search(log)
    return {"tokens_per_s": statistics.median(warm),
            "step_tokens_per_s": [tps for _, _, tps in steps],
            "first_loss": steps[0][1], "last_loss": steps[-1][1],
            "peak_bytes": int(peak.group(1)) if peak else None,
            "planned_peak_bytes": int(peak.group(2)) if peak else None,
            "peak": "measured" if peak else "not reported"}


# --- the parts ---------------------------------------------------------------

def part_bandwidth(ctx):
    import torch
    n = 1 << 30
    src = torch.empty(n, dtype=torch.uint8, device="cuda").fill_(1)
    dst = torch.empty_like(src)
    ms, samples = event_times(lambda: dst.copy_(src), 20, warmup=3)
    return {"copy_bytes": n, "copy_ms": ms,
            "copy_gbps": 2 * n / (ms / 1e3) / 1e9,
            "note": "read + write of a 1 GiB torch copy_, median of 20"}


def part_gemm(ctx):
    import torch
    rows, failures = [], 0
    for c in ctx.manifest.get("gemm", []):
        m, k, n, dtype = c["m"], c["k"], c["n"], c["dtype"]
        row = dict(c, flops=2.0 * m * n * k)
        rate = 300e12 if dtype == "bf16" else 150e12
        iters = iterations_for(row["flops"] / rate)
        try:
            if not c.get("nvx"):
                raise PartFailed("did not compile (see prepare's log)")
            t = ctx.nova_timing(c["nvx"], ["--random-inputs", "1"], iters, 3,
                                "gemm " + c["name"])
            row["nova_ms"] = t["median_ms"]
        except PartFailed as e:
            row["nova_error"] = str(e)
        try:
            torch.backends.cuda.matmul.allow_tf32 = dtype == "tf32"
            tt = torch.bfloat16 if dtype == "bf16" else torch.float32
            # The layout Nova was given (prepare.py's BENCH_GEMM_LAYOUT):
            # "nt" multiplies by the transpose of a [N, K] matrix, "tn" the
            # transpose of a [K, M] one by a [K, N] one.
            if c.get("layout", "nn") == "tn":
                a = torch.randn(k, m, device="cuda", dtype=tt).t()
            else:
                a = torch.randn(m, k, device="cuda", dtype=tt)
            if c.get("layout", "nn") == "nt":
                b = torch.randn(n, k, device="cuda", dtype=tt).t()
            else:
                b = torch.randn(k, n, device="cuda", dtype=tt)
            out = torch.empty(m, n, device="cuda", dtype=tt)
            mm = lambda: torch.matmul(a, b, out=out)  # noqa: E731
            replay = graphed(mm)
            row["cublas_ms"], _ = event_times(replay or mm, iters)
            row["cublas_graph"] = replay is not None
            del a, b, out
            torch.cuda.empty_cache()
        except Exception as e:
            row["cublas_error"] = "%s: %s" % (type(e).__name__, e)
        for who in ("nova", "cublas"):
            if row.get(who + "_ms"):
                row[who + "_tflops"] = row["flops"] / (row[who + "_ms"] /
                                                       1e3) / 1e12
        if row.get("nova_ms") and row.get("cublas_ms"):
            row["ratio"] = row["cublas_ms"] / row["nova_ms"]
        else:
            failures += 1
        print("gemm %s: nova %s ms, cublas %s ms" % (
            c["name"], row.get("nova_ms"), row.get("cublas_ms")), flush=True)
        rows.append(row)
    return {"rows": rows, "failures": failures}


def attention_flops(c):
    fwd = 4.0 * c["b"] * c["h"] * c["t"] * c["t"] * c["d"] / 2  # causal
    return fwd if c["pass"] == "fwd" else 3.5 * fwd


def part_attention(ctx):
    import torch
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel
    rows, failures = [], 0
    for c in ctx.manifest.get("attention", []):
        row = dict(c, flops=attention_flops(c))
        iters = iterations_for(row["flops"] / 200e12, low=5, high=50)
        try:
            if not c.get("nvx"):
                raise PartFailed("did not compile (see prepare's log)")
            row["nova_ms"] = ctx.nova_timing(
                c["nvx"], ["--random-inputs", "1"], iters, 3,
                "attention " + c["name"])["median_ms"]
        except PartFailed as e:
            row["nova_error"] = str(e)
        try:
            shape = (c["b"], c["h"], c["t"], c["d"])
            q, k, v, do = (torch.randn(shape, device="cuda",
                                       dtype=torch.bfloat16,
                                       requires_grad=i < 3)
                           for i in range(4))

            def fwd():
                return F.scaled_dot_product_attention(q, k, v, is_causal=True)

            def fwd_bwd():
                o = fwd()
                return torch.autograd.grad(o, (q, k, v), do)

            fn = fwd if c["pass"] == "fwd" else fwd_bwd
            with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
                row["sdpa_ms"], _ = event_times(fn, iters)
            # What SDPA picks by itself (cuDNN's kernel may be faster).
            row["sdpa_default_ms"], _ = event_times(fn, iters)
            del q, k, v, do
        except Exception as e:
            row["sdpa_error"] = "%s: %s" % (type(e).__name__, e)
        if row.get("nova_ms") and row.get("sdpa_ms"):
            row["ratio"] = row["sdpa_ms"] / row["nova_ms"]
            row["nova_tflops"] = row["flops"] / row["nova_ms"] / 1e9
            row["sdpa_tflops"] = row["flops"] / row["sdpa_ms"] / 1e9
        else:
            failures += 1
        print("attention %s: nova %s ms, sdpa %s ms" % (
            c["name"], row.get("nova_ms"), row.get("sdpa_ms")), flush=True)
        rows.append(row)
    return {"rows": rows, "failures": failures}


def part_nova_train(ctx):
    g = ctx.manifest.get("gpt2")
    if not g or not g.get("params"):
        raise PartFailed("no GPT-2 step prepared")
    cfg = g["config"]
    steps = 8 if ctx.smoke else 12
    init = os.path.join(ctx.work, "init.safetensors")
    moments = os.path.join(ctx.work, "moments.safetensors")
    batches = os.path.join(ctx.work, "batches.safetensors")
    initial_parameters(g["params"], init)
    write_zeros_safetensors(moments, [[n + suffix, s] for n, s in g["params"]
                                      for suffix in (".adam_m", ".adam_v")])
    random_batches(cfg, steps, batches)
    lr = ctx.manifest.get("learning_rate", 6e-4)
    result = {"config": cfg, "compile_s": g.get("compile_s"),
              "planned_bytes": g.get("planned_bytes"), "train": {},
              "profile": {}, "errors": []}
    for compute in COMPUTES:
        nvx = g["steps"].get(compute)
        if not nvx:
            result["errors"].append("%s: no step compiled" % compute)
            continue
        try:
            log = ctx.nova([ctx.path(nvx), "--train", "--steps", steps,
                            "--batches", batches, "--params", init, "--lr",
                            lr, "--log-every", 1], "train " + compute)
            result["train"][compute] = nova_training_figures(log)
        except PartFailed as e:
            result["errors"].append(str(e))
        # Per-kernel times of one step from the same state (parameters,
        # zero moments, step 1); tokens and targets random below the
        # vocabulary, as the training batches are (nova-run's default bound,
        # 16, put all 16384 tokens on 16 rows of the embedding gradient:
        # its scatter_add took 1 ms of atomics contention instead of 68 us).
        try:
            record = os.path.join(ctx.work, "profile.json")
            ctx.nova([ctx.path(nvx), "--entry", "train_step", "--inputs",
                      ",".join([init, moments,
                                ctx.path(ctx.manifest["scalars"])]),
                      "--random-inputs", 1, "--random-int-bound",
                      cfg["vocab"], "--profile", "--iterations",
                      3 if ctx.smoke else 5, "--warmup", 1, "--timing-json",
                      record], "profile " + compute)
            result["profile"][compute] = json.load(open(record))
        except PartFailed as e:
            result["errors"].append(str(e))
    # The deepest GPT whose plan fits the cap, trained a few steps.
    d = ctx.manifest.get("deepest")
    if d and d.get("nvx"):
        dcfg = dict(d["config"], layers=d["layers"])
        dinit = os.path.join(ctx.work, "deep-init.safetensors")
        dbatches = os.path.join(ctx.work, "deep-batches.safetensors")
        initial_parameters(d["params"], dinit)
        random_batches(dcfg, 3, dbatches)
        os.remove(init)
        try:
            log = ctx.nova([ctx.path(d["nvx"]), "--train", "--steps", 3,
                            "--batches", dbatches, "--params", dinit, "--lr",
                            lr, "--log-every", 1], "deepest")
            result["deepest"] = dict(nova_training_figures(log, skip=1),
                                     layers=d["layers"], config=d["config"],
                                     planned_bytes=d["planned_bytes"].get(
                                         str(d["layers"])),
                                     cap_bytes=d["cap_bytes"], trained=True)
        except PartFailed as e:
            result["errors"].append(str(e))
            result["deepest"] = {"layers": d["layers"], "trained": False,
                                 "error": str(e)}
    elif d:
        result["errors"].append("deepest: no depth's plan fit the cap here")
    if result["errors"]:
        result["status"] = "failed"
    return result


def torch_training(ctx, mode):
    import torch
    sys.path.insert(0, HERE)
    import gpt2_torch
    g = ctx.manifest.get("gpt2")
    if not g:
        raise PartFailed("no GPT-2 configuration in the manifest")
    result, errors = {"mode": mode, "torch": torch.__version__}, []
    for compute in COMPUTES:
        try:
            result[compute] = gpt2_torch.train(g["config"], compute, mode,
                                               steps=5 if ctx.smoke else 10)
            print("%s %s: %s" % (mode, compute, result[compute]), flush=True)
        except Exception as e:
            errors.append("%s %s: %s: %s" % (mode, compute,
                                             type(e).__name__, e))
            gpt2_torch.release()
    if errors:
        result.update(status="failed", errors=errors)
    return result


def part_torch_eager(ctx):
    return torch_training(ctx, "eager")


def part_torch_compile(ctx):
    return torch_training(ctx, "compile")


def part_jax(ctx, deadline):
    g = ctx.manifest.get("gpt2")
    if not g:
        raise PartFailed("no GPT-2 configuration in the manifest")
    env = dict(os.environ, XLA_PYTHON_CLIENT_PREALLOCATE="false")
    result, errors = {}, []
    for compute in COMPUTES:
        record = os.path.join(ctx.work, "jax-%s.json" % compute)
        cmd = [sys.executable, os.path.join(HERE, "gpt2_jax.py"), "--config",
               json.dumps(g["config"]), "--compute", compute, "--steps",
               str(5 if ctx.smoke else 10), "--json", record]
        print("+ " + " ".join(cmd), flush=True)
        try:
            done = subprocess.run(cmd, env=env, timeout=max(
                5, deadline - time.monotonic() - 2))
            if done.returncode != 0:
                raise PartFailed("gpt2_jax.py %s exit %d" % (compute,
                                                             done.returncode))
            result[compute] = json.load(open(record))
        except (PartFailed, subprocess.TimeoutExpired) as e:
            errors.append(str(e))
    if errors:
        result.update(status="failed", errors=errors)
    return result


def deepest_torch(ctx, mode):
    import torch
    sys.path.insert(0, HERE)
    import gpt2_torch
    d = ctx.manifest.get("deepest")
    if not d:
        raise PartFailed("no deepest-GPT configuration in the manifest")
    # Room for recompiles (a silent fall-back to eager would measure eager).
    for name in ("recompile_limit", "cache_size_limit"):
        if hasattr(torch._dynamo.config, name):
            setattr(torch._dynamo.config, name, 64)
    result = gpt2_torch.deepest(d["config"], "bf16", mode, d["cap_bytes"])
    result["config"] = d["config"]
    if mode != "eager":
        from torch._dynamo.utils import counters
        result["dynamo"] = {k: dict(v) for k, v in counters.items()
                            if k in ("stats", "frames")}
    return result


def part_deepest_eager(ctx):
    return deepest_torch(ctx, "eager")


def part_deepest_compile(ctx):
    return deepest_torch(ctx, "compile-blocks")


# --- the round ---------------------------------------------------------------

def run_part(args):
    """Inside a part's process: the part's figures, or its failure, to
    OUT/parts/<part>.json; exit 0 either way (the file says)."""
    ctx = Context(args)
    fn = globals()["part_" + args.part]
    t0 = time.monotonic()
    try:
        if args.part == "jax":
            result = fn(ctx, args.deadline)
        else:
            result = fn(ctx)
        if result.get("failures"):
            result.setdefault("status", "failed")
            result.setdefault("error", "%d of %d figures failed" % (
                result["failures"], len(result.get("rows", []))))
        result.setdefault("status", "ok")
    except Exception as e:
        import traceback
        traceback.print_exc()
        result = {"status": "failed", "error": "%s: %s" % (type(e).__name__,
                                                           e)}
    result["seconds"] = round(time.monotonic() - t0, 1)
    with open(os.path.join(ctx.out, "parts", args.part + ".json"), "w") as f:
        json.dump(result, f, indent=1)
    shutil.rmtree(ctx.work, ignore_errors=True)
    return 0


def device_info():
    try:
        done = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version,"
                               "memory.total", "--format=csv,noheader"],
                              capture_output=True, text=True)
    except OSError:
        return "unknown (no nvidia-smi)"
    return done.stdout.strip() if done.returncode == 0 else "unknown"


def launch(args, part, limit):
    """Starts a part's process (its own session, so that a timeout kills
    everything it started)."""
    record = os.path.join(args.out, "parts", part + ".json")
    if os.path.exists(record):
        os.remove(record)
    log = open(os.path.join(args.out, "logs", part + ".log"), "w")
    cmd = [sys.executable, os.path.abspath(__file__), args.dir, "--out",
           args.out, "--nova-run", args.nova_run, "--part", part,
           "--deadline", str(time.monotonic() + limit)]
    print("== %s (limit %.0f s)" % (part, limit), flush=True)
    proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT,
                            start_new_session=True)
    return proc, time.monotonic(), limit, log


def collect(args, part, proc, took, limit):
    record = os.path.join(args.out, "parts", part + ".json")
    if os.path.exists(record):
        result = json.load(open(record))
    else:
        result = {"status": "failed", "seconds": round(took, 1),
                  "error": "no result: the part %s after %.0f s (see "
                           "logs.txt, part %s)" % (
                               "ran out of time" if took >= limit else
                               "crashed (exit %s)" % proc.returncode, took,
                               part)}
    print("   %s %s in %.0f s%s" % (part, result["status"], took,
                                   "" if result["status"] == "ok" else
                                   ": " + str(result.get("error") or
                                              result.get("errors"))),
          flush=True)
    return result


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("dir")
    p.add_argument("--out", required=True)
    p.add_argument("--nova-run", help="default: DIR/bin/nova-run")
    p.add_argument("--budget", type=float, default=470,
                   help="seconds for the whole round (default 470)")
    p.add_argument("--parts", default=",".join(PARTS))
    p.add_argument("--jobs", type=int, default=1,
                   help="parts run at once (default 1: alone on the GPU, "
                        "for timings; more only to check that parts run)")
    p.add_argument("--merge", metavar="BENCH_JSON",
                   help="bench.json of an earlier call on the same prepared "
                        "DIR: its parts not run now join this report, each "
                        "marked with its call (a round too long for one "
                        "call; every ratio still pairs figures of one call)")
    p.add_argument("--part", help=argparse.SUPPRESS)
    p.add_argument("--deadline", type=float, help=argparse.SUPPRESS)
    args = p.parse_args()
    args.nova_run = args.nova_run or os.path.join(args.dir, "bin", "nova-run")
    if args.part:
        return run_part(args)

    for c in COMPUTES:
        if c not in ("tf32", "bf16"):
            sys.exit("run.py: error: BENCH_COMPUTES names '%s' (expected tf32 "
                     "or bf16)" % c)
    parts = args.parts.split(",")
    for part in parts:
        if part not in PARTS:
            sys.exit("run.py: error: unknown part '%s' (expected %s)"
                     % (part, ", ".join(PARTS)))
    manifest_path = os.path.join(args.dir, "manifest.json")
    if not os.path.exists(manifest_path):
        sys.exit("run.py: error: no %s (run prepare first)" % manifest_path)
    if not os.access(args.nova_run, os.X_OK):
        sys.exit("run.py: error: no nova-run at %s" % args.nova_run)
    for sub in ("parts", "logs"):
        os.makedirs(os.path.join(args.out, sub), exist_ok=True)
    manifest = json.load(open(manifest_path))
    earlier = None
    if args.merge:
        try:
            earlier = json.load(open(args.merge))
        except (OSError, ValueError) as e:
            sys.exit("run.py: error: --merge %s: %s" % (args.merge, e))
        if earlier.get("git") != manifest.get("git"):
            sys.exit("run.py: error: --merge %s was prepared at %s, this "
                     "round at %s" % (args.merge, earlier.get("git"),
                                      manifest.get("git")))
    start = time.monotonic()
    results = {}
    pending, running = list(parts), {}
    while pending or running:
        while pending and len(running) < args.jobs:
            part = pending.pop(0)
            left = args.budget - (time.monotonic() - start)
            limit = min(LIMITS[part], left)
            if limit < 5:
                results[part] = {"status": "failed",
                                 "error": "not run: the round's %.0f s "
                                          "budget was spent" % args.budget}
                continue
            running[part] = launch(args, part, limit)
        time.sleep(0.2)
        for part in list(running):
            proc, t0, limit, log = running[part]
            took = time.monotonic() - t0
            if proc.poll() is None and took < limit:
                continue
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
            log.close()
            del running[part]
            results[part] = collect(args, part, proc, took, limit)
    calls = [{"seconds": round(time.monotonic() - start, 1),
              "parts": list(results)}]
    if earlier:
        for part, result in earlier.get("parts", {}).items():
            if part not in results:
                results[part] = dict(result, call=1)
        calls = [{"seconds": earlier.get("seconds"),
                  "parts": [p for p in earlier.get("parts", {})
                            if results[p].get("call") == 1]}] + calls
        for part in calls[1]["parts"]:
            results[part]["call"] = 2
    bench = {"date": time.strftime("%Y-%m-%d", time.gmtime()),
             "calls": calls,
             "device": device_info(), "size": manifest.get("size"),
             "git": manifest.get("git"), "jobs": args.jobs,
             "seconds": round(
                 time.monotonic() - start, 1),
             "prepared": {k: manifest.get(k) for k in
                          ("created", "failed", "learning_rate")},
             "compile": manifest.get("gpt2", {}).get("compile_s"),
             "parts": results}
    with open(os.path.join(args.out, "bench.json"), "w") as f:
        json.dump(bench, f, indent=1)
    # Few files to bring back: the parts' figures are in bench.json, their
    # logs go into one file.
    with open(os.path.join(args.out, "logs.txt"), "w") as out:
        for part in parts:
            path = os.path.join(args.out, "logs", part + ".log")
            if os.path.exists(path):
                out.write("===== %s\n%s\n" % (part, open(path).read()))
    for sub in ("parts", "logs"):
        shutil.rmtree(os.path.join(args.out, sub), ignore_errors=True)
    failed = [k for k, v in results.items() if v.get("status") != "ok"]
    report = subprocess.run([sys.executable, os.path.join(HERE, "report.py"),
                             os.path.join(args.out, "bench.json"), "--md",
                             os.path.join(args.out, "bench.md"), "--png",
                             os.path.join(args.out, "bench.png")])
    print("round: %.0f s; parts failed: %s; report %s" % (
        time.monotonic() - start, ", ".join(failed) or "none",
        "ok" if report.returncode == 0 else "FAILED"))
    return 1 if failed or report.returncode != 0 else 0


if __name__ == "__main__":
    sys.exit(main())
