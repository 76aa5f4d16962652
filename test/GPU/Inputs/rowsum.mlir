// Row kernels that also reduce across their rows, as nova-fuse makes them
// in a GPT-2 step (the two kernels below are the small GPT's, with ragged
// sizes): LayerNorm backward with the scale and shift gradients (column
// sums), softmax cross-entropy's loss total with the logits' gradient, and
// a few long rows with column sums, a column max and totals of per-row and
// per-element values. More rows than the bounded grid has blocks, so each
// block loops over several rows before the last block combines the
// partials.
func.func @ln_backward(%dy: tensor<3x343x771xbf16>, %w: tensor<771xf32>,
                       %rstd: tensor<3x343x1xf32>, %xhat: tensor<3x343x771xf32>)
    -> (tensor<1x1x771xf32>, tensor<1x1x771xf32>, tensor<3x343x771xf32>,
        tensor<3x343x771xbf16>, tensor<1x1x771xf32>) {
  %r:5 = nova_tile.fusion row_reduction (%dy, %w, %rstd, %xhat)
      : (tensor<3x343x771xbf16>, tensor<771xf32>, tensor<3x343x1xf32>, tensor<3x343x771xf32>)
      -> (tensor<1x1x771xf32>, tensor<1x1x771xf32>, tensor<3x343x771xf32>,
          tensor<3x343x771xbf16>, tensor<1x1x771xf32>) {
  ^bb0(%arg0: tensor<3x343x771xbf16>, %arg1: tensor<771xf32>, %arg2: tensor<3x343x1xf32>, %arg3: tensor<3x343x771xf32>):
    %0 = nova.constant dense<-5.000000e-01> : tensor<f32>
    %1 = nova.mul %arg2, %arg2 : tensor<3x343x1xf32>, tensor<3x343x1xf32>
    %2 = nova.mul %arg2, %1 : tensor<3x343x1xf32>, tensor<3x343x1xf32>
    %3 = nova.mul %2, %0 : tensor<3x343x1xf32>, tensor<f32>
    %4 = nova.mul %arg3, %arg2 : tensor<3x343x771xf32>, tensor<3x343x1xf32>
    %5 = nova.cast %arg0 : tensor<3x343x771xbf16> to tensor<3x343x771xf32>
    %6 = nova.reduce sum %5 dims [0, 1] keep_dims : tensor<3x343x771xf32> -> tensor<1x1x771xf32>
    %7 = nova.cast %arg1 : tensor<771xf32> to tensor<771xbf16>
    %8 = nova.mul %arg0, %7 : tensor<3x343x771xbf16>, tensor<771xbf16>
    %9 = nova.cast %8 : tensor<3x343x771xbf16> to tensor<3x343x771xf32>
    %10 = nova.mul %5, %4 : tensor<3x343x771xf32>, tensor<3x343x771xf32>
    %11 = nova.reduce sum %10 dims [0, 1] keep_dims : tensor<3x343x771xf32> -> tensor<1x1x771xf32>
    %12 = nova.mul %9, %arg2 : tensor<3x343x771xf32>, tensor<3x343x1xf32>
    %13 = nova.mul %9, %arg3 : tensor<3x343x771xf32>, tensor<3x343x771xf32>
    %14 = nova.reduce sum %13 dims [2] keep_dims : tensor<3x343x771xf32> -> tensor<3x343x1xf32>
    %15 = nova.mul %14, %3 : tensor<3x343x1xf32>, tensor<3x343x1xf32>
    %16 = nova.constant dense<1.2970169e-03> : tensor<f32>
    %17 = nova.mul %15, %16 : tensor<3x343x1xf32>, tensor<f32>
    %18 = nova.broadcast %17 : tensor<3x343x1xf32> -> tensor<3x343x771xf32>
    %19 = nova.mul %18, %arg3 : tensor<3x343x771xf32>, tensor<3x343x771xf32>
    %20 = nova.add %12, %19 : tensor<3x343x771xf32>, tensor<3x343x771xf32>
    %21 = nova.add %20, %19 : tensor<3x343x771xf32>, tensor<3x343x771xf32>
    %22 = nova.neg %21 : tensor<3x343x771xf32>
    %23 = nova.reduce sum %22 dims [2] keep_dims : tensor<3x343x771xf32> -> tensor<3x343x1xf32>
    %24 = nova.mul %23, %16 : tensor<3x343x1xf32>, tensor<f32>
    %25 = nova.broadcast %24 : tensor<3x343x1xf32> -> tensor<3x343x771xf32>
    %26 = nova.add %21, %25 : tensor<3x343x771xf32>, tensor<3x343x771xf32>
    %27 = nova.cast %26 : tensor<3x343x771xf32> to tensor<3x343x771xbf16>
    %28 = nova.reduce sum %26 dims [0, 1] keep_dims : tensor<3x343x771xf32> -> tensor<1x1x771xf32>
    nova_tile.yield %6, %11, %26, %27, %28 : tensor<1x1x771xf32>, tensor<1x1x771xf32>, tensor<3x343x771xf32>, tensor<3x343x771xbf16>, tensor<1x1x771xf32>
  }
  return %r#0, %r#1, %r#2, %r#3, %r#4 : tensor<1x1x771xf32>, tensor<1x1x771xf32>, tensor<3x343x771xf32>, tensor<3x343x771xbf16>, tensor<1x1x771xf32>
}

func.func @xent(%logits: tensor<2x1100x1021xbf16>, %labels: tensor<2x1100x1xi32>,
                %dloss: tensor<1x1x1xf32>) -> (tensor<f32>, tensor<2x1100x1021xbf16>) {
  %r:2 = nova_tile.fusion row_reduction (%logits, %labels, %dloss)
      : (tensor<2x1100x1021xbf16>, tensor<2x1100x1xi32>, tensor<1x1x1xf32>)
      -> (tensor<f32>, tensor<2x1100x1021xbf16>) {
  ^bb0(%arg0: tensor<2x1100x1021xbf16>, %arg1: tensor<2x1100x1xi32>, %arg2: tensor<1x1x1xf32>):
    %0 = nova.cast %arg0 : tensor<2x1100x1021xbf16> to tensor<2x1100x1021xf32>
    %1 = nova.reduce max %0 dims [2] keep_dims : tensor<2x1100x1021xf32> -> tensor<2x1100x1xf32>
    %2 = nova.sub %0, %1 : tensor<2x1100x1021xf32>, tensor<2x1100x1xf32>
    %3 = nova.exp %2 : tensor<2x1100x1021xf32>
    %4 = nova.reduce sum %3 dims [2] keep_dims : tensor<2x1100x1021xf32> -> tensor<2x1100x1xf32>
    %5 = nova.log %4 : tensor<2x1100x1xf32>
    %6 = nova.sub %2, %5 : tensor<2x1100x1021xf32>, tensor<2x1100x1xf32>
    %7 = nova.iota dim 2 : tensor<2x1100x1021xi32>
    %8 = nova.cmp eq, %7, %arg1 : tensor<2x1100x1021xi32>, tensor<2x1100x1xi32>
    %9 = nova.constant dense<0.000000e+00> : tensor<f32>
    %10 = nova.select %8, %6, %9 : tensor<2x1100x1021xi1>, tensor<2x1100x1021xf32>, tensor<f32>
    %11 = nova.reduce sum %10 dims [0, 1, 2] : tensor<2x1100x1021xf32> -> tensor<f32>
    %12 = nova.broadcast %arg2 : tensor<1x1x1xf32> -> tensor<2x1100x1021xf32>
    %13 = nova.select %8, %12, %9 : tensor<2x1100x1021xi1>, tensor<2x1100x1021xf32>, tensor<f32>
    %14 = nova.neg %13 : tensor<2x1100x1021xf32>
    %15 = nova.reduce sum %14 dims [2] keep_dims : tensor<2x1100x1021xf32> -> tensor<2x1100x1xf32>
    %16 = nova.div %15, %4 : tensor<2x1100x1xf32>, tensor<2x1100x1xf32>
    %17 = nova.broadcast %16 : tensor<2x1100x1xf32> -> tensor<2x1100x1021xf32>
    %18 = nova.mul %17, %3 : tensor<2x1100x1021xf32>, tensor<2x1100x1021xf32>
    %19 = nova.add %13, %18 : tensor<2x1100x1021xf32>, tensor<2x1100x1021xf32>
    %20 = nova.neg %19 : tensor<2x1100x1021xf32>
    %21 = nova.reduce sum %20 dims [2] keep_dims : tensor<2x1100x1021xf32> -> tensor<2x1100x1xf32>
    %22 = nova.cmp eq, %0, %1 : tensor<2x1100x1021xf32>, tensor<2x1100x1xf32>
    %23 = nova.cast %22 : tensor<2x1100x1021xi1> to tensor<2x1100x1021xf32>
    %24 = nova.reduce sum %23 dims [2] keep_dims : tensor<2x1100x1021xf32> -> tensor<2x1100x1xf32>
    %25 = nova.div %23, %24 : tensor<2x1100x1021xf32>, tensor<2x1100x1xf32>
    %26 = nova.mul %25, %21 : tensor<2x1100x1021xf32>, tensor<2x1100x1xf32>
    %27 = nova.add %19, %26 : tensor<2x1100x1021xf32>, tensor<2x1100x1021xf32>
    %28 = nova.cast %27 : tensor<2x1100x1021xf32> to tensor<2x1100x1021xbf16>
    nova_tile.yield %11, %28 : tensor<f32>, tensor<2x1100x1021xbf16>
  }
  return %r#0, %r#1 : tensor<f32>, tensor<2x1100x1021xbf16>
}

func.func @long_rows(%x: tensor<3x5003xf32>)
    -> (tensor<5003xf32>, tensor<1x5003xf32>, tensor<f32>, tensor<f32>, tensor<3x1xf32>) {
  %r:5 = nova_tile.fusion row_reduction (%x)
      : (tensor<3x5003xf32>)
      -> (tensor<5003xf32>, tensor<1x5003xf32>, tensor<f32>, tensor<f32>, tensor<3x1xf32>) {
  ^bb0(%xa: tensor<3x5003xf32>):
    %m = nova.reduce max %xa dims [1] keep_dims : tensor<3x5003xf32> -> tensor<3x1xf32>
    %d = nova.sub %xa, %m : tensor<3x5003xf32>, tensor<3x1xf32>
    %c = nova.reduce sum %d dims [0] : tensor<3x5003xf32> -> tensor<5003xf32>
    %cm = nova.reduce max %xa dims [0] keep_dims : tensor<3x5003xf32> -> tensor<1x5003xf32>
    %t = nova.reduce sum %d dims [0, 1] : tensor<3x5003xf32> -> tensor<f32>
    %tm = nova.reduce min %m dims [0, 1] : tensor<3x1xf32> -> tensor<f32>
    nova_tile.yield %c, %cm, %t, %tm, %m : tensor<5003xf32>, tensor<1x5003xf32>, tensor<f32>, tensor<f32>, tensor<3x1xf32>
  }
  return %r#0, %r#1, %r#2, %r#3, %r#4 : tensor<5003xf32>, tensor<1x5003xf32>, tensor<f32>, tensor<f32>, tensor<3x1xf32>
}

func.func @many_rows(%x: tensor<4099x100xf32>, %y: tensor<4099x100xf32>)
    -> (tensor<4099x1xf32>, tensor<100xf32>, tensor<f32>, tensor<1x1xf32>, tensor<4099x100xf32>) {
  %r:5 = nova_tile.fusion row_reduction (%x, %y)
      : (tensor<4099x100xf32>, tensor<4099x100xf32>)
      -> (tensor<4099x1xf32>, tensor<100xf32>, tensor<f32>, tensor<1x1xf32>, tensor<4099x100xf32>) {
  ^bb0(%xa: tensor<4099x100xf32>, %ya: tensor<4099x100xf32>):
    %p = nova.mul %xa, %ya : tensor<4099x100xf32>, tensor<4099x100xf32>
    %s = nova.reduce sum %p dims [1] keep_dims : tensor<4099x100xf32> -> tensor<4099x1xf32>
    %c = nova.reduce sum %xa dims [0] : tensor<4099x100xf32> -> tensor<100xf32>
    %t = nova.reduce sum %p dims [0, 1] : tensor<4099x100xf32> -> tensor<f32>
    %e = nova.exp %s : tensor<4099x1xf32>
    %te = nova.reduce sum %e dims [0, 1] keep_dims : tensor<4099x1xf32> -> tensor<1x1xf32>
    %d = nova.sub %p, %s : tensor<4099x100xf32>, tensor<4099x1xf32>
    nova_tile.yield %s, %c, %t, %te, %d : tensor<4099x1xf32>, tensor<100xf32>, tensor<f32>, tensor<1x1xf32>, tensor<4099x100xf32>
  }
  return %r#0, %r#1, %r#2, %r#3, %r#4 : tensor<4099x1xf32>, tensor<100xf32>, tensor<f32>, tensor<1x1xf32>, tensor<4099x100xf32>
}

// Two such kernels in a row share the instance's workspace: the second one
// finds the ticket at 0 only if the first one reset it (as a CUDA-graph
// replay of either needs).
func.func @chained(%x: tensor<300x500xf32>)
    -> (tensor<500xf32>, tensor<f32>, tensor<300x1xf32>) {
  %a:2 = nova_tile.fusion row_reduction (%x)
      : (tensor<300x500xf32>) -> (tensor<500xf32>, tensor<300x500xf32>) {
  ^bb0(%xa: tensor<300x500xf32>):
    %m = nova.reduce max %xa dims [1] keep_dims : tensor<300x500xf32> -> tensor<300x1xf32>
    %d = nova.sub %xa, %m : tensor<300x500xf32>, tensor<300x1xf32>
    %c = nova.reduce sum %xa dims [0] : tensor<300x500xf32> -> tensor<500xf32>
    nova_tile.yield %c, %d : tensor<500xf32>, tensor<300x500xf32>
  }
  %b:2 = nova_tile.fusion row_reduction (%a#1)
      : (tensor<300x500xf32>) -> (tensor<f32>, tensor<300x1xf32>) {
  ^bb0(%da: tensor<300x500xf32>):
    %s = nova.reduce sum %da dims [1] keep_dims : tensor<300x500xf32> -> tensor<300x1xf32>
    %t = nova.reduce sum %da dims [0, 1] : tensor<300x500xf32> -> tensor<f32>
    nova_tile.yield %t, %s : tensor<f32>, tensor<300x1xf32>
  }
  return %a#0, %b#0, %b#1 : tensor<500xf32>, tensor<f32>, tensor<300x1xf32>
}

// LayerNorm backward with the scale and shift gradients at the 124M width
// (768 columns) on 4200 rows, as the bf16 step has it (dy bf16, the residual
// stream f32) and all in f32: more blocks than one fold level takes, so the
// partials fold in groups of blocks, then the groups.
func.func @ln_backward_c768(%dy: tensor<2x2100x768xbf16>, %w: tensor<768xf32>, %rstd: tensor<2x2100x1xf32>, %xhat: tensor<2x2100x768xf32>, %dres: tensor<2x2100x768xf32>)
    -> (tensor<1x1x768xf32>, tensor<1x1x768xf32>, tensor<2x2100x768xf32>, tensor<2x2100x768xbf16>, tensor<1x1x768xf32>) {
  %r:5 = nova_tile.fusion row_reduction (%dy, %w, %rstd, %xhat, %dres)
      : (tensor<2x2100x768xbf16>, tensor<768xf32>, tensor<2x2100x1xf32>, tensor<2x2100x768xf32>, tensor<2x2100x768xf32>)
      -> (tensor<1x1x768xf32>, tensor<1x1x768xf32>, tensor<2x2100x768xf32>, tensor<2x2100x768xbf16>, tensor<1x1x768xf32>) {
  ^bb0(%arg0: tensor<2x2100x768xbf16>, %arg1: tensor<768xf32>, %arg2: tensor<2x2100x1xf32>, %arg3: tensor<2x2100x768xf32>, %arg4: tensor<2x2100x768xf32>):
    %0 = nova.constant dense<-5.000000e-01> : tensor<f32>
    %1 = nova.mul %arg2, %arg2 : tensor<2x2100x1xf32>, tensor<2x2100x1xf32>
    %2 = nova.mul %arg2, %1 : tensor<2x2100x1xf32>, tensor<2x2100x1xf32>
    %3 = nova.mul %2, %0 : tensor<2x2100x1xf32>, tensor<f32>
    %4 = nova.mul %arg3, %arg2 : tensor<2x2100x768xf32>, tensor<2x2100x1xf32>
    %5 = nova.cast %arg0 : tensor<2x2100x768xbf16> to tensor<2x2100x768xf32>
    %6 = nova.reduce sum %5 dims [0, 1] keep_dims : tensor<2x2100x768xf32> -> tensor<1x1x768xf32>
    %7 = nova.cast %arg1 : tensor<768xf32> to tensor<768xbf16>
    %8 = nova.mul %arg0, %7 : tensor<2x2100x768xbf16>, tensor<768xbf16>
    %9 = nova.cast %8 : tensor<2x2100x768xbf16> to tensor<2x2100x768xf32>
    %10 = nova.mul %5, %4 : tensor<2x2100x768xf32>, tensor<2x2100x768xf32>
    %11 = nova.reduce sum %10 dims [0, 1] keep_dims : tensor<2x2100x768xf32> -> tensor<1x1x768xf32>
    %12 = nova.mul %9, %arg2 : tensor<2x2100x768xf32>, tensor<2x2100x1xf32>
    %13 = nova.mul %9, %arg3 : tensor<2x2100x768xf32>, tensor<2x2100x768xf32>
    %14 = nova.reduce sum %13 dims [2] keep_dims : tensor<2x2100x768xf32> -> tensor<2x2100x1xf32>
    %15 = nova.mul %14, %3 : tensor<2x2100x1xf32>, tensor<2x2100x1xf32>
    %16 = nova.constant dense<0.00130208337> : tensor<f32>
    %17 = nova.mul %15, %16 : tensor<2x2100x1xf32>, tensor<f32>
    %18 = nova.broadcast %17 : tensor<2x2100x1xf32> -> tensor<2x2100x768xf32>
    %19 = nova.mul %18, %arg3 : tensor<2x2100x768xf32>, tensor<2x2100x768xf32>
    %20 = nova.add %12, %19 : tensor<2x2100x768xf32>, tensor<2x2100x768xf32>
    %21 = nova.add %20, %19 : tensor<2x2100x768xf32>, tensor<2x2100x768xf32>
    %22 = nova.neg %21 : tensor<2x2100x768xf32>
    %23 = nova.reduce sum %22 dims [2] keep_dims : tensor<2x2100x768xf32> -> tensor<2x2100x1xf32>
    %24 = nova.add %arg4, %21 : tensor<2x2100x768xf32>, tensor<2x2100x768xf32>
    %25 = nova.mul %23, %16 : tensor<2x2100x1xf32>, tensor<f32>
    %26 = nova.broadcast %25 : tensor<2x2100x1xf32> -> tensor<2x2100x768xf32>
    %27 = nova.add %24, %26 : tensor<2x2100x768xf32>, tensor<2x2100x768xf32>
    %28 = nova.cast %27 : tensor<2x2100x768xf32> to tensor<2x2100x768xbf16>
    %29 = nova.reduce sum %27 dims [0, 1] keep_dims : tensor<2x2100x768xf32> -> tensor<1x1x768xf32>
    nova_tile.yield %6, %11, %27, %28, %29 : tensor<1x1x768xf32>, tensor<1x1x768xf32>, tensor<2x2100x768xf32>, tensor<2x2100x768xbf16>, tensor<1x1x768xf32>
  }
  return %r#0, %r#1, %r#2, %r#3, %r#4 : tensor<1x1x768xf32>, tensor<1x1x768xf32>, tensor<2x2100x768xf32>, tensor<2x2100x768xbf16>, tensor<1x1x768xf32>
}

func.func @ln_backward_c768_f32(%dy: tensor<2x2100x768xf32>, %w: tensor<768xf32>, %rstd: tensor<2x2100x1xf32>, %xhat: tensor<2x2100x768xf32>, %dres: tensor<2x2100x768xf32>)
    -> (tensor<1x1x768xf32>, tensor<1x1x768xf32>, tensor<2x2100x768xf32>, tensor<2x2100x768xf32>, tensor<1x1x768xf32>) {
  %r:5 = nova_tile.fusion row_reduction (%dy, %w, %rstd, %xhat, %dres)
      : (tensor<2x2100x768xf32>, tensor<768xf32>, tensor<2x2100x1xf32>, tensor<2x2100x768xf32>, tensor<2x2100x768xf32>)
      -> (tensor<1x1x768xf32>, tensor<1x1x768xf32>, tensor<2x2100x768xf32>, tensor<2x2100x768xf32>, tensor<1x1x768xf32>) {
  ^bb0(%arg0: tensor<2x2100x768xf32>, %arg1: tensor<768xf32>, %arg2: tensor<2x2100x1xf32>, %arg3: tensor<2x2100x768xf32>, %arg4: tensor<2x2100x768xf32>):
    %0 = nova.constant dense<-5.000000e-01> : tensor<f32>
    %1 = nova.mul %arg2, %arg2 : tensor<2x2100x1xf32>, tensor<2x2100x1xf32>
    %2 = nova.mul %arg2, %1 : tensor<2x2100x1xf32>, tensor<2x2100x1xf32>
    %3 = nova.mul %2, %0 : tensor<2x2100x1xf32>, tensor<f32>
    %4 = nova.mul %arg3, %arg2 : tensor<2x2100x768xf32>, tensor<2x2100x1xf32>
    %5 = nova.neg %arg0 : tensor<2x2100x768xf32>
    %6 = nova.reduce sum %5 dims [0, 1] keep_dims : tensor<2x2100x768xf32> -> tensor<1x1x768xf32>
    %7 = nova.neg %arg1 : tensor<768xf32>
    %8 = nova.mul %arg0, %7 : tensor<2x2100x768xf32>, tensor<768xf32>
    %9 = nova.neg %8 : tensor<2x2100x768xf32>
    %10 = nova.mul %5, %4 : tensor<2x2100x768xf32>, tensor<2x2100x768xf32>
    %11 = nova.reduce sum %10 dims [0, 1] keep_dims : tensor<2x2100x768xf32> -> tensor<1x1x768xf32>
    %12 = nova.mul %9, %arg2 : tensor<2x2100x768xf32>, tensor<2x2100x1xf32>
    %13 = nova.mul %9, %arg3 : tensor<2x2100x768xf32>, tensor<2x2100x768xf32>
    %14 = nova.reduce sum %13 dims [2] keep_dims : tensor<2x2100x768xf32> -> tensor<2x2100x1xf32>
    %15 = nova.mul %14, %3 : tensor<2x2100x1xf32>, tensor<2x2100x1xf32>
    %16 = nova.constant dense<0.00130208337> : tensor<f32>
    %17 = nova.mul %15, %16 : tensor<2x2100x1xf32>, tensor<f32>
    %18 = nova.broadcast %17 : tensor<2x2100x1xf32> -> tensor<2x2100x768xf32>
    %19 = nova.mul %18, %arg3 : tensor<2x2100x768xf32>, tensor<2x2100x768xf32>
    %20 = nova.add %12, %19 : tensor<2x2100x768xf32>, tensor<2x2100x768xf32>
    %21 = nova.add %20, %19 : tensor<2x2100x768xf32>, tensor<2x2100x768xf32>
    %22 = nova.neg %21 : tensor<2x2100x768xf32>
    %23 = nova.reduce sum %22 dims [2] keep_dims : tensor<2x2100x768xf32> -> tensor<2x2100x1xf32>
    %24 = nova.add %arg4, %21 : tensor<2x2100x768xf32>, tensor<2x2100x768xf32>
    %25 = nova.mul %23, %16 : tensor<2x2100x1xf32>, tensor<f32>
    %26 = nova.broadcast %25 : tensor<2x2100x1xf32> -> tensor<2x2100x768xf32>
    %27 = nova.add %24, %26 : tensor<2x2100x768xf32>, tensor<2x2100x768xf32>
    %28 = nova.neg %27 : tensor<2x2100x768xf32>
    %29 = nova.reduce sum %27 dims [0, 1] keep_dims : tensor<2x2100x768xf32> -> tensor<1x1x768xf32>
    nova_tile.yield %6, %11, %27, %28, %29 : tensor<1x1x768xf32>, tensor<1x1x768xf32>, tensor<2x2100x768xf32>, tensor<2x2100x768xf32>, tensor<1x1x768xf32>
  }
  return %r#0, %r#1, %r#2, %r#3, %r#4 : tensor<1x1x768xf32>, tensor<1x1x768xf32>, tensor<2x2100x768xf32>, tensor<2x2100x768xf32>, tensor<1x1x768xf32>
}

// The first layer's LayerNorm backward (its input gradient is the last one:
// two column sums and no bf16 copy), at 768 columns on 2100 rows.
func.func @ln_backward_first_c768(%dy: tensor<2x1050x768xbf16>, %w: tensor<768xf32>, %rstd: tensor<2x1050x1xf32>, %xhat: tensor<2x1050x768xf32>, %dres: tensor<2x1050x768xf32>)
    -> (tensor<1x1x768xf32>, tensor<1x1x768xf32>, tensor<2x1050x768xf32>) {
  %r:3 = nova_tile.fusion row_reduction (%dy, %w, %rstd, %xhat, %dres)
      : (tensor<2x1050x768xbf16>, tensor<768xf32>, tensor<2x1050x1xf32>, tensor<2x1050x768xf32>, tensor<2x1050x768xf32>)
      -> (tensor<1x1x768xf32>, tensor<1x1x768xf32>, tensor<2x1050x768xf32>) {
  ^bb0(%arg0: tensor<2x1050x768xbf16>, %arg1: tensor<768xf32>, %arg2: tensor<2x1050x1xf32>, %arg3: tensor<2x1050x768xf32>, %arg4: tensor<2x1050x768xf32>):
    %0 = nova.constant dense<-5.000000e-01> : tensor<f32>
    %1 = nova.mul %arg2, %arg2 : tensor<2x1050x1xf32>, tensor<2x1050x1xf32>
    %2 = nova.mul %arg2, %1 : tensor<2x1050x1xf32>, tensor<2x1050x1xf32>
    %3 = nova.mul %2, %0 : tensor<2x1050x1xf32>, tensor<f32>
    %4 = nova.mul %arg3, %arg2 : tensor<2x1050x768xf32>, tensor<2x1050x1xf32>
    %5 = nova.cast %arg0 : tensor<2x1050x768xbf16> to tensor<2x1050x768xf32>
    %6 = nova.reduce sum %5 dims [0, 1] keep_dims : tensor<2x1050x768xf32> -> tensor<1x1x768xf32>
    %7 = nova.cast %arg1 : tensor<768xf32> to tensor<768xbf16>
    %8 = nova.mul %arg0, %7 : tensor<2x1050x768xbf16>, tensor<768xbf16>
    %9 = nova.cast %8 : tensor<2x1050x768xbf16> to tensor<2x1050x768xf32>
    %10 = nova.mul %5, %4 : tensor<2x1050x768xf32>, tensor<2x1050x768xf32>
    %11 = nova.reduce sum %10 dims [0, 1] keep_dims : tensor<2x1050x768xf32> -> tensor<1x1x768xf32>
    %12 = nova.mul %9, %arg2 : tensor<2x1050x768xf32>, tensor<2x1050x1xf32>
    %13 = nova.mul %9, %arg3 : tensor<2x1050x768xf32>, tensor<2x1050x768xf32>
    %14 = nova.reduce sum %13 dims [2] keep_dims : tensor<2x1050x768xf32> -> tensor<2x1050x1xf32>
    %15 = nova.mul %14, %3 : tensor<2x1050x1xf32>, tensor<2x1050x1xf32>
    %16 = nova.constant dense<0.00130208337> : tensor<f32>
    %17 = nova.mul %15, %16 : tensor<2x1050x1xf32>, tensor<f32>
    %18 = nova.broadcast %17 : tensor<2x1050x1xf32> -> tensor<2x1050x768xf32>
    %19 = nova.mul %18, %arg3 : tensor<2x1050x768xf32>, tensor<2x1050x768xf32>
    %20 = nova.add %12, %19 : tensor<2x1050x768xf32>, tensor<2x1050x768xf32>
    %21 = nova.add %20, %19 : tensor<2x1050x768xf32>, tensor<2x1050x768xf32>
    %22 = nova.neg %21 : tensor<2x1050x768xf32>
    %23 = nova.reduce sum %22 dims [2] keep_dims : tensor<2x1050x768xf32> -> tensor<2x1050x1xf32>
    %24 = nova.add %arg4, %21 : tensor<2x1050x768xf32>, tensor<2x1050x768xf32>
    %25 = nova.mul %23, %16 : tensor<2x1050x1xf32>, tensor<f32>
    %26 = nova.broadcast %25 : tensor<2x1050x1xf32> -> tensor<2x1050x768xf32>
    %27 = nova.add %24, %26 : tensor<2x1050x768xf32>, tensor<2x1050x768xf32>
    nova_tile.yield %6, %11, %27 : tensor<1x1x768xf32>, tensor<1x1x768xf32>, tensor<2x1050x768xf32>
  }
  return %r#0, %r#1, %r#2 : tensor<1x1x768xf32>, tensor<1x1x768xf32>, tensor<2x1050x768xf32>
}
