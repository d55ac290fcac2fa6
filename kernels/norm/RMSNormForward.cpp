//===- RMSNormForward.cpp - RMSNorm forward in the C++ DSL ----------------===//
#include "RMSNorm.h"

#include <cmath>

using namespace mlir;
using namespace mlir::rocdsl;
using namespace mlir::rocdsl::dsl;

OwningOpRef<ModuleOp>
mlir::rocdsl::buildRMSNormForward(MLIRContext *ctx, const RMSNormConfig &c) {
  std::string name = "rmsnorm_fwd";
  KernelBuilder kb(
      ctx, name, c.numWarps,
      {ArgSpec::ptr("x", c.dtype), ArgSpec::ptr("w", c.weightDType),
       ArgSpec::ptr("y", c.dtype), ArgSpec::scalar("M", DType::I32),
       ArgSpec::scalar("eps", DType::F32)});
  Ptr x = kb.ptrArg("x"), w = kb.ptrArg("w"), y = kb.ptrArg("y");
  Scalar m = kb.scalarArg("M"), eps = kb.scalarArg("eps");

  const int64_t rows = c.rowsPerProgram, cols = c.blockN;
  Layout layout =
      kb.blocked({1, c.vec}, {c.waveSize / c.threadsAlongN, c.threadsAlongN},
                 {c.numWarps / c.warpsAlongN, c.warpsAlongN}, {1, 0});
  Layout colLayout = kb.slice(layout, 0);
  Scalar n = kb.i32(c.n);
  Scalar row0 = kb.programId(0) * rows;

  // Rows of x/y: row stride N; rows past M and columns past N are masked.
  AccessOptions rowAccess;
  rowAccess.strides = {n};
  rowAccess.bounds = {m, n};
  rowAccess.vec = c.vec;
  AccessOptions weightAccess;
  weightAccess.bounds = {n};
  weightAccess.vec = c.weightVec;

  auto normalizeAndStore = [&](Scalar col0, Tile xf, Tile invRms) {
    Tile wf =
        kb.load(w, {col0}, {cols}, colLayout, weightAccess).to(DType::F32);
    Tile out = xf * invRms.expandDims(1).broadcastTo({rows, cols}) *
               wf.expandDims(0).broadcastTo({rows, cols});
    kb.store(out.to(c.dtype), y, {row0, col0}, rowAccess);
  };
  auto inverseRms = [&](Tile sumSquares) {
    return (sumSquares * kb.f32(1.0 / double(c.n)) + eps).rsqrt();
  };

  if (c.singlePass) {
    Tile xf = kb.load(x, {row0, kb.i32(0)}, {rows, cols}, layout, rowAccess)
                  .to(DType::F32);
    normalizeAndStore(kb.i32(0), xf, inverseRms((xf * xf).sum(1)));
    return kb.finish();
  }

  // Long rows: accumulate squares chunk by chunk in an fp32 tile, reduce
  // once, then stream the row again to normalize it.
  Tile acc = kb.zeros({rows, cols}, layout, DType::F32);
  SmallVector<Tile> sums =
      kb.forLoop(kb.i32(0), n, kb.i32(cols), {acc},
                 [&](Scalar col0, ArrayRef<Tile> carried) -> SmallVector<Tile> {
                   Tile xf =
                       kb.load(x, {row0, col0}, {rows, cols}, layout, rowAccess)
                           .to(DType::F32);
                   return {carried[0] + xf * xf};
                 });
  Tile invRms = inverseRms(sums[0].sum(1));
  kb.forLoop(kb.i32(0), n, kb.i32(cols), {},
             [&](Scalar col0, ArrayRef<Tile>) -> SmallVector<Tile> {
               Tile xf =
                   kb.load(x, {row0, col0}, {rows, cols}, layout, rowAccess)
                       .to(DType::F32);
               normalizeAndStore(col0, xf, invRms);
               return {};
             });
  return kb.finish();
}

LogicalResult mlir::rocdsl::configureRMSNorm(const KernelParams &params,
                                             RMSNormConfig &config, int64_t &m,
                                             std::string &error) {
  int64_t n = 0;
  double eps = 0;
  if (failed(params.getInt("N", n, error)) ||
      failed(params.getInt("M", m, error)) ||
      failed(params.getFloat("eps", eps, error)))
    return failure();
  if (n < 1 || n > (1 << 24)) {
    error = "N=" + std::to_string(n) + " out of range [1, 16777216]";
    return failure();
  }
  if (!std::isfinite(eps) || eps < 0) {
    error = "eps=" + params.get("eps").str() +
            " must be a finite, non-negative number";
    return failure();
  }
  if (m < 1 || m > INT32_MAX) {
    error = "M=" + std::to_string(m) + " out of range [1, 2147483647]";
    return failure();
  }
  auto dtype = parseDType(params.get("dtype"));
  if (!dtype || *dtype == DType::I32) {
    error = "dtype='" + params.get("dtype").str() +
            "' is not one of f32, f16, bf16";
    return failure();
  }
  std::optional<DType> wdtype =
      params.get("wdtype") == "same" ? dtype : parseDType(params.get("wdtype"));
  if (!wdtype || *wdtype == DType::I32) {
    error = "wdtype='" + params.get("wdtype").str() +
            "' is not one of same, f32, f16, bf16";
    return failure();
  }
  int64_t wave = 0;
  if (failed(params.getInt("wave", wave, error)))
    return failure();
  if (wave != 32 && wave != 64) {
    error = "wave=" + std::to_string(wave) + " is not 32 or 64";
    return failure();
  }
  config = RMSNormConfig::choose(n, *dtype, *wdtype, unsigned(wave));
  return success();
}

std::vector<KernelParamSpec> mlir::rocdsl::getRMSNormParams() {
  return {
      {"N", "4096", "row length (specializes the kernel)", false},
      {"dtype", "bf16", "x and y element type: f32, f16, bf16", false},
      {"wdtype", "same", "weight element type (same: as dtype)", false},
      {"M", "4096", "rows (launch-time)", true},
      {"eps", "1e-6", "epsilon (launch-time)", true},
      {"wave", "64",
       "lanes per wave: 64 (AMDGPU), 32 (NVIDIA); "
       "rocdsl-compile sets it from --chip",
       false},
  };
}

KernelSpec mlir::rocdsl::getRMSNormForwardSpec() {
  KernelSpec spec;
  spec.name = "rmsnorm_fwd";
  spec.summary = "RMSNorm forward: y = x * rsqrt(mean(x^2) + eps) * w";
  spec.params = getRMSNormParams();
  spec.build = [](MLIRContext *ctx, const KernelParams &params,
                  std::string &error) -> OwningOpRef<ModuleOp> {
    RMSNormConfig config;
    int64_t m = 0;
    if (failed(configureRMSNorm(params, config, m, error)))
      return nullptr;
    return buildRMSNormForward(ctx, config);
  };
  spec.plan = [](const KernelParams &params, LaunchPlan &plan,
                 std::string &error) -> LogicalResult {
    RMSNormConfig config;
    int64_t m = 0;
    if (failed(configureRMSNorm(params, config, m, error)))
      return failure();
    plan = planRMSNormForward(config, m);
    return success();
  };
  spec.reference = [](const KernelParams &params,
                      std::vector<std::vector<double>> &tensors,
                      const std::vector<double> &scalars) {
    int64_t n = 0;
    std::string error;
    (void)params.getInt("N", n, error);
    rmsNormForwardReference(static_cast<int64_t>(scalars[0]), n, scalars[1],
                            tensors[0], tensors[1], tensors[2]);
  };
  return spec;
}
