//===- Pointwise.cpp - the pointwise family
//---------------------------------===//

#include "Emitter.h"

#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;

namespace mlir::nova::tile_to_gpu {

FailureOr<Geometry> emitPointwise(KernelContext &k) {
  ImplicitLocOpBuilder &b = k.b;
  BodyEmitter &body = k.body;
  ArrayRef<int64_t> space = k.contract.space;
  int64_t n = product(space);
  int64_t threads = k.schedule.getThreads();
  // Each thread takes `width` adjacent elements at a time: one 16-byte (or
  // narrower) access per contiguous tensor when the chunk is whole, scalar
  // accesses for the ragged last chunk. Buffers are 16-byte aligned (the
  // arena places them so), and chunks start at multiples of `width`.
  int64_t width = std::max<int64_t>(1, k.schedule.getVector());
  unsigned widest = 1;
  for (Value v : k.outputs())
    widest = std::max(widest, elementOf(v).getIntOrFloatBitWidth());
  for (BlockArgument arg : k.block().getArguments())
    widest = std::max(widest, elementOf(arg).getIntOrFloatBitWidth());
  width = std::min<int64_t>(width, std::max<int64_t>(1, 128 / widest));
  width = int64_t(llvm::bit_floor(uint64_t(width)));
  if (space.empty())
    width = 1;
  int64_t chunksPerBlock =
      std::max<int64_t>(k.schedule.getTile().front() / width, threads);
  chunksPerBlock = (chunksPerBlock + threads - 1) / threads * threads;
  int64_t chunks = (n + width - 1) / width;

  // Vector views of the tensors read and written element for element
  // (those with padded rows element by element at their index: a chunk of
  // the packed space may span two of their rows).
  SmallVector<std::pair<BlockArgument, Value>> direct;
  for (auto [arg, access] :
       llvm::zip(k.block().getArguments(), k.contract.inputs))
    if (width > 1 && access.kind == AccessKind::Elementwise &&
        !arg.use_empty() && vectorizable(elementOf(arg)) &&
        !rowPitchOf(body.input(arg)))
      direct.push_back({arg, flatten(b, body.input(arg))});
  SmallVector<Value> flatOutputs; // null: stored element by element
  if (width > 1)
    for (auto [v, buffer] : llvm::zip(k.outputs(), k.outputBuffers))
      flatOutputs.push_back(vectorizable(elementOf(v)) && !rowPitchOf(buffer)
                                ? flatten(b, buffer)
                                : Value());
  auto alignment = [&](Type element) {
    return llvm::MaybeAlign(
        std::max<uint64_t>(1, width * element.getIntOrFloatBitWidth() / 8));
  };

  // Block b covers chunks [b * chunksPerBlock, ...); in step s thread t
  // takes chunk b * chunksPerBlock + s * threads + t, so a warp's accesses
  // are adjacent.
  Value base = arith::AddIOp::create(
      b, arith::MulIOp::create(b, k.blockId(), body.index(chunksPerBlock)),
      k.threadId());
  auto scalarElement = [&](Value e) {
    Value in =
        arith::CmpIOp::create(b, arith::CmpIPredicate::ult, e, body.index(n));
    return k.ifThen(in, [&]() -> LogicalResult {
      SmallVector<Value> idx = body.delinearize(e, space);
      auto all = llvm::to_vector(
          llvm::seq(0u, static_cast<unsigned>(k.outputs().size())));
      return k.storeAll(all, [&](unsigned) { return idx; });
    });
  };
  LogicalResult ok = k.loop(
      body.index(0), body.index(chunksPerBlock), body.index(threads),
      [&](Value s) -> LogicalResult {
        Value chunk = arith::AddIOp::create(b, base, s);
        if (width == 1)
          return scalarElement(chunk);
        Value first = arith::MulIOp::create(b, chunk, body.index(width));
        Value whole = arith::CmpIOp::create(b, arith::CmpIPredicate::ult, chunk,
                                            body.index(n / width));
        auto ifOp = scf::IfOp::create(b, whole, /*withElseRegion=*/true);
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToStart(ifOp.thenBlock());
        body.pushScope();
        SmallVector<Value> loaded;
        for (auto [arg, flat] : direct)
          loaded.push_back(vector::LoadOp::create(
              b, VectorType::get({width}, elementOf(arg)), flat,
              ValueRange{first}, /*nontemporal=*/false,
              alignment(elementOf(arg))));
        SmallVector<SmallVector<Value>> lanes(k.outputs().size());
        for (int64_t lane = 0; lane < width; ++lane) {
          body.pushScope();
          Value e = arith::AddIOp::create(b, first, body.index(lane));
          SmallVector<Value> idx = body.delinearize(e, space);
          for (auto [d, vec] : llvm::zip(direct, loaded))
            body.bind(d.first, idx, vector::ExtractOp::create(b, vec, lane));
          for (auto [i, v] : llvm::enumerate(k.outputs())) {
            auto x = body.eval(v, idx);
            if (failed(x))
              return k.unsupported();
            if (!flatOutputs[i])
              memref::StoreOp::create(b, *x, k.outputBuffers[i], idx);
            lanes[i].push_back(*x);
          }
          body.popScope();
        }
        for (auto [i, v] : llvm::enumerate(k.outputs())) {
          if (!flatOutputs[i])
            continue;
          Value vec = vector::FromElementsOp::create(
              b, VectorType::get({width}, elementOf(v)), lanes[i]);
          vector::StoreOp::create(b, vec, flatOutputs[i], ValueRange{first},
                                  /*nontemporal=*/false,
                                  alignment(elementOf(v)));
        }
        body.popScope();
        // The ragged last chunk, element by element.
        b.setInsertionPointToStart(ifOp.elseBlock());
        for (int64_t lane = 0; lane < width; ++lane)
          if (failed(scalarElement(
                  arith::AddIOp::create(b, first, body.index(lane)))))
            return failure();
        return success();
      });
  if (failed(ok))
    return failure();
  return Geometry{
      std::max<int64_t>(1, (chunks + chunksPerBlock - 1) / chunksPerBlock),
      threads};
}

} // namespace mlir::nova::tile_to_gpu
