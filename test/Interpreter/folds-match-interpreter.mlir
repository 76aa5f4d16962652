// Every folding case runs through the interpreter before and after
// --canonicalize: the folders and the interpreter share nova::scalar, so the
// canonicalized module must compute the same bits (cmp of the safetensors
// outputs; --compare with zero tolerance says which output differs).
//
// RUN: nova-opt %s --canonicalize -o %t.mlir
// RUN: FileCheck %s --input-file %t.mlir --check-prefix=FOLDED
//
// RUN: nova-run %s --entry int64 -o %t.int64.before --print | FileCheck %s --check-prefix=I64
// RUN: nova-run %t.mlir --entry int64 -o %t.int64.after --compare %t.int64.before --rtol 0 --atol 0
// RUN: cmp %t.int64.before %t.int64.after
//
// RUN: nova-run %s --entry int32 -o %t.int32.before --print | FileCheck %s --check-prefix=I32
// RUN: nova-run %t.mlir --entry int32 -o %t.int32.after --compare %t.int32.before --rtol 0 --atol 0
// RUN: cmp %t.int32.before %t.int32.after
//
// RUN: nova-run %s --entry casts -o %t.casts.before --print | FileCheck %s --check-prefix=CAST
// RUN: nova-run %t.mlir --entry casts -o %t.casts.after --compare %t.casts.before --rtol 0 --atol 0
// RUN: cmp %t.casts.before %t.casts.after
//
// RUN: nova-run %s --entry floats -o %t.floats.before --print | FileCheck %s --check-prefix=FLT
// RUN: nova-run %t.mlir --entry floats -o %t.floats.after --compare %t.floats.before --rtol 0 --atol 0
// RUN: cmp %t.floats.before %t.floats.after
//
// RUN: nova-run %s --entry narrow -o %t.narrow.before --print | FileCheck %s --check-prefix=NARROW
// RUN: nova-run %t.mlir --entry narrow -o %t.narrow.after --compare %t.narrow.before --rtol 0 --atol 0
// RUN: cmp %t.narrow.before %t.narrow.after
//
// RUN: nova-run %s --entry nans -o %t.nans.before
// RUN: nova-run %t.mlir --entry nans -o %t.nans.after --compare %t.nans.before --rtol 0 --atol 0
// RUN: cmp %t.nans.before %t.nans.after
//
// RUN: nova-run %s --entry unary -o %t.unary.before
// RUN: nova-run %t.mlir --entry unary -o %t.unary.after --compare %t.unary.before --rtol 0 --atol 0
// RUN: cmp %t.unary.before %t.unary.after
//
// RUN: nova-run %s --entry identities --random-inputs 7 -o %t.id.before --print | FileCheck %s --check-prefix=ID
// RUN: nova-run %t.mlir --entry identities --random-inputs 7 -o %t.id.after --compare %t.id.before --rtol 0 --atol 0
// RUN: cmp %t.id.before %t.id.after
//
// RUN: nova-run %s --entry movement --random-inputs 3 -o %t.move.before
// RUN: nova-run %t.mlir --entry movement --random-inputs 3 -o %t.move.after --compare %t.move.before --rtol 0 --atol 0
// RUN: cmp %t.move.before %t.move.after

// Every op of the constant-only functions folds away.
// FOLDED-LABEL: func.func @int64
// FOLDED-NOT: nova.{{[a-bd-z_]+|cast|cmp|concat}}{{ }}
// FOLDED: return
// FOLDED-LABEL: func.func @int32
// FOLDED-NOT: nova.{{[a-bd-z_]+|cast|cmp|concat}}{{ }}
// FOLDED: return
// FOLDED-LABEL: func.func @casts
// FOLDED-NOT: nova.{{[a-bd-z_]+|cast|cmp|concat}}{{ }}
// FOLDED: return
// FOLDED-LABEL: func.func @floats
// FOLDED-NOT: nova.{{[a-bd-z_]+|cast|cmp|concat}}{{ }}
// FOLDED: return
// FOLDED-LABEL: func.func @narrow
// FOLDED-NOT: nova.{{[a-bd-z_]+|cast|cmp|concat}}{{ }}
// FOLDED: return
// FOLDED-LABEL: func.func @nans
// FOLDED-NOT: nova.{{[a-bd-z_]+|cast|cmp|concat}}{{ }}
// FOLDED: return
// FOLDED-LABEL: func.func @unary
// FOLDED-NOT: nova.{{[a-bd-z_]+|cast|cmp|concat}}{{ }}
// FOLDED: return

// Integers wrap as two's complement; INT64_MIN / -1 wraps to INT64_MIN.
// I64: result0 = tensor<i64> [-9223372036854775808]
// I64: result1 = tensor<i64> [-9223372036854775808]
// I64: result2 = tensor<i64> [9223372036854775807]
// I64: result3 = tensor<i64> [-2]
// I64: result4 = tensor<2xi64> [-9223372036854775808, -9223372036854775808]
// I64: result5 = tensor<4xi64> [-3, -3, 3, 0]
// I64: result6 = tensor<2xi64> [-1, -1]
// I64: result7 = tensor<2xi64> [0, 5]
// I64: result8 = tensor<2xi1> [1, 0]
func.func @int64() -> (tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>, tensor<2xi64>, tensor<4xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi1>) {
  %min = nova.constant dense<-9223372036854775808> : tensor<i64>
  %max = nova.constant dense<9223372036854775807> : tensor<i64>
  %m1 = nova.constant dense<-1> : tensor<i64>
  %one = nova.constant dense<1> : tensor<i64>
  %two = nova.constant dense<2> : tensor<i64>
  %q = nova.div %min, %m1 : tensor<i64>, tensor<i64>
  %s = nova.add %max, %one : tensor<i64>, tensor<i64>
  %d = nova.sub %min, %one : tensor<i64>, tensor<i64>
  %p = nova.mul %max, %two : tensor<i64>, tensor<i64>
  %mins = nova.constant dense<[-9223372036854775808, -9223372036854775808]> : tensor<2xi64>
  %n = nova.neg %mins : tensor<2xi64>
  %a = nova.abs %n : tensor<2xi64>
  %num = nova.constant dense<[-7, 7, -7, 0]> : tensor<4xi64>
  %den = nova.constant dense<[2, -2, -2, 5]> : tensor<4xi64>
  %qs = nova.div %num, %den : tensor<4xi64>, tensor<4xi64>
  %ext = nova.constant dense<[-9223372036854775808, 9223372036854775807]> : tensor<2xi64>
  %rev = nova.constant dense<[9223372036854775807, -9223372036854775808]> : tensor<2xi64>
  %mx = nova.max %ext, %rev : tensor<2xi64>, tensor<2xi64>
  %mn = nova.min %ext, %rev : tensor<2xi64>, tensor<2xi64>
  %span = nova.sub %mx, %mn : tensor<2xi64>, tensor<2xi64>
  %five = nova.constant dense<[-5, 5]> : tensor<2xi64>
  %rl = nova.relu %five : tensor<2xi64>
  %lt = nova.cmp lt, %ext, %rev : tensor<2xi64>, tensor<2xi64>
  return %q, %s, %d, %p, %a, %qs, %span, %rl, %lt : tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>, tensor<2xi64>, tensor<4xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi1>
}

// i32 wraps at 32 bits, not at 64.
// I32: result0 = tensor<3xi32> [-2147483648, -2147483647, 65537]
// I32: result1 = tensor<3xi32> [2147483646, 2147483647, 65535]
// I32: result2 = tensor<3xi32> [2, -2147483648, 0]
// I32: result3 = tensor<3xi32> [-1073741823, -2147483648, 1]
// I32: result4 = tensor<3xi32> [-2147483647, -2147483648, -65536]
// I32: result5 = tensor<3xi32> [2147483647, -2147483648, 65536]
func.func @int32() -> (tensor<3xi32>, tensor<3xi32>, tensor<3xi32>, tensor<3xi32>, tensor<3xi32>, tensor<3xi32>) {
  %a = nova.constant dense<[2147483647, -2147483648, 65536]> : tensor<3xi32>
  %b = nova.constant dense<[1, 1, 1]> : tensor<3xi32>
  %c = nova.constant dense<[-2, -1, 65536]> : tensor<3xi32>
  %sum = nova.add %a, %b : tensor<3xi32>, tensor<3xi32>
  %diff = nova.sub %a, %b : tensor<3xi32>, tensor<3xi32>
  %prod = nova.mul %a, %c : tensor<3xi32>, tensor<3xi32>
  %quot = nova.div %a, %c : tensor<3xi32>, tensor<3xi32>
  %neg = nova.neg %a : tensor<3xi32>
  %abs = nova.abs %a : tensor<3xi32>
  return %sum, %diff, %prod, %quot, %neg, %abs : tensor<3xi32>, tensor<3xi32>, tensor<3xi32>, tensor<3xi32>, tensor<3xi32>, tensor<3xi32>
}

// Float to integer truncates toward zero and saturates (the folder used to
// wrap 1e10 to 1410065408), NaN gives 0; to i1
// is x != 0 (NaN included); i64 to i32 wraps; i64 to f32 rounds once.
// CAST: result0 = tensor<7xi32> [2147483647, -2147483648, 2, -2, 0, 2147483520, 2147483647]
// CAST: result1 = tensor<4xi64> [9223372036854775807, -9223372036854775808, 9223372036854775807, -9223372036854775808]
// CAST: result2 = tensor<4xi1> [0, 0, 1, 1]
// CAST: result3 = tensor<3xi32> [1, 2147483647, -2147483648]
// CAST: result4 = tensor<2xf32> [1.80144e+16, 1.67772e+07]
// CAST: result5 = tensor<3xf32> [1, 0, 1]
// CAST: result6 = tensor<3xi32> [0, 2147483647, -2147483648]
// CAST: result7 = tensor<3xi64> [0, 9223372036854775807, -9223372036854775808]
func.func @casts() -> (tensor<7xi32>, tensor<4xi64>, tensor<4xi1>, tensor<3xi32>, tensor<2xf32>, tensor<3xf32>, tensor<3xi32>, tensor<3xi64>) {
  %f = nova.constant dense<[1.0e10, -1.0e10, 2.9, -2.9, -0.0, 2147483520.0, 2147483648.0]> : tensor<7xf32>
  %r0 = nova.cast %f : tensor<7xf32> to tensor<7xi32>
  %g = nova.constant dense<[1.0e19, -1.0e19, 9.2233720368547758e18, -9.2233720368547758e18]> : tensor<4xf32>
  %r1 = nova.cast %g : tensor<4xf32> to tensor<4xi64>
  %nonfinite = nova.constant dense<[0x7FC00000, 0x7F800000, 0xFF800000]> : tensor<3xf32>
  %r6 = nova.cast %nonfinite : tensor<3xf32> to tensor<3xi32>
  %r7 = nova.cast %nonfinite : tensor<3xf32> to tensor<3xi64>
  %h = nova.constant dense<[0.0, -0.0, 0x7FC00000, 0.5]> : tensor<4xf32>
  %r2 = nova.cast %h : tensor<4xf32> to tensor<4xi1>
  %i = nova.constant dense<[4294967297, -2147483649, 2147483648]> : tensor<3xi64>
  %r3 = nova.cast %i : tensor<3xi64> to tensor<3xi32>
  // 2^54 + 2^30 + 1: through double it would round to 2^54 + 2^30, a tie
  // that f32 then breaks to 2^54; once, it rounds up to 2^54 + 2^31.
  %j = nova.constant dense<[18014399583223809, 16777217]> : tensor<2xi64>
  %r4 = nova.cast %j : tensor<2xi64> to tensor<2xf32>
  %k = nova.constant dense<[-3, 0, 7]> : tensor<3xi32>
  %kb = nova.cast %k : tensor<3xi32> to tensor<3xi1>
  %r5 = nova.cast %kb : tensor<3xi1> to tensor<3xf32>
  return %r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7 : tensor<7xi32>, tensor<4xi64>, tensor<4xi1>, tensor<3xi32>, tensor<2xf32>, tensor<3xf32>, tensor<3xi32>, tensor<3xi64>
}

// Signed zeros, NaN and infinities: max(-0, 0) is 0 and min is -0 in either
// order; NaN propagates through max and min; 1 / -0 is -inf.
// FLT: result0 = tensor<2xf32> [-0, 0]
// FLT: result1 = tensor<2xf32> [0, 0]
// FLT: result2 = tensor<2xf32> [-0, -0]
// FLT: result3 = tensor<2xf32> [nan, nan]
// FLT: result4 = tensor<2xf32> [nan, nan]
// FLT: result5 = tensor<3xf32> [-inf, {{-?}}nan, inf]
// FLT: result6 = tensor<2xf32> [{{-?}}nan, 1.41421]
// FLT: result7 = tensor<4xi1> [0, 0, 1, 0]
// FLT: result8 = tensor<4xi1> [1, 1, 0, 1]
// FLT: result9 = tensor<2xf32> [1, 2]
func.func @floats() -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<3xf32>, tensor<2xf32>, tensor<4xi1>, tensor<4xi1>, tensor<2xf32>) {
  %nz = nova.constant dense<-0.0> : tensor<f32>
  %zs = nova.constant dense<[-0.0, 0.0]> : tensor<2xf32>
  %sum = nova.add %zs, %nz : tensor<2xf32>, tensor<f32>
  %zr = nova.constant dense<[0.0, -0.0]> : tensor<2xf32>
  %mx1 = nova.max %zs, %zr : tensor<2xf32>, tensor<2xf32>
  %mn1 = nova.min %zs, %zr : tensor<2xf32>, tensor<2xf32>
  %nan = nova.constant dense<[0x7FC00000, 1.0]> : tensor<2xf32>
  %one = nova.constant dense<[1.0, 0x7FC00000]> : tensor<2xf32>
  %mx2 = nova.max %nan, %one : tensor<2xf32>, tensor<2xf32>
  %mn2 = nova.min %nan, %one : tensor<2xf32>, tensor<2xf32>
  %num = nova.constant dense<[1.0, 0.0, 1.0]> : tensor<3xf32>
  %den = nova.constant dense<[-0.0, 0.0, 0.0]> : tensor<3xf32>
  %q = nova.div %num, %den : tensor<3xf32>, tensor<3xf32>
  %base = nova.constant dense<[-8.0, 2.0]> : tensor<2xf32>
  %exp = nova.constant dense<[0.333333343, 0.5]> : tensor<2xf32>
  %pw = nova.pow %base, %exp : tensor<2xf32>, tensor<2xf32>
  %l = nova.constant dense<[0x7FC00000, 0x7FC00000, -0.0, 1.0]> : tensor<4xf32>
  %r = nova.constant dense<[0x7FC00000, 1.0, 0.0, 2.0]> : tensor<4xf32>
  %eq = nova.cmp eq, %l, %r : tensor<4xf32>, tensor<4xf32>
  %ne = nova.cmp ne, %l, %r : tensor<4xf32>, tensor<4xf32>
  %t = nova.constant dense<true> : tensor<i1>
  %a = nova.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %b = nova.constant dense<[3.0, 4.0]> : tensor<2xf32>
  %sel = nova.select %t, %a, %b : tensor<i1>, tensor<2xf32>, tensor<2xf32>
  return %sum, %mx1, %mn1, %mx2, %mn2, %q, %pw, %eq, %ne, %sel : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<3xf32>, tensor<2xf32>, tensor<4xi1>, tensor<4xi1>, tensor<2xf32>
}

// bf16 and f16 results round to nearest even from the exact double result,
// as the interpreter rounds them: 1 + 2^-8 ties to 1 in bf16, 65504 + 16
// ties to infinity in f16, 2^-25 ties to 0 in f16 and 3 * 2^-25 rounds to
// the subnormal 2^-23.
// NARROW: result0 = tensor<2xbf16> [1, 1.01562]
// NARROW: result1 = tensor<3xf16> [inf, 65504, -65504]
// NARROW: result2 = tensor<2xf16> [0, 1.19209e-07]
// NARROW: result3 = tensor<2xbf16> [1, inf]
func.func @narrow() -> (tensor<2xbf16>, tensor<3xf16>, tensor<2xf16>, tensor<2xbf16>) {
  %x = nova.constant dense<[1.0, 1.0078125]> : tensor<2xbf16>
  %tiny = nova.constant dense<0.00390625> : tensor<bf16>
  %r0 = nova.add %x, %tiny : tensor<2xbf16>, tensor<bf16>
  %h = nova.constant dense<[65504.0, 65504.0, -65504.0]> : tensor<3xf16>
  %d = nova.constant dense<[16.0, 15.0, -15.0]> : tensor<3xf16>
  %r1 = nova.add %h, %d : tensor<3xf16>, tensor<3xf16>
  %s = nova.constant dense<[5.96046448e-08, 1.78813934e-07]> : tensor<2xf16>
  %half = nova.constant dense<0.5> : tensor<f16>
  %r2 = nova.mul %s, %half : tensor<2xf16>, tensor<f16>
  %f = nova.constant dense<[1.00390625, 3.4e38]> : tensor<2xf32>
  %r3 = nova.cast %f : tensor<2xf32> to tensor<2xbf16>
  return %r0, %r1, %r2, %r3 : tensor<2xbf16>, tensor<3xf16>, tensor<2xf16>, tensor<2xbf16>
}

// NaNs of both signs meet in commutative ops; which operand's NaN survives
// is up to the compiler, so every computed NaN is the positive quiet NaN.
func.func @nans() -> (tensor<2xbf16>, tensor<2xf32>, tensor<2xf16>) {
  %z = nova.constant dense<[0.0, 1.0]> : tensor<2xbf16>
  %nz = nova.neg %z : tensor<2xbf16>
  %q = nova.div %nz, %z : tensor<2xbf16>, tensor<2xbf16>
  %s = nova.sigmoid %q : tensor<2xbf16>
  %p = nova.mul %q, %s : tensor<2xbf16>, tensor<2xbf16>
  %zf = nova.constant dense<[0.0, 0x7FC00000]> : tensor<2xf32>
  %qf = nova.div %zf, %zf : tensor<2xf32>, tensor<2xf32>
  %nf = nova.neg %qf : tensor<2xf32>
  %pf = nova.add %nf, %qf : tensor<2xf32>, tensor<2xf32>
  %zh = nova.constant dense<[0.0, -0.0]> : tensor<2xf16>
  %qh = nova.div %zh, %zh : tensor<2xf16>, tensor<2xf16>
  %nh = nova.neg %qh : tensor<2xf16>
  %ph = nova.mul %nh, %qh : tensor<2xf16>, tensor<2xf16>
  return %p, %pf, %ph : tensor<2xbf16>, tensor<2xf32>, tensor<2xf16>
}

// The float unary folds, in f32 and bf16, at ordinary and edge inputs.
func.func @unary() -> (tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xbf16>, tensor<6xbf16>, tensor<6xf16>) {
  %x = nova.constant dense<[0.5, -0.0, 2.0, -3.25, 0x7F800000, 0x7FC00000]> : tensor<6xf32>
  %r0 = nova.exp %x : tensor<6xf32>
  %r1 = nova.log %x : tensor<6xf32>
  %r2 = nova.tanh %x : tensor<6xf32>
  %r3 = nova.sqrt %x : tensor<6xf32>
  %r4 = nova.rsqrt %x : tensor<6xf32>
  %r5 = nova.sigmoid %x : tensor<6xf32>
  %r6 = nova.erf %x : tensor<6xf32>
  %r7 = nova.gelu erf %x : tensor<6xf32>
  %r8 = nova.gelu tanh %x : tensor<6xf32>
  %r9 = nova.reciprocal %x : tensor<6xf32>
  %ng = nova.neg %x : tensor<6xf32>
  %ab = nova.abs %ng : tensor<6xf32>
  %r10 = nova.relu %ab : tensor<6xf32>
  %b = nova.cast %x : tensor<6xf32> to tensor<6xbf16>
  %r11 = nova.exp %b : tensor<6xbf16>
  %r12 = nova.gelu tanh %b : tensor<6xbf16>
  %h = nova.cast %x : tensor<6xf32> to tensor<6xf16>
  %r13 = nova.sigmoid %h : tensor<6xf16>
  return %r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8, %r9, %r10, %r11, %r12, %r13 : tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xbf16>, tensor<6xbf16>, tensor<6xf16>
}

// Identities fold only where they are exact for every input: x + -0 and
// x - 0 are x, but x + 0 is +0 for x = -0, so it stays (1 / result tells).
// FOLDED-LABEL: func.func @identities
// FOLDED-SAME: (%[[X:.*]]: tensor<4xf32>, %[[I:.*]]: tensor<4xi32>)
// FOLDED: %[[NZ:.*]] = nova.mul
// FOLDED: %[[KEEP:.*]] = nova.add %[[NZ]], %{{.*}} : tensor<4xf32>, tensor<f32>
// FOLDED-NOT: nova.add
// FOLDED-NOT: nova.sub
// FOLDED-NOT: nova.div
// FOLDED-NOT: nova.pow
// FOLDED: return
// ID: result0 = tensor<4xf32> [inf, inf, inf, inf]
// ID: result1 = tensor<4xf32> [-inf, -inf, -inf, -inf]
// ID: result2 = tensor<4xf32> [-inf, -inf, -inf, -inf]
func.func @identities(%x: tensor<4xf32>, %i: tensor<4xi32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xi32>) {
  %mz = nova.constant dense<-0.0> : tensor<f32>
  %pz = nova.constant dense<0.0> : tensor<f32>
  %one = nova.constant dense<1.0> : tensor<f32>
  %ax = nova.abs %x : tensor<4xf32>
  %nz = nova.mul %ax, %mz : tensor<4xf32>, tensor<f32>
  %plus0 = nova.add %nz, %pz : tensor<4xf32>, tensor<f32>
  %r0 = nova.reciprocal %plus0 : tensor<4xf32>
  %plusm0 = nova.add %mz, %nz : tensor<f32>, tensor<4xf32>
  %r1 = nova.reciprocal %plusm0 : tensor<4xf32>
  %minus0 = nova.sub %nz, %pz : tensor<4xf32>, tensor<f32>
  %r2 = nova.reciprocal %minus0 : tensor<4xf32>
  %m = nova.mul %one, %x : tensor<f32>, tensor<4xf32>
  %d = nova.div %m, %one : tensor<4xf32>, tensor<f32>
  %r3 = nova.pow %d, %one : tensor<4xf32>, tensor<f32>
  %i1 = nova.constant dense<false> : tensor<i1>
  %r4 = nova.select %i1, %x, %r3 : tensor<i1>, tensor<4xf32>, tensor<4xf32>
  %iz = nova.constant dense<0> : tensor<i32>
  %r5 = nova.add %i, %iz : tensor<4xi32>, tensor<i32>
  return %r0, %r1, %r2, %r3, %r4, %r5 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xi32>
}

// Structural folds: producers chased, identities dropped.
// FOLDED-LABEL: func.func @movement
// FOLDED-COUNT-1: nova.transpose
// FOLDED-COUNT-1: nova.reshape
// FOLDED-COUNT-1: nova.broadcast
// FOLDED-NOT: nova.slice
// FOLDED-NOT: nova.concat
// FOLDED-NOT: nova.cast
// FOLDED: return
func.func @movement(%x: tensor<2x3x4xf32>) -> (tensor<2x3x4xf32>, tensor<3x4x2xf32>, tensor<24xf32>, tensor<5x2x3x4xf32>, tensor<2x3x4xf32>) {
  %t1 = nova.transpose %x [1, 2, 0] : tensor<2x3x4xf32> -> tensor<3x4x2xf32>
  %t2 = nova.transpose %t1 [2, 0, 1] : tensor<3x4x2xf32> -> tensor<2x3x4xf32>
  %t3 = nova.transpose %t1 [1, 2, 0] : tensor<3x4x2xf32> -> tensor<4x2x3xf32>
  %t4 = nova.transpose %t3 [1, 2, 0] : tensor<4x2x3xf32> -> tensor<2x3x4xf32>
  %t5 = nova.transpose %t4 [1, 2, 0] : tensor<2x3x4xf32> -> tensor<3x4x2xf32>
  %r1 = nova.reshape %x : tensor<2x3x4xf32> -> tensor<6x4xf32>
  %r2 = nova.reshape %r1 : tensor<6x4xf32> -> tensor<24xf32>
  %b1 = nova.broadcast %x : tensor<2x3x4xf32> -> tensor<1x2x3x4xf32>
  %b2 = nova.broadcast %b1 : tensor<1x2x3x4xf32> -> tensor<5x2x3x4xf32>
  %s = nova.slice %t2 starts [0, 0, 0] limits [2, 3, 4] strides [1, 1, 1] : tensor<2x3x4xf32> -> tensor<2x3x4xf32>
  %c = nova.concat %s dim 0 : tensor<2x3x4xf32> -> tensor<2x3x4xf32>
  %k = nova.cast %c : tensor<2x3x4xf32> to tensor<2x3x4xf32>
  return %k, %t5, %r2, %b2, %t4 : tensor<2x3x4xf32>, tensor<3x4x2xf32>, tensor<24xf32>, tensor<5x2x3x4xf32>, tensor<2x3x4xf32>
}
