// RUN: rocdsl-opt %s --convert-rocdsl-to-gpu="chip=gfx942" --canonicalize --cse | FileCheck %s

// Invalid elements (out of bounds or masked off) are not branched around:
// their VGPR byte offset is replaced by 0xbf000000 (-1090519040 as i32),
// past the resource's 0x7fffffff records, so loads read 0 and stores are
// dropped by the hardware. With vec > 1 validity is decided per group.

#l4 = #rocdsl.blocked<sizePerThread = [4], threadsPerWarp = [64], warpsPerCTA = [1], order = [0]>
#l1 = #rocdsl.blocked<sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [1], order = [0]>
#l2 = #rocdsl.blocked<sizePerThread = [2], threadsPerWarp = [64], warpsPerCTA = [1], order = [0]>
#b2 = #rocdsl.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 16], warpsPerCTA = [2, 1], order = [1, 0]>

// 1-D bounds: origin + coordinate < bound (signed). The resource starts at
// the pointer itself and the offset is (origin + coordinate) * 4, selected.
// CHECK-LABEL: gpu.func @bounds_1d(
// CHECK-SAME:      [[X:%[^:]+]]: !llvm.ptr<1>, [[Y:%[^:]+]]: !llvm.ptr<1>, [[OFF:%[^:]+]]: i32, [[N:%[^:]+]]: i32)
// CHECK-DAG:     [[INVALID:%.+]] = arith.constant -1090519040 : i32
// CHECK-DAG:     [[C4:%.+]] = arith.constant 4 : i32
// CHECK-DAG:     [[ZERO:%.+]] = arith.constant 0 : i32
// CHECK:         [[XR:%.+]] = rocdl.make.buffer.rsrc [[X]],
// CHECK:         [[COORD:%.+]] = arith.muli [[LANE:%.+]], [[C4]] : i32
// CHECK-NEXT:    [[IDX:%.+]] = arith.addi [[OFF]], [[COORD]] : i32
// CHECK-NEXT:    [[INB:%.+]] = arith.cmpi slt, [[IDX]], [[N]] : i32
// CHECK-NEXT:    [[BYTES:%.+]] = arith.muli [[IDX]], [[C4]] : i32
// CHECK-NEXT:    [[VOFF:%.+]] = arith.select [[INB]], [[BYTES]], [[INVALID]] : i32
// CHECK-NEXT:    [[V:%.+]] = rocdl.raw.ptr.buffer.load [[XR]], [[VOFF]], [[ZERO]], [[ZERO]] : vector<4xi32>
// CHECK:         [[YR:%.+]] = rocdl.make.buffer.rsrc [[Y]],
// CHECK-NEXT:    rocdl.raw.ptr.buffer.store [[V]], [[YR]], [[VOFF]], [[ZERO]], [[ZERO]] : vector<4xi32>
rocdsl.func @bounds_1d(%x: !rocdsl.ptr<f32>, %y: !rocdsl.ptr<f32>, %off: i32, %n: i32) attributes {num_warps = 1 : i32} {
  %t = rocdsl.load %x[%off] bounds [%n] {vec = 4 : i32} : !rocdsl.ptr<f32> -> tensor<256xf32, #l4>
  rocdsl.store %t, %y[%off] bounds [%n] {vec = 4 : i32} : tensor<256xf32, #l4>, !rocdsl.ptr<f32>
  rocdsl.return
}

// 2-D bounds: one comparison per dimension, combined with andi. The row is
// (wave * 4 + lane / 16), the column (lane % 16) * 4.
// CHECK-LABEL: gpu.func @bounds_2d(
// CHECK-SAME:      [[X:%[^:]+]]: !llvm.ptr<1>, [[M:%[^:]+]]: i32, [[N:%[^:]+]]: i32)
// CHECK-DAG:     [[INVALID:%.+]] = arith.constant -1090519040 : i32
// CHECK-DAG:     [[C4:%.+]] = arith.constant 4 : i32
// CHECK:         [[BID:%.+]] = gpu.block_id x
// CHECK-NEXT:    [[PID:%.+]] = arith.index_castui [[BID]] : index to i32
// CHECK:         [[XR:%.+]] = rocdl.make.buffer.rsrc [[X]],
// CHECK:         [[ROW:%.+]] = arith.addi %{{.+}}, %{{.+}} : i32
// CHECK:         [[COL:%.+]] = arith.muli %{{.+}}, [[C4]] : i32
// CHECK-NEXT:    [[GROW:%.+]] = arith.addi [[PID]], [[ROW]] : i32
// CHECK-NEXT:    [[ROWOFF:%.+]] = arith.muli [[GROW]], [[N]] : i32
// CHECK-NEXT:    [[ROWOK:%.+]] = arith.cmpi slt, [[GROW]], [[M]] : i32
// CHECK-NEXT:    [[ELEM:%.+]] = arith.addi [[ROWOFF]], [[COL]] : i32
// CHECK-NEXT:    [[COLOK:%.+]] = arith.cmpi slt, [[COL]], [[N]] : i32
// CHECK-NEXT:    [[OK:%.+]] = arith.andi [[ROWOK]], [[COLOK]] : i1
// CHECK-NEXT:    [[BYTES:%.+]] = arith.muli [[ELEM]], [[C4]] : i32
// CHECK-NEXT:    [[VOFF:%.+]] = arith.select [[OK]], [[BYTES]], [[INVALID]] : i32
// CHECK-NEXT:    rocdl.raw.ptr.buffer.load [[XR]], [[VOFF]], %{{.+}}, %{{.+}} : vector<4xi32>
// CHECK:         rocdl.raw.ptr.buffer.store %{{.+}}, [[XR]], [[VOFF]], %{{.+}}, %{{.+}} : vector<4xi32>
rocdsl.func @bounds_2d(%x: !rocdsl.ptr<f32>, %m: i32, %n: i32) attributes {num_warps = 2 : i32} {
  %row = rocdsl.program_id x : i32
  %c0 = arith.constant 0 : i32
  %t = rocdsl.load %x[%row, %c0] strides [%n] bounds [%m, %n] {vec = 4 : i32} : !rocdsl.ptr<f32> -> tensor<8x64xf32, #b2>
  %u = arith.addf %t, %t : tensor<8x64xf32, #b2>
  rocdsl.store %u, %x[%row, %c0] strides [%n] bounds [%m, %n] {vec = 4 : i32} : tensor<8x64xf32, #b2>, !rocdsl.ptr<f32>
  rocdsl.return
}

// Explicit mask: masks are per element, so a masked access is made one
// element at a time even with vec = 4: each element's own mask bit selects
// its offset (invalid ones go out of the resource range) and `other`.
// CHECK-LABEL: gpu.func @mask_other(
// CHECK-SAME:      [[X:%[^:]+]]: !llvm.ptr<1>, [[Y:%[^:]+]]: !llvm.ptr<1>, [[LIM:%[^:]+]]: i32, [[PAD:%[^:]+]]: f32)
// CHECK-DAG:     [[INVALID:%.+]] = arith.constant -1090519040 : i32
// CHECK:         [[MASK:%.+]] = arith.cmpi ult, %{{.+}}, %{{.+}} : vector<4xi32>
// CHECK:         [[BIT0:%.+]] = vector.extract [[MASK]][0] : i1 from vector<4xi1>
// CHECK:         arith.select [[BIT0]], %{{.+}}, [[INVALID]] : i32
// CHECK:         [[BIT3:%.+]] = vector.extract [[MASK]][3] : i1 from vector<4xi1>
// CHECK:         arith.select [[BIT3]], %{{.+}}, [[INVALID]] : i32
// CHECK:         rocdl.raw.ptr.buffer.load {{.*}} : i32
// CHECK:         arith.select [[BIT0]], %{{.+}}, %{{.+}} : vector<1xf32>
// CHECK-COUNT-3: rocdl.raw.ptr.buffer.load {{.*}} : i32
// CHECK-COUNT-4: rocdl.raw.ptr.buffer.store {{.*}} : i32
// CHECK-NOT:     vector<4xi32>
rocdsl.func @mask_other(%x: !rocdsl.ptr<f32>, %y: !rocdsl.ptr<f32>, %lim: i32, %pad: f32) attributes {num_warps = 1 : i32} {
  %c0 = arith.constant 0 : i32
  %i = rocdsl.iota : tensor<256xi32, #l4>
  %l = rocdsl.splat %lim : i32 -> tensor<256xi32, #l4>
  %m = arith.cmpi ult, %i, %l : tensor<256xi32, #l4>
  %t = rocdsl.load %x[%c0] mask(%m : tensor<256xi1, #l4>) other(%pad : f32) {vec = 4 : i32} : !rocdsl.ptr<f32> -> tensor<256xf32, #l4>
  rocdsl.store %t, %y[%c0] mask(%m : tensor<256xi1, #l4>) {vec = 4 : i32} : tensor<256xf32, #l4>, !rocdsl.ptr<f32>
  rocdsl.return
}

// Mask and bounds together: both bits are and-ed. vec = 1, so each of the
// 4 entries has its own check.
// CHECK-LABEL: gpu.func @mask_and_bounds(
// CHECK-SAME:      [[X:%[^:]+]]: !llvm.ptr<1>, [[N:%[^:]+]]: i32, [[LIM:%[^:]+]]: i32)
// CHECK-DAG:     [[INVALID:%.+]] = arith.constant -1090519040 : i32
// CHECK:         [[MASK:%.+]] = arith.cmpi ult, %{{.+}}, %{{.+}} : vector<4xi32>
// CHECK:         [[INB:%.+]] = arith.cmpi slt, %{{.+}}, [[N]] : i32
// CHECK-NEXT:    [[BIT:%.+]] = vector.extract [[MASK]][0] : i1 from vector<4xi1>
// CHECK-NEXT:    [[OK:%.+]] = arith.andi [[INB]], [[BIT]] : i1
// CHECK-NEXT:    [[BYTES:%.+]] = arith.muli
// CHECK-NEXT:    [[VOFF:%.+]] = arith.select [[OK]], [[BYTES]], [[INVALID]] : i32
// CHECK-COUNT-3: vector.extract [[MASK]][{{[123]}}] : i1 from vector<4xi1>
// CHECK:         rocdl.raw.ptr.buffer.load %{{.+}}, [[VOFF]], %{{.+}}, %{{.+}} : i32
// CHECK-COUNT-3: rocdl.raw.ptr.buffer.load {{.*}} : i32
// CHECK-NOT:     rocdl.raw.ptr.buffer.load
rocdsl.func @mask_and_bounds(%x: !rocdsl.ptr<f32>, %n: i32, %lim: i32) attributes {num_warps = 1 : i32} {
  %c0 = arith.constant 0 : i32
  %i = rocdsl.iota : tensor<256xi32, #l4>
  %l = rocdsl.splat %lim : i32 -> tensor<256xi32, #l4>
  %m = arith.cmpi ult, %i, %l : tensor<256xi32, #l4>
  %t = rocdsl.load %x[%c0] bounds [%n] mask(%m : tensor<256xi1, #l4>) : !rocdsl.ptr<f32> -> tensor<256xf32, #l4>
  %u = arith.addf %t, %t : tensor<256xf32, #l4>
  rocdsl.store %u, %x[%c0] {vec = 4 : i32} : tensor<256xf32, #l4>, !rocdsl.ptr<f32>
  rocdsl.return
}

// Transfer types follow vec * element bits: vec = 1 f16 -> i16.
// CHECK-LABEL: gpu.func @f16_vec1(
// CHECK-DAG:     [[INVALID:%.+]] = arith.constant -1090519040 : i32
// CHECK-DAG:     [[C2:%.+]] = arith.constant 2 : i32
// CHECK:         [[R:%.+]] = rocdl.make.buffer.rsrc
// CHECK:         [[INB:%.+]] = arith.cmpi slt, [[LANE:%.+]], %{{.+}} : i32
// CHECK-NEXT:    [[BYTES:%.+]] = arith.muli [[LANE]], [[C2]] : i32
// CHECK-NEXT:    [[VOFF:%.+]] = arith.select [[INB]], [[BYTES]], [[INVALID]] : i32
// CHECK-NEXT:    [[RAW:%.+]] = rocdl.raw.ptr.buffer.load [[R]], [[VOFF]], %{{.+}}, %{{.+}} : i16
// CHECK-NEXT:    llvm.bitcast [[RAW]] : i16 to vector<1xf16>
// CHECK:         [[SUM:%.+]] = arith.addf {{.*}} : vector<1xf16>
// CHECK-NEXT:    [[DATA:%.+]] = llvm.bitcast [[SUM]] : vector<1xf16> to i16
// CHECK-NEXT:    rocdl.raw.ptr.buffer.store [[DATA]], [[R]], [[VOFF]], %{{.+}}, %{{.+}} : i16
rocdsl.func @f16_vec1(%x: !rocdsl.ptr<f16>, %n: i32) attributes {num_warps = 1 : i32} {
  %c0 = arith.constant 0 : i32
  %t = rocdsl.load %x[%c0] bounds [%n] : !rocdsl.ptr<f16> -> tensor<64xf16, #l1>
  %u = arith.addf %t, %t : tensor<64xf16, #l1>
  rocdsl.store %u, %x[%c0] bounds [%n] : tensor<64xf16, #l1>, !rocdsl.ptr<f16>
  rocdsl.return
}

// vec = 2 bf16 -> i32.
// CHECK-LABEL: gpu.func @bf16_vec2(
// CHECK:         [[VOFF:%.+]] = arith.select %{{.+}}, %{{.+}}, %{{.+}} : i32
// CHECK-NEXT:    [[RAW:%.+]] = rocdl.raw.ptr.buffer.load %{{.+}}, [[VOFF]], %{{.+}}, %{{.+}} : i32
// CHECK-NEXT:    llvm.bitcast [[RAW]] : i32 to vector<2xbf16>
// CHECK:         [[SUM:%.+]] = arith.addf {{.*}} : vector<2xbf16>
// CHECK:         [[DATA:%.+]] = llvm.bitcast [[SUM]] : vector<2xbf16> to i32
// CHECK-NEXT:    rocdl.raw.ptr.buffer.store [[DATA]], %{{.+}}, [[VOFF]], %{{.+}}, %{{.+}} : i32
rocdsl.func @bf16_vec2(%x: !rocdsl.ptr<bf16>, %n: i32) attributes {num_warps = 1 : i32} {
  %c0 = arith.constant 0 : i32
  %t = rocdsl.load %x[%c0] bounds [%n] {vec = 2 : i32} : !rocdsl.ptr<bf16> -> tensor<128xbf16, #l2>
  %u = arith.addf %t, %t : tensor<128xbf16, #l2>
  rocdsl.store %u, %x[%c0] bounds [%n] {vec = 2 : i32} : tensor<128xbf16, #l2>, !rocdsl.ptr<bf16>
  rocdsl.return
}

// vec = 4 f16 -> vector<2xi32>; the group at lane * 4 is 8 bytes.
// CHECK-LABEL: gpu.func @f16_vec4(
// CHECK-DAG:     [[C8:%.+]] = arith.constant 8 : i32
// CHECK:         [[BYTES:%.+]] = arith.muli %{{.+}}, [[C8]] : i32
// CHECK-NEXT:    [[VOFF:%.+]] = arith.select %{{.+}}, [[BYTES]], %{{.+}} : i32
// CHECK-NEXT:    [[RAW:%.+]] = rocdl.raw.ptr.buffer.load %{{.+}}, [[VOFF]], %{{.+}}, %{{.+}} : vector<2xi32>
// CHECK-NEXT:    llvm.bitcast [[RAW]] : vector<2xi32> to vector<4xf16>
// CHECK:         [[SUM:%.+]] = arith.addf {{.*}} : vector<4xf16>
// CHECK:         [[DATA:%.+]] = llvm.bitcast [[SUM]] : vector<4xf16> to vector<2xi32>
// CHECK-NEXT:    rocdl.raw.ptr.buffer.store [[DATA]], %{{.+}}, [[VOFF]], %{{.+}}, %{{.+}} : vector<2xi32>
rocdsl.func @f16_vec4(%x: !rocdsl.ptr<f16>, %n: i32) attributes {num_warps = 1 : i32} {
  %c0 = arith.constant 0 : i32
  %t = rocdsl.load %x[%c0] bounds [%n] {vec = 4 : i32} : !rocdsl.ptr<f16> -> tensor<256xf16, #l4>
  %u = arith.addf %t, %t : tensor<256xf16, #l4>
  rocdsl.store %u, %x[%c0] bounds [%n] {vec = 4 : i32} : tensor<256xf16, #l4>, !rocdsl.ptr<f16>
  rocdsl.return
}
