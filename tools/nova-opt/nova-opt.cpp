//===- nova-opt.cpp - the Nova optimizer driver ---------------------------===//
//
// mlir-opt with the Nova dialects and passes and the upstream dialects the
// Nova pipeline uses.
//
//===----------------------------------------------------------------------===//

#include "mlir/IR/MLIRContext.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "nova/InitAllDialects.h"
#include "nova/InitAllPasses.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::nova::registerAllDialects(registry);
  mlir::nova::registerAllPasses();
  llvm::cl::AddExtraVersionPrinter([](llvm::raw_ostream &os) {
    os << "Nova version " << NOVA_VERSION << "\n";
  });
  // A failing pass or verifier should print its located message only; the
  // whole module after it (mlir-opt's default) buries the message. The flag
  // still turns it back on.
  mlir::registerMLIRContextCLOptions();
  if (auto *printOp = static_cast<llvm::cl::opt<bool> *>(
          llvm::cl::getRegisteredOptions().lookup(
              "mlir-print-op-on-diagnostic")))
    printOp->setInitialValue(false);
  auto [input, output] = mlir::registerAndParseCLIOptions(
      argc, argv, "Nova optimizer driver\n", registry);
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, input, output, registry));
}
