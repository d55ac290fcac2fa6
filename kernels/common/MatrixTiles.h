//===- MatrixTiles.h - choices shared by the matrix-unit kernels -*- C++
//-*-===//
//
// The GEMM and attention families load tiles in coalesced layouts and
// multiply them on the chip's matrix instruction; these are the rules both
// follow, so the two families pick the same instruction and access widths.
//
//===----------------------------------------------------------------------===//
#ifndef ROCDSL_KERNELS_COMMON_MATRIXTILES_H
#define ROCDSL_KERNELS_COMMON_MATRIXTILES_H

#include "rocdsl/DSL/DSL.h"
#include "rocdsl/Support/ChipInfo.h"

namespace mlir::rocdsl {

/// Largest power of two <= 128 bits of `dtype` that divides `n` (the
/// widest access whose every address is aligned in a row of `n` elements;
/// the RMSNorm family's rows too).
unsigned accessWidth(int64_t n, dsl::DType dtype);

/// accessWidth, no wider than `layout`'s run of elements per lane (a small
/// tile spread over many lanes gives each lane fewer than 128 bits).
unsigned accessWidth(int64_t n, dsl::DType dtype, dsl::Layout layout);

/// The AMD matrix instruction for `dtype` (bf16, f16) on `chip`: the
/// widest-K 32x32 form the chip has (fewer LDS reads per product), else
/// 16x16. With `n` nonzero, only forms whose N divides `n` (a product
/// whose columns must hold whole instructions); with `maxM` nonzero, only
/// forms of at most `maxM` rows. Null when none fits.
const MatrixInstr *pickMatrixInstr(const ChipInfo &chip, dsl::DType dtype,
                                   int64_t n = 0, unsigned maxM = 0);

/// The MFMA layout version of `instr` (4 for gfx950's double-K forms).
unsigned mfmaVersion(const MatrixInstr &instr);

/// An uninitialised LDS tile of `rows` x `cols` for a matrix operand,
/// strided with global memory's contiguous dimension fastest (dimension 0
/// when `colMajor`), so that its writes are 16 bytes wide. Where that
/// dimension is the product's K (`kFast`), the swizzle moves groups as
/// wide as one lane's operand read: `kWidth` elements on AMD (8 bytes on
/// gfx942, whose 16 rows of one read phase would otherwise meet in 8 bank
/// positions), ldmatrix's 16-byte rows on NVIDIA. `banks`: the chip's
/// 4-byte LDS banks. `buffers` > 0: that many such tiles stacked for
/// N-buffering (pick one with LdsTile::index). `transposeReads`: the chip
/// reads operands whose K crosses the rows with transposing reads
/// (ChipInfo::ldsTransposeReads), which want wider swizzle groups.
dsl::LdsTile operandLdsTile(dsl::KernelBuilder &kb, int64_t rows, int64_t cols,
                            dsl::DType dtype, bool colMajor, bool kFast,
                            bool nvidia, unsigned kWidth, unsigned banks,
                            bool transposeReads, unsigned buffers = 0);

} // namespace mlir::rocdsl

#endif
