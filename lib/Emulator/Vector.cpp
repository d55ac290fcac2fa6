//===- Vector.cpp - vector ALU: VOP1/VOP2/VOP3/VOPC/VOP3P, DPP and SDWA ---===//
//
// Each handler runs its operation for every lane EXEC enables. Float inputs
// take the VOP3 abs/neg modifiers and, when the kernel descriptor's denormal
// mode flushes, are flushed; results take clamp and omod. DPP changes which
// lane src0 is read from (and which lanes write, by row and bank mask);
// SDWA selects bytes or words of the sources and the destination.
//
// Transcendentals (v_exp_f32, v_log_f32, v_rcp_f32, v_rsq_f32, v_sqrt_f32,
// v_sin/cos_f32) are computed with the host's correctly rounded or libm
// functions: results may differ from the hardware's by its documented ULP
// error (1 ULP for most), which numerics tests must tolerate.
//
//===----------------------------------------------------------------------===//
#include "Decode.h"

#include "llvm/Support/MathExtras.h"

#include <cfenv>
#include <cmath>
#include <limits>

namespace mlir::rocdsl::emu {

namespace {

enum VOp : uint16_t {
  // f32
  VAddF32, VSubF32, VSubrevF32, VMulF32, VMulLegacyF32, VMinF32, VMaxF32,
  VFmaF32, VMadF32, VFmacF32, VMacF32, VFmamkF32, VFmaakF32, VMadmkF32,
  VMadakF32, VLdexpF32, VMin3F32, VMax3F32, VMed3F32, VMinimum3F32,
  VMaximum3F32, VDivFixupF32,
  VDivFmasF32, VFractF32, VTruncF32, VCeilF32, VFloorF32, VRndneF32,
  VFrexpMantF32, VFrexpExpI32F32, VExpF32, VLogF32, VRcpF32, VRcpIflagF32,
  VRsqF32, VSqrtF32, VSinF32, VCosF32, VExpLegacyF32, VLogLegacyF32,
  // conversions
  VCvtF32I32, VCvtF32U32, VCvtI32F32, VCvtU32F32, VCvtRpiI32F32,
  VCvtFlrI32F32, VCvtF16F32, VCvtF32F16, VCvtF32Ubyte0, VCvtF32Ubyte1,
  VCvtF32Ubyte2, VCvtF32Ubyte3, VCvtPkrtzF16F32, VCvtPkF16F32,
  VCvtPkBF16F32, VCvtF32BF16, VPackB32F16, VCvtPkU16U32, VCvtPkI16I32,
  VCvtPknormI16F32, VCvtPknormU16F32, VCvtPkFP8F32, VCvtPkBF8F32,
  VCvtF32FP8, VCvtF32BF8, VCvtPkF32FP8, VCvtPkF32BF8,
  // integer and bits
  VMov, VNot, VBfrev, VFfbhU32, VFfblB32, VFfbhI32, VAddU32, VSubU32,
  VSubrevU32, VMulLoU32, VMulHiU32, VMulHiI32, VMulU32U24, VMulI32I24,
  VMulHiU32U24, VMulHiI32I24, VMadU32U24, VMadI32I24, VAnd, VOr, VXor,
  VXnor, VLshlrev, VLshrrev, VAshrrev, VLshl, VLshr, VAshr, VMinI32, VMaxI32,
  VMinU32, VMaxU32, VMin3I32, VMax3I32, VMed3I32, VMin3U32, VMax3U32,
  VMed3U32, VAdd3U32, VLshlAddU32, VAddLshlU32, VLshlOrB32, VAndOrB32,
  VOr3B32, VXadU32, VBfeU32, VBfeI32, VBfiB32, VBfmB32, VAlignbit,
  VAlignbyte, VBitop3, VPerm, VBcnt, VMbcntLo, VMbcntHi, VSadU32, VCndmask,
  // 16-bit
  VAddF16, VSubF16, VSubrevF16, VMulF16, VFmaF16, VFmacF16, VMaxF16,
  VMinF16, VLdexpF16, VExpF16, VLogF16, VRcpF16, VRsqF16, VSqrtF16,
  VAddU16, VSubU16, VMulLoU16, VLshlrevB16, VLshrrevB16, VAshrrevI16,
  VMaxU16, VMaxI16, VMinU16, VMinI16,
  // 64-bit results
  VMovB64, VLshlrevB64, VLshrrevB64, VAshrrevI64, VLshlAddU64, VAddF64,
  VMulF64, VFmaF64, VMinF64, VMaxF64, VLdexpF64, VRcpF64, VRsqF64,
  VSqrtF64, VCvtF64F32, VCvtF64I32, VCvtF64U32, VCvtF32F64, VCvtI32F64,
  VCvtU32F64, VFractF64, VTruncF64, VFloorF64, VCeilF64, VRndneF64,
  VDivFixupF64, VDivFmasF64, VFmacF64,
};

/// What a handler needs to read sources the way the encoding says.
struct Lanes {
  ExecContext &ctx;
  const Inst &inst;
  Wave &w;
  uint64_t writeMask; // lanes that write: EXEC and DPP's row/bank masks
  int srcLane[kLanes]; // DPP: the lane src0 comes from (-1: reads 0)
  /// DPP: src0 of every lane, read before any lane writes (the destination
  /// is often the source).
  uint32_t dppSource[2][kLanes];
  bool dpp;

  Lanes(ExecContext &c, const Inst &i) : ctx(c), inst(i), w(*c.wave) {
    writeMask = w.exec();
    dpp = inst.enc == Encoding::DPP;
    if (dpp)
      setUpDPP();
  }

  void setUpDPP() {
    unsigned ctrl = inst.dppCtrl;
    uint64_t exec = w.exec();
    for (unsigned lane = 0; lane < kLanes; ++lane) {
      int from = -1;
      unsigned row = lane / 16, inRow = lane % 16;
      if (ctrl <= 0xff)
        from = (lane & ~3u) | ((ctrl >> (2 * (lane & 3))) & 3);
      else if (ctrl > 0x100 && ctrl <= 0x10f)
        from = inRow + (ctrl & 0xf) < 16 ? int(lane + (ctrl & 0xf)) : -1;
      else if (ctrl > 0x110 && ctrl <= 0x11f)
        from = inRow >= (ctrl & 0xf) ? int(lane - (ctrl & 0xf)) : -1;
      else if (ctrl > 0x120 && ctrl <= 0x12f)
        from = int(row * 16 + ((inRow + 16 - (ctrl & 0xf)) % 16));
      else if (ctrl == 0x130)
        from = lane + 1 < kLanes ? int(lane + 1) : -1;
      else if (ctrl == 0x134)
        from = int((lane + 1) % kLanes);
      else if (ctrl == 0x138)
        from = lane >= 1 ? int(lane - 1) : -1;
      else if (ctrl == 0x13c)
        from = int((lane + kLanes - 1) % kLanes);
      else if (ctrl == 0x140)
        from = int(row * 16 + 15 - inRow);
      else if (ctrl == 0x141)
        from = int((lane & ~7u) + 7 - (lane & 7));
      else if (ctrl == 0x142)
        from = row >= 1 ? int(row * 16 - 1) : -1;
      else if (ctrl == 0x143)
        from = row >= 2 ? 31 : -1;
      // A source lane out of range or disabled reads 0 with bound_ctrl;
      // otherwise the lane does not write.
      if (from >= 0 && !(exec >> from & 1))
        from = -1;
      srcLane[lane] = from;
      for (unsigned d = 0; d < 2 && d < inst.ops[inst.numDefs].count; ++d)
        dppSource[d][lane] =
            from < 0 ? 0 : readLane(w, inst.ops[inst.numDefs], from, d);
      bool rowOn = inst.rowMask >> row & 1;
      bool bankOn = inst.bankMask >> ((lane >> 2) & 3) & 1;
      if (!rowOn || !bankOn || (from < 0 && !inst.boundCtrl))
        writeMask &= ~(1ull << lane);
    }
  }

  static uint32_t select(uint32_t v, uint8_t sel, bool sext) {
    if (sel == 6)
      return v;
    if (sel <= 3) {
      uint32_t b = (v >> (8 * sel)) & 0xff;
      return sext ? uint32_t(int32_t(int8_t(b))) : b;
    }
    uint32_t h = (v >> (16 * (sel - 4))) & 0xffff;
    return sext ? uint32_t(int32_t(int16_t(h))) : h;
  }

  /// Raw 32 bits of source `i` (an index into inst.ops) for `lane`.
  uint32_t raw(unsigned i, unsigned lane, unsigned dword = 0) const {
    const Operand &op = inst.ops[i];
    if (dpp && i == inst.numDefs)
      return dword < 2 ? dppSource[dword][lane] : 0;
    uint32_t v = readLane(w, op, lane, dword);
    if (inst.enc == Encoding::SDWA) {
      unsigned s = i - inst.numDefs;
      if (s == 0)
        v = select(v, inst.src0Sel, op.sext);
      else if (s == 1)
        v = select(v, inst.src1Sel, op.sext);
    }
    return v;
  }
  uint64_t raw64(unsigned i, unsigned lane) const {
    const Operand &op = inst.ops[i];
    if (op.kind == Operand::Imm)
      return op.imm;
    return uint64_t(raw(i, lane, 0)) | (uint64_t(raw(i, lane, 1)) << 32);
  }
  float flush(float f) const {
    if (w.flushF32Denormals && std::fpclassify(f) == FP_SUBNORMAL)
      return std::copysign(0.0f, f);
    return f;
  }
  float f32(unsigned i, unsigned lane) const {
    float f = asFloat(raw(i, lane));
    const Operand &op = inst.ops[i];
    if (op.abs)
      f = std::fabs(f);
    if (op.neg)
      f = -f;
    return flush(f);
  }
  float f16(unsigned i, unsigned lane) const {
    uint32_t bits = raw(i, lane);
    // VOP3 op_sel[s] reads the high half of source s.
    if (inst.enc == Encoding::E64 && (inst.opSel >> (i - inst.numDefs) & 1))
      bits >>= 16;
    float f = halfToFloat(uint16_t(bits));
    const Operand &op = inst.ops[i];
    if (op.abs)
      f = std::fabs(f);
    if (op.neg)
      f = -f;
    return f;
  }
  double f64(unsigned i, unsigned lane) const {
    double d = asDouble(raw64(i, lane));
    const Operand &op = inst.ops[i];
    if (op.abs)
      d = std::fabs(d);
    if (op.neg)
      d = -d;
    return d;
  }
  float outF32(float r) const {
    switch (inst.omod) {
    case 1: r *= 2; break;
    case 2: r *= 4; break;
    case 3: r *= 0.5f; break;
    default: break;
    }
    if (inst.clamp)
      r = std::isnan(r) ? 0.0f : std::min(1.0f, std::max(0.0f, r));
    return flush(r);
  }
  /// Writes a 32-bit result, applying the SDWA destination select.
  void write(unsigned lane, uint32_t value, unsigned dst = 0) {
    const Operand &d = inst.ops[dst];
    if (d.kind != Operand::VReg)
      return;
    uint32_t &slot = w.v[size_t(d.reg) * kLanes + lane];
    if (inst.enc == Encoding::SDWA && inst.dstSel != 6) {
      uint32_t field, shift, mask;
      if (inst.dstSel <= 3) {
        shift = 8 * inst.dstSel;
        mask = 0xffu << shift;
        field = (value & 0xff) << shift;
      } else {
        shift = 16 * (inst.dstSel - 4);
        mask = 0xffffu << shift;
        field = (value & 0xffff) << shift;
      }
      uint32_t rest;
      if (inst.dstUnused == 2)
        rest = slot & ~mask;
      else if (inst.dstUnused == 1 && shift + (inst.dstSel <= 3 ? 8 : 16) < 32 &&
               (field >> (shift + (inst.dstSel <= 3 ? 7 : 15)) & 1))
        rest = ~(mask | ((1u << shift) - 1));
      else
        rest = 0;
      slot = field | rest;
      return;
    }
    slot = value;
  }
  void write64(unsigned lane, uint64_t value, unsigned dst = 0) {
    const Operand &d = inst.ops[dst];
    if (d.kind != Operand::VReg)
      return;
    w.v[size_t(d.reg) * kLanes + lane] = uint32_t(value);
    w.v[size_t(d.reg + 1) * kLanes + lane] = uint32_t(value >> 32);
  }
};

float roundEven(float f) { return std::nearbyint(f); }

int32_t cvtI32(double f) {
  if (std::isnan(f))
    return 0;
  if (f >= 2147483647.0)
    return std::numeric_limits<int32_t>::max();
  if (f <= -2147483648.0)
    return std::numeric_limits<int32_t>::min();
  return int32_t(f);
}
uint32_t cvtU32(double f) {
  if (std::isnan(f) || f <= 0)
    return 0;
  if (f >= 4294967295.0)
    return 0xffffffffu;
  return uint32_t(f);
}

float frexpMant(float f) {
  if (std::isnan(f) || std::isinf(f))
    return f;
  int e;
  return std::frexp(f, &e);
}

uint32_t med3u(uint32_t a, uint32_t b, uint32_t c) {
  return std::max(std::min(a, b), std::min(std::max(a, b), c));
}
int32_t med3i(int32_t a, int32_t b, int32_t c) {
  return std::max(std::min(a, b), std::min(std::max(a, b), c));
}
float med3f(float a, float b, float c) {
  if (std::isnan(a) || std::isnan(b) || std::isnan(c))
    return std::fmin(std::fmin(a, b), c);
  return std::fmax(std::fmin(a, b), std::fmin(std::fmax(a, b), c));
}

/// IEEE 754-2019 minimum and maximum: a NaN operand gives a quiet NaN,
/// and -0 orders below +0.
float minimum(float a, float b) {
  if (std::isnan(a) || std::isnan(b))
    return std::numeric_limits<float>::quiet_NaN();
  if (a == b)
    return std::signbit(a) ? a : b;
  return a < b ? a : b;
}
float maximum(float a, float b) {
  if (std::isnan(a) || std::isnan(b))
    return std::numeric_limits<float>::quiet_NaN();
  if (a == b)
    return std::signbit(a) ? b : a;
  return a > b ? a : b;
}

/// v_perm_b32: each result byte picks from the 8 bytes {src0, src1}.
uint32_t permute(uint32_t s0, uint32_t s1, uint32_t sel) {
  uint64_t bytes = (uint64_t(s0) << 32) | s1;
  uint32_t r = 0;
  for (unsigned i = 0; i < 4; ++i) {
    unsigned s = (sel >> (8 * i)) & 0xff;
    uint32_t b;
    if (s < 8)
      b = (bytes >> (8 * s)) & 0xff;
    else if (s < 12) {
      // Sign bits of bytes 1, 3, 5, 7 replicated.
      unsigned src = 2 * (s - 8) + 1;
      b = ((bytes >> (8 * src + 7)) & 1) ? 0xff : 0;
    } else if (s == 12)
      b = 0;
    else
      b = 0xff;
    r |= b << (8 * i);
  }
  return r;
}

/// The 32-bit-result operations. Operand indices: d = 0, sources 1, 2, 3.
void valu32(ExecContext &ctx, const Inst &inst) {
  Lanes L(ctx, inst);
  VOp op = VOp(inst.sub);
  const unsigned a = inst.numDefs, b = a + 1, c = a + 2;
  uint64_t mask = L.writeMask;
  // VOP3 writes a VGPR; v_readfirstlane etc. are separate handlers.
  for (unsigned lane = 0; lane < kLanes; ++lane) {
    if (!(mask >> lane & 1))
      continue;
    auto F = [&](unsigned i) { return L.f32(i, lane); };
    auto H = [&](unsigned i) { return L.f16(i, lane); };
    auto U = [&](unsigned i) { return L.raw(i, lane); };
    auto I = [&](unsigned i) { return int32_t(L.raw(i, lane)); };
    auto outF = [&](float r) { L.write(lane, asBits(L.outF32(r))); };
    auto outH = [&](float r) {
      if (inst.clamp)
        r = std::isnan(r) ? 0.0f : std::min(1.0f, std::max(0.0f, r));
      // VOP3 op_sel[3] writes the high half and keeps the low one.
      uint32_t h = floatToHalf(r);
      if (inst.opSel & 8) {
        uint32_t old = L.w.v[size_t(inst.ops[0].reg) * kLanes + lane];
        L.write(lane, (old & 0xffff) | (h << 16));
      } else {
        L.write(lane, h);
      }
    };
    auto outU = [&](uint32_t r) { L.write(lane, r); };
    switch (op) {
    case VAddF32: outF(F(a) + F(b)); break;
    case VSubF32: outF(F(a) - F(b)); break;
    case VSubrevF32: outF(F(b) - F(a)); break;
    case VMulF32: outF(F(a) * F(b)); break;
    case VMulLegacyF32: {
      float x = F(a), y = F(b);
      outF((x == 0 || y == 0) ? 0.0f : x * y);
      break;
    }
    case VMinF32: outF(std::fmin(F(a), F(b))); break;
    case VMaxF32: outF(std::fmax(F(a), F(b))); break;
    case VFmaF32: outF(std::fma(F(a), F(b), F(c))); break;
    case VMadF32: outF(F(a) * F(b) + F(c)); break;
    case VFmacF32: outF(std::fma(F(a), F(b), asFloat(L.w.v[size_t(inst.ops[0].reg) * kLanes + lane]))); break;
    case VMacF32: outF(F(a) * F(b) + asFloat(L.w.v[size_t(inst.ops[0].reg) * kLanes + lane])); break;
    // v_fmamk_f32 d, s0, K, s1 = s0 * K + s1; v_fmaak_f32 d, s0, s1, K.
    case VFmamkF32: outF(std::fma(F(a), F(b), F(c))); break;
    case VFmaakF32: outF(std::fma(F(a), F(b), F(c))); break;
    case VMadmkF32: outF(F(a) * F(b) + F(c)); break;
    case VMadakF32: outF(F(a) * F(b) + F(c)); break;
    case VLdexpF32: outF(std::ldexp(F(a), std::max(-1000, std::min(1000, I(b))))); break;
    case VMin3F32: outF(std::fmin(std::fmin(F(a), F(b)), F(c))); break;
    case VMax3F32: outF(std::fmax(std::fmax(F(a), F(b)), F(c))); break;
    case VMed3F32: outF(med3f(F(a), F(b), F(c))); break;
    // gfx950's IEEE 754-2019 minimum/maximum: NaN in, NaN out, -0 < +0.
    case VMinimum3F32: outF(minimum(minimum(F(a), F(b)), F(c))); break;
    case VMaximum3F32: outF(maximum(maximum(F(a), F(b)), F(c))); break;
    case VDivFixupF32: {
      // d = fixup(quotient a, denominator b, numerator c): special cases.
      float q = F(a), den = F(b), num = F(c);
      float r = q;
      if (std::isnan(den) || std::isnan(num))
        r = std::numeric_limits<float>::quiet_NaN();
      else if (den == 0 && num == 0)
        r = std::numeric_limits<float>::quiet_NaN();
      else if (std::isinf(den) && std::isinf(num))
        r = std::numeric_limits<float>::quiet_NaN();
      else if (den == 0 || std::isinf(num))
        r = std::copysign(INFINITY, num) * (std::signbit(den) ? -1.0f : 1.0f);
      else if (std::isinf(den))
        r = std::copysign(0.0f, num) * (std::signbit(den) ? -1.0f : 1.0f);
      else
        r = num / den; // the fixed-up quotient equals the IEEE quotient
      outF(r);
      break;
    }
    case VDivFmasF32: {
      // fma, scaled by 2^32 (or 2^-32 depending on the exponent) when VCC
      // says the division was scaled.
      float r = std::fma(F(a), F(b), F(c));
      if (L.w.vcc() >> lane & 1)
        r = std::ldexp(r, F(a) >= 2.0f || F(a) <= -2.0f ? 32 : -32) ;
      outF(r);
      break;
    }
    case VFractF32: {
      float x = F(a);
      outF(std::isinf(x) ? std::numeric_limits<float>::quiet_NaN()
                         : std::fmin(x - std::floor(x), 0x1.fffffep-1f));
      break;
    }
    case VTruncF32: outF(std::trunc(F(a))); break;
    case VCeilF32: outF(std::ceil(F(a))); break;
    case VFloorF32: outF(std::floor(F(a))); break;
    case VRndneF32: outF(roundEven(F(a))); break;
    case VFrexpMantF32: outF(frexpMant(F(a))); break;
    case VFrexpExpI32F32: {
      float x = F(a);
      int e = 0;
      if (!std::isnan(x) && !std::isinf(x))
        std::frexp(x, &e);
      outU(uint32_t(e));
      break;
    }
    case VExpF32: case VExpLegacyF32: outF(std::exp2(F(a))); break;
    case VLogF32: case VLogLegacyF32: outF(std::log2(F(a))); break;
    case VRcpF32: case VRcpIflagF32: outF(1.0f / F(a)); break;
    case VRsqF32: outF(float(1.0 / std::sqrt(double(F(a))))); break;
    case VSqrtF32: outF(std::sqrt(F(a))); break;
    // The hardware's sin/cos take revolutions: sin(2 pi x).
    case VSinF32: outF(float(std::sin(2 * M_PI * double(F(a))))); break;
    case VCosF32: outF(float(std::cos(2 * M_PI * double(F(a))))); break;
    case VCvtF32I32: outF(float(I(a))); break;
    case VCvtF32U32: outF(float(U(a))); break;
    case VCvtI32F32: outU(uint32_t(cvtI32(F(a)))); break;
    case VCvtU32F32: outU(cvtU32(F(a))); break;
    case VCvtRpiI32F32: outU(uint32_t(cvtI32(std::floor(F(a) + 0.5f)))); break;
    case VCvtFlrI32F32: outU(uint32_t(cvtI32(std::floor(F(a))))); break;
    case VCvtF16F32: outH(F(a)); break;
    case VCvtF32F16: outF(H(a)); break;
    case VCvtF32Ubyte0: outF(float(U(a) & 0xff)); break;
    case VCvtF32Ubyte1: outF(float((U(a) >> 8) & 0xff)); break;
    case VCvtF32Ubyte2: outF(float((U(a) >> 16) & 0xff)); break;
    case VCvtF32Ubyte3: outF(float(U(a) >> 24)); break;
    case VCvtPkrtzF16F32: {
      // Round toward zero.
      auto rtz = [](float f) {
        uint16_t h = floatToHalf(f);
        float back = halfToFloat(h);
        if (std::isfinite(f) && std::fabs(back) > std::fabs(f))
          h = uint16_t(h - 1);
        return uint32_t(h);
      };
      outU(rtz(F(a)) | (rtz(F(b)) << 16));
      break;
    }
    case VCvtPkF16F32:
      outU(uint32_t(floatToHalf(F(a))) | (uint32_t(floatToHalf(F(b))) << 16));
      break;
    case VCvtPkBF16F32:
      outU(uint32_t(floatToBF16(F(a))) | (uint32_t(floatToBF16(F(b))) << 16));
      break;
    case VCvtF32BF16: outF(bf16ToFloat(uint16_t(U(a)))); break;
    case VPackB32F16: {
      // op_sel picks the high half of each source.
      uint32_t lo = (inst.opSel & 1) ? U(a) >> 16 : U(a) & 0xffff;
      uint32_t hi = (inst.opSel & 2) ? U(b) >> 16 : U(b) & 0xffff;
      if (inst.ops[a].neg) lo ^= 0x8000;
      if (inst.ops[b].neg) hi ^= 0x8000;
      outU(lo | (hi << 16));
      break;
    }
    case VCvtPkU16U32:
      outU(std::min(U(a), 0xffffu) | (std::min(U(b), 0xffffu) << 16));
      break;
    case VCvtPkI16I32: {
      auto sat = [](int32_t v) {
        return uint32_t(uint16_t(std::max(-32768, std::min(32767, v))));
      };
      outU(sat(I(a)) | (sat(I(b)) << 16));
      break;
    }
    case VCvtPknormI16F32: case VCvtPknormU16F32: {
      bool s = op == VCvtPknormI16F32;
      auto norm = [&](float f) {
        if (std::isnan(f)) return 0u;
        f = std::max(s ? -1.0f : 0.0f, std::min(1.0f, f));
        return s ? uint32_t(uint16_t(int16_t(std::nearbyint(f * 32767))))
                 : uint32_t(uint16_t(std::nearbyint(f * 65535)));
      };
      outU(norm(F(a)) | (norm(F(b)) << 16));
      break;
    }
    case VCvtPkFP8F32: case VCvtPkBF8F32: {
      // Two values into the word op_sel[3] names; the other word kept.
      bool bf8 = op == VCvtPkBF8F32;
      bool fnuz = ctx.chip->fp8IsFNUZ;
      uint32_t pair = floatToFP8(F(a), bf8, fnuz, true) |
                      (uint32_t(floatToFP8(F(b), bf8, fnuz, true)) << 8);
      uint32_t old = L.w.v[size_t(inst.ops[0].reg) * kLanes + lane];
      outU((inst.opSel & 8) ? (old & 0xffff) | (pair << 16)
                            : (old & 0xffff0000u) | pair);
      break;
    }
    case VCvtF32FP8: case VCvtF32BF8: {
      unsigned byte = (inst.enc == Encoding::SDWA) ? 0 : ((inst.opSel & 3));
      uint8_t v = uint8_t(U(a) >> (8 * byte));
      outF(fp8ToFloat(v, op == VCvtF32BF8, ctx.chip->fp8IsFNUZ));
      break;
    }
    case VMov: outU(U(a)); break;
    case VNot: outU(~U(a)); break;
    case VBfrev: outU(llvm::reverseBits(U(a))); break;
    case VFfbhU32: outU(U(a) ? uint32_t(__builtin_clz(U(a))) : ~0u); break;
    case VFfblB32: outU(U(a) ? uint32_t(__builtin_ctz(U(a))) : ~0u); break;
    case VFfbhI32: {
      int32_t v = I(a);
      uint32_t u = v < 0 ? ~uint32_t(v) : uint32_t(v);
      outU((v == 0 || v == -1) ? ~0u : uint32_t(__builtin_clz(u)));
      break;
    }
    case VAddU32: {
      uint64_t r = uint64_t(U(a)) + U(b);
      outU(inst.clamp && r > 0xffffffffu ? 0xffffffffu : uint32_t(r));
      break;
    }
    case VSubU32: outU(inst.clamp && U(b) > U(a) ? 0 : U(a) - U(b)); break;
    case VSubrevU32: outU(inst.clamp && U(a) > U(b) ? 0 : U(b) - U(a)); break;
    case VMulLoU32: outU(U(a) * U(b)); break;
    case VMulHiU32: outU(uint32_t((uint64_t(U(a)) * U(b)) >> 32)); break;
    case VMulHiI32: outU(uint32_t(uint64_t(int64_t(I(a)) * I(b)) >> 32)); break;
    case VMulU32U24: outU((U(a) & 0xffffff) * (U(b) & 0xffffff)); break;
    case VMulI32I24: {
      int32_t x = int32_t(U(a) << 8) >> 8, y = int32_t(U(b) << 8) >> 8;
      outU(uint32_t(int64_t(x) * y));
      break;
    }
    case VMulHiU32U24:
      outU(uint32_t((uint64_t(U(a) & 0xffffff) * (U(b) & 0xffffff)) >> 32));
      break;
    case VMulHiI32I24: {
      int64_t x = int32_t(U(a) << 8) >> 8, y = int32_t(U(b) << 8) >> 8;
      outU(uint32_t(uint64_t(x * y) >> 32));
      break;
    }
    case VMadU32U24: outU((U(a) & 0xffffff) * (U(b) & 0xffffff) + U(c)); break;
    case VMadI32I24: {
      int32_t x = int32_t(U(a) << 8) >> 8, y = int32_t(U(b) << 8) >> 8;
      outU(uint32_t(int64_t(x) * y) + U(c));
      break;
    }
    case VAnd: outU(U(a) & U(b)); break;
    case VOr: outU(U(a) | U(b)); break;
    case VXor: outU(U(a) ^ U(b)); break;
    case VXnor: outU(~(U(a) ^ U(b))); break;
    case VLshlrev: outU(U(b) << (U(a) & 31)); break;
    case VLshrrev: outU(U(b) >> (U(a) & 31)); break;
    case VAshrrev: outU(uint32_t(I(b) >> (U(a) & 31))); break;
    case VLshl: outU(U(a) << (U(b) & 31)); break;
    case VLshr: outU(U(a) >> (U(b) & 31)); break;
    case VAshr: outU(uint32_t(I(a) >> (U(b) & 31))); break;
    case VMinI32: outU(uint32_t(std::min(I(a), I(b)))); break;
    case VMaxI32: outU(uint32_t(std::max(I(a), I(b)))); break;
    case VMinU32: outU(std::min(U(a), U(b))); break;
    case VMaxU32: outU(std::max(U(a), U(b))); break;
    case VMin3I32: outU(uint32_t(std::min(std::min(I(a), I(b)), I(c)))); break;
    case VMax3I32: outU(uint32_t(std::max(std::max(I(a), I(b)), I(c)))); break;
    case VMed3I32: outU(uint32_t(med3i(I(a), I(b), I(c)))); break;
    case VMin3U32: outU(std::min(std::min(U(a), U(b)), U(c))); break;
    case VMax3U32: outU(std::max(std::max(U(a), U(b)), U(c))); break;
    case VMed3U32: outU(med3u(U(a), U(b), U(c))); break;
    case VAdd3U32: outU(U(a) + U(b) + U(c)); break;
    case VLshlAddU32: outU((U(a) << (U(b) & 31)) + U(c)); break;
    case VAddLshlU32: outU((U(a) + U(b)) << (U(c) & 31)); break;
    case VLshlOrB32: outU((U(a) << (U(b) & 31)) | U(c)); break;
    case VAndOrB32: outU((U(a) & U(b)) | U(c)); break;
    case VOr3B32: outU(U(a) | U(b) | U(c)); break;
    case VXadU32: outU((U(a) ^ U(b)) + U(c)); break;
    case VBfeU32: case VBfeI32: {
      unsigned off = U(b) & 31, width = U(c) & 31;
      uint32_t r = 0;
      if (width) {
        r = (U(a) >> off) & ((width >= 32) ? ~0u : ((1u << width) - 1));
        if (op == VBfeI32 && (r >> (width - 1) & 1) && width < 32)
          r |= ~0u << width;
      }
      if (off + width > 32 && width) {
        // Widths past bit 31 read the bits that exist.
        r = U(a) >> off;
        if (op == VBfeI32)
          r = uint32_t(I(a) >> off);
      }
      outU(r);
      break;
    }
    case VBfiB32: outU((U(a) & U(b)) | (~U(a) & U(c))); break;
    case VBfmB32: outU(((1u << (U(a) & 31)) - 1) << (U(b) & 31)); break;
    case VAlignbit: {
      uint64_t v = (uint64_t(U(a)) << 32) | U(b);
      outU(uint32_t(v >> (U(c) & 31)));
      break;
    }
    case VAlignbyte: {
      uint64_t v = (uint64_t(U(a)) << 32) | U(b);
      outU(uint32_t(v >> (8 * (U(c) & 3))));
      break;
    }
    case VPerm: outU(permute(U(a), U(b), U(c))); break;
    case VBitop3: {
      // gfx950: each result bit is truth-table bit (s0 << 2 | s1 << 1 | s2).
      uint32_t x = U(a), y = U(b), z = U(c), r = 0;
      for (unsigned idx = 0; idx < 8; ++idx)
        if (inst.bitop3 >> idx & 1)
          r |= ((idx & 4) ? x : ~x) & ((idx & 2) ? y : ~y) & ((idx & 1) ? z : ~z);
      outU(r);
      break;
    }
    case VBcnt: outU(uint32_t(__builtin_popcount(U(a))) + U(b)); break;
    case VMbcntLo: {
      uint64_t below = (lane >= 32) ? 0xffffffffull : ((1ull << lane) - 1);
      outU(uint32_t(__builtin_popcount(U(a) & uint32_t(below))) + U(b));
      break;
    }
    case VMbcntHi: {
      uint32_t below = lane <= 32 ? 0 : uint32_t((1ull << (lane - 32)) - 1);
      outU(uint32_t(__builtin_popcount(U(a) & below)) + U(b));
      break;
    }
    case VSadU32: {
      uint32_t x = U(a), y = U(b);
      outU((x > y ? x - y : y - x) + U(c));
      break;
    }
    case VCndmask: {
      uint64_t sel = readLane64(L.w, inst.ops[c], 0);
      if (inst.ops[c].kind == Operand::VReg)
        sel = 0;
      // The select mask is read without the float modifiers; the sources
      // take them (VOP3).
      uint32_t x = U(a), y = U(b);
      if (inst.ops[a].abs) x &= 0x7fffffff;
      if (inst.ops[a].neg) x ^= 0x80000000;
      if (inst.ops[b].abs) y &= 0x7fffffff;
      if (inst.ops[b].neg) y ^= 0x80000000;
      outU((sel >> lane & 1) ? y : x);
      break;
    }
    case VAddF16: outH(H(a) + H(b)); break;
    case VSubF16: outH(H(a) - H(b)); break;
    case VSubrevF16: outH(H(b) - H(a)); break;
    case VMulF16: outH(H(a) * H(b)); break;
    case VFmaF16: outH(float(std::fma(double(H(a)), double(H(b)), double(H(c))))); break;
    case VFmacF16:
      outH(float(std::fma(double(H(a)), double(H(b)),
                          double(halfToFloat(uint16_t(L.w.v[size_t(inst.ops[0].reg) * kLanes + lane]))))));
      break;
    case VMaxF16: outH(std::fmax(H(a), H(b))); break;
    case VMinF16: outH(std::fmin(H(a), H(b))); break;
    case VLdexpF16: outH(std::ldexp(H(a), int16_t(U(b)))); break;
    case VExpF16: outH(std::exp2(H(a))); break;
    case VLogF16: outH(std::log2(H(a))); break;
    case VRcpF16: outH(1.0f / H(a)); break;
    case VRsqF16: outH(1.0f / std::sqrt(H(a))); break;
    case VSqrtF16: outH(std::sqrt(H(a))); break;
    case VAddU16: outU(uint16_t(U(a) + U(b))); break;
    case VSubU16: outU(uint16_t(U(a) - U(b))); break;
    case VMulLoU16: outU(uint16_t(U(a) * U(b))); break;
    case VLshlrevB16: outU(uint16_t(U(b) << (U(a) & 15))); break;
    case VLshrrevB16: outU(uint16_t((U(b) & 0xffff) >> (U(a) & 15))); break;
    case VAshrrevI16: outU(uint16_t(int16_t(U(b)) >> (U(a) & 15))); break;
    case VMaxU16: outU(std::max(U(a) & 0xffff, U(b) & 0xffff)); break;
    case VMinU16: outU(std::min(U(a) & 0xffff, U(b) & 0xffff)); break;
    case VMaxI16: outU(uint16_t(std::max(int16_t(U(a)), int16_t(U(b))))); break;
    case VMinI16: outU(uint16_t(std::min(int16_t(U(a)), int16_t(U(b))))); break;
    default:
      ctx.fault("internal: 32-bit VALU operation without an implementation");
      return;
    }
  }
}

/// 64-bit results (and 64-bit float ops).
void valu64(ExecContext &ctx, const Inst &inst) {
  Lanes L(ctx, inst);
  VOp op = VOp(inst.sub);
  const unsigned a = inst.numDefs, b = a + 1, c = a + 2;
  for (unsigned lane = 0; lane < kLanes; ++lane) {
    if (!(L.writeMask >> lane & 1))
      continue;
    auto U64 = [&](unsigned i) { return L.raw64(i, lane); };
    auto D = [&](unsigned i) { return L.f64(i, lane); };
    auto U = [&](unsigned i) { return L.raw(i, lane); };
    auto outD = [&](double r) {
      if (inst.omod == 1) r *= 2;
      else if (inst.omod == 2) r *= 4;
      else if (inst.omod == 3) r *= 0.5;
      if (inst.clamp)
        r = std::isnan(r) ? 0.0 : std::min(1.0, std::max(0.0, r));
      L.write64(lane, asBits64(r));
    };
    auto outF = [&](float r) { L.write(lane, asBits(L.outF32(r))); };
    switch (op) {
    case VMovB64: L.write64(lane, U64(a)); break;
    case VLshlrevB64: L.write64(lane, U64(b) << (U(a) & 63)); break;
    case VLshrrevB64: L.write64(lane, U64(b) >> (U(a) & 63)); break;
    case VAshrrevI64: L.write64(lane, uint64_t(int64_t(U64(b)) >> (U(a) & 63))); break;
    case VLshlAddU64: L.write64(lane, (U64(a) << (U(b) & 7)) + U64(c)); break;
    case VAddF64: outD(D(a) + D(b)); break;
    case VMulF64: outD(D(a) * D(b)); break;
    case VFmaF64: outD(std::fma(D(a), D(b), D(c))); break;
    case VFmacF64: outD(std::fma(D(a), D(b), asDouble(L.raw64(0, lane)))); break;
    case VMinF64: outD(std::fmin(D(a), D(b))); break;
    case VMaxF64: outD(std::fmax(D(a), D(b))); break;
    case VLdexpF64: outD(std::ldexp(D(a), std::max(-3000, std::min(3000, int32_t(U(b)))))); break;
    case VRcpF64: outD(1.0 / D(a)); break;
    case VRsqF64: outD(1.0 / std::sqrt(D(a))); break;
    case VSqrtF64: outD(std::sqrt(D(a))); break;
    case VCvtF64F32: outD(double(L.f32(a, lane))); break;
    case VCvtF64I32: outD(double(int32_t(U(a)))); break;
    case VCvtF64U32: outD(double(U(a))); break;
    case VCvtF32F64: outF(float(D(a))); break;
    case VCvtI32F64: L.write(lane, uint32_t(cvtI32(D(a)))); break;
    case VCvtU32F64: L.write(lane, cvtU32(D(a))); break;
    case VFractF64: {
      double x = D(a);
      outD(std::isinf(x) ? NAN : std::fmin(x - std::floor(x), 0x1.fffffffffffffp-1));
      break;
    }
    case VTruncF64: outD(std::trunc(D(a))); break;
    case VFloorF64: outD(std::floor(D(a))); break;
    case VCeilF64: outD(std::ceil(D(a))); break;
    case VRndneF64: outD(std::nearbyint(D(a))); break;
    case VDivFixupF64: {
      double q = D(a), den = D(b), num = D(c);
      if (std::isnan(den) || std::isnan(num) || (den == 0 && num == 0) ||
          (std::isinf(den) && std::isinf(num)))
        outD(NAN);
      else
        outD(num / den);
      (void)q;
      break;
    }
    case VDivFmasF64: {
      double r = std::fma(D(a), D(b), D(c));
      if (L.w.vcc() >> lane & 1)
        r = std::ldexp(r, D(a) >= 2.0 || D(a) <= -2.0 ? 64 : -64);
      outD(r);
      break;
    }
    default:
      ctx.fault("internal: 64-bit VALU operation without an implementation");
      return;
    }
  }
}

/// v_div_scale_f32/f64 d, vcc, s0, s1, s2: LLVM's IEEE division sequence
/// scales operands whose quotient would lose precision. Here the sequence's
/// later steps (div_fmas, div_fixup) reproduce the IEEE quotient, so scaling
/// is the identity and VCC is cleared.
void divScale(ExecContext &ctx, const Inst &inst) {
  Lanes L(ctx, inst);
  bool wide = inst.sub;
  uint64_t vcc = 0;
  for (unsigned lane = 0; lane < kLanes; ++lane) {
    if (!(L.writeMask >> lane & 1))
      continue;
    if (wide)
      L.write64(lane, asBits64(L.f64(2, lane)));
    else
      L.write(lane, asBits(L.f32(2, lane)));
  }
  Wave &w = *ctx.wave;
  uint64_t keep = w.exec();
  writeScalar64(w, inst.ops[1], (readScalar64(w, inst.ops[1]) & ~keep) | vcc);
}

/// Carry-in/out integer ops: v_add_co_u32 d, sdst, a, b; v_addc_co_u32 d,
/// sdst, a, b, cin; v_sub*_co; v_mad_u64_u32 d64, sdst, a, b, c64.
enum CarryOp : uint16_t { CAdd, CAddc, CSub, CSubb, CSubrev, CSubbrev, CMadU64, CMadI64 };

void valuCarry(ExecContext &ctx, const Inst &inst) {
  Lanes L(ctx, inst);
  Wave &w = *ctx.wave;
  CarryOp op = CarryOp(inst.sub);
  // VOP2 forms print vcc as the carry-out; numDefs is 2 (d, sdst).
  const unsigned a = 2, b = 3, c = 4;
  uint64_t carryIn = 0;
  if (op == CAddc || op == CSubb || op == CSubbrev)
    carryIn = readLane64(w, inst.ops[c], 0);
  uint64_t carry = 0;
  uint64_t exec = w.exec();
  for (unsigned lane = 0; lane < kLanes; ++lane) {
    if (!(exec >> lane & 1))
      continue;
    uint64_t x = L.raw(a, lane), y = L.raw(b, lane), ci = carryIn >> lane & 1;
    uint64_t r = 0;
    bool co = false;
    switch (op) {
    case CAdd: r = x + y; co = r >> 32; break;
    case CAddc: r = x + y + ci; co = r >> 32; break;
    case CSub: r = x - y; co = y > x; break;
    case CSubb: r = x - y - ci; co = y + ci > x; break;
    case CSubrev: r = y - x; co = x > y; break;
    case CSubbrev: r = y - x - ci; co = x + ci > y; break;
    case CMadU64: {
      unsigned __int128 m = (unsigned __int128)(x) * y + L.raw64(c, lane);
      L.write64(lane, uint64_t(m));
      co = (m >> 64) != 0;
      carry |= uint64_t(co) << lane;
      continue;
    }
    case CMadI64: {
      __int128 px = int64_t(int32_t(uint32_t(x)));
      __int128 py = int64_t(int32_t(uint32_t(y)));
      __int128 pc = int64_t(L.raw64(c, lane));
      __int128 m = px * py + pc;
      L.write64(lane, uint64_t(m));
      co = m != (__int128)(int64_t)m;
      carry |= uint64_t(co) << lane;
      continue;
    }
    }
    if (inst.clamp && co)
      r = (op == CAdd || op == CAddc) ? 0xffffffffu : 0;
    L.write(lane, uint32_t(r));
    carry |= uint64_t(co) << lane;
  }
  // Lanes EXEC disables write 0 carries.
  writeScalar64(w, inst.ops[1], carry);
}

/// v_cmp_*/v_cmpx_*: sub = pred | type << 4 | x << 8 | class << 9.
enum CmpType : uint8_t { TF32, TF16, TF64, TI32, TU32, TI64, TU64, TI16, TU16 };

bool classMatch(double v, uint32_t mask, bool isHalfDenorm, bool isSub) {
  bool neg = std::signbit(v);
  if (std::isnan(v))
    return mask & 3; // signaling (bit 0) or quiet (bit 1): hosts cannot tell
  if (std::isinf(v))
    return mask & (neg ? (1u << 2) : (1u << 9));
  if (v == 0)
    return mask & (neg ? (1u << 5) : (1u << 6));
  if (isSub || isHalfDenorm)
    return mask & (neg ? (1u << 4) : (1u << 7));
  return mask & (neg ? (1u << 3) : (1u << 8));
}

void vcmp(ExecContext &ctx, const Inst &inst) {
  Lanes L(ctx, inst);
  Wave &w = *ctx.wave;
  unsigned pred = inst.sub & 0xf;
  CmpType type = CmpType((inst.sub >> 4) & 0xf);
  bool x = inst.sub >> 8 & 1, cls = inst.sub >> 9 & 1;
  // VOPC e32 prints vcc as the destination; cmpx on gfx9 also writes sdst.
  const unsigned a = 1, b = 2;
  uint64_t result = 0, exec = w.exec();
  for (unsigned lane = 0; lane < kLanes; ++lane) {
    if (!(exec >> lane & 1))
      continue;
    if (inst.enc == Encoding::DPP && !(L.writeMask >> lane & 1))
      continue;
    bool r = false;
    if (cls) {
      uint32_t mask = L.raw(b, lane);
      if (type == TF32) {
        float f = asFloat(L.raw(a, lane));
        r = classMatch(f, mask, false, std::fpclassify(f) == FP_SUBNORMAL);
      } else if (type == TF16) {
        uint16_t h = uint16_t(L.raw(a, lane));
        bool sub = (h & 0x7c00) == 0 && (h & 0x3ff);
        r = classMatch(halfToFloat(h), mask, sub, false);
      } else {
        double d = asDouble(L.raw64(a, lane));
        r = classMatch(d, mask, false, std::fpclassify(d) == FP_SUBNORMAL);
      }
    } else if (type <= TF64) {
      double p, q;
      if (type == TF32) { p = L.f32(a, lane); q = L.f32(b, lane); }
      else if (type == TF16) { p = L.f16(a, lane); q = L.f16(b, lane); }
      else { p = L.f64(a, lane); q = L.f64(b, lane); }
      bool unord = std::isnan(p) || std::isnan(q);
      switch (pred) {
      case 0: r = false; break;                 // f
      case 1: r = p < q; break;                 // lt
      case 2: r = p == q; break;                // eq
      case 3: r = p <= q; break;                // le
      case 4: r = p > q; break;                 // gt
      case 5: r = !unord && p != q; break;      // lg
      case 6: r = p >= q; break;                // ge
      case 7: r = !unord; break;                // o
      case 8: r = unord; break;                 // u
      case 9: r = !(p >= q); break;             // nge
      case 10: r = unord || p == q; break;      // nlg
      case 11: r = !(p > q); break;             // ngt
      case 12: r = !(p <= q); break;            // nle
      case 13: r = unord || p != q; break;      // neq
      case 14: r = !(p < q); break;             // nlt
      case 15: r = true; break;                 // tru
      }
    } else {
      int64_t p, q;
      switch (type) {
      case TI32: p = int32_t(L.raw(a, lane)); q = int32_t(L.raw(b, lane)); break;
      case TU32: p = L.raw(a, lane); q = L.raw(b, lane); break;
      case TI16: p = int16_t(L.raw(a, lane)); q = int16_t(L.raw(b, lane)); break;
      case TU16: p = uint16_t(L.raw(a, lane)); q = uint16_t(L.raw(b, lane)); break;
      case TI64: p = int64_t(L.raw64(a, lane)); q = int64_t(L.raw64(b, lane)); break;
      default: {
        uint64_t u = L.raw64(a, lane), v = L.raw64(b, lane);
        // Unsigned 64-bit: compare by order, not by value in int64.
        p = u < v ? -1 : u > v ? 1 : 0;
        q = 0;
        break;
      }
      }
      switch (pred) {
      case 0: r = false; break;
      case 1: r = p < q; break;
      case 2: r = p == q; break;
      case 3: r = p <= q; break;
      case 4: r = p > q; break;
      case 5: r = p != q; break;
      case 6: r = p >= q; break;
      case 7: r = true; break;
      }
    }
    result |= uint64_t(r) << lane;
  }
  writeScalar64(w, inst.ops[0], result);
  if (x)
    w.setExec(result);
}

/// v_readlane_b32 s, v, lane; v_readfirstlane_b32 s, v; v_writelane_b32 v,
/// s, lane.
void laneOp(ExecContext &ctx, const Inst &inst) {
  Wave &w = *ctx.wave;
  switch (inst.sub) {
  case 0: { // readlane
    unsigned lane = readScalar32(w, inst.ops[2]) & 63;
    writeScalar32(w, inst.ops[0], readLane(w, inst.ops[1], lane));
    return;
  }
  case 1: { // readfirstlane
    uint64_t exec = w.exec();
    unsigned lane = exec ? __builtin_ctzll(exec) : 0;
    writeScalar32(w, inst.ops[0], readLane(w, inst.ops[1], lane));
    return;
  }
  case 2: { // writelane: ignores EXEC
    unsigned lane = readScalar32(w, inst.ops[2]) & 63;
    if (inst.ops[0].kind == Operand::VReg)
      w.vreg(inst.ops[0].reg)[lane] = readScalar32(w, inst.ops[1]);
    return;
  }
  }
}

/// v_permlane16_swap_b32 / v_permlane32_swap_b32 (gfx950) vdst, vsrc: swap
/// the odd rows (16) or upper half (32) of vdst with the even rows / lower
/// half of vsrc. Both registers are written.
void permlaneSwap(ExecContext &ctx, const Inst &inst) {
  Wave &w = *ctx.wave;
  if (inst.ops[0].kind != Operand::VReg || inst.ops[1].kind != Operand::VReg)
    return ctx.fault("v_permlane*_swap needs two VGPRs");
  uint32_t *d = w.vreg(inst.ops[0].reg), *s = w.vreg(inst.ops[1].reg);
  uint64_t exec = w.exec();
  unsigned span = inst.sub; // 16 or 32
  for (unsigned lane = 0; lane < kLanes; ++lane) {
    bool upper = (lane / span) & 1;
    if (!upper)
      continue;
    unsigned other = lane - span;
    // Lanes move in pairs: both must be enabled (fetch_inactive off).
    if (!((exec >> lane & 1) && (exec >> other & 1)))
      continue;
    std::swap(d[lane], s[other]);
  }
}

/// VOP3P: packed 16-bit ops and gfx940's packed f32 ops (64-bit operands).
enum PkOp : uint16_t {
  PkAddF16, PkMulF16, PkFmaF16, PkMaxF16, PkMinF16, PkAddU16, PkSubU16,
  PkAddI16, PkSubI16, PkMulLoU16, PkLshlrevB16, PkLshrrevB16, PkAshrrevI16,
  PkMaxI16, PkMinI16, PkMaxU16, PkMinU16, PkMadU16, PkMadI16,
  PkFmaF32, PkMulF32, PkAddF32, PkMovB32, FmaMixF32, FmaMixloF16,
  FmaMixhiF16, Dot2F32F16, Dot2F32BF16, Dot2cF32F16,
};

void vop3p(ExecContext &ctx, const Inst &inst) {
  Lanes L(ctx, inst);
  Wave &w = *ctx.wave;
  PkOp op = PkOp(inst.sub);
  unsigned nsrc = inst.numOps - 1;
  uint8_t opSelHi = inst.hasOpSelHi ? inst.opSelHi : 0xff;
  bool f32pk = op == PkFmaF32 || op == PkMulF32 || op == PkAddF32 || op == PkMovB32;
  bool mix = op == FmaMixF32 || op == FmaMixloF16 || op == FmaMixhiF16;
  // v_fma_mix* sources are f32 unless op_sel_hi says f16: its default is 0.
  if (mix && !inst.hasOpSelHi)
    opSelHi = 0;
  for (unsigned lane = 0; lane < kLanes; ++lane) {
    if (!(L.writeMask >> lane & 1))
      continue;
    if (f32pk) {
      // Each source is a register pair; op_sel picks the dword for the low
      // result, op_sel_hi for the high one. Constants are replicated.
      auto src = [&](unsigned s, bool hi) -> float {
        const Operand &o = inst.ops[1 + s];
        bool sel = hi ? (opSelHi >> s & 1) : (inst.opSel >> s & 1);
        uint32_t bits = o.kind == Operand::Imm ? uint32_t(o.imm)
                                               : L.raw(1 + s, lane, sel ? 1 : 0);
        float f = asFloat(bits);
        if ((hi ? inst.negHi : inst.negLo) >> s & 1)
          f = -f;
        return L.flush(f);
      };
      float r[2];
      for (int h = 0; h < 2; ++h) {
        switch (op) {
        case PkFmaF32: r[h] = std::fma(src(0, h), src(1, h), src(2, h)); break;
        case PkMulF32: r[h] = src(0, h) * src(1, h); break;
        case PkAddF32: r[h] = src(0, h) + src(1, h); break;
        default: {
          // v_pk_mov_b32 d, s0, s1 op_sel:[a,b]: low from s0.dword[a], high
          // from s1.dword[b].
          const Operand &o = inst.ops[1 + h];
          bool sel = inst.opSel >> h & 1;
          r[h] = asFloat(o.kind == Operand::Imm ? uint32_t(o.imm)
                                                : L.raw(1 + h, lane, sel));
          break;
        }
        }
        if (inst.clamp && op != PkMovB32)
          r[h] = std::isnan(r[h]) ? 0.0f : std::min(1.0f, std::max(0.0f, r[h]));
      }
      L.write64(lane, uint64_t(asBits(op == PkMovB32 ? r[0] : L.flush(r[0]))) |
                          (uint64_t(asBits(op == PkMovB32 ? r[1] : L.flush(r[1]))) << 32));
      continue;
    }
    if (mix) {
      // v_fma_mix*: each source is f32, or f16 when op_sel_hi[s] is set (the
      // half op_sel[s] picks). neg_lo is neg, neg_hi is abs.
      auto src = [&](unsigned s) -> float {
        uint32_t bits = L.raw(1 + s, lane);
        float f;
        if (opSelHi >> s & 1)
          f = halfToFloat(uint16_t((inst.opSel >> s & 1) ? bits >> 16 : bits));
        else
          f = asFloat(bits);
        if (inst.negHi >> s & 1)
          f = std::fabs(f);
        if (inst.negLo >> s & 1)
          f = -f;
        return f;
      };
      float r = float(std::fma(double(src(0)), double(src(1)), double(src(2))));
      if (op == FmaMixF32) {
        r = std::fma(src(0), src(1), src(2));
        if (inst.clamp)
          r = std::isnan(r) ? 0.0f : std::min(1.0f, std::max(0.0f, r));
        L.write(lane, asBits(r));
      } else {
        if (inst.clamp)
          r = std::isnan(r) ? 0.0f : std::min(1.0f, std::max(0.0f, r));
        uint32_t old = w.v[size_t(inst.ops[0].reg) * kLanes + lane];
        uint32_t h = floatToHalf(r);
        L.write(lane, op == FmaMixloF16 ? (old & 0xffff0000u) | h
                                        : (old & 0xffffu) | (h << 16));
      }
      continue;
    }
    if (op == Dot2F32F16 || op == Dot2F32BF16 || op == Dot2cF32F16) {
      auto half = [&](unsigned s, bool hi) {
        uint32_t bits = L.raw(1 + s, lane);
        uint16_t v = uint16_t(hi ? bits >> 16 : bits);
        float f = op == Dot2F32BF16 ? bf16ToFloat(v) : halfToFloat(v);
        if ((hi ? inst.negHi : inst.negLo) >> s & 1)
          f = -f;
        return double(f);
      };
      double acc = op == Dot2cF32F16
                       ? double(asFloat(w.v[size_t(inst.ops[0].reg) * kLanes + lane]))
                       : double(asFloat(L.raw(3, lane)));
      double r = half(0, false) * half(1, false) + half(0, true) * half(1, true) + acc;
      float out = float(r);
      if (inst.clamp)
        out = std::min(1.0f, std::max(0.0f, out));
      L.write(lane, asBits(out));
      continue;
    }
    // Packed 16-bit: op_sel[s] picks the half for the low result,
    // op_sel_hi[s] for the high result.
    auto half = [&](unsigned s, bool hi) -> uint16_t {
      if (s >= nsrc)
        return 0;
      uint32_t bits = L.raw(1 + s, lane);
      bool sel = hi ? (opSelHi >> s & 1) : (inst.opSel >> s & 1);
      uint16_t v = uint16_t(sel ? bits >> 16 : bits);
      if (inst.ops[1 + s].kind == Operand::Imm && sel && !inst.ops[1 + s].inlineFloat)
        v = uint16_t(bits); // a 16-bit constant applies to both halves
      if (inst.ops[1 + s].kind == Operand::Imm && inst.ops[1 + s].inlineFloat)
        v = uint16_t(bits);
      if ((hi ? inst.negHi : inst.negLo) >> s & 1)
        v ^= 0x8000;
      return v;
    };
    uint32_t result = 0;
    for (int h = 0; h < 2; ++h) {
      uint16_t x = half(0, h), y = half(1, h), z = half(2, h);
      float fx = halfToFloat(x), fy = halfToFloat(y), fz = halfToFloat(z);
      uint16_t r = 0;
      bool isFloat = true;
      float fr = 0;
      switch (op) {
      case PkAddF16: fr = fx + fy; break;
      case PkMulF16: fr = fx * fy; break;
      case PkFmaF16: fr = float(std::fma(double(fx), double(fy), double(fz))); break;
      case PkMaxF16: fr = std::fmax(fx, fy); break;
      case PkMinF16: fr = std::fmin(fx, fy); break;
      default: isFloat = false; break;
      }
      if (isFloat) {
        if (inst.clamp)
          fr = std::isnan(fr) ? 0.0f : std::min(1.0f, std::max(0.0f, fr));
        r = floatToHalf(fr);
      } else {
        switch (op) {
        case PkAddU16: case PkAddI16: r = uint16_t(x + y); break;
        case PkSubU16: case PkSubI16: r = uint16_t(x - y); break;
        case PkMulLoU16: r = uint16_t(uint32_t(x) * y); break;
        case PkLshlrevB16: r = uint16_t(y << (x & 15)); break;
        case PkLshrrevB16: r = uint16_t(y >> (x & 15)); break;
        case PkAshrrevI16: r = uint16_t(int16_t(y) >> (x & 15)); break;
        case PkMaxI16: r = uint16_t(std::max(int16_t(x), int16_t(y))); break;
        case PkMinI16: r = uint16_t(std::min(int16_t(x), int16_t(y))); break;
        case PkMaxU16: r = std::max(x, y); break;
        case PkMinU16: r = std::min(x, y); break;
        case PkMadU16: r = uint16_t(uint32_t(x) * y + z); break;
        case PkMadI16: r = uint16_t(int16_t(x) * int16_t(y) + int16_t(z)); break;
        default: break;
        }
      }
      result |= uint32_t(r) << (16 * h);
    }
    L.write(lane, result);
  }
}

} // namespace

void registerVectorOps(std::vector<OpInfo> &ops) {
  struct V {
    const char *name;
    uint16_t op;
    uint8_t floatBytes;
  };
  const V ops32[] = {
      {"v_add_f32", VAddF32, 4}, {"v_sub_f32", VSubF32, 4},
      {"v_subrev_f32", VSubrevF32, 4}, {"v_mul_f32", VMulF32, 4},
      {"v_mul_legacy_f32", VMulLegacyF32, 4}, {"v_min_f32", VMinF32, 4},
      {"v_max_f32", VMaxF32, 4}, {"v_fma_f32", VFmaF32, 4},
      {"v_mad_f32", VMadF32, 4}, {"v_fmac_f32", VFmacF32, 4},
      {"v_mac_f32", VMacF32, 4}, {"v_fmamk_f32", VFmamkF32, 4},
      {"v_fmaak_f32", VFmaakF32, 4}, {"v_madmk_f32", VMadmkF32, 4},
      {"v_madak_f32", VMadakF32, 4}, {"v_ldexp_f32", VLdexpF32, 4},
      {"v_min3_f32", VMin3F32, 4}, {"v_max3_f32", VMax3F32, 4},
      {"v_med3_f32", VMed3F32, 4}, {"v_div_fixup_f32", VDivFixupF32, 4},
      {"v_minimum3_f32", VMinimum3F32, 4}, {"v_maximum3_f32", VMaximum3F32, 4},
      {"v_div_fmas_f32", VDivFmasF32, 4}, {"v_fract_f32", VFractF32, 4},
      {"v_trunc_f32", VTruncF32, 4}, {"v_ceil_f32", VCeilF32, 4},
      {"v_floor_f32", VFloorF32, 4}, {"v_rndne_f32", VRndneF32, 4},
      {"v_frexp_mant_f32", VFrexpMantF32, 4},
      {"v_frexp_exp_i32_f32", VFrexpExpI32F32, 4},
      {"v_cvt_f32_i32", VCvtF32I32, 0}, {"v_cvt_f32_u32", VCvtF32U32, 0},
      {"v_cvt_i32_f32", VCvtI32F32, 4}, {"v_cvt_u32_f32", VCvtU32F32, 4},
      {"v_cvt_rpi_i32_f32", VCvtRpiI32F32, 4},
      {"v_cvt_flr_i32_f32", VCvtFlrI32F32, 4},
      {"v_cvt_f16_f32", VCvtF16F32, 4}, {"v_cvt_f32_f16", VCvtF32F16, 2},
      {"v_cvt_f32_ubyte0", VCvtF32Ubyte0, 0},
      {"v_cvt_f32_ubyte1", VCvtF32Ubyte1, 0},
      {"v_cvt_f32_ubyte2", VCvtF32Ubyte2, 0},
      {"v_cvt_f32_ubyte3", VCvtF32Ubyte3, 0},
      {"v_cvt_pkrtz_f16_f32", VCvtPkrtzF16F32, 4},
      {"v_cvt_pk_f16_f32", VCvtPkF16F32, 4},
      {"v_cvt_pk_bf16_f32", VCvtPkBF16F32, 4},
      {"v_cvt_f32_bf16", VCvtF32BF16, 0}, {"v_pack_b32_f16", VPackB32F16, 2},
      {"v_cvt_pk_u16_u32", VCvtPkU16U32, 0},
      {"v_cvt_pk_i16_i32", VCvtPkI16I32, 0},
      {"v_cvt_pknorm_i16_f32", VCvtPknormI16F32, 4},
      {"v_cvt_pknorm_u16_f32", VCvtPknormU16F32, 4},
      {"v_cvt_pk_fp8_f32", VCvtPkFP8F32, 4},
      {"v_cvt_pk_bf8_f32", VCvtPkBF8F32, 4},
      {"v_cvt_f32_fp8", VCvtF32FP8, 0}, {"v_cvt_f32_bf8", VCvtF32BF8, 0},
      {"v_mov_b32", VMov, 4}, {"v_not_b32", VNot, 0},
      {"v_bfrev_b32", VBfrev, 0}, {"v_ffbh_u32", VFfbhU32, 0},
      {"v_ffbl_b32", VFfblB32, 0}, {"v_ffbh_i32", VFfbhI32, 0},
      {"v_add_u32", VAddU32, 0}, {"v_sub_u32", VSubU32, 0},
      {"v_subrev_u32", VSubrevU32, 0}, {"v_add_nc_u32", VAddU32, 0},
      {"v_mul_lo_u32", VMulLoU32, 0}, {"v_mul_hi_u32", VMulHiU32, 0},
      {"v_mul_hi_i32", VMulHiI32, 0}, {"v_mul_u32_u24", VMulU32U24, 0},
      {"v_mul_i32_i24", VMulI32I24, 0},
      {"v_mul_hi_u32_u24", VMulHiU32U24, 0},
      {"v_mul_hi_i32_i24", VMulHiI32I24, 0},
      {"v_mad_u32_u24", VMadU32U24, 0}, {"v_mad_i32_i24", VMadI32I24, 0},
      {"v_and_b32", VAnd, 0}, {"v_or_b32", VOr, 0}, {"v_xor_b32", VXor, 0},
      {"v_xnor_b32", VXnor, 0}, {"v_lshlrev_b32", VLshlrev, 0},
      {"v_lshrrev_b32", VLshrrev, 0}, {"v_ashrrev_i32", VAshrrev, 0},
      {"v_lshl_b32", VLshl, 0}, {"v_lshr_b32", VLshr, 0},
      {"v_ashr_i32", VAshr, 0}, {"v_min_i32", VMinI32, 0},
      {"v_max_i32", VMaxI32, 0}, {"v_min_u32", VMinU32, 0},
      {"v_max_u32", VMaxU32, 0}, {"v_min3_i32", VMin3I32, 0},
      {"v_max3_i32", VMax3I32, 0}, {"v_med3_i32", VMed3I32, 0},
      {"v_min3_u32", VMin3U32, 0}, {"v_max3_u32", VMax3U32, 0},
      {"v_med3_u32", VMed3U32, 0}, {"v_add3_u32", VAdd3U32, 0},
      {"v_lshl_add_u32", VLshlAddU32, 0}, {"v_add_lshl_u32", VAddLshlU32, 0},
      {"v_lshl_or_b32", VLshlOrB32, 0}, {"v_and_or_b32", VAndOrB32, 0},
      {"v_or3_b32", VOr3B32, 0}, {"v_xad_u32", VXadU32, 0},
      {"v_bfe_u32", VBfeU32, 0}, {"v_bfe_i32", VBfeI32, 0},
      {"v_bfi_b32", VBfiB32, 0}, {"v_bfm_b32", VBfmB32, 0},
      {"v_alignbit_b32", VAlignbit, 0}, {"v_alignbyte_b32", VAlignbyte, 0},
      {"v_perm_b32", VPerm, 0}, {"v_bitop3_b32", VBitop3, 0}, {"v_bcnt_u32_b32", VBcnt, 0},
      {"v_mbcnt_lo_u32_b32", VMbcntLo, 0},
      {"v_mbcnt_hi_u32_b32", VMbcntHi, 0}, {"v_sad_u32", VSadU32, 0},
      {"v_cndmask_b32", VCndmask, 4},
      {"v_add_f16", VAddF16, 2}, {"v_sub_f16", VSubF16, 2},
      {"v_subrev_f16", VSubrevF16, 2}, {"v_mul_f16", VMulF16, 2},
      {"v_fma_f16", VFmaF16, 2}, {"v_fmac_f16", VFmacF16, 2},
      {"v_max_f16", VMaxF16, 2}, {"v_min_f16", VMinF16, 2},
      {"v_ldexp_f16", VLdexpF16, 2}, {"v_add_u16", VAddU16, 0},
      {"v_sub_u16", VSubU16, 0}, {"v_mul_lo_u16", VMulLoU16, 0},
      {"v_lshlrev_b16", VLshlrevB16, 0}, {"v_lshrrev_b16", VLshrrevB16, 0},
      {"v_ashrrev_i16", VAshrrevI16, 0}, {"v_max_u16", VMaxU16, 0},
      {"v_max_i16", VMaxI16, 0}, {"v_min_u16", VMinU16, 0},
      {"v_min_i16", VMinI16, 0},
  };
  for (const V &v : ops32)
    ops.push_back({v.name, valu32, v.op, InstClass::VALU, 1, v.floatBytes});
  const V trans[] = {
      {"v_exp_f32", VExpF32, 4},     {"v_log_f32", VLogF32, 4},
      {"v_rcp_f32", VRcpF32, 4},     {"v_rcp_iflag_f32", VRcpIflagF32, 4},
      {"v_rsq_f32", VRsqF32, 4},     {"v_sqrt_f32", VSqrtF32, 4},
      {"v_sin_f32", VSinF32, 4},     {"v_cos_f32", VCosF32, 4},
      {"v_exp_legacy_f32", VExpLegacyF32, 4},
      {"v_log_legacy_f32", VLogLegacyF32, 4},
      {"v_exp_f16", VExpF16, 2},     {"v_log_f16", VLogF16, 2},
      {"v_rcp_f16", VRcpF16, 2},     {"v_rsq_f16", VRsqF16, 2},
      {"v_sqrt_f16", VSqrtF16, 2},
  };
  for (const V &v : trans)
    ops.push_back({v.name, valu32, v.op, InstClass::Trans, 1, v.floatBytes});
  const V ops64[] = {
      {"v_mov_b64", VMovB64, 8},         {"v_lshlrev_b64", VLshlrevB64, 0},
      {"v_lshrrev_b64", VLshrrevB64, 0}, {"v_ashrrev_i64", VAshrrevI64, 0},
      {"v_lshl_add_u64", VLshlAddU64, 0}, {"v_add_f64", VAddF64, 8},
      {"v_mul_f64", VMulF64, 8},         {"v_fma_f64", VFmaF64, 8},
      {"v_fmac_f64", VFmacF64, 8},
      {"v_min_f64", VMinF64, 8},         {"v_max_f64", VMaxF64, 8},
      {"v_ldexp_f64", VLdexpF64, 8},     {"v_rcp_f64", VRcpF64, 8},
      {"v_rsq_f64", VRsqF64, 8},         {"v_sqrt_f64", VSqrtF64, 8},
      {"v_cvt_f64_f32", VCvtF64F32, 4},  {"v_cvt_f64_i32", VCvtF64I32, 0},
      {"v_cvt_f64_u32", VCvtF64U32, 0},  {"v_cvt_f32_f64", VCvtF32F64, 8},
      {"v_cvt_i32_f64", VCvtI32F64, 8},  {"v_cvt_u32_f64", VCvtU32F64, 8},
      {"v_fract_f64", VFractF64, 8},     {"v_trunc_f64", VTruncF64, 8},
      {"v_floor_f64", VFloorF64, 8},     {"v_ceil_f64", VCeilF64, 8},
      {"v_rndne_f64", VRndneF64, 8},     {"v_div_fixup_f64", VDivFixupF64, 8},
      {"v_div_fmas_f64", VDivFmasF64, 8},
  };
  for (const V &v : ops64)
    ops.push_back({v.name, valu64, v.op, InstClass::VALU, 1, v.floatBytes});
  ops.push_back({"v_div_scale_f32", divScale, 0, InstClass::VALU, 2, 4});
  ops.push_back({"v_div_scale_f64", divScale, 1, InstClass::VALU, 2, 8});
  const V carries[] = {
      {"v_add_co_u32", CAdd, 0},       {"v_addc_co_u32", CAddc, 0},
      {"v_sub_co_u32", CSub, 0},       {"v_subb_co_u32", CSubb, 0},
      {"v_subrev_co_u32", CSubrev, 0}, {"v_subbrev_co_u32", CSubbrev, 0},
      {"v_mad_u64_u32", CMadU64, 0},   {"v_mad_i64_i32", CMadI64, 0},
  };
  for (const V &v : carries)
    ops.push_back({v.name, valuCarry, v.op, InstClass::VALU, 2, 0});
  // Compares.
  static std::vector<std::string> names;
  names.reserve(1024);
  const char *fpreds[] = {"f", "lt", "eq", "le", "gt", "lg", "ge", "o",
                          "u", "nge", "nlg", "ngt", "nle", "neq", "nlt", "tru"};
  const char *ipreds[] = {"f", "lt", "eq", "le", "gt", "ne", "ge", "t"};
  struct T {
    const char *suffix;
    CmpType type;
    bool isFloat;
    uint8_t bytes;
  };
  const T types[] = {{"f32", TF32, true, 4}, {"f16", TF16, true, 2},
                     {"f64", TF64, true, 8}, {"i32", TI32, false, 0},
                     {"u32", TU32, false, 0}, {"i64", TI64, false, 0},
                     {"u64", TU64, false, 0}, {"i16", TI16, false, 0},
                     {"u16", TU16, false, 0}};
  for (const T &t : types) {
    unsigned n = t.isFloat ? 16 : 8;
    for (unsigned p = 0; p < n; ++p)
      for (int x = 0; x < 2; ++x) {
        names.push_back(std::string(x ? "v_cmpx_" : "v_cmp_") +
                        (t.isFloat ? fpreds[p] : ipreds[p]) + "_" + t.suffix);
        ops.push_back({names.back().c_str(), vcmp,
                       uint16_t(p | (t.type << 4) | (x << 8)), InstClass::VALU,
                       1, t.bytes});
      }
    if (t.isFloat)
      for (int x = 0; x < 2; ++x) {
        names.push_back(std::string(x ? "v_cmpx_class_" : "v_cmp_class_") +
                        t.suffix);
        ops.push_back({names.back().c_str(), vcmp,
                       uint16_t((t.type << 4) | (x << 8) | (1 << 9)),
                       InstClass::VALU, 1, t.bytes});
      }
  }
  ops.push_back({"v_readlane_b32", laneOp, 0, InstClass::VALU, 1, 0});
  ops.push_back({"v_readfirstlane_b32", laneOp, 1, InstClass::VALU, 1, 0});
  ops.push_back({"v_writelane_b32", laneOp, 2, InstClass::VALU, 1, 0});
  ops.push_back({"v_permlane16_swap_b32", permlaneSwap, 16, InstClass::VALU, 2, 0});
  ops.push_back({"v_permlane32_swap_b32", permlaneSwap, 32, InstClass::VALU, 2, 0});
  const V pk[] = {
      {"v_pk_add_f16", PkAddF16, 2},   {"v_pk_mul_f16", PkMulF16, 2},
      {"v_pk_fma_f16", PkFmaF16, 2},   {"v_pk_max_f16", PkMaxF16, 2},
      {"v_pk_min_f16", PkMinF16, 2},   {"v_pk_add_u16", PkAddU16, 0},
      {"v_pk_sub_u16", PkSubU16, 0},   {"v_pk_add_i16", PkAddI16, 0},
      {"v_pk_sub_i16", PkSubI16, 0},   {"v_pk_mul_lo_u16", PkMulLoU16, 0},
      {"v_pk_lshlrev_b16", PkLshlrevB16, 0},
      {"v_pk_lshrrev_b16", PkLshrrevB16, 0},
      {"v_pk_ashrrev_i16", PkAshrrevI16, 0},
      {"v_pk_max_i16", PkMaxI16, 0},   {"v_pk_min_i16", PkMinI16, 0},
      {"v_pk_max_u16", PkMaxU16, 0},   {"v_pk_min_u16", PkMinU16, 0},
      {"v_pk_mad_u16", PkMadU16, 0},   {"v_pk_mad_i16", PkMadI16, 0},
      {"v_pk_fma_f32", PkFmaF32, 4},   {"v_pk_mul_f32", PkMulF32, 4},
      {"v_pk_add_f32", PkAddF32, 4},   {"v_pk_mov_b32", PkMovB32, 4},
      {"v_fma_mix_f32", FmaMixF32, 4}, {"v_fma_mixlo_f16", FmaMixloF16, 4},
      {"v_fma_mixhi_f16", FmaMixhiF16, 4},
      {"v_dot2_f32_f16", Dot2F32F16, 2}, {"v_dot2_f32_bf16", Dot2F32BF16, 0},
      {"v_dot2c_f32_f16", Dot2cF32F16, 2},
  };
  for (const V &v : pk)
    ops.push_back({v.name, vop3p, v.op, InstClass::VALU, 1, v.floatBytes});
}

} // namespace mlir::rocdsl::emu
