// A two-layer perceptron whose class count (10) makes rows of 40 bytes,
// which the cross-entropy row kernel reads: the planner keeps them packed.
func.func @loss(%x: tensor<6x12xf32> {nova.name = "x"}, %labels: tensor<6xi32> {nova.name = "labels"},
                %w1: tensor<12x20xf32> {nova.param, nova.name = "w1"}, %b1: tensor<20xf32> {nova.param, nova.name = "b1"},
                %w2: tensor<20x10xf32> {nova.param, nova.name = "w2"}, %b2: tensor<10xf32> {nova.param, nova.name = "b2"}) -> tensor<f32> {
  %h = nova.matmul %x, %w1 : tensor<6x12xf32>, tensor<12x20xf32> -> tensor<6x20xf32>
  %hb = nova.add %h, %b1 : tensor<6x20xf32>, tensor<20xf32>
  %a = nova.gelu tanh %hb : tensor<6x20xf32>
  %o = nova.matmul %a, %w2 : tensor<6x20xf32>, tensor<20x10xf32> -> tensor<6x10xf32>
  %ob = nova.add %o, %b2 : tensor<6x10xf32>, tensor<10xf32>
  %loss = nova.cross_entropy %ob, %labels : tensor<6x10xf32>, tensor<6xi32> -> tensor<f32>
  return %loss : tensor<f32>
}
