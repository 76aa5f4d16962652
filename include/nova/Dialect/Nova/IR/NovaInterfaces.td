//===- NovaInterfaces.td - nova op interfaces --------------*- tablegen -*-===//

#ifndef NOVA_DIALECT_NOVA_IR_NOVAINTERFACES_TD
#define NOVA_DIALECT_NOVA_IR_NOVAINTERFACES_TD

include "mlir/IR/OpBase.td"

def Nova_DifferentiableOpInterface : OpInterface<"DifferentiableOpInterface"> {
  let cppNamespace = "::mlir::nova";
  let description = [{
    The reverse-mode differentiation rule of an op: given the gradient of the
    loss with respect to each result, build (at the builder's insertion
    point) the gradient with respect to each operand. `nova-autodiff` walks a
    function backwards and calls this on every op that lies between a
    parameter and the loss, so it needs no list of ops.

    Each produced gradient has its operand's exact type: a rule whose op
    broadcasts sums the gradient back to the operand's shape. A rule leaves
    `operandGrads[i]` null for operands that have no gradient (integers,
    conditions, indices).

    A rule may also replace its own op's results by an equivalent op that
    yields what the backward needs (`nova.attention` becomes
    `nova.attention_fwd`, whose log-sum-exp `nova.attention_bwd` reads); it
    touches no other op, and `nova-autodiff` erases the unused original.
  }];
  let methods = [
    InterfaceMethod<[{
        Builds the operand gradients. `resultGrads[i]` is the gradient of
        result `i`, or null when no gradient flows into it (the rule treats
        it as zero). `operandGrads` comes in with one null entry per operand.
      }],
      "::llvm::LogicalResult", "buildGradients",
      (ins "::mlir::OpBuilder &":$builder,
           "::mlir::ArrayRef<::mlir::Value>":$resultGrads,
           "::llvm::MutableArrayRef<::mlir::Value>":$operandGrads)>
  ];
}

#endif // NOVA_DIALECT_NOVA_IR_NOVAINTERFACES_TD
