#!/usr/bin/env python3
"""Runs the ```sh examples of README.md and of docs/*.md as written.

Each block runs with bash (-e, pipefail) in a scratch folder of its own that
looks like a checkout after `make`: the source tree's top-level entries are
linked in, and `build/bin` and `build/lib` link to one copy of the build's
tools and shared libraries made for the whole run (so a block that
configures, builds or writes in `build/` changes that copy, never the real
build). That `build/bin` is first on PATH, so
`build/bin/nova-opt examples/mlp/mlp-loss.mlir` and `nova-run ...` both work
and every file a block writes lands in its scratch folder. A block therefore
has to create what it reads.

A block preceded by `<!-- not tested: REASON -->` (blank lines between are
allowed) is skipped with its reason: for those that need a GPU, install
packages or rebuild Nova. A failing command is reported as FILE:LINE with
its exit code and output, and the script exits 1. `--jobs N` runs N blocks
at a time.
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

SKIP = re.compile(r"<!--\s*not tested:\s*(.*?)\s*-->")


def sh_blocks(text):
    """(first line number of the block's body, body, skip reason or None)."""
    lines = text.splitlines()
    blocks = []
    i = 0
    while i < len(lines):
        if lines[i].strip() == "```sh":
            j = i - 1
            while j >= 0 and not lines[j].strip():
                j -= 1
            marker = SKIP.search(lines[j]) if j >= 0 else None
            k = i + 1
            while k < len(lines) and lines[k].strip() != "```":
                k += 1
            blocks.append((i + 2, "\n".join(lines[i + 1:k]) + "\n",
                           marker.group(1) if marker else None))
            i = k
        i += 1
    return blocks


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
    os.makedirs(os.path.join(scratch, "build"))
    for entry in os.listdir(src):
        if entry not in ("build", ".git"):
            os.symlink(os.path.join(src, entry), os.path.join(scratch, entry))
    for sub in ("bin", "lib"):
        os.symlink(os.path.join(tools, sub), os.path.join(scratch, "build", sub))


def run_block(name, line, body, scratch, src, tools, timeout):
    """Runs one block; returns (exit code or "timeout", output, seconds)."""
    shutil.rmtree(scratch, ignore_errors=True)
    make_checkout(scratch, src, tools)
    env = dict(os.environ)
    env["PATH"] = os.path.join(scratch, "build", "bin") + os.pathsep + os.environ.get("PATH", "")
    # Report the file's line of the command that failed: LINENO counts
    # from the script's first line, the block's body starts at `line`.
    script = ("set -eo pipefail\n"
              f"trap 'echo \"{name}:$(({line} + LINENO - 3)): command failed "
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
        output += f"\n{name}:{line}: block still running after {timeout:.0f} s\n"
    return rc, output, time.monotonic() - start


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--readme", action="append", default=[],
                    help="a Markdown file whose sh blocks run (repeatable)")
    ap.add_argument("--docs", action="append", default=[],
                    help="a folder whose *.md files' sh blocks run (repeatable)")
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
        ap.error("no --readme or --docs file to run")

    blocks = []
    for path in files:
        name = os.path.relpath(path, src)
        if name.startswith(".."):
            name = os.path.basename(path)
        with open(path) as f:
            blocks += [(name, line, body, reason) for line, body, reason in sh_blocks(f.read())]

    tools = os.path.join(out, "tools")
    shutil.rmtree(tools, ignore_errors=True)
    copy_build(build, tools)
    todo = [b for b in blocks if b[3] is None]
    with concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as pool:
        futures = {b: pool.submit(run_block, b[0], b[1], b[2],
                                  os.path.join(out, f"{b[0].replace('/', '_')}-{b[1]}"),
                                  src, tools, args.timeout) for b in todo}
    ran = skipped = failed = 0
    for block in blocks:
        name, line, _, reason = block
        if reason is not None:
            print(f"{name}:{line}: skipped ({reason})")
            skipped += 1
            continue
        rc, output, seconds = futures[block].result()
        ran += 1
        if rc == 0:
            print(f"{name}:{line}: ok ({seconds:.1f} s)")
            continue
        failed += 1
        scratch = os.path.join(out, f"{name.replace('/', '_')}-{line}")
        tail = "\n  ".join(output.strip().splitlines()[-15:])
        print(f"{name}:{line}: FAILED ({rc}) in {scratch}\n  {tail}")
    print(f"{len(files)} files, {len(blocks)} sh blocks: {ran - failed} ran, "
          f"{failed} failed, {skipped} skipped")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
