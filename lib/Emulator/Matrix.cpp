//===- Matrix.cpp - MFMA matrix instructions and AGPR moves ---------------===//
//
// One general rule places every MFMA operand element in a lane and register
// (gem5's Inst_VOP3P_MAI__V_MFMA; agrees with AMD's matrix instruction
// calculator for CDNA3): for an M x N x K instruction on B blocks, each lane
// holds K_L = K / (64 / (M * B)) consecutive k of one row of A (and one
// column of B): A[b][i][k] sits in lane i + M * (b + B * floor(k / K_L)),
// element k mod K_L, packed into VGPRs low half first. The accumulator:
// with H = 4, B_I = ceil(64 / (M * N / H)), M_I = 64 / B_I / N and
// G = M / (H * M_I), D[b][i][j] is register i mod H + H * (floor(i / (H *
// M_I)) + G * floor(b / B_I)) of lane j + N * (floor(i / H) mod M_I + M_I *
// (b mod B_I)). tests/unittests/Emulator checks the shapes against the
// layouts the ISA guides tabulate.
//
// Products are summed in double and rounded to f32 once (the hardware
// rounds internally in an unspecified order; results agree within f32
// rounding of the sum). Sub-32-bit inputs keep denormals. The broadcast
// modifiers cbsz/abid/blgp and the f64 shapes are not implemented (a clear
// error), nor are the MFMA result hazards (wait states) checked.
//
//===----------------------------------------------------------------------===//
#include "Decode.h"

#include "llvm/ADT/StringRef.h"

#include <cmath>
#include <cstdlib>
#include <cstring>

namespace mlir::rocdsl::emu {

namespace {

enum InType : uint8_t { F16, BF16, F32, FP8, BF8, I8 };

struct MfmaShape {
  uint8_t m, n, k, blocks;
  InType a, b;
  /// gfx950's f8f6f4 forms: cbsz and blgp name A's and B's formats.
  bool formatsFromModifiers = false;
};

std::vector<MfmaShape> &shapes() {
  static std::vector<MfmaShape> table;
  return table;
}

unsigned elemsPerVGPR(InType t) {
  switch (t) {
  case F16: case BF16: return 2;
  case F32: return 1;
  default: return 4;
  }
}

double element(uint32_t word, unsigned index, InType t, bool fnuz) {
  switch (t) {
  case F16: return halfToFloat(uint16_t(word >> (16 * index)));
  case BF16: return bf16ToFloat(uint16_t(word >> (16 * index)));
  case F32: return asFloat(word);
  case FP8: return fp8ToFloat(uint8_t(word >> (8 * index)), false, fnuz);
  case BF8: return fp8ToFloat(uint8_t(word >> (8 * index)), true, fnuz);
  case I8: return double(int8_t(uint8_t(word >> (8 * index))));
  }
  return 0;
}

void mfma(ExecContext &ctx, const Inst &inst) {
  Wave &w = *ctx.wave;
  MfmaShape s = shapes()[inst.sub];
  const std::string &text = ctx.kernel->texts[ctx.currentInst];
  auto modifier = [&](const char *mod) {
    size_t at = text.find(mod);
    return at == std::string::npos ? 0 : std::atoi(text.c_str() + at + std::strlen(mod));
  };
  if (s.formatsFromModifiers) {
    // cbsz / blgp: 0 fp8 (e4m3), 1 bf8 (e5m2); 2-4 are fp6/fp4.
    int fa = modifier("cbsz:"), fb = modifier("blgp:");
    if (fa > 1 || fb > 1)
      return ctx.fault("f8f6f4 MFMA with fp6/fp4 operands (cbsz/blgp 2-4) is "
                       "not implemented by the emulator");
    s.a = fa ? BF8 : FP8;
    s.b = fb ? BF8 : FP8;
  } else {
    for (const char *mod : {"cbsz:", "abid:", "blgp:"})
      if (modifier(mod))
        return ctx.fault(std::string("MFMA broadcast modifier ") + mod +
                         " is not implemented by the emulator");
  }
  unsigned M = s.m, N = s.n, K = s.k, B = s.blocks;
  unsigned KL = K / (64 / (M * B));
  unsigned epvA = elemsPerVGPR(s.a), epvB = elemsPerVGPR(s.b);
  bool fnuz = ctx.chip->fp8IsFNUZ;
  bool integer = s.a == I8;
  const Operand &D = inst.ops[0], &A = inst.ops[1], &Bop = inst.ops[2],
                &C = inst.ops[3];
  auto aAt = [&](unsigned b, unsigned i, unsigned k) {
    unsigned lane = i + M * (b + B * (k / KL)), e = k % KL;
    return element(readLane(w, A, lane, e / epvA), e % epvA, s.a, fnuz);
  };
  auto bAt = [&](unsigned b, unsigned k, unsigned j) {
    unsigned lane = j + N * (b + B * (k / KL)), e = k % KL;
    return element(readLane(w, Bop, lane, e / epvB), e % epvB, s.b, fnuz);
  };
  const unsigned H = 4;
  unsigned BI = std::max(1u, (64 * H + M * N - 1) / (M * N));
  unsigned MI = 64 / BI / N;
  unsigned G = std::max(1u, M / (H * MI));
  unsigned outRegs = M * N * B / 64;
  std::vector<uint32_t> out(size_t(outRegs) * kLanes, 0);
  for (unsigned b = 0; b < B; ++b)
    for (unsigned i = 0; i < M; ++i)
      for (unsigned j = 0; j < N; ++j) {
        unsigned reg = i % H + H * (i / (H * MI) + G * (b / BI));
        unsigned lane = j + N * ((i / H) % MI + MI * (b % BI));
        uint32_t c = readLane(w, C, lane, C.kind == Operand::Imm ? 0 : reg);
        if (integer) {
          int64_t acc = int32_t(c);
          for (unsigned k = 0; k < K; ++k)
            acc += int64_t(aAt(b, i, k)) * int64_t(bAt(b, k, j));
          out[size_t(reg) * kLanes + lane] = uint32_t(int32_t(acc));
        } else {
          double acc = C.kind == Operand::Imm && !C.inlineFloat
                           ? double(int32_t(c))
                           : double(asFloat(c));
          for (unsigned k = 0; k < K; ++k)
            acc += aAt(b, i, k) * bAt(b, k, j);
          out[size_t(reg) * kLanes + lane] = asBits(float(acc));
        }
      }
  // MFMA ignores EXEC only in that all lanes compute; it writes all lanes.
  for (unsigned r = 0; r < outRegs; ++r)
    for (unsigned lane = 0; lane < kLanes; ++lane)
      w.v[size_t(D.reg + r) * kLanes + lane] = out[size_t(r) * kLanes + lane];
  if (ctx.profile) {
    ++ctx.profile->mfma;
    ctx.profile->mfmaFlops += 2ull * M * N * K * B;
  }
}

/// v_accvgpr_write_b32 a, v/s/const; v_accvgpr_read_b32 v, a;
/// v_accvgpr_mov_b32 a, a.
void accMove(ExecContext &ctx, const Inst &inst) {
  Wave &w = *ctx.wave;
  uint64_t exec = w.exec();
  if (inst.ops[0].kind != Operand::VReg)
    return;
  uint32_t *d = w.vreg(inst.ops[0].reg);
  for (unsigned lane = 0; lane < kLanes; ++lane)
    if (exec >> lane & 1)
      d[lane] = readLane(w, inst.ops[1], lane);
}

} // namespace

void registerMatrixOps(std::vector<OpInfo> &ops) {
  struct Spec {
    const char *name;
    MfmaShape shape;
  };
  // CDNA3 (gfx942) shapes, and the CDNA4 (gfx950) additions; LLVM rejects
  // a mnemonic the chip lacks, so one table serves both.
  static const Spec specs[] = {
      {"v_mfma_f32_32x32x8_f16", {32, 32, 8, 1, F16, F16}},
      {"v_mfma_f32_16x16x16_f16", {16, 16, 16, 1, F16, F16}},
      {"v_mfma_f32_32x32x4_2b_f16", {32, 32, 4, 2, F16, F16}},
      {"v_mfma_f32_16x16x4_4b_f16", {16, 16, 4, 4, F16, F16}},
      {"v_mfma_f32_4x4x4_16b_f16", {4, 4, 4, 16, F16, F16}},
      {"v_mfma_f32_32x32x8_bf16", {32, 32, 8, 1, BF16, BF16}},
      {"v_mfma_f32_16x16x16_bf16", {16, 16, 16, 1, BF16, BF16}},
      {"v_mfma_f32_32x32x4_2b_bf16", {32, 32, 4, 2, BF16, BF16}},
      {"v_mfma_f32_16x16x4_4b_bf16", {16, 16, 4, 4, BF16, BF16}},
      {"v_mfma_f32_4x4x4_16b_bf16", {4, 4, 4, 16, BF16, BF16}},
      {"v_mfma_f32_32x32x2_f32", {32, 32, 2, 1, F32, F32}},
      {"v_mfma_f32_16x16x4_f32", {16, 16, 4, 1, F32, F32}},
      {"v_mfma_f32_32x32x1_2b_f32", {32, 32, 1, 2, F32, F32}},
      {"v_mfma_f32_16x16x1_4b_f32", {16, 16, 1, 4, F32, F32}},
      {"v_mfma_f32_4x4x1_16b_f32", {4, 4, 1, 16, F32, F32}},
      {"v_mfma_i32_32x32x16_i8", {32, 32, 16, 1, I8, I8}},
      {"v_mfma_i32_16x16x32_i8", {16, 16, 32, 1, I8, I8}},
      {"v_mfma_f32_16x16x32_fp8_fp8", {16, 16, 32, 1, FP8, FP8}},
      {"v_mfma_f32_16x16x32_fp8_bf8", {16, 16, 32, 1, FP8, BF8}},
      {"v_mfma_f32_16x16x32_bf8_fp8", {16, 16, 32, 1, BF8, FP8}},
      {"v_mfma_f32_16x16x32_bf8_bf8", {16, 16, 32, 1, BF8, BF8}},
      {"v_mfma_f32_32x32x16_fp8_fp8", {32, 32, 16, 1, FP8, FP8}},
      {"v_mfma_f32_32x32x16_fp8_bf8", {32, 32, 16, 1, FP8, BF8}},
      {"v_mfma_f32_32x32x16_bf8_fp8", {32, 32, 16, 1, BF8, FP8}},
      {"v_mfma_f32_32x32x16_bf8_bf8", {32, 32, 16, 1, BF8, BF8}},
      // gfx950: 8 elements per lane.
      {"v_mfma_f32_16x16x32_f16", {16, 16, 32, 1, F16, F16}},
      {"v_mfma_f32_16x16x32_bf16", {16, 16, 32, 1, BF16, BF16}},
      {"v_mfma_f32_32x32x16_f16", {32, 32, 16, 1, F16, F16}},
      {"v_mfma_f32_32x32x16_bf16", {32, 32, 16, 1, BF16, BF16}},
      {"v_mfma_i32_16x16x64_i8", {16, 16, 64, 1, I8, I8}},
      {"v_mfma_i32_32x32x32_i8", {32, 32, 32, 1, I8, I8}},
      {"v_mfma_f32_16x16x128_f8f6f4", {16, 16, 128, 1, FP8, FP8, true}},
      {"v_mfma_f32_32x32x64_f8f6f4", {32, 32, 64, 1, FP8, FP8, true}},
  };
  shapes().clear();
  for (const Spec &s : specs) {
    shapes().push_back(s.shape);
    ops.push_back({s.name, mfma, uint16_t(shapes().size() - 1),
                   InstClass::MFMA, 1, 4});
  }
  ops.push_back({"v_accvgpr_write_b32", accMove, 0, InstClass::VALU, 1, 4});
  ops.push_back({"v_accvgpr_write", accMove, 0, InstClass::VALU, 1, 4});
  ops.push_back({"v_accvgpr_read_b32", accMove, 0, InstClass::VALU, 1, 4});
  ops.push_back({"v_accvgpr_read", accMove, 0, InstClass::VALU, 1, 4});
  ops.push_back({"v_accvgpr_mov_b32", accMove, 0, InstClass::VALU, 1, 4});
}

} // namespace mlir::rocdsl::emu
