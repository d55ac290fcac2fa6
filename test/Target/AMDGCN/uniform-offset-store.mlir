// A store at a uniform, run-time offset (a kernel argument plus the program
// id) is what upstream lowerings turn into a buffer store with an SGPR
// soffset, the form LLVM 22 leaves unprotected against the wide-store data
// hazard. ROCDSL adds the uniform offset to each lane's 32-bit VGPR offset
// (the resource starts at the pointer itself) and keeps soffset the
// constant 0, on gfx942 and gfx950; rocdsl-isa-check agrees the result is
// clean.
// RUN: rocdsl-opt %s --convert-rocdsl-to-gpu="chip=gfx942" --canonicalize --cse | FileCheck %s --check-prefix=IR
// RUN: rocdsl-compile %s --chip gfx942 --emit asm -o %t942.s
// RUN: FileCheck %s --check-prefix=ISA < %t942.s
// RUN: rocdsl-compile %s --chip gfx950 --emit asm -o %t950.s
// RUN: FileCheck %s --check-prefix=ISA < %t950.s
// RUN: rocdsl-isa-check %t942.s %t950.s | FileCheck %s --check-prefix=CLEAN

#blk = #rocdsl.blocked<sizePerThread = [4], threadsPerWarp = [64], warpsPerCTA = [1], order = [0]>
rocdsl.func @store_at(%x: !rocdsl.ptr<f32>, %y: !rocdsl.ptr<f32>, %offset: i32) attributes {num_warps = 1 : i32} {
  %c256 = arith.constant 256 : i32
  %pid = rocdsl.program_id x : i32
  %row = arith.muli %pid, %c256 : i32
  %at = arith.addi %row, %offset : i32
  %t = rocdsl.load %x[%at] {vec = 4 : i32} : !rocdsl.ptr<f32> -> tensor<256xf32, #blk>
  %d = arith.mulf %t, %t : tensor<256xf32, #blk>
  rocdsl.store %d, %y[%at] {vec = 4 : i32} : tensor<256xf32, #blk>, !rocdsl.ptr<f32>
  rocdsl.return
}

// IR-LABEL: gpu.func @store_at
// IR-DAG:   %[[ZERO:.+]] = arith.constant 0 : i32
// IR-DAG:   %[[C4:.+]] = arith.constant 4 : i32
// IR:       %[[AT:.+]] = arith.addi %{{.+}}, %arg2 : i32
// IR-NOT:   llvm.getelementptr
// IR:       %[[POS:.+]] = arith.addi %[[AT]], %{{.+}} : i32
// IR-NEXT:  %[[VOFF:.+]] = arith.muli %[[POS]], %[[C4]] : i32
// IR:       %[[RSRC:.+]] = rocdl.make.buffer.rsrc %arg1,
// IR:       rocdl.raw.ptr.buffer.store %{{.+}}, %[[RSRC]], %[[VOFF]], %[[ZERO]], %[[ZERO]] : vector<4xi32>

// ISA-LABEL: store_at:
// ISA-NOT:   buffer_store_dwordx4 v[{{[0-9:]+}}], v{{[0-9]+}}, s[{{[0-9:]+}}], s{{[0-9]+}}
// ISA:       buffer_store_dwordx4 v[{{[0-9:]+}}], v{{[0-9]+}}, s[{{[0-9:]+}}], 0 offen
// ISA:       s_endpgm

// CLEAN-COUNT-2: 1 kernel, 0 hazards
