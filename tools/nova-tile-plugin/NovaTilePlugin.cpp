//===- NovaTilePlugin.cpp - nova_tile as an mlir-opt plugin ---------------===//
//
//   mlir-opt --load-dialect-plugin=nova-tile-plugin.so \
//            --load-pass-plugin=nova-tile-plugin.so \
//            --pass-pipeline='builtin.module(nova-outline-kernels)' in.mlir
//
//===----------------------------------------------------------------------===//

#include "mlir/Tools/Plugins/DialectPlugin.h"
#include "mlir/Tools/Plugins/PassPlugin.h"
#include "nova/Conversion/Passes.h"
#include "nova/Dialect/Nova/IR/NovaDialect.h"
#include "nova/Dialect/NovaTile/IR/NovaTile.h"
#include "nova/Dialect/NovaTile/Transforms/Passes.h"

#include "llvm/Config/llvm-config.h"

using namespace mlir;

extern "C" LLVM_ATTRIBUTE_WEAK DialectPluginLibraryInfo
mlirGetDialectPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "NovaTileDialect", LLVM_VERSION_STRING,
          [](DialectRegistry *registry) {
            registry->insert<nova::NovaDialect, nova_tile::NovaTileDialect>();
          }};
}

extern "C" LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "NovaTilePasses", LLVM_VERSION_STRING, []() {
            nova_tile::registerNovaTilePasses();
            nova::registerNovaConversionPasses();
          }};
}
