// In a graph region (here the module body) an op may use its own result or
// a cycle of ops may feed itself. Folding must still terminate, whatever
// max-iterations says; timeout turns a hang into a failure.
// RUN: timeout 20 nova-opt %s --nova-canonicalize=max-iterations=1 | FileCheck %s --check-prefix=NOVA
// RUN: timeout 20 nova-opt %s --nova-canonicalize | FileCheck %s --check-prefix=NOVA
// RUN: timeout 20 nova-opt %s --canonicalize | FileCheck %s --check-prefix=UPSTREAM

// The self-references stay as they are (nothing to fold them to); the
// cycles shrink to self-references.
// NOVA: %[[A:.*]] = nova.reshape %[[A]] : tensor<4xf32> -> tensor<4xf32>
// NOVA: %[[B:.*]] = nova.reshape %[[B]] : tensor<4xf32> -> tensor<4xf32>
// NOVA: %[[C:.*]] = nova.transpose %[[C]] [0, 1] : tensor<2x3xf32> -> tensor<2x3xf32>
// NOVA: %[[D:.*]] = nova.add %[[D]], %{{.*}} : tensor<4xf32>, tensor<f32>
// NOVA: %[[E:.*]] = nova.select %{{.*}}, %[[E]], %[[D]]
// NOVA: %[[F:.*]] = nova.cast %[[F]]
// NOVA: %[[G:.*]] = nova.broadcast %[[G]]
// NOVA: %[[H:.*]] = nova.concat %[[H]] dim 0
// NOVA: %[[I:.*]] = nova.slice %[[I]]
// NOVA: %[[J:.*]] = nova.mul %[[J]], %{{.*}}
// Upstream canonicalize erases the unused cycles.
// UPSTREAM: module {
// UPSTREAM-NEXT: }

%0 = nova.reshape %0 : tensor<4xf32> -> tensor<4xf32>
%1 = nova.reshape %2 : tensor<4xf32> -> tensor<2x2xf32>
%2 = nova.reshape %1 : tensor<2x2xf32> -> tensor<4xf32>
%3 = nova.transpose %5 [1, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
%4 = nova.transpose %3 [1, 0] : tensor<3x2xf32> -> tensor<2x3xf32>
%5 = nova.transpose %4 [0, 1] : tensor<2x3xf32> -> tensor<2x3xf32>
%z = nova.constant dense<-0.0> : tensor<f32>
%6 = nova.add %6, %z : tensor<4xf32>, tensor<f32>
%t = nova.constant dense<true> : tensor<i1>
%7 = nova.select %t, %7, %6 : tensor<i1>, tensor<4xf32>, tensor<4xf32>
%8 = nova.cast %8 : tensor<4xf32> to tensor<4xf32>
%9 = nova.broadcast %9 : tensor<4xf32> -> tensor<4xf32>
%10 = nova.concat %10 dim 0 : tensor<4xf32> -> tensor<4xf32>
%11 = nova.slice %11 starts [0] limits [4] strides [1] : tensor<4xf32> -> tensor<4xf32>
%one = nova.constant dense<1.0> : tensor<f32>
%12 = nova.mul %one, %12 : tensor<f32>, tensor<4xf32>
%13 = nova.broadcast %14 : tensor<4xf32> -> tensor<1x4xf32>
%14 = nova.reshape %13 : tensor<1x4xf32> -> tensor<4xf32>
