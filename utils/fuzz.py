#!/usr/bin/env python3
"""Bounded fuzz campaign over Nova's tools.

Generates bad and borderline inputs for
  opt    nova-opt: mutants of the test IR through the training pipeline
         (--nova-decompose --nova-autodiff --nova-train-step),
         --nova-canonicalize, --canonicalize, --nova-explicit-broadcast and
         nova_tile's --nova-print-hash --nova-outline-kernels,
         --nova-autocast, --nova-collapse-attention, --nova-fuse,
         --nova-configure, --nova-explain, --nova-report,
         --nova-train-pipeline, --convert-nova-to-tile and nova_mem's
         --nova-bufferize and --nova-plan-memory,
         with random pass options;
  run    nova-run, ref backend: mutated programs with --random-inputs;
  st     nova-run with mutated or garbage safetensors inputs;
  runopt nova-run with random option combinations, absurd values included;
  gpt2   nova-gpt2 with random and absurd options;
  equiv  random valid programs (utils/random_programs.py) through a random
         pipeline of the compiler's passes, the reference interpreter run
         before and after on the same random inputs as the oracle
         (utils/pass_equivalence.py),
runs each under a memory limit and a timeout and classifies the outcome:
  accepted  exit 0;
  rejected  non-zero exit with an error message (`error:`);
  crash     a signal, an abort, "LLVM ERROR", a stack dump, an uncaught C++
            exception or a sanitizer report (whatever the exit code);
  hang      still running after --timeout seconds;
  silent    non-zero exit without any error message;
  miscompile  the interpreter gives other outputs after a pass than
            before (equiv);
  refused   a pass fails on a valid random program (equiv): it must
            transform it or leave it alone;
  overflow  exit 0, but the IR written (nova-opt -o, nova-gpt2 -o) has a
            tensor type whose element count does not fit in int64: a
            program no tool can run, accepted without a word.
Crashes, hangs, silent rejections, miscompiles, refusals and overflows are
failures: each distinct one (by
tool and signature) is kept under --out as a reproducer (input files and a
`repro.sh`) and printed. The campaign stops after --count inputs or --time
seconds, whichever comes first; with the same --seed it generates the same
inputs in the same order.
"""
import argparse
import os
import random
import re
import resource
import shlex
import shutil
import signal
import struct
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from random_programs import random_program  # noqa: E402

# Not `index`: `array<index: ...>` crashes MLIR 22's own attribute parser
# (reproducible with plain mlir-opt), which is not Nova's to fix.
TYPES = ["f32", "bf16", "f16", "i32", "i64", "i1", "f64", "ui8"]
NUMBERS = ["0", "1", "-1", "2", "3", "7", "64", "1024", "-0.0", "1.0e+38", "4294967296",
           "100000000000", "9223372036854775807", "-9223372036854775808", "2147483648",
           "0x7FC00000", "1.0e10", "-100"]
KEYWORDS = ["dims", "axis", "dim", "starts", "limits", "strides", "keep_dims", "causal",
            "transpose_lhs", "transpose_rhs", "scale", "eps", "lr", "tanh", "erf", "sum", "max"]
OPS = ["add", "sub", "mul", "div", "max", "min", "pow", "neg", "abs", "relu", "exp", "log",
       "tanh", "sqrt", "reshape", "transpose", "broadcast", "slice", "concat", "reduce",
       "softmax", "log_softmax", "cast", "select", "matmul"]

# Messages that mean the process died rather than rejected its input.
CRASH_MARKERS = ["LLVM ERROR", "Stack dump", "PLEASE submit a bug report", "terminate called",
                 "Assertion `", "AddressSanitizer", "LeakSanitizer", "runtime error:",
                 "Segmentation fault", "Floating point exception", "Aborted", "core dumped",
                 "UNREACHABLE executed"]

MEMORY_LIMIT = 4 << 30   # bytes of address space per run
FILE_LIMIT = 2 << 30     # bytes per file written


# --- IR corpus and mutation -------------------------------------------------

def split_chunks(text):
    """The `// -----` chunks of a test file, and each top-level function."""
    chunks = [c for c in re.split(r"^// -----\s*$", text, flags=re.M) if "func.func" in c]
    for chunk in list(chunks):
        funcs = re.findall(r"^func\.func.*?^}\s*$", chunk, flags=re.M | re.S)
        if len(funcs) > 1:
            chunks += funcs
    return chunks


def mutate_line(line, rng):
    kind = rng.randrange(11)
    if kind == 0:  # change a number
        nums = list(re.finditer(r"-?\d+(\.\d+)?(e[+-]?\d+)?", line))
        if nums:
            m = rng.choice(nums)
            line = line[: m.start()] + rng.choice(NUMBERS) + line[m.end():]
    elif kind == 1:  # change an element type
        line = re.sub(r"\b(f32|bf16|f16|i32|i64|i1)\b", lambda m: rng.choice(TYPES), line, count=1)
    elif kind == 2:  # change a keyword
        words = [w for w in KEYWORDS if w in line]
        if words:
            line = line.replace(rng.choice(words), rng.choice(KEYWORDS), 1)
    elif kind == 3:  # drop a token
        toks = line.split(" ")
        if len(toks) > 1:
            del toks[rng.randrange(len(toks))]
            line = " ".join(toks)
    elif kind == 4:  # drop the line
        line = ""
    elif kind == 5:  # repeat the line
        line = line + "\n" + line
    elif kind == 6:  # change an op
        line = re.sub(r"nova\.(\w+)", lambda m: "nova." + rng.choice(OPS), line, count=1)
    elif kind == 7:  # change one dimension of every shape alike (0 and huge ones included)
        dims = sorted(set(re.findall(r"(?<=[<x])\d+(?=x)", line)))
        if dims:
            old, new = rng.choice(dims), rng.choice(["0", "1", "2", "4294967296", "100000000000"])
            line = re.sub(r"(?<=[<x])%s(?=x)" % old, new, line)
    elif kind == 8:  # swap two SSA names (uses before definitions)
        names = re.findall(r"%[\w.]+", line)
        if len(names) >= 2:
            a, b = rng.sample(names, 2)
            line = line.replace(a, "\0").replace(b, a).replace("\0", b)
    elif kind == 9:  # an op that is its own operand
        m = re.match(r"\s*(%[\w.]+) = \S+ (%[\w.]+)", line)
        if m:
            line = line[: m.start(2)] + m.group(1) + line[m.end(2):]
    else:  # extreme constant values
        line = re.sub(r"dense<([^>]*)>", lambda m: "dense<%s>" % rng.choice(
            ["0", "-1", "-9223372036854775808", "9223372036854775807", "2147483647",
             "1.0e+10", "-1.0e+10", "0x7FC00000", "0x7F800000", "1.0e-45", "-0.0"]), line, count=1)
    return line


def mutate_ir(chunk, rng):
    """1-3 mutations of random lines, sometimes of the function signatures
    (where the interpreter's inputs come from), sometimes turning a
    function into a declaration."""
    if rng.random() < 0.03:
        return re.sub(r"^func\.func (@.*?)\{\s*$.*?^\}\s*$", r"func.func private \1",
                      chunk, count=1, flags=re.M | re.S)
    if rng.random() < 0.15:
        # One dimension size changed in every shape of the chunk, so the
        # program stays consistent: zero-sized and huge tensors that verify.
        dims = sorted(set(re.findall(r"(?<=[<x])\d+(?=x)", chunk)))
        if dims:
            old = rng.choice(dims)
            # Sizes either small or far past every limit: a program between
            # the two can legitimately need more memory or time than a run
            # is given here.
            new = rng.choice(["0", "1", "2", "4294967296", "100000000000"])
            return re.sub(r"(?<=[<x])%s(?=x)" % old, new, chunk)
    if rng.random() < 0.05:
        # The body's ops at module level, a graph region: uses before
        # definitions and self-references verify there.
        body = [l.strip() for l in chunk.splitlines() if re.match(r"\s+%[\w.]+ = ", l)]
        if body:
            if rng.random() < 0.5:  # and one of them its own operand
                i = rng.randrange(len(body))
                m = re.match(r"(%[\w.]+) = \S+ (%[\w.]+)", body[i])
                if m:
                    body[i] = body[i][: m.start(2)] + m.group(1) + body[i][m.end(2):]
            # Only ops whose operands are defined at that level parse.
            defined = {l.split(" = ")[0] for l in body}
            body = [l for l in body if set(re.findall(r"%[\w.]+", l.split(" = ", 1)[1])) <= defined]
            return "\n".join(body) + "\n"
    lines = chunk.splitlines() or [""]
    signatures, in_signature = [], False
    for i, l in enumerate(lines):
        in_signature = in_signature or "func.func" in l
        if in_signature:
            signatures.append(i)
            in_signature = not l.rstrip().endswith("{")
    for _ in range(rng.randint(1, 3)):
        if signatures and rng.random() < 0.25:
            i = rng.choice(signatures)
        else:
            i = rng.randrange(len(lines))
        lines[i] = mutate_line(lines[i], rng)
    return "\n".join(lines) + "\n"


def function_names(text):
    return re.findall(r"func\.func\s+(?:private\s+)?@([\w.$-]+)", text)


# --- running and classifying ------------------------------------------------

def limit_resources():
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))
    resource.setrlimit(resource.RLIMIT_FSIZE, (FILE_LIMIT, FILE_LIMIT))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    os.setsid()


def run_one(tool, cmd, cwd, timeout):
    """(outcome, exit code or signal, messages): the messages are stderr and
    the end of stdout (where --compare reports a mismatch)."""
    with open(os.path.join(cwd, "stdout.txt"), "w+b") as out:
        proc = subprocess.Popen(cmd, cwd=cwd, stdin=subprocess.DEVNULL, stdout=out,
                                stderr=subprocess.PIPE, preexec_fn=limit_resources)
        try:
            _, err = proc.communicate(timeout=timeout)
            hung = False
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            _, err = proc.communicate()
            hung = True
        out.seek(max(0, out.seek(0, os.SEEK_END) - 4096))
        stdout_tail = out.read().decode(errors="replace")
    err = err.decode(errors="replace")
    messages = err + ("\n" + stdout_tail if stdout_tail.strip() else "")
    rc = proc.returncode
    if hung:
        return "hang", None, messages
    if rc < 0 or any(marker in err for marker in CRASH_MARKERS):
        return "crash", rc, messages
    if rc == 0:
        return "accepted", rc, messages
    # A rejection must say why: an `error:` line, a line naming the tool (the
    # command-line parser's "nova-gpt2: for the --x option: ..."), or
    # --compare's MISMATCH report.
    if re.search(r"error|^%s: |^MISMATCH" % re.escape(tool), messages, flags=re.I | re.M):
        return "rejected", rc, messages
    return "silent", rc, messages


def signature(target, tool, outcome, rc, err):
    """Groups failures: the generator, the tool, the outcome, the signal and
    the first line that says what went wrong, numbers and paths blanked out."""
    line = ""
    for candidate in err.splitlines():
        if any(m in candidate for m in CRASH_MARKERS) or "error" in candidate:
            line = candidate
            break
    line = re.sub(r"/\S+", "PATH", line)
    line = re.sub(r"0x[0-9a-fA-F]+|\d+", "N", line)[:120]
    what = f"signal {-rc}" if rc is not None and rc < 0 else f"exit {rc}"
    return f"{target}: {tool} {outcome} ({what}) {line}".strip()


def overflowing_shape(path):
    """The first tensor type in the IR at `path` with more than INT64_MAX
    elements, or None (also when there is no such file or it is large)."""
    if not os.path.isfile(path) or os.path.getsize(path) > (64 << 20):
        return None
    with open(path, errors="replace") as f:
        text = f.read()
    for m in re.finditer(r"tensor<((?:\d+x)+)\w+>", text):
        count = 1
        for dim in m.group(1).split("x")[:-1]:
            count *= int(dim)
        if count >= 2**63:
            return m.group(0)
    return None


# --- generators: each writes its files into a folder, returns (tool, argv) ---

def pick(rng, values):
    return rng.choice(values)


class Campaign:
    def __init__(self, args):
        self.args = args
        self.bin = args.bin
        self.work = os.path.join(args.out, "work")
        os.makedirs(self.work, exist_ok=True)
        self.rng = random.Random(args.seed)
        self.chunks = []
        for path in args.corpus:
            with open(path) as f:
                self.chunks += split_chunks(f.read())
        self.chunks += self.generic_chunks(args.corpus)
        self.prepare_seeds()
        self.passes = self.registered_passes()

    def registered_passes(self):
        """The --pass flags nova-opt knows."""
        out = subprocess.run([self.tool("nova-opt"), "--help"], capture_output=True, text=True)
        return set(re.findall(r"^\s+(--[\w-]+)", out.stdout, flags=re.M))

    def tool(self, name):
        return os.path.join(self.bin, name)

    def generic_chunks(self, paths):
        """The corpus in generic form reaches the verifiers with attributes
        missing or of the wrong kind, which the custom syntax cannot express."""
        chunks = []
        for path in paths:
            out = subprocess.run([self.tool("nova-opt"), path, "-split-input-file",
                                  "--mlir-print-op-generic"], capture_output=True, text=True)
            if out.returncode == 0:
                chunks += split_chunks(out.stdout)
        return chunks

    def prepare_seeds(self):
        """Valid files the option and safetensors generators start from."""
        w = self.work
        self.mlp = os.path.join(self.args.src, "examples/mlp/mlp-loss.mlir")
        self.mlp_inputs = os.path.join(w, "mlp-inputs.safetensors")
        self.mlp_outputs = os.path.join(w, "mlp-outputs.safetensors")
        subprocess.run([self.tool("nova-run"), self.mlp, "--random-inputs", "1", "--save-inputs",
                        self.mlp_inputs, "-o", self.mlp_outputs], check=True, capture_output=True)
        gpt = os.path.join(w, "gpt.mlir")
        self.train_params = os.path.join(w, "gpt-init.safetensors")
        subprocess.run([self.tool("nova-gpt2"), "--layers", "1", "--heads", "2", "--embd", "8",
                        "--vocab", "256", "--seq", "4", "--batch", "2", "-o", gpt, "--init-params",
                        self.train_params], check=True, capture_output=True)
        self.train = os.path.join(w, "train.mlir")
        subprocess.run([self.tool("nova-opt"), gpt, "--nova-decompose", "--nova-autodiff",
                        "--nova-train-step", "-o", self.train], check=True, capture_output=True)
        self.text = os.path.join(w, "text.txt")
        with open(self.text, "w") as f:
            f.write("Once upon a time there was a tiny model that learned to count.\n" * 4)
        self.empty = os.path.join(w, "empty.txt")
        open(self.empty, "w").close()

    def case_dir(self, n):
        d = os.path.join(self.work, f"case-{n}")
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        return d

    def write(self, d, name, data):
        path = os.path.join(d, name)
        with open(path, "wb" if isinstance(data, bytes) else "w") as f:
            f.write(data)
        return path

    # nova-opt on mutated IR, random passes and options.
    def gen_opt(self, d):
        rng = self.rng
        src = self.write(d, "input.mlir", mutate_ir(rng.choice(self.chunks), rng))
        pipelines = [
            ["--nova-decompose", "--nova-autodiff", "--nova-train-step"],
            ["--nova-canonicalize"], ["--canonicalize"], ["--nova-explicit-broadcast"],
            ["--nova-autodiff"], ["--nova-decompose"],
            ["--nova-canonicalize", "--nova-explicit-broadcast", "--verify-each"],
            ["--nova-decompose", "--nova-autodiff", "--canonicalize", "--cse"],
            ["--nova-print-hash", "--nova-outline-kernels", "--verify-each"],
            ["--nova-decompose", "--nova-autodiff", "--nova-train-step", "--nova-autocast"],
            ["--nova-collapse-attention", "--nova-decompose=keep=attention", "--nova-autodiff"],
            ["--nova-autocast=compute=tf32", "--verify-each"],
            ["--nova-fuse", "--verify-each"],
            ["--nova-decompose", "--nova-autodiff", "--nova-train-step", "--nova-fuse"],
            ["--nova-configure=explain=true", "--nova-report", "--verify-each"],
            ["--nova-report=record=true", "--nova-fuse", "--nova-outline-kernels", "--nova-report"],
            ["--nova-train-pipeline=report=true explain=true"],
            ["--nova-fuse", "--convert-nova-to-tile", "--verify-each"],
            ["--convert-nova-to-tile", "--nova-bufferize", "--nova-plan-memory", "--verify-each"],
            ["--nova-decompose", "--nova-autodiff", "--nova-train-step", "--nova-fuse",
             "--convert-nova-to-tile", "--nova-bufferize", "--nova-plan-memory=report=true"],
            ["--nova-bufferize", "--verify-each"], ["--nova-plan-memory", "--verify-each"],
        ]
        args = list(rng.choice(pipelines))
        if rng.random() < 0.3:  # a pass option, sometimes absurd
            args.append(rng.choice([
                f"--nova-canonicalize=max-iterations={pick(rng, ['0', '1', '-1', '3', '99999999999'])}",
                f"--nova-train-step=name={pick(rng, ['', 'step', 'train_step', 'loss', '@x'])}",
                f"--nova-train-step=clip-norm={pick(rng, ['0', '-1', 'nan', 'inf', '1e300', 'x'])}",
                f"--nova-train-step=accumulate={pick(rng, ['0', '1', '2', '-1', '257', '99999999999'])}",
                f"--nova-train-step=function={pick(rng, ['', 'nope', 'loss', 'f'])}",
                f"--nova-autodiff=function={pick(rng, ['', 'nope', 'loss', 'f'])}",
                f"--nova-decompose=keep={pick(rng, ['', 'attention', 'softmax,adamw', 'nope'])}",
                f"--nova-autocast=compute={pick(rng, ['bf16', 'tf32', 'f32', 'fp8', ''])}",
                f"--nova-autocast=working-copies={pick(rng, ['1', '0', 'x'])}",
                f"--nova-configure=target={pick(rng, ['h200', 'a100', 'rtx3060', 'b200', ''])}",
                f"--nova-explain=target={pick(rng, ['h100', 'rtx6000ada', 'x'])}",
                f"--nova-train-pipeline=target={pick(rng, ['h200', 'a100', 'v100'])} "
                f"compute={pick(rng, ['bf16', 'tf32', 'f32', 'fp8'])} "
                f"clip-norm={pick(rng, ['0', '1', '-1', 'nan'])} "
                f"accumulate={pick(rng, ['1', '2', '0'])}",
            ]))
        return "nova-opt", [self.tool("nova-opt"), src] + args + ["-o", os.path.join(d, "out.mlir")]

    # nova-run (ref backend) on mutated programs with random inputs.
    def gen_run(self, d):
        rng = self.rng
        text = mutate_ir(rng.choice(self.chunks), rng)
        src = self.write(d, "input.mlir", text)
        cmd = [self.tool("nova-run"), src, "--random-inputs", str(rng.randint(0, 3))]
        names = function_names(text)
        if names and rng.random() < 0.8:
            cmd += ["--entry", rng.choice(names)]
        if rng.random() < 0.2:
            cmd.append("--f64")
        if rng.random() < 0.15:
            cmd.append("--check-gradients")
        if rng.random() < 0.3:
            cmd += ["--print", "--print-limit", pick(rng, ["0", "4", "64"])]
        if rng.random() < 0.2:
            cmd += ["-o", os.path.join(d, "out.safetensors")]
        return "nova-run", cmd

    # A random valid program through random passes, checked by the
    # interpreter before and after each.
    def gen_equiv(self, d):
        rng = self.rng
        src = self.write(d, "input.mlir", random_program(rng))
        stages = [s for s in rng.choice(EQUIV_PIPELINES) if s.split("=")[0] in self.passes]
        return "nova-opt", [sys.executable, os.path.join(self.args.src, "utils/pass_equivalence.py"),
                            src, "--workdir", os.path.join(d, "stages"), "--entry", "f",
                            "--seed", str(rng.randint(0, 1000)), "--rtol", "1e-6",
                            "--nova-opt", self.tool("nova-opt"), "--nova-run", self.tool("nova-run")] + \
            ["--stage=" + s for s in stages or ["--cse"]]

    # nova-run with mutated or garbage safetensors inputs.
    def gen_st(self, d):
        rng = self.rng
        with open(self.mlp_inputs, "rb") as f:
            data = bytearray(f.read())
        header_len = struct.unpack("<Q", data[:8])[0]
        header = data[8:8 + header_len].decode()
        body = data[8 + header_len:]
        kind = rng.randrange(8)
        if kind == 0:  # flip bytes anywhere
            for _ in range(rng.randint(1, 8)):
                data[rng.randrange(len(data))] = rng.randrange(256)
        elif kind == 1:  # truncate
            data = data[:rng.randrange(len(data))]
        elif kind == 2:  # an absurd header length
            data[:8] = struct.pack("<Q", rng.choice([0, 1, header_len + 1, 2**63, 2**64 - 1,
                                                     len(data)]))
        elif kind in (3, 4, 5):  # edit the JSON header
            nums = list(re.finditer(r"-?\d+", header))
            for _ in range(rng.randint(1, 3)):
                what = rng.randrange(4)
                if what == 0 and nums:
                    m = rng.choice(nums)
                    header = header[:m.start()] + rng.choice(NUMBERS) + header[m.end():]
                    nums = list(re.finditer(r"-?\d+", header))
                elif what == 1:
                    header = re.sub(r'"(F32|I32)"', lambda m: '"%s"' % rng.choice(
                        ["F64", "BF16", "F16", "I64", "BOOL", "U8", "X", ""]), header, count=1)
                elif what == 2:  # rename a tensor: one missing, another twice or unknown
                    keys = re.findall(r'"([^"]+)":\{', header)
                    if keys:
                        old = rng.choice(keys)
                        header = header.replace(f'"{old}":{{', '"%s":{' % rng.choice(keys + ["nope", ""]), 1)
                else:
                    cut = rng.randrange(len(header))
                    header = header[:cut] + rng.choice(["", "{", "}", "[", "]", ",", '"', "null",
                                                        "[[]]", "1e999"]) + header[cut:]
            raw = header.encode()
            data = struct.pack("<Q", len(raw)) + raw + body
        elif kind == 6:  # random bytes
            data = bytes(rng.randrange(256) for _ in range(rng.choice([0, 1, 7, 8, 64, 4096])))
        else:  # extra bytes at the end
            data = data + bytes(rng.randrange(256) for _ in range(rng.randint(1, 64)))
        st = self.write(d, "input.safetensors", bytes(data))
        cmd = [self.tool("nova-run"), self.mlp, "--inputs", st]
        if rng.random() < 0.5:
            cmd += ["--compare", rng.choice([self.mlp_outputs, st])]
        return "nova-run", cmd

    # nova-run with random option combinations.
    def gen_runopt(self, d):
        rng = self.rng
        ints = ["0", "1", "-1", "2", "3", "abc", "", "1e3", "99999999999999999999",
                "9223372036854775807", "-9223372036854775808"]
        floats = ["0", "-1", "nan", "inf", "-inf", "1e-5", "abc", "1e308", "1e-320"]
        train = rng.random() < 0.35
        cmd = [self.tool("nova-run"), rng.choice([self.train if train else self.mlp,
                                                 os.path.join(d, "missing.mlir"), self.mlp_inputs])]
        options = [
            lambda: ["--entry", pick(rng, ["loss", "train_step", "nope", ""])],
            lambda: ["--backend", pick(rng, ["ref", "cuda", "tpu", ""])],
            lambda: ["--inputs", pick(rng, [self.mlp_inputs, self.train_params, self.empty,
                                            self.mlp_inputs + "," + self.mlp_inputs, ""])],
            lambda: ["--random-inputs", pick(rng, ints)],
            lambda: ["--random-int-bound", pick(rng, ints)],
            lambda: ["--save-inputs", pick(rng, [os.path.join(d, "in.safetensors"),
                                                 "/nonexistent/in.safetensors"])],
            lambda: ["-o", pick(rng, [os.path.join(d, "out.safetensors"), "/nonexistent/o", d])],
            lambda: ["--print"], lambda: ["--print-limit", pick(rng, ints)],
            lambda: ["--compare", pick(rng, [self.mlp_outputs, self.mlp_inputs, self.empty])],
            lambda: ["--rtol", pick(rng, floats)], lambda: ["--atol", pick(rng, floats)],
            lambda: ["--f64"], lambda: ["--check-gradients"],
            lambda: ["--grad-rtol", pick(rng, floats)], lambda: ["--fd-step", pick(rng, floats)],
            lambda: ["--iterations", pick(rng, ints)], lambda: ["--warmup", pick(rng, ints)],
            lambda: ["--no-graphs"], lambda: ["--device", pick(rng, ints)],
            lambda: ["--train"], lambda: ["--steps", pick(rng, ["0", "1", "2", "-1", "abc"])],
            lambda: ["--text", pick(rng, [self.text, self.empty, "/nonexistent/t"])],
            lambda: ["--tokens", pick(rng, [self.text, self.empty])],
            lambda: ["--params", pick(rng, [self.train_params, self.mlp_inputs, self.empty])],
            lambda: ["--save", pick(rng, [os.path.join(d, "trained.safetensors"), "/nonexistent/s"])],
            lambda: ["--log-every", pick(rng, ints)],
            lambda: [pick(rng, ["--bogus", "-", "--", "--entry"])],  # unknown or missing value
        ]
        if train:
            cmd += ["--train", "--steps", pick(rng, ["0", "1", "2"]), "--text", self.text,
                    "--params", self.train_params]
        else:
            cmd += ["--random-inputs", "1"]
        for _ in range(rng.randint(1, 5)):
            cmd += rng.choice(options)()
        return "nova-run", cmd

    # nova-gpt2 with random and absurd options.
    def gen_gpt2(self, d):
        rng = self.rng
        small = ["1", "2", "4", "8", "16"]
        bad = ["0", "-1", "3", "abc", "", "100000", "4294967296", "100000000000", "9223372036854775807",
               "99999999999999999999", "-9223372036854775808", "1.5"]
        cmd = [self.tool("nova-gpt2")]
        for opt in ["--layers", "--heads", "--embd", "--vocab", "--seq", "--batch"]:
            if rng.random() < 0.25:
                cmd.append(f"{opt}={rng.choice(bad)}")
            else:
                cmd.append(f"{opt}={rng.choice(small)}")
        if rng.random() < 0.3:
            cmd.append(f"--seed={rng.choice(['0', '1', '-1', '18446744073709551615', 'x'])}")
        if rng.random() < 0.2:
            cmd.append("--locations")
        cmd += ["-o", rng.choice([os.path.join(d, "gpt.mlir"), "/nonexistent/gpt.mlir"])]
        if rng.random() < 0.4:
            cmd += ["--init-params", rng.choice([os.path.join(d, "init.safetensors"),
                                                 "/nonexistent/init.safetensors"])]
        if rng.random() < 0.05:
            cmd.append(rng.choice(["--bogus", "extra-positional"]))
        return "nova-gpt2", cmd


GENERATORS = {"opt": "gen_opt", "run": "gen_run", "st": "gen_st", "runopt": "gen_runopt",
              "gpt2": "gen_gpt2", "equiv": "gen_equiv"}

# Pipelines the equiv target draws from; stages whose pass this build does
# not register are left out.
EQUIV_PIPELINES = [
    ["--canonicalize", "--cse"],
    ["--nova-decompose"],
    ["--nova-explicit-broadcast"],
    ["--nova-fuse"],
    ["--nova-fuse", "--nova-outline-kernels"],
    ["--nova-decompose", "--canonicalize", "--nova-fuse"],
    ["--nova-fuse", "--convert-nova-to-tile"],
    ["--nova-fuse", "--convert-nova-to-tile", "--nova-configure=target=h200"],
    ["--nova-fuse", "--convert-nova-to-tile", "--nova-outline-kernels", "--nova-bufferize",
     "--nova-plan-memory"],
]


def keep_reproducer(out, sig_index, d, tool, cmd, outcome, rc, err):
    """Moves the case's files under out/failures/N and writes repro.sh with
    the command pointing at them."""
    dest = os.path.join(out, "failures", str(sig_index))
    shutil.rmtree(dest, ignore_errors=True)
    # Inputs only: outputs can be as large as the file size limit.
    big = lambda folder, names: [n for n in names
                                 if os.path.getsize(os.path.join(folder, n)) > (16 << 20)]
    shutil.copytree(d, dest, ignore=big)
    cmd = [a.replace(d, dest) for a in cmd]
    with open(os.path.join(dest, "repro.sh"), "w") as f:
        f.write("#!/bin/sh\n# %s: %s\n%s\n" % (outcome, "exit %s" % rc, shlex.join(cmd)))
    with open(os.path.join(dest, "messages.txt"), "w") as f:
        f.write(err)
    return dest, cmd


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", required=True, help="folder with nova-opt, nova-run, nova-gpt2")
    ap.add_argument("--src", required=True, help="Nova's source tree (examples/mlp)")
    ap.add_argument("--out", required=True, help="scratch folder; failures are kept here")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=1000000, help="inputs to try at most")
    ap.add_argument("--time", type=float, default=60, help="seconds to run at most")
    ap.add_argument("--timeout", type=float, default=20, help="seconds after which a run is a hang")
    ap.add_argument("--keep", type=int, default=1,
                    help="reproducers kept per kind of failure (failures/N, failures/N.K)")
    ap.add_argument("--targets", default=",".join(GENERATORS),
                    help="comma-separated subset of " + ",".join(GENERATORS))
    ap.add_argument("corpus", nargs="+", help=".mlir files to mutate")
    args = ap.parse_args()

    # Runs happen in per-input folders: make every path absolute.
    args.bin, args.src, args.out = map(os.path.abspath, (args.bin, args.src, args.out))
    args.corpus = [os.path.abspath(p) for p in args.corpus]
    targets = args.targets.split(",")
    for t in targets:
        if t not in GENERATORS:
            ap.error(f"unknown target '{t}'")
    campaign = Campaign(args)
    counts = {"accepted": 0, "rejected": 0, "crash": 0, "hang": 0, "silent": 0, "overflow": 0,
              "miscompile": 0, "refused": 0}
    failures = {}
    start = time.monotonic()
    n = 0
    while n < args.count and time.monotonic() - start < args.time:
        target = targets[n % len(targets)]
        d = campaign.case_dir(n)
        tool, cmd = getattr(campaign, GENERATORS[target])(d)
        outcome, rc, err = run_one(tool, cmd, d, args.timeout)
        if outcome == "accepted":
            for written in ("out.mlir", "gpt.mlir"):
                shape = overflowing_shape(os.path.join(d, written))
                if shape:
                    outcome = "overflow"
                    err += f"\n{written} has {shape}, more than INT64_MAX elements"
        if outcome == "rejected" and target == "equiv":
            # Its programs are valid: a pass must keep them or leave them alone.
            outcome = "miscompile" if re.search(r": MISMATCH ", err) else "refused"
        counts[outcome] += 1
        if outcome in ("crash", "hang", "silent", "overflow", "miscompile", "refused"):
            sig = signature(target, tool, outcome, rc, err)
            if sig not in failures:
                dest, cmd = keep_reproducer(args.out, len(failures), d, tool, cmd, outcome, rc, err)
                failures[sig] = [1, dest]
                # The messages without the stack dump's frames.
                lines = [l for l in err.strip().splitlines() if not re.match(r"\s*#\d+ ", l)]
                tail = "\n    ".join(lines[:6])
                print(f"{outcome.upper()} #{len(failures) - 1} (input {n}, {target}): {sig}\n"
                      f"  repro: {os.path.join(dest, 'repro.sh')}\n  command: {shlex.join(cmd)}\n"
                      f"  output: {tail}", flush=True)
            else:
                failures[sig][0] += 1
                # A few more of each kind: one signal can have several causes.
                if failures[sig][0] <= args.keep:
                    keep_reproducer(args.out, f"{list(failures).index(sig)}.{failures[sig][0]}",
                                    d, tool, cmd, outcome, rc, err)
        shutil.rmtree(d, ignore_errors=True)
        n += 1

    elapsed = time.monotonic() - start
    print(f"{n} inputs in {elapsed:.0f} s (seed {args.seed}, targets {','.join(targets)}): "
          f"{counts['accepted']} accepted, {counts['rejected']} rejected with an error, "
          f"{counts['crash']} crashes, {counts['hang']} hangs, {counts['silent']} silent rejections, "
          f"{counts['overflow']} overflowing shapes accepted, {counts['miscompile']} miscompiles, "
          f"{counts['refused']} valid programs refused")
    for sig, (times, dest) in failures.items():
        print(f"  {times} x {sig}  [{dest}]")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
