//===- Passes.td - whole-graph passes -----------------------*- tablegen -*-===//

#ifndef NOVA_TRANSFORMS_PASSES_TD
#define NOVA_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def NovaExplicitBroadcast : Pass<"nova-explicit-broadcast"> {
  let summary = "Make every implicit NumPy broadcast an explicit nova.broadcast";
  let description = [{
    After this pass every broadcasting elementwise op (`add`, `sub`, `mul`,
    `div`, `max`, `min`, `pow`, `cmp`, `select`) has operands of exactly its
    result's shape: each operand that was implicitly broadcast now comes from
    a `nova.broadcast`. Kernel generation then sees one iteration space per
    op, and the broadcast is a visible op that the fuser turns into a strided
    read. The program computes the same values before and after.

    ```mlir
    %y = nova.add %x, %bias : tensor<4x8xf32>, tensor<8xf32>
    ```
    becomes
    ```mlir
    %b = nova.broadcast %bias : tensor<8xf32> -> tensor<4x8xf32>
    %y = nova.add %x, %b : tensor<4x8xf32>, tensor<4x8xf32>
    ```
  }];
  let dependentDialects = ["::mlir::nova::NovaDialect"];
}

#endif // NOVA_TRANSFORMS_PASSES_TD
