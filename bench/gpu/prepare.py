#!/usr/bin/env python3
"""The half of the benchmark round that runs here (the GPU machine has no
MLIR): compiles every Nova input of the round with this tree's tools and
writes DIR/manifest.json, which the GPU half (bench/gpu/run.py) reads for
the shapes, the files and the figures measured here. Python's standard
library only (no numpy, no torch).

  prepare.py DIR

Writes, under DIR:
  gemm/<dtype>_<M>x<K>x<N>.nvx        one nova.matmul (gemm.mlir.in): bf16
                                      operands, or f32 ones on TF32 tensor
                                      cores (compute=tf32)
  attention/<name>.nvx                causal attention forward, and forward
                                      + backward (attention_*.mlir.in)
  gpt2/v<V>/<compute>.nvx             the GPT-2 training step (nova-gpt2,
                                      nova-compile) at each vocabulary V
                                      (50257 and the padded 50304), with
                                      the cold and warm compile times of the
                                      first
  deepest/L<n>.nvx, L<n+1>.nvx        the deepest GPT (B8 T1024 C768, bf16)
                                      whose planned device memory (as
                                      nova-run --memory-limit counts it)
                                      fits the cap, and the next depth,
                                      which nova-run must refuse under it
  scalars.safetensors                 step = 1 and lr for profiling a step
  manifest.json                       all of the above, failures included

Environment:
  NOVA_BIN      the tools (default: <repo>/build/bin)
  BENCH_SIZE    full (default) or smoke (small shapes and models, to check
                that every part runs)
  BENCH_PARTS   which parts to prepare, comma-separated, from gemm,
                attention, gpt2, deepest (default: all)
  BENCH_GEMM    GEMM shapes MxKxN, comma-separated (default: the size's)
  BENCH_GEMM_DTYPES  bf16,tf32 (default both)
  BENCH_TF32_WGMMA  0: TF32 products on mma.sync (convert-tile-to-gpu's
                tf32-wgmma=false); default: wgmma, operands rounded to TF32
  BENCH_GEMM_LAYOUT  nt (default: C = A B^T, B stored [N, K] as nn.Linear's
                weight), nn (B stored [K, N]) or tn (C = A^T B, A stored
                [K, M]: a weight gradient); cuBLAS gets the same

Exit status 1 when anything failed to compile (the manifest is still
written, the failed items marked, so the GPU half reports them as failed).
"""
import json
import math
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
GIB = 1 << 30

# The shapes: squares, GPT-2 124M's products at B16 T1024 (M =
# 16384 tokens), and ragged ones (odd sizes, the vocabulary 50257).
FULL_GEMM = [(1024, 1024, 1024), (2048, 2048, 2048), (4096, 4096, 4096),
             (8192, 8192, 8192), (16384, 768, 2304), (16384, 768, 3072),
             (16384, 3072, 768), (16384, 768, 50304), (1000, 1000, 1000),
             (4095, 1023, 4097), (16384, 768, 50257)]
SMOKE_GEMM = [(1024, 1024, 1024), (2048, 768, 2304), (1000, 1000, 1000),
              (4095, 1023, 4097)]
GPT2_SHAPES = {(16384, 768, 2304), (16384, 768, 3072), (16384, 3072, 768),
               (16384, 768, 50304)}
SQUARE_BARS = {(4096, 4096, 4096), (8192, 8192, 8192)}
GEMM_LAYOUT = os.environ.get("BENCH_GEMM_LAYOUT", "nt")
# BENCH_TF32_WGMMA=0: TF32 products on mma.sync instead of wgmma.
TILE_TO_GPU = ("=tf32-wgmma=false" if os.environ.get("BENCH_TF32_WGMMA") == "0"
               else "")
if GEMM_LAYOUT not in ("nt", "nn", "tn"):
    sys.exit("prepare: error: BENCH_GEMM_LAYOUT must be nt, nn or tn, got '%s'"
             % GEMM_LAYOUT)

SIZES = {
    "full": {
        "gemm": FULL_GEMM,
        # B, H, T, D: GPT-2's attention, and a long sequence with D 128
        # (the same 16K tokens per launch).
        "attention": [(16, 12, 1024, 64), (4, 12, 4096, 128)],
        "gpt2": {"layers": 12, "heads": 12, "embd": 768, "vocab": 50257,
                 "seq": 1024, "batch": 16},
        # The unpadded vocabulary and the padded one (a multiple of 64)
        # that nanoGPT and llm.c users pick; tokens stay below the first.
        "vocabs": [50257, 50304],
        "deepest": {"heads": 12, "embd": 768, "vocab": 50257, "seq": 1024,
                    "batch": 8, "cap_bytes": 12 * GIB},
    },
    "smoke": {
        "gemm": SMOKE_GEMM,
        "attention": [(2, 4, 256, 64)],
        "gpt2": {"layers": 2, "heads": 4, "embd": 256, "vocab": 8191,
                 "seq": 256, "batch": 8},
        "vocabs": [8191, 8256],
        "deepest": {"heads": 4, "embd": 256, "vocab": 8191, "seq": 256,
                    "batch": 8, "cap_bytes": GIB // 2},
    },
}
PARTS = ("gemm", "attention", "gpt2", "deepest")
LEARNING_RATE = 6e-4


def log(msg):
    print("prepare: " + msg, flush=True)


class Prepare:
    def __init__(self, out, tools, size, parts, gemm_shapes):
        self.out = out
        self.gemm_shapes = gemm_shapes
        self.tools = tools
        self.size = size
        self.parts = parts
        self.failed = []
        # Kernel caches live outside DIR (DIR travels to the GPU machine).
        self.scratch = tempfile.mkdtemp(prefix="nova-bench-")
        self.cache = os.path.join(self.scratch, "cache")

    def tool(self, name):
        return os.path.join(self.tools, name)

    def run(self, what, cmd):
        """Runs `cmd`; on failure records `what` with the tail of its
        messages and returns None, else its stdout."""
        done = subprocess.run(cmd, capture_output=True, text=True)
        if done.returncode != 0:
            tail = (done.stderr or done.stdout).strip().splitlines()[-6:]
            log("FAILED %s (exit %d):\n  %s" % (what, done.returncode,
                                               "\n  ".join(tail)))
            self.failed.append({"what": what, "exit": done.returncode,
                                "message": "\n".join(tail)})
            return None
        return done.stdout

    def forward(self, what, template, subst, stem, compute):
        """A plain function (no parameters, no training step) through the
        stages of nova-compile's pipeline after autodiff: precision, fusion,
        kernels, memory plan, convert-tile-to-gpu, then the executable."""
        text = open(os.path.join(HERE, template)).read()
        for key, value in subst.items():
            text = text.replace("@%s@" % key, str(value))
        mlir = stem + ".mlir"
        with open(mlir, "w") as f:
            f.write(text)
        gpu = os.path.join(self.scratch, os.path.basename(stem) + ".gpu.mlir")
        # As nova-gpu-pipeline's gemm-kernels=auto on the H200: single GEMM
        # kernels in bf16 and TF32 (the wgmma form, with padded copies of
        # operands whose rows TMA cannot load), grouped ones in f32.
        fuse = "--nova-fuse" + ("=single-gemms=true"
                                if compute in ("bf16", "tf32") else "")
        ok = self.run(what, [
            self.tool("nova-opt"), mlir, "--nova-autocast=compute=" + compute,
            "--canonicalize", "--cse", fuse, "--convert-nova-to-tile",
            "--nova-configure=target=h200", "--nova-outline-kernels",
            "--nova-bufferize", "--nova-plan-memory",
            "--convert-tile-to-gpu" + TILE_TO_GPU,
            "-o", gpu]) is not None and self.run(what, [
                self.tool("nova-translate"), "--nova-to-executable", gpu,
                "-o", stem + ".nvx", "--nova-cache-dir", self.cache]) is not None
        return os.path.relpath(stem + ".nvx", self.out) if ok else None

    def gemm(self):
        shapes, dtypes = self.gemm_shapes
        os.makedirs(os.path.join(self.out, "gemm"), exist_ok=True)
        cases = []
        for dtype in dtypes:
            for m, k, n in shapes:
                name = "%s_%dx%dx%d" % (dtype, m, k, n)
                group = ("gpt2" if (m, k, n) in GPT2_SHAPES else
                         "square" if m == k == n and not m & (m - 1) else
                         "ragged")
                nt, tn = GEMM_LAYOUT == "nt", GEMM_LAYOUT == "tn"
                nvx = self.forward(
                    "gemm " + name, "gemm.mlir.in",
                    {"M": m, "K": k, "N": n,
                     "T": "bf16" if dtype == "bf16" else "f32",
                     "ASHAPE": "%dx%d" % ((k, m) if tn else (m, k)),
                     "BSHAPE": "%dx%d" % ((n, k) if nt else (k, n)),
                     "LAYOUT": ("transpose_rhs " if nt else
                                "transpose_lhs " if tn else "")},
                    os.path.join(self.out, "gemm", name), dtype)
                cases.append({"name": name, "dtype": dtype, "m": m, "k": k,
                              "n": n, "layout": GEMM_LAYOUT, "group": group,
                              "nvx": nvx,
                              "bar": bar_of(group, (m, k, n))})
                log("gemm %s: %s" % (name, "ok" if nvx else "FAILED"))
        return cases

    def attention(self):
        os.makedirs(os.path.join(self.out, "attention"), exist_ok=True)
        cases = []
        for b, h, t, d in SIZES[self.size]["attention"]:
            for kind in ("fwd", "fwd_bwd"):
                name = "%s_b%dh%dt%dd%d" % (kind, b, h, t, d)
                nvx = self.forward(
                    "attention " + name, "attention_%s.mlir.in" % kind,
                    {"B": b, "H": h, "T": t, "D": d, "E": "bf16",
                     "SCALE": repr(1.0 / math.sqrt(d))},
                    os.path.join(self.out, "attention", name), "bf16")
                cases.append({"name": name, "pass": kind, "b": b, "h": h,
                              "t": t, "d": d, "dtype": "bf16",
                              "causal": True, "nvx": nvx})
                log("attention %s: %s" % (name, "ok" if nvx else "FAILED"))
        return cases

    def gpt2_model(self, path, cfg):
        return self.run("nova-gpt2 " + path, [self.tool("nova-gpt2")] +
                        shape_args(cfg) + ["-o", path]) is not None

    def compile_step(self, what, model, nvx, compute, cache):
        start = time.monotonic()
        ok = self.run(what, [self.tool("nova-compile"), model, "-o", nvx,
                             "--target=h200", "--compute=" + compute,
                             "--nova-cache-dir", cache]) is not None
        return time.monotonic() - start if ok else None

    def gpt2(self):
        vocabs = SIZES[self.size]["vocabs"]
        base = dict(SIZES[self.size]["gpt2"], token_bound=vocabs[0])
        result = {"config": base, "vocabs": vocabs, "steps": {},
                  "compile_s": {}, "planned_bytes": {}, "params": {}}
        for vocab in vocabs:
            cfg = dict(base, vocab=vocab)
            d = os.path.join(self.out, "gpt2", "v%d" % vocab)
            os.makedirs(d, exist_ok=True)
            model = os.path.join(d, "model.mlir")
            if not self.gpt2_model(model, cfg):
                continue
            v = str(vocab)
            result["params"][v] = parameters_of(model)
            result["steps"][v], result["planned_bytes"][v] = {}, {}
            for compute in ("tf32", "bf16"):
                nvx = os.path.join(d, compute + ".nvx")
                # Cold: an empty kernel cache; warm: the same compile again
                # (every kernel from the cache), the .nvx the same bytes.
                # Timed at the first vocabulary; the second compiles warm.
                cache = os.path.join(self.scratch, "gpt2-" + compute)
                cold = self.compile_step("gpt2 v%d %s" % (vocab, compute),
                                         model, nvx, compute, cache)
                if cold is None:
                    continue
                result["steps"][v][compute] = os.path.relpath(nvx, self.out)
                result["planned_bytes"][v][compute] = self.planned(nvx)
                if vocab == vocabs[0]:
                    first = open(nvx, "rb").read()
                    warm = self.compile_step("gpt2 %s (warm)" % compute,
                                             model, nvx, compute, cache)
                    result["compile_s"][compute] = {
                        "cold": round(cold, 2),
                        "warm": None if warm is None else round(warm, 2),
                        "identical": open(nvx, "rb").read() == first,
                        "cpus": os.cpu_count(),
                        "load": round(os.getloadavg()[0], 2)}
                log("gpt2 v%d %s: compiled in %.1f s, planned %s bytes"
                    % (vocab, compute, cold,
                       result["planned_bytes"][v][compute]))
            os.remove(model)
        return result

    def planned(self, nvx, entry="train_step"):
        """The device memory nova-run plans for the entry, as its
        --memory-limit counts it (arena, workspace, status record and CUDA
        graph, each rounded up to 2 MiB pages): a limit of one byte makes
        it refuse, before it opens a device, naming the bytes."""
        done = subprocess.run([self.tool("nova-run"), nvx, "--entry", entry,
                               "--random-inputs", "1", "--memory-limit", "1"],
                              capture_output=True, text=True)
        m = re.search(r"needs (\d+) bytes .* above --memory-limit",
                      done.stderr)
        if m is None:
            self.failed.append({"what": "planned memory of " + nvx,
                                "message": done.stderr.strip()[-400:]})
            return None
        return int(m.group(1))

    def deepest(self):
        """The deepest GPT whose plan fits the cap, and the next depth,
        whose plan does not: the plan grows by the same bytes per layer, so
        one and two layers predict the answer and compiles around it
        confirm it."""
        cfg = dict(SIZES[self.size]["deepest"])
        cap = cfg.pop("cap_bytes")
        d = os.path.join(self.out, "deepest")
        os.makedirs(d, exist_ok=True)
        cache = os.path.join(self.scratch, "deepest")
        planned = {}

        def plan(layers):
            if layers not in planned:
                model = os.path.join(self.scratch, "deep%d.mlir" % layers)
                nvx = os.path.join(self.scratch, "deep%d.nvx" % layers)
                c = dict(cfg, layers=layers)
                planned[layers] = None
                if (self.gpt2_model(model, c) and
                        self.compile_step("deepest L=%d" % layers, model, nvx,
                                          "bf16", cache) is not None):
                    planned[layers] = self.planned(nvx)
                log("deepest: L=%d planned %s bytes" % (layers,
                                                        planned[layers]))
            return planned[layers]

        result = {"config": cfg, "cap_bytes": cap, "compute": "bf16",
                  "planned_bytes": planned, "layers": None, "nvx": None,
                  "params": []}
        one, two = plan(1), plan(2)
        if one is None or two is None or two <= one:
            self.failed.append({"what": "deepest", "message":
                                "no plan at 1 or 2 layers"})
            return result
        per_layer = two - one
        layers = max(1, (cap - one) // per_layer + 1)
        result["predicted_layers"] = layers
        while layers > 1 and (plan(layers) is None or plan(layers) > cap):
            layers -= 1
        while plan(layers + 1) is not None and plan(layers + 1) <= cap:
            layers += 1
        if (plan(layers) is None or plan(layers) > cap or
                plan(layers + 1) is None):
            self.failed.append({"what": "deepest", "message":
                                "no depth's plan fits %d bytes" % cap})
            return result
        for n in (layers, layers + 1):
            for ext in (".nvx", ".mlir"):
                shutil.copy(os.path.join(self.scratch,
                                         "deep%d%s" % (n, ext)),
                            os.path.join(d, "L%d%s" % (n, ext)))
        result.update(
            layers=layers,
            nvx=os.path.relpath(os.path.join(d, "L%d.nvx" % layers),
                                self.out),
            next_nvx=os.path.relpath(os.path.join(d, "L%d.nvx" %
                                                  (layers + 1)), self.out),
            next_layer_bytes=plan(layers + 1),
            params=parameters_of(os.path.join(d, "L%d.mlir" % layers)))
        for n in (layers, layers + 1):
            os.remove(os.path.join(d, "L%d.mlir" % n))
        log("deepest: %d layers fit %d bytes (planned %d; %d layers: %d)"
            % (layers, cap, planned[layers], layers + 1, plan(layers + 1)))
        return result

    def main(self):
        os.makedirs(self.out, exist_ok=True)
        manifest = {"created": time.strftime("%Y-%m-%d %H:%M:%S UTC",
                                             time.gmtime()),
                    "size": self.size, "git": git_commit(),
                    "command": "scripts/gpu/bench-round.sh prepare DIR" +
                    "".join(" (%s=%s)" % (k, os.environ[k]) for k in
                            ("BENCH_SIZE", "BENCH_PARTS", "BENCH_GEMM",
                             "BENCH_GEMM_DTYPES", "BENCH_GEMM_LAYOUT",
                             "BENCH_TF32_WGMMA") if os.environ.get(k)),
                    "learning_rate": LEARNING_RATE,
                    "scalars": "scalars.safetensors"}
        write_safetensors(os.path.join(self.out, "scalars.safetensors"),
                          [("step", "I64", [], struct.pack("<q", 1)),
                           ("lr", "F32", [], struct.pack("<f", LEARNING_RATE))])
        for part in PARTS:
            if part in self.parts:
                manifest[part] = getattr(self, part)()
        manifest["failed"] = self.failed
        with open(os.path.join(self.out, "manifest.json"), "w") as f:
            json.dump(manifest, f, indent=1)
        shutil.rmtree(self.scratch, ignore_errors=True)
        log("wrote %s (%d failures)" % (os.path.join(self.out,
                                                     "manifest.json"),
                                        len(self.failed)))
        return 1 if self.failed else 0


def gemm_settings(size):
    """The GEMM shapes (BENCH_GEMM, else the size's) and dtypes
    (BENCH_GEMM_DTYPES); ValueError on a malformed one."""
    shapes = SIZES[size]["gemm"]
    if os.environ.get("BENCH_GEMM"):
        shapes = []
        for s in os.environ["BENCH_GEMM"].split(","):
            m = re.fullmatch(r"([1-9]\d*)x([1-9]\d*)x([1-9]\d*)", s.strip())
            if not m:
                raise ValueError("BENCH_GEMM: '%s' is not MxKxN (positive "
                                 "integers)" % s)
            shapes.append(tuple(int(g) for g in m.groups()))
    dtypes = os.environ.get("BENCH_GEMM_DTYPES", "bf16,tf32").split(",")
    for d in dtypes:
        if d not in ("bf16", "tf32"):
            raise ValueError("BENCH_GEMM_DTYPES: '%s' is not bf16 or tf32" % d)
    return shapes, dtypes


def bar_of(group, shape):
    """The issue's bar for a GEMM, as a ratio against cuBLAS."""
    if group == "gpt2" or shape in SQUARE_BARS:
        return 0.9
    if group == "ragged" and (shape[1] % 2 or shape[2] % 2):
        return 2.0
    return None


def shape_args(cfg):
    return ["--%s=%d" % (k, cfg[k]) for k in
            ("layers", "heads", "embd", "vocab", "seq", "batch")]


def parameters_of(model):
    """(name, shape) of every {nova.param} argument of nova-gpt2's loss, in
    order: the GPU half makes the initial values from them."""
    found = re.findall(r'tensor<([0-9x]+)xf32> \{nova\.name = "([^"]+)", '
                       r'nova\.param\}', open(model).read())
    return [[name, [int(d) for d in dims.split("x")]] for dims, name in found]


def write_safetensors(path, tensors):
    """tensors: (name, dtype, shape, little-endian bytes)."""
    header, blobs, offset = {}, [], 0
    for name, dtype, shape, blob in tensors:
        header[name] = {"dtype": dtype, "shape": shape,
                        "data_offsets": [offset, offset + len(blob)]}
        blobs.append(blob)
        offset += len(blob)
    text = json.dumps(header).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(blobs))


def git_commit():
    done = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"],
                          capture_output=True, text=True)
    return done.stdout.strip() if done.returncode == 0 else None


def main(argv):
    if len(argv) != 2 or argv[1].startswith("-"):
        print(__doc__)
        return 2
    size = os.environ.get("BENCH_SIZE", "full")
    if size not in SIZES:
        print("prepare: error: BENCH_SIZE must be full or smoke, got '%s'"
              % size, file=sys.stderr)
        return 2
    parts = os.environ.get("BENCH_PARTS", ",".join(PARTS)).split(",")
    unknown = [p for p in parts if p not in PARTS]
    if unknown:
        print("prepare: error: BENCH_PARTS: unknown part '%s' (expected %s)"
              % (unknown[0], ", ".join(PARTS)), file=sys.stderr)
        return 2
    try:
        gemm_shapes = gemm_settings(size)
    except ValueError as e:
        print("prepare: error: %s" % e, file=sys.stderr)
        return 2
    tools = os.environ.get("NOVA_BIN", os.path.join(ROOT, "build", "bin"))
    for t in ("nova-opt", "nova-translate", "nova-compile", "nova-gpt2",
              "nova-run"):
        if not os.access(os.path.join(tools, t), os.X_OK):
            print("prepare: error: no %s in %s (build first, or set NOVA_BIN)"
                  % (t, tools), file=sys.stderr)
            return 2
    return Prepare(os.path.abspath(argv[1]), tools, size, parts,
                   gemm_shapes).main()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
