// One AdamW launch over three tensors of ragged sizes, gradients clipped by
// a runtime scale, a bf16 working copy of one parameter; step and learning
// rate are runtime scalars.
func.func @adamw(%p0: tensor<300x769xf32>, %g0: tensor<300x769xf32>,
                 %m0: tensor<300x769xf32>, %v0: tensor<300x769xf32>,
                 %p1: tensor<769xf32>, %g1: tensor<769xf32>,
                 %m1: tensor<769xf32>, %v1: tensor<769xf32>,
                 %p2: tensor<33x50xf32>, %g2: tensor<33x50xf32>,
                 %m2: tensor<33x50xf32>, %v2: tensor<33x50xf32>,
                 %clip: tensor<f32>, %step: tensor<i64>, %lr: tensor<f32>)
    -> (tensor<300x769xf32>, tensor<300x769xf32>, tensor<300x769xf32>,
        tensor<300x769xbf16>, tensor<769xf32>, tensor<769xf32>,
        tensor<769xf32>, tensor<33x50xf32>, tensor<33x50xf32>,
        tensor<33x50xf32>) {
  %r:10 = nova_tile.fusion optimizer (%p0, %g0, %m0, %v0, %p1, %g1, %m1, %v1,
                                      %p2, %g2, %m2, %v2, %clip, %step, %lr)
      : (tensor<300x769xf32>, tensor<300x769xf32>, tensor<300x769xf32>,
         tensor<300x769xf32>, tensor<769xf32>, tensor<769xf32>,
         tensor<769xf32>, tensor<769xf32>, tensor<33x50xf32>,
         tensor<33x50xf32>, tensor<33x50xf32>, tensor<33x50xf32>,
         tensor<f32>, tensor<i64>, tensor<f32>)
      -> (tensor<300x769xf32>, tensor<300x769xf32>, tensor<300x769xf32>,
          tensor<300x769xbf16>, tensor<769xf32>, tensor<769xf32>,
          tensor<769xf32>, tensor<33x50xf32>, tensor<33x50xf32>,
          tensor<33x50xf32>) {
  ^bb0(%a0: tensor<300x769xf32>, %b0: tensor<300x769xf32>,
       %c0: tensor<300x769xf32>, %d0: tensor<300x769xf32>,
       %a1: tensor<769xf32>, %b1: tensor<769xf32>, %c1: tensor<769xf32>,
       %d1: tensor<769xf32>, %a2: tensor<33x50xf32>, %b2: tensor<33x50xf32>,
       %c2: tensor<33x50xf32>, %d2: tensor<33x50xf32>, %s: tensor<f32>,
       %t: tensor<i64>, %l: tensor<f32>):
    %cg0 = nova.mul %b0, %s : tensor<300x769xf32>, tensor<f32>
    %n0:3 = nova.adamw %a0, %cg0, %c0, %d0, %t, %l beta1 0.9 beta2 0.95 eps 1.0e-08 weight_decay 0.1 : tensor<300x769xf32>, tensor<i64>
    %h0 = nova.cast %n0#0 : tensor<300x769xf32> to tensor<300x769xbf16>
    %cg1 = nova.mul %b1, %s : tensor<769xf32>, tensor<f32>
    %n1:3 = nova.adamw %a1, %cg1, %c1, %d1, %t, %l beta1 0.9 beta2 0.95 eps 1.0e-08 weight_decay 0.0 : tensor<769xf32>, tensor<i64>
    %cg2 = nova.mul %b2, %s : tensor<33x50xf32>, tensor<f32>
    %n2:3 = nova.adamw %a2, %cg2, %c2, %d2, %t, %l beta1 0.9 beta2 0.95 eps 1.0e-08 weight_decay 0.1 : tensor<33x50xf32>, tensor<i64>
    nova_tile.yield %n0#0, %n0#1, %n0#2, %h0, %n1#0, %n1#1, %n1#2, %n2#0, %n2#1, %n2#2
        : tensor<300x769xf32>, tensor<300x769xf32>, tensor<300x769xf32>,
          tensor<300x769xbf16>, tensor<769xf32>, tensor<769xf32>,
          tensor<769xf32>, tensor<33x50xf32>, tensor<33x50xf32>,
          tensor<33x50xf32>
  }
  return %r#0, %r#1, %r#2, %r#3, %r#4, %r#5, %r#6, %r#7, %r#8, %r#9
      : tensor<300x769xf32>, tensor<300x769xf32>, tensor<300x769xf32>,
        tensor<300x769xbf16>, tensor<769xf32>, tensor<769xf32>,
        tensor<769xf32>, tensor<33x50xf32>, tensor<33x50xf32>,
        tensor<33x50xf32>
}
