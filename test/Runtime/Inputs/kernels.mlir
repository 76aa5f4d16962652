// Kernels for the runtime's GPU integration tests (unittests/Runtime/GpuTest.cpp),
// lowered by Debian's upstream mlir-opt to PTX with raw-pointer parameters
// (utils/make-test-kernels.sh). The memref sizes are nominal: with the
// bare-pointer convention only the element type and the base pointer matter.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    // c[i] = a[i] + b[i] for i < n
    gpu.func @vadd(%a: memref<268435456xf32>, %b: memref<268435456xf32>,
                   %c: memref<268435456xf32>, %n: i32) kernel {
      %i = gpu.global_id x
      %ni = arith.index_cast %n : i32 to index
      %in = arith.cmpi slt, %i, %ni : index
      scf.if %in {
        %x = memref.load %a[%i] : memref<268435456xf32>
        %y = memref.load %b[%i] : memref<268435456xf32>
        %s = arith.addf %x, %y : f32
        memref.store %s, %c[%i] : memref<268435456xf32>
      }
      gpu.return
    }
    // y[i] = alpha * x[i] for i < n (x and y may be the same buffer)
    gpu.func @scale(%x: memref<268435456xf32>, %y: memref<268435456xf32>,
                    %alpha: f32, %n: i32) kernel {
      %i = gpu.global_id x
      %ni = arith.index_cast %n : i32 to index
      %in = arith.cmpi slt, %i, %ni : index
      scf.if %in {
        %v = memref.load %x[%i] : memref<268435456xf32>
        %s = arith.mulf %alpha, %v : f32
        memref.store %s, %y[%i] : memref<268435456xf32>
      }
      gpu.return
    }
  }
}
