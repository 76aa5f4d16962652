#!/usr/bin/env python3
"""The rate of whole-tile f32 bulk reduce-add (cp.reduce.async.bulk .add.f32)
into a global workspace, against plain bulk stores of the same tiles, on
the GPU machine (PyTorch for memory and events, the CUDA driver through
ctypes for the kernel: scripts/gpu/bulk_reduce.ptx compiled by ptxas here).

The default shape is the dQ reduction the attention backward would do at
B16 H12 T1024 D64 causal: 192 (batch, head) x 72 (key block, query tile)
pairs of one 64 x 64 f32 tile (16 KB, the two consumers' partials summed)
= 13824 tile additions into a 50 MB workspace of 3072 tiles.

usage (the cubin from `ptxas -arch=sm_90a scripts/gpu/bulk_reduce.ptx -o
bulk_reduce.cubin` here): bulk_reduce_rate.py CUBIN [--tiles 13824]
[--workspace-tiles 3072]
"""
import argparse
import ctypes
import sys

import torch

TILE = 16384


def check(result, what):
    if result != 0:
        sys.exit(f"bulk_reduce_rate: {what} failed with CUDA error {result}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("cubin")
    parser.add_argument("--tiles", type=int, default=192 * 72)
    parser.add_argument("--workspace-tiles", type=int, default=3072)
    parser.add_argument("--iterations", type=int, default=20)
    args = parser.parse_args()

    torch.zeros(1, device="cuda")  # the primary context, current
    cuda = ctypes.CDLL("libcuda.so.1")
    module, func = ctypes.c_void_p(), ctypes.c_void_p()
    image = open(args.cubin, "rb").read()
    check(cuda.cuModuleLoadData(ctypes.byref(module), image), "cuModuleLoadData")
    check(cuda.cuModuleGetFunction(ctypes.byref(func), module, b"bulk_tiles"),
          "cuModuleGetFunction")
    n = args.workspace_tiles
    ws = torch.zeros(n * TILE // 4, device="cuda", dtype=torch.float32)
    stream = torch.cuda.current_stream()

    def launch(grid, per, mode):
        values = [ctypes.c_uint64(ws.data_ptr()), ctypes.c_uint32(per),
                  ctypes.c_uint32(n), ctypes.c_uint32(mode)]
        params = (ctypes.c_void_p * 4)(*[ctypes.addressof(v) for v in values])
        check(cuda.cuLaunchKernel(func, grid, 1, 1, 128, 1, 1, 0,
                                  ctypes.c_void_p(stream.cuda_stream), params,
                                  None), "cuLaunchKernel")

    print(f"bulk tiles of 16 KB: {args.tiles} per launch into {n} tiles "
          f"({n * TILE / 1e6:.1f} MB)")
    print("| blocks | tiles a block | op | median us | GB/s (tile bytes) | tiles/us |")
    print("| --- | --- | --- | --- | --- | --- |")
    for blocks in (132, 264, 528):
        per = -(-args.tiles // blocks)
        for mode, name in ((0, "reduce-add f32"), (1, "store")):
            # Correctness once: every tile holds how often it was hit.
            ws.zero_()
            launch(blocks, per, mode)
            torch.cuda.synchronize()
            hits = torch.bincount(torch.arange(blocks * per, device="cuda") % n,
                                  minlength=n).float()
            want = hits if mode == 0 else (hits > 0).float()
            got = ws.view(n, TILE // 4)
            if not torch.equal(got, want[:, None].expand_as(got)):
                sys.exit(f"bulk_reduce_rate: wrong workspace ({name}, {blocks} blocks)")
            times = []
            for _ in range(args.iterations):
                a = torch.cuda.Event(enable_timing=True)
                e = torch.cuda.Event(enable_timing=True)
                a.record()
                launch(blocks, per, mode)
                e.record()
                e.synchronize()
                times.append(a.elapsed_time(e) * 1e3)
            us = sorted(times)[len(times) // 2]
            count = blocks * per
            print(f"| {blocks} | {per} | {name} | {us:.1f} | "
                  f"{count * TILE / us / 1e3:.0f} | {count / us:.1f} |", flush=True)


if __name__ == "__main__":
    main()
