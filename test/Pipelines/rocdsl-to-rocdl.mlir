// RUN: rocdsl-opt %s --rocdsl-to-rocdl="chip=gfx942" | FileCheck %s --check-prefixes=CHECK,GFX942
// RUN: rocdsl-opt %s --rocdsl-to-rocdl="chip=gfx950" | FileCheck %s --check-prefixes=CHECK,GFX950
// RUN: rocdsl-opt %s --rocdsl-to-rocdl="chip=gfx942" | FileCheck %s --check-prefix=CLEAN
// RUN: rocdsl-opt %s --rocdsl-to-rocdl="chip=gfx950" | FileCheck %s --check-prefix=CLEAN
// RUN: rocdsl-opt %s --rocdsl-to-rocdl="chip=gfx942" | FileCheck %s --check-prefix=STORE
// RUN: rocdsl-opt %s --rocdsl-to-rocdl="chip=gfx950" | FileCheck %s --check-prefix=STORE

// The whole named pipeline on an RMSNorm kernel (1x4096 bf16 rows, 4 waves,
// 8 elements per lane per access): the result is a gpu.module of LLVM/ROCDL
// ops with a #rocdl.target for the chip.

// Nothing of the source dialects or the intermediate steps is left:
// CLEAN-NOT: rocdsl.
// CLEAN-NOT: gpu.func
// CLEAN-NOT: gpu.subgroup_reduce
// CLEAN-NOT: gpu.barrier
// CLEAN-NOT: amdgpu.
// CLEAN-NOT: arith.
// CLEAN-NOT: vector.
// CLEAN-NOT: scf.
// CLEAN-NOT: builtin.unrealized_conversion_cast

// Exactly two stores (one per 128-bit group of the row); the CHECK lines
// below show that both take the constant 0 as soffset.
// STORE-COUNT-2: rocdl.raw.ptr.buffer.store
// STORE-NOT:     rocdl.raw.ptr.buffer.store

// CHECK:       module attributes {gpu.container_module} {
// GFX942-NEXT:   gpu.module @rocdsl_kernels [#rocdl.target<O = 3, chip = "gfx942">]
// GFX950-NEXT:   gpu.module @rocdsl_kernels [#rocdl.target<O = 3, chip = "gfx950">]
// CHECK-NEXT:    llvm.mlir.global internal @[[$LDS:__rocdsl_reduce_lds_0]]() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<4 x f32>

// CHECK-LABEL: llvm.func @rmsnorm(
// CHECK-SAME:      [[X:%[^:]+]]: !llvm.ptr<1>, [[W:%[^:]+]]: !llvm.ptr<1>, [[Y:%[^:]+]]: !llvm.ptr<1>, [[M:%[^:]+]]: i32, [[EPS:%[^:]+]]: f32)
// CHECK-SAME:      attributes {gpu.kernel, gpu.known_block_size = array<i32: 256, 1, 1>, rocdl.flat_work_group_size = "256,256", rocdl.kernel, rocdl.reqd_work_group_size = array<i32: 256, 1, 1>}
// CHECK-DAG:     [[ZERO:%.+]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-DAG:     [[C63:%.+]] = llvm.mlir.constant(63 : i32) : i32
// CHECK-DAG:     [[INVALID:%.+]] = llvm.mlir.constant(-1090519040 : i32) : i32
// CHECK-DAG:     [[LDS:%.+]] = llvm.mlir.addressof @[[$LDS]] : !llvm.ptr<3>

// x's resource starts at x; the row (program id) goes into the lanes'
// 32-bit offsets.
// CHECK:         [[PID:%.+]] = rocdl.workgroup.id.x : i32
// CHECK-NOT:     llvm.getelementptr [[X]]
// CHECK:         [[XR:%.+]] = rocdl.make.buffer.rsrc [[X]], {{.*}} : <1> to <8>
// CHECK:         rocdl.workitem.id.x
// Out-of-bounds groups are redirected, not branched around.
// CHECK:         [[OFF0:%.+]] = llvm.select %{{.+}}, %{{.+}}, [[INVALID]] : i1, i32
// CHECK:         [[OFF1:%.+]] = llvm.select %{{.+}}, %{{.+}}, [[INVALID]] : i1, i32
// Two 128-bit loads per lane.
// CHECK-NEXT:    rocdl.raw.ptr.buffer.load [[XR]], [[OFF0]], [[ZERO]], [[ZERO]] : vector<4xi32>
// CHECK:         rocdl.raw.ptr.buffer.load [[XR]], [[OFF1]], [[ZERO]], [[ZERO]] : vector<4xi32>
// CHECK:         llvm.fpext %{{.+}} : vector<16xbf16> to vector<16xf32>

// Row sum: in-lane tree, DPP across the wave, readlane of lane 63, LDS
// across the 4 waves after one barrier (no loop runs the reduce again, so
// no second barrier guards its slots).
// CHECK:         [[D0:%.+]] = rocdl.update.dpp [[S0:%.+]], [[S0]] with 177, 15, 15, true : f32
// CHECK:         rocdl.update.dpp {{.*}} with 78, 15, 15, true : f32
// CHECK:         rocdl.update.dpp {{.*}} with 321, 15, 15, true : f32
// CHECK:         rocdl.update.dpp {{.*}} with 320, 15, 15, true : f32
// CHECK:         rocdl.update.dpp {{.*}} with 322, 10, 15, false : f32
// CHECK:         rocdl.update.dpp {{.*}} with 323, 15, 15, true : f32
// CHECK-NEXT:    [[WSUM:%.+]] = llvm.fadd
// CHECK-NEXT:    [[RED:%.+]] = rocdl.readlane [[WSUM]], [[C63]] : (f32, i32) -> f32
// CHECK-NEXT:    [[SLOT:%.+]] = llvm.getelementptr [[LDS]][{{%.+}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f32
// CHECK-NEXT:    llvm.store [[RED]], [[SLOT]] : f32, !llvm.ptr<3>
// CHECK-NEXT:    rocdl.barrier
// CHECK-COUNT-4: llvm.load
// CHECK-NOT:     rocdl.barrier
// CHECK:         llvm.call @__ocml_rsqrt_f32

// Weights: resource on w itself (origin 0).
// CHECK:         [[WR:%.+]] = rocdl.make.buffer.rsrc [[W]], {{.*}} : <1> to <8>
// CHECK:         rocdl.raw.ptr.buffer.load [[WR]], {{%.+}}, [[ZERO]], [[ZERO]] : vector<4xi32>
// CHECK:         rocdl.raw.ptr.buffer.load [[WR]], {{%.+}}, [[ZERO]], [[ZERO]] : vector<4xi32>

// Stores: same lane offsets as the x loads, soffset the constant 0; each
// group is rounded to bf16 just before its store, in order.
// CHECK:         [[YR:%.+]] = rocdl.make.buffer.rsrc [[Y]], {{.*}} : <1> to <8>
// CHECK:         llvm.fptrunc %{{.+}} : vector<8xf32> to vector<8xbf16>
// CHECK:         rocdl.raw.ptr.buffer.store %{{.+}}, [[YR]], [[OFF0]], [[ZERO]], [[ZERO]] : vector<4xi32>
// CHECK-NEXT:    rocdl.sched.barrier 0
// CHECK:         llvm.fptrunc %{{.+}} : vector<8xf32> to vector<8xbf16>
// CHECK:         rocdl.raw.ptr.buffer.store %{{.+}}, [[YR]], [[OFF1]], [[ZERO]], [[ZERO]] : vector<4xi32>
// CHECK-NEXT:    llvm.return

#blk = #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [1, 64], warpsPerCTA = [1, 4], order = [1, 0]>
#row = #rocdsl.slice<dim = 1, parent = #blk>
#col = #rocdsl.slice<dim = 0, parent = #blk>
rocdsl.func @rmsnorm(%x: !rocdsl.ptr<bf16>, %w: !rocdsl.ptr<bf16>, %y: !rocdsl.ptr<bf16>, %m: i32, %eps: f32) attributes {num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %n = arith.constant 4096 : i32
  %pid = rocdsl.program_id x : i32
  %xt = rocdsl.load %x[%pid, %c0] strides [%n] bounds [%m, %n] {vec = 8 : i32} : !rocdsl.ptr<bf16> -> tensor<1x4096xbf16, #blk>
  %xf = arith.extf %xt : tensor<1x4096xbf16, #blk> to tensor<1x4096xf32, #blk>
  %sq = arith.mulf %xf, %xf : tensor<1x4096xf32, #blk>
  %ss = rocdsl.reduce add %sq {axis = 1 : i32} : tensor<1x4096xf32, #blk> -> tensor<1xf32, #row>
  %nf = arith.constant dense<4096.0> : tensor<1xf32, #row>
  %mean = arith.divf %ss, %nf : tensor<1xf32, #row>
  %e = rocdsl.splat %eps : f32 -> tensor<1xf32, #row>
  %me = arith.addf %mean, %e : tensor<1xf32, #row>
  %r = math.rsqrt %me : tensor<1xf32, #row>
  %r2 = rocdsl.expand_dims %r {axis = 1 : i32} : tensor<1xf32, #row> -> tensor<1x1xf32, #blk>
  %rb = rocdsl.broadcast %r2 : tensor<1x1xf32, #blk> -> tensor<1x4096xf32, #blk>
  %wt = rocdsl.load %w[%c0] bounds [%n] {vec = 8 : i32} : !rocdsl.ptr<bf16> -> tensor<4096xbf16, #col>
  %wf = arith.extf %wt : tensor<4096xbf16, #col> to tensor<4096xf32, #col>
  %w2 = rocdsl.expand_dims %wf {axis = 0 : i32} : tensor<4096xf32, #col> -> tensor<1x4096xf32, #blk>
  %yn = arith.mulf %xf, %rb : tensor<1x4096xf32, #blk>
  %yw = arith.mulf %yn, %w2 : tensor<1x4096xf32, #blk>
  %yt = arith.truncf %yw : tensor<1x4096xf32, #blk> to tensor<1x4096xbf16, #blk>
  rocdsl.store %yt, %y[%pid, %c0] strides [%n] bounds [%m, %n] {vec = 8 : i32} : tensor<1x4096xbf16, #blk>, !rocdsl.ptr<bf16>
  rocdsl.return
}

// The occupancy hint reaches the llvm.func, where the ROCDL translation
// turns it into "amdgpu-waves-per-eu".
// CHECK-LABEL: llvm.func @hint(
// CHECK-SAME:      rocdl.kernel
// CHECK-SAME:      rocdl.waves_per_eu = 2 : i32
// CHECK-NEXT:    llvm.return
rocdsl.func @hint(%a: !rocdsl.ptr<f32>) attributes {num_warps = 2 : i32, waves_per_eu = 2 : i32} {
  rocdsl.return
}
