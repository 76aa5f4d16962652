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

def NovaAutodiff : Pass<"nova-autodiff", "::mlir::ModuleOp"> {
  let summary = "Reverse-mode differentiation: one function computes the loss and every parameter gradient";
  let description = [{
    Rewrites each function that has arguments marked `{nova.param}` and
    returns one floating-point scalar (the loss) so it returns the loss
    followed by the gradient of every parameter, in argument order. Each
    gradient result carries `nova.grad_of = <argument index>` (and a
    `nova.name` of `<name>.grad` when the parameter is named).

    The pass is generic: it walks the body backwards and asks each op on a
    path from a parameter to the loss for its rule through
    `DifferentiableOpInterface`. Gradients of values used several times are
    summed; broadcasting ops reduce their gradient to the operand's shape;
    integer values (indices, labels, masks) get none; `gather` turns into
    `scatter_add`; a differentiated `attention` becomes `attention_fwd` and
    its backward one `attention_bwd`, so no `Tq x Tk` tensor is built; the gradients of data-movement ops are O(1) in IR size
    (a slice's is its window joined with splat zero blocks). A parameter the
    loss does not depend on gets a zero gradient. Forward values the
    gradients do not need are erased.

    An op on a path from a parameter to the loss without a rule is an error
    at that op (the first one from the parameters), also when it reads the
    parameter inside a region (`scf.if`, `tensor.generate`) or yields a
    float scalar (`tensor.extract`). A module where no function has a
    `{nova.param}` argument is an error: there is nothing to differentiate.

    ```mlir
    func.func @f(%w: tensor<4xf32> {nova.param}, %x: tensor<4xf32>) -> tensor<f32> {
      %p = nova.mul %w, %x : tensor<4xf32>, tensor<4xf32>
      %l = nova.reduce sum %p dims [0] : tensor<4xf32> -> tensor<f32>
      return %l : tensor<f32>
    }
    ```
    becomes a function returning `(tensor<f32>, tensor<4xf32> {nova.grad_of = 0})`
    whose second result is `%x`'s broadcast of the seed 1.0.
  }];
  let options = [
    Option<"functionName", "function", "std::string", "\"\"",
           "differentiate only this function (default: every function with "
           "nova.param arguments)">
  ];
  let dependentDialects = ["::mlir::nova::NovaDialect"];
}

def NovaDecompose : Pass<"nova-decompose"> {
  let summary = "Rewrite composite ops into primitives";
  let description = [{
    Replaces `softmax`, `log_softmax`, `layer_norm`, `cross_entropy`,
    `attention`, `attention_fwd`, `attention_bwd` and `adamw` by the primitive ops that define them (reduce,
    exp, log, matmul, select, gather, ...). The result computes the same
    values; `nova-run` checks each decomposition against its composite.
    `cross_entropy` reads its labels through a `nova.check_labels`, so a
    label outside `[0, classes)` that is not `ignore_index` is still an
    error when the decomposed program runs.
    Composites listed in `keep` stay (for instance `keep=attention` when a
    fused attention kernel will implement it).
  }];
  let options = [
    ListOption<"keep", "keep", "std::string",
               "composite op names to leave alone (softmax, log_softmax, "
               "layer_norm, cross_entropy, attention, attention_fwd, "
               "attention_bwd, adamw)">
  ];
  let dependentDialects = ["::mlir::nova::NovaDialect"];
}

def NovaCollapseAttention : Pass<"nova-collapse-attention"> {
  let summary = "Replace attention written from primitives by nova.attention";
  let description = [{
    Finds `softmax(scale * q k^T [+ causal mask]) v` written with primitive
    ops and replaces it by one `nova.attention`, so the rest of the pipeline
    (autodiff's attention_fwd/attention_bwd, the attention kernels) never
    holds the `Tq x Tk` scores. Recognized:

    - `q k^T` as `nova.matmul` with `transpose_rhs`, or of a key transposed
      by `nova.transpose` (last two dimensions swapped), or of any other
      right operand (a pre-transposed key is transposed back);
    - the scale as a multiplication or division by a positive scalar
      constant, after the product (before or after the mask) or on `q` or
      `k` before it (several fold into one);
    - the causal mask (key `j <= i`) as `nova.select` of the scores and a
      `-inf` scalar on a comparison of two `nova.iota`s (`le`/`ge`, or
      `gt`/`lt` with the operands swapped) or on an `i1` constant, or as the
      addition of a constant that is 0 on and below the diagonal and `-inf`
      above; no mask gives a non-causal attention;
    - softmax over the last dimension: `nova.softmax` or its decomposition
      `exp(s - reduce max s) / reduce sum` (keep_dims reductions);
    - `P v` as `nova.matmul`; operands whose batch dimensions broadcast
      (heads grouped by reshape or broadcast, a key shared by every head)
      get a `nova.broadcast` to the product's batch dimensions.

    Anything else is left as it is: another mask, a scale that is not a
    positive scalar constant, a softmax over another dimension, or a score
    tensor (or softmax intermediate) with a user outside the pattern, whose
    `T x T` tensor would stay anyway. The program computes the same values
    before and after.

    ```mlir
    %s = nova.matmul %q, %k transpose_rhs : tensor<2x8x16xf32>, tensor<2x8x16xf32> -> tensor<2x8x8xf32>
    %c = nova.constant dense<0.25> : tensor<f32>
    %ss = nova.mul %s, %c : tensor<2x8x8xf32>, tensor<f32>
    %i = nova.iota dim 0 : tensor<8x8xi64>
    %j = nova.iota dim 1 : tensor<8x8xi64>
    %keep = nova.cmp le, %j, %i : tensor<8x8xi64>, tensor<8x8xi64>
    %ninf = nova.constant dense<0xFF800000> : tensor<f32>
    %m = nova.select %keep, %ss, %ninf : tensor<8x8xi1>, tensor<2x8x8xf32>, tensor<f32>
    %p = nova.softmax %m dim 2 : tensor<2x8x8xf32>
    %o = nova.matmul %p, %v : tensor<2x8x8xf32>, tensor<2x8x16xf32> -> tensor<2x8x16xf32>
    ```
    becomes
    ```mlir
    %o = nova.attention %q, %k, %v scale 2.500000e-01 causal
        : tensor<2x8x16xf32>, tensor<2x8x16xf32>, tensor<2x8x16xf32> -> tensor<2x8x16xf32>
    ```
  }];
  let dependentDialects = ["::mlir::nova::NovaDialect"];
}

def NovaTrainStep : Pass<"nova-train-step", "::mlir::ModuleOp"> {
  let summary = "Build an AdamW training step around a differentiated loss";
  let description = [{
    Takes the function `nova-autodiff` produced (loss followed by parameter
    gradients) and builds

    ```
    train_step(params..., adam_m..., adam_v..., step, lr, batch...)
        -> (loss, params'..., adam_m'..., adam_v'... [, grad_norm])
    eval(params..., batch...) -> loss
    ```

    where each parameter gets one `nova.adamw` update with the pass's
    hyper-parameters. `step` (i64, counting from 1) and `lr` (f32) are
    runtime scalars, so a learning-rate schedule changes no kernel; the
    runtime feeds them (nova-run --train: `--lr`, `--lr-schedule`). Every
    updated tensor's result carries `nova.alias = <argument index>`: it
    replaces that argument, so the runtime may update it in place. Arguments
    carry `nova.name`s (`<param>`, `<param>.adam_m`, `<param>.adam_v`, `step`,
    `lr`, and the batch inputs' names).

    `clip-norm=X` (X > 0) scales the gradients by
    `min(1, X / (norm + 1e-6))`, `norm` their global L2 norm (as
    `torch.nn.utils.clip_grad_norm_`), and returns `norm` as `grad_norm`.
    `accumulate=N` (N > 1) gives every batch input a leading dimension of N
    micro-batches; the step differentiates each, averages the losses and the
    gradients, and makes one update (equal to one step over the whole batch
    when the loss is a mean over the batch). `eval=true` (the default) adds
    `eval`, the loss alone for one (micro-)batch, with the same parameter
    names.

    The differentiated function is inlined and removed. `name` (and `eval`)
    must not name another symbol; hyper-parameters out of AdamW's ranges are
    reported by `nova.adamw`'s verifier. Without a differentiated function the
    error says to run `nova-autodiff` first.
  }];
  let options = [
    Option<"functionName", "function", "std::string", "\"\"",
           "the differentiated loss (default: the only function with "
           "nova.grad_of results)">,
    Option<"stepName", "name", "std::string", "\"train_step\"",
           "name of the function to create">,
    Option<"beta1", "beta1", "double", "0.9", "first-moment decay">,
    Option<"beta2", "beta2", "double", "0.999", "second-moment decay">,
    Option<"epsilon", "eps", "double", "1e-8", "denominator epsilon">,
    Option<"weightDecay", "weight-decay", "double", "0.01",
           "decoupled weight decay">,
    Option<"clipNorm", "clip-norm", "double", "0.0",
           "global gradient-norm clipping threshold (0: off)">,
    Option<"accumulate", "accumulate", "unsigned", "1",
           "micro-batches per update (a leading dim on batch inputs)">,
    Option<"withEval", "eval", "bool", "true",
           "also build @eval (loss only, no update)">
  ];
  let dependentDialects = ["::mlir::nova::NovaDialect"];
}

def NovaAutocast : Pass<"nova-autocast", "::mlir::ModuleOp"> {
  let summary = "Mixed precision like torch.autocast: bf16 or TF32 matrix products, f32 statistics and master weights";
  let description = [{
    Applies a precision policy to every function of the module, normally the
    `train_step` that `nova-train-step` built (forward, backward and AdamW in
    one function), or a loss function. Function signatures do not change.

    `compute=bf16`:
    - `matmul` and `attention` read bf16 operands and produce bf16;
    - `reduce`, `softmax`, `log_softmax`, `layer_norm`, `cross_entropy`,
      `scatter_add` (sums) and `adamw` get f32 operands back: statistics,
      the loss, gradients reaching the optimizer, parameters and moments stay
      f32;
    - every other op follows its operands like PyTorch's type promotion: it
      runs in bf16 when each of its full-precision inputs is now bf16 (so the
      activations between matrix products stay bf16) and in f32 otherwise.
      Splat constants and parameters broadcast into the op (a linear layer's
      bias) do not promote, as PyTorch's scalars and `addmm` bias do not.
    Each f32 value is cast to bf16 at most once, next to its definition, and
    casts move above `reshape`/`transpose`/`broadcast`/`slice`, so every
    weight has exactly one bf16 copy per step, shared by the forward and the
    backward products. The gradients the pass sees are cast the same way, so
    backward products run in bf16 too.

    `compute=tf32`: types do not change; every `matmul` and `attention` gets
    `nova.precision = "tf32"`, and the interpreter rounds their operands to
    TF32's 10-bit mantissa. `compute=f32` changes nothing.

    `working-copies` (with bf16) carries each parameter's bf16 copy from
    step to step instead of casting the parameter at the top of the step:
    a new argument `<param>.bf16` replaces the cast, and a new result of
    that name, aliased to it like the moments, casts the parameter AdamW
    just wrote, so the optimizer's kernel can write it and the next step's
    products read it as it is. The caller supplies bf16(param) at the
    first step.

    Running the pass twice gives the same IR as running it once.
  }];
  let options = [
    Option<"compute", "compute", "std::string", "\"bf16\"",
           "precision of matrix products: bf16, tf32 or f32">,
    Option<"workingCopies", "working-copies", "bool", "false",
           "carry each parameter's bf16 copy as aliased state of a training "
           "step, written after its AdamW update (compute=bf16)">
  ];
  let dependentDialects = ["::mlir::nova::NovaDialect"];
}

def NovaFuse : Pass<"nova-fuse", "::mlir::func::FuncOp"> {
  let summary = "Group nova ops into nova_tile.fusion kernels: pointwise, row and column reductions, optimizer, matmul and attention";
  let description = [{
    Greedy fusion of each function into `nova_tile.fusion` groups, one GPU
    kernel each, every group checked against its family's contract:
    - pointwise: elementwise ops (unary math, `gelu`, binary ops with NumPy
      broadcasting, `cmp`, `select`, `cast`, `iota`) and explicit
      `broadcast`s of one shape;
    - row_reduction: a `reduce` over the innermost dim (or `softmax`,
      `log_softmax` on it, `layer_norm`) with its elementwise producers and
      consumers over the same rows (values per element, per row or scalar),
      several reductions of one rows x cols space per kernel;
    - column_reduction: sums over leading dims or every dim, with their
      elementwise producers; a row reduction kernel may yield them too
      (per-column or total results nothing in the kernel reads);
    - horizontal: kernels over one space that read the same tensor of that
      shape join (LayerNorm backward's dx, dgamma and dbeta);
    - views: a `transpose` or `slice` of a tensor computed elsewhere is read
      by the kernel as an input access instead of being copied;
    - optimizer: every `adamw` with the elementwise ops that only feed it
      (clipping scale, gradient casts) or only read it (bf16 working
      copies); a global norm's sums of squares form a second, multi-tensor
      kernel before it;
    - recompute: elementwise ops of function arguments only fused ops read
      are cloned into each reader, and a kernel output one elementwise op
      computes from other outputs is recomputed by readers that read those;
    - row sums: in a row_reduction kernel, a sum along the rows whose input
      reads another reduction along the rows only through factors that are
      the same across a row (per-row values, scalars) is rewritten by
      linearity, sum(a + s b) = sum(a) + s sum(b), into sums that read none,
      so it joins the kernel's first read of its rows instead of a second
      (LayerNorm's backward); `distribute-row-sums=false` keeps them.
    Ops are visited in order; an op tries its producers' groups largest
    value first. A merge never makes a cycle (a path through any op or group
    outside both) and never duplicates a reduction or a matmul. Every group
    value used outside becomes a result; splat constants are cloned into
    bodies; fusible ops nothing reads are dropped.

    Then matmuls and attention ops become kernels: each matmul reads its
    operands through their views and through casts only matmuls and
    attention read (prologue) and takes the pointwise groups over its
    product (epilogue); matmuls that read one value, with the column sums
    of it, form one grouped GEMM when none depends on another; attention
    reads q, k, v through the views of the fused qkv tensor and writes its
    results through transposes, reshapes and concats. A merge that would
    make a cycle or break its family's contract is not made. Other ops
    (gather, scatter_add, a reduction over a middle dim) stay outside,
    unchanged.

    `single-gemms=true` keeps every matmul a kernel of its own that reads
    its operands as they are stored, what Hopper's wgmma GEMM takes: no
    cast in the prologue (a weight's bf16 copy stays a pointwise kernel
    that writes it once per step) and no grouped GEMMs (siblings reading
    one value and its column sums stay separate kernels). Views in the
    prologue and the epilogue (bias, activation, residual, casts) stay.

    ```mlir
    %s = nova.add %x, %b : tensor<4x8xf32>, tensor<8xf32>
    %g = nova.gelu tanh %s : tensor<4x8xf32>
    ```
    becomes
    ```mlir
    %g = nova_tile.fusion pointwise (%x, %b) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32> {
    ^bb0(%xa: tensor<4x8xf32>, %ba: tensor<8xf32>):
      %s = nova.add %xa, %ba : tensor<4x8xf32>, tensor<8xf32>
      %g = nova.gelu tanh %s : tensor<4x8xf32>
      nova_tile.yield %g : tensor<4x8xf32>
    }
    ```
  }];
  let options = [
    Option<"singleGemms", "single-gemms", "bool", "false",
           "one GEMM per matmul kernel, operands read without a cast (the "
           "wgmma path's form)">,
    Option<"distributeRowSums", "distribute-row-sums", "bool", "true",
           "rewrite row kernels' sums that wait on another row reduction "
           "through per-row factors into sums that do not">
  ];
  let dependentDialects = ["::mlir::nova::NovaDialect",
                           "::mlir::nova_tile::NovaTileDialect"];
}

#endif // NOVA_TRANSFORMS_PASSES_TD
