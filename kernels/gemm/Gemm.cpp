//===- Gemm.cpp - the GEMM family: configuration, kernel, plan, reference -===//
//
// One program computes a BM x BN tile of one batch entry: K is walked in
// BK steps. Each step's A and B tiles are loaded in coalesced blocked
// layouts (128-bit where the leading dimension allows; a column-major
// operand is loaded as stored and transposed by renaming registers),
// written to swizzled LDS tiles that keep global memory's contiguous
// dimension fastest, and read back in the matrix units' operand layouts
// (ldmatrix on NVIDIA); the loads of the next step are issued before the
// products of this one, so their latency hides behind them. The f32
// accumulator stays in the accumulator layout across the loop. The
// epilogue scales by alpha, adds beta * C and the bias, rounds to the
// output type and stores.
//
// Programs are ordered for L2 reuse (groups of GROUP_M row tiles walk
// down M before moving along N) and, on chips with several XCDs that take
// workgroups round-robin, renumbered so each XCD gets consecutive tiles.
//
//===----------------------------------------------------------------------===//
#include "Gemm.h"

#include "common/MatrixTiles.h"

#include "rocdsl/Dialect/RocDSL/IR/RocDSL.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/Support/MathExtras.h"

#include <cmath>

using namespace mlir;
using namespace mlir::rocdsl;
using namespace mlir::rocdsl::dsl;

//===----------------------------------------------------------------------===//
// Configuration
//===----------------------------------------------------------------------===//

static LogicalResult parseLayout(const KernelParams &params, StringRef name,
                                 bool &colMajor, std::string &error) {
  StringRef v = params.get(name);
  if (v != "row" && v != "col") {
    error = name.str() + "=" + v.str() + " is not row or col";
    return failure();
  }
  colMajor = v == "col";
  return success();
}

/// The tiles of the wgmma main loop (wgmma=1, or auto on sm_90a): K steps
/// of 64 (one 128-byte swizzle row of bf16/f16), every warp along M (16
/// rows each, four to a warp group), row-major A, B either way,
/// asynchronous stages.
static LogicalResult configureWarpgroupGemm(const ChipInfo &chip,
                                            GemmConfig &c,
                                            std::string &error) {
  auto fail = [&](const std::string &why) {
    error = "wgmma=1: " + why;
    return failure();
  };
  if (!chip.warpgroupMma)
    return fail(chip.name.str() +
                " has no warpgroup MMA (wgmma needs sm_90a; chip=sm_90a)");
  if (c.aColMajor)
    return fail("A must be row-major (layout_a=row)");
  if (c.pingpong)
    return fail("pingpong=1 phase-shifts the halves of an mma.sync or MFMA "
                "loop, not warpgroup MMA (wgmma=0)");
  // Default tile (measured on an H100, bf16 and f16, 1024^3 to 8192^3,
  // docs/benchmarks.md): 128 x 256 on two warp groups with 4 stages and
  // the products left running across each barrier (wgmma_pending) once
  // those tiles fill three quarters of a wave of programs (0.86-0.97 of
  // cuBLAS from 2048^3 up); below that, 128 x 128 on one warp group, with
  // 4 stages and products in flight while the programs are fewer than the
  // multiprocessors (one a multiprocessor either way), else 3 stages
  // (96 KiB: two programs share a multiprocessor, which then hides the
  // latency better than products in flight do).
  if (!c.warps && !c.bm && !c.bn) {
    int64_t rowTiles = llvm::divideCeil(c.m, 128) * c.batch;
    int64_t wideTiles = rowTiles * llvm::divideCeil(c.n, 256);
    int64_t narrowTiles = rowTiles * llvm::divideCeil(c.n, 128);
    int64_t units = int64_t(chip.computeUnits);
    bool wide = 4 * wideTiles >= 3 * units;
    c.warps = wide ? 8 : 4;
    c.bm = 128;
    c.bn = wide ? 256 : 128;
    if (!c.stages)
      c.stages = wide || narrowTiles < units ? 4 : 3;
  }
  if (!c.bm)
    c.bm = 128;
  if (!c.bn)
    c.bn = 128;
  // Up to 128 accumulator registers a thread (255 in all): two warp
  // groups where one would hold more.
  if (!c.warps)
    c.warps = c.bm * c.bn / (32 * 4) > 128 ? 8 : 4;
  if (c.warps != 4 && c.warps != 8)
    return fail("warps=" + std::to_string(c.warps) +
                " is not 4 or 8 (one or two warp groups)");
  if (c.bm * c.bn / (32 * c.warps) > 128)
    return fail("tile BM=" + std::to_string(c.bm) + " BN=" +
                std::to_string(c.bn) + " on " + std::to_string(c.warps) +
                " warps holds " + std::to_string(c.bm * c.bn / (32 * c.warps)) +
                " accumulators a thread; at most 128 (use warps=8 or a "
                "smaller tile)");
  if (!c.bk)
    c.bk = 64;
  int64_t groupRows = 16 * c.warps;
  // Row-major B in 64-column panels; B stored N x K as BN rows of 128
  // bytes, which the copies cover 4 rows a warp at a time.
  int64_t nStep = c.bColMajor ? 4 * c.warps : 64;
  if (c.bk != 64 || c.bm % groupRows || c.bm > 256 || c.bn % nStep ||
      c.bn > 256)
    return fail("tile BM=" + std::to_string(c.bm) +
                " BN=" + std::to_string(c.bn) + " BK=" + std::to_string(c.bk) +
                ": BK must be 64, BM a multiple of " +
                std::to_string(groupRows) + " (16 rows a warp) up to 256, BN " +
                "a multiple of " + std::to_string(nStep) +
                (c.bColMajor ? " (4 rows a warp per copy of B's N x K rows)"
                             : " (64-column panels of row-major B)") +
                " up to 256");
  if (!c.stages)
    c.stages = 3;
  if (c.stages < 2 || c.stages > 4)
    return fail("stages=" + std::to_string(c.stages) + " is not 2, 3 or 4");
  if (c.loadAhead != 1)
    return fail("load_ahead applies to stages=1 only");
  // With three stages, products in flight leave one step of copies ahead,
  // which measured slower than waiting for the products (H100).
  if (c.wgmmaPendingAuto)
    c.wgmmaPending = c.stages >= 4;
  // One buffer is read by the products in flight, one by the current
  // ones, and at least one takes copies.
  if (c.wgmmaPending && c.stages < 3)
    return fail("wgmma_pending=1 needs stages >= 3 (got stages=" +
                std::to_string(c.stages) + ")");
  c.kSlice = c.bk;
  c.prefetchOperands = false;
  int64_t ldsBytes = c.stages * (c.bm + c.bn) * c.bk * bitWidth(c.dtype) / 8;
  if (ldsBytes > chip.maxSharedMemoryBytes())
    return fail("stages=" + std::to_string(c.stages) + " of BM=" +
                std::to_string(c.bm) + " BN=" + std::to_string(c.bn) +
                " need " + std::to_string(ldsBytes) + " bytes of LDS; " +
                chip.name.str() + " has " +
                std::to_string(chip.maxSharedMemoryBytes()));
  return success();
}

LogicalResult mlir::rocdsl::configureGemm(const KernelParams &params,
                                          GemmConfig &c, std::string &error) {
  for (auto [name, out] : {std::pair<StringRef, int64_t *>{"M", &c.m},
                           {"N", &c.n},
                           {"K", &c.k},
                           {"batch", &c.batch},
                           {"load_ahead", &c.loadAhead},
                           {"group_m", &c.groupM},
                           {"min_programs", &c.minPrograms}})
    if (failed(params.getInt(name, *out, error)))
      return failure();
  for (auto [name, out] : {std::pair<StringRef, int64_t *>{"BM", &c.bm},
                           {"BN", &c.bn},
                           {"BK", &c.bk},
                           {"warps", &c.warps},
                           {"stages", &c.stages}})
    if (failed(params.getSizeOrDefault(name, *out, error)))
      return failure();
  for (auto [name, v] : {std::pair<StringRef, int64_t>{"M", c.m},
                         {"N", c.n},
                         {"K", c.k},
                         {"batch", c.batch}})
    if (v < 1 || v > (int64_t(1) << 30)) {
      error = name.str() + "=" + std::to_string(v) + " must be in [1, 2^30]";
      return failure();
    }
  if (c.minPrograms < 0 || c.minPrograms > 32) {
    error = "min_programs=" + std::to_string(c.minPrograms) +
            " must be in [0, 32]";
    return failure();
  }
  if (c.loadAhead < 1 || c.loadAhead > 2) {
    error = "load_ahead=" + std::to_string(c.loadAhead) + " is not 1 or 2";
    return failure();
  }
  if (c.groupM < 1 || c.groupM > 64) {
    error = "group_m=" + std::to_string(c.groupM) + " must be in [1, 64]";
    return failure();
  }
  for (auto [name, v] :
       {std::pair<StringRef, int64_t>{"batch * M * K", c.batch * c.m * c.k},
        {"batch * K * N", c.batch * c.k * c.n},
        {"batch * M * N", c.batch * c.m * c.n}})
    if (v >= (int64_t(1) << 31)) {
      error = name.str() + " = " + std::to_string(v) +
              " elements: offsets are 32-bit, at most 2^31 - 1";
      return failure();
    }
  std::optional<DType> dtype = parseDType(params.get("dtype"));
  if (!dtype || (*dtype != DType::BF16 && *dtype != DType::F16)) {
    error = "dtype=" + params.get("dtype").str() +
            " is not a matrix-core input type (bf16, f16)";
    return failure();
  }
  c.dtype = *dtype;
  StringRef out = params.get("out_dtype");
  std::optional<DType> outDType =
      out == "same" ? std::optional<DType>(c.dtype) : parseDType(out);
  if (!outDType || (*outDType != DType::BF16 && *outDType != DType::F16 &&
                    *outDType != DType::F32)) {
    error = "out_dtype=" + out.str() + " is not bf16, f16, f32 or same";
    return failure();
  }
  c.outDType = *outDType;
  if (failed(parseLayout(params, "layout_a", c.aColMajor, error)) ||
      failed(parseLayout(params, "layout_b", c.bColMajor, error)) ||
      failed(params.getFlag("bias", c.bias, error)) ||
      failed(params.getFlag("accumulate", c.accumulate, error)) ||
      failed(params.getFlag("prefetch_operands", c.prefetchOperands, error)) ||
      failed(params.getFlag("interleave", c.interleave, error)) ||
      failed(params.getFlag("pingpong", c.pingpong, error)))
    return failure();
  StringRef pending = params.get("wgmma_pending");
  if (pending != "auto" && pending != "0" && pending != "1") {
    error = "wgmma_pending=" + pending.str() + " is not auto, 0 or 1";
    return failure();
  }
  c.wgmmaPendingAuto = pending == "auto";
  c.wgmmaPending = pending == "1";
  StringRef wgmma = params.get("wgmma");
  if (wgmma != "auto" && wgmma != "0" && wgmma != "1") {
    error = "wgmma=" + wgmma.str() + " is not auto, 0 or 1";
    return failure();
  }

  const ChipInfo *chip = lookupChip(params.get("chip"));
  if (!chip) {
    error = "chip=" + params.get("chip").str() + " is not one of " +
            listChips();
    return failure();
  }
  c.nvidia = chip->isNVIDIA();
  c.waveSize = chip->waveSize;
  c.ldsBanks = chip->sharedMemoryBanks;
  c.ldsTransposeReads = chip->ldsTransposeReads;
  c.maxLdsBytes = chip->maxSharedMemoryBytes();
  c.xcds = chip->xcds;
  // wgmma=auto takes warpgroup MMA where the chip has it and the other
  // parameters allow it, mma.sync (or MFMA) otherwise; wgmma=1 insists.
  if (wgmma == "1" || (wgmma == "auto" && chip->warpgroupMma)) {
    GemmConfig trial = c;
    std::string why;
    if (succeeded(configureWarpgroupGemm(*chip, trial, why))) {
      c = trial;
      c.wgmma = true;
      return success();
    }
    // wgmma_pending=1 asks for warpgroup MMA as much as wgmma=1 does.
    if (wgmma == "1" || c.wgmmaPending) {
      error = why;
      return failure();
    }
  }
  c.wgmmaPendingAuto = false;
  if (c.wgmmaPending) {
    error = "wgmma_pending=1 applies to warpgroup MMA (wgmma on sm_90a), not " +
            (chip->warpgroupMma ? std::string("wgmma=0")
                                : chip->name.str());
    return failure();
  }
  // The mma.sync default on NVIDIA: 256 x 128 on 8 warps (64 x 64 a warp,
  // one program a multiprocessor) with 4 stages where those tiles make at
  // least two waves of programs. It reads a quarter less from L2 than the
  // two 128 x 128 programs that would share the multiprocessor, which ran
  // L2 at 90% of its rate: 3-6% faster at 4096^3 and 8192^3, bf16 and f16
  // (H100, docs/benchmarks.md). Elsewhere 128 x 128 on 4 warps.
  if (c.nvidia && !c.warps && !c.bm && !c.bn && !c.bk && !c.stages &&
      !c.aColMajor && !c.bColMajor && !c.pingpong) {
    int64_t wideTiles =
        llvm::divideCeil(c.m, 256) * llvm::divideCeil(c.n, 128) * c.batch;
    if (wideTiles >= 2 * int64_t(chip->computeUnits)) {
      c.warps = 8;
      c.bm = 256;
      c.bn = 128;
      c.stages = 4;
    }
  }
  if (!c.warps)
    c.warps = 4;
  if (c.warps != 1 && c.warps != 2 && c.warps != 4 && c.warps != 8 &&
      c.warps != 16) {
    error = "warps=" + std::to_string(c.warps) + " is not 1, 2, 4, 8 or 16";
    return failure();
  }
  unsigned kBlock = 16;
  if (!c.nvidia) {
    const MatrixInstr *instr = pickMatrixInstr(*chip, c.dtype);
    if (!instr) {
      error = chip->name.str() + " has no matrix instruction for " +
              toString(c.dtype).str();
      return failure();
    }
    c.instr[0] = instr->m, c.instr[1] = instr->n, c.instr[2] = instr->k;
    c.kWidth = instr->kPerLane(chip->waveSize);
    c.matrixVersion = mfmaVersion(*instr);
    kBlock = chip->waveSize / instr->m * c.kWidth;
  }
  // Default tiles: 128 x 128 x 32 on 4 waves; smaller M or N take the
  // smallest tile that holds them (down to one instruction per wave).
  unsigned minM = c.nvidia ? 16 : c.instr[0], minN = c.nvidia ? 8 : c.instr[1];
  auto pick = [](int64_t given, int64_t extent, int64_t smallest) {
    if (given)
      return given;
    int64_t t = 128;
    while (t / 2 >= smallest && t / 2 >= extent)
      t /= 2;
    return t;
  };
  c.bm = pick(c.bm, c.m, minM);
  c.bn = pick(c.bn, c.n, minN);
  if (!c.bk)
    c.bk = std::max<int64_t>(32, kBlock);
  if (c.bm % minM || c.bn % minN || c.bk % kBlock || c.bm > 256 ||
      c.bn > 256 || c.bk > 128) {
    error = "tile BM=" + std::to_string(c.bm) + " BN=" + std::to_string(c.bn) +
            " BK=" + std::to_string(c.bk) + " does not fit " +
            chip->name.str() + "'s matrix instruction: BM a multiple of " +
            std::to_string(minM) + ", BN of " + std::to_string(minN) +
            ", BK of " + std::to_string(kBlock) + ", at most 256/256/128";
    return failure();
  }
  // LDS stages hold K in slices of 16 (or the instruction's K block, if
  // wider), read one at a time by the products; a BK they do not divide
  // is one slice.
  int64_t slice = std::max<unsigned>(16, kBlock);
  c.kSlice = c.bk % slice == 0 ? slice : c.bk;
  // Asynchronous copies pay on NVIDIA, whose cp.async leaves the lanes'
  // registers free; elsewhere a copy is a load and an LDS store in place,
  // and staging in registers (1) keeps the load in flight longer.
  if (!c.stages)
    c.stages = c.nvidia && !c.aColMajor && !c.bColMajor ? 3 : 1;
  if (c.stages < 1 || c.stages > 4) {
    error = "stages=" + std::to_string(c.stages) + " is not 1, 2, 3 or 4";
    return failure();
  }
  if (c.stages > 1 && c.loadAhead != 1) {
    error = "load_ahead=" + std::to_string(c.loadAhead) +
            " stages operands in registers, which stages=" +
            std::to_string(c.stages) +
            " does not (its copies go to LDS buffers); use stages=1";
    return failure();
  }
  if (c.stages > 1 && (c.aColMajor || c.bColMajor)) {
    error = "stages=" + std::to_string(c.stages) +
            " copies tiles into LDS as stored, which needs row-major A and "
            "B (layout_a=row, layout_b=row); use stages=1";
    return failure();
  }
  if (c.interleave && (c.nvidia || c.stages != 1)) {
    error = std::string("interleave=1 orders the MFMA loop of stages=1 on "
                        "AMDGPU (sched_group_barrier)") +
            (c.nvidia ? "; " + chip->name.str() + " has no such scheduler hint"
                      : "; stages=" + std::to_string(c.stages) + " given");
    return failure();
  }
  if (c.pingpong) {
    std::string why;
    if (c.stages < 2)
      why = "it needs stages of 2 to 4 (LDS buffers)";
    else if (c.warps != 8)
      why = "it needs warps=8 (two waves on every SIMD or scheduler), not "
            "warps=" +
            std::to_string(c.warps);
    if (!why.empty()) {
      error = "pingpong=1: " + why;
      return failure();
    }
    // A half reads its whole step after the barrier (no slice prefetch
    // across it: the halves' barriers are a phase apart).
    c.prefetchOperands = false;
  }
  int64_t ldsBytes =
      c.stages > 1 ? c.stages * (c.bm + c.bn) * c.bk * bitWidth(c.dtype) / 8
                   : 0;
  if (ldsBytes > chip->maxSharedMemoryBytes()) {
    error = "stages=" + std::to_string(c.stages) +
            " of BM=" + std::to_string(c.bm) + " BN=" + std::to_string(c.bn) +
            " BK=" + std::to_string(c.bk) + " need " +
            std::to_string(ldsBytes) + " bytes of LDS; " + chip->name.str() +
            " has " + std::to_string(chip->maxSharedMemoryBytes());
    return failure();
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Kernel
//===----------------------------------------------------------------------===//

namespace {

/// llvm.amdgcn.sched.group.barrier instruction classes.
constexpr unsigned kSchedMfma = 0x8, kSchedVmemRead = 0x20,
                   kSchedDsRead = 0x100;

/// The order of one K step of the stages = 1 loop, for LLVM's scheduler:
/// each of the wave's MFMAs followed by an equal share of its LDS reads and
/// of the next step's global loads, so that the matrix core always has a
/// product queued while the memory instructions issue, instead of LLVM's
/// order (all reads, then all products). The counts are per wave; a share
/// rounds up, and a group with nothing left to take stays empty.
void interleaveStep(KernelBuilder &kb, const GemmConfig &c, unsigned wm,
                    unsigned wn) {
  int64_t mfmas = std::max<int64_t>(1, (c.bm / wm / c.instr[0]) *
                                           (c.bn / wn / c.instr[1]) *
                                           (c.bk / c.instr[2]));
  int64_t lanes = int64_t(c.waveSize);
  int64_t bytes = bitWidth(c.dtype) / 8;
  // Global loads: 16 bytes a lane where the rows allow.
  int64_t vmem = llvm::divideCeil((c.bm + c.bn) * c.bk * bytes,
                                  16 * lanes * c.warps);
  // LDS reads: A's rows kWidth elements a read; B kWidth (K-fast), 4
  // (transposed reads) or 1 element (16-bit reads of a row-major B).
  int64_t bPerRead = c.bColMajor ? c.kWidth : c.ldsTransposeReads ? 4 : 1;
  int64_t ds = llvm::divideCeil((c.bm / wm) * c.bk, lanes * c.kWidth) +
               llvm::divideCeil((c.bn / wn) * c.bk, lanes * bPerRead);
  int64_t dsShare = llvm::divideCeil(ds, mfmas);
  int64_t vmemShare = llvm::divideCeil(vmem, mfmas);
  for (int64_t i = 0; i < mfmas; ++i) {
    kb.schedGroupBarrier(kSchedMfma, 1);
    kb.schedGroupBarrier(kSchedDsRead, unsigned(dsShare));
    kb.schedGroupBarrier(kSchedVmemRead, unsigned(vmemShare));
  }
}

/// Warps along M and N of the accumulator: M first, as square as the warp
/// count allows.
std::pair<unsigned, unsigned> splitWarps(unsigned warps) {
  unsigned wm = 1;
  while (wm * wm < warps)
    wm *= 2;
  return {wm, warps / wm};
}

} // namespace

OwningOpRef<ModuleOp> mlir::rocdsl::buildGemm(MLIRContext *ctx,
                                              const GemmConfig &c) {
  SmallVector<ArgSpec> args = {ArgSpec::ptr("a", c.dtype),
                               ArgSpec::ptr("b", c.dtype)};
  if (c.accumulate)
    args.push_back(ArgSpec::ptr("c", c.outDType));
  if (c.bias)
    args.push_back(ArgSpec::ptr("bias", c.outDType));
  args.push_back(ArgSpec::ptr("out", c.outDType));
  args.push_back(ArgSpec::scalar("alpha", DType::F32));
  if (c.accumulate)
    args.push_back(ArgSpec::scalar("beta", DType::F32));
  KernelBuilder kb(ctx, "gemm", unsigned(c.warps), args);
  kb.setMinProgramsPerCU(unsigned(c.minPrograms));

  // Program -> (tile row, tile column, batch entry).
  int64_t tilesM = llvm::divideCeil(c.m, c.bm);
  int64_t tilesN = llvm::divideCeil(c.n, c.bn);
  int64_t programs = tilesM * tilesN;
  Scalar pid = kb.programId(0);
  if (c.xcds > 1 && programs % c.xcds == 0)
    pid = kb.rem(pid, kb.i32(c.xcds)) * (programs / c.xcds) +
          pid / kb.i32(c.xcds);
  int64_t inGroup = int64_t(c.groupM) * tilesN;
  Scalar group = pid / kb.i32(inGroup);
  Scalar firstM = group * int64_t(c.groupM);
  Scalar groupSize = kb.min(kb.i32(tilesM) - firstM, kb.i32(c.groupM));
  Scalar local = kb.rem(pid, kb.i32(inGroup));
  Scalar rowTile = firstM + kb.rem(local, groupSize);
  Scalar colTile = local / groupSize;
  Scalar batch = kb.programId(1);
  Scalar m0 = rowTile * c.bm, n0 = colTile * c.bn;

  // Layouts: coalesced loads, the accumulator and its operands.
  // (Warpgroup products stack every warp along M: four make one group.)
  // Named variables, not a structured binding: lambdas below capture them.
  std::pair<unsigned, unsigned> warpGrid =
      c.wgmma ? std::pair<unsigned, unsigned>{unsigned(c.warps), 1}
              : splitWarps(unsigned(c.warps));
  unsigned wm = warpGrid.first, wn = warpGrid.second;
  Layout acc = c.nvidia ? kb.mma({wm, wn})
                        : kb.mfma(c.matrixVersion,
                                  {c.instr[0], c.instr[1], c.instr[2]},
                                  {wm, wn});
  unsigned kWidth = c.nvidia ? 2 : c.kWidth;
  Layout opA = kb.dotOperand(0, acc, kWidth);
  Layout opB = kb.dotOperand(1, acc, kWidth);
  auto blocked = [&](int64_t rows, int64_t cols, DType dtype) {
    return kb.defaultLayout({rows, cols}, dtype, c.waveSize);
  };

  Ptr a = kb.ptrArg("a"), b = kb.ptrArg("b");
  // A tile of `rows` x `cols` of a [batch * outer, inner] row-major array:
  // rows from `row0` of this batch entry, columns from `col0`.
  auto loadTile = [&](Ptr p, int64_t outer, int64_t inner, Scalar row0,
                      Scalar col0, int64_t rows, int64_t cols) {
    AccessOptions o;
    Scalar first = batch * outer;
    o.strides = {kb.i32(inner)};
    o.bounds = {first + outer, kb.i32(inner)};
    Layout layout = blocked(rows, cols, c.dtype);
    o.vec = accessWidth(inner, c.dtype, layout);
    return kb.load(p, {first + row0, col0}, {rows, cols}, layout, o);
  };
  // One K step of an operand as a `rows` x `cols` register tile: loaded
  // as stored, a column-major one transposed by renaming registers.
  auto stage = [&](Ptr p, bool colMajor, int64_t outer, int64_t inner,
                   Scalar row0, Scalar col0, int64_t rows, int64_t cols) {
    if (!colMajor)
      return loadTile(p, outer, inner, row0, col0, rows, cols);
    Tile t = loadTile(p, inner, outer, col0, row0, cols, rows);
    return t.transposed(getTransposedLayout(t.getLayout()));
  };
  auto stageA = [&](Scalar k) {
    return stage(a, c.aColMajor, c.m, c.k, m0, k, c.bm, c.bk);
  };
  auto stageB = [&](Scalar k) {
    return stage(b, c.bColMajor, c.k, c.n, k, n0, c.bk, c.bn);
  };
  // The operands' LDS tiles keep global memory's contiguous dimension
  // fastest, so the writes are 16 bytes wide (operandLdsTile).
  auto ldsTile = [&](int64_t rows, int64_t cols, bool colMajor, bool kFast,
                     unsigned buffers) {
    return operandLdsTile(kb, rows, cols, c.dtype, colMajor, kFast, c.nvidia,
                          c.kWidth, c.ldsBanks, c.ldsTransposeReads, buffers);
  };
  // (Ops are built in statement order: the order in which a compiler
  // evaluates function arguments must not change the kernel.)
  Tile zero = kb.zeros({c.bm, c.bn}, acc, DType::F32);
  Scalar kBegin = kb.i32(0), kEnd = kb.i32(c.k), kStep = kb.i32(c.bk);
  // An asynchronous copy of a tile of a [batch * outer, inner] row-major
  // array into `dst`: rows from `row0` of this batch entry, columns from
  // `col0`; past the array's edges nothing is read and zeros are written.
  auto copy = [&](Ptr p, int64_t outer, int64_t inner, Scalar row0,
                  Scalar col0, LdsTile dst) {
    AccessOptions o;
    Scalar first = batch * outer;
    o.strides = {kb.i32(inner)};
    o.bounds = {first + outer, kb.i32(inner)};
    Layout layout = blocked(dst.getShape()[0], dst.getShape()[1], c.dtype);
    o.vec = accessWidth(inner, c.dtype, layout);
    kb.asyncCopy(p, {first + row0, col0}, layout, dst, o);
  };
  // S LDS buffers, A K steps of copies in flight (A = S - 1 unless the
  // products of an earlier step still read its buffer), one group of
  // copies committed per step (copyStep; empty past K, so the counts stay
  // exact). Step i waits for its own copies (at most A - 1 newer groups
  // may still run), and one barrier both publishes every lane's copies and
  // ends the reads of buffer (i + A) % S (with A = S - 1, step i - 1's),
  // which the copy of step i + A refills while step i multiplies from
  // buffer i % S (multiply). Steps 0 .. A-1 into buffers 0 .. A-1, before
  // the loop.
  auto copyPrologue =
      [&](unsigned s, function_ref<void(Scalar k, Scalar buffer)> copyStep) {
        for (unsigned i = 0; i + 1 < s; ++i) {
          Scalar k = kb.i32(int64_t(i) * c.bk);
          copyStep(k, kb.i32(i));
        }
      };
  auto stagedLoop = [&](unsigned s, unsigned inFlight,
                        function_ref<void(Scalar k, Scalar buffer)> copyStep,
                        function_ref<Tile(Scalar buffer, Tile acc)> multiply) {
    copyPrologue(inFlight + 1, copyStep);
    auto body = [&](Scalar k, ArrayRef<Tile> carried) {
      Scalar step = k / kb.i32(c.bk);
      kb.asyncWait(inFlight - 1);
      kb.barrier();
      Scalar ahead = k + int64_t(inFlight) * c.bk;
      Scalar later = step + int64_t(inFlight);
      Scalar count = kb.i32(s);
      copyStep(ahead, kb.rem(later, count));
      Scalar buffer = kb.rem(step, count);
      return SmallVector<Tile>{multiply(buffer, carried[0])};
    };
    return kb.forLoop(kBegin, kEnd, kStep, {zero}, body)[0];
  };
  Tile sum;
  if (c.wgmma) {
    // S buffers, S - 1 K steps in flight, as the stages below, but the
    // matrix unit reads both operands from LDS itself (warpgroup_dot): A
    // as BM x 64 rows, B as BN / 64 panels of 64 x 64 (row-major B, K x N)
    // or BN x 64 rows (column-major B, stored N x K), all in its 128-byte
    // swizzle (what sharedLayout gives 128-byte rows over 32 banks). The
    // step's barrier also ends the previous step's products (warpgroup_dot
    // returns when they are done) before their buffer is refilled.
    unsigned s = unsigned(c.stages);
    int64_t panels = c.bn / 64;
    Layout sharedA = kb.sharedLayout({c.bm, 64}, c.dtype, {1, 0}, 32);
    LdsTile stackA = kb.localAllocBuffers(s, {c.bm, 64}, c.dtype, sharedA);
    LdsTile stackB =
        c.bColMajor
            ? kb.localAllocBuffers(
                  s, {c.bn, 64}, c.dtype,
                  kb.sharedLayout({c.bn, 64}, c.dtype, {1, 0}, 32))
            : kb.localAllocBuffers(
                  s, {panels, 64, 64}, c.dtype,
                  kb.sharedLayout({panels, 64, 64}, c.dtype, {2, 1, 0}, 32));
    auto copyStep = [&](Scalar k, Scalar buffer) {
      copy(a, c.m, c.k, m0, k, stackA.index(buffer));
      LdsTile bufferB = stackB.index(buffer);
      if (c.bColMajor) {
        copy(b, c.n, c.k, n0, k, bufferB);
      } else {
        for (int64_t p = 0; p < panels; ++p) {
          Scalar col = n0 + p * 64;
          copy(b, c.k, c.n, k, col, bufferB.index(kb.i32(p)));
        }
      }
      kb.asyncCommit();
    };
    // With wgmma_pending, step i's products are left running (pending =
    // 1), which also waits for step i - 1's. Step i's barrier therefore
    // follows every warp group's wait for step i - 2, whose buffer,
    // (i - 2) mod S, the copy of step i + S - 2 refills: S - 2 steps of
    // copies in flight, one buffer under the running products, one under
    // the current ones.
    unsigned pending = c.wgmmaPending ? 1 : 0;
    sum = stagedLoop(s, s - 1 - pending, copyStep,
                     [&](Scalar buffer, Tile acc) {
                       LdsTile x = stackA.index(buffer);
                       LdsTile y = stackB.index(buffer);
                       return kb.warpgroupDot(x, y, acc, pending);
                     });
    if (pending)
      sum = kb.warpgroupWait(sum);
    kb.asyncWait(0);
    kb.barrier();
  } else if (c.stages == 1) {
    LdsTile ldsA = ldsTile(c.bm, c.bk, c.aColMajor, !c.aColMajor, 0);
    LdsTile ldsB = ldsTile(c.bk, c.bn, c.bColMajor, c.bColMajor, 0);
    // Each step writes its staged operands to LDS, issues the global
    // loads of a later step (in flight while the products run; past K
    // they are masked off) and multiplies from LDS: two barriers per
    // step, around the writes. With load_ahead = 2 two steps ride in
    // registers: the loads of step k + 2 are issued before the writes of
    // step k + 1, which then wait only for their own loads. The loop then
    // takes two steps an iteration, so that each staged set comes back in
    // the registers it left in (a one-step loop would rotate the sets and
    // copy freshly loaded registers, waiting for every load); an odd last
    // step multiplies the zeros its masked loads read.
    auto step = [&](Scalar k, Tile acc, Tile stagedA, Tile stagedB,
                    Tile &nextA, Tile &nextB) {
      ldsA.store(stagedA);
      ldsB.store(stagedB);
      Scalar next = k + c.loadAhead * c.bk;
      nextA = stageA(next);
      nextB = stageB(next);
      // (AMDGPU's scheduler would sink the loads below the products,
      // where they no longer overlap them.)
      if (!c.interleave)
        kb.schedBarrier();
      Tile operandA = ldsA.load(opA);
      Tile operandB = ldsB.load(opB);
      Tile product = kb.dot(operandA, operandB, acc);
      if (c.interleave)
        interleaveStep(kb, c, wm, wn);
      return product;
    };
    SmallVector<Tile> init = {zero};
    for (int64_t i = 0; i < c.loadAhead; ++i) {
      Tile a = stageA(kb.i32(i * c.bk));
      Tile b = stageB(kb.i32(i * c.bk));
      init.push_back(a);
      init.push_back(b);
    }
    auto body = [&](Scalar k, ArrayRef<Tile> carried) {
      SmallVector<Tile> out = {carried[0]};
      for (int64_t i = 0; i < c.loadAhead; ++i) {
        Tile nextA, nextB;
        Scalar at = k + i * c.bk;
        out[0] = step(at, out[0], carried[1 + 2 * i], carried[2 + 2 * i],
                      nextA, nextB);
        out.push_back(nextA);
        out.push_back(nextB);
      }
      return out;
    };
    kStep = kb.i32(c.loadAhead * c.bk);
    sum = kb.forLoop(kBegin, kEnd, kStep, init, body)[0];
  } else {
    // S buffers, S - 1 steps in flight. Step i lives in buffer i % S, kept
    // as BK / kSlice stacked slices of kSlice K columns, so a step's
    // operands can be read one slice at a time. Copies past K are masked
    // off (zero-filled). One group is committed per step, empty or not, so
    // the counts stay exact.
    unsigned s = unsigned(c.stages);
    int64_t slices = c.bk / c.kSlice;
    LdsTile stackA = ldsTile(c.bm, c.kSlice, false, true, s * slices);
    LdsTile stackB = ldsTile(c.kSlice, c.bn, false, false, s * slices);
    auto slot = [&](Scalar buffer, int64_t slice) {
      Scalar first = buffer * slices;
      return first + slice;
    };
    auto copyStep = [&](Scalar k, Scalar buffer) {
      for (int64_t j = 0; j < slices; ++j) {
        Scalar col = k + j * c.kSlice;
        LdsTile dst = stackA.index(slot(buffer, j));
        copy(a, c.m, c.k, m0, col, dst);
      }
      for (int64_t j = 0; j < slices; ++j) {
        Scalar row = k + j * c.kSlice;
        LdsTile dst = stackB.index(slot(buffer, j));
        copy(b, c.k, c.n, row, n0, dst);
      }
      kb.asyncCommit();
    };
    auto readSlice = [&](Scalar buffer, int64_t j) {
      Tile x = stackA.index(slot(buffer, j)).load(opA);
      Tile y = stackB.index(slot(buffer, j)).load(opB);
      return std::pair<Tile, Tile>{x, y};
    };
    auto stepOf = [&](Scalar k) { return k / kb.i32(c.bk); };
    if (c.pingpong) {
      // Ping-pong (8 waves, one of each half on every SIMD; NVIDIA hands
      // warps to its four schedulers by index mod 4, so there too). Each
      // iteration is two phases, each ending in a barrier: B1, copy step
      // i + S - 1 into buffer (i - 1) % S, read step i, wait for step
      // i + 1; then B2 and the products at raised priority. The upper
      // half crosses one barrier more before the loop, so each of its
      // barriers meets the lower half's next one: while one half
      // multiplies, the other copies and reads. Sound because every
      // phase ends in the wait (step i + 1 landed in this wave) and the
      // barrier both halves then cross: a half reads step i only after
      // the other half's wait for it and its reads of buffer (i - 1) % S
      // (a phase before the copy into it). The lower half crosses its
      // extra barrier after the loop. AMDGPU waits for the prologue's
      // direct loads at once (LLVM's wait at each barrier's fence counts
      // those entering the loop, not those coming around it).
      copyPrologue(s, copyStep);
      kb.asyncWait(0);
      // Every barrier of the two phases meets one of the other half's at
      // another op (unaligned).
      Scalar upper =
          kb.compare(Cmp::GE, kb.warpId(), kb.i32(c.warps / 2));
      kb.ifThenElse(upper, [&] { kb.barrier(/*unaligned=*/true); });
      auto body = [&](Scalar k, ArrayRef<Tile> carried) {
        Scalar step = stepOf(k);
        Scalar count = kb.i32(s);
        kb.barrier(/*unaligned=*/true);
        Scalar later = step + int64_t(s - 1);
        copyStep(k + int64_t(s - 1) * c.bk, kb.rem(later, count));
        Scalar buffer = kb.rem(step, count);
        SmallVector<std::pair<Tile, Tile>> operands;
        for (int64_t j = 0; j < slices; ++j)
          operands.push_back(readSlice(buffer, j));
        kb.asyncWait(s - 2);
        kb.barrier(/*unaligned=*/true);
        kb.setPriority(1);
        Tile acc = carried[0];
        for (auto [x, y] : operands)
          acc = kb.dot(x, y, acc);
        kb.setPriority(0);
        return SmallVector<Tile>{acc};
      };
      sum = kb.forLoop(kBegin, kEnd, kStep, {zero}, body)[0];
      kb.ifThenElse(upper, [] {}, [&] { kb.barrier(/*unaligned=*/true); });
    } else if (!c.prefetchOperands) {
      // Each step reads its whole buffer after the barrier, then
      // multiplies.
      sum = stagedLoop(s, s - 1, copyStep, [&](Scalar buffer, Tile acc) {
        SmallVector<std::pair<Tile, Tile>> operands;
        for (int64_t j = 0; j < slices; ++j)
          operands.push_back(readSlice(buffer, j));
        for (auto [x, y] : operands)
          acc = kb.dot(x, y, acc);
        return acc;
      });
    } else {
      // The matrix units never wait for an LDS read: slice j + 1 is read
      // while slice j multiplies, and the next step's first slice right
      // after the step's barrier, while its last slice multiplies (the
      // first slice of step i comes into the iteration as registers). So
      // the barrier of step i follows every read of buffer i % S; it
      // publishes step i + 1 (at most S - 2 newer groups may still run)
      // and frees buffer i % S, which the copy of step i + S then refills.
      // The last iteration reads the first slice of a step past K (copied
      // masked off, zero-filled) and drops it.
      for (unsigned i = 0; i < s; ++i) {
        Scalar k = kb.i32(int64_t(i) * c.bk);
        copyStep(k, kb.i32(i));
      }
      kb.asyncWait(s - 1);
      kb.barrier();
      auto [firstA, firstB] = readSlice(kb.i32(0), 0);
      auto body = [&](Scalar k, ArrayRef<Tile> carried) {
        Scalar step = stepOf(k);
        Scalar count = kb.i32(s);
        Scalar buffer = kb.rem(step, count);
        Tile acc = carried[0], x = carried[1], y = carried[2];
        for (int64_t j = 1; j < slices; ++j) {
          auto [nextX, nextY] = readSlice(buffer, j);
          acc = kb.dot(x, y, acc);
          x = nextX, y = nextY;
        }
        kb.asyncWait(s - 2);
        kb.barrier();
        copyStep(k + int64_t(s) * c.bk, buffer);
        Scalar following = step + int64_t(1);
        auto [nextX, nextY] = readSlice(kb.rem(following, count), 0);
        acc = kb.dot(x, y, acc);
        return SmallVector<Tile>{acc, nextX, nextY};
      };
      sum = kb.forLoop(kBegin, kEnd, kStep, {zero, firstA, firstB}, body)[0];
    }
    // Nothing may be in flight into LDS when the epilogue reuses it.
    kb.asyncWait(0);
    kb.barrier();
  }

  // Epilogue in the accumulator layout, in f32.
  Scalar outRow = batch * c.m + m0;
  AccessOptions outTile;
  outTile.strides = {kb.i32(c.n)};
  outTile.bounds = {batch * c.m + c.m, kb.i32(c.n)};
  Tile result = sum * kb.scalarArg("alpha");
  if (c.accumulate) {
    Tile prior = kb.load(kb.ptrArg("c"), {outRow, n0}, {c.bm, c.bn}, acc,
                         outTile);
    result = result + prior.to(DType::F32) * kb.scalarArg("beta");
  }
  if (c.bias) {
    AccessOptions o;
    o.bounds = {kb.i32(c.n)};
    Tile bias = kb.load(kb.ptrArg("bias"), {n0}, {c.bn}, kb.slice(acc, 0), o);
    result = result + bias.to(DType::F32).expandDims(0).broadcastTo(
                          {c.bm, c.bn});
  }
  Tile out = result.to(c.outDType);
  // Stores from the accumulator layout are element-wise; through LDS into
  // a coalesced layout they are 128-bit, where the tile fits the scratch:
  // half the chip's LDS (the loop's buffers are dead by then, and the
  // scratch rows may be padded), 32 KiB on gfx942, 64 KiB tiles on sm_90.
  int64_t tileBytes = c.bm * c.bn * bitWidth(c.outDType) / 8;
  if (tileBytes <= c.maxLdsBytes / 2) {
    Layout layout = blocked(c.bm, c.bn, c.outDType);
    out = out.convertTo(layout);
    outTile.vec = accessWidth(c.n, c.outDType, layout);
  }
  kb.store(out, kb.ptrArg("out"), {outRow, n0}, outTile);
  return kb.finish();
}

//===----------------------------------------------------------------------===//
// Launch plan and reference
//===----------------------------------------------------------------------===//

LaunchPlan mlir::rocdsl::planGemm(const GemmConfig &c) {
  auto shape = [&](int64_t rows, int64_t cols) {
    return c.batch > 1 ? std::vector<int64_t>{c.batch, rows, cols}
                       : std::vector<int64_t>{rows, cols};
  };
  auto tensor = [&](const char *name, DType dtype, std::vector<int64_t> s,
                    int64_t inner, bool output) {
    return ArgSignature::tensor(
        name, dtype, std::move(s),
        accessWidth(inner, dtype) * bitWidth(dtype) / 8, output);
  };
  LaunchPlan plan;
  plan.kernelName = "gemm";
  plan.args.push_back(c.aColMajor ? tensor("a", c.dtype, shape(c.k, c.m), c.m,
                                           false)
                                  : tensor("a", c.dtype, shape(c.m, c.k), c.k,
                                           false));
  plan.args.push_back(c.bColMajor ? tensor("b", c.dtype, shape(c.n, c.k), c.k,
                                           false)
                                  : tensor("b", c.dtype, shape(c.k, c.n), c.n,
                                           false));
  if (c.accumulate)
    plan.args.push_back(
        tensor("c", c.outDType, shape(c.m, c.n), 1, false));
  if (c.bias)
    plan.args.push_back(tensor("bias", c.outDType, {c.n}, 1, false));
  ArgSignature out = tensor("out", c.outDType, shape(c.m, c.n), c.n, true);
  if (c.accumulate)
    out.inPlaceOf = "c"; // each element of C is read before it is written
  plan.args.push_back(out);
  // A NaN or infinite scale would make every output non-finite, which a
  // check would then blame on the kernel.
  auto scale = [](const char *name) {
    return ArgSignature::float32(
        name, [](double v) -> std::optional<std::string> {
          if (!std::isfinite(v)) // v arrives as a float32: inf past its range
            return "is not a finite float32";
          return std::nullopt;
        });
  };
  plan.args.push_back(scale("alpha"));
  if (c.accumulate)
    plan.args.push_back(scale("beta"));
  plan.grid[0] = uint32_t(llvm::divideCeil(c.m, c.bm) *
                          llvm::divideCeil(c.n, c.bn));
  plan.grid[1] = uint32_t(c.batch);
  return plan;
}

namespace {

/// The float64 product, and the sums of |terms| that scale its rounding.
void gemmReference(const GemmConfig &c,
                   std::vector<std::vector<double>> &t,
                   const std::vector<double> &scalars, bool magnitudes,
                   std::vector<double> &out) {
  unsigned i = 0;
  const std::vector<double> &a = t[i++], &b = t[i++];
  const std::vector<double> *prior = c.accumulate ? &t[i++] : nullptr;
  const std::vector<double> *bias = c.bias ? &t[i++] : nullptr;
  double alpha = scalars[0], beta = c.accumulate ? scalars[1] : 0.0;
  out.assign(size_t(c.batch * c.m * c.n), 0.0);
  for (int64_t e = 0; e < c.batch; ++e)
    for (int64_t r = 0; r < c.m; ++r)
      for (int64_t col = 0; col < c.n; ++col) {
        double s = 0;
        for (int64_t k = 0; k < c.k; ++k) {
          double x = c.aColMajor ? a[(e * c.k + k) * c.m + r]
                                 : a[(e * c.m + r) * c.k + k];
          double y = c.bColMajor ? b[(e * c.n + col) * c.k + k]
                                 : b[(e * c.k + k) * c.n + col];
          s += magnitudes ? std::fabs(x * y) : x * y;
        }
        size_t o = size_t((e * c.m + r) * c.n + col);
        double v = (magnitudes ? std::fabs(alpha) : alpha) * s;
        if (prior)
          v += magnitudes ? std::fabs(beta * (*prior)[o]) : beta * (*prior)[o];
        if (bias)
          v += magnitudes ? std::fabs((*bias)[col]) : (*bias)[col];
        out[o] = v;
      }
}

} // namespace

KernelSpec mlir::rocdsl::getGemmSpec() {
  KernelSpec spec;
  spec.name = "gemm";
  spec.summary = "out = alpha * A * B [+ beta * C] [+ bias], batched, on the "
                 "matrix units (bf16/f16 in, f32 accumulation)";
  spec.params = {
      {"M", "512", "rows of A and out (specializes the kernel)", false},
      {"N", "512", "columns of B and out", false},
      {"K", "512", "the reduction length", false},
      {"batch", "1", "independent products (leading dimension)", false},
      {"dtype", "bf16", "A and B element type: bf16, f16", false},
      {"out_dtype", "same",
       "C, bias and out element type: bf16, f16, f32 "
       "(same: as dtype)",
       false},
      {"layout_a", "row", "A row-major (M x K) or col (stored K x M)", false},
      {"layout_b", "row", "B row-major (K x N) or col (stored N x K)", false},
      {"accumulate", "0", "1: read C and add beta * C (out may be C)", false},
      {"bias", "0", "1: add a bias vector of N elements", false},
      {"BM", "0", "program tile rows (0: the chip's default)", false},
      {"BN", "0", "program tile columns (0: the chip's default)", false},
      {"BK", "0", "K step (0: the chip's default)", false},
      {"warps", "0", "waves (warps) per program: 1, 2, 4, 8, 16 (0: 4)", false},
      {"stages", "0",
       "K steps in flight: 1 stages the next in registers, 2-4 copy S-1 "
       "ahead into S LDS buffers (cp.async on NVIDIA; row-major A and B). "
       "0: 3 on NVIDIA with row-major operands, else 1",
       false},
      {"load_ahead", "1",
       "stages=1: K steps whose global loads are in flight in registers, 1 "
       "or 2 (2: a step's LDS writes wait only for loads issued two steps "
       "before, never for all of them; a second set of staging registers)",
       false},
      {"min_programs", "0",
       "occupancy hint: programs that should share one SM (NVIDIA: ptxas "
       "limits registers to fit them, spilling if it must); 0: none",
       false},
      {"group_m", "8",
       "row tiles a group of programs walks down before moving along N "
       "(L2 reuse), 1-64",
       false},
      {"prefetch_operands", "1",
       "stages >= 2: read the next 16-wide K slice's operands from LDS "
       "while the current one multiplies, and the next step's first slice "
       "right after the step's barrier (0: read a whole step, then "
       "multiply)",
       false},
      {"interleave", "0",
       "AMDGPU, stages=1: 1 orders the K loop for LLVM's scheduler "
       "(sched_group_barrier): each MFMA followed by its share of the "
       "step's LDS reads and global loads, instead of all reads first",
       false},
      {"pingpong", "0",
       "stages 2-4, warps=8, MFMA or mma.sync: 1 runs the two halves of "
       "the waves a barrier apart, one multiplying (at raised s_setprio on "
       "AMDGPU) while the other copies and reads LDS; two barriers a K step",
       false},
      {"wgmma", "auto",
       "sm_90a: 1 multiplies with warpgroup MMA (wgmma) reading both "
       "operands from the LDS stages (BK=64, warps 4 or 8 stacked along M, "
       "row-major A, stages 2-4; default 128x256x64 on 8 warps with 4 "
       "stages where those tiles fill 3/4 of a wave of programs, else "
       "128x128x64 on 4 warps, 4 stages below one program a "
       "multiprocessor, 3 above); "
       "0: mma.sync; auto: wgmma where the chip and parameters allow it",
       false},
      {"wgmma_pending", "auto",
       "wgmma, stages 3-4: 1 keeps each K step's products in flight across "
       "the next step's barrier (wgmma.wait_group 1), the copies then "
       "S-2 steps ahead instead of S-1; 0 waits for them in each step; "
       "auto: 1 with 4 stages",
       false},
      {"chip", "gfx942",
       "target whose matrix instruction and tiles the kernel uses; set from "
       "the device or --chip",
       false},
      {"alpha", "1", "scale of A * B (launch-time)", true},
      {"beta", "1", "scale of C with accumulate=1 (launch-time)", true},
  };
  spec.targetDefaults = [](const TargetFacts &facts,
                           std::vector<std::string> &defs, std::string &) {
    if (facts.chip && !definesParam(defs, "chip"))
      defs.insert(defs.begin(), "chip=" + facts.chip->name.str());
    // The host unrolls each tile product into vector code whose compile
    // time grows with the tile (minutes at 128 x 128 x 32): small tiles.
    if (!facts.chip)
      for (const char *def : {"BM=32", "BN=32", "BK=16"})
        if (!definesParam(defs, StringRef(def).split('=').first))
          defs.insert(defs.begin(), def);
    return success();
  };
  spec.build = [](MLIRContext *ctx, const KernelParams &params,
                  std::string &error) -> OwningOpRef<ModuleOp> {
    GemmConfig c;
    if (failed(configureGemm(params, c, error)))
      return nullptr;
    return buildGemm(ctx, c);
  };
  spec.plan = [](const KernelParams &params, LaunchPlan &plan,
                 std::string &error) -> LogicalResult {
    GemmConfig c;
    if (failed(configureGemm(params, c, error)))
      return failure();
    plan = planGemm(c);
    return success();
  };
  spec.reference = [](const KernelParams &params,
                      std::vector<std::vector<double>> &tensors,
                      const std::vector<double> &scalars) {
    GemmConfig c;
    std::string error;
    if (failed(configureGemm(params, c, error)))
      return;
    gemmReference(c, tensors, scalars, false, tensors.back());
  };
  spec.magnitudes = [](const KernelParams &params,
                       const std::vector<std::vector<double>> &tensors,
                       const std::vector<double> &scalars,
                       std::vector<std::vector<double>> &magnitudes) {
    GemmConfig c;
    std::string error;
    if (failed(configureGemm(params, c, error)))
      return;
    std::vector<std::vector<double>> inputs = tensors;
    magnitudes.assign(tensors.size(), {});
    gemmReference(c, inputs, scalars, true, magnitudes.back());
  };
  return spec;
}
