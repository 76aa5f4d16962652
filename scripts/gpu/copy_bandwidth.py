# Device-to-device copy bandwidth through PyTorch: 1 GiB read + 1 GiB
# written per copy, median of 20 after 3 warm-ups (CUDA events).
import torch

x = torch.empty(1 << 28, dtype=torch.float32, device="cuda").normal_()
y = torch.empty_like(x)
for _ in range(3):
    y.copy_(x)
torch.cuda.synchronize()
times = []
for _ in range(20):
    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    a.record()
    y.copy_(x)
    b.record()
    b.synchronize()
    times.append(a.elapsed_time(b))
times.sort()
ms = times[len(times) // 2]
print("copy bandwidth: %.3f TB/s (2 GiB moved in %.3f ms, median of 20; %s, torch %s)"
      % (2 * x.numel() * 4 / (ms * 1e-3) / 1e12, ms, torch.cuda.get_device_name(), torch.__version__))
