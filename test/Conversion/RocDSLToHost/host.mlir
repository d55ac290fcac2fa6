// convert-rocdsl-to-host: one call per program instance, whole tiles as
// n-D vectors, grid values as trailing i32 arguments, bounded rows copied
// through a stack buffer by exactly their valid prefix, explicit masks as
// masked loads/stores, reductions as vector.multi_reduction, barriers gone.
// RUN: rocdsl-opt %s --split-input-file --convert-rocdsl-to-host --canonicalize | FileCheck %s

#blk = #rocdsl.blocked<sizePerThread = [1, 4], threadsPerWarp = [1, 64], warpsPerCTA = [1, 4], order = [1, 0]>
#row = #rocdsl.slice<dim = 1, parent = #blk>
rocdsl.func @rows(%x: !rocdsl.ptr<f32>, %y: !rocdsl.ptr<f32>, %m: i32) attributes {num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %n = arith.constant 1000 : i32
  %pid = rocdsl.program_id x : i32
  %t = rocdsl.load %x[%pid, %c0] strides [%n] bounds [%m, %n] {vec = 4 : i32} : !rocdsl.ptr<f32> -> tensor<2x1024xf32, #blk>
  %s = rocdsl.reduce add %t {axis = 1 : i32} : tensor<2x1024xf32, #blk> -> tensor<2xf32, #row>
  %e = rocdsl.expand_dims %s {axis = 1 : i32} : tensor<2xf32, #row> -> tensor<2x1xf32, #blk>
  %b = rocdsl.broadcast %e : tensor<2x1xf32, #blk> -> tensor<2x1024xf32, #blk>
  %d = arith.divf %t, %b : tensor<2x1024xf32, #blk>
  rocdsl.barrier
  rocdsl.store %d, %y[%pid, %c0] strides [%n] bounds [%m, %n] {vec = 4 : i32} : tensor<2x1024xf32, #blk>, !rocdsl.ptr<f32>
  rocdsl.return
}

// CHECK-LABEL: func.func @rows(
// CHECK-SAME:    %[[X:[^:]+]]: !llvm.ptr, %[[Y:[^:]+]]: !llvm.ptr, %[[M:[^:]+]]: i32,
// CHECK-SAME:    %[[PID:[^:]+]]: i32, %{{[^:]+}}: i32, %{{[^:]+}}: i32, %{{[^:]+}}: i32, %{{[^:]+}}: i32, %{{[^:]+}}: i32)
// CHECK:         llvm.alloca %{{.+}} x !llvm.array<1024 x i32> {alignment = 16 : i64}
// CHECK:         %[[BUF:.+]] = llvm.alloca %{{.+}} x !llvm.array<1024 x i32> {alignment = 16 : i64}
// CHECK:         arith.extsi %[[PID]] : i32 to i64
// CHECK:         %[[ROW0:.+]] = llvm.getelementptr %[[X]][%{{.+}}] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK:         "llvm.intr.memcpy"(%[[BUF]], %[[ROW0]], %{{.+}}) <{isVolatile = false}>
// CHECK:         llvm.load %[[BUF]] {alignment = 16 : i64} : !llvm.ptr -> vector<1024xi32>
// CHECK:         %[[ROW1:.+]] = llvm.getelementptr %[[ROW0]][1000] : (!llvm.ptr) -> !llvm.ptr, f32
// CHECK:         "llvm.intr.memcpy"(%[[BUF]], %[[ROW1]], %{{.+}}) <{isVolatile = false}>
// CHECK:         vector.multi_reduction <add>, %{{.+}}, %{{.+}} [1] : vector<2x1024xf32> to vector<2xf32>
// CHECK:         vector.shape_cast %{{.+}} : vector<2xf32> to vector<2x1xf32>
// CHECK:         vector.broadcast %{{.+}} : vector<2x1xf32> to vector<2x1024xf32>
// CHECK:         arith.divf %{{.+}}, %{{.+}} : vector<2x1024xf32>
// CHECK-NOT:     barrier
// CHECK:         llvm.getelementptr %[[Y]]
// CHECK:         "llvm.intr.memcpy"(%{{.+}}, %{{.+}}, %{{.+}}) <{isVolatile = false}>
// CHECK:         return

// -----

#b1 = #rocdsl.blocked<sizePerThread = [4], threadsPerWarp = [64], warpsPerCTA = [1], order = [0]>
rocdsl.func @masked(%x: !rocdsl.ptr<f16>, %v: f16) attributes {num_warps = 1 : i32} {
  %c0 = arith.constant 0 : i32
  %c7 = arith.constant 7 : i32
  %i = rocdsl.iota : tensor<256xi32, #b1>
  %lim = rocdsl.splat %c7 : i32 -> tensor<256xi32, #b1>
  %mask = arith.cmpi slt, %i, %lim : tensor<256xi32, #b1>
  %t = rocdsl.load %x[%c0] mask(%mask : tensor<256xi1, #b1>) other(%v : f16) : !rocdsl.ptr<f16> -> tensor<256xf16, #b1>
  %n = rocdsl.num_programs y : i32
  rocdsl.store %t, %x[%n] mask(%mask : tensor<256xi1, #b1>) : tensor<256xf16, #b1>, !rocdsl.ptr<f16>
  rocdsl.return
}

// CHECK-LABEL: func.func @masked(
// CHECK-SAME:    %{{[^:]+}}: i32, %[[NY:[^:]+]]: i32, %{{[^:]+}}: i32)
// The first 7 lanes (bits 0x7F) are on: iota < 7, folded.
// CHECK:         %[[MASK:.+]] = arith.constant dense<"0x7F0000{{0+}}"> : vector<256xi1>
// CHECK:         %[[OTHER:.+]] = vector.broadcast %arg1 : f16 to vector<256xf16>
// CHECK:         %[[PASS:.+]] = llvm.bitcast %[[OTHER]] : vector<256xf16> to vector<256xi16>
// CHECK:         llvm.intr.masked.load %{{.+}}, %[[MASK]], %[[PASS]] {alignment = 2 : i32} : (!llvm.ptr, vector<256xi1>, vector<256xi16>) -> vector<256xi16>
// CHECK:         arith.extsi %[[NY]]
// CHECK:         llvm.intr.masked.store %{{.+}}, %{{.+}}, %[[MASK]] {alignment = 2 : i32} : vector<256xi16>, vector<256xi1> into !llvm.ptr
