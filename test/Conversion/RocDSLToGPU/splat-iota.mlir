// RUN: rocdsl-opt %s --convert-rocdsl-to-gpu="chip=gfx942" --canonicalize --cse | FileCheck %s

#l4 = #rocdsl.blocked<sizePerThread = [4], threadsPerWarp = [64], warpsPerCTA = [1], order = [0]>
#l2w = #rocdsl.blocked<sizePerThread = [2], threadsPerWarp = [64], warpsPerCTA = [2], order = [0]>
#blk = #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [1, 64], warpsPerCTA = [1, 4], order = [1, 0]>
#col = #rocdsl.slice<dim = 0, parent = #blk>

// rocdsl.splat -> vector.broadcast of the uniform scalar to the per-lane
// vector.
// CHECK-LABEL: gpu.func @splat_1d(
// CHECK-SAME:      [[P:%[^:]+]]: !llvm.ptr<1>, [[A:%[^:]+]]: f32)
// CHECK:         [[TA:%.+]] = vector.broadcast [[A]] : f32 to vector<4xf32>
// CHECK:         [[D:%.+]] = llvm.bitcast [[TA]] : vector<4xf32> to vector<4xi32>
// CHECK-NEXT:    rocdl.raw.ptr.buffer.store [[D]],
// CHECK-NOT:     rocdsl.splat
rocdsl.func @splat_1d(%p: !rocdsl.ptr<f32>, %a: f32) attributes {num_warps = 1 : i32} {
  %c0 = arith.constant 0 : i32
  %t = rocdsl.splat %a : f32 -> tensor<256xf32, #l4>
  rocdsl.store %t, %p[%c0] {vec = 4 : i32} : tensor<256xf32, #l4>, !rocdsl.ptr<f32>
  rocdsl.return
}

// 1x4096 f16 over 4 waves along the columns, 8 per lane: 4096 / 2048 = 2
// repetitions -> 16 entries.
// CHECK-LABEL: gpu.func @splat_2d(
// CHECK-SAME:      [[P:%[^:]+]]: !llvm.ptr<1>, [[H:%[^:]+]]: f16)
// CHECK:         [[X:%.+]] = vector.from_elements {{.*}} : vector<16xf16>
// CHECK-NEXT:    [[TH:%.+]] = vector.broadcast [[H]] : f16 to vector<16xf16>
// CHECK-NEXT:    arith.addf [[X]], [[TH]] : vector<16xf16>
// CHECK-NOT:     rocdsl.splat
rocdsl.func @splat_2d(%p: !rocdsl.ptr<f16>, %h: f16) attributes {num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %n = arith.constant 4096 : i32
  %x = rocdsl.load %p[%c0, %c0] strides [%n] {vec = 8 : i32} : !rocdsl.ptr<f16> -> tensor<1x4096xf16, #blk>
  %t = rocdsl.splat %h : f16 -> tensor<1x4096xf16, #blk>
  %s = arith.addf %x, %t : tensor<1x4096xf16, #blk>
  rocdsl.store %s, %p[%c0, %c0] strides [%n] {vec = 8 : i32} : tensor<1x4096xf16, #blk>, !rocdsl.ptr<f16>
  rocdsl.return
}

// iota: lane base (lane * sizePerThread, from gpu.thread_id) broadcast and
// added to the constant offsets of the lane's entries.
// CHECK-LABEL: gpu.func @iota_basic(
// CHECK-DAG:     [[OFFS:%.+]] = arith.constant dense<[0, 1, 2, 3]> : vector<4xi32>
// CHECK-DAG:     [[C4:%.+]] = arith.constant 4 : i32
// CHECK-DAG:     [[C64:%.+]] = arith.constant 64 : i32
// CHECK:         [[TID:%.+]] = gpu.thread_id x
// CHECK-NEXT:    [[TID32:%.+]] = arith.index_castui [[TID]] : index to i32
// CHECK-NEXT:    [[LANE:%.+]] = arith.remui [[TID32]], [[C64]] : i32
// CHECK-NEXT:    [[BASE:%.+]] = arith.muli [[LANE]], [[C4]] : i32
// CHECK-NEXT:    [[BB:%.+]] = vector.broadcast [[BASE]] : i32 to vector<4xi32>
// CHECK-NEXT:    [[IOTA:%.+]] = arith.addi [[BB]], [[OFFS]] : vector<4xi32>
// CHECK-NOT:     arith.remui {{.*}} : vector<4xi32>
// CHECK:         rocdl.raw.ptr.buffer.store [[IOTA]], {{.*}} : vector<4xi32>
// CHECK-NOT:     rocdsl.iota
rocdsl.func @iota_basic(%p: !rocdsl.ptr<i32>) attributes {num_warps = 1 : i32} {
  %c0 = arith.constant 0 : i32
  %i = rocdsl.iota : tensor<256xi32, #l4>
  rocdsl.store %i, %p[%c0] {vec = 4 : i32} : tensor<256xi32, #l4>, !rocdsl.ptr<i32>
  rocdsl.return
}

// Two waves, 2 per lane: base = lane * 2 + wave * 128; one repetition is
// 256 elements, so a lane's 4 entries sit at +0, +1, +256, +257; `start`
// is added last. (lane < 64 and wave < 2 need no modulo.)
// CHECK-LABEL: gpu.func @iota_start_waves(
// CHECK-DAG:     [[START:%.+]] = arith.constant dense<5> : vector<4xi32>
// CHECK-DAG:     [[OFFS:%.+]] = arith.constant dense<[0, 1, 256, 257]> : vector<4xi32>
// CHECK-DAG:     [[C2:%.+]] = arith.constant 2 : i32
// CHECK-DAG:     [[C64:%.+]] = arith.constant 64 : i32
// CHECK-DAG:     [[C128:%.+]] = arith.constant 128 : i32
// CHECK:         [[TID:%.+]] = gpu.thread_id x
// CHECK-NEXT:    [[TID32:%.+]] = arith.index_castui [[TID]] : index to i32
// CHECK-NEXT:    [[LANE:%.+]] = arith.remui [[TID32]], [[C64]] : i32
// CHECK-NEXT:    [[LT:%.+]] = arith.muli [[LANE]], [[C2]] : i32
// CHECK-NEXT:    [[WAVE:%.+]] = arith.divui [[TID32]], [[C64]] : i32
// CHECK-NEXT:    [[WT:%.+]] = arith.muli [[WAVE]], [[C128]] : i32
// CHECK-NEXT:    [[BASE:%.+]] = arith.addi [[LT]], [[WT]] : i32
// CHECK-NEXT:    [[BB:%.+]] = vector.broadcast [[BASE]] : i32 to vector<4xi32>
// CHECK-NEXT:    [[IOTA:%.+]] = arith.addi [[BB]], [[OFFS]] : vector<4xi32>
// CHECK-NEXT:    [[RES:%.+]] = arith.addi [[IOTA]], [[START]] : vector<4xi32>
// CHECK:         vector.shuffle [[RES]], [[RES]] [0, 1]
// CHECK:         vector.shuffle [[RES]], [[RES]] [2, 3]
rocdsl.func @iota_start_waves(%p: !rocdsl.ptr<i32>) attributes {num_warps = 2 : i32} {
  %c0 = arith.constant 0 : i32
  %i = rocdsl.iota {start = 5 : i32} : tensor<512xi32, #l2w>
  rocdsl.store %i, %p[%c0] {vec = 2 : i32} : tensor<512xi32, #l2w>, !rocdsl.ptr<i32>
  rocdsl.return
}

// A 64-element tile is smaller than one repetition of #l4 (256): the
// coordinates wrap modulo 64 (lanes 16..63 hold copies) before `start`.
// CHECK-LABEL: gpu.func @iota_wrap(
// CHECK-DAG:     [[START:%.+]] = arith.constant dense<7> : vector<4xi32>
// CHECK-DAG:     [[EXT:%.+]] = arith.constant dense<64> : vector<4xi32>
// CHECK-DAG:     [[OFFS:%.+]] = arith.constant dense<[0, 1, 2, 3]> : vector<4xi32>
// CHECK:         [[BB:%.+]] = vector.broadcast %{{.+}} : i32 to vector<4xi32>
// CHECK-NEXT:    [[RAW:%.+]] = arith.addi [[BB]], [[OFFS]] : vector<4xi32>
// CHECK-NEXT:    [[WRAP:%.+]] = arith.remui [[RAW]], [[EXT]] : vector<4xi32>
// CHECK-NEXT:    [[RES:%.+]] = arith.addi [[WRAP]], [[START]] : vector<4xi32>
// CHECK:         rocdl.raw.ptr.buffer.store [[RES]], {{.*}} : vector<4xi32>
rocdsl.func @iota_wrap(%p: !rocdsl.ptr<i32>) attributes {num_warps = 1 : i32} {
  %c0 = arith.constant 0 : i32
  %i = rocdsl.iota {start = 7 : i32} : tensor<64xi32, #l4>
  rocdsl.store %i, %p[%c0] {vec = 4 : i32} : tensor<64xi32, #l4>, !rocdsl.ptr<i32>
  rocdsl.return
}

// iota in a slice layout takes the column distribution of the parent: 8
// per lane, 64 lanes, 4 waves (2048 per repetition), 2 repetitions.
// CHECK-LABEL: gpu.func @iota_slice(
// CHECK-DAG:     [[OFFS:%.+]] = arith.constant dense<[0, 1, 2, 3, 4, 5, 6, 7, 2048, 2049, 2050, 2051, 2052, 2053, 2054, 2055]> : vector<16xi32>
// CHECK-DAG:     [[C8:%.+]] = arith.constant 8 : i32
// CHECK-DAG:     [[C512:%.+]] = arith.constant 512 : i32
// CHECK:         [[LT:%.+]] = arith.muli %{{.+}}, [[C8]] : i32
// CHECK:         [[WT:%.+]] = arith.muli %{{.+}}, [[C512]] : i32
// CHECK-NEXT:    [[BASE:%.+]] = arith.addi [[LT]], [[WT]] : i32
// CHECK-NEXT:    [[BB:%.+]] = vector.broadcast [[BASE]] : i32 to vector<16xi32>
// CHECK-NEXT:    [[IOTA:%.+]] = arith.addi [[BB]], [[OFFS]] : vector<16xi32>
// CHECK-NOT:     arith.remui {{.*}} : vector<16xi32>
// CHECK:         vector.shuffle [[IOTA]], [[IOTA]] [0, 1, 2, 3] : vector<16xi32>, vector<16xi32>
rocdsl.func @iota_slice(%p: !rocdsl.ptr<i32>) attributes {num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %i = rocdsl.iota : tensor<4096xi32, #col>
  rocdsl.store %i, %p[%c0] {vec = 4 : i32} : tensor<4096xi32, #col>, !rocdsl.ptr<i32>
  rocdsl.return
}
