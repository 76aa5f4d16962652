// The structural hash ignores SSA names and locations and changes with any
// attribute, constant element, type, schedule field or op order. The hashes
// are stable across processes and ignore printing options.
// RUN: nova-opt %s --nova-print-hash -o /dev/null > %t.1
// RUN: nova-opt %s --nova-print-hash -o /dev/null --mlir-elide-elementsattrs-if-larger=4 --mlir-print-debuginfo > %t.2
// RUN: diff %t.1 %t.2
// RUN: FileCheck %s < %t.1

// CHECK: fusion #0 pointwise [[BASE:[0-9a-f]+]] space 2x10
// CHECK-NEXT: fusion #1 pointwise [[BASE]] space 2x10
// CHECK-NEXT: fusion #2 pointwise [[BASE]] space 2x10
// CHECK-NEXT: fusion #3 pointwise [[ATTR:[0-9a-f]+]] space
// CHECK-NEXT: fusion #4 pointwise [[CONST:[0-9a-f]+]] space
// CHECK-NEXT: fusion #5 pointwise [[TYPE:[0-9a-f]+]] space
// CHECK-NEXT: fusion #6 pointwise [[S4:[0-9a-f]+]] space
// CHECK-NEXT: fusion #7 pointwise [[S8:[0-9a-f]+]] space
// CHECK-NEXT: fusion #8 pointwise [[ORDER:[0-9a-f]+]] space
// CHECK-NOT: fusion

// Hashes #3 to #8 differ from the reference and from each other: seven
// distinct hashes, the reference's three times, every other once.
// RUN: cut -d' ' -f4 %t.1 | sort | uniq -c | sort -n | FileCheck %s --check-prefix=UNIQ
// UNIQ-COUNT-6: {{^ *1 [0-9a-f]{32}$}}
// UNIQ-NEXT: {{^ *3 [0-9a-f]{32}$}}
// UNIQ-NOT: {{.}}

// The reference group.
func.func @base(%in: tensor<2x10xf32>) -> tensor<2x10xf16> {
  %r = nova_tile.fusion pointwise (%in) : (tensor<2x10xf32>) -> tensor<2x10xf16> {
  ^bb0(%x: tensor<2x10xf32>):
    %c = nova.constant dense<[[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0], [10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0]]> : tensor<2x10xf32>
    %e = nova.exp %x : tensor<2x10xf32>
    %n = nova.neg %x : tensor<2x10xf32>
    %s = nova.add %e, %n : tensor<2x10xf32>, tensor<2x10xf32>
    %m = nova.mul %s, %c : tensor<2x10xf32>, tensor<2x10xf32>
    %g = nova.gelu tanh %m : tensor<2x10xf32>
    %h = nova.cast %g : tensor<2x10xf32> to tensor<2x10xf16>
    nova_tile.yield %h : tensor<2x10xf16>
  }
  return %r : tensor<2x10xf16>
}

// Other SSA names and block argument name: equal.
func.func @renamed(%in: tensor<2x10xf32>) -> tensor<2x10xf16> {
  %r = nova_tile.fusion pointwise (%in) : (tensor<2x10xf32>) -> tensor<2x10xf16> {
  ^bb0(%arg: tensor<2x10xf32>):
    %k0 = nova.constant dense<[[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0], [10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0]]> : tensor<2x10xf32>
    %k1 = nova.exp %arg : tensor<2x10xf32>
    %k2 = nova.neg %arg : tensor<2x10xf32>
    %k3 = nova.add %k1, %k2 : tensor<2x10xf32>, tensor<2x10xf32>
    %k4 = nova.mul %k3, %k0 : tensor<2x10xf32>, tensor<2x10xf32>
    %k5 = nova.gelu tanh %k4 : tensor<2x10xf32>
    %k6 = nova.cast %k5 : tensor<2x10xf32> to tensor<2x10xf16>
    nova_tile.yield %k6 : tensor<2x10xf16>
  }
  return %r : tensor<2x10xf16>
}

// Locations on ops and on the group: equal.
func.func @located(%in: tensor<2x10xf32>) -> tensor<2x10xf16> {
  %r = nova_tile.fusion pointwise (%in) : (tensor<2x10xf32>) -> tensor<2x10xf16> {
  ^bb0(%x: tensor<2x10xf32>):
    %c = nova.constant dense<[[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0], [10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0]]> : tensor<2x10xf32>
    %e = nova.exp %x : tensor<2x10xf32> loc("model.py":7:3)
    %n = nova.neg %x : tensor<2x10xf32> loc("model.py":7:3)
    %s = nova.add %e, %n : tensor<2x10xf32>, tensor<2x10xf32> loc("model.py":7:3)
    %m = nova.mul %s, %c : tensor<2x10xf32>, tensor<2x10xf32>
    %g = nova.gelu tanh %m : tensor<2x10xf32>
    %h = nova.cast %g : tensor<2x10xf32> to tensor<2x10xf16>
    nova_tile.yield %h : tensor<2x10xf16> loc("model.py":7:3)
  } loc("other.py":1:1)
  return %r : tensor<2x10xf16>
}

// Another GELU formulation (an attribute): different.
func.func @attr(%in: tensor<2x10xf32>) -> tensor<2x10xf16> {
  %r = nova_tile.fusion pointwise (%in) : (tensor<2x10xf32>) -> tensor<2x10xf16> {
  ^bb0(%x: tensor<2x10xf32>):
    %c = nova.constant dense<[[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0], [10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0]]> : tensor<2x10xf32>
    %e = nova.exp %x : tensor<2x10xf32>
    %n = nova.neg %x : tensor<2x10xf32>
    %s = nova.add %e, %n : tensor<2x10xf32>, tensor<2x10xf32>
    %m = nova.mul %s, %c : tensor<2x10xf32>, tensor<2x10xf32>
    %g = nova.gelu erf %m : tensor<2x10xf32>
    %h = nova.cast %g : tensor<2x10xf32> to tensor<2x10xf16>
    nova_tile.yield %h : tensor<2x10xf16>
  }
  return %r : tensor<2x10xf16>
}

// One element of a 20-element constant (elided when printing with --mlir-elide-elementsattrs-if-larger): different.
func.func @constant(%in: tensor<2x10xf32>) -> tensor<2x10xf16> {
  %r = nova_tile.fusion pointwise (%in) : (tensor<2x10xf32>) -> tensor<2x10xf16> {
  ^bb0(%x: tensor<2x10xf32>):
    %c = nova.constant dense<[[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0], [10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 99.0]]> : tensor<2x10xf32>
    %e = nova.exp %x : tensor<2x10xf32>
    %n = nova.neg %x : tensor<2x10xf32>
    %s = nova.add %e, %n : tensor<2x10xf32>, tensor<2x10xf32>
    %m = nova.mul %s, %c : tensor<2x10xf32>, tensor<2x10xf32>
    %g = nova.gelu tanh %m : tensor<2x10xf32>
    %h = nova.cast %g : tensor<2x10xf32> to tensor<2x10xf16>
    nova_tile.yield %h : tensor<2x10xf16>
  }
  return %r : tensor<2x10xf16>
}

// Another output type: different.
func.func @type(%in: tensor<2x10xf32>) -> tensor<2x10xbf16> {
  %r = nova_tile.fusion pointwise (%in) : (tensor<2x10xf32>) -> tensor<2x10xbf16> {
  ^bb0(%x: tensor<2x10xf32>):
    %c = nova.constant dense<[[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0], [10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0]]> : tensor<2x10xf32>
    %e = nova.exp %x : tensor<2x10xf32>
    %n = nova.neg %x : tensor<2x10xf32>
    %s = nova.add %e, %n : tensor<2x10xf32>, tensor<2x10xf32>
    %m = nova.mul %s, %c : tensor<2x10xf32>, tensor<2x10xf32>
    %g = nova.gelu tanh %m : tensor<2x10xf32>
    %h = nova.cast %g : tensor<2x10xf32> to tensor<2x10xbf16>
    nova_tile.yield %h : tensor<2x10xbf16>
  }
  return %r : tensor<2x10xbf16>
}

// With a schedule: different.
func.func @sched4(%in: tensor<2x10xf32>) -> tensor<2x10xf16> {
  %r = nova_tile.fusion pointwise (%in) : (tensor<2x10xf32>) -> tensor<2x10xf16> schedule #nova_tile.schedule<tile = [256], threads = 128, stages = 1, vector = 4, split_k = 1> {
  ^bb0(%x: tensor<2x10xf32>):
    %c = nova.constant dense<[[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0], [10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0]]> : tensor<2x10xf32>
    %e = nova.exp %x : tensor<2x10xf32>
    %n = nova.neg %x : tensor<2x10xf32>
    %s = nova.add %e, %n : tensor<2x10xf32>, tensor<2x10xf32>
    %m = nova.mul %s, %c : tensor<2x10xf32>, tensor<2x10xf32>
    %g = nova.gelu tanh %m : tensor<2x10xf32>
    %h = nova.cast %g : tensor<2x10xf32> to tensor<2x10xf16>
    nova_tile.yield %h : tensor<2x10xf16>
  }
  return %r : tensor<2x10xf16>
}

// Another vector width in the schedule: different from both.
func.func @sched8(%in: tensor<2x10xf32>) -> tensor<2x10xf16> {
  %r = nova_tile.fusion pointwise (%in) : (tensor<2x10xf32>) -> tensor<2x10xf16> schedule #nova_tile.schedule<tile = [256], threads = 128, stages = 1, vector = 8, split_k = 1> {
  ^bb0(%x: tensor<2x10xf32>):
    %c = nova.constant dense<[[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0], [10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0]]> : tensor<2x10xf32>
    %e = nova.exp %x : tensor<2x10xf32>
    %n = nova.neg %x : tensor<2x10xf32>
    %s = nova.add %e, %n : tensor<2x10xf32>, tensor<2x10xf32>
    %m = nova.mul %s, %c : tensor<2x10xf32>, tensor<2x10xf32>
    %g = nova.gelu tanh %m : tensor<2x10xf32>
    %h = nova.cast %g : tensor<2x10xf32> to tensor<2x10xf16>
    nova_tile.yield %h : tensor<2x10xf16>
  }
  return %r : tensor<2x10xf16>
}

// Two independent ops swapped: different.
func.func @order(%in: tensor<2x10xf32>) -> tensor<2x10xf16> {
  %r = nova_tile.fusion pointwise (%in) : (tensor<2x10xf32>) -> tensor<2x10xf16> {
  ^bb0(%x: tensor<2x10xf32>):
    %c = nova.constant dense<[[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0], [10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0]]> : tensor<2x10xf32>
    %n = nova.neg %x : tensor<2x10xf32>
    %e = nova.exp %x : tensor<2x10xf32>
    %s = nova.add %e, %n : tensor<2x10xf32>, tensor<2x10xf32>
    %m = nova.mul %s, %c : tensor<2x10xf32>, tensor<2x10xf32>
    %g = nova.gelu tanh %m : tensor<2x10xf32>
    %h = nova.cast %g : tensor<2x10xf32> to tensor<2x10xf16>
    nova_tile.yield %h : tensor<2x10xf16>
  }
  return %r : tensor<2x10xf16>
}
