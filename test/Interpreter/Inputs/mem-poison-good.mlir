func.func @good(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %bx = nova_mem.input %x at 0 : tensor<4xf32> -> !nova_mem.buffer<4xf32>
  %by = nova_mem.input %y at 16 : tensor<4xf32> -> !nova_mem.buffer<4xf32>
  %a = nova_mem.alloc at 32 : !nova_mem.buffer<4xf32>
  nova_mem.launch @twice(%bx : !nova_mem.buffer<4xf32>) -> (%a : !nova_mem.buffer<4xf32>)
  %n = nova_mem.alloc at 48 : !nova_mem.buffer<4xf32>
  nova_mem.launch @negate(%a : !nova_mem.buffer<4xf32>) -> (%n : !nova_mem.buffer<4xf32>)
  %b = nova_mem.alloc at 64 : !nova_mem.buffer<4xf32>
  nova_mem.launch @square(%by : !nova_mem.buffer<4xf32>) -> (%b : !nova_mem.buffer<4xf32>)
  %c = nova_mem.alloc at 80 : !nova_mem.buffer<4xf32>
  nova_mem.launch @minus(%a, %b : !nova_mem.buffer<4xf32>, !nova_mem.buffer<4xf32>) -> (%c : !nova_mem.buffer<4xf32>)
  %rc = nova_mem.output %c : !nova_mem.buffer<4xf32> -> tensor<4xf32>
  %rn = nova_mem.output %n : !nova_mem.buffer<4xf32> -> tensor<4xf32>
  return %rc, %rn : tensor<4xf32>, tensor<4xf32>
}
