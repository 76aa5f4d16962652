#!/usr/bin/env python3
"""The configurator's predictions in an executable against a measured profile.

  predictions-vs-profile.py DESCRIBE PROFILE [ENTRY]

DESCRIBE is `nova-run X.nvx --describe` of an executable compiled here (its
launches carry the configurator's predicted times); PROFILE is the text of
`nova-run Y.nvx --profile` measured on the GPU machine, for the same kernels
(matched by name). Prints how many kernels of ENTRY (default train_step) are
within 25 % of their prediction, then the costliest ones; lets a changed
model be checked against times already measured, without a GPU.
"""
import re
import sys


def predictions(path, entry):
    pred, inside = {}, False
    for line in open(path):
        if line.startswith("entry "):
            inside = line.split()[1] == entry
        m = re.match(r"\s*launch (\S+) .* predicted ([0-9.e+-]+) us", line)
        if inside and m:
            pred[m.group(1)] = pred.get(m.group(1), 0) + float(m.group(2))
    return pred


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    pred = predictions(sys.argv[1], sys.argv[3] if len(sys.argv) == 4 else "train_step")
    rows = []
    for line in open(sys.argv[2]):
        m = re.match(r"\s*([0-9.]+)\s+\S+\s+\S+\s+\S+%\s+\d+\s.*?\s(\S+_[0-9a-f]{16}):", line)
        if not m:
            continue
        name = m.group(2)
        if name not in pred:
            sys.exit("predictions-vs-profile: %s is not in %s" % (name, sys.argv[1]))
        rows.append((float(m.group(1)), pred[name], name))
    if not rows:
        sys.exit("predictions-vs-profile: no kernel rows in %s" % sys.argv[2])
    within = sum(0.75 <= t / p <= 1.25 for t, p, _ in rows)
    print("%d of %d kernels within 25 %% of their prediction" % (within, len(rows)))
    print("measured us  predicted us  measured/predicted  kernel")
    for t, p, name in sorted(rows, reverse=True)[:12]:
        print("%11.1f %13.1f %19.2f  %s" % (t, p, t / p, name))


if __name__ == "__main__":
    main()
