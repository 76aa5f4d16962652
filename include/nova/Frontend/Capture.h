//===- Capture.h - record eager-style C++ into the nova dialect -*- C++ -*-===//
//
// Code written against this API looks eager (tensors, operators, matmul,
// softmax, ...) but records one func.func of nova ops:
//
//   MLIRContext ctx;
//   capture::Graph g(ctx, "loss");
//   Tensor x = g.input("x", {8, 16});
//   Tensor w = g.param("w", {16, 4});
//   Tensor loss = capture::sum(capture::tanh(capture::matmul(x, w)));
//   OwningOpRef<ModuleOp> module = g.finish(loss);
//
// Every op is checked by the nova dialect's own inference and verifier as it
// is recorded. A shape or dtype error throws capture::Error naming the C++
// file and line that made the bad op; ops carry those lines as their
// locations, so later diagnostics point at the model source too.
//
//===----------------------------------------------------------------------===//

#ifndef NOVA_FRONTEND_CAPTURE_H
#define NOVA_FRONTEND_CAPTURE_H

#include "nova/Dialect/Nova/IR/NovaOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <stdexcept>
#include <string>
#include <vector>

namespace mlir::nova::capture {

/// The C++ source position of a call, filled in at the call site.
struct Where {
  const char *file;
  unsigned line;
  Where(const char *file = __builtin_FILE(), unsigned line = __builtin_LINE())
      : file(file), line(line) {}
};

/// A shape or dtype error, with the position of the offending call.
class Error : public std::runtime_error {
public:
  Error(const Where &where, const std::string &message);
  const std::string &file() const { return file_; }
  unsigned line() const { return line_; }

private:
  std::string file_;
  unsigned line_;
};

class Graph;

/// A recorded value: a handle to an SSA value of the graph being built.
class Tensor {
public:
  Tensor() = default;
  Tensor(Graph *graph, Value value) : graph_(graph), value_(value) {}

  Value value() const { return value_; }
  Graph &graph() const { return *graph_; }
  ArrayRef<int64_t> shape() const;
  int64_t dim(int64_t i) const; // negative counts from the end
  int64_t rank() const { return int64_t(shape().size()); }
  Type elementType() const;

private:
  Graph *graph_ = nullptr;
  Value value_;
};

/// A tensor operand that remembers where the expression using it was
/// written (operators cannot take a defaulted position argument).
struct At {
  const Tensor &t;
  Where where;
  At(const Tensor &t, Where where = Where()) : t(t), where(where) {}
};

class Graph {
public:
  /// Starts recording function `name` in a new module.
  Graph(MLIRContext &context, StringRef name);

  /// A trainable parameter argument (`{nova.param, nova.name = name}`).
  Tensor param(StringRef name, ArrayRef<int64_t> shape, Type element = {},
               Where where = Where());
  /// A non-trainable input argument (`{nova.name = name}`).
  Tensor input(StringRef name, ArrayRef<int64_t> shape, Type element = {},
               Where where = Where());
  /// A scalar constant of `element` (default f32).
  Tensor scalar(double value, Type element = {}, Where where = Where());

  /// Ends recording: returns `results` (named `names`, if given) and the
  /// verified module. The graph cannot be used afterwards.
  OwningOpRef<ModuleOp> finish(ArrayRef<Tensor> results,
                               ArrayRef<std::string> names = {});

  MLIRContext &context() { return ctx; }
  Type f32() { return builder.getF32Type(); }
  Type i32() { return builder.getI32Type(); }
  Type i64() { return builder.getI64Type(); }

  /// Records `opName` (a nova op) with `operands` and `attributes`; the
  /// result type is inferred unless given. Runs the op's verifier and throws
  /// Error on any diagnostic. All the free functions below go through here.
  Tensor emit(const Where &where, StringRef opName, ArrayRef<Tensor> operands,
              ArrayRef<NamedAttribute> attributes = {}, Type resultType = {});
  /// Same for ops with several results.
  std::vector<Tensor> emitMulti(const Where &where, StringRef opName,
                                ArrayRef<Tensor> operands,
                                ArrayRef<NamedAttribute> attributes,
                                TypeRange resultTypes);
  OpBuilder &b() { return builder; }

private:
  Tensor addArgument(StringRef name, ArrayRef<int64_t> shape, Type element,
                     bool trainable, const Where &where);
  Location loc(const Where &where);

  MLIRContext &ctx;
  OpBuilder builder;
  OwningOpRef<ModuleOp> module;
  func::FuncOp fn;
  /// Argument attributes, set on `fn` (with its type) once by finish():
  /// updating the function per argument would create a new, uniqued
  /// function type and attribute array each time, memory quadratic in the
  /// number of arguments.
  std::vector<DictionaryAttr> argAttrs;
  bool finished = false;
};

// Elementwise (NumPy broadcasting).
Tensor operator+(At a, const Tensor &b);
Tensor operator-(At a, const Tensor &b);
Tensor operator*(At a, const Tensor &b);
Tensor operator/(At a, const Tensor &b);
Tensor operator+(At a, double b);
Tensor operator-(At a, double b);
Tensor operator*(At a, double b);
Tensor operator/(At a, double b);
Tensor operator-(At a);
Tensor exp(At x);
Tensor log(At x);
Tensor tanh(At x);
Tensor sqrt(At x);
Tensor rsqrt(At x);
Tensor relu(At x);
Tensor sigmoid(At x);
Tensor gelu(At x, bool tanhApproximation = true);
Tensor cast(At x, Type element);
/// An i1 tensor: `a PREDICATE b` per element (broadcasting).
Tensor compare(At a, const Tensor &b, CmpPredicate predicate);
/// `condition ? onTrue : onFalse` per element (all three broadcast).
Tensor select(At condition, const Tensor &onTrue, const Tensor &onFalse);

// Reductions.
Tensor sum(At x, ArrayRef<int64_t> dims = {}, bool keepDims = false);
Tensor max(At x, ArrayRef<int64_t> dims = {}, bool keepDims = false);
Tensor mean(At x, ArrayRef<int64_t> dims = {}, bool keepDims = false);

// Shapes and data movement.
Tensor reshape(At x, ArrayRef<int64_t> shape);
Tensor transpose(At x, ArrayRef<int64_t> permutation);
Tensor slice(At x, ArrayRef<int64_t> starts, ArrayRef<int64_t> limits,
             ArrayRef<int64_t> strides = {});
Tensor concat(ArrayRef<Tensor> xs, int64_t dim, Where where = Where());
Tensor gather(At table, const Tensor &indices, int64_t axis = 0);
Tensor iota(Graph &g, ArrayRef<int64_t> shape, Type element, int64_t dim,
            Where where = Where());

// Linear algebra and composites.
Tensor matmul(At a, const Tensor &b, bool transposeA = false,
              bool transposeB = false);
Tensor softmax(At x, int64_t dim = -1);
Tensor log_softmax(At x, int64_t dim = -1);
Tensor layer_norm(At x, const Tensor &weight, const Tensor &bias,
                  double epsilon = 1e-5);
/// Mean over the labels that are not `ignoreIndex` (PyTorch's default -100).
Tensor cross_entropy(At logits, const Tensor &labels,
                     int64_t ignoreIndex = -100);
Tensor attention(At q, const Tensor &k, const Tensor &v, double scale,
                 bool causal);

} // namespace mlir::nova::capture

#endif // NOVA_FRONTEND_CAPTURE_H
