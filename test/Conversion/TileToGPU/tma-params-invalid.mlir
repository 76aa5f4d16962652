// Malformed TMA descriptor parameters on a gpu.func are located errors of
// the kernel compile, not kernels that fail on the GPU.
// RUN: split-file %s %t
// RUN: not nova-gpu-pack %t/fields.mlir --ptx-only -o %t/x.nvx 2>&1 | FileCheck %s --check-prefix=FIELDS
// RUN: not nova-gpu-pack %t/unlisted.mlir --ptx-only -o %t/x.nvx 2>&1 | FileCheck %s --check-prefix=UNLISTED
// RUN: not nova-gpu-pack %t/listed.mlir --ptx-only -o %t/x.nvx 2>&1 | FileCheck %s --check-prefix=LISTED

// FIELDS: fields.mlir:3:5: error: gpu.func @k argument #1: malformed TMA descriptor attribute
// UNLISTED: unlisted.mlir:3:5: error: gpu.func @k argument #1: a TMA descriptor missing from nova_gpu.tma_params
// LISTED: listed.mlir:3:5: error: gpu.func @k argument #0: listed in nova_gpu.tma_params without a TMA descriptor attribute

//--- fields.mlir
module attributes {gpu.container_module} {
  gpu.module @k_gpu {
    gpu.func @k(%arg0: memref<64x64xbf16>, %arg1: !llvm.ptr {nova_gpu.tma = {buffer = 0 : i32, offset = 0 : i64, dims = array<i64: 64, 64>, strides = array<i64>, box = array<i64: 64, 64>, swizzle = 128 : i32}}) kernel attributes {known_block_size = array<i32: 128, 1, 1>, known_grid_size = array<i32: 1, 1, 1>, nova_gpu.tma_params = array<i32: 1>} {
      gpu.return
    }
  }
}

//--- unlisted.mlir
module attributes {gpu.container_module} {
  gpu.module @k_gpu {
    gpu.func @k(%arg0: memref<64x64xbf16>, %arg1: !llvm.ptr {nova_gpu.tma = {buffer = 0 : i32, offset = 0 : i64, dims = array<i64: 64, 64>, strides = array<i64: 128>, box = array<i64: 64, 64>, swizzle = 128 : i32}}) kernel attributes {known_block_size = array<i32: 128, 1, 1>, known_grid_size = array<i32: 1, 1, 1>} {
      gpu.return
    }
  }
}

//--- listed.mlir
module attributes {gpu.container_module} {
  gpu.module @k_gpu {
    gpu.func @k(%arg0: memref<64x64xbf16>) kernel attributes {known_block_size = array<i32: 128, 1, 1>, known_grid_size = array<i32: 1, 1, 1>, nova_gpu.tma_params = array<i32: 0>} {
      gpu.return
    }
  }
}
