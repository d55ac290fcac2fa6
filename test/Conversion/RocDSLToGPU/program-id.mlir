// RUN: rocdsl-opt %s --convert-rocdsl-to-gpu="chip=gfx942" | FileCheck %s

// program_id/num_programs read the workgroup id / grid size along the
// matching dimension and narrow the index to i32 with an unsigned cast; the
// i32 results feed the original users.

// CHECK-LABEL: gpu.func @ids(
// CHECK:         [[BX:%.+]] = gpu.block_id x
// CHECK-NEXT:    [[X:%.+]] = arith.index_castui [[BX]] : index to i32
// CHECK-NEXT:    [[BY:%.+]] = gpu.block_id y
// CHECK-NEXT:    [[Y:%.+]] = arith.index_castui [[BY]] : index to i32
// CHECK-NEXT:    [[BZ:%.+]] = gpu.block_id z
// CHECK-NEXT:    [[Z:%.+]] = arith.index_castui [[BZ]] : index to i32
// CHECK-NEXT:    [[GX:%.+]] = gpu.grid_dim x
// CHECK-NEXT:    [[NX:%.+]] = arith.index_castui [[GX]] : index to i32
// CHECK-NEXT:    [[GY:%.+]] = gpu.grid_dim y
// CHECK-NEXT:    [[NY:%.+]] = arith.index_castui [[GY]] : index to i32
// CHECK-NEXT:    [[GZ:%.+]] = gpu.grid_dim z
// CHECK-NEXT:    [[NZ:%.+]] = arith.index_castui [[GZ]] : index to i32
// CHECK-NEXT:    [[A:%.+]] = arith.addi [[X]], [[Y]] : i32
// CHECK-NEXT:    [[B:%.+]] = arith.addi [[A]], [[Z]] : i32
// CHECK-NEXT:    [[C:%.+]] = arith.muli [[NX]], [[NY]] : i32
// CHECK-NEXT:    [[D:%.+]] = arith.muli [[C]], [[NZ]] : i32
// CHECK-NEXT:    arith.addi [[B]], [[D]] : i32
// CHECK-NEXT:    gpu.return
// CHECK-NOT:   rocdsl.program_id
// CHECK-NOT:   rocdsl.num_programs
rocdsl.func @ids(%p: !rocdsl.ptr<f32>) attributes {num_warps = 1 : i32} {
  %x = rocdsl.program_id x : i32
  %y = rocdsl.program_id y : i32
  %z = rocdsl.program_id z : i32
  %nx = rocdsl.num_programs x : i32
  %ny = rocdsl.num_programs y : i32
  %nz = rocdsl.num_programs z : i32
  %a = arith.addi %x, %y : i32
  %b = arith.addi %a, %z : i32
  %c = arith.muli %nx, %ny : i32
  %d = arith.muli %c, %nz : i32
  %e = arith.addi %b, %d : i32
  rocdsl.return
}

// A load origin built from the program id is added to each lane's offset;
// the buffer resource starts at the pointer itself.
// CHECK-LABEL: gpu.func @pid_as_origin(
// CHECK-SAME:      [[P:%[^:]+]]: !llvm.ptr<1>
// CHECK:         [[BID:%.+]] = gpu.block_id y
// CHECK-NEXT:    [[PID:%.+]] = arith.index_castui [[BID]] : index to i32
// CHECK:         [[R:%.+]] = rocdl.make.buffer.rsrc [[P]],
// CHECK:         [[POS:%.+]] = arith.addi [[PID]], %{{.+}} : i32
// CHECK:         [[BYTES:%.+]] = arith.muli [[POS]], %{{.+}} : i32
// CHECK:         rocdl.raw.ptr.buffer.load [[R]], [[BYTES]],
#l1 = #rocdsl.blocked<sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [1], order = [0]>
rocdsl.func @pid_as_origin(%p: !rocdsl.ptr<f32>) attributes {num_warps = 1 : i32} {
  %y = rocdsl.program_id y : i32
  %t = rocdsl.load %p[%y] : !rocdsl.ptr<f32> -> tensor<64xf32, #l1>
  rocdsl.store %t, %p[%y] : tensor<64xf32, #l1>, !rocdsl.ptr<f32>
  rocdsl.return
}
