// convert-rocdsl-to-host: one call per program instance, whole tiles as
// n-D vectors, grid values as trailing i32 arguments, bounded rows copied
// through a stack buffer by exactly their valid prefix, explicitly masked
// rows copied element by element through a stack buffer in a loop guarded by
// the mask (never llvm.intr.masked.load/store), reductions as vector.multi_reduction, barriers gone.
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
// The first 7 lanes are on (iota < 7, folded): the mask is kept a byte per
// element.
// CHECK:         %[[MASK:.+]] = arith.constant dense<"0x01010101010101{{0+}}"> : vector<256xi8>
// CHECK-COUNT-2: llvm.alloca %{{.+}} x !llvm.array<256 x i8>
// The load: the row starts as `other`, then each masked-on element is
// copied in from memory.
// CHECK:         %[[OTHER:.+]] = vector.broadcast %arg1 : f16 to vector<256xf16>
// CHECK:         %[[PASS:.+]] = llvm.bitcast %[[OTHER]] : vector<256xf16> to vector<256xi16>
// CHECK:         llvm.store %[[PASS]], %[[LROW:[^ ]+]] {alignment = 16 : i64}
// CHECK:         llvm.store %[[MASK]], %{{.+}} {alignment = 1 : i64} : vector<256xi8>
// CHECK:         scf.for %[[I:.+]] = %{{.+}} to %{{.+}} step %{{.+}} : i64 {
// CHECK:           %[[BYTE:.+]] = llvm.load %{{.+}} : !llvm.ptr -> i8
// CHECK:           %[[ON:.+]] = arith.cmpi ne, %[[BYTE]], %{{.+}} : i8
// CHECK:           scf.if %[[ON]] {
// CHECK:             %[[SRC:.+]] = llvm.getelementptr %arg0[%[[I]]] : (!llvm.ptr, i64) -> !llvm.ptr, i16
// CHECK:             %[[E:.+]] = llvm.load %[[SRC]] {alignment = 2 : i64} : !llvm.ptr -> i16
// CHECK:             %[[DST:.+]] = llvm.getelementptr %[[LROW]][%[[I]]]
// CHECK:             llvm.store %[[E]], %[[DST]] {alignment = 2 : i64} : i16, !llvm.ptr
// CHECK:         %[[ROW:.+]] = llvm.load %[[LROW]] {alignment = 16 : i64} : !llvm.ptr -> vector<256xi16>
// The store: the row goes to a buffer, and only masked-on elements leave it.
// CHECK:         arith.extsi %[[NY]]
// CHECK:         %[[OUT:.+]] = llvm.getelementptr %arg0[%{{.+}}] : (!llvm.ptr, i64) -> !llvm.ptr, f16
// CHECK:         llvm.store %[[ROW]], %[[SROW:[^ ]+]] {alignment = 16 : i64}
// CHECK:         scf.for %[[J:.+]] = %{{.+}} to %{{.+}} step %{{.+}} : i64 {
// CHECK:           scf.if %{{.+}} {
// CHECK:             %[[FROM:.+]] = llvm.getelementptr %[[SROW]][%[[J]]]
// CHECK:             %[[V:.+]] = llvm.load %[[FROM]] {alignment = 2 : i64} : !llvm.ptr -> i16
// CHECK:             %[[TO:.+]] = llvm.getelementptr %[[OUT]][%[[J]]] : (!llvm.ptr, i64) -> !llvm.ptr, i16
// CHECK:             llvm.store %[[V]], %[[TO]] {alignment = 2 : i64} : i16, !llvm.ptr
// CHECK-NOT:     llvm.intr.masked

// -----

// atomic_add: a thread runs a program, so each valid element is one
// atomicrmw in a loop over the row, behind the element's validity byte;
// program_atomic is one acquire-release atomicrmw.
// CHECK-LABEL: func.func @atomics
// CHECK:         scf.for
// CHECK:           scf.if
// CHECK:             llvm.atomicrmw fadd %{{.*}}, %{{.*}} monotonic
// CHECK:         llvm.atomicrmw add %{{.*}}, %{{.*}} acq_rel
#atomics_l = #rocdsl.blocked<sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [1], order = [0]>
rocdsl.func @atomics(%acc: !rocdsl.ptr<f32>, %count: !rocdsl.ptr<i32>, %v: f32, %n: i32) attributes {num_warps = 1 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %t = rocdsl.splat %v : f32 -> tensor<64xf32, #atomics_l>
  rocdsl.atomic_add %t, %acc[%c0] bounds [%n] : tensor<64xf32, #atomics_l>, !rocdsl.ptr<f32>
  %old = rocdsl.program_atomic add %count[%c0], %c1 : !rocdsl.ptr<i32>
  rocdsl.return
}
