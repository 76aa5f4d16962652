//===- InterpreterSizeTest.cpp - the interpreter's size limit -------------===//
//
// checkTensorSize is what a tool calls before it allocates an argument, and
// Interpreter::run applies it to its own arguments: neither may wrap an
// element count or allocate beyond the limit.
//
//===----------------------------------------------------------------------===//

#include "nova/Dialect/Nova/IR/NovaOps.h"
#include "nova/Interpreter/Interpreter.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace mlir::nova;

namespace {

class InterpreterSizeTest : public ::testing::Test {
protected:
  InterpreterSizeTest() { ctx.loadDialect<NovaDialect, func::FuncDialect>(); }

  Type parse(StringRef text) { return parseType(text, &ctx); }

  MLIRContext ctx;
};

TEST_F(InterpreterSizeTest, FittingTensorIsAccepted) {
  EXPECT_EQ(checkTensorSize(parse("tensor<4x0x3xf32>")), std::nullopt);
  EXPECT_EQ(checkTensorSize(parse("tensor<1024x1024xi64>")), std::nullopt);
}

TEST_F(InterpreterSizeTest, OverflowingElementCountIsNotZero) {
  // 10^22 elements wrap to a small count in 64-bit arithmetic.
  std::optional<std::string> error =
      checkTensorSize(parse("tensor<100000000000x100000000000xf32>"));
  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(*error, "'tensor<100000000000x100000000000xf32>' has more than "
                    "2^63 elements");
  // 2^32 x 2^32 wraps to exactly 0.
  EXPECT_TRUE(checkTensorSize(parse("tensor<4294967296x4294967296xf32>")));
}

TEST_F(InterpreterSizeTest, LimitIsInHostBytes) {
  // 10 GB of f32 is 20 GB as the interpreter's doubles.
  std::optional<std::string> error =
      checkTensorSize(parse("tensor<2500000000xf32>"));
  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(*error, "the reference interpreter would need 20000000000 bytes "
                    "for 'tensor<2500000000xf32>', more than its limit of "
                    "8589934592");
  InterpreterOptions small;
  small.maxTensorBytes = 32;
  EXPECT_EQ(checkTensorSize(parse("tensor<4xf32>"), small), std::nullopt);
  EXPECT_TRUE(checkTensorSize(parse("tensor<5xf32>"), small));
}

TEST_F(InterpreterSizeTest, UnsupportedTypesAreNamed) {
  EXPECT_TRUE(checkTensorSize(parse("tensor<?xf32>")));
  EXPECT_TRUE(checkTensorSize(parse("tensor<4xi8>")));
  EXPECT_TRUE(checkTensorSize(parse("f32")));
}

TEST_F(InterpreterSizeTest, RunRefusesOversizedArgument) {
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(
      "func.func @f(%x: tensor<100000000000x100000000000xf32>) -> "
      "tensor<100000000000x100000000000xf32> {\n"
      "  return %x : tensor<100000000000x100000000000xf32>\n}\n",
      &ctx);
  ASSERT_TRUE(module);
  std::string message;
  ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &diag) {
    message = diag.str();
    return success();
  });
  // The caller could not have built the argument; the check comes before
  // the interpreter looks at (or copies) it.
  Interpreter interpreter(*module);
  std::vector<::nova::HostTensor> args(1);
  EXPECT_TRUE(failed(interpreter.run("f", std::move(args))));
  EXPECT_EQ(message, "argument #0: 'tensor<100000000000x100000000000xf32>' "
                     "has more than 2^63 elements");
}

} // namespace
