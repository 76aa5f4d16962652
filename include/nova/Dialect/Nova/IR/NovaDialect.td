//===- NovaDialect.td - the high-level nova dialect ---------*- tablegen -*-===//
//
// The `nova` dialect: value-semantic tensor programs (a model's loss and, after
// autodiff, its gradients and optimizer update) on builtin ranked tensors.
//
//===----------------------------------------------------------------------===//

#ifndef NOVA_DIALECT_NOVA_IR_NOVADIALECT_TD
#define NOVA_DIALECT_NOVA_IR_NOVADIALECT_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def Nova_Dialect : Dialect {
  let name = "nova";
  let cppNamespace = "::mlir::nova";
  let summary = "Nova's high-level tensor dialect for training graphs";
  let description = [{
    The `nova` dialect holds whole training graphs with value semantics on
    builtin ranked tensors with static shapes. Element types are `f32`,
    `bf16`, `f16`, `i32`, `i64` and `i1`.

    Elementwise ops broadcast like NumPy: shapes are aligned at their last
    dimension and each pair of sizes must be equal or one of them 1. Both
    operands of a binary op share one element type; conversions are explicit
    (`nova.cast`).

    Primitive ops are the complete set the interpreter and the kernel
    generator understand. Composite ops (`softmax`, `log_softmax`,
    `layer_norm`, `cross_entropy`, `attention`, `adamw`) have a definition in
    terms of primitives but keep their identity so the fuser can map them to
    one kernel.

    Function arguments that are trainable parameters carry the unit
    attribute `nova.param` (a floating-point tensor argument):

    ```mlir
    func.func @loss(%x: tensor<8x16xf32>, %w: tensor<16x4xf32> {nova.param})
    ```

    Other function attributes the passes and tools agree on:
    - `nova.name = "h.0.attn.c_attn.weight"` on an argument or a result: the
      tensor's name in safetensors files (`nova-run`); unnamed ones are
      `argN` / `resultN`.
    - `nova.grad_of = N` on a result: it is the gradient of argument `N`
      (written by `nova-autodiff`).
    - `nova.alias = N` on a result: it is the new value of argument `N`, of
      the same type, and may be written in place (written by
      `nova-train-step`; the runtime keeps such state resident).

    The module attribute `nova.target = #nova.target<...>` names the GPU
    the kernels are configured and emitted for (written by
    `nova-configure`; see `#nova.target` below).

    Op attributes:
    - `nova.precision = "tf32"` on a matmul or attention op with f32
      operands: its multiplications round the operands to TF32 (written by
      `nova-autocast compute=tf32`).
    - `nova.rounded = array<i64: 1>` on such a matmul: the operands listed
      already hold TF32 values (`nova.round_tf32`, inserted by `nova-fuse`
      where a copy costs less than rounding inside the GEMM), so the product
      takes them as they are. The interpreter checks the promise.
  }];
  let hasConstantMaterializer = 1;
  let useDefaultAttributePrinterParser = 1;
  // `nova.param` on a function argument marks a trainable parameter.
  let hasRegionArgAttrVerify = 1;
  let hasRegionResultAttrVerify = 1;
  // `nova.precision` on a product (written by nova-autocast) and
  // `nova.rounded` on a TF32 matmul (written by nova-fuse).
  let hasOperationAttrVerify = 1;
  let extraClassDeclaration = [{
    static constexpr ::llvm::StringLiteral getParamAttrName() {
      return ::llvm::StringLiteral("nova.param");
    }
    static constexpr ::llvm::StringLiteral getNameAttrName() {
      return ::llvm::StringLiteral("nova.name");
    }
    static constexpr ::llvm::StringLiteral getGradOfAttrName() {
      return ::llvm::StringLiteral("nova.grad_of");
    }
    static constexpr ::llvm::StringLiteral getAliasAttrName() {
      return ::llvm::StringLiteral("nova.alias");
    }
    static constexpr ::llvm::StringLiteral getPrecisionAttrName() {
      return ::llvm::StringLiteral("nova.precision");
    }
    static constexpr ::llvm::StringLiteral getRoundedAttrName() {
      return ::llvm::StringLiteral("nova.rounded");
    }
    static constexpr ::llvm::StringLiteral getTargetAttrName() {
      return ::llvm::StringLiteral("nova.target");
    }
  }];
}

//===----------------------------------------------------------------------===//
// Type constraints
//===----------------------------------------------------------------------===//

def Nova_Tensor : StaticShapeTensorOf<[F32, BF16, F16, I32, I64, I1]>;
def Nova_NumericTensor : StaticShapeTensorOf<[F32, BF16, F16, I32, I64]>;
def Nova_FloatTensor : StaticShapeTensorOf<[F32, BF16, F16]>;
def Nova_IndexTensor : StaticShapeTensorOf<[I32, I64]>;
def Nova_BoolTensor : StaticShapeTensorOf<[I1]>;
def Nova_StepTensor : 0DTensorOf<[I32, I64, F32]>;

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

def Nova_ReduceKind : I32EnumAttr<"ReduceKind", "reduction combiner", [
    I32EnumAttrCase<"sum", 0>,
    I32EnumAttrCase<"max", 1>,
    I32EnumAttrCase<"min", 2>]> {
  let cppNamespace = "::mlir::nova";
}

def Nova_CmpPredicate : I32EnumAttr<"CmpPredicate", "comparison predicate", [
    I32EnumAttrCase<"eq", 0>,
    I32EnumAttrCase<"ne", 1>,
    I32EnumAttrCase<"lt", 2>,
    I32EnumAttrCase<"le", 3>,
    I32EnumAttrCase<"gt", 4>,
    I32EnumAttrCase<"ge", 5>]> {
  let cppNamespace = "::mlir::nova";
}

def Nova_GeluApproximation : I32EnumAttr<"GeluApproximation",
    "GELU formulation", [
    I32EnumAttrCase<"tanh", 0>,
    I32EnumAttrCase<"erf", 1>]> {
  let cppNamespace = "::mlir::nova";
}

def Nova_TensorCores : I32EnumAttr<"TensorCores",
    "the tensor-core instructions a target's kernels use", [
    I32EnumAttrCase<"mma_sync", 0>,
    I32EnumAttrCase<"wgmma", 1>]> {
  let cppNamespace = "::mlir::nova";
}

//===----------------------------------------------------------------------===//
// Attributes
//===----------------------------------------------------------------------===//

def Nova_TargetAttr : AttrDef<Nova_Dialect, "Target"> {
  let mnemonic = "target";
  let summary = "the GPU a module's kernels are configured and emitted for";
  let description = [{
    The device facts every later decision reads: `nova-configure
    target=NAME` puts the built-in description of NAME on the module as
    `nova.target`; the configurator prices kernels on it, the verifier
    checks schedules against it, `convert-tile-to-gpu` sizes persistent
    grids and shared memory from it and picks its instructions by it, and
    `nova-to-executable` compiles for its chip. Edit it in the IR to try
    another GPU or another instruction set.

    - `sm`: compute capability as major * 10 + minor (80, 86, 89, 90); 90
      means sm_90a, with TMA bulk copies, wgmma and clusters. At least 80:
      the kernels need bf16 `mma.sync` and `cp.async`.
    - `sms`: streaming multiprocessors, a persistent grid's size.
    - `shared_per_sm`, `shared_per_block`: bytes of shared memory an SM
      holds and one block may opt in to.
    - `registers_per_sm`, `threads_per_sm`: an SM's register file (32-bit
      registers) and resident threads.
    - `l2_bytes`, `bandwidth_gbs` (DRAM, GB/s), `clock_mhz` (boost).
    - `f32_gflops`, `tf32_gflops`, `bf16_gflops`: dense peaks (CUDA cores
      for f32, tensor cores for the others).
    - `tensor_cores`: `wgmma` (sm 90 only) or `mma_sync`.

    ```mlir
    module attributes {nova.target = #nova.target<"a100", sm = 80, sms = 108,
        shared_per_sm = 167936, shared_per_block = 166912,
        registers_per_sm = 65536, threads_per_sm = 2048, l2_bytes = 41943040,
        bandwidth_gbs = 2039, clock_mhz = 1410, f32_gflops = 19500,
        tf32_gflops = 156000, bf16_gflops = 312000, tensor_cores = mma_sync>} {
    }
    ```
  }];
  let parameters = (ins StringRefParameter<"the target's name">:$name,
                        "int64_t":$sm, "int64_t":$sms,
                        "int64_t":$shared_per_sm, "int64_t":$shared_per_block,
                        "int64_t":$registers_per_sm, "int64_t":$threads_per_sm,
                        "int64_t":$l2_bytes, "int64_t":$bandwidth_gbs,
                        "int64_t":$clock_mhz, "int64_t":$f32_gflops,
                        "int64_t":$tf32_gflops, "int64_t":$bf16_gflops,
                        EnumParameter<Nova_TensorCores>:$tensor_cores);
  let assemblyFormat = [{
    `<` $name `,` struct($sm, $sms, $shared_per_sm, $shared_per_block,
                         $registers_per_sm, $threads_per_sm, $l2_bytes,
                         $bandwidth_gbs, $clock_mhz, $f32_gflops,
                         $tf32_gflops, $bf16_gflops, $tensor_cores) `>`
  }];
  let genVerifyDecl = 1;
}

#endif // NOVA_DIALECT_NOVA_IR_NOVADIALECT_TD
