//===- RMSNormBackward.cpp - RMSNorm backward in the C++ DSL --------------===//
//
// Two kernels. rmsnorm_bwd: each of G programs takes row tiles p, p+G, ...,
// writes dx for them and accumulates dy * x * rstd per column in an fp32
// tile, then stores its column sums as row p of an fp32 [G, N] buffer.
// rmsnorm_bwd_dw: reduces that buffer over G in fp32 and casts to the
// weight's dtype. With y = x * rstd * w, rstd = rsqrt(mean(x^2) + eps):
//   dx = rstd * (w*dy - x * rstd^2 * mean(w*dy*x)),  dw = sum_rows(dy*x*rstd)
//
//===----------------------------------------------------------------------===//
#include "RMSNorm.h"

using namespace mlir;
using namespace mlir::rocdsl;
using namespace mlir::rocdsl::dsl;

OwningOpRef<ModuleOp>
mlir::rocdsl::buildRMSNormBackward(MLIRContext *ctx, const RMSNormConfig &c) {
  KernelBuilder kb(
      ctx, "rmsnorm_bwd", c.numWarps,
      {ArgSpec::ptr("x", c.dtype), ArgSpec::ptr("w", c.weightDType),
       ArgSpec::ptr("dy", c.dtype), ArgSpec::ptr("dx", c.dtype),
       ArgSpec::ptr("dw_partial", DType::F32), ArgSpec::scalar("M", DType::I32),
       ArgSpec::scalar("eps", DType::F32)});
  Ptr x = kb.ptrArg("x"), w = kb.ptrArg("w"), dy = kb.ptrArg("dy"),
      dx = kb.ptrArg("dx"), partial = kb.ptrArg("dw_partial");
  Scalar m = kb.scalarArg("M"), eps = kb.scalarArg("eps");

  const int64_t rows = c.rowsPerProgram, cols = c.blockN;
  Layout layout =
      kb.blocked({1, c.vec}, {c.waveSize / c.threadsAlongN, c.threadsAlongN},
                 {c.numWarps / c.warpsAlongN, c.warpsAlongN}, {1, 0});
  Layout colLayout = kb.slice(layout, 0);
  Scalar n = kb.i32(c.n), zero = kb.i32(0);
  AccessOptions rowAccess;
  rowAccess.strides = {n};
  rowAccess.bounds = {m, n};
  rowAccess.vec = c.vec;
  AccessOptions colAccess;
  colAccess.bounds = {n};
  colAccess.vec = c.weightVec;
  AccessOptions partialAccess;
  partialAccess.strides = {n};
  partialAccess.bounds = {kb.numPrograms(0), n};
  partialAccess.vec = c.partialStoreVec;

  auto rowsOf = [&](Tile t) {
    return t.expandDims(1).broadcastTo({rows, cols});
  };
  Tile wf = kb.load(w, {zero}, {cols}, colLayout, colAccess)
                .to(DType::F32)
                .expandDims(0)
                .broadcastTo({rows, cols});
  Scalar program = kb.programId(0);
  Scalar first = program * rows;
  Scalar step = kb.numPrograms(0) * rows;
  Tile acc = kb.zeros({rows, cols}, layout, DType::F32);
  SmallVector<Tile> sums = kb.forLoop(
      first, m, step, {acc},
      [&](Scalar row0, ArrayRef<Tile> carried) -> SmallVector<Tile> {
        Tile xf = kb.load(x, {row0, zero}, {rows, cols}, layout, rowAccess)
                      .to(DType::F32);
        Tile dyf = kb.load(dy, {row0, zero}, {rows, cols}, layout, rowAccess)
                       .to(DType::F32);
        Tile rstd =
            ((xf * xf).sum(1) * kb.f32(1.0 / double(c.n)) + eps).rsqrt();
        Tile wdy = dyf * wf;
        Tile meanWdyX = (wdy * xf).sum(1) * kb.f32(1.0 / double(c.n));
        Tile scale = rstd * rstd * meanWdyX;
        Tile dxf = rowsOf(rstd) * (wdy - xf * rowsOf(scale));
        kb.store(dxf.to(c.dtype), dx, {row0, zero}, rowAccess);
        return {carried[0] + dyf * xf * rowsOf(rstd)};
      });
  kb.store(sums[0].sum(0).expandDims(0), partial, {program, zero},
           partialAccess);
  return kb.finish();
}

OwningOpRef<ModuleOp>
mlir::rocdsl::buildRMSNormWeightGrad(MLIRContext *ctx, const RMSNormConfig &c) {
  constexpr int64_t rows = RMSNormConfig::kWeightGradRows,
                    cols = RMSNormConfig::kWeightGradColumns;
  unsigned vec = c.partialLoadVec;
  KernelBuilder kb(ctx, "rmsnorm_bwd_dw", 256 / c.waveSize,
                   {ArgSpec::ptr("dw_partial", DType::F32),
                    ArgSpec::ptr("dw", c.weightDType),
                    ArgSpec::scalar("G", DType::I32)});
  Ptr partial = kb.ptrArg("dw_partial"), dw = kb.ptrArg("dw");
  Scalar g = kb.scalarArg("G");
  Layout layout =
      kb.blocked({1, vec}, {1, c.waveSize}, {256 / c.waveSize, 1}, {1, 0});
  Scalar n = kb.i32(c.n);
  Scalar col0 = kb.programId(0) * cols;
  AccessOptions access;
  access.strides = {n};
  access.bounds = {g, n};
  access.vec = vec;
  Tile acc = kb.zeros({rows, cols}, layout, DType::F32);
  SmallVector<Tile> sums =
      kb.forLoop(kb.i32(0), g, kb.i32(rows), {acc},
                 [&](Scalar row0, ArrayRef<Tile> carried) -> SmallVector<Tile> {
                   return {carried[0] + kb.load(partial, {row0, col0},
                                                {rows, cols}, layout, access)};
                 });
  AccessOptions out;
  out.bounds = {n};
  out.vec = c.weightGradStoreVec;
  kb.store(sums[0].sum(0).to(c.weightDType), dw, {col0}, out);
  return kb.finish();
}

int64_t mlir::rocdsl::rmsNormBackwardPrograms(const RMSNormConfig &c,
                                              int64_t m) {
  // Enough programs to fill a GPU; few enough that dw_partial stays small.
  return std::max<int64_t>(1, std::min<int64_t>(c.gridSize(m), 1024));
}

/// The backward needs whole rows in registers.
static LogicalResult configureBackward(const KernelParams &params,
                                       RMSNormConfig &config, int64_t &m,
                                       std::string &error) {
  if (failed(configureRMSNorm(params, config, m, error)))
    return failure();
  if (!config.singlePass) {
    error = "rmsnorm_bwd supports N <= 8192 so far, got N=" +
            std::to_string(config.n);
    return failure();
  }
  return success();
}

KernelSpec mlir::rocdsl::getRMSNormBackwardSpec() {
  KernelSpec spec;
  spec.name = "rmsnorm_bwd";
  spec.summary = "RMSNorm backward, step 1: dx and per-program fp32 dw sums";
  spec.params = getRMSNormParams();
  spec.build = [](MLIRContext *ctx, const KernelParams &params,
                  std::string &error) -> OwningOpRef<ModuleOp> {
    RMSNormConfig c;
    int64_t m;
    if (failed(configureBackward(params, c, m, error)))
      return nullptr;
    return buildRMSNormBackward(ctx, c);
  };
  spec.plan = [](const KernelParams &params, LaunchPlan &plan,
                 std::string &error) -> LogicalResult {
    RMSNormConfig c;
    int64_t m;
    if (failed(configureBackward(params, c, m, error)))
      return failure();
    int64_t g = rmsNormBackwardPrograms(c, m);
    unsigned xAlign = c.vec * bitWidth(c.dtype) / 8;
    plan.kernelName = "rmsnorm_bwd";
    plan.args = {
        {"x", ArgKind::Tensor, c.dtype, {m, c.n}, xAlign, false},
        {"w",
         ArgKind::Tensor,
         c.weightDType,
         {c.n},
         c.weightVec * bitWidth(c.weightDType) / 8,
         false},
        {"dy", ArgKind::Tensor, c.dtype, {m, c.n}, xAlign, false},
        {"dx", ArgKind::Tensor, c.dtype, {m, c.n}, xAlign, true},
        {"dw_partial",
         ArgKind::Tensor,
         DType::F32,
         {g, c.n},
         c.partialStoreVec * 4,
         true},
        {"M", ArgKind::Int32, DType::I32, {}, 1, false, m},
        {"eps", ArgKind::Float32, DType::F32, {}, 1, false},
    };
    plan.grid[0] = static_cast<uint32_t>(g);
    return success();
  };
  // dx as in the math; dw_partial row p holds the rows of tiles p, p+G, ...
  spec.reference = [](const KernelParams &params,
                      std::vector<std::vector<double>> &t,
                      const std::vector<double> &scalars) {
    RMSNormConfig c;
    int64_t m;
    std::string error;
    (void)configureBackward(params, c, m, error);
    int64_t n = c.n, g = rmsNormBackwardPrograms(c, m);
    std::vector<double> dw(n);
    rmsNormBackwardReference(m, n, scalars[1], t[0], t[1], t[2], t[3], dw);
    std::fill(t[4].begin(), t[4].end(), 0.0);
    for (int64_t r = 0; r < m; ++r) {
      std::vector<double> one(n);
      std::vector<double> dxRow(n);
      rmsNormBackwardReference(
          1, n, scalars[1],
          std::vector<double>(t[0].begin() + r * n, t[0].begin() + (r + 1) * n),
          t[1],
          std::vector<double>(t[2].begin() + r * n, t[2].begin() + (r + 1) * n),
          dxRow, one);
      int64_t program = (r / c.rowsPerProgram) % g;
      for (int64_t col = 0; col < n; ++col)
        t[4][program * n + col] += one[col];
    }
  };
  return spec;
}

KernelSpec mlir::rocdsl::getRMSNormWeightGradSpec() {
  KernelSpec spec;
  spec.name = "rmsnorm_bwd_dw";
  spec.summary = "RMSNorm backward, step 2: dw = sum of the fp32 partial "
                 "sums, cast to the weight dtype";
  spec.params = getRMSNormParams();
  spec.build = [](MLIRContext *ctx, const KernelParams &params,
                  std::string &error) -> OwningOpRef<ModuleOp> {
    RMSNormConfig c;
    int64_t m;
    if (failed(configureBackward(params, c, m, error)))
      return nullptr;
    return buildRMSNormWeightGrad(ctx, c);
  };
  spec.plan = [](const KernelParams &params, LaunchPlan &plan,
                 std::string &error) -> LogicalResult {
    RMSNormConfig c;
    int64_t m;
    if (failed(configureBackward(params, c, m, error)))
      return failure();
    int64_t g = rmsNormBackwardPrograms(c, m);
    plan.kernelName = "rmsnorm_bwd_dw";
    plan.args = {
        {"dw_partial",
         ArgKind::Tensor,
         DType::F32,
         {g, c.n},
         c.partialLoadVec * 4,
         false},
        {"dw",
         ArgKind::Tensor,
         c.weightDType,
         {c.n},
         c.weightGradStoreVec * bitWidth(c.weightDType) / 8,
         true},
        {"G", ArgKind::Int32, DType::I32, {}, 1, false, g},
    };
    plan.grid[0] =
        static_cast<uint32_t>((c.n + RMSNormConfig::kWeightGradColumns - 1) /
                              RMSNormConfig::kWeightGradColumns);
    return success();
  };
  spec.reference = [](const KernelParams &params,
                      std::vector<std::vector<double>> &t,
                      const std::vector<double> &scalars) {
    int64_t g = static_cast<int64_t>(scalars[0]);
    int64_t n = static_cast<int64_t>(t[1].size());
    std::fill(t[1].begin(), t[1].end(), 0.0);
    for (int64_t p = 0; p < g; ++p)
      for (int64_t c = 0; c < n; ++c)
        t[1][c] += t[0][p * n + c];
  };
  return spec;
}
