// nova-autocast compute=bf16 on a whole training step (forward, backward and
// AdamW) of a small GPT from nova-gpt2: once with every composite decomposed,
// once keeping the composites (attention, softmax, layer_norm,
// log_softmax, cross_entropy), once keeping attention only (the training
// pipeline's choice), and, for comparison, the step before the pass. The
// counts below are of train_step alone (eval=false: no @eval beside it; the
// parity test runs an autocast @eval against PyTorch).
// RUN: nova-gpt2 --layers 1 --heads 2 --embd 16 --vocab 32 --seq 8 --batch 2 -o %t.model.mlir
// RUN: nova-opt %t.model.mlir --nova-decompose --nova-autodiff --nova-train-step=eval=false -o %t.f32.mlir
// RUN: nova-opt %t.f32.mlir --nova-autocast -o %t.dec.mlir
// RUN: nova-opt %t.model.mlir --nova-decompose=keep=attention,softmax,log_softmax,layer_norm,cross_entropy \
// RUN:   --nova-autodiff --nova-train-step=eval=false --nova-autocast=compute=bf16 -o %t.kept.mlir
// RUN: nova-opt %t.model.mlir --nova-decompose=keep=attention --nova-autodiff --nova-train-step=eval=false \
// RUN:   --nova-autocast -o %t.attention.mlir
//
// Every matrix product reads and writes bf16: 21 of them in the decomposed
// step (forward, backward and the attention's own products), 15 beside the
// attention forward and backward when attention stays. Before the pass all
// 21 were f32. The attention pair reads and writes bf16 but its row
// log-sum-exp, written by the forward and read by the backward, stays f32.
// RUN: grep "nova.matmul " %t.dec.mlir | FileCheck %s --check-prefix=MM --implicit-check-not=f32 --implicit-check-not=nova.
// RUN: grep "nova.matmul " %t.kept.mlir | FileCheck %s --check-prefix=MM-KEPT --implicit-check-not=f32 --implicit-check-not=nova.
// RUN: grep "nova.matmul " %t.attention.mlir | FileCheck %s --check-prefix=MM-KEPT --implicit-check-not=f32 --implicit-check-not=nova.
// RUN: grep "nova.attention" %t.kept.mlir | FileCheck %s --check-prefix=ATT --implicit-check-not=nova.
// RUN: grep "nova.attention" %t.attention.mlir | FileCheck %s --check-prefix=ATT --implicit-check-not=nova.
// RUN: grep "nova.matmul " %t.f32.mlir | FileCheck %s --check-prefix=MM-BEFORE --implicit-check-not=bf16 --implicit-check-not=nova.
// MM-COUNT-21: nova.matmul {{.*}} : tensor<{{[0-9x]+}}bf16>, tensor<{{[0-9x]+}}bf16> -> tensor<{{[0-9x]+}}bf16>
// MM-KEPT-COUNT-15: nova.matmul {{.*}} : tensor<{{[0-9x]+}}bf16>, tensor<{{[0-9x]+}}bf16> -> tensor<{{[0-9x]+}}bf16>
// ATT: nova.attention_fwd {{.*}} causal : tensor<2x2x8x8xbf16>, tensor<2x2x8x8xbf16>, tensor<2x2x8x8xbf16> -> tensor<2x2x8x8xbf16>, tensor<2x2x8xf32>
// ATT: nova.attention_bwd {{.*}} causal : tensor<2x2x8x8xbf16>, tensor<2x2x8x8xbf16>, tensor<2x2x8x8xbf16>, tensor<2x2x8x8xbf16>, tensor<2x2x8xf32>, tensor<2x2x8x8xbf16>
// MM-BEFORE-COUNT-21: nova.matmul {{.*}} -> tensor<{{[0-9x]+}}f32>
//
// Sums and statistics (reductions, the decomposed and the kept softmax,
// layer_norm, log-softmax and cross-entropy, the embedding gradient's
// scatter_add) read and write f32.
// RUN: grep -E "nova.(reduce|scatter_add) " %t.dec.mlir | FileCheck %s --check-prefix=STATS --implicit-check-not=bf16 --implicit-check-not=nova.
// RUN: grep -E "nova.(reduce|scatter_add|softmax|layer_norm|cross_entropy) " %t.kept.mlir \
// RUN:   | FileCheck %s --check-prefix=STATS-KEPT --implicit-check-not=bf16 --implicit-check-not=nova.
// STATS-COUNT-37: nova.{{reduce|scatter_add}} {{.*}}xf32>
// STATS-KEPT-COUNT-31: nova.{{reduce|scatter_add|softmax|layer_norm|cross_entropy}} {{.*}}xf32>
//
// The signature is unchanged: f32 loss, parameters and moments in and out;
// AdamW reads f32 gradients and state; what is returned is f32.
// RUN: grep -E "func.func @train_step|nova.adamw |return " %t.dec.mlir | FileCheck %s --check-prefix=STATE --implicit-check-not=bf16
// RUN: grep -E "func.func @train_step|nova.adamw |return " %t.kept.mlir | FileCheck %s --check-prefix=STATE --implicit-check-not=bf16
// RUN: grep -E "func.func @train_step|nova.adamw |return " %t.attention.mlir | FileCheck %s --check-prefix=STATE --implicit-check-not=bf16
// STATE: func.func @train_step(%arg0: tensor<32x16xf32> {nova.name = "wte", nova.param}, {{.*}} -> (tensor<f32> {nova.name = "loss"}, tensor<32x16xf32> {nova.alias = 0 : i64, nova.name = "wte"}
// STATE-COUNT-16: nova.adamw {{.*}} : tensor<{{[0-9x]+}}f32>, tensor<i64>
// STATE: return {{.*}} : tensor<f32>, tensor<32x16xf32>,
//
// Each weight is cast to bf16 exactly once, at the start of the step, and
// that copy feeds its forward and backward products: no argument is cast
// twice, and the four dense weights and the tied embedding each have one.
// RUN: grep -o "nova.cast %arg[0-9]* :" %t.dec.mlir | sort | uniq -d | not grep .
// RUN: FileCheck %s --check-prefix=WEIGHTS < %t.dec.mlir
// WEIGHTS: func.func @train_step
// WEIGHTS-NEXT: [[QKV:%[0-9]+]] = nova.cast %arg4 : tensor<16x48xf32> to tensor<16x48xbf16>
// WEIGHTS: [[WTE:%[0-9]+]] = nova.cast %arg0 : tensor<32x16xf32> to tensor<32x16xbf16>
// WEIGHTS: nova.matmul %{{[0-9]+}}, [[QKV]] :
// WEIGHTS: nova.matmul %{{[0-9]+}}, [[WTE]] transpose_rhs :
// WEIGHTS: nova.matmul %{{[0-9]+}}, [[WTE]] :
// WEIGHTS: nova.matmul %{{[0-9]+}}, [[QKV]] transpose_rhs :
//
// Running the pass again changes nothing; compute=f32 changes nothing.
// RUN: nova-opt %t.dec.mlir --nova-autocast=compute=bf16 | diff - %t.dec.mlir
// RUN: nova-opt %t.kept.mlir --nova-autocast | diff - %t.kept.mlir
// RUN: nova-opt %t.attention.mlir --nova-autocast | diff - %t.attention.mlir
// RUN: nova-opt %t.f32.mlir --nova-autocast=compute=f32 | diff - %t.f32.mlir
//
// The steps still run on the interpreter.
// RUN: nova-run %t.dec.mlir --random-inputs 3 --print | FileCheck %s --check-prefix=RUNS
// RUN: nova-run %t.attention.mlir --random-inputs 3 --print | FileCheck %s --check-prefix=RUNS
// RUNS: loss = tensor<f32>
//
// working-copies: each parameter's bf16 copy is state of the step. The
// top-of-step casts of parameters are gone; products read the new argument
// `<param>.bf16` directly; the cast of AdamW's new value follows the update
// and is returned aliased to that argument.
// RUN: nova-opt %t.f32.mlir --nova-autocast=working-copies=1 -o %t.carried.mlir
// RUN: FileCheck %s --check-prefix=CARRY < %t.carried.mlir
// RUN: not grep "nova.cast %arg" %t.carried.mlir
// RUN: nova-opt %t.carried.mlir --nova-autocast=working-copies=1 | diff - %t.carried.mlir
// The option also applies to a step the pass already cast.
// RUN: nova-opt %t.dec.mlir --nova-autocast=working-copies=1 | diff - %t.carried.mlir
// CARRY: func.func @train_step(
// CARRY-SAME: %arg51: tensor<2x8xi32> {nova.name = "targets"}, %arg52: tensor<32x16xbf16> {nova.name = "wte.bf16"}
// CARRY-SAME: %arg54: tensor<16x48xbf16> {nova.name = "h.0.attn.c_attn.weight.bf16"}
// CARRY-SAME: tensor<32x16xbf16> {nova.alias = 52 : i64, nova.name = "wte.bf16"}
// CARRY-SAME: tensor<16x48xbf16> {nova.alias = 54 : i64, nova.name = "h.0.attn.c_attn.weight.bf16"}
// CARRY: nova.matmul %{{[0-9]+}}, %arg54 :
// CARRY: nova.matmul %{{[0-9]+}}, %arg52 transpose_rhs :
// CARRY: %[[WTE:[a-z_0-9]+]], %{{[a-z_0-9]+}}, %{{[a-z_0-9]+}} = nova.adamw %arg0,
// CARRY-NEXT: %[[WTE16:[0-9]+]] = nova.cast %[[WTE]] : tensor<32x16xf32> to tensor<32x16xbf16>
// CARRY: return {{.*}}, %[[WTE16]], {{.*}} : tensor<f32>,
//
// A name taken by another argument, and working-copies without bf16, are
// errors.
// RUN: sed 's/nova.name = "wpe"/nova.name = "wte.bf16"/' %t.f32.mlir > %t.taken.mlir
// RUN: not nova-opt %t.taken.mlir --nova-autocast=working-copies=1 2>&1 | FileCheck %s --check-prefix=TAKEN
// RUN: not nova-opt %t.f32.mlir --nova-autocast="compute=tf32 working-copies=1" 2>&1 | FileCheck %s --check-prefix=NOBF16
// TAKEN: error: nova-autocast: @train_step already has an argument named 'wte.bf16' for the working copy of 'wte'
// NOBF16: autocast-train-step.mlir.tmp.f32.mlir:1:1: error: nova-autocast: working-copies needs compute=bf16, got 'tf32'
