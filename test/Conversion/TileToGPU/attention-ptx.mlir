// The attention kernels reach PTX as mma.sync tensor-core instructions
// (bf16 m16n8k16 and TF32 m16n8k8, f32 accumulators) and ptxas accepts
// them for sm_90a. The bf16 forward takes wgmma by default
// (attention-wgmma-ptx.mlir); wgmma=false keeps it on mma.sync here.
// REQUIRES: ptxas
// RUN: nova-opt %s --nova-configure=target=h200 --nova-outline-kernels --convert-tile-to-gpu -o %t.mlir
// RUN: nova-opt %s --nova-configure=target=h200 --nova-outline-kernels --convert-tile-to-gpu=wgmma=false -o %t.sync.mlir
// RUN: nova-gpu-pack %t.sync.mlir --entry bf16 -o %t.bf16.nvx
// RUN: grep -a -o "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32" %t.bf16.nvx | uniq | FileCheck %s --check-prefix=BF16
// BF16: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// RUN: nova-gpu-pack %t.mlir --entry tf32 -o %t.tf32.nvx
// RUN: grep -a -o "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32" %t.tf32.nvx | uniq | FileCheck %s --check-prefix=TF32
// TF32: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32
// RUN: grep -a -c "sm_90a" %t.tf32.nvx | FileCheck %s --check-prefix=ARCH
// Unmarked f32 keeps f32 accuracy with three TF32 products per product
// (3xTF32); marked "tf32", one.
// The two backward kernels in outlining order: unmarked, then marked.
// RUN: awk '/gpu.func @attention_backward/ { n++ } /nvvm.mma.sync/ && n { c[n]++ } END { print c[1] / c[2] }' %t.mlir | FileCheck %s --check-prefix=RATIO
// RATIO: {{^}}3{{$}}
// ARCH: {{[1-9]}}

func.func @bf16(%q: tensor<2x2x70x64xbf16>, %k: tensor<2x2x70x64xbf16>, %v: tensor<2x2x70x64xbf16>) -> tensor<2x2x70x64xbf16> {
  %r = nova_tile.fusion attention_forward (%q, %k, %v) : (tensor<2x2x70x64xbf16>, tensor<2x2x70x64xbf16>, tensor<2x2x70x64xbf16>) -> tensor<2x2x70x64xbf16> {
  ^bb0(%qa: tensor<2x2x70x64xbf16>, %ka: tensor<2x2x70x64xbf16>, %va: tensor<2x2x70x64xbf16>):
    %o = nova.attention %qa, %ka, %va scale 0.125 causal : tensor<2x2x70x64xbf16>, tensor<2x2x70x64xbf16>, tensor<2x2x70x64xbf16> -> tensor<2x2x70x64xbf16>
    nova_tile.yield %o : tensor<2x2x70x64xbf16>
  }
  return %r : tensor<2x2x70x64xbf16>
}

func.func @tf32(%q: tensor<2x70x64xf32>, %k: tensor<2x70x64xf32>, %v: tensor<2x70x64xf32>, %o: tensor<2x70x64xf32>, %lse: tensor<2x70xf32>, %dy: tensor<2x70x64xf32>) -> (tensor<2x70x64xf32>, tensor<2x70x64xf32>, tensor<2x70x64xf32>) {
  %r:3 = nova_tile.fusion attention_backward (%q, %k, %v, %o, %lse, %dy) : (tensor<2x70x64xf32>, tensor<2x70x64xf32>, tensor<2x70x64xf32>, tensor<2x70x64xf32>, tensor<2x70xf32>, tensor<2x70x64xf32>) -> (tensor<2x70x64xf32>, tensor<2x70x64xf32>, tensor<2x70x64xf32>) {
  ^bb0(%qa: tensor<2x70x64xf32>, %ka: tensor<2x70x64xf32>, %va: tensor<2x70x64xf32>, %oa: tensor<2x70x64xf32>, %la: tensor<2x70xf32>, %da: tensor<2x70x64xf32>):
    %dq, %dk, %dv = nova.attention_bwd %qa, %ka, %va, %oa, %la, %da scale 0.125 : tensor<2x70x64xf32>, tensor<2x70x64xf32>, tensor<2x70x64xf32>, tensor<2x70x64xf32>, tensor<2x70xf32>, tensor<2x70x64xf32>
    nova_tile.yield %dq, %dk, %dv : tensor<2x70x64xf32>, tensor<2x70x64xf32>, tensor<2x70x64xf32>
  }
  return %r#0, %r#1, %r#2 : tensor<2x70x64xf32>, tensor<2x70x64xf32>, tensor<2x70x64xf32>
}

func.func @tf32_marked(%q: tensor<2x70x64xf32>, %k: tensor<2x70x64xf32>, %v: tensor<2x70x64xf32>, %o: tensor<2x70x64xf32>, %lse: tensor<2x70xf32>, %dy: tensor<2x70x64xf32>) -> (tensor<2x70x64xf32>, tensor<2x70x64xf32>, tensor<2x70x64xf32>) {
  %r:3 = nova_tile.fusion attention_backward (%q, %k, %v, %o, %lse, %dy) : (tensor<2x70x64xf32>, tensor<2x70x64xf32>, tensor<2x70x64xf32>, tensor<2x70x64xf32>, tensor<2x70xf32>, tensor<2x70x64xf32>) -> (tensor<2x70x64xf32>, tensor<2x70x64xf32>, tensor<2x70x64xf32>) {
  ^bb0(%qa: tensor<2x70x64xf32>, %ka: tensor<2x70x64xf32>, %va: tensor<2x70x64xf32>, %oa: tensor<2x70x64xf32>, %la: tensor<2x70xf32>, %da: tensor<2x70x64xf32>):
    %dq, %dk, %dv = nova.attention_bwd %qa, %ka, %va, %oa, %la, %da scale 0.125 {nova.precision = "tf32"} : tensor<2x70x64xf32>, tensor<2x70x64xf32>, tensor<2x70x64xf32>, tensor<2x70x64xf32>, tensor<2x70xf32>, tensor<2x70x64xf32>
    nova_tile.yield %dq, %dk, %dv : tensor<2x70x64xf32>, tensor<2x70x64xf32>, tensor<2x70x64xf32>
  }
  return %r#0, %r#1, %r#2 : tensor<2x70x64xf32>, tensor<2x70x64xf32>, tensor<2x70x64xf32>
}
