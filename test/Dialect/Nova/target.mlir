// #nova.target: it round-trips, belongs on a module, and checks its figures.
// RUN: nova-opt %s -split-input-file -verify-diagnostics | FileCheck %s

// CHECK: module attributes {nova.target = #nova.target<"rtx3060", sm = 86, sms = 28, shared_per_sm = 102400, shared_per_block = 101376, registers_per_sm = 65536, threads_per_sm = 1536, l2_bytes = 3145728, bandwidth_gbs = 360, clock_mhz = 1777, f32_gflops = 12740, tf32_gflops = 12740, bf16_gflops = 25500, tensor_cores = mma_sync>}
module attributes {nova.target = #nova.target<"rtx3060", sm = 86, sms = 28, shared_per_sm = 102400, shared_per_block = 101376, registers_per_sm = 65536, threads_per_sm = 1536, l2_bytes = 3145728, bandwidth_gbs = 360, clock_mhz = 1777, f32_gflops = 12740, tf32_gflops = 12740, bf16_gflops = 25500, tensor_cores = mma_sync>} {
}

// -----

// expected-error @+1 {{'nova.target' belongs on a module, not on 'func.func'}}
func.func @f() attributes {nova.target = #nova.target<"h200", sm = 90, sms = 132, shared_per_sm = 233472, shared_per_block = 232448, registers_per_sm = 65536, threads_per_sm = 2048, l2_bytes = 52428800, bandwidth_gbs = 4800, clock_mhz = 1980, f32_gflops = 67000, tf32_gflops = 494700, bf16_gflops = 989400, tensor_cores = wgmma>} {
  return
}

// -----

// expected-error @+1 {{'nova.target' must be a #nova.target, got "h200"}}
module attributes {nova.target = "h200"} {
}

// -----

// expected-error @+1 {{#nova.target<"x">: shared_per_block (300000) exceeds shared_per_sm (233472)}}
module attributes {nova.target = #nova.target<"x", sm = 90, sms = 132, shared_per_sm = 233472, shared_per_block = 300000, registers_per_sm = 65536, threads_per_sm = 2048, l2_bytes = 52428800, bandwidth_gbs = 4800, clock_mhz = 1980, f32_gflops = 67000, tf32_gflops = 494700, bf16_gflops = 989400, tensor_cores = wgmma>} {
}

// -----

// expected-error @+1 {{#nova.target<"x">: sms must be positive, got 0}}
module attributes {nova.target = #nova.target<"x", sm = 80, sms = 0, shared_per_sm = 167936, shared_per_block = 166912, registers_per_sm = 65536, threads_per_sm = 2048, l2_bytes = 41943040, bandwidth_gbs = 2039, clock_mhz = 1410, f32_gflops = 19500, tf32_gflops = 156000, bf16_gflops = 312000, tensor_cores = mma_sync>} {
}
