func.func private @g(%x: tensor<4xf32>) -> tensor<4xf32>
