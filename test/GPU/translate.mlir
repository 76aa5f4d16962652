// nova-translate --nova-to-executable maps a planned nova_mem program one to
// one onto a .nvx (no GPU needed: nova-run --describe lists the executable
// after checkExecutable). The offsets are captured from the planned program
// and must reappear as the entry's tensors and launch arguments, the
// aliased result at its input's offset, the arena of the planned peak, the
// launches in order with the gpu.funcs' geometry.
// REQUIRES: ptxas

// RUN: rm -rf %t && mkdir -p %t
// RUN: nova-opt %s --nova-fuse --convert-nova-to-tile --nova-configure=target=h200 \
// RUN:   --nova-outline-kernels --nova-bufferize --nova-plan-memory -o %t/mem.mlir
// RUN: nova-opt %t/mem.mlir --convert-tile-to-gpu -o %t/gpu.mlir
// RUN: nova-translate --nova-to-executable %t/gpu.mlir -o %t/step.nvx
// RUN: nova-run %t/step.nvx --describe > %t/describe.txt
// RUN: cat %t/gpu.mlir %t/describe.txt | FileCheck %s

// CHECK: func.func @step({{.*}}nova_mem.peak_bytes = [[PEAK:[0-9]+]]
// CHECK: nova_mem.input %arg0 at [[X:[0-9]+]]
// CHECK: nova_mem.input %arg1 at [[W:[0-9]+]]
// CHECK: [[S:%[0-9]+]] = nova_mem.alloc at [[SUM:[0-9]+]]
// CHECK: nova_mem.launch @[[ROW:row_reduction_[0-9a-f]+]]
// CHECK: [[N:%[0-9]+]] = nova_mem.alloc at [[W]] :
// CHECK: nova_mem.launch @[[PW:pointwise_[0-9a-f]+]]
// CHECK: gpu.func @[[ROW]]({{.*}}known_block_size = array<i32: [[RB:[0-9]+]], 1, 1>, known_grid_size = array<i32: [[RG:[0-9]+]], 1, 1>
// CHECK: gpu.func @[[PW]]({{.*}}known_block_size = array<i32: [[PB:[0-9]+]], 1, 1>, known_grid_size = array<i32: [[PG:[0-9]+]], 1, 1>

// CHECK: executable version 1
// CHECK-NEXT: kernel [[ROW]] hash {{[0-9a-f]+}} block {{\[}}[[RB]],1,1] shared 0 params 2 ptx {{[0-9]+}} bytes cubin sm_90a {{[0-9]+}} bytes
// CHECK-NEXT: kernel [[PW]] hash {{[0-9a-f]+}} block {{\[}}[[PB]],1,1] shared 0 params 3 ptx {{[0-9]+}} bytes cubin sm_90a {{[0-9]+}} bytes
// CHECK-NEXT: entry step arena [[PEAK]]
// CHECK-NEXT:   input arg0 4x8xf32 at [[X]]
// CHECK-NEXT:   input w 32xf32 at [[W]]
// CHECK-NEXT:   output result0 32xf32 at [[W]] alias 1
// CHECK-NEXT:   output result1 4xf32 at [[SUM]]
// CHECK-NEXT:   launch [[ROW]] grid {{\[}}[[RG]],1,1] args @[[X]] @[[SUM]]
// CHECK-NEXT:   launch [[PW]] grid {{\[}}[[PG]],1,1] args @[[X]] @[[W]] @[[W]]
// CHECK-EMPTY:

// PTX only: the driver compiles the kernels when it loads them.
// RUN: nova-translate --nova-to-executable %t/gpu.mlir --ptx-only -o %t/ptx.nvx
// RUN: nova-run %t/ptx.nvx --describe | FileCheck %s --check-prefix=PTX
// PTX: kernel row_reduction_{{[0-9a-f]+}} hash {{.*}} ptx {{[0-9]+}} bytes{{$}}

// Guard-band mode: every buffer in its own place (no reuse), 16-byte
// aligned, after a guard of 64 bytes and followed by one that also covers
// its padding; the aliased result keeps its input's place.
// RUN: nova-translate --nova-to-executable %t/gpu.mlir --guard-bands=64 -o %t/guarded.nvx
// RUN: nova-run %t/guarded.nvx --describe | FileCheck %s --check-prefix=GUARD
// GUARD:      entry step arena 528
// GUARD-NEXT:   input arg0 4x8xf32 at 64
// GUARD-NEXT:   input w 32xf32 at 256
// GUARD-NEXT:   output result0 32xf32 at 256 alias 1
// GUARD-NEXT:   output result1 4xf32 at 448
// GUARD-NEXT:   guard 64 bytes at 0 after the arena start
// GUARD-NEXT:   guard 64 bytes at 192 after 'arg0'
// GUARD-NEXT:   guard 64 bytes at 384 after 'w'
// GUARD-NEXT:   guard 64 bytes at 464 after 'result1'
// GUARD-NEXT:   launch row_reduction_{{[0-9a-f]+}} grid [1,1,1] args @64 @448
// GUARD-NEXT:   launch pointwise_{{[0-9a-f]+}} grid [1,1,1] args @64 @256 @256
// A guard that would misalign the buffers:
// RUN: not nova-translate --nova-to-executable %t/gpu.mlir --guard-bands=100 -o %t/x.nvx 2>&1 \
// RUN:   | FileCheck %s --check-prefix=GUARD100
// GUARD100: gpu.mlir:1:1: error: nova-to-executable: --guard-bands=100 is not a multiple of 16 (buffers stay 16-byte aligned)

// Bad input, each a located error and a non-zero exit. A program that is
// not planned yet:
// RUN: nova-opt %s --nova-fuse --convert-nova-to-tile --nova-configure=target=h200 \
// RUN:   --nova-outline-kernels --nova-bufferize -o %t/unplanned.mlir
// RUN: not nova-translate --nova-to-executable %t/unplanned.mlir -o %t/x.nvx 2>&1 \
// RUN:   | FileCheck %s --check-prefix=UNPLANNED
// UNPLANNED: unplanned.mlir:{{[0-9]+}}:{{[0-9]+}}: error: nova-to-executable: @step is not a planned nova_mem program (no nova_mem.peak_bytes); run nova-bufferize and nova-plan-memory first
//
// Kernels that convert-tile-to-gpu did not lower:
// RUN: not nova-translate --nova-to-executable %t/mem.mlir -o %t/x.nvx 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NOGPU
// NOGPU: mem.mlir:{{[0-9]+}}:{{[0-9]+}}: error: nova-to-executable: kernel @row_reduction_{{[0-9a-f]+}} has no GPU code (no gpu.module for this row_reduction kernel; convert-tile-to-gpu lowers it when its family has a GPU emitter)
//
// A matmul, whose family convert-tile-to-gpu does not lower yet (it fails
// on it), left as a nova_tile.kernel without GPU code:
// RUN: echo 'func.func @mm(%%a: tensor<4x8xf32>, %%b: tensor<8x2xf32>) -> tensor<4x2xf32> { %%c = nova.matmul %%a, %%b : tensor<4x8xf32>, tensor<8x2xf32> -> tensor<4x2xf32>  return %%c : tensor<4x2xf32> }' > %t/mm.mlir
// RUN: nova-opt %t/mm.mlir --nova-fuse --convert-nova-to-tile --nova-configure=target=h200 \
// RUN:   --nova-outline-kernels --nova-bufferize --nova-plan-memory -o %t/mm.mem.mlir
// RUN: not nova-translate --nova-to-executable %t/mm.mem.mlir -o %t/x.nvx 2>&1 \
// RUN:   | FileCheck %s --check-prefix=MATMUL
// MATMUL: mm.mem.mlir:{{[0-9]+}}:{{[0-9]+}}: error: nova-to-executable: kernel @matmul_{{[0-9a-f]+}} has no GPU code (no gpu.module for this matmul kernel;
//
// A gpu.func without the geometry convert-tile-to-gpu records:
// RUN: sed -e 's/known_block_size = array<i32: [0-9]*, 1, 1>, //' %t/gpu.mlir > %t/nogeometry.mlir
// RUN: not nova-translate --nova-to-executable %t/nogeometry.mlir -o %t/x.nvx 2>&1 \
// RUN:   | FileCheck %s --check-prefix=GEOMETRY
// GEOMETRY: nogeometry.mlir:{{[0-9]+}}:{{[0-9]+}}: error: gpu.func @row_reduction_{{[0-9a-f]+}} has no known_block_size / known_grid_size (not written by convert-tile-to-gpu)
// RUN: test ! -e %t/x.nvx
//
// Co-resident blocks (blocks that wait for each other) out of range:
// RUN: sed -e '0,/known_grid_size = array<i32: [0-9]*, 1, 1>/s//&, nova_gpu.co_resident_blocks = 0 : i64/' %t/gpu.mlir > %t/coresident.mlir
// RUN: not nova-translate --nova-to-executable %t/coresident.mlir -o %t/x.nvx 2>&1 \
// RUN:   | FileCheck %s --check-prefix=CORESIDENT
// CORESIDENT: coresident.mlir:{{[0-9]+}}:{{[0-9]+}}: error: gpu.func @row_reduction_{{[0-9a-f]+}} asks for 0 co-resident blocks; expected 1 to 2^20
// RUN: test ! -e %t/x.nvx

func.func @step(%x: tensor<4x8xf32>, %w: tensor<32xf32> {nova.name = "w"})
    -> (tensor<32xf32> {nova.alias = 1 : i64}, tensor<4xf32>) {
  %s = nova.reduce sum %x dims [1] : tensor<4x8xf32> -> tensor<4xf32>
  %v = nova.reshape %x : tensor<4x8xf32> -> tensor<32xf32>
  %c = nova.constant dense<0.5> : tensor<f32>
  %m = nova.mul %v, %c : tensor<32xf32>, tensor<f32>
  %n = nova.sub %w, %m : tensor<32xf32>, tensor<32xf32>
  return %n, %s : tensor<32xf32>, tensor<4xf32>
}
