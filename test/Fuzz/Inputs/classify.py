"""Runs fuzz.py's classifier on commands whose outcome is known, so the
campaign's verdicts are themselves tested: prints `<case>: <outcome>`."""
import os
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, sys.argv[1])
import fuzz  # noqa: E402

CASES = [
    ("exit-0", "true"),
    ("located-error", "echo 'in.mlir:3:7: error: bad op' >&2; exit 1"),
    ("tool-error", "echo 'nova-run: error: --steps must be positive' >&2; exit 2"),
    ("compare-mismatch", "echo 'MISMATCH result0: max abs err 1'; exit 1"),
    ("no-message", "exit 1"),
    ("segfault", "kill -SEGV $$"),
    ("abort", "kill -ABRT $$"),
    ("fpe-exit-code", "echo 'Floating point exception' >&2; exit 136"),
    ("llvm-error", "echo 'LLVM ERROR: out of memory' >&2; exit 1"),
    ("uncaught", "echo \"terminate called after throwing an instance of 'std::bad_alloc'\" >&2; exit 1"),
    ("sleeps", "sleep 30"),
    # 8 GiB of address space: over the campaign's limit, so the run fails.
    ("over-memory-limit", "exec %s -c 'bytearray(8 << 30)'" % sys.executable),
]

with tempfile.TemporaryDirectory() as d:
    for name, script in CASES:
        outcome, _, _ = fuzz.run_one("nova-run", ["sh", "-c", script], d, timeout=2)
        print(f"{name}: {outcome}")
    path = os.path.join(d, "out.mlir")
    for shape in ["tensor<2147483648x4294967295xf32>", "tensor<2147483648x4294967296xf32>",
                  "tensor<0x100000000000x100000000000xf32>"]:
        with open(path, "w") as f:
            f.write(f"func.func private @f(%x: {shape})\n")
        print(f"{shape}: {fuzz.overflowing_shape(path)}")
