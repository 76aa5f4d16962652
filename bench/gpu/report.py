#!/usr/bin/env python3
"""The benchmark round's report: bench.json (bench/gpu/run.py) to a
markdown table, every figure next to its peer of the same run as a ratio,
and a PNG chart of the ratios.

  report.py bench.json --md bench.md [--png bench.png]

Ratios are Nova's speed over the peer's (> 1: Nova is faster), and for
memory the peer's bytes over Nova's (> 1: Nova needs less), so that above 1
is always better; each bar of issue 11 is printed next to its figure. A
part that failed is reported as failed with its reason. The markdown needs
only Python's standard library; the chart needs matplotlib. Exit status 1
when the JSON cannot be read or the chart cannot be drawn.
"""
import argparse
import json
import sys

GIB = float(1 << 30)
BAND_BAR = 0.8  # row kernels and AdamW against the copy bandwidth
PREDICTION_BAND = 0.25  # the configurator: measured within 25 % of predicted
PEERS = [("torch_eager", "PyTorch eager"), ("torch_compile", "torch.compile"),
         ("jax", "JAX/XLA")]


def fmt(x, digits=3):
    if x is None:
        return "-"
    if isinstance(x, str):
        return x
    if x == 0:
        return "0"
    if abs(x) >= 1000:
        return "{:,.0f}".format(x)
    return "{:.{}g}".format(x, digits)


def ratio_cell(r, bar=None):
    if r is None:
        return "-"
    text = "**%.2f**" % r if bar is not None and r < bar else "%.2f" % r
    return text + (" (bar %.1f)" % bar if bar is not None else "")


def failed_line(name, part):
    why = part.get("error") or "; ".join(part.get("errors", [])) or "?"
    return "**%s failed**: %s\n" % (name, why.replace("\n", " "))


def table(header, rows):
    out = "| " + " | ".join(header) + " |\n"
    out += "| " + " | ".join("---" for _ in header) + " |\n"
    for r in rows:
        out += "| " + " | ".join(r) + " |\n"
    return out


class Report:
    def __init__(self, bench):
        self.b = bench
        self.parts = bench.get("parts", {})
        self.ratios = []  # (label, ratio, bar) for the chart and the summary

    def part(self, name):
        return self.parts.get(name) or {"status": "failed",
                                        "error": "not run"}

    def note(self, label, r, bar=None):
        if r is not None:
            self.ratios.append((label, r, bar))

    def gemm(self):
        p = self.part("gemm")
        out = "### GEMM against cuBLAS (torch.matmul)\n\n"
        if "rows" not in p:
            return out + failed_line("gemm", p)
        rows = []
        for r in p["rows"]:
            shape = "%dx%dx%d" % (r["m"], r["k"], r["n"])
            nova = ("%s ms (%s TFLOP/s)" % (fmt(r["nova_ms"]),
                                            fmt(r.get("nova_tflops")))
                    if r.get("nova_ms") else "failed: " +
                    r.get("nova_error", "?"))
            peer = ("%s ms (%s TFLOP/s)" % (fmt(r["cublas_ms"]),
                                            fmt(r.get("cublas_tflops")))
                    if r.get("cublas_ms") else "failed: " +
                    r.get("cublas_error", "?"))
            rows.append([shape, r.get("layout", "nn"), r["dtype"],
                         r["group"], nova, peer,
                         ratio_cell(r.get("ratio"), r.get("bar"))])
            self.note("GEMM %s %s" % (r["dtype"], shape), r.get("ratio"),
                      r.get("bar"))
        out += ("M x K x N; median of CUDA-event-timed runs, each replaying "
                "one CUDA graph (nova-run's, and one captured around "
                "torch.matmul); B: nt = A times the transpose of B stored "
                "[N, K] (nn.Linear's weight), nn = B stored [K, N], the same "
                "for both; ratio = cuBLAS time / Nova time.\n\n")
        out += table(["M x K x N", "B", "dtype", "kind", "Nova", "cuBLAS",
                      "Nova / cuBLAS"], rows)
        return out

    def attention(self):
        p = self.part("attention")
        out = "### Causal attention against PyTorch SDPA (flash)\n\n"
        if "rows" not in p:
            return out + failed_line("attention", p)
        rows = []
        for r in p["rows"]:
            shape = "B%d H%d T%d D%d" % (r["b"], r["h"], r["t"], r["d"])
            what = "forward" if r["pass"] == "fwd" else "forward + backward"
            bar = 1.0 if (r["t"], r["d"]) == (1024, 64) else None
            nova = (fmt(r["nova_ms"]) + " ms" if r.get("nova_ms") else
                    "failed: " + r.get("nova_error", "?"))
            peer = (fmt(r["sdpa_ms"]) + " ms" if r.get("sdpa_ms") else
                    "failed: " + r.get("sdpa_error", "?"))
            rows.append([shape, what, r["dtype"], nova, peer,
                         fmt(r.get("sdpa_default_ms")) + " ms"
                         if r.get("sdpa_default_ms") else "-",
                         ratio_cell(r.get("ratio"), bar)])
            self.note("attention %s %s" % (what, shape), r.get("ratio"), bar)
        out += table(["shape", "pass", "dtype", "Nova", "SDPA flash",
                      "SDPA default backend", "Nova / SDPA flash"], rows)
        return out

    def bandwidth(self):
        p = self.part("bandwidth")
        out = "### Bandwidth-bound kernels against the copy bandwidth\n\n"
        if p.get("status") != "ok":
            return out + failed_line("bandwidth (torch copy_)", p)
        copy = p["copy_gbps"]
        out += ("Copy bandwidth (torch copy_ of 1 GiB, read + write): "
                "**%s GB/s**. Nova's kernels of the GPT-2 step from "
                "`nova-run --profile` (bytes the compiler counts / measured "
                "time), by family; matrix products and attention are in the "
                "tables above.\n\n" % fmt(copy))
        train = self.part("nova_train")
        profiles = train.get("profile") or {}
        if not profiles:
            return out + failed_line("nova-run --profile", train)
        rows = []
        for compute, prof in sorted(profiles.items()):
            families = {}
            for k in prof["kernels"]:
                fam = k["kernel"].rsplit("_", 1)[0]
                if fam == "matmul" or fam.startswith("attention"):
                    continue
                f = families.setdefault(fam, [0, 0.0, 0.0])
                f[0] += k["launches"]
                f[1] += k["ms"]
                f[2] += k["bytes"]
            for fam, (launches, ms, nbytes) in sorted(
                    families.items(), key=lambda kv: -kv[1][1]):
                gbps = nbytes / (ms / 1e3) / 1e9 if ms > 0 else None
                frac = gbps / copy if gbps else None
                bar = BAND_BAR if fam in ("row_reduction", "optimizer") \
                    else None
                rows.append([compute, fam, str(launches),
                             "%.1f%%" % (100 * ms / prof["step_ms"]
                                         if prof["step_ms"] else 0),
                             fmt(ms), fmt(gbps), ratio_cell(frac, bar)])
                if bar:
                    self.note("%s %s (of copy)" % (fam, compute), frac, bar)
        return out + table(["step", "kernel family", "launches",
                            "share of step", "ms", "GB/s",
                            "fraction of copy"], rows)

    def configurator(self):
        """The configurator's predicted time of each kernel of the step
        against the measured one (issue 11 item 4: within 25 %)."""
        out = ("### The configurator's predictions against the measured "
               "times\n\n")
        profiles = self.part("nova_train").get("profile") or {}
        rows, worst = [], []
        for compute, prof in sorted(profiles.items()):
            known = [k for k in prof["kernels"] if k.get("predicted_ms")]
            if not known:
                continue
            close = [k for k in known
                     if abs(k["ms"] / k["predicted_ms"] - 1) <= PREDICTION_BAND]
            step = prof["step_ms"] or 1.0
            rows.append([compute, "%d of %d" % (len(close), len(known)),
                         "%.1f%%" % (100 * sum(k["ms"] for k in close) / step),
                         fmt(sum(k["predicted_ms"] for k in known)),
                         fmt(sum(k["ms"] for k in known))])
            # The kernels whose misprediction costs the most time.
            off = sorted((k for k in known if k not in close),
                         key=lambda k: -abs(k["ms"] - k["predicted_ms"]))
            worst += [[compute, k["kernel"], str(k["launches"]),
                       fmt(k["predicted_ms"]), fmt(k["ms"]),
                       "%.2f" % (k["ms"] / k["predicted_ms"])]
                      for k in off[:6]]
        if not rows:
            return out + ("No predicted times in the profile (the step's "
                          "`nova-run --profile` JSON has no `predicted_ms`)."
                          "\n")
        out += table(["step", "kernels within 25 %", "their share of the step",
                      "predicted ms", "measured ms"], rows)
        if worst:
            out += ("\nThe mispredicted kernels that cost the most "
                    "time:\n\n" + table(["step", "kernel", "launches",
                                         "predicted ms", "measured ms",
                                         "measured / predicted"], worst))
        return out

    def training(self):
        out = "### GPT-2 training against PyTorch and JAX\n\n"
        nova = self.part("nova_train")
        cfg = nova.get("config") or {}
        if cfg:
            out += ("GPT-2 (%d layers, %d heads, C %d, vocabulary %d), B%d "
                    "T%d, AdamW; tokens/s of warm steps; peak device memory "
                    "(torch.cuda.max_memory_allocated, JAX "
                    "peak_bytes_in_use, Nova's measured peak). Speed ratio "
                    "= Nova / peer; memory ratio = peer / Nova.\n\n" % (
                        cfg["layers"], cfg["heads"], cfg["embd"],
                        cfg["vocab"], cfg["batch"], cfg["seq"]))
        rows = []
        for compute in ("tf32", "bf16"):
            n = (nova.get("train") or {}).get(compute)
            nova_cell = ("%s tok/s, peak %s" % (
                fmt(n["tokens_per_s"]),
                "%.2f GiB" % (n["peak_bytes"] / GIB) if n.get("peak_bytes")
                else "not reported") if n else "failed")
            rows.append([compute, "Nova", nova_cell, "", ""])
            for key, name in PEERS:
                peer = self.part(key).get(compute)
                if not peer:
                    rows.append([compute, name, "failed", "", ""])
                    continue
                speed = (n["tokens_per_s"] / peer["tokens_per_s"]
                         if n else None)
                memory = (peer["peak_bytes"] / n["peak_bytes"]
                          if n and n.get("peak_bytes") and
                          peer.get("peak_bytes") else None)
                bar = 1.0 if key == "torch_compile" else None
                rows.append([compute, name, "%s tok/s, peak %s" % (
                    fmt(peer["tokens_per_s"]),
                    "%.2f GiB" % (peer["peak_bytes"] / GIB)
                    if peer.get("peak_bytes") else "-"),
                    ratio_cell(speed, bar), ratio_cell(memory, bar)])
                self.note("GPT-2 %s tok/s vs %s" % (compute, name), speed,
                          bar)
                if memory is not None:
                    self.note("GPT-2 %s peak vs %s" % (compute, name),
                              memory, bar)
        out += table(["compute", "system", "throughput, memory",
                      "Nova speed ratio", "memory ratio"], rows)
        failures = [failed_line(key, self.part(key)) for key, _ in
                    [("nova_train", "")] + PEERS
                    if self.part(key).get("status") != "ok"]
        return out + ("\n" + "\n".join(failures) if failures else "")

    def deepest(self):
        nova = self.part("nova_train").get("deepest")
        cfg = next((c for c in [(nova or {}).get("config")] +
                    [self.part(k).get("config") for k in
                     ("deepest_eager", "deepest_compile")] if c), None)
        out = "### Deepest GPT under the memory cap (%s)\n\n" % (
            "B%d T%d C%d, %d heads, vocabulary %d, bf16" % (
                cfg["batch"], cfg["seq"], cfg["embd"], cfg["heads"],
                cfg["vocab"]) if cfg else "bf16")
        rows, nova_layers = [], None
        if nova:
            nova_layers = nova["layers"] if nova.get("trained") else None
            rows.append(["Nova", str(nova["layers"]),
                         "planned %s GiB; %s" % (
                             fmt((nova.get("planned_bytes") or 0) / GIB),
                             "trained, peak %s" % (
                                 "%.2f GiB" % (nova["peak_bytes"] / GIB)
                                 if nova.get("peak_bytes") else
                                 "not reported")
                             if nova.get("trained") else "failed to train: " +
                             nova.get("error", "?")), ""])
        else:
            rows.append(["Nova", "failed", "", ""])
        cap = None
        for key, name in [("deepest_eager", "PyTorch eager"),
                          ("deepest_compile",
                           "torch.compile (blocks compiled)")]:
            p = self.part(key)
            if p.get("layers") is None:
                rows.append([name, "failed", p.get("error", "?"), ""])
                continue
            cap = p.get("cap_bytes", cap)
            r = (nova_layers / p["layers"] if nova_layers and p["layers"]
                 else None)
            bar = 1.0 if key == "deepest_compile" else None
            rows.append([name, ("%d" if p.get("exact") else ">= %d") %
                         p["layers"], "%d trials" % len(p.get("trials", {})),
                         ratio_cell(r, bar)])
            self.note("deepest GPT vs %s" % name, r, bar)
        if cap:
            out += "Cap: %.0f GiB (torch.cuda.set_per_process_memory_" \
                   "fraction; Nova: its plan).\n\n" % (cap / GIB)
        return out + table(["system", "layers", "how", "Nova / peer"], rows)

    def compile_times(self):
        out = "### Compile time (here) and the peers' first step (there)\n\n"
        c = self.b.get("compile") or {}
        rows = []
        for compute in ("tf32", "bf16"):
            t = c.get(compute)
            nova = ("cold %s s, warm %s s" % (fmt(t["cold"]), fmt(t["warm"]))
                    if t else "failed")
            peers = []
            for key, name in PEERS:
                p = self.part(key).get(compute)
                peers.append("%s s" % fmt(p["first_step_s"]) if p else "-")
            rows.append([compute, nova] + peers)
        out += ("Nova's `nova-compile` of the GPT-2 step on the development "
                "machine (the GPU machine has no MLIR; cold: empty kernel "
                "cache), next to each peer's first training step on the GPU "
                "machine (its compile included).\n\n")
        return out + table(["compute", "Nova compile"] +
                           [name + " first step" for _, name in PEERS], rows)

    def markdown(self):
        b = self.b
        head = ("## %s — benchmark round (%s)\n\nDevice: %s. Round: %s s, "
                "size %s, commit %s.\n\n" % (
                    b.get("date", "?"), "issue 11", b.get("device", "?"),
                    fmt(b.get("seconds")), b.get("size", "?"),
                    b.get("git", "?")))
        if len(b.get("calls", [])) > 1:
            head += ("Two calls on the same prepared round (each ratio pairs "
                     "figures of one call): %s.\n\n" % "; ".join(
                         "call %d: %s (%s s)" % (i + 1, ", ".join(c["parts"]),
                                                 fmt(c.get("seconds")))
                         for i, c in enumerate(b["calls"])))
        if b.get("jobs", 1) > 1:
            head += ("**%d parts ran at once on the GPU: a check that the "
                     "parts run, not a measurement.**\n\n" % b["jobs"])
        body = "\n".join([self.gemm(), self.attention(), self.bandwidth(),
                          self.configurator(), self.training(), self.deepest(),
                          self.compile_times()])
        below = [(label, r, bar) for label, r, bar in self.ratios
                 if bar is not None and r < bar]
        failed = sorted(k for k, v in self.parts.items()
                        if v.get("status") != "ok")
        summary = ("\nBars met: %d of %d.%s Parts failed: %s.\n" % (
            sum(1 for _, r, bar in self.ratios if bar is not None and
                r >= bar),
            sum(1 for _, _, bar in self.ratios if bar is not None),
            (" Below their bar: " + "; ".join("%s %.2f (bar %.1f)" % x
                                             for x in below) + ".")
            if below else "", ", ".join(failed) or "none"))
        return head + body + summary

    def chart(self, path):
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        items = self.ratios
        if not items:
            raise ValueError("no ratios to draw")
        fig, ax = plt.subplots(figsize=(10, 0.28 * len(items) + 1.5))
        ys = range(len(items))
        colors = ["tab:green" if (bar is None and r >= 1) or
                  (bar is not None and r >= bar) else "tab:red"
                  for _, r, bar in items]
        ax.barh(list(ys), [r for _, r, _ in items], color=colors)
        for y, (_, _, bar) in zip(ys, items):
            if bar is not None:
                ax.plot([bar, bar], [y - 0.4, y + 0.4], color="black")
        ax.axvline(1.0, color="gray", linestyle="--", linewidth=1)
        ax.set_yticks(list(ys))
        ax.set_yticklabels([label for label, _, _ in items], fontsize=7)
        ax.invert_yaxis()
        ax.set_xscale("log")
        ax.set_xlabel("Nova against the peer of the same run (> 1: Nova "
                      "better; black ticks: issue 11's bars)")
        ax.set_title("Nova benchmark round, %s, %s" % (
            self.b.get("date", "?"), self.b.get("device", "?")), fontsize=9)
        fig.tight_layout()
        fig.savefig(path, dpi=120)


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("json")
    p.add_argument("--md", required=True)
    p.add_argument("--png")
    a = p.parse_args()
    try:
        bench = json.load(open(a.json))
    except (OSError, ValueError) as e:
        print("report: error: cannot read %s: %s" % (a.json, e),
              file=sys.stderr)
        return 1
    r = Report(bench)
    text = r.markdown()
    with open(a.md, "w") as f:
        f.write(text)
    if a.png and not r.ratios:
        # A round of Nova's parts alone (no peer ran) has no ratio to draw.
        print("report: no chart: no peer part ran, so there is no ratio")
    elif a.png:
        try:
            r.chart(a.png)
        except Exception as e:
            print("report: error: no chart: %s: %s" % (type(e).__name__, e),
                  file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
