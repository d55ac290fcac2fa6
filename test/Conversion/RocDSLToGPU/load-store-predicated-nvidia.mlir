// RUN: rocdsl-opt %s --convert-rocdsl-to-gpu=chip=sm_90 --canonicalize --cse | FileCheck %s

// On NVIDIA, a group that may be invalid (out of bounds or masked off) is
// one predicated PTX access, `@p ld.global` / `@p st.global`, with the
// load's registers preset to `other` (0 without one): no branch per group.
// Groups always valid stay plain LLVM loads and stores; 8-bit groups keep
// the branch (no 8-bit register operand in PTX inline assembly).

#l4 = #rocdsl.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]>
#l1 = #rocdsl.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]>

// 128-bit groups under bounds: four preset registers, one predicated v4.
// CHECK-LABEL: gpu.func @bounds_v4(
// CHECK-NOT:     scf.if
// CHECK:         %[[ZERO:.+]] = arith.constant dense<0.000000e+00> : vector<4xf32>
// CHECK:         %[[IN:.+]] = arith.cmpi slt
// CHECK:         %[[PAD:.+]] = llvm.bitcast %[[ZERO]] : vector<4xf32> to vector<4xi32>
// CHECK:         vector.extract %[[PAD]][3]
// CHECK-NEXT:    llvm.inline_asm has_side_effects "mov.b32 $0, $6;\0A\09mov.b32 $1, $7;\0A\09mov.b32 $2, $8;\0A\09mov.b32 $3, $9;\0A\09@$5 ld.global.v4.b32 {$0, $1, $2, $3}, [$4];", "=r,=r,=r,=r,l,b,r,r,r,r" %{{.*}}, %[[IN]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : (!llvm.ptr<1>, i1, i32, i32, i32, i32) -> !llvm.struct<(i32, i32, i32, i32)>
// CHECK:         llvm.inline_asm has_side_effects "@$0 st.global.v4.b32 [$1], {$2, $3, $4, $5};", "b,l,r,r,r,r" %[[IN]], %{{.*}} : (i1, !llvm.ptr<1>, i32, i32, i32, i32) -> ()
// CHECK-NOT:     scf.if
// CHECK:         gpu.return
rocdsl.func @bounds_v4(%x: !rocdsl.ptr<f32>, %y: !rocdsl.ptr<f32>, %n: i32) attributes {num_warps = 1 : i32} {
  %c0 = arith.constant 0 : i32
  %t = rocdsl.load %x[%c0] bounds [%n] {vec = 4 : i32} : !rocdsl.ptr<f32> -> tensor<128xf32, #l4>
  rocdsl.store %t, %y[%c0] bounds [%n] {vec = 4 : i32} : tensor<128xf32, #l4>, !rocdsl.ptr<f32>
  rocdsl.return
}

// Element masks on bf16: 16-bit registers (h), `other` preset through
// its bits.
// CHECK-LABEL: gpu.func @masked_bf16(
// CHECK-NOT:     scf.if
// CHECK:         %[[CST:.+]] = arith.constant dense<0xFF80> : vector<1xbf16>
// CHECK:         %[[M:.+]] = vector.extract %{{.*}}[0] : i1 from vector<1xi1>
// CHECK:         %[[NEGINF:.+]] = llvm.bitcast %[[CST]] : vector<1xbf16> to i16
// CHECK:         llvm.inline_asm has_side_effects "mov.b16 $0, $3;\0A\09@$2 ld.global.b16 $0, [$1];", "=h,l,b,h" %{{.*}}, %[[M]], %[[NEGINF]] : (!llvm.ptr<1>, i1, i16) -> i16
// CHECK:         llvm.inline_asm has_side_effects "@$0 st.global.b16 [$1], $2;", "b,l,h" %[[M]],
// CHECK-NOT:     scf.if
// CHECK:         gpu.return
rocdsl.func @masked_bf16(%x: !rocdsl.ptr<bf16>, %y: !rocdsl.ptr<bf16>, %n: i32) attributes {num_warps = 1 : i32} {
  %c0 = arith.constant 0 : i32
  %i = rocdsl.iota : tensor<32xi32, #l1>
  %nn = rocdsl.splat %n : i32 -> tensor<32xi32, #l1>
  %m = arith.cmpi slt, %i, %nn : tensor<32xi32, #l1>
  %ninf = arith.constant 0xFF80 : bf16
  %t = rocdsl.load %x[%c0] mask(%m : tensor<32xi1, #l1>) other(%ninf : bf16) : !rocdsl.ptr<bf16> -> tensor<32xbf16, #l1>
  rocdsl.store %t, %y[%c0] mask(%m : tensor<32xi1, #l1>) : tensor<32xbf16, #l1>, !rocdsl.ptr<bf16>
  rocdsl.return
}

// No bounds, no mask: plain LLVM accesses.
// CHECK-LABEL: gpu.func @unguarded(
// CHECK-NOT:     llvm.inline_asm
// CHECK:         llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xi32>
// CHECK:         llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr<1>
rocdsl.func @unguarded(%x: !rocdsl.ptr<f32>, %y: !rocdsl.ptr<f32>) attributes {num_warps = 1 : i32} {
  %c0 = arith.constant 0 : i32
  %t = rocdsl.load %x[%c0] {vec = 4 : i32} : !rocdsl.ptr<f32> -> tensor<128xf32, #l4>
  rocdsl.store %t, %y[%c0] {vec = 4 : i32} : tensor<128xf32, #l4>, !rocdsl.ptr<f32>
  rocdsl.return
}

// 8-bit elements under bounds: the branch stays.
// CHECK-LABEL: gpu.func @bounds_i8(
// CHECK-NOT:     llvm.inline_asm
// CHECK:         scf.if
// CHECK:         llvm.load %{{.*}} {alignment = 1 : i64} : !llvm.ptr<1> -> i8
// CHECK:         scf.if
// CHECK:         llvm.store
rocdsl.func @bounds_i8(%x: !rocdsl.ptr<i8>, %y: !rocdsl.ptr<i8>, %n: i32) attributes {num_warps = 1 : i32} {
  %c0 = arith.constant 0 : i32
  %t = rocdsl.load %x[%c0] bounds [%n] : !rocdsl.ptr<i8> -> tensor<32xi8, #l1>
  rocdsl.store %t, %y[%c0] bounds [%n] : tensor<32xi8, #l1>, !rocdsl.ptr<i8>
  rocdsl.return
}
