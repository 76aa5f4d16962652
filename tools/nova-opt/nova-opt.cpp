//===- nova-opt.cpp - the Nova optimizer driver ---------------------------===//
//
// mlir-opt with the Nova dialects and passes and the upstream dialects the
// Nova pipeline uses.
//
//===----------------------------------------------------------------------===//

#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "nova/InitAllDialects.h"
#include "nova/InitAllPasses.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::nova::registerAllDialects(registry);
  mlir::nova::registerAllPasses();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "Nova optimizer driver\n", registry));
}
