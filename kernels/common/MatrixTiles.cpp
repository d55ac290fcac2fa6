//===- MatrixTiles.cpp - choices shared by the matrix-unit kernels --------===//
#include "common/MatrixTiles.h"

#include "rocdsl/Dialect/RocDSL/IR/RocDSL.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::rocdsl;
using dsl::DType;

unsigned mlir::rocdsl::accessWidth(int64_t n, DType dtype) {
  unsigned vec = 128 / dsl::bitWidth(dtype);
  while (vec > 1 && n % vec != 0)
    vec /= 2;
  return vec;
}

unsigned mlir::rocdsl::accessWidth(int64_t n, DType dtype, dsl::Layout layout) {
  return std::min(accessWidth(n, dtype),
                  cast<BlockedAttr>(layout).getSizePerThread().back());
}

const MatrixInstr *mlir::rocdsl::pickMatrixInstr(const ChipInfo &chip,
                                                 DType dtype, int64_t n,
                                                 unsigned maxM) {
  MatrixOperand operand =
      dtype == DType::F16 ? MatrixOperand::F16 : MatrixOperand::BF16;
  const MatrixInstr *best = nullptr;
  for (const MatrixInstr &instr : chip.matrixInstrs)
    if (instr.operand == operand && (!n || n % instr.n == 0) &&
        (!maxM || instr.m <= maxM) &&
        (!best || instr.m > best->m ||
         (instr.m == best->m && instr.k > best->k)))
      best = &instr;
  return best;
}

unsigned mlir::rocdsl::mfmaVersion(const MatrixInstr &instr) {
  return instr.k * instr.m / 64 > 4 ? 4 : 3;
}

dsl::LdsTile mlir::rocdsl::operandLdsTile(dsl::KernelBuilder &kb, int64_t rows,
                                          int64_t cols, DType dtype,
                                          bool colMajor, bool kFast,
                                          bool nvidia, unsigned kWidth,
                                          unsigned banks, bool transposeReads,
                                          unsigned buffers) {
  SmallVector<unsigned> order =
      colMajor ? SmallVector<unsigned>{0, 1} : SmallVector<unsigned>{1, 0};
  dsl::Layout shared = getMatrixOperandSharedLayout(
      kb.getContext(), {rows, cols}, dsl::bitWidth(dtype), order, kFast,
      nvidia, kWidth, banks, transposeReads);
  if (buffers)
    return kb.localAllocBuffers(buffers, {rows, cols}, dtype, shared);
  return kb.localAlloc({rows, cols}, dtype, shared);
}
