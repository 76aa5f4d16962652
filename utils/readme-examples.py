#!/usr/bin/env python3
"""Runs the ```sh examples of README.md as written.

Each block runs with bash (-e, pipefail) in a scratch folder of its own that
looks like a checkout after `make`: the source tree's top-level entries are
linked in, `build/bin` and `build/lib` hold copies of the build's tools and
shared libraries, and that `build/bin` is first on PATH, so `build/bin/nova-opt examples/mlp/mlp-loss.mlir` and
`nova-run ...` both work and every file a block writes lands in its scratch
folder. A block therefore has to create what it reads.

A block preceded by `<!-- not tested: REASON -->` (blank lines between are
allowed) is skipped with its reason: for those that need a GPU, install
packages or rebuild Nova. A failing command is reported as
README.md:LINE with its exit code and output, and the script exits 1.
"""
import argparse
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


def make_checkout(scratch, src, build):
    """Links the sources and copies the build's tools and shared libraries
    into real folders: a block that configures, builds or writes in `build/`
    changes the scratch folder, never the real build."""
    os.makedirs(scratch)
    for entry in os.listdir(src):
        if entry not in ("build", ".git"):
            os.symlink(os.path.join(src, entry), os.path.join(scratch, entry))
    for sub, wanted in (("bin", lambda p: os.access(p, os.X_OK)),
                        ("lib", lambda p: p.endswith(".so"))):
        os.makedirs(os.path.join(scratch, "build", sub))
        for entry in os.listdir(os.path.join(build, sub)):
            path = os.path.join(build, sub, entry)
            if os.path.isfile(path) and wanted(path):
                shutil.copy2(path, os.path.join(scratch, "build", sub, entry))


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--readme", required=True)
    ap.add_argument("--src", required=True, help="source tree")
    ap.add_argument("--build", required=True, help="build tree (bin/, lib/)")
    ap.add_argument("--out", required=True, help="scratch folder, one subfolder per block")
    ap.add_argument("--timeout", type=float, default=120, help="seconds per block")
    args = ap.parse_args()
    src, build, out = map(os.path.abspath, (args.src, args.build, args.out))
    name = os.path.basename(args.readme)
    with open(args.readme) as f:
        blocks = sh_blocks(f.read())

    env = dict(os.environ)
    ran = skipped = failed = 0
    for line, body, reason in blocks:
        if reason is not None:
            print(f"{name}:{line}: skipped ({reason})")
            skipped += 1
            continue
        scratch = os.path.join(out, f"block-{line}")
        shutil.rmtree(scratch, ignore_errors=True)
        make_checkout(scratch, src, build)
        env["PATH"] = os.path.join(scratch, "build", "bin") + os.pathsep + os.environ.get("PATH", "")
        # Report the README line of the command that failed: LINENO counts
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
            output, _ = proc.communicate(timeout=args.timeout)
            rc = proc.returncode
        except subprocess.TimeoutExpired:
            kill_session(proc.pid)
            output, _ = proc.communicate()
            rc = "timeout"
            output += f"\n{name}:{line}: block still running after {args.timeout:.0f} s\n"
        seconds = time.monotonic() - start
        ran += 1
        if rc == 0:
            print(f"{name}:{line}: ok ({seconds:.1f} s)")
            continue
        failed += 1
        tail = "\n  ".join(output.strip().splitlines()[-15:])
        print(f"{name}:{line}: FAILED ({rc}) in {scratch}\n  {tail}")
    print(f"{len(blocks)} sh blocks: {ran - failed} ran, {failed} failed, {skipped} skipped")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
