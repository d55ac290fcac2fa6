//===- RMSNormPlan.cpp - launch plans of the RMSNorm kernels --------------===//
//
// The argument signatures (shapes and the alignment the compiled accesses
// rely on) and grids, in the order the builders declare the arguments.
//
//===----------------------------------------------------------------------===//
#include "RMSNorm.h"

using namespace mlir;
using namespace mlir::rocdsl;
using namespace mlir::rocdsl::dsl;

namespace {
/// Signatures of the arguments the RMSNorm kernels share.
struct Signatures {
  const RMSNormConfig &c;
  int64_t m;

  /// An [M, N] activation or gradient: accessed `vec` elements at a time.
  ArgSignature rows(const char *name, bool isOutput) const {
    return ArgSignature::tensor(name, c.dtype, {m, c.n},
                                c.vec * bitWidth(c.dtype) / 8, isOutput);
  }
  ArgSignature weight() const {
    return ArgSignature::tensor("w", c.weightDType, {c.n},
                                c.weightVec * bitWidth(c.weightDType) / 8,
                                false);
  }
  ArgSignature partials(int64_t g, unsigned vec, bool isOutput) const {
    return ArgSignature::tensor("dw_partial", DType::F32, {g, c.n}, vec * 4,
                                isOutput);
  }
  /// M: the grid and the shapes were sized by it.
  ArgSignature rowCount() const {
    return ArgSignature::int32("M", m);
  }
  ArgSignature epsilon() const {
    return ArgSignature::float32("eps", checkRMSNormEps);
  }
};
} // namespace

LaunchPlan mlir::rocdsl::planRMSNormForward(const RMSNormConfig &c, int64_t m,
                                            RMSNormVariant variant) {
  Signatures s{c, m};
  LaunchPlan plan;
  // In place as vLLM calls them: y over x, residual_out over residual
  // (every element is read before it is written, by the lane that writes
  // it, on the single-pass and the looping path alike).
  ArgSignature y = s.rows("y", true);
  y.inPlaceOf = "x";
  if (variant == RMSNormVariant::FusedAdd) {
    ArgSignature residualOut = s.rows("residual_out", true);
    residualOut.inPlaceOf = "residual";
    plan.kernelName = "rmsnorm_add_fwd";
    plan.args = {s.rows("x", false), s.rows("residual", false),
                 s.weight(),         y,
                 residualOut,        s.rowCount(),
                 s.epsilon()};
  } else {
    plan.kernelName = "rmsnorm_fwd";
    plan.args = {s.rows("x", false), s.weight(), y, s.rowCount(),
                 s.epsilon()};
  }
  plan.grid[0] = static_cast<uint32_t>(c.gridSize(m));
  return plan;
}

/// Registers ptxas gives a lane of the row-in-registers backward per row
/// element it holds (x and dy in fp32 and their next tile, loaded ahead):
/// on sm_90, 128 at 16 bf16 elements a lane (N = 4096), 248-254 at 32
/// (N = 8192), 118-128 at 12 f32 (N = 3000) and 146-164 at 16 f32
/// (N = 4096; docs/benchmarks.md, 2026-12-07).
static int64_t registersPerRowElement(dsl::DType dtype) {
  return dsl::bitWidth(dtype) > 16 ? 10 : 8;
}

/// Row tiles each of two programs a multiprocessor must still get for the
/// second to pay: it hides one program's memory waits behind the other's,
/// which needs a few tiles each; with fewer, one program a multiprocessor
/// takes less time and leaves fewer partial sums to reduce. Measured on an
/// H100 (2026-12-07): 4096 rows (15.5 tiles each at 264 programs) 41.3 us
/// at 264 against 46.8 at 132; 512 rows (about 2) 9.7 against 8.7 at
/// N = 3000 f32, 9.1 against 8.7 at N = 2048.
static constexpr int64_t kMinRowTilesForTwoPrograms = 8;

int64_t mlir::rocdsl::defaultRMSNormBackwardPrograms(
    const RMSNormConfig &c, int64_t m, int64_t multiprocessors,
    int64_t registersPerMultiprocessor) {
  const int64_t lanes = int64_t(c.numWarps) * c.waveSize;
  const int64_t heldColumns = std::min<int64_t>(c.n, c.blockN);
  const int64_t registersPerProgram =
      lanes * llvm::divideCeil(heldColumns, lanes) *
      registersPerRowElement(c.dtype);
  const bool twoFit = registersPerMultiprocessor == 0 ||
                      2 * registersPerProgram <= registersPerMultiprocessor;
  const bool enoughRows =
      c.gridSize(m) >= 2 * multiprocessors * kMinRowTilesForTwoPrograms;
  return (twoFit && enoughRows ? 2 : 1) * multiprocessors;
}

int64_t mlir::rocdsl::rmsNormBackwardPrograms(const RMSNormConfig &c, int64_t m,
                                              int64_t maxPrograms) {
  return std::max<int64_t>(1, std::min<int64_t>(c.gridSize(m), maxPrograms));
}

LaunchPlan mlir::rocdsl::planRMSNormBackward(const RMSNormConfig &c, int64_t m,
                                             RMSNormVariant variant,
                                             int64_t maxPrograms) {
  Signatures s{c, m};
  int64_t g = c.directWeightGrad ? 1 : rmsNormBackwardPrograms(c, m, maxPrograms);
  // direct_dw: the one program's column sums are dw itself.
  std::vector<ArgSignature> weightGrad = {
      s.partials(g, c.partialStoreVec, true)};
  if (c.writesWeightGrad()) {
    ArgSignature dw = s.weight();
    dw.name = "dw";
    dw.isOutput = true;
    weightGrad = {dw};
  }
  if (c.atomicWeightGrad) {
    ArgSignature sums = ArgSignature::tensor("dw_sums", DType::F32, {c.n},
                                             c.partialStoreVec * 4, true);
    ArgSignature count =
        ArgSignature::tensor("dw_count", DType::I32, {1}, 4, true);
    sums.zeroScratch = count.zeroScratch = true;
    weightGrad.push_back(sums);
    weightGrad.push_back(count);
  }
  if (c.treeWeightGrad) {
    // Rows 0..G-1: the programs' sums; G..: the groups' sums (both fully
    // written before they are read, so no zeroing). The counts start and
    // end at zero.
    int64_t groups = RMSNormConfig::treeGroups(g);
    weightGrad.push_back(s.partials(g + groups, c.partialStoreVec, true));
    ArgSignature count =
        ArgSignature::tensor("dw_count", DType::I32, {1 + groups}, 4, true);
    count.zeroScratch = true;
    weightGrad.push_back(count);
  }
  LaunchPlan plan;
  if (variant == RMSNormVariant::FusedAdd) {
    plan.kernelName = "rmsnorm_add_bwd";
    plan.args = {s.rows("h", false), s.weight(), s.rows("dy", false),
                 s.rows("dresidual_out", false), s.rows("dx", true)};
  } else {
    plan.kernelName = "rmsnorm_bwd";
    plan.args = {s.rows("x", false), s.weight(), s.rows("dy", false),
                 s.rows("dx", true)};
  }
  plan.args.insert(plan.args.end(), weightGrad.begin(), weightGrad.end());
  plan.args.push_back(s.rowCount());
  plan.args.push_back(s.epsilon());
  plan.grid[0] = static_cast<uint32_t>(g);
  return plan;
}

LaunchPlan mlir::rocdsl::planRMSNormWeightGrad(const RMSNormConfig &c,
                                               int64_t m, int64_t maxPrograms) {
  Signatures s{c, m};
  int64_t g = rmsNormBackwardPrograms(c, m, maxPrograms);
  LaunchPlan plan;
  plan.kernelName = "rmsnorm_bwd_dw";
  plan.args = {
      s.partials(g, c.partialLoadVec, false),
      ArgSignature::tensor("dw", c.weightDType, {c.n},
                           c.weightGradStoreVec * bitWidth(c.weightDType) / 8,
                           true),
      ArgSignature::int32("G", g),
  };
  plan.grid[0] =
      static_cast<uint32_t>((c.n + RMSNormConfig::kWeightGradColumns - 1) /
                            RMSNormConfig::kWeightGradColumns);
  return plan;
}
