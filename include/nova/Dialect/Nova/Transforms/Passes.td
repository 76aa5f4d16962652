//===- Passes.td - passes of the nova dialect ---------------*- tablegen -*-===//

#ifndef NOVA_DIALECT_NOVA_TRANSFORMS_PASSES_TD
#define NOVA_DIALECT_NOVA_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def NovaCanonicalize : Pass<"nova-canonicalize"> {
  let summary = "Fold and canonicalize nova ops, leaving other dialects alone";
  let description = [{
    Runs the folders and canonicalization patterns of the `nova` dialect (and
    only those) to a fixed point: constant folding of small constants,
    algebraic identities such as `x + (-0.0)` and `x * 1` (not `x + 0.0`,
    which is `+0.0` for `x = -0.0`), reshape of reshape,
    transpose of transpose, identity broadcast / reshape / transpose / slice /
    cast. Unlike upstream `canonicalize`, ops of other dialects are not
    touched, so the pass can run inside a mixed pipeline without side effects
    on, say, `arith` or `scf`. Dead nova ops (all nova ops are pure) are
    erased.

    Example: `nova-opt --nova-canonicalize` turns

    ```mlir
    %z = nova.constant dense<1.0> : tensor<4xf32>
    %y = nova.mul %x, %z : tensor<4xf32>, tensor<4xf32>
    ```

    into a direct use of `%x`.
  }];
  let options = [
    Option<"maxIterations", "max-iterations", "int64_t", "10",
           "Folds and rewrites allowed per nova op (on average) before "
           "giving up on a fixed point; must be at least 1">,
  ];
}

#endif // NOVA_DIALECT_NOVA_TRANSFORMS_PASSES_TD
