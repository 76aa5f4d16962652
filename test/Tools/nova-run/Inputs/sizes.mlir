func.func @overflow(%x: tensor<100000000000x100000000000xf32>) -> tensor<100000000000x100000000000xf32> {
  // No nova op: the verifier's element-count check is not what stops it.
  return %x : tensor<100000000000x100000000000xf32>
}

func.func @wraps_to_zero(%x: tensor<4294967296x4294967296xf32>) -> tensor<4294967296x4294967296xf32> {
  // As above: nova-run's own check of its arguments.
  return %x : tensor<4294967296x4294967296xf32>
}

func.func @ten_gb(%x: tensor<2500000000xf32>) -> tensor<f32> {
  %s = nova.reduce sum %x dims [0] : tensor<2500000000xf32> -> tensor<f32>
  return %s : tensor<f32>
}
