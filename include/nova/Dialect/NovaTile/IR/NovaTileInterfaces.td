//===- NovaTileInterfaces.td - nova_tile op interfaces -----*- tablegen -*-===//

#ifndef NOVA_DIALECT_NOVATILE_IR_NOVATILEINTERFACES_TD
#define NOVA_DIALECT_NOVATILE_IR_NOVATILEINTERFACES_TD

include "mlir/IR/OpBase.td"

def NovaTile_FusionGroupOpInterface : OpInterface<"FusionGroupOpInterface"> {
  let cppNamespace = "::mlir::nova_tile";
  let description = [{
    A kernel's worth of `nova` ops: an isolated single-block body whose
    arguments are the kernel's tensor inputs and whose `nova_tile.yield`
    gives its outputs, a kernel family and an optional schedule. Both the
    inline group (`nova_tile.fusion`) and the outlined kernel
    (`nova_tile.kernel`) implement it, so the family contracts
    (`Contracts.h`), the structural hash, the interpreter and the GPU
    emitters see one shape of kernel whichever form it is in.
  }];
  let methods = [
    InterfaceMethod<"The kernel family whose contract the body follows.",
      "::mlir::nova_tile::Family", "getFamily">,
    InterfaceMethod<"The schedule, or null before `nova-configure`.",
      "::mlir::nova_tile::ScheduleAttr", "getScheduleAttr">,
    InterfaceMethod<"Attaches (or, with null, removes) the schedule.",
      "void", "setScheduleAttr",
      (ins "::mlir::nova_tile::ScheduleAttr":$schedule)>,
    InterfaceMethod<"The body block: arguments are the kernel's inputs.",
      "::mlir::Block &", "getBodyBlock", (ins), [{
        return $_op.getBody().front();
      }]>,
    InterfaceMethod<"The body's terminator: its operands are the outputs.",
      "::mlir::Operation *", "getYield", (ins), [{
        return $_op.getBody().front().getTerminator();
      }]>,
  ];
}

#endif // NOVA_DIALECT_NOVATILE_IR_NOVATILEINTERFACES_TD
