//===- Passes.td - rocdsl conversion passes ----------------*- tablegen -*-===//
#ifndef ROCDSL_CONVERSION_PASSES_TD
#define ROCDSL_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertRocDSLToGPUPass : Pass<"convert-rocdsl-to-gpu", "::mlir::ModuleOp"> {
  let summary = "Distribute rocdsl tiles over lanes: rocdsl -> gpu + vector + rocdl";
  let description = [{
    Every `rocdsl.func` becomes a `gpu.func` kernel in `gpu.module
    @rocdsl_kernels` with `known_block_size = num_warps * 64`. Tiles become
    per-lane vectors following their layout; `arith`/`math` on tiles become
    the same ops on those vectors; `scf` loops carry them.

    Global memory goes through raw buffer resources
    (`rocdl.raw.ptr.buffer.load/store`): out-of-bounds and masked elements
    get a VGPR offset past the resource's range, so the hardware returns 0
    for loads and drops stores, with no branches.

    Store rule (hazard-free by construction): on gfx940-family and gfx950
    chips the data registers of a VMEM store wider than 64 bits must not be
    overwritten for 2 wait states, and LLVM 22 does not protect buffer stores
    whose `soffset` is an SGPR. This pass never emits a store with an SGPR
    `soffset`: uniform offsets (the tile origin) are folded into the 64-bit
    base of the buffer resource, lane offsets go to the VGPR offset, and
    `soffset` is always the constant 0. Every emitted kernel is scanned
    after code generation anyway; a kernel that still shows the hazard is
    recompiled with `max-store-bits=64` (no store wider than 64 bits), then
    with `pad-wide-stores`.

    Row reductions reduce inside a lane, then across lanes with
    `gpu.subgroup_reduce` (lowered to DPP by
    `rocdsl-lower-subgroup-reduce`), then across waves through LDS.

    Before:
    ```mlir
    rocdsl.func @scale(%x: !rocdsl.ptr<f32>) attributes {num_warps = 1 : i32} {
      %c0 = arith.constant 0 : i32
      %t = rocdsl.load %x[%c0] {vec = 4 : i32} : !rocdsl.ptr<f32> -> tensor<256xf32, #blocked>
      %d = arith.addf %t, %t : tensor<256xf32, #blocked>
      rocdsl.store %d, %x[%c0] {vec = 4 : i32} : tensor<256xf32, #blocked>, !rocdsl.ptr<f32>
      rocdsl.return
    }
    ```
    After (abridged):
    ```mlir
    gpu.module @rocdsl_kernels {
      gpu.func @scale(%x: !llvm.ptr<1>) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
        %rsrc = rocdl.make.buffer.rsrc %base, ... : !llvm.ptr<1> to !llvm.ptr<8>
        %v = rocdl.raw.ptr.buffer.load %rsrc, %voff, %c0, %c0 : vector<4xi32>
        %d = arith.addf %t, %t : vector<4xf32>
        rocdl.raw.ptr.buffer.store %w, %rsrc, %voff, %c0, %c0 : vector<4xi32>
        gpu.return
      }
    }
    ```
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"gfx942\"",
           "Target chip (gfx942 or gfx950)">,
    Option<"maxStoreBits", "max-store-bits", "unsigned", /*default=*/"128",
           "Widest global store emitted (64: the conservative form, no "
           "store carries more than 64 bits of data)">,
    Option<"padWideStores", "pad-wide-stores", "bool", /*default=*/"false",
           "Follow every store wider than 64 bits with `s_nop 1` (2 wait "
           "states), the last-resort protection">,
    Option<"directCopies", "direct-copies", "bool", /*default=*/"false",
           "AMDGPU: rocdsl.async_copy as direct-to-LDS buffer loads with "
           "planned waits (experimental; off: a load and an LDS store at "
           "the copy, commits and waits dropped)">,
    Option<"waits", "waits", "std::string", /*default=*/"\"explicit\"",
           "Waits of asynchronous copies on AMDGPU: `explicit` (each "
           "async_wait is an s_waitcnt vmcnt(N) planned from the copy "
           "groups), `llvm` (each drains, vmcnt(0); LLVM places the rest) "
           "or `weakened-for-testing` (explicit, one wait -- the first in a "
           "loop, else the first -- one "
           "too loose: a test of the checks)">,
  ];
  let dependentDialects = [
    "::mlir::gpu::GPUDialect", "::mlir::vector::VectorDialect",
    "::mlir::LLVM::LLVMDialect", "::mlir::ROCDL::ROCDLDialect",
    "::mlir::arith::ArithDialect", "::mlir::scf::SCFDialect",
    "::mlir::amdgpu::AMDGPUDialect", "::mlir::NVVM::NVVMDialect",
  ];
}

def RocDSLLowerSubgroupReducePass
    : Pass<"rocdsl-lower-subgroup-reduce", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Lower gpu.subgroup_reduce to DPP cross-lane moves";
  let description = [{
    Cross-lane reductions stay in registers instead of round-tripping
    through LDS: steps within a row of 16 lanes use DPP (`quad_perm`,
    `row_half_mirror`, `row_mirror`), steps across rows use `row_bcast:15`
    and `row_bcast:31` and a final `readlane` (the same sequence on gfx942
    and gfx950). Clusters DPP cannot express (strided ones) fall back to
    butterfly shuffles (`ds_bpermute`/`ds_swizzle`).

    Before:
    ```mlir
    %s = gpu.subgroup_reduce add %x uniform cluster(size = 64) : (f32) -> f32
    ```
    After (abridged):
    ```mlir
    %1 = amdgpu.dpp %x %x row_shr(1 : i32) ...
    %2 = arith.addf %x, %1 : f32
    ...
    ```
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"gfx942\"",
           "Target chip (gfx942 or gfx950)">,
  ];
  let dependentDialects = ["::mlir::amdgpu::AMDGPUDialect",
                           "::mlir::ROCDL::ROCDLDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::vector::VectorDialect"];
}

def ConvertRocDSLToHostPass : Pass<"convert-rocdsl-to-host", "::mlir::ModuleOp"> {
  let summary = "Run rocdsl kernels on the CPU: rocdsl -> func + vector + LLVM";
  let description = [{
    The host target executes one program instance per call, as a single
    thread that holds whole tiles: layouts do not matter, so every tile
    becomes an n-D vector of its shape, and reductions, broadcasts and `dot`
    become `vector` ops. This is how the same kernels run on machines
    without a GPU, for numerics in CI.

    Each `rocdsl.func @k(args)` becomes `func.func @k(args, pid_x, pid_y,
    pid_z, num_programs_x, num_programs_y, num_programs_z)`; the runtime
    calls it once per program id. Barriers and waits disappear. LDS tiles
    become stack buffers.

    Bounded accesses copy the valid prefix of each row through a stack
    buffer (`llvm.intr.memcpy` of a computed length), so nothing outside the
    bounds is read or written. Explicitly masked rows go through the same
    buffer element by element, in an `scf.for` over the row guarded by the
    mask (LLVM expands `llvm.intr.masked.load`/`store` into a branch per
    element on CPUs without masked moves of that width, which makes wide
    rows take minutes to compile).

    Before:
    ```mlir
    rocdsl.func @double(%x: !rocdsl.ptr<f32>) attributes {num_warps = 1 : i32} {
      %c0 = arith.constant 0 : i32
      %t = rocdsl.load %x[%c0] : !rocdsl.ptr<f32> -> tensor<256xf32, #blocked>
      %d = arith.addf %t, %t : tensor<256xf32, #blocked>
      rocdsl.store %d, %x[%c0] : tensor<256xf32, #blocked>, !rocdsl.ptr<f32>
      rocdsl.return
    }
    ```
    After (abridged):
    ```mlir
    func.func @double(%x: !llvm.ptr, %pid_x: i32, ...) {
      %t = llvm.load %p {alignment = 4 : i64} : !llvm.ptr -> vector<256xf32>
      %d = arith.addf %t, %t : vector<256xf32>
      llvm.store %d, %p {alignment = 4 : i64} : vector<256xf32>, !llvm.ptr
      return
    }
    ```
  }];
  let dependentDialects = [
    "::mlir::func::FuncDialect", "::mlir::vector::VectorDialect",
    "::mlir::LLVM::LLVMDialect", "::mlir::arith::ArithDialect",
    "::mlir::scf::SCFDialect", "::mlir::memref::MemRefDialect",
  ];
}

#endif // ROCDSL_CONVERSION_PASSES_TD
