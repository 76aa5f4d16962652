//===- NovaOps.td - nova dialect operations -----------------*- tablegen -*-===//
//
// Every op of the high-level dialect. Result types are inferred wherever the
// operands and attributes determine them; verifiers name the rule a malformed
// op breaks.
//
//===----------------------------------------------------------------------===//

#ifndef NOVA_DIALECT_NOVA_IR_NOVAOPS_TD
#define NOVA_DIALECT_NOVA_IR_NOVAOPS_TD

include "nova/Dialect/Nova/IR/NovaDialect.td"
include "nova/Dialect/Nova/IR/NovaInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"

def Nova_BroadcastingElementwise : NativeOpTrait<"BroadcastingElementwise"> {
  let cppNamespace = "::mlir::nova::OpTrait";
}

def Nova_CheckedInference : NativeOpTrait<"CheckedInference"> {
  let cppNamespace = "::mlir::nova::OpTrait";
}

// Result type inferred from operands and attributes, with one diagnostic per
// malformed op (see NovaTraits.h).
defvar Nova_InferredResult = [Nova_CheckedInference, InferTypeOpAdaptor];

def Nova_CountableShapes : NativeOpTrait<"CountableShapes"> {
  let cppNamespace = "::mlir::nova::OpTrait";
}

// Every nova op is pure, and its tensors' element counts fit int64_t (checked
// before any other verifier multiplies dimensions).
class Nova_Op<string mnemonic, list<Trait> traits = []>
    : Op<Nova_Dialect, mnemonic, !listconcat([Pure, Nova_CountableShapes], traits)>;

//===----------------------------------------------------------------------===//
// Sources
//===----------------------------------------------------------------------===//

def Nova_ConstantOp : Nova_Op<"constant", !listconcat([ConstantLike], Nova_InferredResult)> {
  let summary = "tensor literal";
  let description = [{
    A tensor whose elements are given by a dense elements attribute; the
    result type is the attribute's type.

    ```mlir
    %w = nova.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
    ```
  }];
  let arguments = (ins ElementsAttr:$value);
  let results = (outs Nova_Tensor:$result);
  let assemblyFormat = "$value attr-dict";
  let hasFolder = 1;
}

def Nova_IotaOp : Nova_Op<"iota"> {
  let summary = "indices along one dimension";
  let description = [{
    `result[i0, ..., in] = i_dim`, converted to the result's element type.

    ```mlir
    %pos = nova.iota dim 1 : tensor<4x64xi64>
    ```
  }];
  let arguments = (ins I64Attr:$dim);
  let results = (outs Nova_NumericTensor:$result);
  let assemblyFormat = "`dim` $dim attr-dict `:` type($result)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Elementwise unary
//===----------------------------------------------------------------------===//

class Nova_UnaryOp<string mnemonic, Type tensorType, string math>
    : Nova_Op<mnemonic, [SameOperandsAndResultType, DeclareOpInterfaceMethods<Nova_DifferentiableOpInterface>]> {
  let summary = "elementwise " # math;
  let description = "Computes `" # math # "` for every element.";
  let arguments = (ins tensorType:$input);
  let results = (outs tensorType:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasFolder = 1;
}

def Nova_NegOp : Nova_UnaryOp<"neg", Nova_NumericTensor, "-x">;
def Nova_AbsOp : Nova_UnaryOp<"abs", Nova_NumericTensor, "|x|">;
def Nova_ReluOp : Nova_UnaryOp<"relu", Nova_NumericTensor, "max(x, 0)">;
def Nova_ExpOp : Nova_UnaryOp<"exp", Nova_FloatTensor, "e^x">;
def Nova_LogOp : Nova_UnaryOp<"log", Nova_FloatTensor, "ln(x)">;
def Nova_TanhOp : Nova_UnaryOp<"tanh", Nova_FloatTensor, "tanh(x)">;
def Nova_SqrtOp : Nova_UnaryOp<"sqrt", Nova_FloatTensor, "sqrt(x)">;
def Nova_RsqrtOp : Nova_UnaryOp<"rsqrt", Nova_FloatTensor, "1 / sqrt(x)">;
def Nova_SigmoidOp : Nova_UnaryOp<"sigmoid", Nova_FloatTensor,
                                  "1 / (1 + e^-x)">;
def Nova_ReciprocalOp : Nova_UnaryOp<"reciprocal", Nova_FloatTensor, "1 / x">;
def Nova_ErfOp : Nova_UnaryOp<"erf", Nova_FloatTensor, "erf(x)">;
def Nova_RoundTF32Op : Nova_UnaryOp<"round_tf32", StaticShapeTensorOf<[F32]>,
                                    "x rounded to TF32"> {
  let description = [{
    Rounds every f32 element to the nearest TF32 value (10 mantissa bits,
    ties to even; infinities and NaN kept), still stored as f32: the
    rounding the interpreter applies to a `nova.precision = "tf32"`
    product's operands, done once ahead of it (the wgmma kernel rounds the
    operands it rounds itself with ties away from zero, as cvt.rna does:
    exact ties, one element in 8192, differ by one TF32 ulp). `nova-fuse` inserts it for a GEMM operand whose
    copy costs less than rounding each tile inside the kernel (a weight
    read by many row tiles), and marks the product `nova.rounded`. Its
    gradient passes through unchanged, as a TF32 product's does.

    ```mlir
    %w32 = nova.round_tf32 %w : tensor<2304x768xf32>
    ```
  }];
}

def Nova_GeluOp : Nova_Op<"gelu", [SameOperandsAndResultType, DeclareOpInterfaceMethods<Nova_DifferentiableOpInterface>]> {
  let summary = "Gaussian error linear unit";
  let description = [{
    `erf`: `x/2 * (1 + erf(x / sqrt 2))`; `tanh` (GPT-2's):
    `x/2 * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3)))`.

    ```mlir
    %y = nova.gelu tanh %x : tensor<8x3072xf32>
    ```
  }];
  let arguments = (ins Nova_GeluApproximation:$approximation,
                       Nova_FloatTensor:$input);
  let results = (outs Nova_FloatTensor:$result);
  let assemblyFormat = "$approximation $input attr-dict `:` type($input)";
  let hasFolder = 1;
}

def Nova_CastOp : Nova_Op<"cast", [DeclareOpInterfaceMethods<Nova_DifferentiableOpInterface>]> {
  let summary = "element type conversion";
  let description = [{
    Converts every element to the result's element type (floats round to
    nearest even; float to integer truncates toward zero; to `i1` is `x != 0`).
    The shape is unchanged.

    ```mlir
    %h = nova.cast %x : tensor<4x8xf32> to tensor<4x8xbf16>
    ```
  }];
  let arguments = (ins Nova_Tensor:$input);
  let results = (outs Nova_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `to` type($result)";
  let hasFolder = 1;
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Elementwise binary (NumPy broadcasting)
//===----------------------------------------------------------------------===//

class Nova_BinaryOp<string mnemonic, Type tensorType, string math,
                    list<Trait> traits = []>
    : Nova_Op<mnemonic, !listconcat(traits, [Nova_BroadcastingElementwise,
                                             DeclareOpInterfaceMethods<Nova_DifferentiableOpInterface>],
                                Nova_InferredResult)> {
  let summary = "elementwise " # math # " with broadcasting";
  let description = "Computes `" # math # "` elementwise after broadcasting "
    # "both operands to their common shape (NumPy rules). Both operands "
    # "have the same element type, which is the result's.";
  let arguments = (ins tensorType:$lhs, tensorType:$rhs);
  let results = (outs tensorType:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs)";
  let hasFolder = 1;
}

def Nova_AddOp : Nova_BinaryOp<"add", Nova_NumericTensor, "lhs + rhs",
                               [Commutative]> {
  // Sums of concatenations split the same way become concatenations of sums
  // (NovaPatterns.cpp): the gradient of a tensor read through several slices
  // is then one concatenation, not a sum of zero-padded copies.
  let hasCanonicalizer = 1;
}
def Nova_SubOp : Nova_BinaryOp<"sub", Nova_NumericTensor, "lhs - rhs">;
def Nova_MulOp : Nova_BinaryOp<"mul", Nova_NumericTensor, "lhs * rhs",
                               [Commutative]>;
def Nova_DivOp : Nova_BinaryOp<"div", Nova_NumericTensor, "lhs / rhs">;
def Nova_MaxOp : Nova_BinaryOp<"max", Nova_NumericTensor, "max(lhs, rhs)",
                               [Commutative]>;
def Nova_MinOp : Nova_BinaryOp<"min", Nova_NumericTensor, "min(lhs, rhs)",
                               [Commutative]>;
def Nova_PowOp : Nova_BinaryOp<"pow", Nova_FloatTensor, "lhs ^ rhs">;

def Nova_CmpOp : Nova_Op<"cmp", !listconcat([Nova_BroadcastingElementwise],
                                           Nova_InferredResult)> {
  let summary = "elementwise comparison with broadcasting";
  let description = [{
    Compares broadcast operands of one element type; the result is `i1`.

    ```mlir
    %mask = nova.cmp le, %col, %row : tensor<1x64xi64>, tensor<64x1xi64>
    ```
  }];
  let arguments = (ins Nova_CmpPredicate:$predicate, Nova_Tensor:$lhs,
                       Nova_Tensor:$rhs);
  let results = (outs Nova_BoolTensor:$result);
  let assemblyFormat =
      "$predicate `,` $lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs)";
  let hasFolder = 1;
}

def Nova_SelectOp : Nova_Op<"select", !listconcat([Nova_BroadcastingElementwise,
                                                  DeclareOpInterfaceMethods<Nova_DifferentiableOpInterface>],
                                                 Nova_InferredResult)> {
  let summary = "elementwise choice with broadcasting";
  let description = [{
    `cond ? on_true : on_false` per element, all three broadcast together.

    ```mlir
    %s = nova.select %mask, %scores, %neg_inf
        : tensor<64x64xi1>, tensor<4x64x64xf32>, tensor<f32>
    ```
  }];
  let arguments = (ins Nova_BoolTensor:$condition, Nova_Tensor:$on_true,
                       Nova_Tensor:$on_false);
  let results = (outs Nova_Tensor:$result);
  let assemblyFormat = "$condition `,` $on_true `,` $on_false attr-dict `:` "
                       "type($condition) `,` type($on_true) `,` type($on_false)";
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

def Nova_ReduceOp : Nova_Op<"reduce", !listconcat([DeclareOpInterfaceMethods<Nova_DifferentiableOpInterface>], Nova_InferredResult)> {
  let summary = "sum, max or min over a set of dimensions";
  let description = [{
    Reduces `input` over `dims` (distinct, in range). The reduced dimensions
    are dropped, or kept with size 1 when `keep_dims` is present.

    ```mlir
    %rowsum = nova.reduce sum %x dims [1] : tensor<4x8xf32> -> tensor<4xf32>
    %rowmax = nova.reduce max %x dims [1] keep_dims
        : tensor<4x8xf32> -> tensor<4x1xf32>
    ```
  }];
  let arguments = (ins Nova_ReduceKind:$kind, Nova_NumericTensor:$input,
                       DenseI64ArrayAttr:$dims, UnitAttr:$keep_dims);
  let results = (outs Nova_NumericTensor:$result);
  let assemblyFormat = "$kind $input `dims` $dims (`keep_dims` $keep_dims^)? "
                       "attr-dict `:` type($input) `->` type($result)";
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

def Nova_ReshapeOp : Nova_Op<"reshape", [DeclareOpInterfaceMethods<Nova_DifferentiableOpInterface>]> {
  let summary = "same elements, new shape";
  let description = [{
    Reinterprets the elements in row-major order with a new static shape of
    the same element count.

    ```mlir
    %flat = nova.reshape %x : tensor<4x64x768xf32> -> tensor<256x768xf32>
    ```
  }];
  let arguments = (ins Nova_Tensor:$input);
  let results = (outs Nova_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasFolder = 1;
  let hasVerifier = 1;
}

def Nova_TransposeOp : Nova_Op<"transpose", !listconcat([DeclareOpInterfaceMethods<Nova_DifferentiableOpInterface>], Nova_InferredResult)> {
  let summary = "permute dimensions";
  let description = [{
    `result.shape[i] = input.shape[permutation[i]]`.

    ```mlir
    %t = nova.transpose %x [0, 2, 1, 3]
        : tensor<4x64x12x64xf32> -> tensor<4x12x64x64xf32>
    ```
  }];
  let arguments = (ins Nova_Tensor:$input, DenseI64ArrayAttr:$permutation);
  let results = (outs Nova_Tensor:$result);
  let assemblyFormat =
      "$input $permutation attr-dict `:` type($input) `->` type($result)";
  let hasFolder = 1;
}

def Nova_BroadcastOp : Nova_Op<"broadcast", [DeclareOpInterfaceMethods<Nova_DifferentiableOpInterface>]> {
  let summary = "explicit NumPy broadcast to a larger shape";
  let description = [{
    Aligns the input's shape with the result's at the last dimension; every
    input size must be 1 or equal to the result's.

    ```mlir
    %b = nova.broadcast %bias : tensor<768xf32> -> tensor<256x768xf32>
    ```
  }];
  let arguments = (ins Nova_Tensor:$input);
  let results = (outs Nova_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasFolder = 1;
  let hasVerifier = 1;
}

def Nova_SliceOp : Nova_Op<"slice", !listconcat([DeclareOpInterfaceMethods<Nova_DifferentiableOpInterface>], Nova_InferredResult)> {
  let summary = "strided window";
  let description = [{
    Takes `start[d], start[d] + stride[d], ...` below `limit[d]` along every
    dimension: `0 <= start <= limit <= size` and `stride >= 1`.

    ```mlir
    %q = nova.slice %qkv starts [0, 0] limits [256, 768] strides [1, 1]
        : tensor<256x2304xf32> -> tensor<256x768xf32>
    ```
  }];
  let arguments = (ins Nova_Tensor:$input, DenseI64ArrayAttr:$starts,
                       DenseI64ArrayAttr:$limits, DenseI64ArrayAttr:$strides);
  let results = (outs Nova_Tensor:$result);
  let assemblyFormat = "$input `starts` $starts `limits` $limits `strides` "
                       "$strides attr-dict `:` type($input) `->` type($result)";
  let hasFolder = 1;
}

def Nova_ConcatOp : Nova_Op<"concat", !listconcat([DeclareOpInterfaceMethods<Nova_DifferentiableOpInterface>], Nova_InferredResult)> {
  let summary = "join tensors along one dimension";
  let description = [{
    All inputs have the same rank and element type and agree on every size
    but the one of `dim`, which adds up.

    ```mlir
    %c = nova.concat %a, %b dim 1
        : tensor<4x8xf32>, tensor<4x2xf32> -> tensor<4x10xf32>
    ```
  }];
  let arguments = (ins Variadic<Nova_Tensor>:$inputs, I64Attr:$dim);
  let results = (outs Nova_Tensor:$result);
  let assemblyFormat = "$inputs `dim` $dim attr-dict `:` type($inputs) `->` "
                       "type($result)";
  let hasFolder = 1;
}

def Nova_GatherOp : Nova_Op<"gather", !listconcat([DeclareOpInterfaceMethods<Nova_DifferentiableOpInterface>], Nova_InferredResult)> {
  let summary = "take slices of a table at integer indices (embedding)";
  let description = [{
    `result = table[..., indices[j...], ...]` along `axis`:
    `result.shape = table.shape[:axis] + indices.shape + table.shape[axis+1:]`.
    Indices are `i32` or `i64`; out-of-range indices are undefined behaviour.

    ```mlir
    %emb = nova.gather %wte[%tokens] axis 0
        : tensor<50304x768xf32>, tensor<4x64xi32> -> tensor<4x64x768xf32>
    ```
  }];
  let arguments = (ins Nova_Tensor:$table, Nova_IndexTensor:$indices,
                       I64Attr:$axis);
  let results = (outs Nova_Tensor:$result);
  let assemblyFormat = "$table `[` $indices `]` `axis` $axis attr-dict `:` "
                       "type($table) `,` type($indices) `->` type($result)";
}

def Nova_ScatterAddOp : Nova_Op<"scatter_add", [DeclareOpInterfaceMethods<Nova_DifferentiableOpInterface>]> {
  let summary = "accumulate slices into a zero tensor at integer indices";
  let description = [{
    The adjoint of `nova.gather`: starts from zeros of the result type and adds
    every slice of `updates` at `indices` along `axis` (duplicates add up).
    `updates.shape = result.shape[:axis] + indices.shape + result.shape[axis+1:]`.

    ```mlir
    %dwte = nova.scatter_add %demb[%tokens] axis 0
        : tensor<4x64x768xf32>, tensor<4x64xi32> -> tensor<50304x768xf32>
    ```
  }];
  let arguments = (ins Nova_NumericTensor:$updates, Nova_IndexTensor:$indices,
                       I64Attr:$axis);
  let results = (outs Nova_NumericTensor:$result);
  let assemblyFormat = "$updates `[` $indices `]` `axis` $axis attr-dict `:` "
                       "type($updates) `,` type($indices) `->` type($result)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Contraction
//===----------------------------------------------------------------------===//

def Nova_MatmulOp : Nova_Op<"matmul", !listconcat([DeclareOpInterfaceMethods<Nova_DifferentiableOpInterface>], Nova_InferredResult)> {
  let summary = "batched matrix product";
  let description = [{
    `(..., M, K) x (..., K, N) -> (..., M, N)`; `transpose_lhs` and
    `transpose_rhs` read the last two dimensions of an operand swapped. Leading
    (batch) dimensions broadcast like NumPy; operands have rank >= 2 and the
    same floating-point element type.

    ```mlir
    %y = nova.matmul %x, %w : tensor<4x64x768xf32>, tensor<768x3072xf32>
        -> tensor<4x64x3072xf32>
    %s = nova.matmul %q, %k transpose_rhs
        : tensor<4x12x64x64xf32>, tensor<4x12x64x64xf32> -> tensor<4x12x64x64xf32>
    ```
  }];
  let arguments = (ins Nova_FloatTensor:$lhs, Nova_FloatTensor:$rhs,
                       UnitAttr:$transpose_lhs, UnitAttr:$transpose_rhs);
  let results = (outs Nova_FloatTensor:$result);
  let assemblyFormat = "$lhs `,` $rhs (`transpose_lhs` $transpose_lhs^)? "
                       "(`transpose_rhs` $transpose_rhs^)? attr-dict `:` "
                       "type($lhs) `,` type($rhs) `->` type($result)";
  let extraClassDeclaration = [{
    /// The operand numbers `nova.rounded` lists (their values are TF32
    /// already), increasing; empty without the attribute.
    ::llvm::ArrayRef<int64_t> getRoundedOperands();
    bool isRoundedOperand(unsigned operand) {
      return ::llvm::is_contained(getRoundedOperands(), int64_t(operand));
    }
  }];
}

//===----------------------------------------------------------------------===//
// Composites
//===----------------------------------------------------------------------===//

class Nova_NormalizeOp<string mnemonic, string math>
    : Nova_Op<mnemonic, [SameOperandsAndResultType, DeclareOpInterfaceMethods<Nova_DifferentiableOpInterface>]> {
  let summary = math # " along one dimension";
  let description = "Computes " # math # " along `dim`; the shape is "
    # "unchanged. Composite: decomposes to reduce/sub/exp/log/div.";
  let arguments = (ins Nova_FloatTensor:$input, I64Attr:$dim);
  let results = (outs Nova_FloatTensor:$result);
  let assemblyFormat = "$input `dim` $dim attr-dict `:` type($input)";
  let hasVerifier = 1;
}

def Nova_SoftmaxOp : Nova_NormalizeOp<"softmax", "softmax">;
def Nova_LogSoftmaxOp : Nova_NormalizeOp<"log_softmax", "log-softmax">;

def Nova_LayerNormOp : Nova_Op<"layer_norm",
    [AllTypesMatch<["input", "result"]>, AllTypesMatch<["weight", "bias"]>,
     DeclareOpInterfaceMethods<Nova_DifferentiableOpInterface>]> {
  let summary = "layer normalization over the last dimension";
  let description = [{
    `(x - mean) / sqrt(var + epsilon) * weight + bias` with the biased
    variance over the last dimension; `weight` and `bias` have the shape of
    that dimension.

    ```mlir
    %h = nova.layer_norm %x, %g, %b eps 1.0e-05
        : tensor<4x64x768xf32>, tensor<768xf32>
    ```
  }];
  let arguments = (ins Nova_FloatTensor:$input, Nova_FloatTensor:$weight,
                       Nova_FloatTensor:$bias, F64Attr:$epsilon);
  let results = (outs Nova_FloatTensor:$result);
  let assemblyFormat = "$input `,` $weight `,` $bias `eps` $epsilon attr-dict "
                       "`:` type($input) `,` type($weight)";
  let hasVerifier = 1;
}

def Nova_CrossEntropyOp : Nova_Op<"cross_entropy", !listconcat([DeclareOpInterfaceMethods<Nova_DifferentiableOpInterface>], Nova_InferredResult)> {
  let summary = "mean softmax cross-entropy against integer labels";
  let description = [{
    `mean_i(logsumexp(logits[i, :]) - logits[i, labels[i]])` over every
    position `i` of `labels` whose label is not `ignore_index` (default -100,
    as in PyTorch); `logits` has one more (last, class) dimension than
    `labels`. An ignored position leaves both the sum and the count, so when
    every position is ignored the mean is 0/0 = NaN (PyTorch's result) and
    the gradient is zero. Every other label must be a class, in `[0, C)`:
    a violation is a located error when the op runs, and `nova-decompose`
    keeps the check as a `nova.check_labels`. `ignore_index` must fit the
    labels' element type. The result is a scalar of the logits' element
    type.

    ```mlir
    %loss = nova.cross_entropy %logits, %targets
        : tensor<4x64x50304xf32>, tensor<4x64xi32> -> tensor<f32>
    %masked = nova.cross_entropy %logits, %targets ignore_index 0
        : tensor<4x64x50304xf32>, tensor<4x64xi32> -> tensor<f32>
    ```
  }];
  let arguments = (ins Nova_FloatTensor:$logits, Nova_IndexTensor:$labels,
                       DefaultValuedAttr<I64Attr, "-100">:$ignore_index);
  let results = (outs 0DTensorOf<[F32, BF16, F16]>:$result);
  let assemblyFormat = "$logits `,` $labels (`ignore_index` $ignore_index^)? "
                       "attr-dict `:` type($logits) `,` type($labels) `->` "
                       "type($result)";
}

def Nova_CheckLabelsOp : Op<Nova_Dialect, "check_labels",
    [NoMemoryEffect, SameOperandsAndResultType]> {
  let summary = "class labels, checked to be in [0, classes) or ignore_index";
  let description = [{
    Returns its operand unchanged after checking that every element is in
    `[0, classes)` or equals `ignore_index`; an element that is neither is a
    located error when the op runs (the interpreter reports the value and
    its position). `nova-decompose` writes it where `cross_entropy`'s label
    check would otherwise be lost: the decomposition reads the labels
    through it, so it survives canonicalization, CSE and DCE. It has no side
    effect, but is not speculatable (hoisting it could raise an error the
    program never reaches). `ignore_index` must fit the element type.

    ```mlir
    %ok = nova.check_labels %labels classes 50304 ignore_index -100
        : tensor<4x64xi32>
    ```
  }];
  let arguments = (ins Nova_IndexTensor:$input, I64Attr:$classes,
                       I64Attr:$ignore_index);
  let results = (outs Nova_IndexTensor:$result);
  let assemblyFormat = "$input `classes` $classes `ignore_index` $ignore_index "
                       "attr-dict `:` type($input)";
  let hasVerifier = 1;
}

def Nova_AttentionOp : Nova_Op<"attention", !listconcat([DeclareOpInterfaceMethods<Nova_DifferentiableOpInterface>], Nova_InferredResult)> {
  let summary = "scaled dot-product attention";
  let description = [{
    `softmax(scale * q k^T + mask) v` over the last two dimensions of
    `q: (..., Tq, D)`, `k: (..., Tk, D)`, `v: (..., Tk, Dv)`, with the same
    leading dimensions. `causal` masks key `j > i` and requires square
    `Tq x Tk` scores. The result is `(..., Tq, Dv)`.

    ```mlir
    %o = nova.attention %q, %k, %v scale 0.125 causal
        : tensor<4x12x64x64xf32>, tensor<4x12x64x64xf32>, tensor<4x12x64x64xf32>
        -> tensor<4x12x64x64xf32>
    ```
  }];
  let arguments = (ins Nova_FloatTensor:$query, Nova_FloatTensor:$key,
                       Nova_FloatTensor:$value, F64Attr:$scale,
                       UnitAttr:$causal);
  let results = (outs Nova_FloatTensor:$result);
  let assemblyFormat = "$query `,` $key `,` $value `scale` $scale "
                       "(`causal` $causal^)? attr-dict `:` type($query) `,` "
                       "type($key) `,` type($value) `->` type($result)";
}

def Nova_AttentionFwdOp : Nova_Op<"attention_fwd", !listconcat([DeclareOpInterfaceMethods<Nova_DifferentiableOpInterface>], Nova_InferredResult)> {
  let summary = "attention that also returns each query row's log-sum-exp";
  let description = [{
    `output` is `nova.attention`'s result for the same operands and
    attributes; `lse[..., i] = log(sum_j exp(scale * q_i . k_j))` over the
    keys query `i` sees (all of them, or `j <= i` with `causal`), the
    statistic a FlashAttention forward saves for its backward. `lse` is
    always `f32`, also for `bf16`/`f16` operands; a row with no keys has
    `lse = -inf` and output 0. `nova-autodiff` turns a differentiated
    `nova.attention` into this op so its backward can be one
    `nova.attention_bwd`, which never holds a `Tq x Tk` tensor.

    ```mlir
    %o, %lse = nova.attention_fwd %q, %k, %v scale 0.125 causal
        : tensor<4x12x64x64xbf16>, tensor<4x12x64x64xbf16>, tensor<4x12x64x64xbf16>
        -> tensor<4x12x64x64xbf16>, tensor<4x12x64xf32>
    ```
  }];
  let arguments = (ins Nova_FloatTensor:$query, Nova_FloatTensor:$key,
                       Nova_FloatTensor:$value, F64Attr:$scale,
                       UnitAttr:$causal);
  let results = (outs Nova_FloatTensor:$output, StaticShapeTensorOf<[F32]>:$lse);
  let assemblyFormat = "$query `,` $key `,` $value `scale` $scale "
                       "(`causal` $causal^)? attr-dict `:` type($query) `,` "
                       "type($key) `,` type($value) `->` type($output) `,` "
                       "type($lse)";
}

def Nova_AttentionBwdOp : Nova_Op<"attention_bwd", Nova_InferredResult> {
  let summary = "gradients of attention from its output and log-sum-exp";
  let description = [{
    Given the operands of an attention, its `output` and `lse` (from
    `nova.attention_fwd` with the same `scale` and `causal`) and the
    gradient `grad_output` of the output, returns the gradients of query,
    key and value. With `P = exp(scale q k^T - lse)` (masked entries 0),
    `D = rowsum(grad_output * output)`, `dS = P * (grad_output v^T - D)`:
    `dq = scale dS k`, `dk = scale dS^T q`, `dv = P^T grad_output`.
    A compiled kernel recomputes `P` block by block, so no `Tq x Tk` tensor
    is stored. `output` and `grad_output` have the attention result's type;
    `lse` is `f32` of shape `[..., Tq]`. The results have the types of
    query, key and value. It has no differentiation rule (no second
    derivatives).

    ```mlir
    %dq, %dk, %dv = nova.attention_bwd %q, %k, %v, %o, %lse, %do scale 0.125 causal
        : tensor<4x12x64x64xf32>, tensor<4x12x64x64xf32>, tensor<4x12x64x64xf32>,
          tensor<4x12x64x64xf32>, tensor<4x12x64xf32>, tensor<4x12x64x64xf32>
    ```
  }];
  let arguments = (ins Nova_FloatTensor:$query, Nova_FloatTensor:$key,
                       Nova_FloatTensor:$value, Nova_FloatTensor:$output,
                       Nova_FloatTensor:$lse, Nova_FloatTensor:$grad_output,
                       F64Attr:$scale, UnitAttr:$causal);
  let results = (outs Nova_FloatTensor:$grad_query, Nova_FloatTensor:$grad_key,
                      Nova_FloatTensor:$grad_value);
  let assemblyFormat = "$query `,` $key `,` $value `,` $output `,` $lse `,` "
                       "$grad_output `scale` $scale (`causal` $causal^)? "
                       "attr-dict `:` type($query) `,` type($key) `,` "
                       "type($value) `,` type($output) `,` type($lse) `,` "
                       "type($grad_output)";
}

// The learning rate: always an f32 scalar, so the assembly can omit its type.
def Nova_LearningRateTensor
    : 0DTensorOf<[F32]>,
      BuildableType<"::mlir::RankedTensorType::get({}, $_builder.getF32Type())">;

def Nova_AdamWOp : Nova_Op<"adamw", [AllTypesMatch<["param", "grad", "m", "v",
                                                     "new_param", "new_m",
                                                     "new_v"]>]> {
  let summary = "one AdamW update of a parameter and its moments";
  let description = [{
    With `t = step` (counting from 1) and `lr` a runtime f32 scalar (so a
    learning-rate schedule changes no kernel):
    `m' = b1 m + (1-b1) g`, `v' = b2 v + (1-b2) g^2`,
    `p' = p - lr (m'/(1-b1^t) / (sqrt(v'/(1-b2^t)) + eps) + wd p)`.
    The interpreter and the GPU kernel compute each element in f64, in the
    same order, with the bias corrections as reciprocals
    (`m' * (1/(1-b1^t))`, `v' * (1/(1-b2^t))`), and round the three
    results once to the element type.

    ```mlir
    %p2, %m2, %v2 = nova.adamw %p, %g, %m, %v, %t, %lr
        beta1 0.9 beta2 0.95 eps 1.0e-08 weight_decay 0.1
        : tensor<768xf32>, tensor<i64>
    ```
  }];
  let arguments = (ins Nova_FloatTensor:$param, Nova_FloatTensor:$grad,
                       Nova_FloatTensor:$m, Nova_FloatTensor:$v,
                       Nova_StepTensor:$step, Nova_LearningRateTensor:$lr,
                       F64Attr:$beta1, F64Attr:$beta2, F64Attr:$epsilon,
                       F64Attr:$weight_decay);
  let results = (outs Nova_FloatTensor:$new_param, Nova_FloatTensor:$new_m,
                      Nova_FloatTensor:$new_v);
  let assemblyFormat = "$param `,` $grad `,` $m `,` $v `,` $step `,` $lr "
                       "`beta1` $beta1 `beta2` $beta2 `eps` $epsilon "
                       "`weight_decay` $weight_decay attr-dict `:` "
                       "type($param) `,` type($step)";
  let hasVerifier = 1;
}

#endif // NOVA_DIALECT_NOVA_IR_NOVAOPS_TD
