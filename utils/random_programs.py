"""Random, valid nova programs for the fuzz campaign's equivalence target.

`random_program(rng)` returns the text of a module with one function @f: a
random DAG over a few related shapes (rows x cols, per-row and per-column
vectors, a matmul's other operand, batched 3-d tensors) of elementwise ops
with broadcasting, casts, reductions along any dims, softmax, layer_norm,
matmuls (transpose flags included), transposes, broadcasts, reshapes, slices
and concats. Every op is typed by construction, so the program verifies and
the interpreter can run it; the passes under test must keep its outputs.
"""

UNARY = ["exp", "tanh", "neg", "abs", "relu", "sigmoid", "rsqrt", "sqrt",
         "log", "reciprocal"]
BINARY = ["add", "sub", "mul", "div", "max", "min"]


def ty(shape, elt="f32"):
    return "tensor<%s%s>" % ("".join("%dx" % d for d in shape), elt)


class Builder:
    def __init__(self, rng):
        self.rng = rng
        self.lines = []
        self.values = []  # (name, shape)
        self.count = 0

    def fresh(self):
        self.count += 1
        return "%%v%d" % self.count

    def emit(self, text, shape):
        name = self.fresh()
        self.lines.append("    %s = %s" % (name, text))
        self.values.append((name, tuple(shape)))
        return name, tuple(shape)

    def pick(self, pred=lambda s: True):
        choices = [v for v in self.values if pred(v[1])]
        return self.rng.choice(choices) if choices else None


def broadcastable(small, big):
    """Whether `small` broadcasts to `big` (NumPy alignment)."""
    if len(small) > len(big):
        return False
    return all(s in (1, b) for s, b in zip(reversed(small), reversed(big)))


def random_program(rng, max_ops=24):
    rows = rng.choice([1, 2, 3, 5, 8])
    cols = rng.choice([1, 2, 4, 7, 16])
    inner = rng.choice([1, 3, 4, 8])
    batch = rng.choice([2, 3])
    shapes = [(rows, cols), (rows, 1), (cols,), (cols, inner), (inner, cols),
              (batch, rows, cols), ()]
    b = Builder(rng)
    params = []
    for i in range(rng.randint(2, 5)):
        shape = rng.choice(shapes[:6]) if i else (rows, cols)
        name = "%%a%d" % i
        params.append("%s: %s" % (name, ty(shape)))
        b.values.append((name, shape))

    for _ in range(rng.randint(3, max_ops)):
        kind = rng.randrange(14)
        x = b.pick()
        xn, xs = x
        if kind <= 2:  # unary
            op = rng.choice(UNARY + ["gelu tanh", "gelu erf"])
            b.emit("nova.%s %s : %s" % (op, xn, ty(xs)), xs)
        elif kind <= 5:  # binary with broadcasting
            y = b.pick(lambda s: broadcastable(s, xs) or broadcastable(xs, s))
            yn, ys = y
            out = xs if broadcastable(ys, xs) else ys
            if rng.random() < 0.5:
                xn, xs, yn, ys = yn, ys, xn, xs
            b.emit("nova.%s %s, %s : %s, %s" % (rng.choice(BINARY), xn, yn,
                                                ty(xs), ty(ys)), out)
        elif kind == 6 and xs:  # reduction over some dims
            dims = sorted(rng.sample(range(len(xs)), rng.randint(1, len(xs))))
            keep = rng.random() < 0.5
            out = [1 if d in dims else n for d, n in enumerate(xs)] if keep \
                else [n for d, n in enumerate(xs) if d not in dims]
            b.emit("nova.reduce %s %s dims [%s]%s : %s -> %s" % (
                rng.choice(["sum", "sum", "max", "min"]), xn,
                ", ".join(map(str, dims)), " keep_dims" if keep else "",
                ty(xs), ty(out)), out)
        elif kind == 7 and len(xs) >= 2:  # matmul against a fitting operand
            k = xs[-1]
            w = b.pick(lambda s: len(s) == 2 and s[0] == k)
            if w:
                b.emit("nova.matmul %s, %s : %s, %s -> %s" % (
                    xn, w[0], ty(xs), ty(w[1]), ty(xs[:-1] + (w[1][1],))),
                    xs[:-1] + (w[1][1],))
            else:
                w = b.pick(lambda s: len(s) == 2 and s[1] == k)
                if w:
                    b.emit("nova.matmul %s, %s transpose_rhs : %s, %s -> %s" % (
                        xn, w[0], ty(xs), ty(w[1]), ty(xs[:-1] + (w[1][0],))),
                        xs[:-1] + (w[1][0],))
        elif kind == 8 and len(xs) >= 2:  # transpose of the last two dims
            perm = list(range(len(xs)))
            perm[-1], perm[-2] = perm[-2], perm[-1]
            out = tuple(xs[p] for p in perm)
            b.emit("nova.transpose %s [%s] : %s -> %s" % (
                xn, ", ".join(map(str, perm)), ty(xs), ty(out)), out)
        elif kind == 9:  # broadcast to a bigger shape
            targets = [s for s in shapes if s != xs and broadcastable(xs, s)]
            if targets:
                out = rng.choice(targets)
                b.emit("nova.broadcast %s : %s -> %s" % (xn, ty(xs), ty(out)),
                       out)
        elif kind == 10 and xs:  # softmax / log_softmax / layer_norm
            dim = len(xs) - 1
            which = rng.randrange(3)
            if which == 2:
                g = b.pick(lambda s: s == (xs[-1],))
                if g:
                    b.emit("nova.layer_norm %s, %s, %s eps 1.0e-05 : %s, %s" % (
                        xn, g[0], g[0], ty(xs), ty(g[1])), xs)
            else:
                b.emit("nova.%s %s dim %d : %s" % (
                    ["softmax", "log_softmax"][which], xn, dim, ty(xs)), xs)
        elif kind == 11:  # a round trip through bf16 and a reshape
            if rng.random() < 0.5:
                c, _ = b.emit("nova.cast %s : %s to %s" % (xn, ty(xs),
                                                           ty(xs, "bf16")), xs)
                b.values.pop()  # bf16 values stay internal to this pair
                b.emit("nova.cast %s : %s to %s" % (c, ty(xs, "bf16"), ty(xs)),
                       xs)
            else:
                n = 1
                for d in xs:
                    n *= d
                b.emit("nova.reshape %s : %s -> %s" % (xn, ty(xs), ty((n,))),
                       (n,))
        elif kind == 12 and xs and xs[-1] >= 2:  # slice of the last dim
            limit = list(xs)
            limit[-1] = xs[-1] // 2 + 1
            starts = [0] * len(xs)
            b.emit("nova.slice %s starts [%s] limits [%s] strides [%s] : %s -> %s"
                   % (xn, ", ".join(map(str, starts)),
                      ", ".join(map(str, limit)), ", ".join(["1"] * len(xs)),
                      ty(xs), ty(limit)), limit)
        elif kind == 13 and xs:  # select on a comparison
            y = b.pick(lambda s: s == xs)
            c, _ = b.emit("nova.cmp %s, %s, %s : %s, %s" % (
                rng.choice(["lt", "ge", "eq"]), xn, y[0], ty(xs), ty(xs)), xs)
            b.values.pop()  # i1 values feed only this select
            b.emit("nova.select %s, %s, %s : %s, %s, %s" % (
                c, y[0], xn, ty(xs, "i1"), ty(xs), ty(xs)), xs)

    produced = [v for v in b.values if v[0].startswith("%v")]
    if not produced:
        produced = [b.emit("nova.neg %s : %s" % (b.values[0][0],
                                                 ty(b.values[0][1])),
                           b.values[0][1])]
    results = [produced[-1]] + rng.sample(produced,
                                          min(len(produced), rng.randint(0, 2)))
    seen, outs = set(), []
    for r in results:
        if r[0] not in seen:
            seen.add(r[0])
            outs.append(r)
    return ("func.func @f(%s) -> (%s) {\n%s\n    return %s : %s\n}\n" % (
        ", ".join(params), ", ".join(ty(s) for _, s in outs),
        "\n".join(b.lines), ", ".join(n for n, _ in outs),
        ", ".join(ty(s) for _, s in outs)))
