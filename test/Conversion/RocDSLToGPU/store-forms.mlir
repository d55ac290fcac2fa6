// max-store-bits=64 splits each 128-bit group into two 64-bit stores with
// the same VGPR offset and distinct resources (the second based 8 bytes
// further on); pad-wide-stores puts `s_nop 1` after each wide store.
// RUN: rocdsl-opt %s --convert-rocdsl-to-gpu="chip=gfx942 max-store-bits=64" --canonicalize --cse | FileCheck %s --check-prefix=SPLIT
// RUN: rocdsl-opt %s --convert-rocdsl-to-gpu="chip=gfx950 pad-wide-stores=1" --canonicalize --cse | FileCheck %s --check-prefix=PAD
// RUN: rocdsl-opt %s --convert-rocdsl-to-gpu="chip=gfx942" --canonicalize --cse | FileCheck %s --check-prefix=WIDE

#blk = #rocdsl.blocked<sizePerThread = [4], threadsPerWarp = [64], warpsPerCTA = [1], order = [0]>
rocdsl.func @store4(%x: !rocdsl.ptr<f32>, %y: !rocdsl.ptr<f32>) attributes {num_warps = 1 : i32} {
  %c0 = arith.constant 0 : i32
  %pid = rocdsl.program_id x : i32
  %t = rocdsl.load %x[%c0] {vec = 4 : i32} : !rocdsl.ptr<f32> -> tensor<256xf32, #blk>
  rocdsl.store %t, %y[%pid] {vec = 4 : i32} : tensor<256xf32, #blk>, !rocdsl.ptr<f32>
  rocdsl.return
}

// SPLIT-LABEL: gpu.func @store4(
// SPLIT-SAME:      %{{[^:]+}}: !llvm.ptr<1>, %[[Y:[^:]+]]: !llvm.ptr<1>)
// SPLIT:       %[[R0:.+]] = rocdl.make.buffer.rsrc %[[Y]],
// SPLIT:       %[[HIGH:.+]] = llvm.getelementptr %[[Y]][8] : (!llvm.ptr<1>) -> !llvm.ptr<1>, i8
// SPLIT:       %[[R1:.+]] = rocdl.make.buffer.rsrc %[[HIGH]]
// SPLIT:       %[[LO:.+]] = llvm.bitcast %{{.+}} : vector<2xf32> to vector<2xi32>
// SPLIT:       rocdl.raw.ptr.buffer.store %[[LO]], %[[R0]], %[[OFF:.+]], %{{.+}}, %{{.+}} : vector<2xi32>
// SPLIT:       %[[HI:.+]] = llvm.bitcast %{{.+}} : vector<2xf32> to vector<2xi32>
// SPLIT:       rocdl.raw.ptr.buffer.store %[[HI]], %[[R1]], %[[OFF]], %{{.+}}, %{{.+}} : vector<2xi32>
// SPLIT-NOT:   vector<4xi32>

// PAD-LABEL:   gpu.func @store4
// PAD:         rocdl.raw.ptr.buffer.store {{.*}} : vector<4xi32>
// PAD-NEXT:    llvm.inline_asm has_side_effects "s_nop 1", ""  : () -> ()

// WIDE-LABEL:  gpu.func @store4
// WIDE:        rocdl.raw.ptr.buffer.store {{.*}} : vector<4xi32>
// WIDE-NOT:    llvm.inline_asm
