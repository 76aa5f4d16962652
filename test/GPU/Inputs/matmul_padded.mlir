// GEMM chains (nn.Linear's [out, in] weight first) whose inner product has rows of an unaligned byte width
// (100 bf16 = 200 bytes, 10 f32 = 40 bytes): nova-plan-memory pads that
// buffer's rows to 16 bytes (ld), the first GEMM writes it at the pitch
// (wgmma: a TMA store through the pitch; mma.sync: direct stores) and the
// second reads it at the pitch (TMA loads, K = 100 zero-filled past the
// logical size; mma.sync's pitched addresses).
func.func @chain_bf16(%x: tensor<2x96x64xbf16>, %w1: tensor<100x64xbf16>,
                      %b1: tensor<100xbf16>, %w2: tensor<100x72xbf16>)
    -> tensor<2x96x72xbf16> {
  %h = nova.matmul %x, %w1 transpose_rhs : tensor<2x96x64xbf16>, tensor<100x64xbf16> -> tensor<2x96x100xbf16>
  %hb = nova.add %h, %b1 : tensor<2x96x100xbf16>, tensor<100xbf16>
  %a = nova.gelu tanh %hb : tensor<2x96x100xbf16>
  %r = nova.reshape %a : tensor<2x96x100xbf16> -> tensor<192x100xbf16>
  %o = nova.matmul %r, %w2 : tensor<192x100xbf16>, tensor<100x72xbf16> -> tensor<192x72xbf16>
  %y = nova.reshape %o : tensor<192x72xbf16> -> tensor<2x96x72xbf16>
  return %y : tensor<2x96x72xbf16>
}

func.func @chain_f32(%x: tensor<6x12xf32>, %w1: tensor<12x10xf32>,
                     %w2: tensor<10x16xf32>) -> tensor<6x16xf32> {
  %h = nova.matmul %x, %w1 : tensor<6x12xf32>, tensor<12x10xf32> -> tensor<6x10xf32>
  %a = nova.gelu tanh %h : tensor<6x10xf32>
  %o = nova.matmul %a, %w2 : tensor<6x10xf32>, tensor<10x16xf32> -> tensor<6x16xf32>
  return %o : tensor<6x16xf32>
}

// Function arguments with unaligned rows (K = 201, N = 701 bf16): with
// single GEMMs, nova-fuse gives each a copy kernel whose buffer the planner
// pads, so the GEMM runs on wgmma (the copies cost less than mma.sync's
// lower rate on this product); the output keeps its exact rows and is
// written by the consumer warpgroups' direct stores.
func.func @copy_odd(%a: tensor<600x201xbf16>, %b: tensor<201x701xbf16>)
    -> tensor<600x701xbf16> {
  %p = nova.matmul %a, %b : tensor<600x201xbf16>, tensor<201x701xbf16> -> tensor<600x701xbf16>
  return %p : tensor<600x701xbf16>
}

// Two entries that share the GEMM kernels (nova-outline-kernels keeps one
// symbol per body): in @shared_b a column kernel (a column max), which
// indexes its buffers packed, reads the inner product too, so its buffer
// stays packed there; a kernel's parameters take one layout, so the
// planner keeps @shared_a's packed too.
func.func @shared_a(%x: tensor<6x12xf32>, %w1: tensor<12x10xf32>,
                    %w2: tensor<10x24xf32>) -> tensor<6x24xf32> {
  %h = nova.matmul %x, %w1 : tensor<6x12xf32>, tensor<12x10xf32> -> tensor<6x10xf32>
  %o = nova.matmul %h, %w2 : tensor<6x10xf32>, tensor<10x24xf32> -> tensor<6x24xf32>
  return %o : tensor<6x24xf32>
}

func.func @shared_b(%x: tensor<6x12xf32>, %w1: tensor<12x10xf32>,
                    %w2: tensor<10x24xf32>) -> (tensor<6x24xf32>, tensor<10xf32>) {
  %h = nova.matmul %x, %w1 : tensor<6x12xf32>, tensor<12x10xf32> -> tensor<6x10xf32>
  %o = nova.matmul %h, %w2 : tensor<6x10xf32>, tensor<10x24xf32> -> tensor<6x24xf32>
  %s = nova.reduce max %h dims [0] : tensor<6x10xf32> -> tensor<10xf32>
  return %o, %s : tensor<6x24xf32>, tensor<10xf32>
}
