//===- ContractsTest.cpp - family contracts as the configurator sees them -===//
//
// A fusion group's contract turns into the configurator's problem (the
// shared description of a kernel), and its structural hash does not depend
// on the context that holds it.
//
//===----------------------------------------------------------------------===//

#include "nova/Dialect/NovaTile/IR/Contracts.h"
#include "nova/Dialect/NovaTile/IR/StructuralHash.h"
#include "nova/InitAllDialects.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace mlir::nova_tile;

namespace {
/// A context with the Nova dialects and the module parsed into it.
class Parsed {
public:
  Parsed() {
    DialectRegistry registry;
    mlir::nova::registerAllDialects(registry);
    ctx.appendDialectRegistry(registry);
  }

  /// The last group of `source` (a module), or null when it does not parse
  /// and verify.
  FusionGroupOpInterface parse(StringRef source) {
    module = parseSourceString<ModuleOp>(source, &ctx);
    if (!module)
      return nullptr;
    FusionGroupOpInterface group;
    module->walk([&](FusionGroupOpInterface g) { group = g; });
    return group;
  }

private:
  MLIRContext ctx;
  OwningOpRef<ModuleOp> module;
};

class ContractsTest : public ::testing::Test {
protected:
  FusionGroupOpInterface parse(StringRef source) {
    return parsed.parse(source);
  }

  ::nova::Problem problem(StringRef source) {
    // A failure here must not go on to dereference what did not parse.
    FusionGroupOpInterface group = parse(source);
    if (!group) {
      ADD_FAILURE() << "the source has no fusion group that verifies";
      return {};
    }
    FailureOr<Contract> contract = computeContract(group);
    if (failed(contract)) {
      ADD_FAILURE() << "the fusion group has no contract";
      return {};
    }
    return toProblem(*contract);
  }

  Parsed parsed;
};

constexpr const char *kMatmul = R"mlir(
func.func @f(%x: tensor<2x4x8xf32>, %w: tensor<16x8xbf16>, %b: tensor<16xf32>) -> tensor<2x4x16xf32> {
  %y = nova_tile.fusion matmul (%x, %w, %b) : (tensor<2x4x8xf32>, tensor<16x8xbf16>, tensor<16xf32>) -> tensor<2x4x16xf32> {
  ^bb0(%xa: tensor<2x4x8xf32>, %wa: tensor<16x8xbf16>, %ba: tensor<16xf32>):
    %xh = nova.cast %xa : tensor<2x4x8xf32> to tensor<2x4x8xbf16>
    %p = nova.matmul %xh, %wa transpose_rhs : tensor<2x4x8xbf16>, tensor<16x8xbf16> -> tensor<2x4x16xbf16>
    %pf = nova.cast %p : tensor<2x4x16xbf16> to tensor<2x4x16xf32>
    %o = nova.add %pf, %ba : tensor<2x4x16xf32>, tensor<16xf32>
    nova_tile.yield %o : tensor<2x4x16xf32>
  }
  return %y : tensor<2x4x16xf32>
}
)mlir";

TEST_F(ContractsTest, MatmulGroupIsAConfiguratorMatmul) {
  ::nova::Problem p = problem(kMatmul);
  EXPECT_EQ(p.family, ::nova::KernelFamily::Matmul);
  EXPECT_EQ(p.dtype, ::nova::DType::BF16);
  EXPECT_EQ(p.batch, 2);
  EXPECT_EQ(p.m, 4);
  EXPECT_EQ(p.n, 16);
  EXPECT_EQ(p.k, 8);
  auto h200 = ::nova::DeviceDescriptor::lookup("h200");
  ASSERT_TRUE(h200);
  ::nova::Schedule s = ::nova::Configurator(*h200).choose(p);
  EXPECT_EQ(s.family, ::nova::KernelFamily::Matmul);
}

TEST_F(ContractsTest, MatmulOperandsAreTransposedWhereStoredSo) {
  FailureOr<Contract> c = computeContract(parse(kMatmul));
  ASSERT_TRUE(succeeded(c));
  ASSERT_EQ(c->inputs.size(), 3u);
  EXPECT_EQ(c->inputs[0].kind, AccessKind::MatmulLhs);
  EXPECT_FALSE(c->inputs[0].transposed);
  EXPECT_EQ(c->inputs[1].kind, AccessKind::MatmulRhs);
  EXPECT_TRUE(c->inputs[1].transposed);
  EXPECT_EQ(c->inputs[2].kind, AccessKind::Broadcast);
  EXPECT_EQ(c->inputs[2].dims, (SmallVector<int64_t>{0, 1}));
}

TEST_F(ContractsTest, RowReductionIsRowsByCols) {
  ::nova::Problem p = problem(R"mlir(
func.func @f(%x: tensor<2x3x8xf32>) -> tensor<2x3x8xf32> {
  %y = nova_tile.fusion row_reduction (%x) : (tensor<2x3x8xf32>) -> tensor<2x3x8xf32> {
  ^bb0(%a: tensor<2x3x8xf32>):
    %s = nova.softmax %a dim 2 : tensor<2x3x8xf32>
    nova_tile.yield %s : tensor<2x3x8xf32>
  }
  return %y : tensor<2x3x8xf32>
}
)mlir");
  EXPECT_EQ(p.family, ::nova::KernelFamily::RowReduction);
  EXPECT_EQ(p.m, 6);
  EXPECT_EQ(p.n, 8);
}

TEST_F(ContractsTest, PointwiseCountsStreamedBytesNotBroadcasts) {
  // x (f32, streamed) + b (broadcast, cached) -> y (bf16): 4 + 2 bytes.
  ::nova::Problem p = problem(R"mlir(
func.func @f(%x: tensor<64x32xf32>, %b: tensor<32xf32>) -> tensor<64x32xbf16> {
  %y = nova_tile.fusion pointwise (%x, %b) : (tensor<64x32xf32>, tensor<32xf32>) -> tensor<64x32xbf16> {
  ^bb0(%xa: tensor<64x32xf32>, %ba: tensor<32xf32>):
    %s = nova.add %xa, %ba : tensor<64x32xf32>, tensor<32xf32>
    %h = nova.cast %s : tensor<64x32xf32> to tensor<64x32xbf16>
    nova_tile.yield %h : tensor<64x32xbf16>
  }
  return %y : tensor<64x32xbf16>
}
)mlir");
  EXPECT_EQ(p.family, ::nova::KernelFamily::Pointwise);
  EXPECT_EQ(p.m, 64 * 32);
  EXPECT_EQ(p.bytesPerElement, 6);
}

TEST_F(ContractsTest, AttentionIsBatchHeadsByTByTByD) {
  ::nova::Problem p = problem(R"mlir(
func.func @f(%q: tensor<2x3x16x8xbf16>) -> tensor<2x3x16x8xbf16> {
  %y = nova_tile.fusion attention_forward (%q, %q, %q) : (tensor<2x3x16x8xbf16>, tensor<2x3x16x8xbf16>, tensor<2x3x16x8xbf16>) -> tensor<2x3x16x8xbf16> {
  ^bb0(%a: tensor<2x3x16x8xbf16>, %b: tensor<2x3x16x8xbf16>, %c: tensor<2x3x16x8xbf16>):
    %o = nova.attention %a, %b, %c scale 0.35 causal : tensor<2x3x16x8xbf16>, tensor<2x3x16x8xbf16>, tensor<2x3x16x8xbf16> -> tensor<2x3x16x8xbf16>
    nova_tile.yield %o : tensor<2x3x16x8xbf16>
  }
  return %y : tensor<2x3x16x8xbf16>
}
)mlir");
  EXPECT_EQ(p.family, ::nova::KernelFamily::AttentionForward);
  EXPECT_TRUE(p.causal);
  EXPECT_EQ(p.batch, 6);
  EXPECT_EQ(p.m, 16);
  EXPECT_EQ(p.n, 16);
  EXPECT_EQ(p.k, 8);
}

TEST_F(ContractsTest, ColumnReductionIsRowsByCols) {
  ::nova::Problem p = problem(R"mlir(
func.func @f(%d: tensor<2x3x8xf32>) -> tensor<8xf32> {
  %y = nova_tile.fusion column_reduction (%d) : (tensor<2x3x8xf32>) -> tensor<8xf32> {
  ^bb0(%a: tensor<2x3x8xf32>):
    %s = nova.reduce sum %a dims [0, 1] : tensor<2x3x8xf32> -> tensor<8xf32>
    nova_tile.yield %s : tensor<8xf32>
  }
  return %y : tensor<8xf32>
}
)mlir");
  EXPECT_EQ(p.family, ::nova::KernelFamily::ColumnReduction);
  EXPECT_EQ(p.m, 6);
  EXPECT_EQ(p.n, 8);
}

TEST_F(ContractsTest, OptimizerIsOnePointwiseProblemOverEveryElement) {
  // Two tensors of 12 and 4 elements, f32: each element's param, grad, m
  // and v are read and its new param written, 5 x 4 bytes.
  ::nova::Problem p = problem(R"mlir(
func.func @f(%p: tensor<3x4xf32>, %q: tensor<4xf32>, %s: tensor<i64>, %r: tensor<f32>) -> (tensor<3x4xf32>, tensor<4xf32>) {
  %y:2 = nova_tile.fusion optimizer (%p, %p, %p, %p, %q, %q, %q, %q, %s, %r)
      : (tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<i64>, tensor<f32>)
      -> (tensor<3x4xf32>, tensor<4xf32>) {
  ^bb0(%a: tensor<3x4xf32>, %b: tensor<3x4xf32>, %c: tensor<3x4xf32>, %d: tensor<3x4xf32>,
       %e: tensor<4xf32>, %f: tensor<4xf32>, %g: tensor<4xf32>, %h: tensor<4xf32>, %t: tensor<i64>, %l: tensor<f32>):
    %u:3 = nova.adamw %a, %b, %c, %d, %t, %l beta1 0.9 beta2 0.999 eps 1.0e-8 weight_decay 0.0 : tensor<3x4xf32>, tensor<i64>
    %w:3 = nova.adamw %e, %f, %g, %h, %t, %l beta1 0.9 beta2 0.999 eps 1.0e-8 weight_decay 0.0 : tensor<4xf32>, tensor<i64>
    nova_tile.yield %u#0, %w#0 : tensor<3x4xf32>, tensor<4xf32>
  }
  return %y#0, %y#1 : tensor<3x4xf32>, tensor<4xf32>
}
)mlir");
  EXPECT_EQ(p.family, ::nova::KernelFamily::Pointwise);
  EXPECT_EQ(p.m, 16);
  EXPECT_EQ(p.bytesPerElement, 5 * 4);
}

TEST_F(ContractsTest, GatherIsIndicesByWidthOfATable) {
  ::nova::Problem p = problem(R"mlir(
func.func @f(%t: tensor<50x16xbf16>, %i: tensor<2x4xi32>) -> tensor<2x4x16xbf16> {
  %y = nova_tile.fusion gather (%t, %i) : (tensor<50x16xbf16>, tensor<2x4xi32>) -> tensor<2x4x16xbf16> {
  ^bb0(%a: tensor<50x16xbf16>, %b: tensor<2x4xi32>):
    %g = nova.gather %a[%b] axis 0 : tensor<50x16xbf16>, tensor<2x4xi32> -> tensor<2x4x16xbf16>
    nova_tile.yield %g : tensor<2x4x16xbf16>
  }
  return %y : tensor<2x4x16xbf16>
}
)mlir");
  EXPECT_EQ(p.family, ::nova::KernelFamily::Gather);
  EXPECT_EQ(p.dtype, ::nova::DType::BF16);
  EXPECT_EQ(p.m, 8);
  EXPECT_EQ(p.n, 16);
  EXPECT_EQ(p.k, 50);
}

// A layer's backward as one grouped GEMM: dX = dY.W^T (16x4x8, K 16),
// dW = X^T.dY (8x16, K 16) and the bias gradient (16 columns of 16 rows).
constexpr const char *kGrouped = R"mlir(
func.func @f(%dy: tensor<4x4x16xbf16>, %w: tensor<8x16xbf16>, %x: tensor<4x4x8xbf16>, %dyf: tensor<4x4x16xf32>) -> (tensor<4x4x8xbf16>, tensor<8x16xbf16>, tensor<16xf32>) {
  %r:3 = nova_tile.fusion matmul (%dy, %w, %x, %dyf) : (tensor<4x4x16xbf16>, tensor<8x16xbf16>, tensor<4x4x8xbf16>, tensor<4x4x16xf32>) -> (tensor<4x4x8xbf16>, tensor<8x16xbf16>, tensor<16xf32>) {
  ^bb0(%a: tensor<4x4x16xbf16>, %b: tensor<8x16xbf16>, %c: tensor<4x4x8xbf16>, %d: tensor<4x4x16xf32>):
    %dx = nova.matmul %a, %b transpose_rhs : tensor<4x4x16xbf16>, tensor<8x16xbf16> -> tensor<4x4x8xbf16>
    %cr = nova.reshape %c : tensor<4x4x8xbf16> -> tensor<16x8xbf16>
    %ar = nova.reshape %a : tensor<4x4x16xbf16> -> tensor<16x16xbf16>
    %dw = nova.matmul %cr, %ar transpose_lhs : tensor<16x8xbf16>, tensor<16x16xbf16> -> tensor<8x16xbf16>
    %db = nova.reduce sum %d dims [0, 1] : tensor<4x4x16xf32> -> tensor<16xf32>
    nova_tile.yield %dx, %dw, %db : tensor<4x4x8xbf16>, tensor<8x16xbf16>, tensor<16xf32>
  }
  return %r#0, %r#1, %r#2 : tensor<4x4x8xbf16>, tensor<8x16xbf16>, tensor<16xf32>
}
)mlir";

TEST_F(ContractsTest, GroupedGemmListsEveryProblemAndItsStridedReads) {
  FailureOr<Contract> c = computeContract(parse(kGrouped));
  ASSERT_TRUE(succeeded(c));
  ASSERT_EQ(c->problems.size(), 3u);
  EXPECT_EQ(c->problems[0].space, (SmallVector<int64_t>{4, 4, 8, 16}));
  EXPECT_EQ(c->problems[1].space, (SmallVector<int64_t>{1, 8, 16, 16}));
  EXPECT_EQ(c->problems[2].space, (SmallVector<int64_t>{1, 1, 16, 16}));
  EXPECT_TRUE(c->problems[2].columnSum);
  // dW's lhs is X viewed as 16x8 and read as its transpose (M = 8 varies
  // fastest): [M, K] strides [1, 8]. Its rhs is dY viewed as 16x16.
  const Access &xT = c->problems[1].operands[0].second;
  EXPECT_EQ(c->problems[1].operands[0].first, 2u);
  EXPECT_EQ(xT.strides, (SmallVector<int64_t>{1, 8}));
  EXPECT_TRUE(xT.transposed);
  EXPECT_EQ(c->problems[1].operands[1].first, 0u);
  EXPECT_EQ(c->problems[1].operands[1].second.strides,
            (SmallVector<int64_t>{16, 1}));
  // The shared dY is listed once as an input, as its first read.
  EXPECT_EQ(c->inputs[0].kind, AccessKind::MatmulLhs);
  EXPECT_EQ(c->results[2].kind, AccessKind::PerColumn);
}

TEST_F(ContractsTest, GroupedGemmIsOneGemmOfTheSameWork) {
  ::nova::Problem p = problem(kGrouped);
  EXPECT_EQ(p.family, ::nova::KernelFamily::Matmul);
  EXPECT_EQ(p.batch, 1);
  // Largest problem: dX (4*4*8*16 = 2048 multiply-adds), N 8, K 16; all
  // three: 2048 + 2048 + 256 = 4352 = M * 8 * 16 with M = 34.
  EXPECT_EQ(p.n, 8);
  EXPECT_EQ(p.k, 16);
  EXPECT_EQ(p.m, 34);
}

TEST_F(ContractsTest, HashDoesNotDependOnTheContext) {
  KernelHash first = structuralHash(parse(kMatmul));
  // A second context uniques every attribute and type at other addresses.
  Parsed other;
  KernelHash second = structuralHash(other.parse(kMatmul));
  EXPECT_EQ(first, second);
  EXPECT_EQ(first.str().size(), 32u);
  EXPECT_EQ(first.str().find_first_not_of("0123456789abcdef"),
            std::string::npos);
}
} // namespace
