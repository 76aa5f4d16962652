//===- NovaMemPlugin.cpp - nova_mem as an mlir-opt plugin -----------------===//
//
//   mlir-opt --load-dialect-plugin=nova-mem-plugin.so \
//            --load-pass-plugin=nova-mem-plugin.so \
//            --pass-pipeline='builtin.module(nova-bufferize,nova-plan-memory)'
//            in.mlir
//
//===----------------------------------------------------------------------===//

#include "mlir/Tools/Plugins/DialectPlugin.h"
#include "mlir/Tools/Plugins/PassPlugin.h"
#include "nova/Dialect/Nova/IR/NovaDialect.h"
#include "nova/Dialect/NovaMem/IR/NovaMem.h"
#include "nova/Dialect/NovaMem/Transforms/Passes.h"
#include "nova/Dialect/NovaTile/IR/NovaTile.h"

#include "llvm/Config/llvm-config.h"

using namespace mlir;

extern "C" LLVM_ATTRIBUTE_WEAK DialectPluginLibraryInfo
mlirGetDialectPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "NovaMemDialect", LLVM_VERSION_STRING,
          [](DialectRegistry *registry) {
            registry->insert<nova::NovaDialect, nova_tile::NovaTileDialect,
                             nova_mem::NovaMemDialect>();
          }};
}

extern "C" LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "NovaMemPasses", LLVM_VERSION_STRING,
          []() { nova_mem::registerNovaMemPasses(); }};
}
