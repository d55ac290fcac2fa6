//===- AttentionConfig.cpp - attention parameters and tiles ---------------===//
#include "Attention.h"

#include "common/MatrixTiles.h"

#include "rocdsl/Support/ChipInfo.h"

#include <cmath>
#include <numeric>
#include <tuple>

using namespace mlir;
using namespace mlir::rocdsl;
using dsl::DType;

static std::string str(int64_t v) { return std::to_string(v); }

/// The widest D + Dv the backward takes on warpgroup MMA: dK and dV of a
/// warp group's 64 keys are (D + Dv) / 2 fp32 registers a thread, 160 here
/// (D = 192, Dv = 128), beside the step's S^T and dP^T (64 more).
constexpr int64_t kMaxWarpgroupBackwardDims = 320;

/// The `wgmma` parameter: 1 insists on warpgroup MMA (an error naming what
/// rules it out), auto takes it on a chip that has it when the head
/// dimensions and the tile parameters given allow it.
static LogicalResult configureWarpgroup(const KernelParams &params,
                                        const ChipInfo &chip, bool backward,
                                        AttentionConfig &c,
                                        std::string &error) {
  StringRef wgmma = params.get("wgmma");
  if (wgmma != "auto" && wgmma != "0" && wgmma != "1") {
    error = "wgmma=" + wgmma.str() + " is not auto, 0 or 1";
    return failure();
  }
  bool dimsFit = c.d % kWarpgroupBlock == 0 && c.dv % kWarpgroupBlock == 0;
  if (wgmma == "1") {
    if (!chip.warpgroupMma) {
      error = "wgmma=1: " + chip.name.str() +
              " has no warpgroup MMA (wgmma needs sm_90a; chip=sm_90a)";
      return failure();
    }
    if (!dimsFit) {
      error = "wgmma=1: D=" + str(c.d) + " and Dv=" + str(c.dv) +
              " must be multiples of 64 (the matrix unit reads its operands "
              "from LDS in rows of 64 elements)";
      return failure();
    }
    if (backward && c.d + c.dv > kMaxWarpgroupBackwardDims) {
      error = "wgmma=1: D + Dv = " + str(c.d + c.dv) +
              " is past " + str(kMaxWarpgroupBackwardDims) +
              ": a key program keeps dK and dV of its 64 keys a warp group "
              "in registers, (D + Dv) / 2 fp32 a thread beside the step's "
              "products";
      return failure();
    }
    if (backward && c.step && c.step != kWarpgroupBlock) {
      error = "wgmma=1: step=" + str(c.step) +
              " must be 64 (each step's rows are the K of a gradient "
              "product, one 64-wide LDS tile)";
      return failure();
    }
    c.wgmma = true;
  } else if (wgmma == "auto") {
    // Tile parameters given for the other path keep it.
    c.wgmma = chip.warpgroupMma && dimsFit && c.warps % 4 == 0 &&
              (backward ? (c.step == 0 || c.step == kWarpgroupBlock) &&
                              c.d + c.dv <= kMaxWarpgroupBackwardDims
                        : c.stages != 1 && c.bn % kWarpgroupBlock == 0);
  }
  if (c.wgmma && backward)
    c.step = kWarpgroupBlock;
  return success();
}
/// The backward's `dq_atomic` parameter, once the tiles are known: dQ
/// added into an fp32 scratch by the key programs (no query programs),
/// which needs warpgroup MMA, the product dQ^T = K^T dS^T's M (the head
/// dimension) split over the warp groups, and K^T's tile in LDS beside
/// `ldsBytes`. Off by default: on an H100 the adds and the per-block
/// counts cost more than the query programs' second pass saves
/// (docs/benchmarks.md).
static LogicalResult configureAtomicQueryGrad(const KernelParams &params,
                                              const ChipInfo &chip,
                                              AttentionConfig &c,
                                              int64_t &ldsBytes,
                                              std::string &error) {
  StringRef atomic = params.get("dq_atomic");
  if (atomic != "0" && atomic != "1") {
    error = "dq_atomic=" + atomic.str() + " is not 0 or 1";
    return failure();
  }
  int64_t keysT = c.bn * c.d * int64_t(dsl::bitWidth(c.dtype) / 8);
  std::string why;
  if (!c.wgmma)
    why = "it needs warpgroup MMA (wgmma=1, sm_90a)";
  else if (c.d % (16 * c.warps))
    why = "D=" + str(c.d) + " must be a multiple of " + str(16 * c.warps) +
          " (64 rows of dQ^T for each warp group of warps=" + str(c.warps) +
          ")";
  else if (ldsBytes + keysT > chip.maxSharedMemoryBytes())
    why = "K^T's tile (" + str(keysT) + " bytes) does not fit beside the "
          "others in " + chip.name.str() + "'s LDS";
  if (atomic == "1" && !why.empty()) {
    error = "dq_atomic=1: " + why;
    return failure();
  }
  c.dqAtomic = atomic == "1";
  if (c.dqAtomic)
    ldsBytes += keysT;
  return success();
}

LogicalResult mlir::rocdsl::configureAttentionShapes(const KernelParams &params,
                                                     AttentionConfig &c,
                                                     std::string &error) {
  if (failed(params.getFloat("softcap", c.softcap, error)))
    return failure();
  if (!std::isfinite(c.softcap) || c.softcap < 0) {
    error = "softcap=" + params.get("softcap").str() +
            " is not 0 (none) or a positive cap";
    return failure();
  }
  for (auto [name, out] : {std::pair<StringRef, int64_t *>{"B", &c.batch},
                           {"Hq", &c.hq},
                           {"Hkv", &c.hkv},
                           {"Sq", &c.sq},
                           {"Sk", &c.sk},
                           {"D", &c.d},
                           {"Dv", &c.dv},
                           {"Tq", &c.tq},
                           {"Tk", &c.tk},
                           {"window_left", &c.windowLeft},
                           {"window_right", &c.windowRight}})
    if (failed(params.getInt(name, *out, error)))
      return failure();
  if (failed(params.getFlag("causal", c.causal, error)))
    return failure();
  if (!c.hkv)
    c.hkv = c.hq;
  if (!c.sk)
    c.sk = c.sq;
  if (!c.dv)
    c.dv = c.d;
  for (auto [name, v] : {std::pair<StringRef, int64_t>{"B", c.batch},
                         {"Hq", c.hq},
                         {"Hkv", c.hkv},
                         {"Sq", c.sq},
                         {"Sk", c.sk}})
    if (v < 1 || v > (int64_t(1) << 30)) {
      error = name.str() + "=" + str(v) + " must be in [1, 2^30]";
      return failure();
    }
  StringRef layout = params.get("layout");
  if (layout == "bhsd") {
    c.layout = AttentionLayout::BHSD;
  } else if (layout == "bshd") {
    c.layout = AttentionLayout::BSHD;
  } else if (layout == "varlen") {
    c.layout = AttentionLayout::Varlen;
  } else {
    error = "layout=" + layout.str() + " is not bhsd, bshd or varlen";
    return failure();
  }
  if (c.varlen()) {
    // Packed rows: all the sequences' rows by default.
    for (auto [name, total, longest] :
         {std::tuple<StringRef, int64_t *, int64_t>{"Tq", &c.tq, c.sq},
          {"Tk", &c.tk, c.sk}}) {
      if (!*total)
        *total = c.batch * longest;
      if (*total < 1 || *total > c.batch * longest) {
        error = name.str() + "=" + str(*total) +
                " packed rows: at least 1 and at most B times the longest "
                "sequence (" +
                str(c.batch * longest) + ")";
        return failure();
      }
    }
  } else if (c.tq || c.tk) {
    error = "Tq and Tk (packed rows) apply to layout=varlen only";
    return failure();
  }
  if (c.hq % c.hkv) {
    error = "Hq=" + str(c.hq) + " is not a multiple of Hkv=" + str(c.hkv) +
            " (each key/value head serves Hq / Hkv query heads)";
    return failure();
  }
  if (c.batch * c.hq > 65535) {
    error = "B * Hq = " + str(c.batch * c.hq) +
            " programs along the grid's second dimension: at most 65535";
    return failure();
  }
  for (auto [name, v] : {std::pair<StringRef, int64_t>{"D", c.d}, {"Dv", c.dv}})
    if (v < 16 || v > 256 || v % 16) {
      error = name.str() + "=" + str(v) +
              " is not a head dimension the kernel tiles: a multiple of 16 "
              "in [16, 256]";
      return failure();
    }
  int64_t qRows = c.varlen() ? c.tq : c.batch * c.sq;
  int64_t kRows = c.varlen() ? c.tk : c.batch * c.sk;
  for (auto [name, v] : {std::pair<StringRef, int64_t>{"query rows * Hq * D",
                                                       qRows * c.hq * c.d},
                         {"query rows * Hq * Dv", qRows * c.hq * c.dv},
                         {"key rows * Hkv * D", kRows * c.hkv * c.d},
                         {"key rows * Hkv * Dv", kRows * c.hkv * c.dv}})
    if (v >= (int64_t(1) << 31)) {
      error = name.str() + " = " + str(v) +
              " elements: offsets are 32-bit, at most 2^31 - 1";
      return failure();
    }
  std::optional<DType> dtype = dsl::parseDType(params.get("dtype"));
  if (!dtype || (*dtype != DType::BF16 && *dtype != DType::F16)) {
    error = "dtype=" + params.get("dtype").str() +
            " is not a matrix-core input type (bf16, f16)";
    return failure();
  }
  c.dtype = *dtype;
  StringRef align = params.get("align");
  if (align != "top_left" && align != "bottom_right") {
    error = "align=" + align.str() + " is not top_left or bottom_right";
    return failure();
  }
  c.bottomRight = align == "bottom_right";
  for (auto [name, v] :
       {std::pair<StringRef, int64_t>{"window_left", c.windowLeft},
        {"window_right", c.windowRight}})
    if (v < -1) {
      error = name.str() + "=" + str(v) + " is not -1 (unbounded) or >= 0";
      return failure();
    }
  if (c.causal && c.windowRight > 0) {
    error = "window_right=" + str(c.windowRight) +
            " with causal=1: causal attention sees no key right of the "
            "diagonal (window_right must be -1 or 0)";
    return failure();
  }
  // A window as wide as both lengths masks nothing (|j - i - offset| <
  // Sq + Sk): no bound, which also keeps the kernel's i32 arithmetic in
  // range for any width given.
  for (int64_t *bound : {&c.windowLeft, &c.windowRight})
    if (*bound >= c.sq + c.sk)
      *bound = -1;

  const ChipInfo *chip = lookupChip(params.get("chip"));
  if (!chip) {
    error =
        "chip=" + params.get("chip").str() + " is not one of " + listChips();
    return failure();
  }
  c.nvidia = chip->isNVIDIA();
  c.waveSize = chip->waveSize;
  c.ldsBanks = chip->sharedMemoryBanks;
  c.ldsTransposeReads = chip->ldsTransposeReads;
  return success();
}

/// One pass over the parameters, `wgmma` as given.
static LogicalResult configureOnce(const KernelParams &params,
                                   AttentionConfig &c, std::string &error,
                                   bool backward) {
  if (backward) {
    c.prefetch = false;
    if (failed(params.getSizeOrDefault("step", c.step, error)))
      return failure();
  } else if (failed(params.getFlag("prefetch", c.prefetch, error)) ||
             failed(params.getSizeOrDefault("stages", c.stages, error))) {
    return failure();
  }
  for (auto [name, out] : {std::pair<StringRef, int64_t *>{"BM", &c.bm},
                           {"BN", &c.bn},
                           {"warps", &c.warps}})
    if (failed(params.getSizeOrDefault(name, *out, error)))
      return failure();
  if (failed(configureAttentionShapes(params, c, error)))
    return failure();
  const ChipInfo *chip = lookupChip(params.get("chip"));
  // The backward on NVIDIA at head dimensions up to 128: 128 x 128 tiles
  // on 8 warps (H200, B2 H16 S4096: D64 causal with 64 a step 149 TFLOP/s
  // against 130 for 64 x 64 x 32 on 4; D128 with 32 a step, in dynamic
  // shared memory, 133-149 against 109-127 over the benchmark's shapes).
  int64_t widest = std::max(c.d, c.dv);
  bool wideBackward = backward && c.nvidia && widest <= 128 && !c.warps;
  if (failed(configureWarpgroup(params, *chip, backward, c, error)))
    return failure();
  // The backward on warpgroup MMA: one warp group, 64 keys (or queries) a
  // program, so that two programs share a multiprocessor and one's
  // products run while the other waits at a barrier or computes P and dS
  // (H100, B2 H16 S4096 D128 bf16: 375 TFLOP/s non-causal against 290 for
  // 128 rows on 8 warps, 1.3-1.7x flash over the benchmark's rows against
  // 1.0-1.2x; docs/benchmarks.md). dq_atomic's key programs, which also
  // hold dQ^T, keep two warp groups (188 TFLOP/s there against 91 on one).
  bool oneWarpgroup = backward && params.get("dq_atomic") != "1";
  if (!c.warps)
    c.warps = c.wgmma ? (oneWarpgroup ? 4 : 8) : wideBackward ? 8 : 4;
  if (c.wgmma && c.warps % 4) {
    error = "wgmma: warps=" + str(c.warps) +
            " is not 4 or 8 (the matrix unit multiplies for whole groups of "
            "four warps)";
    return failure();
  }
  if (backward && !c.step)
    c.step = wideBackward && widest <= 64 ? 64 : 32;
  if (c.warps != 1 && c.warps != 2 && c.warps != 4 && c.warps != 8) {
    error = "warps=" + str(c.warps) + " is not 1, 2, 4 or 8";
    return failure();
  }
  // Rows per wave: one instruction's M; keys a step: a multiple of both
  // products' granules (the first's N, the second's K).
  unsigned rowsPerWave = 16, keyGranule = 16;
  if (!c.nvidia) {
    // The forward's value head dimension is the second product's N: the
    // widest instruction whose N divides it. Past 128, a wave's 32 rows of
    // the output and of Q would not fit the register file: 16 rows (the
    // 16x16 forms) there. The backward's products have N = D and Dv and
    // keep two accumulators and two operands a wave: always 16 rows.
    int64_t n = backward ? std::gcd(c.d, c.dv) : c.dv;
    const MatrixInstr *instr = pickMatrixInstr(
        *chip, c.dtype, n, backward || std::max(c.d, c.dv) > 128 ? 16 : 0);
    if (!instr) {
      error = chip->name.str() + " has no matrix instruction for " +
              dsl::toString(c.dtype).str() + " whose N divides " +
              (backward ? "D and Dv" : "Dv=" + str(c.dv));
      return failure();
    }
    c.instr[0] = instr->m, c.instr[1] = instr->n, c.instr[2] = instr->k;
    c.kWidth = instr->kPerLane(chip->waveSize);
    c.matrixVersion = mfmaVersion(*instr);
    rowsPerWave = instr->m;
    unsigned kBlock = chip->waveSize / instr->m * c.kWidth;
    keyGranule = std::max<unsigned>(instr->n, kBlock);
    // The products' K: D (scores), and in the backward Dv too (dP).
    for (auto [name, v] :
         {std::pair<StringRef, int64_t>{"D", c.d}, {"Dv", backward ? c.dv : 0}})
      if (v % kBlock) {
        error = name.str() + "=" + str(v) + " is not a multiple of " +
                str(kBlock) + ", the K granule of " + chip->name.str() + "'s " +
                instr->mnemonic.str();
        return failure();
      }
  }
  // Warpgroup MMA takes keys 64 at a time (the second product's K tile).
  if (c.wgmma)
    keyGranule = kWarpgroupBlock;
  int64_t programRows = rowsPerWave * c.warps;
  auto badTile = [&](StringRef what, int64_t multiple) {
    error = what.str() + " does not fit " + chip->name.str() +
            ": it must be a multiple of " + str(multiple) + ", at most 256";
    return failure();
  };
  int64_t elementBytes = int64_t(dsl::bitWidth(c.dtype) / 8);
  int64_t ldsBytes = 0;
  if (backward) {
    // Each program's own rows split over the waves; both walk `step` at a
    // time, which is the products' N and K.
    if (!c.bm)
      c.bm = programRows;
    if (!c.bn)
      c.bn = programRows;
    if (c.bm % programRows || c.bm > 256)
      return badTile("BM=" + str(c.bm), programRows);
    if (c.bn % programRows || c.bn > 256)
      return badTile("BN=" + str(c.bn), programRows);
    if (c.step < 1 || c.step % keyGranule || c.step > 256)
      return badTile("step=" + str(c.step), keyGranule);
    // A key program stages K and V, then keeps Q, Q^T, dO and dO^T of a
    // step; a query program stages Q and dO, then keeps K, K^T and V^T.
    // P^T and dS^T reach the dV and dK products through a conversion
    // scratch of a step's tile while those stay live.
    // (On NVIDIA one copy of Q, dO and K serves both reads: the
    // transposed one reads it in place.)
    int64_t copies = c.nvidia ? 1 : 2;
    ldsBytes = (std::max({c.bn * (c.d + c.dv), copies * c.step * (c.d + c.dv),
                          c.bm * (c.d + c.dv), c.step * (copies * c.d + c.dv)}) +
                std::max(c.bm, c.bn) * c.step) *
               elementBytes;
    // Warpgroup MMA: a program's own rows, two buffers of the streamed
    // ones, and P^T and dS^T (key programs) or dS (query programs).
    if (c.wgmma)
      ldsBytes = std::max(c.bn * (c.d + c.dv + 2 * c.step),
                          c.bm * (c.d + c.dv + c.step)) *
                     elementBytes +
                 2 * c.step * (c.d + c.dv) * elementBytes;
    if (failed(configureAtomicQueryGrad(params, *chip, c, ldsBytes, error)))
      return failure();
    int64_t programs = backwardPrograms(c);
    if (programs >= (int64_t(1) << 31)) {
      error = str(programs) + " programs: at most 2^31 - 1";
      return failure();
    }
  } else {
    if (!c.bm)
      c.bm = programRows;
    // 32 keys a step on AMD (a wave's 32 rows of scores, output and Q
    // operand with 64 keys would fill all 512 registers and spill) and
    // past head dimension 64 on NVIDIA (measured on the H200 at D = 128:
    // 64 x 32 on 4 warps is within 5% of the best tile on every shape,
    // 64 x 64 10-20% behind; at D = 64, 64 keys).
    // Warpgroup MMA: 128 keys a step past head dimension 64 up to 128,
    // else 64 (measured on an H100 and an H200, bf16: at D = 128, 128
    // keys 0-9% faster than 64 but at S = 1024 within 2%; at D = 64, 64
    // keys 10% faster; past 128, the tiles, Q, two stages and P, fit the
    // shared memory only with 64).
    if (!c.bn && c.wgmma)
      c.bn = widest > 64 && widest <= 128 ? 128 : 64;
    if (!c.bn)
      c.bn = !c.nvidia || std::max(c.d, c.dv) > 64 ? 32 : 64;
    if (c.bm % programRows || c.bm > 256)
      return badTile("BM=" + str(c.bm) + " (" + str(rowsPerWave) +
                         " rows per wave)",
                     programRows);
    if (c.bn % keyGranule || c.bn > 256)
      return badTile("BN=" + str(c.bn), keyGranule);
    // Two asynchronous stages on NVIDIA (measured on an H100 at D = 64 and
    // 128, bf16: 8-24% over stages=1 on every shape, 3 no better), where
    // their buffers fit; AMD keeps the register path until measured.
    int64_t stageBytes = c.bn * (c.d + c.dv) * elementBytes;
    if (!c.stages && c.wgmma)
      c.stages = 2;
    if (!c.stages)
      c.stages = c.nvidia && 2 * stageBytes <= chip->maxSharedMemoryBytes() / 2
                     ? 2
                     : 1;
    if (c.stages < 1 || c.stages > 4) {
      error = "stages=" + str(c.stages) + " is not 1, 2, 3 or 4";
      return failure();
    }
    if (c.wgmma && c.stages == 1) {
      error = "wgmma: stages=1 passes keys and values through registers, "
              "but the matrix unit reads them from LDS (stages 2-4)";
      return failure();
    }
    // Asynchronous stages leave nothing in registers to prefetch.
    if (c.stages > 1)
      c.prefetch = false;
    // Q's tile is dead once read, so the key and value tiles reuse its
    // bytes (the LDS allocator works by liveness).
    ldsBytes = std::max(c.bm * c.d, c.stages * c.bn * (c.d + c.dv)) *
               elementBytes;
    // With warpgroup MMA, Q stays in LDS through the walk, and P passes
    // through it.
    if (c.wgmma)
      ldsBytes = (c.bm * c.d + c.stages * c.bn * (c.d + c.dv) + c.bm * c.bn) *
                 elementBytes;
  }
  // Layout-conversion scratch comes on top, which the allocator checks
  // against the chip exactly.
  if (ldsBytes > chip->maxSharedMemoryBytes()) {
    error = "tiles BM=" + str(c.bm) + " BN=" + str(c.bn) +
            (backward ? " step=" + str(c.step)
                      : " stages=" + str(c.stages)) +
            " with D=" + str(c.d) + " Dv=" + str(c.dv) + " need at least " +
            str(ldsBytes) + " bytes of LDS; " + chip->name.str() + " has " +
            str(chip->maxSharedMemoryBytes());
    return failure();
  }
  return success();
}

LogicalResult mlir::rocdsl::configureAttention(const KernelParams &params,
                                               AttentionConfig &c,
                                               std::string &error,
                                               bool backward) {
  AttentionConfig initial = c;
  if (succeeded(configureOnce(params, c, error, backward)))
    return success();
  // wgmma=auto takes warpgroup MMA only where the parameters allow it: its
  // tiles may not fit where the other path's do (e.g. the backward at head
  // dimension 256 needs more LDS than sm_90a has, or a BM given for four
  // warps). Then auto means the other path, and its verdict stands;
  // except under dq_atomic=1, which only the warpgroup path has.
  if (!c.wgmma || params.get("wgmma") != "auto" ||
      (backward && params.get("dq_atomic") == "1"))
    return failure();
  KernelParams other = params;
  other.set("wgmma", "0");
  c = initial;
  error.clear();
  return configureOnce(other, c, error, backward);
}
