//===- main.cpp - a program on Nova's interpreter and runtime -------------===//
//
// Parses a small nova function, evaluates it with the reference interpreter,
// asks the runtime's configurator for an H200 matmul schedule and feeds the
// executable reader a file that is not one.
//
//===----------------------------------------------------------------------===//

#include "nova/Interpreter/Interpreter.h"
#include "nova/CostModel/Configurator.h"
#include "nova/Runtime/Executable.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "nova/Dialect/Nova/IR/NovaOps.h"

#include <cstdio>

static const char *program = R"mlir(
func.func @axpy(%a: tensor<3xf32>, %b: tensor<3xf32>) -> tensor<3xf32> {
  %two = nova.constant dense<2.0> : tensor<3xf32>
  %s = nova.mul %a, %two : tensor<3xf32>, tensor<3xf32>
  %r = nova.add %s, %b : tensor<3xf32>, tensor<3xf32>
  return %r : tensor<3xf32>
}
)mlir";

int main() {
  mlir::MLIRContext ctx;
  ctx.loadDialect<mlir::func::FuncDialect, mlir::nova::NovaDialect>();
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(program, &ctx);
  if (!module)
    return 1;
  nova::HostTensor a(nova::DType::F32, {3}), b(nova::DType::F32, {3});
  a.f = {1, 2, 3};
  b.f = {0.5, 0.25, -1};
  mlir::nova::Interpreter interpreter(*module);
  auto results = interpreter.run("axpy", {a, b});
  if (mlir::failed(results))
    return 1;
  std::printf("axpy:");
  for (double v : (*results)[0].f)
    std::printf(" %g", v);
  std::printf("\n");

  auto h200 = nova::DeviceDescriptor::lookup("h200");
  if (!h200)
    return 1;
  nova::Problem matmul;
  matmul.family = nova::KernelFamily::Matmul;
  matmul.dtype = nova::DType::BF16;
  matmul.m = matmul.n = matmul.k = 4096;
  nova::Schedule schedule = nova::Configurator(*h200).choose(matmul);
  std::printf("h200 matmul: %s\n", schedule.instruction.c_str());

  nova::ExecutableDesc exe;
  std::string error;
  if (nova::readExecutable("not an executable", exe, error))
    return 1;
  std::printf("reader: %s\n", error.c_str());
  return 0;
}
