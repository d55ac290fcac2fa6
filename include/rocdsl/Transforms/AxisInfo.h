//===- AxisInfo.h - divisibility, contiguity and constancy of values -*- C++ -*-===//
//
// What vector-width inference needs to know about integer (and i1) values
// of a rocdsl kernel, per tile dimension, in the style of Triton's AxisInfo:
//
//   contiguity[d]    the dimension splits into aligned runs of this many
//                    elements whose values step by +1;
//   divisibility[d]  the first value of each such run is a multiple of it;
//   constancy[d]     the dimension splits into aligned runs of this many
//                    equal values.
//
// All three are powers of two. Scalars are rank 1 with contiguity and
// constancy 1. Facts about launch arguments come from argument attributes
// the runtime specializes on: `rocdsl.divisibility` (an i32 argument is a
// multiple of it) and `rocdsl.alignment` (a pointer argument's address is a
// multiple of that many bytes). Anything the rules do not know is the
// pessimistic 1.
//
//===----------------------------------------------------------------------===//
#ifndef ROCDSL_TRANSFORMS_AXISINFO_H
#define ROCDSL_TRANSFORMS_AXISINFO_H

#include "mlir/IR/Value.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

namespace mlir {
class Operation;
} // namespace mlir

namespace mlir::rocdsl {

/// Argument attribute: an i32 argument is a multiple of this power of two.
constexpr const char *kDivisibilityAttr = "rocdsl.divisibility";
/// Argument attribute: a pointer argument is aligned to this many bytes.
constexpr const char *kAlignmentAttr = "rocdsl.alignment";

struct AxisInfo {
  /// The divisibility of 0: a multiple of anything we care about.
  static constexpr int64_t kMaxDivisibility = int64_t(1) << 30;

  llvm::SmallVector<int64_t> contiguity, divisibility, constancy;

  unsigned getRank() const { return contiguity.size(); }
  /// Nothing known about a value of `rank` dimensions (1 for scalars).
  static AxisInfo unknown(unsigned rank);
  /// A value equal everywhere to a constant.
  static AxisInfo ofConstant(int64_t value, llvm::ArrayRef<int64_t> shape);
  bool operator==(const AxisInfo &other) const {
    return contiguity == other.contiguity &&
           divisibility == other.divisibility && constancy == other.constancy;
  }
};

/// The largest power of two dividing `value` (kMaxDivisibility for 0).
int64_t powerOfTwoDivisor(int64_t value);

/// AxisInfo of every integer and i1 value in a kernel, computed once.
class AxisInfoAnalysis {
public:
  explicit AxisInfoAnalysis(Operation *kernel);
  /// The facts about `value` (unknown for values the analysis never saw).
  AxisInfo get(Value value) const;
  /// Alignment in bytes of a pointer value: its argument attribute, else
  /// its element size.
  int64_t getPointerAlignment(Value pointer) const;

private:
  AxisInfo compute(Operation *op, unsigned resultIndex) const;
  llvm::DenseMap<Value, AxisInfo> infos;
};

} // namespace mlir::rocdsl

#endif
