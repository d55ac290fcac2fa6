//===- RMSNormForward.cpp - RMSNorm forward in the C++ DSL ----------------===//
//
// rmsnorm_fwd and rmsnorm_add_fwd: one builder, the fused variant differing
// only in how a row chunk is read (x + residual, rounded, also stored as
// residual_out) and, on the looping path, where the second pass reads it
// back from.
//
//===----------------------------------------------------------------------===//
#include "RMSNorm.h"

using namespace mlir;
using namespace mlir::rocdsl;
using namespace mlir::rocdsl::dsl;

OwningOpRef<ModuleOp>
mlir::rocdsl::buildRMSNormForward(MLIRContext *ctx, const RMSNormConfig &c,
                                  RMSNormVariant variant) {
  const bool fused = variant == RMSNormVariant::FusedAdd;
  SmallVector<ArgSpec> args = {ArgSpec::ptr("x", c.dtype)};
  if (fused)
    args.push_back(ArgSpec::ptr("residual", c.dtype));
  args.append({ArgSpec::ptr("w", c.weightDType), ArgSpec::ptr("y", c.dtype)});
  if (fused)
    args.push_back(ArgSpec::ptr("residual_out", c.dtype));
  args.append(
      {ArgSpec::scalar("M", DType::I32), ArgSpec::scalar("eps", DType::F32)});
  KernelBuilder kb(ctx, fused ? "rmsnorm_add_fwd" : "rmsnorm_fwd", c.numWarps,
                   args);
  Ptr x = kb.ptrArg("x"), w = kb.ptrArg("w"), y = kb.ptrArg("y");
  Ptr residual, residualOut;
  if (fused) {
    residual = kb.ptrArg("residual");
    residualOut = kb.ptrArg("residual_out");
  }
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

  auto loadRow = [&](Ptr p, Scalar col0) {
    return kb.load(p, {row0, col0}, {rows, cols}, layout, rowAccess)
        .to(DType::F32);
  };
  // The chunk to normalize, in fp32. Fused: h = x + residual in fp32,
  // rounded to dtype and stored as residual_out; the rounded value is the
  // one normalized, so y agrees with what the next layer reads back.
  auto loadInput = [&](Scalar col0) {
    if (!fused)
      return loadRow(x, col0);
    Tile h = (loadRow(x, col0) + loadRow(residual, col0)).to(c.dtype);
    kb.store(h, residualOut, {row0, col0}, rowAccess);
    return h.to(DType::F32);
  };
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
    Tile xf = loadInput(kb.i32(0));
    normalizeAndStore(kb.i32(0), xf, inverseRms((xf * xf).sum(1)));
    return kb.finish();
  }

  // Long rows: accumulate squares chunk by chunk in an fp32 tile, reduce
  // once, then stream the row again to normalize it. The fused kernel's
  // second pass reads h back from residual_out (one stream instead of x
  // and residual): each lane reads only the elements it stored itself, in
  // the same layout, so program order makes them visible.
  Tile acc = kb.zeros({rows, cols}, layout, DType::F32);
  SmallVector<Tile> sums =
      kb.forLoop(kb.i32(0), n, kb.i32(cols), {acc},
                 [&](Scalar col0, ArrayRef<Tile> carried) -> SmallVector<Tile> {
                   Tile xf = loadInput(col0);
                   return {carried[0] + xf * xf};
                 });
  Tile invRms = inverseRms(sums[0].sum(1));
  Ptr normalized = fused ? residualOut : x;
  kb.forLoop(kb.i32(0), n, kb.i32(cols), {},
             [&](Scalar col0, ArrayRef<Tile>) -> SmallVector<Tile> {
               normalizeAndStore(col0, loadRow(normalized, col0), invRms);
               return {};
             });
  return kb.finish();
}
