//===- Optimizer.cpp - the optimizer family
//---------------------------------===//
//
// One launch updates every parameter. Adamw ops whose elements compute the
// same way (GPT-2's 148 parameters make three such groups) share one loop
// body: a loop over the group's members picks each member's buffers
// (scf.index_switch) and runs a grid-stride loop over its 16-byte chunks,
// so the code grows with the groups, not the parameters, and every block
// works on every tensor. The ragged end of a tensor is updated element by
// element. Scalars (step, learning rate) are read once per thread and the
// bias corrections computed once per group, before the loops.
//
//===----------------------------------------------------------------------===//

#include "Emitter.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

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

static bool isView(Operation *op) {
  return isa<nv::ReshapeOp, nv::BroadcastOp, nv::TransposeOp, nv::SliceOp,
             nv::ConcatOp>(op);
}

namespace {
/// One adamw and the kernel outputs computed from it.
struct Member {
  nv::AdamWOp adamw;
  SmallVector<unsigned> outputs;
  /// Arguments of the parameter's shape read element for element: loaded
  /// a chunk at a time and bound, never read at an index.
  SmallVector<BlockArgument> streamed;
  /// Equal for members whose elements compute the same way from
  /// positionally matching `streamed` arguments; empty when the member
  /// reads anything else of its shape (a view, a constant tensor) and so
  /// needs its own loop with its own indices.
  std::string structure;
};
} // namespace

/// Fills `m.streamed` and `m.structure` from the values `m`'s outputs are
/// computed from.
static void analyze(Member &m, ValueRange outputs) {
  ArrayRef<int64_t> shape = shapeOf(m.adamw.getParam());
  std::string key;
  llvm::raw_string_ostream os(key);
  DenseMap<Value, unsigned> ids;
  bool groupable = true;
  std::function<void(Value)> visit = [&](Value v) {
    if (auto it = ids.find(v); it != ids.end()) {
      os << '%' << it->second << ' ';
      return;
    }
    bool single = product(shapeOf(v)) == 1;
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      // Scalars are uniform (the same argument for the whole group).
      if (single)
        os << "scalar" << arg.getArgNumber() << ' ';
      else if (shapeOf(arg) == shape && vectorizable(elementOf(arg))) {
        os << "streamed" << m.streamed.size() << ':' << elementOf(arg) << ' ';
        m.streamed.push_back(arg);
      } else {
        groupable = false;
      }
    } else {
      Operation *op = v.getDefiningOp();
      if ((!single && (shapeOf(v) != shape || op->getNumOperands() == 0)) ||
          isView(op) || op->getNumRegions()) {
        // Read at its own index (scalar loads of this member's shape).
        groupable = false;
        if (isView(op))
          return;
      }
      os << op->getName() << ' ' << op->getAttrDictionary() << " #"
         << cast<OpResult>(v).getResultNumber() << ':' << elementOf(v)
         << (single ? " scalar" : "") << " (";
      for (Value operand : op->getOperands())
        visit(operand);
      os << ") ";
    }
    ids[v] = ids.size();
  };
  for (Value out : outputs) {
    if (!vectorizable(elementOf(out)))
      groupable = false;
    visit(out);
    os << "; ";
  }
  if (groupable)
    m.structure = std::move(key);
}

FailureOr<Geometry> emitOptimizer(KernelContext &k) {
  ImplicitLocOpBuilder &b = k.b;
  BodyEmitter &body = k.body;
  int64_t total = k.contract.space.front();
  int64_t threads = k.schedule.getThreads();
  SmallVector<Member> members;
  for (nv::AdamWOp adamw : k.block().getOps<nv::AdamWOp>())
    members.push_back({adamw, {}, {}, {}});
  for (auto [i, v] : llvm::enumerate(k.outputs())) {
    nv::AdamWOp adamw = updateOf(v);
    if (!adamw || shapeOf(v) != shapeOf(adamw.getParam()))
      return k.fail("output #" + Twine(i) +
                    " is not an adamw result (through elementwise ops of "
                    "its shape)");
    llvm::find_if(members, [&](const Member &m) {
      return m.adamw == adamw;
    })->outputs.push_back(i);
  }
  // Groups of members that share a loop body, in body order.
  SmallVector<SmallVector<unsigned>> groups;
  llvm::StringMap<unsigned> groupOf;
  for (auto [i, m] : llvm::enumerate(members)) {
    if (m.outputs.empty() || product(shapeOf(m.adamw.getParam())) == 0)
      continue;
    SmallVector<Value> outs;
    for (unsigned o : m.outputs)
      outs.push_back(k.outputs()[o]);
    analyze(m, outs);
    if (!m.structure.empty()) {
      auto [it, fresh] = groupOf.try_emplace(m.structure, groups.size());
      if (!fresh) {
        groups[it->second].push_back(i);
        continue;
      }
    }
    groups.push_back({unsigned(i)});
  }

  // 16-byte chunks of the widest element type; enough blocks that each
  // thread has a few chunks of the whole update, no more than a resident
  // grid needs (the loops stride over the rest).
  unsigned widest = 8;
  for (BlockArgument arg : k.block().getArguments())
    if (!shapeOf(arg).empty() && vectorizable(elementOf(arg)))
      widest = std::max(widest, elementOf(arg).getIntOrFloatBitWidth());
  for (Value v : k.outputs())
    widest = std::max(widest, elementOf(v).getIntOrFloatBitWidth());
  int64_t width = std::max<int64_t>(1, 128 / widest);
  constexpr int64_t kMaxBlocks = 1056, kChunksPerThread = 4;
  int64_t grid =
      std::clamp<int64_t>((total + width * threads * kChunksPerThread - 1) /
                              (width * threads * kChunksPerThread),
                          1, kMaxBlocks);
  int64_t stride = grid * threads;

  // A failed check earlier in the step (bad labels, a non-finite loss or
  // gradient norm) skips the update, as PyTorch's GradScaler skips a step:
  // every output gets its input back, so parameters and moments are
  // unchanged whether or not the outputs share their inputs' memory.
  Value skip = body.status ? body.statusRaised() : Value();
  Type f64 = b.getF64Type();
  auto c = [&](double x) {
    return arith::ConstantOp::create(b, f64, b.getF64FloatAttr(x));
  };
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
  // Single-element arguments (step, learning rate, a gradient scale) once
  // per thread: uniform for every element from here on.
  for (BlockArgument arg : k.block().getArguments())
    if (!arg.use_empty() && product(shapeOf(arg)) == 1) {
      SmallVector<Value> zeros(shapeOf(arg).size(), body.index(0));
      auto x = body.eval(arg, zeros);
      if (failed(x))
        return k.unsupported();
      body.setUniform(arg, *x);
    }
  auto scalar = [&](Value v) -> FailureOr<Value> {
    SmallVector<Value> zeros(shapeOf(v).size(), body.index(0));
    auto x = body.eval(v, zeros);
    if (failed(x))
      return failure();
    return body.convert(*x, f64);
  };
  Value gtid = arith::AddIOp::create(
      b, arith::MulIOp::create(b, k.blockId(), body.index(threads)),
      k.threadId());

  for (ArrayRef<unsigned> group : groups) {
    const Member &rep = members[group.front()];
    nv::AdamWOp adamw = rep.adamw;
    ArrayRef<int64_t> shape = shapeOf(adamw.getParam());
    auto t = scalar(adamw.getStep()), lr = scalar(adamw.getLr());
    if (failed(t) || failed(lr))
      return k.unsupported();
    double b1 = adamw.getBeta1().convertToDouble(),
           b2 = adamw.getBeta2().convertToDouble(),
           eps = adamw.getEpsilon().convertToDouble(),
           wd = adamw.getWeightDecay().convertToDouble();
    // Computed in f64 as the interpreter does, in the same order. The bias
    // corrections enter as reciprocals: f64 divisions are many instructions
    // on the FP64 pipe, and three an element kept the kernel from the
    // memory's rate.
    Value r1 = div(c(1), sub(c(1), math::PowFOp::create(b, c(b1), *t)));
    Value r2 = div(c(1), sub(c(1), math::PowFOp::create(b, c(b2), *t)));
    Type e = elementOf(adamw.getParam());
    // The representative's outputs at `idx`, with its three results
    // registered as uniform values (valid until the next call).
    auto update = [&](ArrayRef<Value> idx) -> FailureOr<SmallVector<Value>> {
      auto at = [&](Value v) -> FailureOr<Value> {
        auto x = body.eval(v, body.project(idx, shapeOf(v)));
        if (failed(x))
          return failure();
        return body.convert(*x, f64);
      };
      auto p = at(adamw.getParam()), g = at(adamw.getGrad()),
           m = at(adamw.getM()), v = at(adamw.getV());
      if (failed(p) || failed(g) || failed(m) || failed(v))
        return failure();
      Value mk = add(mul(c(b1), *m), mul(c(1 - b1), *g));
      Value vk = add(mul(c(b2), *v), mul(mul(c(1 - b2), *g), *g));
      Value denom = add(math::SqrtOp::create(b, mul(vk, r2)), c(eps));
      Value pk =
          sub(*p, mul(*lr, add(div(mul(mk, r1), denom), mul(c(wd), *p))));
      if (skip) {
        pk = arith::SelectOp::create(b, skip, *p, pk);
        mk = arith::SelectOp::create(b, skip, *m, mk);
        vk = arith::SelectOp::create(b, skip, *v, vk);
      }
      body.setUniform(adamw.getNewParam(), body.convert(pk, e));
      body.setUniform(adamw.getNewM(), body.convert(mk, e));
      body.setUniform(adamw.getNewV(), body.convert(vk, e));
      SmallVector<Value> out;
      for (unsigned i : rep.outputs) {
        auto x = body.eval(k.outputs()[i], idx);
        if (failed(x))
          return failure();
        k.checkFinite(i, *x);
        out.push_back(*x);
      }
      return out;
    };

    // A member's streamed inputs then its outputs as flat buffers (null
    // for an output stored element by element), of dynamic size when the
    // group shares the loop.
    bool shared = group.size() > 1;
    auto flatBuffers = [&](const Member &m) {
      SmallVector<Value> flat;
      auto push = [&](Value buffer) {
        Value f = flatten(b, buffer);
        if (shared)
          f = memref::CastOp::create(
              b, MemRefType::get({ShapedType::kDynamic}, elementOf(buffer)), f);
        flat.push_back(f);
      };
      for (BlockArgument arg : m.streamed)
        push(body.input(arg));
      for (unsigned i : m.outputs) {
        if (vectorizable(elementOf(k.outputs()[i])))
          push(k.outputBuffers[i]);
        else
          flat.push_back(Value());
      }
      return flat;
    };
    size_t inputs = rep.streamed.size();

    // Chunks [lb, ub) of `w` elements, grid-strided over `buffers`: one
    // vector access per streamed tensor and output when w > 1.
    auto chunks = [&](ArrayRef<Value> buffers, Value lb, Value ub,
                      int64_t w) -> LogicalResult {
      auto align = [&](Type element) {
        return llvm::MaybeAlign(w * element.getIntOrFloatBitWidth() / 8);
      };
      return k.loop(
          lb, ub, body.index(stride), [&](Value chunk) -> LogicalResult {
            Value first =
                w > 1
                    ? arith::MulIOp::create(b, chunk, body.index(w)).getResult()
                    : chunk;
            SmallVector<Value> loaded;
            for (auto [arg, flat] :
                 llvm::zip(rep.streamed, buffers.take_front(inputs))) {
              if (w > 1)
                loaded.push_back(vector::LoadOp::create(
                    b, VectorType::get({w}, elementOf(arg)), flat,
                    ValueRange{first}, /*nontemporal=*/false,
                    align(elementOf(arg))));
              else
                loaded.push_back(memref::LoadOp::create(b, flat, first));
            }
            SmallVector<SmallVector<Value>> lanes(rep.outputs.size());
            for (int64_t lane = 0; lane < w; ++lane) {
              body.pushScope();
              Value linear =
                  lane ? arith::AddIOp::create(b, first, body.index(lane))
                       : first;
              SmallVector<Value> idx = body.delinearize(linear, shape);
              for (auto [arg, x] : llvm::zip(rep.streamed, loaded))
                body.bind(
                    arg, body.project(idx, shapeOf(arg)),
                    w > 1 ? vector::ExtractOp::create(b, x, lane).getResult()
                          : x);
              auto out = update(idx);
              if (failed(out))
                return k.unsupported();
              for (auto [j, x] : llvm::enumerate(*out)) {
                Value flat = buffers[inputs + j];
                if (!flat)
                  memref::StoreOp::create(b, x, k.outputBuffers[rep.outputs[j]],
                                          idx);
                else if (w == 1)
                  memref::StoreOp::create(b, x, flat, first);
                lanes[j].push_back(x);
              }
              body.popScope();
            }
            for (auto [j, i] : llvm::enumerate(rep.outputs)) {
              Value flat = buffers[inputs + j];
              if (w == 1 || !flat)
                continue;
              Type element = elementOf(k.outputs()[i]);
              Value vec = vector::FromElementsOp::create(
                  b, VectorType::get({w}, element), lanes[j]);
              vector::StoreOp::create(b, vec, flat, ValueRange{first},
                                      /*nontemporal=*/false, align(element));
            }
            return success();
          });
    };
    // Whole chunks as vectors, then the ragged rest element by element
    // (`n`: the member's element count).
    auto member = [&](ArrayRef<Value> buffers, Value n) -> LogicalResult {
      Value whole = body.index(0);
      if (width > 1) {
        Value count = arith::DivUIOp::create(b, n, body.index(width));
        if (failed(chunks(buffers, gtid, count, width)))
          return failure();
        whole = arith::MulIOp::create(b, count, body.index(width));
      }
      return chunks(buffers, arith::AddIOp::create(b, gtid, whole), n, 1);
    };
    if (!shared) {
      SmallVector<Value> buffers = flatBuffers(rep);
      if (failed(member(buffers, body.index(product(shape)))))
        return failure();
      continue;
    }
    // The group's members one after another; a switch on the member picks
    // its buffers and size.
    SmallVector<Type> types;
    for (Value f : flatBuffers(rep))
      types.push_back(f.getType());
    types.push_back(b.getIndexType());
    auto forOp = scf::ForOp::create(b, body.index(0), body.index(group.size()),
                                    body.index(1));
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(forOp.getBody()->getTerminator());
    auto cases = llvm::to_vector(llvm::seq<int64_t>(1, group.size()));
    auto pick = scf::IndexSwitchOp::create(b, types, forOp.getInductionVar(),
                                           cases, cases.size());
    for (auto [c, i] : llvm::enumerate(group)) {
      // Member 0 is the default region.
      Region &region =
          c ? pick.getCaseRegions()[c - 1] : pick.getDefaultRegion();
      OpBuilder::InsertionGuard inCase(b);
      b.setInsertionPointToStart(&region.emplaceBlock());
      SmallVector<Value> yielded = flatBuffers(members[i]);
      yielded.push_back(arith::ConstantIndexOp::create(
          b, product(shapeOf(members[i].adamw.getParam()))));
      scf::YieldOp::create(b, yielded);
    }
    SmallVector<Value> picked(pick.getResults());
    Value n = picked.pop_back_val();
    body.pushScope();
    LogicalResult r = member(picked, n);
    body.popScope();
    if (failed(r))
      return failure();
  }
  return Geometry{grid, threads};
}

} // namespace mlir::nova::tile_to_gpu
