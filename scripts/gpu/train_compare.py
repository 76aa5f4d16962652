#!/usr/bin/env python3
"""Two nova-run builds train the same GPT-2 step on the same parameters and
batches (the benchmark's: bench/gpu/run.py), for a runtime change that must
not change the numbers:

  train_compare.py BENCH_DIR OLD_NOVA_RUN NEW_NOVA_RUN [COMPUTE] [STEPS]

BENCH_DIR is what `bench-round.sh prepare` wrote with the gpt2 part. Each
build's losses must be bit-for-bit the same at every step (exit 1 if not);
prints each build's median tokens/s over the steps after the first two.
Runs on the GPU machine."""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "bench", "gpu"))
import run as bench  # noqa: E402


def train(nova_run, nvx, init, batches, steps):
    cmd = [nova_run, nvx, "--train", "--steps", str(steps), "--batches",
           batches, "--params", init, "--lr", "6e-4", "--log-every", "1"]
    done = subprocess.run(cmd, capture_output=True, text=True)
    sys.stdout.write(done.stdout[-3000:] + done.stderr[-2000:])
    if done.returncode != 0:
        sys.exit("train_compare: %s exit %d" % (nova_run, done.returncode))
    return done.stdout


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    bench_dir, old, new = sys.argv[1:4]
    compute = sys.argv[4] if len(sys.argv) > 4 else "bf16"
    steps = int(sys.argv[5]) if len(sys.argv) > 5 else 12
    manifest = json.load(open(os.path.join(bench_dir, "manifest.json")))
    g = manifest["gpt2"]
    nvx = os.path.join(bench_dir, g["steps"][compute])
    work = tempfile.mkdtemp()
    init = os.path.join(work, "init.safetensors")
    batches = os.path.join(work, "batches.safetensors")
    bench.initial_parameters(g["params"], init)
    bench.random_batches(g["config"], steps, batches)
    figures, losses = {}, {}
    for name, nova_run in (("old", old), ("new", new)):
        log = train(nova_run, nvx, init, batches, steps)
        figures[name] = bench.nova_training_figures(log)
        losses[name] = [loss for _, _, loss, _ in bench.STEP_LINE.findall(log)]
    status = 0
    if losses["old"] != losses["new"] or len(losses["new"]) != steps:
        print("LOSSES DIFFER: old %s new %s" % (losses["old"], losses["new"]))
        status = 1
    for name in ("old", "new"):
        f = figures[name]
        print("%s: median %.1f K tokens/s (steps %s), peak %s" % (
            name, f["tokens_per_s"] / 1e3,
            " ".join("%.0f" % (t / 1e3) for t in f["step_tokens_per_s"]),
            f["peak_bytes"]))
    print("new / old: %.4f" % (figures["new"]["tokens_per_s"] /
                               figures["old"]["tokens_per_s"]))
    return status


if __name__ == "__main__":
    sys.exit(main())
