//===- main.cpp - a compiler that links Nova's dialect and passes ---------===//
//
// Builds `relu(x @ w + b)` with the C++ API of the installed Nova package,
// prints it, makes its broadcast explicit with a Nova pass, and prints again.
//
//===----------------------------------------------------------------------===//

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "nova/Dialect/Nova/IR/NovaOps.h"
#include "nova/Transforms/Passes.h"

#include "llvm/Support/raw_ostream.h"

using namespace mlir;

int main() {
  MLIRContext ctx;
  ctx.loadDialect<func::FuncDialect, nova::NovaDialect>();
  OpBuilder b(&ctx);
  Location loc = b.getUnknownLoc();
  auto f32 = b.getF32Type();
  auto x = RankedTensorType::get({4, 16}, f32);
  auto w = RankedTensorType::get({16, 8}, f32);
  auto bias = RankedTensorType::get({8}, f32);
  auto out = RankedTensorType::get({4, 8}, f32);

  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  b.setInsertionPointToEnd(module->getBody());
  auto fn = func::FuncOp::create(b, loc, "layer",
                                 b.getFunctionType({x, w, bias}, {out}));
  Block *body = fn.addEntryBlock();
  b.setInsertionPointToEnd(body);
  Value y = nova::MatmulOp::create(b, loc, body->getArgument(0),
                                   body->getArgument(1));
  Value yb = nova::AddOp::create(b, loc, y, body->getArgument(2));
  Value r = nova::ReluOp::create(b, loc, yb);
  func::ReturnOp::create(b, loc, r);

  if (failed(verify(*module)))
    return 1;
  module->print(llvm::outs());

  PassManager pm(&ctx);
  pm.addPass(nova::createNovaExplicitBroadcast());
  if (failed(pm.run(*module)))
    return 1;
  module->print(llvm::outs());
  return 0;
}
