// The rocdsl-to-host pipeline leaves only LLVM dialect: a function per
// kernel with the six grid arguments appended, bf16 conversions expanded to
// integer arithmetic (no soft-float calls), reductions as vector.reduce.
// RUN: rocdsl-opt %s --rocdsl-to-host | FileCheck %s

#blk = #rocdsl.blocked<sizePerThread = [8], threadsPerWarp = [64], warpsPerCTA = [1], order = [0]>
rocdsl.func @sum_bf16(%x: !rocdsl.ptr<bf16>, %out: !rocdsl.ptr<f32>) attributes {num_warps = 1 : i32} {
  %c0 = arith.constant 0 : i32
  %t = rocdsl.load %x[%c0] {vec = 8 : i32} : !rocdsl.ptr<bf16> -> tensor<512xbf16, #blk>
  %f = arith.extf %t : tensor<512xbf16, #blk> to tensor<512xf32, #blk>
  %s = rocdsl.reduce add %f {axis = 0 : i32} : tensor<512xf32, #blk> -> f32
  %r = rocdsl.splat %s : f32 -> tensor<512xf32, #blk>
  %b = arith.truncf %r : tensor<512xf32, #blk> to tensor<512xbf16, #blk>
  rocdsl.store %b, %x[%c0] {vec = 8 : i32} : tensor<512xbf16, #blk>, !rocdsl.ptr<bf16>
  rocdsl.return
}

// CHECK:     llvm.func @sum_bf16(%{{.+}}: !llvm.ptr, %{{.+}}: !llvm.ptr, %{{.+}}: i32, %{{.+}}: i32, %{{.+}}: i32, %{{.+}}: i32, %{{.+}}: i32, %{{.+}}: i32)
// CHECK:     llvm.load %{{.+}} {alignment = 16 : i64} : !llvm.ptr -> vector<512xi16>
// CHECK:     llvm.shl
// CHECK:     llvm.intr.vector.reduce.fadd
// CHECK:     llvm.store %{{.+}}, %{{.+}} {alignment = 16 : i64} : vector<512xi16>, !llvm.ptr
// CHECK-NOT: rocdsl.
// CHECK-NOT: vector.
// CHECK-NOT: llvm.call
