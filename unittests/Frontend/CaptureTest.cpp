//===- CaptureTest.cpp - the C++ capture API ------------------------------===//

#include "nova/Frontend/Capture.h"
#include "nova/Interpreter/Interpreter.h"

#include "mlir/IR/Verifier.h"

#include "gtest/gtest.h"

#include <cmath>

using namespace mlir;
using namespace mlir::nova;
using namespace mlir::nova::capture;

namespace {

TEST(Capture, RecordsAVerifiedFunctionThatTheInterpreterRuns) {
  MLIRContext ctx;
  Graph g(ctx, "f");
  Tensor x = g.input("x", {2, 3});
  Tensor w = g.param("w", {3, 2});
  Tensor y = tanh(matmul(x, w)) * 2.0 + g.scalar(1.0);
  OwningOpRef<ModuleOp> module = g.finish({sum(y), y}, {"loss", "y"});
  auto fn = module->lookupSymbol<func::FuncOp>("f");
  ASSERT_TRUE(fn);
  EXPECT_TRUE(fn.getArgAttr(1, NovaDialect::getParamAttrName()));
  EXPECT_FALSE(fn.getArgAttr(0, NovaDialect::getParamAttrName()));

  ::nova::HostTensor xs(::nova::DType::F32, {2, 3}),
      ws(::nova::DType::F32, {3, 2});
  for (int k = 0; k < 6; ++k) {
    xs.f[k] = 0.1 * k - 0.2;
    ws.f[k] = 0.05 * (5 - k);
  }
  Interpreter interp(*module);
  auto out = interp.run(fn, {xs, ws});
  ASSERT_TRUE(succeeded(out));
  double total = 0;
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j) {
      double dot = 0;
      for (int k = 0; k < 3; ++k)
        dot += xs.f[i * 3 + k] * ws.f[k * 2 + j];
      double expect = std::tanh(dot) * 2.0 + 1.0;
      EXPECT_NEAR((*out)[1].f[i * 2 + j], expect, 1e-6);
      total += expect;
    }
  EXPECT_NEAR((*out)[0].f[0], total, 1e-5);
}

TEST(Capture, OpsCarryTheLineThatRecordedThem) {
  MLIRContext ctx;
  Graph g(ctx, "f");
  Tensor x = g.input("x", {4});
  unsigned line = __LINE__ + 1;
  Tensor y = exp(x);
  auto loc = dyn_cast<FileLineColLoc>(y.value().getLoc());
  ASSERT_TRUE(loc);
  EXPECT_EQ(loc.getLine(), line);
  EXPECT_NE(loc.getFilename().str().find("CaptureTest.cpp"), std::string::npos);
}

TEST(Capture, ShapeErrorsNameTheLineThatMadeThem) {
  MLIRContext ctx;
  Graph g(ctx, "f");
  Tensor a = g.input("a", {4, 8});
  Tensor b = g.input("b", {6, 4});
  unsigned line = __LINE__ + 2;
  try {
    (void)matmul(a, b);
    FAIL() << "a 4x8 by 6x4 matmul must be rejected";
  } catch (const Error &e) {
    EXPECT_EQ(e.line(), line);
    EXPECT_NE(
        std::string(e.what()).find("CaptureTest.cpp:" + std::to_string(line)),
        std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("contraction sizes differ"),
              std::string::npos)
        << e.what();
  }
}

TEST(Capture, OperatorErrorsNameTheLineOfTheExpression) {
  MLIRContext ctx;
  Graph g(ctx, "f");
  Tensor a = g.input("a", {4, 8});
  Tensor b = g.input("b", {3});
  unsigned line = __LINE__ + 2;
  try {
    (void)(a + b);
    FAIL() << "4x8 + 3 does not broadcast";
  } catch (const Error &e) {
    EXPECT_EQ(e.line(), line) << e.what();
    EXPECT_NE(std::string(e.what()).find("broadcast"), std::string::npos)
        << e.what();
  }
}

TEST(Capture, DtypeErrorsAndMisuseAreReported) {
  MLIRContext ctx;
  Graph g(ctx, "f");
  Tensor i = g.input("i", {4}, g.i32());
  EXPECT_THROW((void)exp(i), Error); // exp needs floats
  EXPECT_THROW((void)g.param("p", {4}, g.i32()), Error);
  EXPECT_THROW((void)g.input("n", {-1}), Error);
  Tensor x = g.input("x", {4});
  EXPECT_THROW((void)softmax(x, 3), Error); // no dimension 3
  (void)g.finish({sum(x)});
  EXPECT_THROW((void)exp(x), Error); // graph is finished
}

// The example of README.md and docs/nova-gpt2.md, as written there
// (utils/readme-examples.py checks that their blocks are lines of this
// file): the module verifies and holds the ops and attributes it shows.
TEST(Capture, ReadmeExample) {
  mlir::MLIRContext ctx;
  Graph g(ctx, "loss");
  Tensor x = g.input("x", {8, 16});
  Tensor w = g.param("w", {16, 4});                 // {nova.param, nova.name = "w"}
  Tensor labels = g.input("labels", {8}, g.i32());
  Tensor loss = cross_entropy(gelu(matmul(x, w)) * 2.0, labels);
  mlir::OwningOpRef<mlir::ModuleOp> module = g.finish({loss}, {"loss"});
  ASSERT_TRUE(succeeded(verify(*module)));
  auto fn = module->lookupSymbol<func::FuncOp>("loss");
  ASSERT_TRUE(fn);
  EXPECT_EQ(fn.getNumArguments(), 3u);
  EXPECT_EQ(fn.getResultTypes()[0], RankedTensorType::get({}, g.f32()));
  EXPECT_FALSE(fn.getArgAttr(0, NovaDialect::getParamAttrName()));
  EXPECT_TRUE(fn.getArgAttr(1, NovaDialect::getParamAttrName()));
  auto name = fn.getArgAttrOfType<StringAttr>(1, NovaDialect::getNameAttrName());
  ASSERT_TRUE(name);
  EXPECT_EQ(name.getValue(), "w");
  EXPECT_EQ(fn.getArgumentTypes()[2], RankedTensorType::get({8}, g.i32()));
  EXPECT_EQ(llvm::range_size(fn.getOps<MatmulOp>()), 1u);
  EXPECT_EQ(llvm::range_size(fn.getOps<GeluOp>()), 1u);
  EXPECT_EQ(llvm::range_size(fn.getOps<MulOp>()), 1u);
  EXPECT_EQ(llvm::range_size(fn.getOps<CrossEntropyOp>()), 1u);
}

// ignore_index reaches the op (printed only when not PyTorch's -100), and
// ignored rows leave the mean: [x, ignored] gives the loss of x alone.
TEST(Capture, CrossEntropyIgnoreIndex) {
  MLIRContext ctx;
  Graph g(ctx, "f");
  Tensor logits = g.input("logits", {2, 3});
  Tensor labels = g.input("labels", {2}, g.i64());
  Tensor byDefault = cross_entropy(logits, labels);
  Tensor ignoringTwo = cross_entropy(logits, labels, 2);
  OwningOpRef<ModuleOp> module = g.finish({byDefault, ignoringTwo});
  auto fn = module->lookupSymbol<func::FuncOp>("f");
  ASSERT_TRUE(fn);
  SmallVector<CrossEntropyOp> ops(fn.getOps<CrossEntropyOp>());
  ASSERT_EQ(ops.size(), 2u);
  EXPECT_EQ(int64_t(ops[0].getIgnoreIndex()), -100);
  EXPECT_EQ(int64_t(ops[1].getIgnoreIndex()), 2);

  ::nova::HostTensor xs(::nova::DType::F32, {2, 3}),
      ys(::nova::DType::I64, {2});
  for (int k = 0; k < 6; ++k)
    xs.f[k] = 0.25 * k;
  ys.i = {0, 2};
  Interpreter interp(*module);
  auto out = interp.run(fn, {xs, ys});
  ASSERT_TRUE(succeeded(out));
  auto rowLoss = [&](int row, int label) {
    double lse = 0;
    for (int j = 0; j < 3; ++j)
      lse += std::exp(xs.f[row * 3 + j]);
    return std::log(lse) - xs.f[row * 3 + label];
  };
  EXPECT_NEAR((*out)[0].f[0], (rowLoss(0, 0) + rowLoss(1, 2)) / 2, 1e-6);
  EXPECT_NEAR((*out)[1].f[0], rowLoss(0, 0), 1e-6);
}

// compare, select and rsqrt record their ops and compute: where x <= y pick
// 1 / sqrt(x), else y.
TEST(Capture, CompareSelectRsqrt) {
  MLIRContext ctx;
  Graph g(ctx, "f");
  Tensor x = g.input("x", {4});
  Tensor y = g.input("y", {4});
  Tensor keep = compare(x, y, CmpPredicate::le);
  EXPECT_TRUE(keep.elementType().isInteger(1));
  Tensor out = select(keep, rsqrt(x), y);
  OwningOpRef<ModuleOp> module = g.finish({out});
  auto fn = module->lookupSymbol<func::FuncOp>("f");
  ASSERT_TRUE(fn);
  SmallVector<CmpOp> cmps(fn.getOps<CmpOp>());
  ASSERT_EQ(cmps.size(), 1u);
  EXPECT_EQ(cmps[0].getPredicate(), CmpPredicate::le);

  ::nova::HostTensor xs(::nova::DType::F32, {4}), ys(::nova::DType::F32, {4});
  xs.f = {0.25, 4.0, 1.0, 9.0};
  ys.f = {1.0, 2.0, 1.0, 3.0};
  Interpreter interp(*module);
  auto res = interp.run(fn, {xs, ys});
  ASSERT_TRUE(succeeded(res));
  std::vector<double> expect = {2.0, 2.0, 1.0, 3.0};
  for (int k = 0; k < 4; ++k)
    EXPECT_NEAR((*res)[0].f[k], expect[k], 1e-6) << k;
  // A predicate between mismatched element types is a recording error.
  Graph h(ctx, "h");
  Tensor a = h.input("a", {4});
  Tensor b = h.input("b", {4}, h.i32());
  EXPECT_THROW((void)compare(a, b, CmpPredicate::eq), Error);
}

} // namespace
