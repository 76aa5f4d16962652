//===- NovaMemOps.td - the nova_mem dialect -----------------*- tablegen -*-===//
//
// The host-side program of one entry: an arena, buffers at byte offsets in
// it, and the flat list of kernel launches.
//
//===----------------------------------------------------------------------===//

#ifndef NOVA_DIALECT_NOVAMEM_IR_NOVAMEMOPS_TD
#define NOVA_DIALECT_NOVAMEM_IR_NOVAMEMOPS_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def NovaMem_Dialect : Dialect {
  let name = "nova_mem";
  let cppNamespace = "::mlir::nova_mem";
  let summary = "Buffers in one arena and the launches that read and write them";
  let description = [{
    A `func.func` whose body is `nova_mem` ops is the host-side program of
    one entry point: what the runtime does, in order, on one device
    allocation (the arena). The function keeps its tensor signature (the
    entry's inputs and outputs); its body binds each argument to a buffer
    (`nova_mem.input`), allocates the other buffers (`nova_mem.alloc`),
    launches outlined kernels (`nova_mem.launch` of a `nova_tile.kernel`)
    on buffers and reads the results out of the arena (`nova_mem.output`,
    returned by `func.return`).

    ```mlir
    func.func @step(%x: tensor<4x8xf32>, %w: tensor<4x8xf32> {nova.param})
        -> (tensor<4x8xf32> {nova.alias = 1 : i64})
        attributes {nova_mem.peak_bytes = 256 : i64, nova_mem.naive_bytes = 384 : i64} {
      %bx = nova_mem.input %x at 0 : tensor<4x8xf32> -> !nova_mem.buffer<4x8xf32>
      %bw = nova_mem.input %w at 128 : tensor<4x8xf32> -> !nova_mem.buffer<4x8xf32>
      %bn = nova_mem.alloc at 128 : !nova_mem.buffer<4x8xf32>
      nova_mem.launch @pointwise_0123(%bx, %bw : !nova_mem.buffer<4x8xf32>, !nova_mem.buffer<4x8xf32>)
          -> (%bn : !nova_mem.buffer<4x8xf32>)
      %r = nova_mem.output %bn : !nova_mem.buffer<4x8xf32> -> tensor<4x8xf32>
      return %r : tensor<4x8xf32>
    }
    ```

    **Buffers are values, memory is offsets.** Each buffer value holds one
    tensor value: it is written by exactly one launch (or is an entry input)
    and read after that. Two buffer values may share bytes (reuse after a
    live range ends, an in-place update); a `nova_mem.view` is the same
    bytes under another shape (a `nova.reshape`). Liveness: an entry input
    is live for the whole program (the runtime keeps inputs resident); any
    other buffer from the launch that writes it to its last read by a
    launch, a view's reader, or an output (outputs are live to the end).

    **A planned program** carries `nova_mem.peak_bytes` (the arena size)
    and `nova_mem.naive_bytes` (every buffer in its own bytes, views not
    counted) on its function. The dialect verifies a planned program: every
    buffer has an offset, 16-byte aligned, inside the arena; no two buffers
    live at the same time share a byte, except an output of a launch that
    takes the bytes of an input whose live range ends at that launch, where
    the kernel reads that input element for element as it writes the output
    (pointwise and optimizer kernels, per the kernel's contract; never a
    matmul or attention operand); every output with `nova.alias = i` is at
    input `i`'s offset with its type, and every buffer is written before it
    is read. A program without `nova_mem.peak_bytes` (what
    `nova-bufferize` produces, or a hand-written test) may leave offsets out
    and is only checked op by op.

    **The `.nvx` executable** (`include/nova/Runtime/Executable.h`) is this
    program, one to one: the function is an `EntryDesc` (`name`); each
    argument, via its `nova_mem.input`, is `inputs[i]` (`name` from
    `nova.name`, `dtype` and `shape` from the type, `offset`); each returned
    `nova_mem.output` is `outputs[j]` (`offset` of its buffer, `alias` from
    the result's `nova.alias`, else -1); `nova_mem.peak_bytes` is
    `arenaSize`; each `nova_mem.launch`, in order, is a `LaunchDesc` whose
    `kernel` indexes the distinct `nova_tile.kernel` symbols (each a
    `KernelDesc` with its structural hash) and whose `args` are one
    `Buffer` argument per input then per output buffer, at the buffer's
    offset. `nova_mem.alloc` and `nova_mem.view` have no record of their
    own: they are offsets the launch arguments carry. Grid and block come
    from the kernel's schedule when the GPU emitters exist. A padded
    leading dimension (`ld`) is part of the buffer type and therefore of
    the launch's argument, which the kernel's code is specialized for.
  }];
  let useDefaultTypePrinterParser = 1;
  let hasOperationAttrVerify = 1;
}

class NovaMem_Type<string name, string typeMnemonic>
    : TypeDef<NovaMem_Dialect, name> {
  let mnemonic = typeMnemonic;
}

def NovaMem_BufferType : NovaMem_Type<"Buffer", "buffer"> {
  let summary = "a tensor stored in the arena";
  let description = [{
    A statically shaped tensor stored row-major in the arena. `ld`, when
    present, is the leading dimension: elements from the start of one
    innermost row to the next (at least the innermost size), so a row can
    start on a 16-byte boundary; without it rows are packed.

    ```mlir
    !nova_mem.buffer<4x8xf32>
    !nova_mem.buffer<2x5xbf16, ld 8>
    ```
  }];
  let parameters = (ins ArrayRefParameter<"int64_t">:$shape,
                        "::mlir::Type":$elementType, "int64_t":$ld);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Bytes the buffer occupies (padding included).
    int64_t getSizeInBytes() const;
    /// Bytes of one element in the arena (i1 takes a byte).
    int64_t getElementBytes() const;
    /// Elements between consecutive innermost rows.
    int64_t getRowPitch() const;
    /// The tensor type of the buffer's value.
    ::mlir::RankedTensorType getTensorType() const;
    static BufferType get(::mlir::RankedTensorType type, int64_t ld = 0);
  }];
}

class NovaMem_Op<string mnemonic, list<Trait> traits = []>
    : Op<NovaMem_Dialect, mnemonic, traits>;

def NovaMem_InputOp : NovaMem_Op<"input"> {
  let summary = "binds an entry argument to a buffer";
  let description = [{
    The function argument `arg` lives in the arena at `offset` (absent
    before planning). Every argument is bound once; the buffer has the
    argument's shape and element type and packed rows.
  }];
  let arguments = (ins AnyStaticShapeTensor:$arg,
                       OptionalAttr<I64Attr>:$offset);
  let results = (outs NovaMem_BufferType:$buffer);
  let assemblyFormat = [{
    $arg (`at` $offset^)? attr-dict `:` type($arg) `->` qualified(type($buffer))
  }];
  let hasVerifier = 1;
}

def NovaMem_AllocOp : NovaMem_Op<"alloc"> {
  let summary = "a buffer for a value the program computes";
  let description = [{
    A buffer at `offset` of the arena (absent before planning), written by
    one launch.
  }];
  let arguments = (ins OptionalAttr<I64Attr>:$offset);
  let results = (outs NovaMem_BufferType:$buffer);
  let assemblyFormat = "(`at` $offset^)? attr-dict `:` qualified(type($buffer))";
  let hasVerifier = 1;
}

def NovaMem_ViewOp : NovaMem_Op<"view", [Pure]> {
  let summary = "the same bytes under another shape (a reshape)";
  let description = [{
    `source`'s elements in the same row-major order with another shape: the
    same element type and count. A buffer with padded rows can only be
    viewed with the same innermost size and `ld`.
  }];
  let arguments = (ins NovaMem_BufferType:$source);
  let results = (outs NovaMem_BufferType:$result);
  let assemblyFormat = "$source attr-dict `:` qualified(type($source)) `->` "
                       "qualified(type($result))";
  let hasVerifier = 1;
}

def NovaMem_LaunchOp : NovaMem_Op<"launch", [AttrSizedOperandSegments,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "runs an outlined kernel on buffers";
  let description = [{
    Runs `nova_tile.kernel @kernel`: its inputs are read from `inputs`, its
    outputs written to `outputs`, one buffer per kernel argument and per
    yielded value, of the same shapes and element types. The outputs are
    distinct buffers made by `nova_mem.alloc` (or views of them).
  }];
  let arguments = (ins FlatSymbolRefAttr:$kernel,
                       Variadic<NovaMem_BufferType>:$inputs,
                       Variadic<NovaMem_BufferType>:$outputs);
  let assemblyFormat = [{
    $kernel `(` ($inputs^ `:` qualified(type($inputs)))? `)`
    `->` `(` ($outputs^ `:` qualified(type($outputs)))? `)` attr-dict
  }];
  let hasVerifier = 1;
}

def NovaMem_OutputOp : NovaMem_Op<"output"> {
  let summary = "an entry result, read from the arena";
  let description = [{
    The tensor in `buffer` when the program ends; used only by the
    function's `func.return`.
  }];
  let arguments = (ins NovaMem_BufferType:$buffer);
  let results = (outs AnyStaticShapeTensor:$result);
  let assemblyFormat = "$buffer attr-dict `:` qualified(type($buffer)) `->` "
                       "type($result)";
  let hasVerifier = 1;
}

#endif // NOVA_DIALECT_NOVAMEM_IR_NOVAMEMOPS_TD
