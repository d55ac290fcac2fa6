//===- RMSNormConfig.cpp - tiling choices for RMSNorm ---------------------===//
#include "RMSNorm.h"

#include "common/MatrixTiles.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::rocdsl;
using namespace mlir::rocdsl::dsl;

/// Rows up to this many elements stay in registers in one pass (32 fp32
/// values per lane at 256 lanes); longer rows loop over chunks.
static constexpr int64_t kSinglePassMaxN = 8192;
/// Columns per chunk of the looping path.
static constexpr int64_t kLoopBlockN = 4096;

RMSNormConfig RMSNormConfig::choose(int64_t n, DType dtype, DType weightDType,
                                    unsigned waveSize, unsigned lanes) {
  RMSNormConfig c;
  c.n = n;
  c.dtype = dtype;
  c.weightDType = weightDType;
  c.vec = accessWidth(n, dtype);
  c.waveSize = waveSize;
  // 256 lanes per workgroup on either vendor unless asked otherwise.
  c.numWarps = lanes / waveSize;
  c.singlePass = n <= kSinglePassMaxN;
  c.blockN = c.singlePass ? std::max<int64_t>(llvm::PowerOf2Ceil(n), c.vec)
                          : kLoopBlockN;
  // Lanes cover a row first; short rows put several rows in one wave and
  // one workgroup.
  int64_t groups = c.blockN / c.vec;
  c.threadsAlongN =
      static_cast<unsigned>(std::min<int64_t>(c.waveSize, groups));
  c.warpsAlongN = static_cast<unsigned>(
      std::min<int64_t>(c.numWarps, groups / c.threadsAlongN));
  unsigned rowsPerWave = c.waveSize / c.threadsAlongN;
  c.rowsPerProgram = rowsPerWave * (c.numWarps / c.warpsAlongN);
  // The weight shares the layout, so its access width must divide vec.
  c.weightVec = std::min(c.vec, accessWidth(n, weightDType));
  c.partialStoreVec = std::min(c.vec, 128u / 32);
  c.partialLoadVec = accessWidth(n, DType::F32);
  c.weightGradStoreVec =
      std::min(c.partialLoadVec, 128u / bitWidth(weightDType));
  return c;
}
