// The device status word. A kernel that meets bad data takes the
// instance's status record (memref<6xi64>, last, marked with the bits it
// may raise) and raises a bit with an atomic or: check_labels for a label
// that is neither a class nor the ignore_index (also recording the first
// such label, position and value, and the check's classes and
// ignore_index), a gather for an index outside its table (see gather.mlir),
// the kernel writing the entry's "loss" or "grad_norm"
// result for a NaN or infinity. The optimizer reads the record and, when a
// bit is set, writes its inputs back (the update skipped). Other kernels
// and other scalar results take no record.
// RUN: nova-opt %S/../../GPU/Inputs/status.mlir --nova-fuse --convert-nova-to-tile --nova-configure=target=h200 --nova-outline-kernels --nova-bufferize --nova-plan-memory --convert-tile-to-gpu | FileCheck %s --check-prefix=LABELS
// RUN: nova-opt %s --nova-fuse --convert-nova-to-tile --nova-configure=target=h200 --nova-outline-kernels --nova-bufferize --nova-plan-memory --convert-tile-to-gpu | FileCheck %s --check-prefix=LOSS

// LABELS: gpu.func @pointwise_{{[0-9a-f]+}}(%{{.*}}: memref<40xi32>, %{{.*}}: memref<40xi32>, %[[S:.*]]: memref<6xi64> {nova_gpu.status_bits = 1 : i32}) kernel
// LABELS: %[[L:.*]] = vector.extract
// LABELS: %[[IGN:.*]] = arith.cmpi eq, %[[L]], %c-100_i32
// LABELS: %[[LT:.*]] = arith.cmpi slt, %[[L]], %c10_i32
// LABELS: %[[GE:.*]] = arith.cmpi sge, %[[L]], %c0_i32
// LABELS: %[[IN:.*]] = arith.andi %[[GE]], %[[LT]]
// LABELS: %[[OK:.*]] = arith.ori %[[IGN]], %[[IN]]
// LABELS: %[[BAD:.*]] = arith.cmpi eq, %[[OK]], %false
// LABELS: scf.if %[[BAD]] {
// LABELS: memref.atomic_rmw ori %c1_i64, %[[S]][%c0]
// LABELS: %[[CODE:.*]] = arith.ori
// LABELS: memref.atomic_rmw maxu %[[CODE]], %[[S]][%c1]
// LABELS: memref.store %c10_i64, %[[S]][%c2]
// LABELS: memref.store %c-100_i64, %[[S]][%c3]
// LABELS: gpu.func @row_reduction_{{[0-9a-f]+}}(%{{[^:]*}}: memref<40xi32>, %{{[^:]*}}: memref<f32>) kernel
// LABELS: gpu.func @pointwise_{{[0-9a-f]+}}(%{{[^:]*}}: memref<f32>, %{{[^:]*}}: memref<300xf32>) kernel
// LABELS: gpu.func @optimizer_{{[0-9a-f]+}}({{.*}}, %[[OS:[^:]*]]: memref<6xi64> {nova_gpu.status_bits = 0 : i32}) kernel
// LABELS: %[[W:.*]] = memref.load %[[OS]][%c0] : memref<6xi64>
// LABELS: %[[SKIP:.*]] = arith.cmpi ne, %[[W]], %c0_i64
// LABELS: arith.select %[[SKIP]], %{{.*}}, %{{.*}} : f64
// LABELS-NEXT: arith.select %[[SKIP]], %{{.*}}, %{{.*}} : f64
// LABELS-NEXT: arith.select %[[SKIP]], %{{.*}}, %{{.*}} : f64

// The three totals span the columns of every block: a workspace, no status.
// LOSS: gpu.func @column_reduction_{{[0-9a-f]+}}(%{{[^:]*}}: memref<8x16xf32>, %{{[^:]*}}: memref<f32>, %{{[^:]*}}: memref<f32>, %{{[^:]*}}: memref<f32>, %{{[^:]*}}: memref<{{[0-9]+}}xi8>) workgroup
// LOSS-NOT: atomic_rmw ori
// LOSS: gpu.func @pointwise_{{[0-9a-f]+}}(%{{[^:]*}}: memref<f32>, %{{[^:]*}}: memref<f32>, %[[S:.*]]: memref<6xi64> {nova_gpu.status_bits = 2 : i32}) kernel
// LOSS: %[[LOG:.*]] = math.log
// LOSS: %[[ABS:.*]] = math.absf %[[LOG]]
// LOSS: %[[FIN:.*]] = arith.cmpf olt, %[[ABS]], %cst
// LOSS: %[[NOT:.*]] = arith.xori %[[FIN]], %true
// LOSS: scf.if %[[NOT]] {
// LOSS: memref.atomic_rmw ori %c2_i64, %[[S]][%c0]
// LOSS: memref.store %[[LOG]]
// LOSS: gpu.func @pointwise_{{[0-9a-f]+}}(%{{[^:]*}}: memref<f32>, %{{[^:]*}}: memref<f32>, %[[S:.*]]: memref<6xi64> {nova_gpu.status_bits = 4 : i32}) kernel
// LOSS: math.sqrt
// LOSS: memref.atomic_rmw ori %c4_i64, %[[S]][%c0]

func.func @f(%x: tensor<8x16xf32>)
    -> (tensor<f32> {nova.name = "loss"}, tensor<f32> {nova.name = "grad_norm"},
        tensor<f32> {nova.name = "other"}) {
  %s = nova.reduce sum %x dims [0, 1] : tensor<8x16xf32> -> tensor<f32>
  %l = nova.log %s : tensor<f32>
  %sq = nova.mul %x, %x : tensor<8x16xf32>, tensor<8x16xf32>
  %n = nova.reduce sum %sq dims [0, 1] : tensor<8x16xf32> -> tensor<f32>
  %r = nova.sqrt %n : tensor<f32>
  %m = nova.reduce max %x dims [0, 1] : tensor<8x16xf32> -> tensor<f32>
  return %l, %r, %m : tensor<f32>, tensor<f32>, tensor<f32>
}
