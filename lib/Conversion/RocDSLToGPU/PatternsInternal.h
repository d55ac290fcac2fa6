//===- PatternsInternal.h - rocdsl -> gpu pattern sets ----------*- C++ -*-===//
#ifndef ROCDSL_LIB_CONVERSION_PATTERNSINTERNAL_H
#define ROCDSL_LIB_CONVERSION_PATTERNSINTERNAL_H

#include "TileDistribution.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Transforms/DialectConversion.h"

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
/// Fast-math flags to each target's approximate instructions, applied to
/// the lowered gpu.module (TargetMath.cpp).
void populateTargetMathPatterns(RewritePatternSet &patterns, bool nvidia);

void populateReducePatterns(TileTypeConverter &converter,
                            RewritePatternSet &patterns,
                            gpu::GPUModuleOp gpuModule);

/// Buffer resource descriptor word 3 for gfx9 chips (gfx942, gfx950):
/// 32-bit data format, float numeric format, as LLVM's AMDGPU backend
/// expects for raw buffer accesses.
constexpr uint32_t kGfx9BufferFlags = 0x27000;

} // namespace mlir::rocdsl

#endif
