//===- PatternsInternal.h - rocdsl -> gpu pattern sets ----------*- C++ -*-===//
#ifndef ROCDSL_LIB_CONVERSION_PATTERNSINTERNAL_H
#define ROCDSL_LIB_CONVERSION_PATTERNSINTERNAL_H

#include "TileDistribution.h"
#include "rocdsl/Support/ChipInfo.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Transforms/DialectConversion.h"
#include "llvm/ADT/DenseSet.h"

namespace mlir::rocdsl {

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
/// rocdsl.reduce: in lane, across lanes, across waves through LDS.
/// Fast-math flags to approximate instructions, applied to the lowered
/// gpu.module (TargetMath.cpp): exp and exp2 {afn} to the hardware exp2
/// `intrinsic` (no libdevice or ocml call: those are not always there, and
/// would add range fix-ups); PTX's div.full.f32 for divf {arcp} and
/// rsqrt.approx.f32.
void populateHardwareExp2Patterns(RewritePatternSet &patterns,
                                  StringRef intrinsic);
void populatePtxApproxMathPatterns(RewritePatternSet &patterns);

/// rocdsl.reduce (ReduceLowering.cpp). `withoutTrailingBarrier`: the
/// reduces that may skip the barrier after their LDS reads
/// (findReducesWithoutTrailingBarrier, taken before any op is rewritten).
void populateReducePatterns(TileTypeConverter &converter,
                            RewritePatternSet &patterns,
                            gpu::GPUModuleOp gpuModule,
                            llvm::DenseSet<Operation *> withoutTrailingBarrier);
llvm::DenseSet<Operation *> findReducesWithoutTrailingBarrier(ModuleOp module);

/// rocdsl.dot -> amdgpu.mfma (DotLowering.cpp).
void populateMfmaDotPatterns(TileTypeConverter &converter,
                         RewritePatternSet &patterns);
/// rocdsl.dot -> nvvm.mma.sync (NvidiaDotLowering.cpp).
void populateNvidiaDotPatterns(TileTypeConverter &converter,
                               RewritePatternSet &patterns);
/// The matrix-operand kind of an element type, if matrix cores take it.
std::optional<MatrixOperand> matrixOperandOf(Type type);
/// One precise error for the first dot the chip cannot run (no such
/// instruction, a newer matrix-core layout, NVIDIA).
LogicalResult checkMatrixOps(ModuleOp module, const ChipInfo &chip);

/// local_alloc/local_store/local_load and convert_layout (LdsLowering.cpp).
void populateLdsPatterns(TileTypeConverter &converter,
                         RewritePatternSet &patterns,
                         gpu::GPUModuleOp gpuModule);
/// Why an LDS tile's #rocdsl.shared layout cannot be lowered, if it cannot.
std::optional<std::string> checkSharedLayout(LdsTileType type);
/// Creates each kernel's layout-conversion scratch in `gpuModule`, sized
/// for its largest conversion that moves data (call before converting).
void createConvertScratch(ModuleOp module, gpu::GPUModuleOp gpuModule);
std::string convertScratchName(StringRef kernel);
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
