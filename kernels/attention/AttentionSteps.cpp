//===- AttentionSteps.cpp - mask runs, mask tiles and the soft cap --------===//
//
// What the forward and both halves of the backward share: which steps of
// a program's walk the mask leaves anything in (and which of them it
// leaves whole), the mask of a step, the capped scores, the arguments.
//
//===----------------------------------------------------------------------===//
#include "Attention.h"

#include "common/MatrixTiles.h"

#include "llvm/Support/MathExtras.h"

#include <cmath>

using namespace mlir;
using namespace mlir::rocdsl;
using namespace mlir::rocdsl::dsl;

StepRuns mlir::rocdsl::getStepRuns(KernelBuilder &kb, Scalar r0, int64_t rows,
                                   Scalar extent, int64_t step,
                                   std::optional<Scalar> lower,
                                   std::optional<Scalar> upper) {
  Scalar zero = kb.i32(0), stepSize = kb.i32(step);
  auto floorStep = [&](Scalar x) { return x / stepSize * step; }; // x >= 0
  StepRuns runs;
  runs.lo = zero;
  runs.hi = extent;
  // The last row's upper bound ends the walk, the first row's lower bound
  // starts it.
  if (upper)
    runs.hi = kb.min(runs.hi, r0 + *upper + rows);
  if (lower)
    runs.lo = floorStep(kb.max(zero, r0 + *lower));
  runs.hi = kb.max(runs.hi, runs.lo);
  // Steps whose first column meets the last row's lower bound...
  runs.mid0 = runs.lo;
  if (lower)
    runs.mid0 = kb.min(
        runs.hi, floorStep(kb.max(runs.lo, r0 + *lower + (rows + step - 2))));
  // ...up to those whose last column is within the first row's upper
  // bound and the extent.
  Scalar fullEnd = extent;
  if (upper)
    fullEnd = kb.min(fullEnd, r0 + *upper + 1);
  runs.mid1 =
      kb.max(runs.mid0, kb.min(runs.hi, floorStep(kb.max(zero, fullEnd))));
  return runs;
}

SmallVector<Tile> mlir::rocdsl::walkStepRuns(
    KernelBuilder &kb, const StepRuns &runs, int64_t step,
    ArrayRef<Tile> state, bool maskedBelow, bool maskedAbove,
    function_ref<SmallVector<Tile>(bool masked, Scalar row0,
                                   ArrayRef<Tile> carried)>
        body) {
  SmallVector<Tile> carried(state.begin(), state.end());
  Scalar stepSize = kb.i32(step);
  auto run = [&](Scalar lo, Scalar hi, bool masked) {
    carried = kb.forLoop(lo, hi, stepSize, carried,
                         [&](Scalar row0, ArrayRef<Tile> values) {
                           return body(masked, row0, values);
                         });
  };
  if (maskedBelow)
    run(runs.lo, runs.mid0, true);
  run(runs.mid0, runs.mid1, false);
  if (maskedAbove)
    run(runs.mid1, runs.hi, true);
  return carried;
}

Tile mlir::rocdsl::visiblePairs(KernelBuilder &kb, Tile row, Tile col,
                                Scalar extent, std::optional<Scalar> lower,
                                std::optional<Scalar> upper) {
  int64_t rows = row.getShape()[0], cols = col.getShape()[0];
  Tile c = col.expandDims(0).broadcastTo({rows, cols});
  Tile r = row.expandDims(1).broadcastTo({rows, cols});
  Tile seen = c.compare(Cmp::LT, extent);
  if (upper)
    seen = seen & c.compare(Cmp::LE, r + *upper);
  if (lower)
    seen = seen & c.compare(Cmp::GE, r + *lower);
  return seen;
}

std::pair<Tile, Tile> mlir::rocdsl::softcapScores(KernelBuilder &kb, Tile raw,
                                                  Scalar scale, double cap) {
  // tanh(y) = 1 - 2 / (e^2y + 1): exact at both ends (e^2y overflowing to
  // +inf gives 1, underflowing to 0 gives -1) and one exp2 and one
  // division, on every target (no libm or device library call).
  Tile y2 = raw * (scale * kb.f32(2 * llvm::numbers::log2e / cap));
  Tile one = kb.full(raw.getShape(), raw.getLayout(), kb.f32(1));
  Tile two = kb.full(raw.getShape(), raw.getLayout(), kb.f32(2));
  Tile t = one - two / (y2.exp2() + one);
  return {t * kb.f32(cap), t};
}

ArgSignature mlir::rocdsl::attentionTensorArg(const char *name, DType dtype,
                                              std::vector<int64_t> shape,
                                              bool output) {
  // Rows of the innermost dimension are accessed as wide as it allows.
  unsigned alignment = accessWidth(shape.back(), dtype) * bitWidth(dtype) / 8;
  return ArgSignature::tensor(name, dtype, std::move(shape), alignment, output);
}

ArgSignature mlir::rocdsl::attentionScaleArg() {
  return ArgSignature::float32(
      "scale", [](double v) -> std::optional<std::string> {
        if (!std::isfinite(v))
          return "is not finite (a scale of 0 selects 1/sqrt(D))";
        return std::nullopt;
      });
}
