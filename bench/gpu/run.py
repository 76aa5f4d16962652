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
                   against torch SDPA with its default backend selection
                   (the peer), and SDPA forced to flash and to cuDNN
  nova_train       GPT-2 training with nova-run --train at each vocabulary
                   (tokens/s, peak), nova-run --profile of the step at the
                   first (per-kernel bytes / time)
  torch_eager      GPT-2 training in PyTorch eager, TF32 and bf16, at each
                   vocabulary
  torch_compile    the same, the whole model under torch.compile (default
                   mode)
  jax              the same in JAX/XLA (bench/gpu/gpt2_jax.py)
  cap_nova         the memory cap: the deepest GPT whose plan fits, trained
                   under nova-run --memory-limit with the measured peak
                   checked against the cap, and the next depth, which
                   nova-run must refuse
  cap_eager        the deepest GPT that trains under the same cap in
                   PyTorch eager (set_per_process_memory_fraction), searched
                   to the first depth that fails, one process a trial
  cap_checkpoint   the same with activation checkpointing per block
  cap_compile      the same, the whole model under torch.compile
  cap_jax          the same in JAX (XLA_PYTHON_CLIENT_MEM_FRACTION)
  torch_compile_max  GPT-2 bf16 under torch.compile with mode
                   "max-autotune-no-cudagraphs", as far as its time limit
                   allows (optional: running out of time fails nothing)
Every cap trial reports the NVML process peak (context included), sampled
every 10 ms. All times on the GPU are CUDA events after warm-up runs.
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
         "torch_compile", "jax", "cap_nova", "cap_eager", "cap_checkpoint",
         "cap_compile", "cap_jax", "torch_compile_max"]
# Parts whose running out of time is a figure left out, not a failure.
OPTIONAL = {"torch_compile_max"}
# The training parts' precisions (BENCH_COMPUTES=bf16 times bf16 alone, for
# a call too short for both).
COMPUTES = [c for c in os.environ.get("BENCH_COMPUTES", "tf32,bf16").split(",")
            if c]
# Each part's time limit (s); the round's budget caps them further.
LIMITS = {"bandwidth": 30, "gemm": 150, "attention": 60, "nova_train": 180,
          "torch_eager": 90, "torch_compile": 260, "jax": 200,
          "cap_nova": 90, "cap_eager": 120, "cap_checkpoint": 150,
          "cap_compile": 450, "cap_jax": 200, "torch_compile_max": 240}


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


def initial_parameters(params, path, seed=7, device="cuda"):
    """Nova's initialization (as scripts/gpu/gpt2_parity.py): N(0, 0.02)
    weights, zero biases, unit LayerNorm scales, made on `device` (the cap
    parts make them on the CPU: their process holds no CUDA context) and
    saved."""
    import torch
    gen = torch.Generator(device=device).manual_seed(seed)
    out = {}
    for name, shape in params:
        if re.search(r"ln_[12f]\.weight$", name):
            out[name] = torch.ones(shape, device=device)
        elif name.endswith(".bias"):
            out[name] = torch.zeros(shape, device=device)
        else:
            out[name] = torch.randn(shape, generator=gen,
                                    device=device) * 0.02
    write_safetensors(path, out)


def random_batches(cfg, steps, path, seed=8):
    """Tokens and targets below the real vocabulary (token_bound)."""
    import torch
    gen = torch.Generator().manual_seed(seed)
    shape = (steps, cfg["batch"], cfg["seq"])
    bound = cfg.get("token_bound", cfg["vocab"])
    write_safetensors(path, {n: torch.randint(0, bound, shape,
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


SDPA_BACKENDS = [("sdpa_ms", None), ("sdpa_flash_ms", "FLASH_ATTENTION"),
                 ("sdpa_cudnn_ms", "CUDNN_ATTENTION")]


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
        shape = (c["b"], c["h"], c["t"], c["d"])
        q, k, v, do = (torch.randn(shape, device="cuda", dtype=torch.bfloat16,
                                   requires_grad=i < 3) for i in range(4))

        def fwd():
            return F.scaled_dot_product_attention(q, k, v, is_causal=True)

        def fwd_bwd():
            o = fwd()
            return torch.autograd.grad(o, (q, k, v), do)

        fn = fwd if c["pass"] == "fwd" else fwd_bwd
        # The peer is SDPA as a user calls it (its default backend
        # selection); flash and cuDNN forced are printed beside it.
        for key, backend in SDPA_BACKENDS:
            try:
                if backend is None:
                    row[key], _ = event_times(fn, iters)
                else:
                    with sdpa_kernel(getattr(SDPBackend, backend)):
                        row[key], _ = event_times(fn, iters)
            except Exception as e:
                row[key.replace("_ms", "_error")] = "%s: %s" % (
                    type(e).__name__, str(e).splitlines()[0][:200])
        del q, k, v, do
        if row.get("nova_ms") and row.get("sdpa_ms"):
            row["ratio"] = row["sdpa_ms"] / row["nova_ms"]
            row["nova_tflops"] = row["flops"] / row["nova_ms"] / 1e9
            row["sdpa_tflops"] = row["flops"] / row["sdpa_ms"] / 1e9
        else:
            failures += 1
        print("attention %s: nova %s ms, sdpa default %s, flash %s, cudnn %s"
              % (c["name"], row.get("nova_ms"), row.get("sdpa_ms"),
                 row.get("sdpa_flash_ms"), row.get("sdpa_cudnn_ms")),
              flush=True)
        rows.append(row)
    return {"rows": rows, "failures": failures,
            "configuration": "PyTorch %s F.scaled_dot_product_attention("
                             "is_causal=True), bf16, default backend "
                             "selection" % torch.__version__.split("+")[0]}


def vocab_configs(ctx):
    """The GPT-2 configuration at each vocabulary of the round."""
    g = ctx.manifest.get("gpt2")
    if not g:
        raise PartFailed("no GPT-2 configuration in the manifest")
    return [dict(g["config"], vocab=v) for v in g.get("vocabs",
                                                     [g["config"]["vocab"]])]


def part_nova_train(ctx):
    g = ctx.manifest.get("gpt2")
    if not g or not g.get("params"):
        raise PartFailed("no GPT-2 step prepared")
    steps = 8 if ctx.smoke else 12
    lr = ctx.manifest.get("learning_rate", 6e-4)
    result = {"config": g["config"], "compile_s": g.get("compile_s"),
              "planned_bytes": g.get("planned_bytes"), "train": {},
              "profile": {}, "errors": [],
              "configuration": "Nova %s: nova-compile --target=h200 "
                               "--compute=C, nova-run --train (one CUDA "
                               "graph a step)" % ctx.manifest.get("git")}
    for cfg in vocab_configs(ctx):
        v = str(cfg["vocab"])
        if v not in g["params"]:
            result["errors"].append("vocabulary %s: no step prepared" % v)
            continue
        init = os.path.join(ctx.work, "init.safetensors")
        moments = os.path.join(ctx.work, "moments.safetensors")
        batches = os.path.join(ctx.work, "batches.safetensors")
        initial_parameters(g["params"][v], init)
        write_zeros_safetensors(moments, [[n + suffix, s]
                                          for n, s in g["params"][v]
                                          for suffix in (".adam_m",
                                                         ".adam_v")])
        random_batches(cfg, steps, batches)
        result["train"][v] = {}
        for compute in COMPUTES:
            nvx = g["steps"].get(v, {}).get(compute)
            if not nvx:
                result["errors"].append("v%s %s: no step compiled" %
                                        (v, compute))
                continue
            try:
                log = ctx.nova([ctx.path(nvx), "--train", "--steps", steps,
                                "--batches", batches, "--params", init,
                                "--lr", lr, "--log-every", 1],
                               "train v%s %s" % (v, compute))
                result["train"][v][compute] = nova_training_figures(log)
            except PartFailed as e:
                result["errors"].append(str(e))
            if v != str(g["vocabs"][0]):
                continue
            # Per-kernel times of one step from the same state (parameters,
            # zero moments, step 1); tokens and targets random below the
            # vocabulary, as the training batches are (nova-run's default
            # bound, 16, would put all tokens on 16 rows of the embedding
            # gradient: atomics contention instead of the real kernel).
            try:
                record = os.path.join(ctx.work, "profile.json")
                ctx.nova([ctx.path(nvx), "--entry", "train_step", "--inputs",
                          ",".join([init, moments,
                                    ctx.path(ctx.manifest["scalars"])]),
                          "--random-inputs", 1, "--random-int-bound",
                          cfg.get("token_bound", cfg["vocab"]), "--profile",
                          "--iterations", 3 if ctx.smoke else 5, "--warmup",
                          1, "--timing-json", record], "profile " + compute)
                result["profile"][compute] = json.load(open(record))
            except PartFailed as e:
                result["errors"].append(str(e))
        os.remove(init)
    if result["errors"]:
        result["status"] = "failed"
    return result


def torch_training(ctx, mode, computes=None, vocabs=None, record=None):
    import torch
    sys.path.insert(0, HERE)
    import gpt2_torch
    result = {"mode": mode, "torch": torch.__version__}
    errors = []
    for cfg in vocab_configs(ctx):
        v = str(cfg["vocab"])
        if vocabs and v not in vocabs:
            continue
        for compute in computes or COMPUTES:
            try:
                result.setdefault(v, {})[compute] = gpt2_torch.train(
                    cfg, compute, mode, steps=5 if ctx.smoke else 10)
                print("%s v%s %s: %s" % (mode, v, compute,
                                         result[v][compute]), flush=True)
            except Exception as e:
                errors.append("%s v%s %s: %s: %s" % (mode, v, compute,
                                                     type(e).__name__, e))
            gpt2_torch.release()
            if record:
                record(dict(result, status="ok"))
    if errors:
        result.update(status="failed", errors=errors)
    return result


def part_torch_eager(ctx):
    return torch_training(ctx, "eager")


def part_torch_compile(ctx):
    return torch_training(ctx, "compile")


def part_torch_compile_max(ctx):
    """max-autotune-no-cudagraphs takes minutes to tune: bf16 at the padded
    vocabulary first (the peer's faster row), then the unpadded one, each
    written as it finishes (a part stopped by its time limit keeps the
    rows it finished)."""
    path = os.path.join(ctx.out, "parts", "torch_compile_max.json")

    def record(partial):
        with open(path, "w") as f:
            json.dump(dict(partial, unfinished=True), f, indent=1)

    vocabs = [str(c["vocab"]) for c in vocab_configs(ctx)][::-1]
    result = {}
    for v in vocabs:
        r = torch_training(ctx, "compile-max", ["bf16"], [v], record)
        for key, value in r.items():
            if key == "errors":
                result.setdefault("errors", []).extend(value)
            else:
                result[key] = value
    return result


def part_jax(ctx, deadline):
    env = dict(os.environ, XLA_PYTHON_CLIENT_PREALLOCATE="false")
    result, errors = {}, []
    for cfg in vocab_configs(ctx):
        v = str(cfg["vocab"])
        for compute in COMPUTES:
            record = os.path.join(ctx.work, "jax-%s-%s.json" % (v, compute))
            cmd = [sys.executable, os.path.join(HERE, "gpt2_jax.py"),
                   "--config", json.dumps(cfg), "--compute", compute,
                   "--steps", str(5 if ctx.smoke else 10), "--json", record]
            print("+ " + " ".join(cmd), flush=True)
            try:
                done = subprocess.run(cmd, env=env, timeout=max(
                    5, deadline - time.monotonic() - 2))
                if done.returncode != 0:
                    raise PartFailed("gpt2_jax.py v%s %s exit %d" % (
                        v, compute, done.returncode))
                result.setdefault(v, {})[compute] = json.load(open(record))
            except (PartFailed, subprocess.TimeoutExpired) as e:
                errors.append(str(e))
    if errors:
        result.update(status="failed", errors=errors)
    return result


# --- the memory cap ----------------------------------------------------------

class NvmlPeak:
    """The largest device memory NVML reports for a process (and its
    children), sampled every `interval` seconds from a thread: the CUDA
    context, the allocator's pools and the library workspaces, everything
    the process holds (None when NVML never lists it: a process refused
    before it opened the device). The round runs its parts one at a time:
    some virtual machines' NVML reports the device's whole use for each
    process."""

    def __init__(self, pid, interval=0.01):
        import threading
        self.pid, self.interval = pid, interval
        self.peak, self.scope, self.samples = 0, None, 0
        self.tree = {pid}
        self.stop = threading.Event()
        self.query = self._nvml() or self._smi
        self.thread = threading.Thread(target=self._poll, daemon=True)
        self.thread.start()

    def _nvml(self):
        try:
            import pynvml
            pynvml.nvmlInit()
            handle = pynvml.nvmlDeviceGetHandleByIndex(0)
        except Exception:
            return None

        def query():
            procs = pynvml.nvmlDeviceGetComputeRunningProcesses(handle)
            return [(p.pid, p.usedGpuMemory or 0) for p in procs]
        self.source = "pynvml"
        return query

    def _smi(self):
        self.source = "nvidia-smi"
        done = subprocess.run(["nvidia-smi", "--query-compute-apps=pid,"
                               "used_memory", "--format=csv,noheader,"
                               "nounits"], capture_output=True, text=True)
        out = []
        for line in done.stdout.splitlines():
            parts = [x.strip() for x in line.split(",")]
            if len(parts) == 2 and parts[0].isdigit() and parts[1].isdigit():
                out.append((int(parts[0]), int(parts[1]) << 20))
        return out

    def _children(self):
        kids = set(self.tree)
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                stat = open("/proc/%s/stat" % entry).read()
                ppid = int(stat.rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            if ppid in kids:
                kids.add(int(entry))
        self.tree = kids

    def _poll(self):
        last_scan = 0.0
        while not self.stop.is_set():
            if time.monotonic() - last_scan > 0.5:
                self._children()
                last_scan = time.monotonic()
            try:
                procs = self.query()
            except Exception:
                procs = []
            mine = [m for p, m in procs if p in self.tree]
            if mine:
                self.peak, self.scope = max(self.peak, sum(mine)), "process"
            self.samples += 1
            self.stop.wait(self.interval)

    def finish(self):
        self.stop.set()
        self.thread.join()
        return {"nvml_peak_bytes": self.peak or None,
                "nvml_scope": self.scope, "nvml_source": self.source,
                "nvml_samples": self.samples}


def watched(cmd, timeout, env=None):
    """Runs cmd with its NVML peak sampled: (exit status, stdout, stderr,
    NVML figures); a timeout is exit status None."""
    print("+ " + " ".join(str(c) for c in cmd), flush=True)
    proc = subprocess.Popen([str(c) for c in cmd], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env,
                            start_new_session=True)
    peak = NvmlPeak(proc.pid)
    try:
        out, err = proc.communicate(timeout=max(1, timeout))
        code = proc.returncode
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        code = None
    figures = peak.finish()
    sys.stdout.write(out[-3000:])
    sys.stdout.write(err[-3000:])
    return code, out, err, figures


def cap_config(ctx):
    d = ctx.manifest.get("deepest")
    if not d:
        raise PartFailed("no memory-cap configuration in the manifest")
    return d, dict(d["config"], token_bound=d["config"]["vocab"])


def depth_search(trial, start, cap, deadline, coefficient, max_trials=8):
    """The deepest depth that trains under the cap, searched to the first
    depth that fails. trial(L) returns a dict with fits and, when it fits,
    peak (the bytes the cap binds). A first trial at `start` layers gives
    the fixed bytes; `coefficient` (bytes a layer, a guess) predicts the
    depth; each fitting trial refines the bytes a layer; then neighbours
    until depth L fits and L + 1 does not."""
    trials = {}

    def run(layers):
        if layers not in trials:
            trials[layers] = trial(layers)
            r = trials[layers]
            print("cap: %d layers %s (peak %s, NVML %s, %.1f s)" % (
                layers, "fit" if r["fits"] else "failed",
                r.get("peak"), r.get("nvml_peak_bytes"),
                r.get("seconds", 0)), flush=True)
        return trials[layers]["fits"]

    lo, hi, probe = 0, None, start
    while len(trials) < max_trials and time.monotonic() < deadline:
        if run(probe):
            lo = max(lo, probe)
        else:
            hi = probe if hi is None else min(hi, probe)
        if hi is not None and (hi == lo + 1 or hi == 1):
            break
        fitted = sorted((n, r["peak"]) for n, r in trials.items()
                        if r["fits"] and r.get("peak"))
        per_layer = coefficient
        if len(fitted) >= 2 and fitted[-1][0] > fitted[0][0]:
            per_layer = ((fitted[-1][1] - fitted[0][1]) /
                         (fitted[-1][0] - fitted[0][0]))
        if lo and per_layer > 0:
            peak_lo = trials[lo].get("peak") or 0
            predicted = lo + int((cap - peak_lo) // per_layer)
        else:
            predicted = None
        upper = hi if hi is not None else 1 << 20
        if predicted is not None and lo < predicted < upper and \
                predicted not in trials:
            probe = predicted
        elif lo + 1 < upper and lo + 1 not in trials and (
                predicted is None or predicted <= lo):
            probe = lo + 1
        elif hi is not None and lo == 0:
            probe = max(1, hi // 2)
        elif hi is not None:
            probe = (lo + hi) // 2
            if probe in trials:
                probe = lo + 1
        else:
            probe = lo + 1
    exact = lo > 0 and (lo + 1) in trials and not trials[lo + 1]["fits"]
    return {"layers": lo or None, "exact": exact,
            "first_failure": lo + 1 if exact else None,
            "trials": {str(k): v for k, v in sorted(trials.items())}}


def cap_result(ctx, d, search, configuration, errors):
    """The search's figures with the device-side check: every fitting
    trial's peak at or under the cap."""
    result = dict(search, cap_bytes=d["cap_bytes"], config=d["config"],
                  configuration=configuration)
    deepest = search["trials"].get(str(search["layers"])) or {}
    result["deepest"] = deepest
    for n, r in search["trials"].items():
        if r["fits"] and (r.get("peak") or 0) > d["cap_bytes"]:
            errors.append("%s layers: peak %s bytes above the cap %d" % (
                n, r.get("peak"), d["cap_bytes"]))
    if not search["exact"]:
        errors.append("the search found no first failure (deepest fit %s; "
                      "%d trials)" % (search["layers"],
                                      len(search["trials"])))
    if errors:
        result.update(status="failed", errors=errors)
    return result


def part_cap_nova(ctx):
    d, cfg = cap_config(ctx)
    if not d.get("nvx"):
        raise PartFailed("no depth's plan fit the cap when prepared")
    cap = d["cap_bytes"]
    init = os.path.join(ctx.work, "deep-init.safetensors")
    batches = os.path.join(ctx.work, "deep-batches.safetensors")
    initial_parameters(d["params"], init, device="cpu")
    random_batches(dict(cfg, layers=d["layers"]), 2, batches)
    lr = ctx.manifest.get("learning_rate", 6e-4)
    errors, trials = [], {}
    for layers, nvx in ((d["layers"], d["nvx"]),
                        (d["layers"] + 1, d.get("next_nvx"))):
        t0 = time.monotonic()
        code, out, err, nvml = watched(
            [ctx.nova_run, ctx.path(nvx), "--train", "--steps", 2,
             "--batches", batches, "--params", init, "--lr", lr,
             "--log-every", 1, "--memory-limit", cap], 120)
        r = dict(nvml, seconds=round(time.monotonic() - t0, 1),
                 exit=code)
        refused = re.search(r"needs (\d+) bytes .* above --memory-limit", err)
        if code == 0:
            figures = nova_training_figures(out, skip=1)
            r.update(fits=True, peak=figures["peak_bytes"],
                     planned=figures["planned_peak_bytes"],
                     losses=[figures["first_loss"], figures["last_loss"]],
                     tokens_per_s=figures["tokens_per_s"])
            if figures["peak_bytes"] is None:
                errors.append("%d layers: no measured peak" % layers)
        elif refused:
            r.update(fits=False, planned=int(refused.group(1)),
                     error="refused by --memory-limit: " +
                     err.strip().splitlines()[-1][:300])
        else:
            r.update(fits=False, error="nova-run exit %s: %s" % (
                code, (err.strip().splitlines() or ["?"])[-1][:300]))
            errors.append("%d layers: %s" % (layers, r["error"]))
        trials[layers] = r
        print("cap nova: %d layers %s" % (layers, r), flush=True)
    search = {"layers": d["layers"],
              "exact": trials[d["layers"]]["fits"] and
              not trials[d["layers"] + 1]["fits"],
              "first_failure": d["layers"] + 1,
              "trials": {str(k): v for k, v in trials.items()}}
    if not trials[d["layers"]]["fits"]:
        search["layers"] = None
    return cap_result(ctx, d, search,
                      "Nova %s: nova-compile --compute=bf16, nova-run --train "
                      "--memory-limit %d (the plan refused above it; the "
                      "measured peak checked against it)" % (
                          ctx.manifest.get("git"), cap), errors)


# Bytes a layer (a first guess; the trials refine it) in units of
# B x T x C: the parameters, gradients and AdamW moments (16 bytes a
# parameter, 12 C^2 parameters a layer) come on top. Whole-model
# torch.compile measured 30 (0.30 GB a layer at C768 B8 T1024 between 2
# and 19 layers, H100, 2026-12-08): a first probe near the answer saves a
# trial of a minute or more.
ACTIVATION_GUESS = {"eager": 64, "checkpoint": 4, "compile": 30, "jax": 30}


def cap_trial(ctx, layers, errors, deadline, script, *args, env=None):
    """One depth trial under the cap, in a process of its own: `script`
    (beside this file) with `args` and --json RECORD. Returns (the record,
    or a failure naming the script's last error line, which joins
    `errors`; the NVML peak of the process; whether the record is the
    script's own)."""
    record = os.path.join(ctx.work, "trial.json")
    if os.path.exists(record):
        os.remove(record)
    code, out, err, nvml = watched(
        [sys.executable, os.path.join(HERE, script), *args, "--json", record],
        deadline - time.monotonic() - 2, env=env)
    if code != 0 or not os.path.exists(record):
        r = {"fits": False, "error": "%s exit %s: %s" % (
            script, code, (err.strip().splitlines() or ["?"])[-1][:300])}
        errors.append("%d layers: %s" % (layers, r["error"]))
        return r, nvml, False
    return json.load(open(record)), nvml, True


def torch_cap(ctx, mode, deadline):
    import torch  # noqa: F401  (no CUDA in this process: trials have it)
    sys.path.insert(0, HERE)
    import gpt2_torch
    d, cfg = cap_config(ctx)
    cap = d["cap_bytes"]
    errors = []

    def trial(layers):
        r, nvml, ran = cap_trial(ctx, layers, errors, deadline,
                                 "cap_trial.py", "--mode", mode, "--config",
                                 json.dumps(cfg), "--layers", layers, "--cap",
                                 cap)
        if ran:
            # The cap binds the allocator's reserved memory.
            r["peak"] = r.get("peak_reserved_bytes") if r["fits"] else None
        r.update(nvml)
        return r

    B, T, C = cfg["batch"], cfg["seq"], cfg["embd"]
    per_layer = 16 * 12 * C * C + ACTIVATION_GUESS[mode] * B * T * C
    search = depth_search(trial, 2, cap, deadline - 5, per_layer)
    return cap_result(ctx, d, search,
                      gpt2_torch.configuration(mode, "bf16") +
                      "; torch.cuda.set_per_process_memory_fraction(%d / "
                      "device memory)" % cap, errors)


def part_cap_eager(ctx, deadline):
    return torch_cap(ctx, "eager", deadline)


def part_cap_checkpoint(ctx, deadline):
    return torch_cap(ctx, "checkpoint", deadline)


def part_cap_compile(ctx, deadline):
    return torch_cap(ctx, "compile", deadline)


def part_cap_jax(ctx, deadline):
    d, cfg = cap_config(ctx)
    cap = d["cap_bytes"]
    total = device_memory()
    env = dict(os.environ, XLA_PYTHON_CLIENT_PREALLOCATE="false",
               XLA_PYTHON_CLIENT_MEM_FRACTION="%.6f" % (cap / total))
    errors, configuration = [], []

    def trial(layers):
        r, nvml, ran = cap_trial(ctx, layers, errors, deadline,
                                 "gpt2_jax.py", "--config", json.dumps(cfg),
                                 "--trial", layers, env=env)
        if ran:
            r["peak"] = r.get("peak_bytes") if r["fits"] else None
            configuration.append(r.get("configuration"))
            # The limit XLA enforced must be the cap (within its rounding).
            if r.get("limit_bytes") and r["limit_bytes"] > cap:
                errors.append("%d layers: XLA's limit %d above the cap" % (
                    layers, r["limit_bytes"]))
        r.update(nvml)
        return r

    B, T, C = cfg["batch"], cfg["seq"], cfg["embd"]
    per_layer = 16 * 12 * C * C + ACTIVATION_GUESS["jax"] * B * T * C
    search = depth_search(trial, 2, cap, deadline - 5, per_layer)
    return cap_result(ctx, d, search,
                      (next((c for c in configuration if c), "JAX") +
                       "; XLA_PYTHON_CLIENT_MEM_FRACTION=%s, "
                       "XLA_PYTHON_CLIENT_PREALLOCATE=false" %
                       env["XLA_PYTHON_CLIENT_MEM_FRACTION"]), errors)


def device_memory():
    """The device's memory in bytes (nvidia-smi; no CUDA context here)."""
    done = subprocess.run(["nvidia-smi", "--query-gpu=memory.total",
                           "--format=csv,noheader,nounits"],
                          capture_output=True, text=True)
    try:
        return int(done.stdout.split()[0]) << 20
    except (IndexError, ValueError):
        raise PartFailed("nvidia-smi gave no device memory")


# --- the round ---------------------------------------------------------------

def run_part(args):
    """Inside a part's process: the part's figures, or its failure, to
    OUT/parts/<part>.json; exit 0 either way (the file says)."""
    ctx = Context(args)
    fn = globals()["part_" + args.part]
    t0 = time.monotonic()
    try:
        if args.part == "jax" or args.part.startswith("cap_") and \
                args.part != "cap_nova":
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
        if result.pop("unfinished", False):
            # An optional part stopped by its time limit keeps the rows it
            # finished.
            result.update(status="ok" if part in OPTIONAL else "failed",
                          note="stopped by its %.0f s time limit; the rows "
                               "it finished are kept" % limit)
            result.setdefault("seconds", round(took, 1))
    elif part in OPTIONAL and took >= limit:
        result = {"status": "ok", "seconds": round(took, 1), "empty": True,
                  "note": "did not finish within its %.0f s time limit"
                          % limit}
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
                  "command": earlier.get("command"),
                  "parts": [p for p in earlier.get("parts", {})
                            if results[p].get("call") == 1]}] + calls
        for part in calls[1]["parts"]:
            results[part]["call"] = 2
    command = "scripts/gpu/bench-round.sh run DIR" + "".join(
        " (%s=%s)" % (k, os.environ[k]) for k in
        ("BENCH_RUN_PARTS", "BENCH_COMPUTES", "BENCH_BUDGET", "BENCH_MERGE")
        if os.environ.get(k))
    calls[-1]["command"] = command
    bench = {"date": time.strftime("%Y-%m-%d", time.gmtime()),
             "calls": calls, "command": command,
             "device": device_info(), "size": manifest.get("size"),
             "git": manifest.get("git"), "jobs": args.jobs,
             "seconds": round(
                 time.monotonic() - start, 1),
             "prepared": {k: manifest.get(k) for k in
                          ("created", "failed", "learning_rate", "size")},
             "prepare_command": manifest.get("command"),
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
