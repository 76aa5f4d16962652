# One step's outputs of two executables on the same inputs, tensor by
# tensor: ||new - old|| / ||old||. Exit 1 above BOUND.
# usage: compare_steps.py OLD.safetensors NEW.safetensors BOUND
import sys
import torch
from safetensors import safe_open

old_path, new_path, bound = sys.argv[1], sys.argv[2], float(sys.argv[3])
rows = []
with safe_open(old_path, "pt", device="cuda") as a, safe_open(new_path, "pt", device="cuda") as b:
    for key in a.keys():
        x, y = a.get_tensor(key).double(), b.get_tensor(key).double()
        if not torch.isfinite(y).all():
            rows.append((float("inf"), key))
            continue
        n = x.norm().item()
        rows.append(((y - x).norm().item() / n if n else (y - x).norm().item(), key))
        if key == "loss":
            print("loss old %.7f new %.7f" % (x.item(), y.item()))
rows.sort(reverse=True)
print("%d outputs; worst ||new - old|| / ||old||:" % len(rows))
for r, key in rows[:5]:
    print("  %.3e %s" % (r, key))
sys.exit(0 if rows[0][0] <= bound else 1)
