# One step's outputs of two executables on the same inputs, tensor by
# tensor: ||new - old|| / ||old||. Exit 1 above BOUND.
# usage: compare_steps.py OLD.safetensors NEW.safetensors BOUND
#
# For a GPT-2 train_step from step_inputs.py (Adam's first step, moments
# zero) the judged outputs are the loss and the Adam moments: m holds
# 0.1 g and v 0.001 g^2, the step's gradients. The parameters are printed
# but not judged: the first step moves each by about lr times the sign of
# its gradient, and where a gradient is rounding noise (a bias whose
# gradient is zero in exact arithmetic) any change of rounding flips it.
# Outputs of anything else (no Adam moments) are all judged.
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
moments = any(key.endswith((".adam_m", ".adam_v")) for _, key in rows)


def judged(r, key):
    return (not moments or key == "loss" or key.endswith((".adam_m", ".adam_v"))
            or r == float("inf"))


print("%d outputs; worst ||new - old|| / ||old||:" % len(rows))
for r, key in rows[:5]:
    print("  %.3e %s%s" % (r, key, "" if judged(r, key) else " (not judged)"))
worst = [(r, key) for r, key in rows if judged(r, key)]
if moments:
    print("worst judged (loss, Adam moments): %.3e %s" % worst[0])
sys.exit(0 if not worst or worst[0][0] <= bound else 1)
