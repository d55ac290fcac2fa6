//===- PatternsInternal.h - rocdsl -> gpu pattern sets ----------*- C++ -*-===//
#ifndef ROCDSL_LIB_CONVERSION_PATTERNSINTERNAL_H
#define ROCDSL_LIB_CONVERSION_PATTERNSINTERNAL_H

#include "TileDistribution.h"
#include "rocdsl/Support/ChipInfo.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Transforms/DialectConversion.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

namespace mlir::LLVM {
class InlineAsmOp;
} // namespace mlir::LLVM

namespace mlir::rocdsl {

class TargetInfo;
struct LdsTileRead;

/// Tiles -> per-lane vectors, !rocdsl.ptr -> !llvm.ptr<1>.
class TileTypeConverter : public TypeConverter {
public:
  explicit TileTypeConverter(MLIRContext *ctx);
};

/// rocdsl.func/return/program_id/escape hatches.
void populateKernelPatterns(TileTypeConverter &converter,
                            RewritePatternSet &patterns,
                            gpu::GPUModuleOp gpuModule, unsigned waveSize);
/// arith/math on tiles, splat, iota, expand_dims, broadcast.
void populateElementwisePatterns(TileTypeConverter &converter,
                                 RewritePatternSet &patterns);
/// Tile comparisons marked `rocdsl.constancy`: one compare per run.
void populateRunConstantComparePatterns(TileTypeConverter &converter,
                                        RewritePatternSet &patterns);
/// How stores are emitted (see convert-rocdsl-to-gpu's options).
struct StoreOptions {
  unsigned maxStoreBits = 128;
  bool padWideStores = false;
};

/// rocdsl.load/store through buffer resources.
void populateMemoryPatterns(TileTypeConverter &converter,
                            RewritePatternSet &patterns,
                            StoreOptions storeOptions);
/// rocdsl.load/store as guarded global accesses (NVIDIA).
void populateNvidiaMemoryPatterns(TileTypeConverter &converter,
                                  RewritePatternSet &patterns);
/// rocdsl.async_copy/commit/wait as cp.async (NvidiaAsyncCopy.cpp).
void populateNvidiaAsyncCopyPatterns(TileTypeConverter &converter,
                                     RewritePatternSet &patterns);
/// rocdsl.async_copy/commit/wait as direct-to-LDS loads and planned waits
/// (AmdAsyncCopy.cpp; prepareAmdAsyncCopies marks the ops first).
void populateAmdAsyncCopyPatterns(TileTypeConverter &converter,
                                  RewritePatternSet &patterns);
/// Puts the direct-to-LDS loads of `gpuModule` in an alias scope that its
/// LDS loads and stores are declared not to alias, so that LLVM does not
/// wait for every copy in flight before each LDS access (it cannot tell
/// which buffer a copy writes): the planned waits order them.
void separateDirectCopiesFromLdsAccesses(gpu::GPUModuleOp gpuModule);
/// rocdsl.reduce: in lane, across lanes, across waves through LDS.
/// Fast-math flags to approximate instructions, applied to the lowered
/// gpu.module (TargetMath.cpp): exp and exp2 {afn} to the hardware exp2
/// intrinsic, log2 {afn} to the hardware log2 (no libdevice or ocml call:
/// those are not always there, and would add range fix-ups); PTX's
/// div.full.f32 for divf {arcp} and rsqrt.approx.f32.
void populateHardwareMathPatterns(RewritePatternSet &patterns,
                                  StringRef exp2Intrinsic,
                                  StringRef log2Intrinsic);
void populatePtxApproxMathPatterns(RewritePatternSet &patterns);

/// rocdsl.reduce (ReduceLowering.cpp). `withoutTrailingBarrier`: the
/// reduces that may skip the barrier after their LDS reads
/// (findReducesWithoutTrailingBarrier, taken before any op is rewritten).
void populateReducePatterns(TileTypeConverter &converter,
                            RewritePatternSet &patterns,
                            gpu::GPUModuleOp gpuModule,
                            llvm::DenseSet<Operation *> withoutTrailingBarrier);
llvm::DenseSet<Operation *> findReducesWithoutTrailingBarrier(ModuleOp module);

/// rocdsl.atomic_add and rocdsl.program_atomic (AtomicLowering.cpp).
void populateAtomicPatterns(TileTypeConverter &converter,
                            RewritePatternSet &patterns,
                            gpu::GPUModuleOp gpuModule,
                            const TargetInfo &target);
/// rocdsl.dot -> amdgpu.mfma (DotLowering.cpp).
void populateMfmaDotPatterns(TileTypeConverter &converter,
                         RewritePatternSet &patterns);
/// rocdsl.dot -> nvvm.mma.sync (NvidiaDotLowering.cpp).
void populateNvidiaDotPatterns(TileTypeConverter &converter,
                               RewritePatternSet &patterns);
/// rocdsl.warpgroup_dot as wgmma.mma_async from shared-memory descriptors
/// (sm_90a; NvidiaWarpgroupDot.cpp).
void populateNvidiaWarpgroupDotPatterns(TileTypeConverter &converter,
                                        RewritePatternSet &patterns);
/// Inline PTX (NvidiaMemoryLowering.cpp). Marked as having side effects,
/// loads included, so that neither MLIR nor LLVM moves an access across
/// another one to the same memory (without it the op is pure to both).
LLVM::InlineAsmOp ptxAsm(OpBuilder &b, Location loc, TypeRange results,
                         ValueRange operands, StringRef text,
                         StringRef constraints);
/// In kernels with wgmma: a generic-to-async proxy fence on shared memory
/// before every barrier, so that what was written before it is visible to
/// the matrix unit's reads after it.
void fenceSharedMemoryForWarpgroupMma(gpu::GPUModuleOp gpuModule);
/// The matrix-operand kind of an element type, if matrix cores take it.
std::optional<MatrixOperand> matrixOperandOf(Type type);
/// One precise error for the first dot the chip cannot run (no such
/// instruction, a newer matrix-core layout, NVIDIA).
LogicalResult checkMatrixOps(ModuleOp module, const ChipInfo &chip);

/// One LDS buffer of a kernel: a local_alloc, or a conversion or transpose
/// that moves data through LDS, and its bytes.
struct LdsBuffer {
  Operation *op;
  int64_t bytes;
  /// Byte alignment of the buffer's offset: 16 (the widest LDS access), or
  /// 1024 for tiles the matrix unit reads in its 128-byte swizzle.
  int64_t alignment = 16;
};
/// Calls `fn` on each user of the LDS tile `tile` and of the buffers
/// rocdsl.local_index takes from it (not on the local_index ops); stops and
/// returns false as soon as `fn` does.
bool walkLdsTileUsers(Value tile, function_ref<bool(Operation *)> fn);
/// Places `buffers` in one arena where buffers live at the same time never
/// share bytes (LdsAllocation.cpp); returns the arena's size.
int64_t assignLdsOffsets(FuncOp func, ArrayRef<LdsBuffer> buffers,
                         llvm::DenseMap<Operation *, int64_t> &offsets);
/// Where an op's LDS buffer lives: its kernel's arena and the offset.
struct LdsSlot {
  std::string arena;
  int64_t offset = 0;
};
using LdsSlots = llvm::DenseMap<Operation *, LdsSlot>;
/// Plans each kernel's LDS (local_alloc tiles and conversion scratch) and
/// creates its arena in `gpuModule` (call before converting). An arena
/// larger than `chip`'s static shared memory is dynamic (NVIDIA): declared
/// without a size, its bytes in the dynamicSharedBytesSymbol constant.
LdsSlots createLdsArenas(ModuleOp module, gpu::GPUModuleOp gpuModule,
                         const ChipInfo &chip);
/// The barriers a local_store places around its writes.
struct StoreBarriers {
  bool leading = true, trailing = true;
};
/// The local_stores that share barriers with a neighbour: consecutive
/// stores with nothing that touches LDS between them get one barrier
/// before the first and one after the last (taken before any op is
/// rewritten).
llvm::DenseMap<Operation *, StoreBarriers>
findStoresSharingBarriers(ModuleOp module);
/// Where each group of `width` consecutive entries of a lane's register
/// tile `dist` lands in the LDS tile `dst` at `base` (swizzle and padding
/// included): `width` is the widest LDS access the layout keeps together,
/// at most `maxWidth`.
struct LdsGroupAddresses {
  unsigned width;
  SmallVector<Value> addresses; // !llvm.ptr<3>, one per group in entry order
};
LdsGroupAddresses ldsGroupAddresses(OpBuilder &b, Location loc,
                                    const TileDistribution &dist,
                                    Type elementType, Value base,
                                    LdsTileType dst, unsigned maxWidth);
/// local_alloc/local_store/local_load and convert_layout (LdsLowering.cpp).
void populateLdsPatterns(TileTypeConverter &converter,
                         RewritePatternSet &patterns, ModuleOp module,
                         const LdsSlots &slots, const TargetInfo &target);
/// Removes each gpu.barrier that follows another in its block with no
/// memory access between them (the LDS writes' barriers meet there).
void foldAdjacentBarriers(gpu::GPUModuleOp gpuModule);
/// NVIDIA: `read` as ldmatrix (.trans) fragments where the layout's
/// registers are those of ldmatrix and LDS keeps 16-byte rows; else null
/// (NvidiaLdsMatrix.cpp).
Value readLdsWithLdmatrix(OpBuilder &b, Location loc, const LdsTileRead &read,
                          VectorType vectorType);
/// CDNA4: `read` as ds_read_b64_tr_b16 fragments where each lane's
/// registers hold four elements running across the LDS rows, neighbouring
/// lanes neighbouring columns (MFMA operands whose K crosses the rows);
/// else null (AmdLdsTranspose.cpp).
Value readLdsWithTransposeRead(OpBuilder &b, Location loc,
                               const LdsTileRead &read, VectorType vectorType);
/// Why an LDS tile's #rocdsl.shared layout cannot be lowered, if it cannot.
std::optional<std::string> checkSharedLayout(LdsTileType type);

/// A fresh LDS array of `count` elements named prefix<N> in `gpuModule`;
/// returns its address, built at `b`'s insertion point.
Value createLdsArray(OpBuilder &b, Location loc, gpu::GPUModuleOp gpuModule,
                     StringRef prefix, Type elementType, int64_t count);

/// Buffer resource descriptor word 3 for gfx9 chips (gfx942, gfx950):
/// 32-bit data format, float numeric format, as LLVM's AMDGPU backend
/// expects for raw buffer accesses.
constexpr uint32_t kGfx9BufferFlags = 0x27000;

} // namespace mlir::rocdsl

#endif
