//===- NovaTileOps.td - the nova_tile dialect ---------------*- tablegen -*-===//
//
// One op per GPU kernel: a fusion group of whole-tensor `nova` ops, its kernel
// family and its schedule.
//
//===----------------------------------------------------------------------===//

#ifndef NOVA_DIALECT_NOVATILE_IR_NOVATILEOPS_TD
#define NOVA_DIALECT_NOVATILE_IR_NOVATILEOPS_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "nova/Dialect/NovaTile/IR/NovaTileInterfaces.td"

def NovaTile_Dialect : Dialect {
  let name = "nova_tile";
  let cppNamespace = "::mlir::nova_tile";
  let summary = "Kernels as fusion groups of whole-tensor nova ops";
  let description = [{
    Every op of `nova_tile` that holds a body is one GPU kernel: a fusion
    group, as in XLA's fusion computations. Its `IsolatedFromAbove` region
    has one block whose arguments are the kernel's tensor inputs; the body
    is ordinary `nova` ops on whole tensors (value semantics) and ends with
    `nova_tile.yield`, whose operands are the kernel's outputs. The
    optional schedule follows the type:
    `... -> tensor<4x8xf32> schedule <tile = [1024], threads = 256, ...>`. Because the
    body is plain `nova`, the interpreter runs a tile program by evaluating
    bodies and fusion is moving ops into a region.

    **One op with a `family` attribute, not one op per family.** A family
    (pointwise, row reduction, column reduction, matmul, attention forward,
    attention backward, gather, scatter_add, optimizer) is a contract on the
    body, not a different kind of op: every family has the same operands,
    results, region and schedule. So there is one inline group op
    (`nova_tile.fusion`), one outlined form (`nova_tile.kernel`, a symbol
    that `nova_tile.launch` calls) and the family enum on both. The verifier
    dispatches on the enum to the family's contract (`Contracts.h`: the
    iteration space and how each input and output is accessed), the same
    C++ function the configurator's problem and the GPU emitters use; a
    body that breaks its contract gets a diagnostic at the offending op
    naming the broken rule. Emitters switch on the family of a
    `FusionGroupOpInterface`, which both `fusion` and `kernel` implement,
    instead of matching nine op classes twice (inline and outlined).

    The `schedule` attribute (tile sizes, threads, pipeline stages, vector
    width, split-K) is absent until `nova-configure` attaches one.

    ```mlir
    %y = nova_tile.fusion pointwise (%x, %b) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32> {
    ^bb0(%xa: tensor<4x8xf32>, %ba: tensor<8xf32>):
      %s = nova.add %xa, %ba : tensor<4x8xf32>, tensor<8xf32>
      %g = nova.gelu tanh %s : tensor<4x8xf32>
      nova_tile.yield %g : tensor<4x8xf32>
    }
    ```
  }];
  let useDefaultAttributePrinterParser = 1;
}

def NovaTile_Family : I32EnumAttr<"Family", "kernel family", [
    I32EnumAttrCase<"pointwise", 0>,
    I32EnumAttrCase<"row_reduction", 1>,
    I32EnumAttrCase<"column_reduction", 2>,
    I32EnumAttrCase<"matmul", 3>,
    I32EnumAttrCase<"attention_forward", 4>,
    I32EnumAttrCase<"attention_backward", 5>,
    I32EnumAttrCase<"gather", 6>,
    I32EnumAttrCase<"scatter_add", 7>,
    I32EnumAttrCase<"optimizer", 8>]> {
  let cppNamespace = "::mlir::nova_tile";
}

def NovaTile_ScheduleAttr : AttrDef<NovaTile_Dialect, "Schedule"> {
  let mnemonic = "schedule";
  let summary = "a kernel's launch schedule, as the configurator chooses it";
  let description = [{
    The fields of the configurator's `Schedule` that change the generated
    code: `tile` (the block tile, 1 to 3 sizes: [M, N, K] for a matmul,
    [rows, cols] for reductions, [elements] for pointwise), `threads` per
    block, software-pipeline `stages`, `vector` width in elements and
    `split_k` (matmul K split, column-reduction row split). All positive.

    ```mlir
    #nova_tile.schedule<tile = [128, 128, 64], threads = 256, stages = 3, vector = 8, split_k = 1>
    ```
  }];
  let parameters = (ins ArrayRefParameter<"int64_t">:$tile, "int64_t":$threads,
                        "int64_t":$stages, "int64_t":$vector,
                        "int64_t":$split_k);
  let assemblyFormat = [{
    `<` `tile` `=` `[` $tile `]` `,` `threads` `=` $threads `,`
    `stages` `=` $stages `,` `vector` `=` $vector `,` `split_k` `=` $split_k `>`
  }];
  let genVerifyDecl = 1;
}

class NovaTile_Op<string mnemonic, list<Trait> traits = []>
    : Op<NovaTile_Dialect, mnemonic, traits>;

def NovaTile_FusionOp : NovaTile_Op<"fusion", [IsolatedFromAbove,
    RecursiveMemoryEffects, NovaTile_FusionGroupOpInterface]> {
  let summary = "one kernel, inline: a fusion group of nova ops";
  let description = [{
    Runs its body on `inputs` (bound to the block arguments, same types) and
    returns what the body yields. The body must follow the contract of
    `family`.
  }];
  let arguments = (ins NovaTile_Family:$family,
                       Variadic<AnyStaticShapeTensor>:$inputs,
                       OptionalAttr<NovaTile_ScheduleAttr>:$schedule);
  let results = (outs Variadic<AnyStaticShapeTensor>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $family `(` $inputs `)` `:` functional-type($inputs, $results)
    (`schedule` $schedule^)? attr-dict-with-keyword $body
  }];
  let hasRegionVerifier = 1;
}

def NovaTile_KernelOp : NovaTile_Op<"kernel", [IsolatedFromAbove, Symbol,
    NovaTile_FusionGroupOpInterface]> {
  let summary = "one kernel, outlined: a named fusion group";
  let description = [{
    A fusion group moved out of its function by `nova-outline-kernels` so
    identical groups (equal structural hash) share one symbol, called by
    `nova_tile.launch`. Its inputs are the block arguments and its outputs
    the yielded values.
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, NovaTile_Family:$family,
                       OptionalAttr<NovaTile_ScheduleAttr>:$schedule);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $sym_name $family (`schedule` $schedule^)? attr-dict-with-keyword $body
  }];
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    /// (block argument types) -> (yielded types).
    ::mlir::FunctionType getKernelType();
  }];
}

def NovaTile_LaunchOp : NovaTile_Op<"launch", [
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "runs an outlined kernel";
  let description = [{
    Calls `nova_tile.kernel @kernel` on `inputs`; the operand and result
    types must be the kernel's.
  }];
  let arguments = (ins FlatSymbolRefAttr:$kernel,
                       Variadic<AnyStaticShapeTensor>:$inputs);
  let results = (outs Variadic<AnyStaticShapeTensor>:$results);
  let assemblyFormat = [{
    $kernel `(` $inputs `)` attr-dict `:` functional-type($inputs, $results)
  }];
}

def NovaTile_YieldOp : NovaTile_Op<"yield", [Pure, Terminator, ReturnLike,
    ParentOneOf<["FusionOp", "KernelOp"]>]> {
  let summary = "ends a fusion group's body with the kernel's outputs";
  let arguments = (ins Variadic<AnyStaticShapeTensor>:$values);
  let assemblyFormat = "($values^ `:` type($values))? attr-dict";
}

#endif // NOVA_DIALECT_NOVATILE_IR_NOVATILEOPS_TD
