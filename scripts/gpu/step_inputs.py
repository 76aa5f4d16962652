# Inputs of a GPT-2 train_step executable as GPT-2 starts training:
# weights N(0, 0.02), LayerNorm scales 1, biases and Adam moments 0, step 1,
# lr 6e-4, tokens and targets uniform below the vocabulary (50257).
# usage: step_inputs.py NOVA_RUN STEP.nvx OUT.safetensors
import re, subprocess, sys
import torch
from safetensors.torch import save_file

nova_run, nvx, out = sys.argv[1:4]
desc = subprocess.run([nova_run, nvx, "--describe"], capture_output=True,
                      text=True, check=True).stdout
inputs, inside = [], False
for line in desc.splitlines():
    if line.startswith("entry "):
        inside = line.split()[1] == "train_step"
        continue
    m = re.match(r"  input (\S+) (\S+) at", line)
    if inside and m:
        inputs.append(m.groups())
types = {"f32": torch.float32, "bf16": torch.bfloat16, "i32": torch.int32,
         "i64": torch.int64}
g = torch.Generator(device="cuda").manual_seed(0)
tensors = {}
for name, spec in inputs:
    *dims, ty = spec.split("x")
    shape, dtype = [int(d) for d in dims], types[ty]
    if name == "step":
        t = torch.ones(shape, dtype=dtype)
    elif name == "lr":
        t = torch.full(shape, 6e-4, dtype=dtype)
    elif name in ("tokens", "targets"):
        t = torch.randint(0, 50257, shape, generator=g, device="cuda").to(dtype)
    elif name.endswith((".adam_m", ".adam_v", ".bias")):
        t = torch.zeros(shape, dtype=dtype)
    elif ".ln_" in name or name.startswith("ln_f"):
        t = torch.ones(shape, dtype=dtype)
    else:
        t = (torch.randn(shape, generator=g, device="cuda") * 0.02).to(dtype)
    tensors[name] = t.cpu().contiguous()
save_file(tensors, out)
print("%s: %d inputs of train_step" % (out, len(tensors)))
