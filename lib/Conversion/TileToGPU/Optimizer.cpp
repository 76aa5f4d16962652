//===- Optimizer.cpp - the optimizer family
//---------------------------------===//

#include "Emitter.h"

#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;

namespace mlir::nova::tile_to_gpu {

/// The adamw op output `v` is computed from (through casts), if any.
static nv::AdamWOp updateOf(Value v) {
  SmallVector<Value> work{v};
  DenseSet<Value> seen;
  while (!work.empty()) {
    Value cur = work.pop_back_val();
    if (!seen.insert(cur).second)
      continue;
    Operation *def = cur.getDefiningOp();
    if (!def)
      continue;
    if (auto adamw = dyn_cast<nv::AdamWOp>(def))
      return adamw;
    llvm::append_range(work, def->getOperands());
  }
  return {};
}

FailureOr<Geometry> emitOptimizer(KernelContext &k) {
  ImplicitLocOpBuilder &b = k.b;
  BodyEmitter &body = k.body;
  // Each adamw's three results at one index, computed in f64 as the
  // interpreter does; registered as uniform values inside the branch that
  // handles that tensor.
  int64_t total = k.contract.space.front();
  int64_t threads = k.schedule.getThreads();
  int64_t tile = std::max<int64_t>(k.schedule.getTile().front(), threads);
  int64_t steps = (tile + threads - 1) / threads;
  tile = steps * threads;
  SmallVector<SmallVector<unsigned>> outputsOf;
  SmallVector<nv::AdamWOp> updates(k.block().getOps<nv::AdamWOp>());
  outputsOf.resize(updates.size());
  for (auto [i, v] : llvm::enumerate(k.outputs())) {
    nv::AdamWOp adamw = updateOf(v);
    if (!adamw || shapeOf(v) != shapeOf(adamw.getParam()))
      return k.fail("output #" + Twine(i) +
                    " is not an adamw result (through elementwise ops of "
                    "its shape)");
    outputsOf[llvm::find(updates, adamw) - updates.begin()].push_back(i);
  }

  Value base = arith::AddIOp::create(
      b, arith::MulIOp::create(b, k.blockId(), body.index(tile)), k.threadId());
  // A failed check earlier in the step (bad labels, a non-finite loss or
  // gradient norm) skips the update, as PyTorch's GradScaler skips a step:
  // every output gets its input back, so parameters and moments are
  // unchanged whether or not the outputs share their inputs' memory.
  Value skip = body.status ? body.statusRaised() : Value();
  Type f64 = b.getF64Type();
  auto c = [&](double x) {
    return arith::ConstantOp::create(b, f64, b.getF64FloatAttr(x));
  };
  LogicalResult ok = k.loop(
      body.index(0), body.index(tile), body.index(threads), [&](Value s) {
        Value e = arith::AddIOp::create(b, base, s);
        int64_t offset = 0;
        for (auto [u, adamw] : llvm::enumerate(updates)) {
          ArrayRef<int64_t> shape = shapeOf(adamw.getParam());
          int64_t n = product(shape);
          // e - offset < n, unsigned: false below offset too.
          Value local = arith::SubIOp::create(b, e, body.index(offset));
          Value mine = arith::CmpIOp::create(b, arith::CmpIPredicate::ult,
                                             local, body.index(n));
          offset += n;
          if (outputsOf[u].empty() || n == 0)
            continue;
          LogicalResult r = k.ifThen(mine, [&]() -> LogicalResult {
            SmallVector<Value> idx = body.delinearize(local, shape);
            auto at = [&](Value v) -> FailureOr<Value> {
              auto x = body.eval(v, body.project(idx, shapeOf(v)));
              if (failed(x))
                return failure();
              return body.convert(*x, f64);
            };
            auto p = at(adamw.getParam()), g = at(adamw.getGrad()),
                 m = at(adamw.getM()), v = at(adamw.getV()),
                 t = at(adamw.getStep()), lr = at(adamw.getLr());
            if (failed(p) || failed(g) || failed(m) || failed(v) || failed(t) ||
                failed(lr))
              return k.unsupported();
            double b1 = adamw.getBeta1().convertToDouble(),
                   b2 = adamw.getBeta2().convertToDouble(),
                   eps = adamw.getEpsilon().convertToDouble(),
                   wd = adamw.getWeightDecay().convertToDouble();
            auto mul = [&](Value x, Value y) {
              return arith::MulFOp::create(b, x, y).getResult();
            };
            auto add = [&](Value x, Value y) {
              return arith::AddFOp::create(b, x, y).getResult();
            };
            auto sub = [&](Value x, Value y) {
              return arith::SubFOp::create(b, x, y).getResult();
            };
            auto div = [&](Value x, Value y) {
              return arith::DivFOp::create(b, x, y).getResult();
            };
            Value c1 = sub(c(1), math::PowFOp::create(b, c(b1), *t));
            Value c2 = sub(c(1), math::PowFOp::create(b, c(b2), *t));
            Value mk = add(mul(c(b1), *m), mul(c(1 - b1), *g));
            Value vk = add(mul(c(b2), *v), mul(mul(c(1 - b2), *g), *g));
            Value denom = add(math::SqrtOp::create(b, div(vk, c2)), c(eps));
            Value pk =
                sub(*p, mul(*lr, add(div(div(mk, c1), denom), mul(c(wd), *p))));
            if (skip) {
              pk = arith::SelectOp::create(b, skip, *p, pk);
              mk = arith::SelectOp::create(b, skip, *m, mk);
              vk = arith::SelectOp::create(b, skip, *v, vk);
            }
            Type e = elementOf(adamw.getParam());
            body.setUniform(adamw.getNewParam(), body.convert(pk, e));
            body.setUniform(adamw.getNewM(), body.convert(mk, e));
            body.setUniform(adamw.getNewV(), body.convert(vk, e));
            for (unsigned i : outputsOf[u])
              if (failed(k.store(i, idx)))
                return failure();
            return success();
          });
          if (failed(r))
            return failure();
        }
        return success();
      });
  if (failed(ok))
    return failure();
  return Geometry{std::max<int64_t>(1, (total + tile - 1) / tile), threads};
}

} // namespace mlir::nova::tile_to_gpu
