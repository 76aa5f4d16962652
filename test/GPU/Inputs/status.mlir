// The device status word: @step checks its labels (nova.check_labels, a
// kernel of its own), derives a gradient from them and runs AdamW, which
// skips its update when the check failed. @embed_step gathers embedding
// rows at its tokens (a gather kernel, which checks them against the
// table) and runs AdamW on the table. @step_unchanged and
// @embed_step_unchanged return the state as it was: the reference for a
// step whose update was skipped.
func.func @step(%p: tensor<300xf32> {nova.name = "p"},
                %m: tensor<300xf32> {nova.name = "m"},
                %v: tensor<300xf32> {nova.name = "v"},
                %step: tensor<i64> {nova.name = "step"},
                %lr: tensor<f32> {nova.name = "lr"},
                %labels: tensor<40xi32> {nova.name = "labels"})
    -> (tensor<300xf32> {nova.name = "new_p"},
        tensor<300xf32> {nova.name = "new_m"},
        tensor<300xf32> {nova.name = "new_v"}) {
  %ok = nova.check_labels %labels classes 10 ignore_index -100
      : tensor<40xi32>
  %f = nova.cast %ok : tensor<40xi32> to tensor<40xf32>
  %sum = nova.reduce sum %f dims [0] : tensor<40xf32> -> tensor<f32>
  %g = nova.broadcast %sum : tensor<f32> -> tensor<300xf32>
  %np, %nm, %nv = nova.adamw %p, %g, %m, %v, %step, %lr beta1 0.9
      beta2 0.999 eps 1.0e-8 weight_decay 0.01 : tensor<300xf32>, tensor<i64>
  return %np, %nm, %nv : tensor<300xf32>, tensor<300xf32>, tensor<300xf32>
}

func.func @step_unchanged(%p: tensor<300xf32> {nova.name = "p"},
                          %m: tensor<300xf32> {nova.name = "m"},
                          %v: tensor<300xf32> {nova.name = "v"},
                          %step: tensor<i64> {nova.name = "step"},
                          %lr: tensor<f32> {nova.name = "lr"},
                          %labels: tensor<40xi32> {nova.name = "labels"})
    -> (tensor<300xf32> {nova.name = "new_p"},
        tensor<300xf32> {nova.name = "new_m"},
        tensor<300xf32> {nova.name = "new_v"}) {
  return %p, %m, %v : tensor<300xf32>, tensor<300xf32>, tensor<300xf32>
}

func.func @embed_step(%wte: tensor<100x16xf32> {nova.name = "wte"},
                      %m: tensor<100x16xf32> {nova.name = "m"},
                      %v: tensor<100x16xf32> {nova.name = "v"},
                      %step: tensor<i64> {nova.name = "step"},
                      %lr: tensor<f32> {nova.name = "lr"},
                      %tokens: tensor<40xi32> {nova.name = "tokens"})
    -> (tensor<100x16xf32> {nova.name = "new_wte"},
        tensor<100x16xf32> {nova.name = "new_m"},
        tensor<100x16xf32> {nova.name = "new_v"}) {
  %e = nova.gather %wte[%tokens] axis 0
      : tensor<100x16xf32>, tensor<40xi32> -> tensor<40x16xf32>
  %sum = nova.reduce sum %e dims [0, 1] : tensor<40x16xf32> -> tensor<f32>
  %g = nova.broadcast %sum : tensor<f32> -> tensor<100x16xf32>
  %nw, %nm, %nv = nova.adamw %wte, %g, %m, %v, %step, %lr beta1 0.9
      beta2 0.999 eps 1.0e-8 weight_decay 0.01 : tensor<100x16xf32>, tensor<i64>
  return %nw, %nm, %nv : tensor<100x16xf32>, tensor<100x16xf32>, tensor<100x16xf32>
}

func.func @embed_step_unchanged(%wte: tensor<100x16xf32> {nova.name = "wte"},
                                %m: tensor<100x16xf32> {nova.name = "m"},
                                %v: tensor<100x16xf32> {nova.name = "v"},
                                %step: tensor<i64> {nova.name = "step"},
                                %lr: tensor<f32> {nova.name = "lr"},
                                %tokens: tensor<40xi32> {nova.name = "tokens"})
    -> (tensor<100x16xf32> {nova.name = "new_wte"},
        tensor<100x16xf32> {nova.name = "new_m"},
        tensor<100x16xf32> {nova.name = "new_v"}) {
  return %wte, %m, %v : tensor<100x16xf32>, tensor<100x16xf32>, tensor<100x16xf32>
}
