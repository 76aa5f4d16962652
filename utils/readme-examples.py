#!/usr/bin/env python3
"""Checks every fenced block and every link of README.md and docs/*.md.

What a block is decides how it is checked; a comment on the last non-blank
line before the block's fence (a marker) says so where its language does
not:

  ```sh                   runs with bash (-e, pipefail) in a scratch folder
                          of its own that looks like a checkout after
                          `make` (below); it must exit 0.
  ```mlir                 is parsed and verified by build/bin/nova-opt. A
                          fragment of a function body is checked as the
                          body of `func.func @example(ARGS)` where
                          `<!-- mlir arguments: ARGS -->` precedes it.
  <!-- excerpt of: PATH -->
                          every non-blank line of the block (leading and
                          trailing spaces aside) is a line of PATH, in the
                          block's order. Required for ```c++ and ```cmake
                          blocks: PATH is a source the build compiles and a
                          test runs (a unit test, a CMake project a test
                          builds), so the excerpt is code that works.
  <!-- output of the block above -->
                          the block is output of the ```sh block before
                          it: every line of it is a line that block
                          printed (stdout and stderr), in order.
  <!-- output of: COMMAND -->
                          the same against what COMMAND prints, run with
                          bash in the scratch folder of the last ```sh
                          block before it, after that block (so it reads
                          the files the block wrote), or in a scratch
                          checkout of its own where there is none. There
                          output.txt holds what that block printed, and
                          above.mlir the ```mlir block right before this
                          one, as verified.
                          COMMAND must exit 0: write `! COMMAND` for
                          one that is meant to fail.
  <!-- not tested: REASON -->
                          skipped and listed: needs a GPU, installs
                          packages or rebuilds Nova.
  <!-- not an example: REASON -->
                          skipped and listed: a diagram, a format, output
                          of a command that is not run here.

Any other block (```text or a bare fence without a marker, ```c++ without
an excerpt) is an error. In a shown output line `...` stands for any text
and `FILE:LINE:COL` for a location; a line of only `...` stands for lines
left out, and spaces match any run of spaces.

The scratch checkout: the source tree's top-level entries are linked in,
and `build/bin` and `build/lib` link to one copy of the build's tools and
shared libraries made for the whole run (so a block that configures, builds
or writes in `build/` changes that copy, never the real build). That
`build/bin` is first on PATH, so `build/bin/nova-opt examples/mlp/mlp-loss.mlir`
and `nova-run ...` both work and every file a block writes lands in its
scratch folder. A block therefore has to create what it reads.

Links: every relative Markdown link `[text](path#anchor)` must name a file
inside the source tree (an anchor: a heading of that file), and every
repository path in backticks (`test/...`, `lib/...`, ...) must exist.

A failure is reported as FILE:LINE with what went wrong, and the script
exits 1. `--jobs N` runs N blocks at a time.
"""
import argparse
import concurrent.futures
import glob
import os
import re
import shutil
import signal
import subprocess
import sys
import time

MARKER = re.compile(r"<!--\s*(not tested|not an example|excerpt of|output of|mlir arguments)"
                    r"\s*:\s*(.*?)\s*-->")
ABOVE = re.compile(r"<!--\s*output of the block above\s*-->")
FENCE = re.compile(r"^(\s*)```(\S*)\s*$")
LINK = re.compile(r"\]\(([^()\s]+)\)")
CODE_SPAN = re.compile(r"`([^`\s]+)`")
REPO_PATH = re.compile(r"(test|unittests|lib|include|tools|examples|utils|scripts|docs|bench|"
                       r"cmake)/")


class Block:
    def __init__(self, name, fence_line, lang, body, marker, arg):
        self.name, self.fence_line, self.lang = name, fence_line, lang
        self.line = fence_line + 1  # the body's first line
        self.body, self.marker, self.arg = body, marker, arg
        self.kind = None  # sh, mlir, excerpt, output, skipped
        self.result = None  # (ok, message, seconds)

    def where(self):
        return f"{self.name}:{self.line}"


def parse_blocks(name, text):
    """Every fenced block of `text`, with the marker before it."""
    lines = text.splitlines()
    blocks = []
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, lang = m.group(1), m.group(2)
        j = i - 1
        while j >= 0 and not lines[j].strip():
            j -= 1
        marker = arg = None
        if j >= 0:
            mm = MARKER.search(lines[j])
            if mm:
                marker, arg = mm.group(1), mm.group(2)
            elif ABOVE.search(lines[j]):
                marker = "output of the block above"
        k = i + 1
        while k < len(lines) and lines[k].strip() != "```":
            k += 1
        body = [l[len(indent):] if l.startswith(indent) else l.lstrip() for l in lines[i + 1:k]]
        blocks.append(Block(name, i + 1, lang, "\n".join(body) + "\n", marker, arg))
        i = k + 1
    return blocks


def slug(heading):
    """GitHub's anchor for a heading."""
    s = re.sub(r"[`*_]", "", heading.strip().lower())
    s = re.sub(r"[^\w\- ]", "", s)
    return s.replace(" ", "-")


def anchors(path):
    with open(path) as f:
        text = re.sub(r"^\s*```.*?^\s*```", "", f.read(), flags=re.S | re.M)
    return {slug(m.group(1)) for m in re.finditer(r"^#+\s+(.*)$", text, re.M)}


def check_links(path, name, src):
    """(links and paths checked, errors) of one Markdown file."""
    with open(path) as f:
        lines = f.read().splitlines()
    errors = []
    count = 0
    in_block = False
    for n, line in enumerate(lines, 1):
        if FENCE.match(line) or (in_block and line.strip() == "```"):
            in_block = not in_block
            continue
        if in_block:
            continue
        for m in LINK.finditer(line):
            target = m.group(1)
            if re.match(r"[a-z]+:", target):
                continue  # https:, mailto:
            count += 1
            file, _, anchor = target.partition("#")
            dest = os.path.normpath(os.path.join(os.path.dirname(path), file)) if file else path
            if os.path.relpath(dest, src).startswith(".."):
                errors.append(f"{name}:{n}: link to {target} leaves the source tree")
            elif not os.path.exists(dest):
                errors.append(f"{name}:{n}: link to {target}: no such file")
            elif anchor and anchor not in anchors(dest):
                errors.append(f"{name}:{n}: link to {target}: no heading #{anchor} there")
        for m in CODE_SPAN.finditer(line):
            text = m.group(1)
            if text.startswith("../"):
                count += 1
                dest = os.path.normpath(os.path.join(os.path.dirname(path), text))
                if os.path.relpath(dest, src).startswith(".."):
                    errors.append(f"{name}:{n}: `{text}` is outside the source tree")
            elif REPO_PATH.match(text):
                count += 1
                file = os.path.join(src, text.split(":")[0].rstrip(".,"))
                if not os.path.exists(file) and not glob.glob(file):
                    errors.append(f"{name}:{n}: `{text}`: no such file")
    return count, errors


def kill_session(sid):
    """Kills every process of session `sid`: ninja puts its jobs in process
    groups of their own, so killing the block's group is not enough."""
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/stat") as f:
                # The fields after the command name, which may hold spaces.
                fields = f.read().rsplit(")", 1)[1].split()
            if int(fields[3]) == sid:
                os.kill(int(pid), signal.SIGKILL)
        except (OSError, ValueError, IndexError):
            pass


def copy_build(build, dest):
    """Copies the build's tools and shared libraries into dest/{bin,lib}."""
    for sub, wanted in (("bin", lambda p: os.access(p, os.X_OK)),
                        ("lib", lambda p: p.endswith(".so"))):
        os.makedirs(os.path.join(dest, sub))
        for entry in os.listdir(os.path.join(build, sub)):
            path = os.path.join(build, sub, entry)
            if os.path.isfile(path) and wanted(path):
                shutil.copy2(path, os.path.join(dest, sub, entry))


def make_checkout(scratch, src, tools):
    """Links the sources, and build/{bin,lib} to the run's copy in `tools`."""
    shutil.rmtree(scratch, ignore_errors=True)
    os.makedirs(os.path.join(scratch, "build"))
    for entry in os.listdir(src):
        if entry not in ("build", ".git"):
            os.symlink(os.path.join(src, entry), os.path.join(scratch, entry))
    for sub in ("bin", "lib"):
        os.symlink(os.path.join(tools, sub), os.path.join(scratch, "build", sub))


def run_script(where, line, body, scratch, timeout):
    """Runs `body` with bash in `scratch`; returns (exit code or "timeout",
    output, seconds)."""
    env = dict(os.environ)
    env["PATH"] = os.path.join(scratch, "build", "bin") + os.pathsep + os.environ.get("PATH", "")
    # Report the file's line of the command that failed: LINENO counts
    # from the script's first line, the block's body starts at `line`.
    script = ("set -eo pipefail\n"
              f"trap 'echo \"{where}:$(({line} + LINENO - 3)): command failed "
              "(exit $?)\" >&2' ERR\n" + body)
    start = time.monotonic()
    # A session of its own, so a timeout ends everything the block started.
    proc = subprocess.Popen(["bash", "-c", script], cwd=scratch, env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            start_new_session=True)
    try:
        output, _ = proc.communicate(timeout=timeout)
        rc = proc.returncode
    except subprocess.TimeoutExpired:
        kill_session(proc.pid)
        output, _ = proc.communicate()
        rc = "timeout"
        output += f"\n{where}: still running after {timeout:.0f} s\n"
    return rc, output, time.monotonic() - start


def line_pattern(shown):
    """A shown output line as a regular expression (see the docstring)."""
    parts = re.split(r"(\.\.\.|FILE:LINE:COL|\s+)", shown.strip())
    out = []
    for p in parts:
        if p == "...":
            out.append(".*")
        elif p == "FILE:LINE:COL":
            out.append(r"\S+:\d+:\d+")
        elif p and p.isspace():
            out.append(r"\s+")
        else:
            out.append(re.escape(p))
    return re.compile("".join(out))


def match_output(block, output):
    """None when every line of the block is a line of `output`, in order;
    else what is missing."""
    got = [l.strip() for l in output.splitlines()]
    pos = 0
    for n, shown in enumerate(block.body.splitlines()):
        if not shown.strip() or shown.strip() == "...":
            continue
        pattern = line_pattern(shown)
        while pos < len(got) and not pattern.fullmatch(got[pos]):
            pos += 1
        if pos == len(got):
            return f"{block.name}:{block.line + n}: not in the output (in order): {shown.strip()}"
        pos += 1
    return None


def check_excerpt(block, src):
    path = os.path.join(src, block.arg)
    if not os.path.isfile(path):
        return f"{block.name}:{block.fence_line}: excerpt of {block.arg}: no such file"
    with open(path) as f:
        have = [l.strip() for l in f.read().splitlines()]
    pos = 0
    for n, line in enumerate(block.body.splitlines()):
        if not line.strip():
            continue
        while pos < len(have) and have[pos] != line.strip():
            pos += 1
        if pos == len(have):
            return (f"{block.name}:{block.line + n}: not a line of {block.arg} "
                    f"(in the block's order): {line.strip()}")
        pos += 1
    return None


def mlir_module(block):
    if block.marker == "mlir arguments":
        body = "".join("  " + l + "\n" for l in block.body.splitlines())
        return f"func.func @example({block.arg}) {{\n{body}  func.return\n}}\n"
    return block.body


def job(block, above, src, tools, scratch, timeout):
    """Checks one block that runs something; returns (ok, message, seconds,
    and for a ```sh block its exit code and output)."""
    if block.kind in ("sh", "mlir"):
        make_checkout(scratch, src, tools)
    if block.kind == "sh":
        rc, output, seconds = run_script(block.name, block.line, block.body, scratch, timeout)
        with open(os.path.join(scratch, "output.txt"), "w") as f:
            f.write(output)
        ok = rc == 0
        tail = "\n  ".join(output.strip().splitlines()[-15:])
        return ok, "" if ok else f"exit {rc} in {scratch}\n  {tail}", seconds, (rc, output)
    if block.kind == "mlir":
        with open(os.path.join(scratch, "block.mlir"), "w") as f:
            f.write(mlir_module(block))
        rc, output, seconds = run_script(block.name, block.line,
                                         "nova-opt block.mlir -o /dev/null\n", scratch, timeout)
        return rc == 0, "" if rc == 0 else f"nova-opt: {output.strip()}", seconds
    # Output of a command, run where the last ```sh block before it ran.
    if block.last_sh is not None:
        scratch = block.last_sh.scratch
        if not block.last_sh.result[0]:
            return False, f"the ```sh block at line {block.last_sh.line} failed", 0
    else:
        make_checkout(scratch, src, tools)
    if above is not None and above.lang == "mlir":
        with open(os.path.join(scratch, "above.mlir"), "w") as f:
            f.write(mlir_module(above))
    rc, output, seconds = run_script(block.name, block.fence_line - 1, block.arg + "\n",
                                     scratch, timeout)
    if rc == "timeout":
        return False, output, seconds
    msg = (f"{block.where()}: the command exited {rc}" if rc != 0
           else match_output(block, output))
    return msg is None, (msg + "\n  " + "\n  ".join(output.strip().splitlines()[-15:])
                         if msg else ""), seconds


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--readme", action="append", default=[],
                    help="a Markdown file to check (repeatable)")
    ap.add_argument("--docs", action="append", default=[],
                    help="a folder whose *.md files are checked (repeatable)")
    ap.add_argument("--src", required=True, help="source tree")
    ap.add_argument("--build", required=True, help="build tree (bin/, lib/)")
    ap.add_argument("--out", required=True, help="scratch folder, one subfolder per block")
    ap.add_argument("--timeout", type=float, default=120, help="seconds per block")
    ap.add_argument("--jobs", type=int, default=1, help="blocks run at a time")
    args = ap.parse_args()
    src, build, out = map(os.path.abspath, (args.src, args.build, args.out))
    files = list(args.readme)
    for folder in args.docs:
        files += sorted(glob.glob(os.path.join(folder, "*.md")))
    # Each file once, named from the source tree where it lies inside it.
    files = list(dict.fromkeys(map(os.path.abspath, files)))
    if not files:
        ap.error("no --readme or --docs file to check")

    blocks, errors = [], []
    links = 0
    for path in files:
        name = os.path.relpath(path, src)
        if name.startswith(".."):
            name = os.path.basename(path)
        with open(path) as f:
            mine = parse_blocks(name, f.read())
        last_sh = None
        for i, b in enumerate(mine):
            above = mine[i - 1] if i else None
            b.last_sh = last_sh
            if b.lang == "sh" and b.marker is None:
                last_sh = b
            if b.marker in ("not tested", "not an example"):
                b.kind = "skipped"
            elif b.marker == "excerpt of":
                b.kind = "excerpt"
            elif b.marker == "output of the block above":
                if above is None or above.kind != "sh":
                    errors.append(f"{b.name}:{b.fence_line}: output of the block above, "
                                  "but the block above is not a ```sh block that runs")
                    continue
                b.kind, b.above = "output", above
            elif b.marker == "output of":
                b.kind, b.above = "output", above
            elif b.lang == "sh" and b.marker is None:
                b.kind = "sh"
            elif b.lang == "mlir" and b.marker in (None, "mlir arguments"):
                b.kind = "mlir"
            else:
                errors.append(f"{b.name}:{b.fence_line}: a ```{b.lang} block with no check: "
                              "mark it (excerpt of, output of, not tested, not an example)")
                continue
            blocks.append(b)
        n, errs = check_links(path, name, src)
        links += n
        errors += errs

    tools = os.path.join(out, "tools")
    shutil.rmtree(tools, ignore_errors=True)
    copy_build(build, tools)
    # The blocks that run, then the output of commands, some of which run
    # in the scratch folder of a ```sh block.
    for phase in (("sh", "mlir"), ("output",)):
        with concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as pool:
            futures = {}
            for b in blocks:
                b.scratch = os.path.join(out, f"{b.name.replace('/', '_')}-{b.line}")
                if b.kind in phase and (b.kind != "output" or b.marker == "output of"):
                    futures[b] = pool.submit(job, b, getattr(b, "above", None), src, tools,
                                             b.scratch, args.timeout)
            for b, f in futures.items():
                b.result = f.result()
    for b in blocks:
        if b.kind == "output" and b.marker == "output of the block above":
            ok, _, _, (rc, output) = b.above.result
            msg = (f"{b.where()}: the block above failed" if not ok
                   else match_output(b, output))
            b.result = (msg is None, msg or "", 0)
        elif b.kind == "excerpt":
            msg = check_excerpt(b, src)
            b.result = (msg is None, msg or "", 0)

    counts = {}
    failed = 0
    for b in blocks:
        key = b.kind if b.kind != "excerpt" else f"{b.lang} excerpt"
        if b.kind == "skipped":
            key = "not an example" if b.marker == "not an example" else "not tested"
            print(f"{b.where()}: {key} ({b.arg})")
            counts[key] = counts.get(key, 0) + 1
            continue
        ok, msg, seconds = b.result[:3]
        counts[key] = counts.get(key, 0) + 1
        if ok:
            print(f"{b.where()}: {key} ok ({seconds:.1f} s)")
        else:
            failed += 1
            print(f"{b.where()}: {key} FAILED: {msg}")
    for e in errors:
        print(e)
    order = ["sh", "mlir", "output", "c++ excerpt", "cmake excerpt"]
    keys = order + sorted(k for k in counts if k not in order + ["not tested", "not an example"])
    summary = ", ".join(f"{counts.get(k, 0)} {k}" for k in keys)
    unmarked = sum(" block with no check" in e or "output of the block above" in e
                   for e in errors)
    print(f"{len(files)} files, {len(blocks) + unmarked} blocks: {summary}, "
          f"{counts.get('not tested', 0)} not tested, {counts.get('not an example', 0)} "
          f"not examples; {links} links and paths; {failed + len(errors)} failed")
    return 1 if failed or errors else 0


if __name__ == "__main__":
    sys.exit(main())
