//===- NovaOpsTest.cpp - building nova ops through the C++ API ------------===//
//
// Builders infer result types (broadcasting, reductions, matmul, attention,
// ...); inference rejects malformed uses with a message at the location.
//
//===----------------------------------------------------------------------===//

#include "nova/Dialect/Nova/IR/NovaOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace mlir::nova;

namespace {
/// Records the text of the last diagnostic emitted while it lives (and keeps
/// it off stderr).
struct LastDiagnostic {
  explicit LastDiagnostic(MLIRContext &ctx)
      : handler(&ctx, [this](Diagnostic &diag) {
          message = diag.str();
          return success();
        }) {}
  std::string message;
  ScopedDiagnosticHandler handler;
};

class NovaOpsTest : public ::testing::Test {
protected:
  NovaOpsTest() : builder(&ctx) {
    ctx.loadDialect<NovaDialect, func::FuncDialect>();
    module = ModuleOp::create(builder.getUnknownLoc());
    builder.setInsertionPointToEnd(module->getBody());
    auto fn = func::FuncOp::create(builder, loc(), "f",
                                   builder.getFunctionType({}, {}));
    Block *body = fn.addEntryBlock();
    builder.setInsertionPointToEnd(body);
    // New ops go before the terminator, so the module stays verifiable.
    builder.setInsertionPoint(func::ReturnOp::create(builder, loc()));
  }

  Location loc() { return builder.getUnknownLoc(); }

  RankedTensorType tensor(ArrayRef<int64_t> shape, Type element = nullptr) {
    return RankedTensorType::get(shape,
                                 element ? element : builder.getF32Type());
  }

  /// A value of the given type (an opaque source, like a function argument).
  Value value(RankedTensorType type) {
    Attribute zero =
        isa<FloatType>(type.getElementType())
            ? Attribute(builder.getFloatAttr(type.getElementType(), 0.5))
            : Attribute(builder.getIntegerAttr(type.getElementType(), 1));
    return ConstantOp::create(builder, loc(),
                              DenseElementsAttr::get(type, zero));
  }

  MLIRContext ctx;
  OpBuilder builder;
  OwningOpRef<ModuleOp> module;
};

TEST_F(NovaOpsTest, BinaryOpsBroadcastLikeNumPy) {
  Value a = value(tensor({4, 1, 8}));
  Value b = value(tensor({3, 1}));
  auto add = AddOp::create(builder, loc(), a, b);
  EXPECT_EQ(add.getType(), tensor({4, 3, 8}));
  auto cmp = CmpOp::create(builder, loc(), CmpPredicate::lt, a, b);
  EXPECT_EQ(cmp.getType(), tensor({4, 3, 8}, builder.getI1Type()));
  Value c = value(tensor({8}, builder.getI1Type()));
  auto sel = SelectOp::create(builder, loc(), c, a, b);
  EXPECT_EQ(sel.getType(), tensor({4, 3, 8}));
  EXPECT_TRUE(succeeded(verify(*module)));
}

TEST_F(NovaOpsTest, BroadcastShapesRejectsMismatch) {
  EXPECT_TRUE(failed(broadcastShapes({3}, {4})));
  auto ok = broadcastShapes({2, 1, 5}, {7, 1});
  ASSERT_TRUE(succeeded(ok));
  EXPECT_EQ(*ok, (SmallVector<int64_t>{2, 7, 5}));
  auto scalar = broadcastShapes({}, {3});
  ASSERT_TRUE(succeeded(scalar));
  EXPECT_EQ(*scalar, (SmallVector<int64_t>{3}));
}

TEST_F(NovaOpsTest, ReduceDropsOrKeepsDimensions) {
  Value x = value(tensor({2, 3, 4}));
  auto drop = ReduceOp::create(builder, loc(), ReduceKind::sum, x,
                               builder.getDenseI64ArrayAttr({0, 2}),
                               /*keep_dims=*/false);
  EXPECT_EQ(drop.getType(), tensor({3}));
  auto keep = ReduceOp::create(builder, loc(), ReduceKind::max, x,
                               builder.getDenseI64ArrayAttr({1}),
                               /*keep_dims=*/true);
  EXPECT_EQ(keep.getType(), tensor({2, 1, 4}));
}

TEST_F(NovaOpsTest, MatmulInfersBatchAndTransposes) {
  Value x = value(tensor({2, 5, 16}, builder.getBF16Type()));
  Value w = value(tensor({8, 16}, builder.getBF16Type()));
  auto mm = MatmulOp::create(builder, loc(), x, w, /*transpose_lhs=*/false,
                             /*transpose_rhs=*/true);
  EXPECT_EQ(mm.getType(), tensor({2, 5, 8}, builder.getBF16Type()));
  auto gram = MatmulOp::create(builder, loc(), x, x, /*transpose_lhs=*/true,
                               /*transpose_rhs=*/false);
  EXPECT_EQ(gram.getType(), tensor({2, 16, 16}, builder.getBF16Type()));
}

TEST_F(NovaOpsTest, DataMovementShapes) {
  Value x = value(tensor({4, 6, 8}));
  auto t = TransposeOp::create(builder, loc(), x,
                               builder.getDenseI64ArrayAttr({2, 0, 1}));
  EXPECT_EQ(t.getType(), tensor({8, 4, 6}));
  auto s = SliceOp::create(builder, loc(), x,
                           builder.getDenseI64ArrayAttr({1, 0, 0}),
                           builder.getDenseI64ArrayAttr({4, 6, 7}),
                           builder.getDenseI64ArrayAttr({1, 4, 3}));
  EXPECT_EQ(s.getType(), tensor({3, 2, 3}));
  auto c = ConcatOp::create(builder, loc(), ValueRange{x, x}, /*dim=*/1);
  EXPECT_EQ(c.getType(), tensor({4, 12, 8}));
}

TEST_F(NovaOpsTest, GatherIsTheShapeInverseOfScatterAdd) {
  Value table = value(tensor({256, 32}));
  Value ids = value(tensor({2, 8}, builder.getI32Type()));
  auto g = GatherOp::create(builder, loc(), table, ids, /*axis=*/0);
  EXPECT_EQ(g.getType(), tensor({2, 8, 32}));
  auto s = ScatterAddOp::create(builder, loc(), tensor({256, 32}), g, ids,
                                /*axis=*/0);
  EXPECT_TRUE(succeeded(verify(s)));
}

TEST_F(NovaOpsTest, CompositesInferTheirResults) {
  Value logits = value(tensor({2, 8, 50}));
  Value labels = value(tensor({2, 8}, builder.getI64Type()));
  auto ce = CrossEntropyOp::create(builder, loc(), logits, labels);
  EXPECT_EQ(ce.getType(), tensor({}));

  Value q = value(tensor({2, 4, 8, 16}));
  Value v = value(tensor({2, 4, 8, 32}));
  auto att = AttentionOp::create(builder, loc(), q, q, v, APFloat(0.25),
                                 /*causal=*/true);
  EXPECT_EQ(att.getType(), tensor({2, 4, 8, 32}));

  Value p = value(tensor({32}));
  Value step = value(tensor({}, builder.getI64Type()));
  Value lr = value(tensor({}));
  auto adam =
      AdamWOp::create(builder, loc(), p, p, p, p, step, lr, APFloat(0.9),
                      APFloat(0.999), APFloat(1e-8), APFloat(0.01));
  EXPECT_EQ(adam.getNewParam().getType(), tensor({32}));
  EXPECT_EQ(adam.getNewV().getType(), tensor({32}));
  EXPECT_TRUE(succeeded(verify(*module)));
}

TEST_F(NovaOpsTest, InferenceReportsTheBrokenRule) {
  LastDiagnostic last(ctx);
  Value a = value(tensor({4, 8}));
  Value b = value(tensor({6, 4}));
  SmallVector<Type> types;
  SmallVector<Value> matmulOperands{a, b};
  MatmulOp::Adaptor adaptor(matmulOperands, DictionaryAttr(),
                            MatmulOp::Properties{});
  EXPECT_TRUE(failed(MatmulOp::inferReturnTypes(&ctx, loc(), adaptor, types)));
  EXPECT_EQ(last.message,
            "contraction sizes differ: lhs has K = 8 but rhs has K = 6");

  Value q = value(tensor({2, 8, 16}));
  Value k = value(tensor({2, 6, 16}));
  AttentionOp::Properties props;
  props.setScale(builder.getF64FloatAttr(0.5));
  props.setCausal(builder.getUnitAttr());
  SmallVector<Value> attentionOperands{q, k, k};
  AttentionOp::Adaptor att(attentionOperands, DictionaryAttr(), props);
  types.clear();
  EXPECT_TRUE(failed(AttentionOp::inferReturnTypes(&ctx, loc(), att, types)));
  EXPECT_EQ(last.message, "causal attention needs square scores, got 8x6");
}

TEST_F(NovaOpsTest, VerifierCatchesBadExplicitTypes) {
  LastDiagnostic last(ctx);
  Value x = value(tensor({4, 6}));
  auto r = ReshapeOp::create(builder, loc(), tensor({5, 5}), x);
  EXPECT_TRUE(failed(verify(r)));
  EXPECT_EQ(last.message,
            "'nova.reshape' op must preserve the element count: [4, "
            "6] has 24 elements but [5, 5] has 25");
}
} // namespace
