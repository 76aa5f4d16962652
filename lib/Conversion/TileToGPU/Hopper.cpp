//===- Hopper.cpp - sm_90a building blocks shared by the wgmma emitters ---===//

#include "Hopper.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/Remarks.h"

using namespace mlir;

namespace mlir::nova::tile_to_gpu::hopper {

Value addTmaDescriptor(KernelContext &k, BlockArgument input,
                       int64_t byteOffset, ArrayRef<int64_t> dims,
                       ArrayRef<int64_t> byteStrides, ArrayRef<int64_t> box,
                       int64_t swizzle) {
  ImplicitLocOpBuilder &b = k.b;
  MLIRContext *ctx = b.getContext();
  unsigned index = k.func.getNumArguments();
  (void)k.func.insertArgument(index, LLVM::LLVMPointerType::get(ctx),
                              DictionaryAttr(), b.getLoc());
  SmallVector<NamedAttribute> map{
      b.getNamedAttr("buffer", b.getI32IntegerAttr(input.getArgNumber())),
      b.getNamedAttr("offset", b.getI64IntegerAttr(byteOffset)),
      b.getNamedAttr("dims", b.getDenseI64ArrayAttr(dims)),
      b.getNamedAttr("strides", b.getDenseI64ArrayAttr(byteStrides)),
      b.getNamedAttr("box", b.getDenseI64ArrayAttr(box)),
      b.getNamedAttr("swizzle", b.getI32IntegerAttr(int32_t(swizzle)))};
  k.func.setArgAttr(index, kTmaAttr, DictionaryAttr::get(ctx, map));
  SmallVector<int32_t> params;
  if (auto known = k.func->getAttrOfType<DenseI32ArrayAttr>(kTmaParamsAttr))
    llvm::append_range(params, known.asArrayRef());
  params.push_back(int32_t(index));
  k.func->setAttr(kTmaParamsAttr, b.getDenseI32ArrayAttr(params));
  return k.func.getArgument(index);
}

Value dynamicSharedMemory(KernelContext &k, int64_t bytes) {
  ImplicitLocOpBuilder &b = k.b;
  auto module = k.func->getParentOfType<gpu::GPUModuleOp>();
  {
    OpBuilder top(module.getBodyRegion());
    LLVM::GlobalOp::create(top, b.getLoc(),
                           LLVM::LLVMArrayType::get(b.getI8Type(), 0),
                           /*isConstant=*/false, LLVM::Linkage::External,
                           "nova_dynamic_shared", Attribute(),
                           /*alignment=*/1024, /*addrSpace=*/3);
  }
  k.func->setAttr(kDynamicSharedBytesAttr, b.getI64IntegerAttr(bytes));
  return LLVM::AddressOfOp::create(
      b, LLVM::LLVMPointerType::get(b.getContext(), 3), "nova_dynamic_shared");
}

Value sharedAt(ImplicitLocOpBuilder &b, Value smem, Value byteOffset) {
  auto ptr = LLVM::LLVMPointerType::get(b.getContext(), 3);
  return LLVM::GEPOp::create(b, ptr, b.getI8Type(), smem,
                             ArrayRef<LLVM::GEPArg>{byteOffset});
}

Value toCluster(ImplicitLocOpBuilder &b, Value ptr) {
  return LLVM::AddrSpaceCastOp::create(
      b, LLVM::LLVMPointerType::get(b.getContext(), 7), ptr);
}

void waitParity(ImplicitLocOpBuilder &b, Value barrier, Value phase) {
  NVVM::MBarrierTryWaitParityOp::create(
      b, barrier, phase,
      arith::ConstantOp::create(b, b.getI32IntegerAttr(0x989680)));
}

void tmaLoad(ImplicitLocOpBuilder &b, Value dst, Value desc, ValueRange coords,
             Value barrier) {
  NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp::create(
      b, toCluster(b, dst), desc, coords, barrier, ValueRange{}, Value(),
      Value(), NVVM::TMALoadMode::TILE, false, NVVM::CTAGroupKindAttr(),
      Value());
}

SmallVector<Value> wgmmaRegisterA(ImplicitLocOpBuilder &b, ArrayRef<Value> acc,
                                  ArrayRef<Value> a, Value desc, Value scaleD,
                                  RegisterA kind) {
  int64_t n = acc.size();
  bool tf32 = kind == RegisterA::TF32;
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "{\n.reg .pred p;\nsetp.ne.b32 p, $" << n + 5 << ", 0;\n"
     << "wgmma.mma_async.sync.aligned.m64n" << 2 * n
     << (tf32 ? "k8.f32.tf32.tf32 {" : "k16.f32.bf16.bf16 {");
  for (int64_t i = 0; i < n; ++i)
    os << (i ? ", $" : "$") << i;
  // Immediates: scale-a, scale-b (and bf16's transpose of B).
  os << "}, {$" << n << ", $" << n + 1 << ", $" << n + 2 << ", $" << n + 3
     << "}, $" << n + 4 << (tf32 ? ", p, 1, 1;\n}" : ", p, 1, 1, 1;\n}");
  std::string constraints;
  for (int64_t i = 0; i < n; ++i)
    constraints += "=f,";
  constraints += "r,r,r,r,l,r";
  for (int64_t i = 0; i < n; ++i)
    constraints += "," + std::to_string(i);
  SmallVector<Value> operands(a.begin(), a.end());
  operands.push_back(desc);
  operands.push_back(scaleD);
  operands.append(acc.begin(), acc.end());
  auto resultType = LLVM::LLVMStructType::getLiteral(
      b.getContext(), SmallVector<Type>(n, b.getF32Type()));
  auto asmOp = LLVM::InlineAsmOp::create(
      b, resultType, operands, text, constraints, /*has_side_effects=*/true,
      /*is_align_stack=*/false, LLVM::tailcallkind::TailCallKind::None,
      LLVM::AsmDialectAttr(), ArrayAttr());
  SmallVector<Value> out;
  for (int64_t i = 0; i < n; ++i)
    out.push_back(LLVM::ExtractValueOp::create(b, asmOp.getResult(0),
                                               ArrayRef<int64_t>{i}));
  return out;
}

void declareOneBlockPerSM(KernelContext &k) {
  k.func->setAttr(NVVM::NVVMDialect::getMinctasmAttrName(),
                  k.b.getI32IntegerAttr(1));
}

void remarkPath(KernelContext &k, const std::optional<std::string> &whyNot,
                StringRef how) {
  auto opts = remark::RemarkOpts::name("wgmma")
                  .category("nova-wgmma")
                  .function(k.kernel.getSymName());
  if (whyNot)
    remark::missed(k.kernel.getLoc(), opts)
        << remark::reason("stays on mma.sync: {0}", *whyNot);
  else
    remark::passed(k.kernel.getLoc(), opts) << remark::add("{0}", how);
}

LogicalResult
EmitterBase::specialize(Value tid, function_ref<void()> producer,
                        function_ref<LogicalResult(Value)> consumer) {
  Value warpgroup = arith::DivUIOp::create(b, tid, idx(128));
  auto ifOp = scf::IfOp::create(
      b, arith::CmpIOp::create(b, arith::CmpIPredicate::eq, warpgroup, idx(0)),
      /*withElseRegion=*/true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(ifOp.thenBlock());
  NVVM::SetMaxRegisterOp::create(b, 40, NVVM::SetMaxRegisterAction::decrease);
  body.pushScope();
  producer();
  body.popScope();
  b.setInsertionPointToStart(ifOp.elseBlock());
  NVVM::SetMaxRegisterOp::create(b, 232, NVVM::SetMaxRegisterAction::increase);
  body.pushScope();
  LogicalResult ok = consumer(arith::SubIOp::create(b, warpgroup, idx(1)));
  body.popScope();
  return ok;
}

} // namespace mlir::nova::tile_to_gpu::hopper
