// RUN: rocdsl-opt %s --convert-rocdsl-to-gpu="chip=gfx942" | FileCheck %s
// RUN: rocdsl-opt %s --convert-rocdsl-to-gpu="chip=gfx950" | FileCheck %s

// Kernel structure: every rocdsl.func becomes a gpu.func kernel inside the
// one gpu.module @rocdsl_kernels, the enclosing module becomes a GPU
// container, !rocdsl.ptr arguments become global pointers, scalars keep
// their types, known_block_size is num_warps * 64 and waves_per_eu is
// forwarded as rocdl.waves_per_eu.

// CHECK:      module attributes {gpu.container_module} {
// CHECK-NEXT:   gpu.module @rocdsl_kernels {
// CHECK-NOT:    rocdsl.func

// CHECK-LABEL: gpu.func @one_warp(
// CHECK-SAME:      [[A:%[^:]+]]: !llvm.ptr<1>, [[B:%[^:]+]]: !llvm.ptr<1>, [[N:%[^:]+]]: i32, [[S:%[^:]+]]: f32)
// CHECK-SAME:      kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
// CHECK-NEXT:    arith.addi [[N]], [[N]] : i32
// CHECK-NEXT:    arith.mulf [[S]], [[S]] : f32
// CHECK-NEXT:    gpu.return
// CHECK-NEXT:  }
rocdsl.func @one_warp(%a: !rocdsl.ptr<f32>, %b: !rocdsl.ptr<bf16>, %n: i32, %s: f32) attributes {num_warps = 1 : i32} {
  %c = arith.addi %n, %n : i32
  %d = arith.mulf %s, %s : f32
  rocdsl.return
}

// CHECK-LABEL: gpu.func @four_warps(
// CHECK-SAME:      %{{[^:]+}}: !llvm.ptr<1>, %{{[^:]+}}: i64)
// CHECK-SAME:      kernel attributes {known_block_size = array<i32: 256, 1, 1>, rocdl.waves_per_eu = 2 : i32}
// CHECK-NEXT:    gpu.return
rocdsl.func @four_warps(%a: !rocdsl.ptr<f16>, %m: i64) attributes {num_warps = 4 : i32, waves_per_eu = 2 : i32} {
  rocdsl.return
}

// Argument attributes survive the conversion.
// CHECK-LABEL: gpu.func @eight_warps(
// CHECK-SAME:      %{{[^:]+}}: !llvm.ptr<1> {llvm.noalias}, %{{[^:]+}}: f16)
// CHECK-SAME:      kernel attributes {known_block_size = array<i32: 512, 1, 1>}
// CHECK-NEXT:    gpu.return
rocdsl.func @eight_warps(%a: !rocdsl.ptr<i8> {llvm.noalias}, %x: f16) attributes {num_warps = 8 : i32} {
  rocdsl.return
}

// CHECK-LABEL: gpu.func @sixteen_warps(
// CHECK-SAME:      known_block_size = array<i32: 1024, 1, 1>, rocdl.waves_per_eu = 1 : i32
rocdsl.func @sixteen_warps(%a: !rocdsl.ptr<f32>) attributes {num_warps = 16 : i32, waves_per_eu = 1 : i32} {
  rocdsl.return
}

// CHECK-NOT: rocdsl.
