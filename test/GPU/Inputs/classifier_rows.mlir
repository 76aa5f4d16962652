// The fused classifier of a GPT-2 step (the loss total and the logits'
// gradient written over the logits, as nova-fuse makes it), on rows whose
// stride is their odd width: every row starts mid-chunk. More rows than the
// grid's blocks, so blocks loop over their rows; the loss, a one-hot
// total, is taken at each row's label column alone (kernel-tests.sh cases
// cls_rows, cls_rows_1001). Rows of 1024 columns fit a lane's fixed chunks
// (four 16-byte chunks of a warp's 32 lanes): the gradient's chunks without
// the label take it with the label compare false (cls_fixed), and the loss
// alone has no full-row output at all (cls_loss_fixed).

func.func @classifier_rows(%in0: tensor<3x100x50257xbf16>, %in1: tensor<3x100x1xi32>, %in2: tensor<f32>, %in3: tensor<3x100x1xi1>) -> (tensor<f32>, tensor<3x100x50257xbf16>) {
  %r:2 = nova_tile.fusion row_reduction (%in0, %in1, %in2, %in3) : (tensor<3x100x50257xbf16>, tensor<3x100x1xi32>, tensor<f32>, tensor<3x100x1xi1>) -> (tensor<f32>, tensor<3x100x50257xbf16>) {
  ^bb0(%arg0: tensor<3x100x50257xbf16>, %arg1: tensor<3x100x1xi32>, %arg2: tensor<f32>, %arg3: tensor<3x100x1xi1>):
    %0 = nova.cast %arg0 : tensor<3x100x50257xbf16> to tensor<3x100x50257xf32>
    %1 = nova.reduce max %0 dims [2] keep_dims : tensor<3x100x50257xf32> -> tensor<3x100x1xf32>
    %2 = nova.sub %0, %1 : tensor<3x100x50257xf32>, tensor<3x100x1xf32>
    %3 = nova.exp %2 : tensor<3x100x50257xf32>
    %4 = nova.reduce sum %3 dims [2] keep_dims : tensor<3x100x50257xf32> -> tensor<3x100x1xf32>
    %5 = nova.log %4 : tensor<3x100x1xf32>
    %6 = nova.sub %2, %5 : tensor<3x100x50257xf32>, tensor<3x100x1xf32>
    %7 = nova.iota dim 2 : tensor<3x100x50257xi32>
    %8 = nova.cmp eq, %7, %arg1 : tensor<3x100x50257xi32>, tensor<3x100x1xi32>
    %9 = nova.constant dense<0.000000e+00> : tensor<f32>
    %10 = nova.select %8, %6, %9 : tensor<3x100x50257xi1>, tensor<3x100x50257xf32>, tensor<f32>
    %11 = nova.reduce sum %10 dims [0, 1, 2] : tensor<3x100x50257xf32> -> tensor<f32>
    %12 = nova.div %3, %4 : tensor<3x100x50257xf32>, tensor<3x100x1xf32>
    %13 = nova.cast %8 : tensor<3x100x50257xi1> to tensor<3x100x50257xf32>
    %14 = nova.constant dense<1.000000e+00> : tensor<f32>
    %15 = nova.div %14, %arg2 : tensor<f32>, tensor<f32>
    %16 = nova.sub %12, %13 : tensor<3x100x50257xf32>, tensor<3x100x50257xf32>
    %17 = nova.mul %16, %15 : tensor<3x100x50257xf32>, tensor<f32>
    %18 = nova.select %arg3, %17, %9 : tensor<3x100x1xi1>, tensor<3x100x50257xf32>, tensor<f32>
    %19 = nova.cast %18 : tensor<3x100x50257xf32> to tensor<3x100x50257xbf16>
    nova_tile.yield %11, %19 : tensor<f32>, tensor<3x100x50257xbf16>
  }
  return %r#0, %r#1 : tensor<f32>, tensor<3x100x50257xbf16>
}

func.func @classifier_rows_1001(%in0: tensor<40x50x1001xbf16>, %in1: tensor<40x50x1xi32>, %in2: tensor<f32>, %in3: tensor<40x50x1xi1>) -> (tensor<f32>, tensor<40x50x1001xbf16>) {
  %r:2 = nova_tile.fusion row_reduction (%in0, %in1, %in2, %in3) : (tensor<40x50x1001xbf16>, tensor<40x50x1xi32>, tensor<f32>, tensor<40x50x1xi1>) -> (tensor<f32>, tensor<40x50x1001xbf16>) {
  ^bb0(%arg0: tensor<40x50x1001xbf16>, %arg1: tensor<40x50x1xi32>, %arg2: tensor<f32>, %arg3: tensor<40x50x1xi1>):
    %0 = nova.cast %arg0 : tensor<40x50x1001xbf16> to tensor<40x50x1001xf32>
    %1 = nova.reduce max %0 dims [2] keep_dims : tensor<40x50x1001xf32> -> tensor<40x50x1xf32>
    %2 = nova.sub %0, %1 : tensor<40x50x1001xf32>, tensor<40x50x1xf32>
    %3 = nova.exp %2 : tensor<40x50x1001xf32>
    %4 = nova.reduce sum %3 dims [2] keep_dims : tensor<40x50x1001xf32> -> tensor<40x50x1xf32>
    %5 = nova.log %4 : tensor<40x50x1xf32>
    %6 = nova.sub %2, %5 : tensor<40x50x1001xf32>, tensor<40x50x1xf32>
    %7 = nova.iota dim 2 : tensor<40x50x1001xi32>
    %8 = nova.cmp eq, %7, %arg1 : tensor<40x50x1001xi32>, tensor<40x50x1xi32>
    %9 = nova.constant dense<0.000000e+00> : tensor<f32>
    %10 = nova.select %8, %6, %9 : tensor<40x50x1001xi1>, tensor<40x50x1001xf32>, tensor<f32>
    %11 = nova.reduce sum %10 dims [0, 1, 2] : tensor<40x50x1001xf32> -> tensor<f32>
    %12 = nova.div %3, %4 : tensor<40x50x1001xf32>, tensor<40x50x1xf32>
    %13 = nova.cast %8 : tensor<40x50x1001xi1> to tensor<40x50x1001xf32>
    %14 = nova.constant dense<1.000000e+00> : tensor<f32>
    %15 = nova.div %14, %arg2 : tensor<f32>, tensor<f32>
    %16 = nova.sub %12, %13 : tensor<40x50x1001xf32>, tensor<40x50x1001xf32>
    %17 = nova.mul %16, %15 : tensor<40x50x1001xf32>, tensor<f32>
    %18 = nova.select %arg3, %17, %9 : tensor<40x50x1xi1>, tensor<40x50x1001xf32>, tensor<f32>
    %19 = nova.cast %18 : tensor<40x50x1001xf32> to tensor<40x50x1001xbf16>
    nova_tile.yield %11, %19 : tensor<f32>, tensor<40x50x1001xbf16>
  }
  return %r#0, %r#1 : tensor<f32>, tensor<40x50x1001xbf16>
}

func.func @classifier_fixed(%in0: tensor<6x250x1024xbf16>, %in1: tensor<6x250x1xi32>, %in2: tensor<f32>, %in3: tensor<6x250x1xi1>) -> (tensor<f32>, tensor<6x250x1024xbf16>) {
  %r:2 = nova_tile.fusion row_reduction (%in0, %in1, %in2, %in3) : (tensor<6x250x1024xbf16>, tensor<6x250x1xi32>, tensor<f32>, tensor<6x250x1xi1>) -> (tensor<f32>, tensor<6x250x1024xbf16>) {
  ^bb0(%arg0: tensor<6x250x1024xbf16>, %arg1: tensor<6x250x1xi32>, %arg2: tensor<f32>, %arg3: tensor<6x250x1xi1>):
    %0 = nova.cast %arg0 : tensor<6x250x1024xbf16> to tensor<6x250x1024xf32>
    %1 = nova.reduce max %0 dims [2] keep_dims : tensor<6x250x1024xf32> -> tensor<6x250x1xf32>
    %2 = nova.sub %0, %1 : tensor<6x250x1024xf32>, tensor<6x250x1xf32>
    %3 = nova.exp %2 : tensor<6x250x1024xf32>
    %4 = nova.reduce sum %3 dims [2] keep_dims : tensor<6x250x1024xf32> -> tensor<6x250x1xf32>
    %5 = nova.log %4 : tensor<6x250x1xf32>
    %6 = nova.sub %2, %5 : tensor<6x250x1024xf32>, tensor<6x250x1xf32>
    %7 = nova.iota dim 2 : tensor<6x250x1024xi32>
    %8 = nova.cmp eq, %7, %arg1 : tensor<6x250x1024xi32>, tensor<6x250x1xi32>
    %9 = nova.constant dense<0.000000e+00> : tensor<f32>
    %10 = nova.select %8, %6, %9 : tensor<6x250x1024xi1>, tensor<6x250x1024xf32>, tensor<f32>
    %11 = nova.reduce sum %10 dims [0, 1, 2] : tensor<6x250x1024xf32> -> tensor<f32>
    %12 = nova.div %3, %4 : tensor<6x250x1024xf32>, tensor<6x250x1xf32>
    %13 = nova.cast %8 : tensor<6x250x1024xi1> to tensor<6x250x1024xf32>
    %14 = nova.constant dense<1.000000e+00> : tensor<f32>
    %15 = nova.div %14, %arg2 : tensor<f32>, tensor<f32>
    %16 = nova.sub %12, %13 : tensor<6x250x1024xf32>, tensor<6x250x1024xf32>
    %17 = nova.mul %16, %15 : tensor<6x250x1024xf32>, tensor<f32>
    %18 = nova.select %arg3, %17, %9 : tensor<6x250x1xi1>, tensor<6x250x1024xf32>, tensor<f32>
    %19 = nova.cast %18 : tensor<6x250x1024xf32> to tensor<6x250x1024xbf16>
    nova_tile.yield %11, %19 : tensor<f32>, tensor<6x250x1024xbf16>
  }
  return %r#0, %r#1 : tensor<f32>, tensor<6x250x1024xbf16>
}

func.func @classifier_loss_fixed(%in0: tensor<6x250x1024xbf16>, %in1: tensor<6x250x1xi32>) -> tensor<f32> {
  %r = nova_tile.fusion row_reduction (%in0, %in1) : (tensor<6x250x1024xbf16>, tensor<6x250x1xi32>) -> tensor<f32> {
  ^bb0(%arg0: tensor<6x250x1024xbf16>, %arg1: tensor<6x250x1xi32>):
    %0 = nova.cast %arg0 : tensor<6x250x1024xbf16> to tensor<6x250x1024xf32>
    %1 = nova.reduce max %0 dims [2] keep_dims : tensor<6x250x1024xf32> -> tensor<6x250x1xf32>
    %2 = nova.sub %0, %1 : tensor<6x250x1024xf32>, tensor<6x250x1xf32>
    %3 = nova.exp %2 : tensor<6x250x1024xf32>
    %4 = nova.reduce sum %3 dims [2] keep_dims : tensor<6x250x1024xf32> -> tensor<6x250x1xf32>
    %5 = nova.log %4 : tensor<6x250x1xf32>
    %6 = nova.sub %2, %5 : tensor<6x250x1024xf32>, tensor<6x250x1xf32>
    %7 = nova.iota dim 2 : tensor<6x250x1024xi32>
    %8 = nova.cmp eq, %7, %arg1 : tensor<6x250x1024xi32>, tensor<6x250x1xi32>
    %9 = nova.constant dense<0.000000e+00> : tensor<f32>
    %10 = nova.select %8, %6, %9 : tensor<6x250x1024xi1>, tensor<6x250x1024xf32>, tensor<f32>
    %11 = nova.reduce sum %10 dims [0, 1, 2] : tensor<6x250x1024xf32> -> tensor<f32>
    nova_tile.yield %11 : tensor<f32>
  }
  return %r : tensor<f32>
}
