//===- Gemm.h - the GEMM family ---------------------------------*- C++ -*-===//
//
// out = alpha * op(A) * op(B) [+ beta * C] [+ bias], batched, on the
// matrix units of every target (MFMA on gfx942/gfx950, mma.sync on sm_90;
// vector.contract on the host). The tile configuration and the matrix
// instruction come from the chip table (ChipInfo) for the `chip` the
// kernel is built for.
//
//===----------------------------------------------------------------------===//
#ifndef ROCDSL_KERNELS_GEMM_GEMM_H
#define ROCDSL_KERNELS_GEMM_GEMM_H

#include "rocdsl/Kernels/Registry.h"

namespace mlir::rocdsl {

struct GemmConfig {
  int64_t m = 0, n = 0, k = 0, batch = 1;
  dsl::DType dtype = dsl::DType::BF16, outDType = dsl::DType::BF16;
  /// Column-major operands are stored transposed: A as K x M, B as N x K.
  bool aColMajor = false, bColMajor = false;
  bool bias = false, accumulate = false;
  /// Program tile and workgroup.
  int64_t bm = 128, bn = 128, bk = 32, warps = 4;
  unsigned waveSize = 64;
  /// 4-byte LDS banks (the operand tiles' swizzle).
  unsigned ldsBanks = 32;
  bool ldsTransposeReads = false;
  /// The most LDS one workgroup can have (bounds the epilogue's scratch).
  int64_t maxLdsBytes = 64 * 1024;
  /// Matrix instruction (M, N, K) and K elements per lane (AMD), from the
  /// chip table; NVIDIA uses mma.sync m16n8k16.
  unsigned instr[3] = {32, 32, 8};
  unsigned kWidth = 4, matrixVersion = 3;
  bool nvidia = false;
  /// AMD chips with several dies (XCDs) that take workgroups round-robin.
  unsigned xcds = 1;
  /// Programs of one group walk down M before moving along N (L2 reuse).
  int64_t groupM = 8;
  /// Occupancy hint: programs that should fit on one CU or SM (0: none).
  int64_t minPrograms = 0;
  /// K steps in flight: 1 stages the next step in registers during the
  /// products; S >= 2 copies S - 1 steps ahead into S LDS buffers
  /// asynchronously (cp.async on NVIDIA; loads and LDS stores at the copy
  /// on targets without asynchronous copies).
  int64_t stages = 1;
  /// stages = 1: K steps whose global loads are in flight in registers
  /// (1 or 2). With 2, each step's LDS writes wait only for loads issued
  /// two steps before (counted waits, never vmcnt(0), in the loop on AMD),
  /// at the cost of a second set of staging registers.
  int64_t loadAhead = 1;
  /// K columns of one LDS stage slice (a divisor of bk): with stages >= 2
  /// the products read their operands one slice at a time.
  int64_t kSlice = 16;
  /// stages >= 2: the next slice's operands are read while the current one
  /// multiplies (the step's first slice across the barrier).
  bool prefetchOperands = true;
  /// sm_90a: the K loop's products as warpgroup MMA (wgmma) reading both
  /// operands from the LDS stages, instead of mma.sync from registers.
  bool wgmma = false;
  /// wgmma, stages >= 3: each step's products stay in flight across the
  /// next step's barrier (wgmma.wait_group 1), so the matrix unit does
  /// not idle there; copies then run S - 2 steps ahead instead of S - 1.
  bool wgmmaPending = false;
  /// wgmma_pending=auto: wgmmaPending where S - 2 >= 2 steps of copies
  /// stay in flight (stages = 4).
  bool wgmmaPendingAuto = true;
  /// AMDGPU, stages = 1: the steady state's instruction order is given to
  /// LLVM's scheduler (sched_group_barrier): each MFMA followed by its
  /// share of the step's LDS reads and global loads.
  bool interleave = false;
  /// AMDGPU, stages >= 2, 8 waves: ping-pong. The two halves of the waves
  /// (one wave of each on every SIMD) run a barrier apart, so that one
  /// half multiplies while the other copies and reads LDS; each half
  /// raises its priority (s_setprio) around its products.
  bool pingpong = false;
};

/// Reads and checks the parameters (dtypes, layouts, shapes, tiles).
LogicalResult configureGemm(const KernelParams &params, GemmConfig &config,
                            std::string &error);
OwningOpRef<ModuleOp> buildGemm(MLIRContext *ctx, const GemmConfig &config);
LaunchPlan planGemm(const GemmConfig &config);
KernelSpec getGemmSpec();

} // namespace mlir::rocdsl

#endif
