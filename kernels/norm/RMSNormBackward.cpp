//===- RMSNormBackward.cpp - RMSNorm backward in the C++ DSL --------------===//
//
// Two kernels. rmsnorm_bwd (and rmsnorm_add_bwd): each of G programs takes
// row tiles p, p+G, ..., writes dx for them and sums dy * x * rstd per
// column in fp32 into row p of a [G, N] buffer. rmsnorm_bwd_dw reduces that
// buffer over G in fp32 and casts to the weight's dtype. With direct_dw the
// first kernel alone, on one program, stores its column sums as dw. With
// atomic_dw the G programs add their column sums into dw_sums atomically and
// the last one to arrive writes dw (one launch at any M). With tree_dw the
// programs' sums are reduced in groups by the last of each group to arrive,
// then by the last group (one launch, no data atomics). With
// y = x * rstd * w, rstd = rsqrt(mean(x^2) + eps):
//   dx = rstd * (w*dy - x * rstd^2 * mean(w*dy*x)),  dw = sum_rows(dy*x*rstd)
// and rmsnorm_add_bwd adds the gradient of residual_out to dx.
//
//===----------------------------------------------------------------------===//
#include "RMSNorm.h"

#include "common/StagedWalk.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::rocdsl;
using namespace mlir::rocdsl::dsl;

/// tree_dw: program `program`'s column sums `acc` ([rows, cols] fp32 in
/// `layout`) go to row `program` of dw_partial; the last of each group of
/// kTreeGroupPrograms programs to count itself in dw_count[1 + group] sums
/// the group's rows into row G + group, and the last group to count itself
/// in dw_count[0] sums those rows into dw. program_atomic is the handoff:
/// the counts publish each program's stores to whichever program arrives
/// after it. Nothing waits, so any order of programs, or running them one
/// at a time, gives the same dw (the sums' order is fixed by row index).
static void storeWeightGradByTree(KernelBuilder &kb, const RMSNormConfig &c,
                                  Tile acc, Layout layout, Ptr dw,
                                  Scalar program) {
  const int64_t group = RMSNormConfig::kTreeGroupPrograms;
  const int64_t rows = c.rowsPerProgram, cols = c.blockN;
  Ptr scratch = kb.ptrArg("dw_partial"), count = kb.ptrArg("dw_count");
  Scalar zero = kb.i32(0), n = kb.i32(c.n);
  Scalar programs = kb.numPrograms(0);
  Scalar groups = (programs + (group - 1)) / kb.i32(group);
  AccessOptions rowAccess;
  rowAccess.strides = {n};
  rowAccess.bounds = {programs + groups, n};
  rowAccess.vec = c.partialStoreVec;
  // The fp32 column sums of scratch rows [begin, end), `unroll` row tiles
  // loaded at once: the rows were just written and sit in L2, so what
  // bounds one program's pass is the bytes it keeps in flight (about 64
  // fp32 a lane), not the bandwidth.
  const int64_t lanes = int64_t(c.numWarps) * c.waveSize;
  const int64_t unroll =
      std::clamp<int64_t>(64 * lanes / (rows * cols), 1, 16);
  auto sumRows = [&](Scalar begin, Scalar end) {
    AccessOptions access = rowAccess;
    access.bounds = {end, n};
    Tile init = kb.zeros({rows, cols}, layout, DType::F32);
    SmallVector<Tile> total = kb.forLoop(
        begin, end, kb.i32(rows * unroll), {init},
        [&](Scalar row0, ArrayRef<Tile> carried) -> SmallVector<Tile> {
          SmallVector<Tile> tiles;
          for (int64_t u = 0; u < unroll; ++u)
            tiles.push_back(kb.load(scratch, {row0 + rows * u, zero},
                                    {rows, cols}, layout, access));
          Tile sum = carried[0];
          for (Tile t : tiles)
            sum = sum + t;
          return {sum};
        });
    return total[0].sum(0);
  };

  kb.store(acc.sum(0).expandDims(0), scratch, {program, zero}, rowAccess);
  Scalar mine = program / kb.i32(group);
  Scalar first = mine * group;
  Scalar last = kb.min(first + group, programs);
  Scalar slot = mine + int64_t(1);
  Scalar arrived =
      kb.programAtomic(ProgramAtomicKind::Add, count, slot, kb.i32(1));
  kb.ifThenElse(kb.compare(Cmp::EQ, arrived, last - first - int64_t(1)), [&] {
    kb.store(sumRows(first, last).expandDims(0), scratch,
             {programs + mine, zero}, rowAccess);
    kb.programAtomic(ProgramAtomicKind::Xchg, count, slot, zero,
                     /*relaxed=*/true);
    Scalar done =
        kb.programAtomic(ProgramAtomicKind::Add, count, zero, kb.i32(1));
    kb.ifThenElse(kb.compare(Cmp::EQ, done, groups - int64_t(1)), [&] {
      AccessOptions colAccess;
      colAccess.bounds = {n};
      colAccess.vec = c.weightVec;
      kb.store(sumRows(programs, programs + groups).to(c.weightDType), dw,
               {zero}, colAccess);
      kb.programAtomic(ProgramAtomicKind::Xchg, count, zero, zero,
                       /*relaxed=*/true);
    });
  });
}

OwningOpRef<ModuleOp>
mlir::rocdsl::buildRMSNormBackward(MLIRContext *ctx, const RMSNormConfig &c,
                                   RMSNormVariant variant) {
  const bool fused = variant == RMSNormVariant::FusedAdd;
  // The fused kernel normalizes h (the forward's residual_out); the math is
  // the same with h in the place of x.
  SmallVector<ArgSpec> args = {ArgSpec::ptr(fused ? "h" : "x", c.dtype),
                               ArgSpec::ptr("w", c.weightDType),
                               ArgSpec::ptr("dy", c.dtype)};
  if (fused)
    args.push_back(ArgSpec::ptr("dresidual_out", c.dtype));
  const bool dwItself = c.writesWeightGrad();
  args.append({ArgSpec::ptr("dx", c.dtype),
               dwItself ? ArgSpec::ptr("dw", c.weightDType)
                        : ArgSpec::ptr("dw_partial", DType::F32)});
  if (c.atomicWeightGrad)
    args.append({ArgSpec::ptr("dw_sums", DType::F32),
                 ArgSpec::ptr("dw_count", DType::I32)});
  if (c.treeWeightGrad)
    args.append({ArgSpec::ptr("dw_partial", DType::F32),
                 ArgSpec::ptr("dw_count", DType::I32)});
  args.append(
      {ArgSpec::scalar("M", DType::I32), ArgSpec::scalar("eps", DType::F32)});
  KernelBuilder kb(ctx, fused ? "rmsnorm_add_bwd" : "rmsnorm_bwd", c.numWarps,
                   args);
  Ptr x = kb.ptrArg(fused ? "h" : "x"), w = kb.ptrArg("w"),
      dy = kb.ptrArg("dy"), dx = kb.ptrArg("dx"),
      // Where the column sums go: the [G, N] partials, or dw itself.
      partial = kb.ptrArg(dwItself ? "dw" : "dw_partial");
  Ptr dResidualOut;
  if (fused)
    dResidualOut = kb.ptrArg("dresidual_out");
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
  auto loadRows = [&](Ptr p, Scalar row0, Scalar col0) {
    return kb.load(p, {row0, col0}, {rows, cols}, layout, rowAccess)
        .to(DType::F32);
  };
  auto loadWeight = [&](Scalar col0) {
    return kb.load(w, {col0}, {cols}, colLayout, colAccess)
        .to(DType::F32)
        .expandDims(0)
        .broadcastTo({rows, cols});
  };
  const Scalar invN = kb.f32(1.0 / double(c.n));
  // Per row, from the row sums of x^2 and w*dy*x: rstd and the factor of x
  // in dx.
  struct RowFactors {
    Tile rstd, scale;
  };
  auto rowFactors = [&](Tile sumSquares, Tile sumWdyX) {
    Tile rstd = (sumSquares * invN + eps).rsqrt();
    return RowFactors{rstd, rstd * rstd * (sumWdyX * invN)};
  };
  // dx of one chunk from its fp32 inputs (plus the gradient reaching
  // residual_out, fused), rounded once and stored.
  auto storeInputGrad = [&](Scalar row0, Scalar col0, Tile xf, Tile wdy,
                            const RowFactors &f) {
    Tile dxf = rowsOf(f.rstd) * (wdy - xf * rowsOf(f.scale));
    if (fused)
      dxf = dxf + loadRows(dResidualOut, row0, col0);
    kb.store(dxf.to(c.dtype), dx, {row0, col0}, rowAccess);
  };

  Scalar program = kb.programId(0);
  Scalar first = program * rows;
  Scalar step = kb.numPrograms(0) * rows;

  if (c.singlePass) {
    // Whole rows in registers: x, dy (and dresidual_out) read once, dx
    // written once, the weight read once per program; dw accumulates in an
    // fp32 tile across the program's row tiles and is stored once.
    // With prefetchDepth = D, x and dy of the program's next D row tiles
    // are in flight (loaded in their own dtype, masked past M) while the
    // current tile is reduced: the loop carries them and loads the tile D
    // steps ahead, so a program keeps D tiles' loads outstanding.
    Tile wf = loadWeight(zero);
    Tile acc = kb.zeros({rows, cols}, layout, DType::F32);
    auto loadRaw = [&](Ptr p, Scalar row0) {
      return kb.load(p, {row0, zero}, {rows, cols}, layout, rowAccess);
    };
    const unsigned depth = c.stages ? 0 : c.prefetchDepth;
    SmallVector<Tile> inits = {acc};
    // With stages = S, x and dy of the program's next S - 1 row tiles are
    // in flight as asynchronous copies into S LDS buffers each (a
    // StagedWalk over the program's row tiles), so the loads ahead cost no
    // registers (cp.async on NVIDIA).
    LdsTile stackX, stackDy;
    auto copyRows = [&](Scalar row0, Scalar slot) {
      kb.asyncCopy(x, {row0, zero}, layout, stackX.index(slot), rowAccess);
      kb.asyncCopy(dy, {row0, zero}, layout, stackDy.index(slot), rowAccess);
    };
    StagedWalk walk{kb, first, step, c.stages, copyRows};
    if (c.stages) {
      Layout shared = kb.sharedLayout({rows, cols}, c.dtype, {1, 0}, 32);
      stackX = kb.localAllocBuffers(c.stages, {rows, cols}, c.dtype, shared);
      stackDy = kb.localAllocBuffers(c.stages, {rows, cols}, c.dtype, shared);
      walk.prologue();
    }
    for (unsigned d = 0; d < depth; ++d) {
      Scalar row0 = d ? first + step * int64_t(d) : first;
      inits.append({loadRaw(x, row0), loadRaw(dy, row0)});
    }
    SmallVector<Tile> sums = kb.forLoop(
        first, m, step, inits,
        [&](Scalar row0, ArrayRef<Tile> carried) -> SmallVector<Tile> {
          SmallVector<Tile> next = {Tile()};
          Tile xf, dyf;
          if (c.stages) {
            Scalar slot = walk.enter(row0);
            xf = stackX.index(slot).load(layout).to(DType::F32);
            dyf = stackDy.index(slot).load(layout).to(DType::F32);
          } else if (depth) {
            // Tiles 1..D-1 ahead move up one slot; tile D ahead is loaded.
            next.append(carried.begin() + 3, carried.end());
            Scalar ahead = row0 + step * int64_t(depth);
            next.append({loadRaw(x, ahead), loadRaw(dy, ahead)});
            xf = carried[1].to(DType::F32);
            dyf = carried[2].to(DType::F32);
          } else {
            xf = loadRows(x, row0, zero);
            dyf = loadRows(dy, row0, zero);
          }
          Tile wdy = dyf * wf;
          RowFactors f = rowFactors((xf * xf).sum(1), (wdy * xf).sum(1));
          storeInputGrad(row0, zero, xf, wdy, f);
          next[0] = carried[0] + dyf * xf * rowsOf(f.rstd);
          return next;
        });
    // The copies past the last row tile land in buffers no one reads;
    // they finish before the LDS is reused or the program ends.
    if (c.stages)
      walk.drain();
    if (c.directWeightGrad) {
      // One program: its column sums are dw itself.
      kb.store(sums[0].sum(0).to(c.weightDType), partial, {zero}, colAccess);
      return kb.finish();
    }
    if (c.atomicWeightGrad) {
      // Every program adds its column sums; the last to arrive reads the
      // totals (program_atomic publishes the others' adds to it), writes
      // dw and leaves the scratch as it found it for the next launch.
      Ptr totals = kb.ptrArg("dw_sums"), count = kb.ptrArg("dw_count");
      AccessOptions sumAccess;
      sumAccess.bounds = {n};
      sumAccess.vec = c.partialStoreVec;
      kb.atomicAdd(sums[0].sum(0), totals, {zero}, sumAccess);
      Scalar programs = kb.numPrograms(0);
      Scalar arrived =
          kb.programAtomic(ProgramAtomicKind::Add, count, zero, kb.i32(1));
      kb.ifThenElse(kb.compare(Cmp::EQ, arrived, programs - int64_t(1)), [&] {
        Tile total = kb.load(totals, {zero}, {cols}, colLayout, sumAccess);
        kb.store(total.to(c.weightDType), partial, {zero}, colAccess);
        // The column tile has a copy in every wave along the rows: all of
        // them have read the totals before any clears them.
        kb.barrier();
        kb.store(kb.zeros({cols}, colLayout, DType::F32), totals, {zero},
                 sumAccess);
        kb.programAtomic(ProgramAtomicKind::Xchg, count, zero, zero);
      });
      return kb.finish();
    }
    if (c.treeWeightGrad) {
      storeWeightGradByTree(kb, c, sums[0], layout, partial, program);
      return kb.finish();
    }
    kb.store(sums[0].sum(0).expandDims(0), partial, {program, zero},
             partialAccess);
    return kb.finish();
  }

  // Long rows (N > 8192): one row per program (RMSNormConfig::choose), two
  // passes over blockN-wide chunks per row, as in the forward: the first
  // sums x^2 and w*dy*x, the second writes dx and adds the chunk's
  // dy * x * rstd to the program's dw_partial row. That row is too long for
  // registers, so it lives in dw_partial itself: the program's first row
  // stores it, later rows (only when M > G) load, add and store it. Each
  // lane reads back only what it stored, in the same layout, so program
  // order makes it visible. x, dy and w are read twice here,
  // dresidual_out once, dx written once.
  assert(rows == 1 && "the looping path handles one row per program");
  assert(!dwItself && "direct_dw, atomic_dw and tree_dw need rows in "
                      "registers");
  auto chunkLoop =
      [&](ArrayRef<Tile> inits,
          function_ref<SmallVector<Tile>(Scalar, ArrayRef<Tile>)> body) {
        return kb.forLoop(zero, n, kb.i32(cols), inits, body);
      };
  auto processRow = [&](Scalar row0, bool accumulate) {
    Tile acc = kb.zeros({rows, cols}, layout, DType::F32);
    SmallVector<Tile> sums = chunkLoop(
        {acc, acc},
        [&](Scalar col0, ArrayRef<Tile> carried) -> SmallVector<Tile> {
          Tile xf = loadRows(x, row0, col0);
          Tile wdy = loadRows(dy, row0, col0) * loadWeight(col0);
          return {carried[0] + xf * xf, carried[1] + wdy * xf};
        });
    RowFactors f = rowFactors(sums[0].sum(1), sums[1].sum(1));
    chunkLoop({}, [&](Scalar col0, ArrayRef<Tile>) -> SmallVector<Tile> {
      Tile xf = loadRows(x, row0, col0);
      Tile dyf = loadRows(dy, row0, col0);
      storeInputGrad(row0, col0, xf, dyf * loadWeight(col0), f);
      Tile dw = dyf * xf * rowsOf(f.rstd);
      if (accumulate)
        dw = dw + kb.load(partial, {program, col0}, {rows, cols}, layout,
                          partialAccess);
      kb.store(dw, partial, {program, col0}, partialAccess);
      return {};
    });
  };
  processRow(first, /*accumulate=*/false);
  kb.forLoop(first + step, m, step, {},
             [&](Scalar row0, ArrayRef<Tile>) -> SmallVector<Tile> {
               processRow(row0, /*accumulate=*/true);
               return {};
             });
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
  // Lanes along the columns first (as many as the tile's width holds),
  // the rest of the wave and the waves along rows.
  unsigned lanesN = unsigned(std::min<int64_t>(c.waveSize, cols / vec));
  Layout layout = kb.blocked({1, vec}, {c.waveSize / lanesN, lanesN},
                             {256 / c.waveSize, 1}, {1, 0});
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
