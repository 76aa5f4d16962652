"""Compares the first function of two nova-report outputs: prints both
kernel counts and predicted bytes and fails when the second is more than
TOLERANCE (a fraction) above or below the first in either."""
import re
import sys


def figures(path):
    text = open(path).read()
    kernels = re.search(r"kernels after fusion: (\d+)", text)
    moved = re.search(r"bytes moved per step: (\d+)", text)
    if not kernels or not moved:
        sys.exit(f"{path}: not a nova-report output")
    return int(kernels.group(1)), int(moved.group(1))


reference, other, tolerance = sys.argv[1], sys.argv[2], float(sys.argv[3])
(k0, b0), (k1, b1) = figures(reference), figures(other)
print(f"kernels {k0} {k1} ({100.0 * (k1 - k0) / k0:+.1f}%)")
print(f"bytes {b0} {b1} ({100.0 * (b1 - b0) / b0:+.1f}%)")
ok = abs(k1 - k0) <= tolerance * k0 and abs(b1 - b0) <= tolerance * b0
print("within" if ok else "OUTSIDE", f"{100 * tolerance:g}%")
sys.exit(0 if ok else 1)
