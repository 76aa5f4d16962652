// The device status word: @step checks its labels (nova.check_labels, a
// kernel of its own), derives a gradient from them and runs AdamW, which
// skips its update when the check failed. @unchanged returns the state as
// it was: the reference for a step whose update was skipped.
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

func.func @unchanged(%p: tensor<300xf32> {nova.name = "p"},
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
