//===- Numerics.cpp - 16- and 8-bit float formats --------------------------===//
//
// Conversions round to nearest even, as the hardware's default mode does.
// fp8 formats (CDNA3 ISA "FP8/BF8"; OCP 8-bit float spec): gfx942 uses the
// FNUZ variants (e4m3 bias 8, e5m2 bias 16, no infinities, one NaN 0x80, no
// negative zero); gfx950 uses OCP e4m3fn (bias 7, NaN 0x7f/0xff, max 448)
// and e5m2 (bias 15, IEEE-like with infinities). Saturating conversions
// clamp finite values to the largest normal.
//
//===----------------------------------------------------------------------===//
#include "Machine.h"

#include <cmath>

namespace mlir::rocdsl::emu {

float halfToFloat(uint16_t h) {
  _Float16 f;
  std::memcpy(&f, &h, 2);
  return float(f);
}

uint16_t floatToHalf(float value) {
  _Float16 f = _Float16(value);
  uint16_t h;
  std::memcpy(&h, &f, 2);
  return h;
}

float bf16ToFloat(uint16_t b) { return asFloat(uint32_t(b) << 16); }

uint16_t floatToBF16(float f) {
  uint32_t u = asBits(f);
  if (std::isnan(f))
    return uint16_t((u >> 16) | 0x40); // quiet
  uint32_t rounding = 0x7fff + ((u >> 16) & 1);
  return uint16_t((u + rounding) >> 16);
}

namespace {
struct FP8Format {
  int mantissa, bias;
  bool fnuz, hasInf;
  float max;
};
FP8Format format(bool bf8, bool fnuz) {
  if (fnuz)
    return bf8 ? FP8Format{2, 16, true, false, 57344.0f}
               : FP8Format{3, 8, true, false, 240.0f};
  return bf8 ? FP8Format{2, 15, false, true, 57344.0f}
             : FP8Format{3, 7, false, false, 448.0f};
}
} // namespace

float fp8ToFloat(uint8_t v, bool bf8, bool fnuz) {
  FP8Format f = format(bf8, fnuz);
  int expBits = 7 - f.mantissa;
  bool sign = v & 0x80;
  int exp = (v >> f.mantissa) & ((1 << expBits) - 1);
  int man = v & ((1 << f.mantissa) - 1);
  if (f.fnuz) {
    if (v == 0x80)
      return NAN;
  } else if (f.hasInf) {
    if (exp == (1 << expBits) - 1)
      return man ? NAN : (sign ? -INFINITY : INFINITY);
  } else if ((v & 0x7f) == 0x7f) {
    return NAN;
  }
  float r;
  if (exp == 0)
    r = std::ldexp(float(man), 1 - f.bias - f.mantissa);
  else
    r = std::ldexp(float(man + (1 << f.mantissa)), exp - f.bias - f.mantissa);
  return sign ? -r : r;
}

uint8_t floatToFP8(float value, bool bf8, bool fnuz, bool saturate) {
  FP8Format f = format(bf8, fnuz);
  uint8_t nan = f.fnuz ? 0x80 : (f.hasInf ? 0x7f : 0x7f);
  if (std::isnan(value))
    return nan;
  bool sign = std::signbit(value);
  float a = std::fabs(value);
  if (std::isinf(a) && !saturate)
    return f.hasInf ? uint8_t((sign ? 0x80 : 0) | 0x7c) : nan;
  // Search the representable magnitudes (128 of them) for the nearest, ties
  // to even mantissa.
  uint8_t best = 0;
  float bestDiff = INFINITY;
  for (unsigned code = 0; code < 0x80; ++code) {
    float c = fp8ToFloat(uint8_t(code), bf8, fnuz);
    if (std::isnan(c) || std::isinf(c))
      continue;
    float d = std::fabs(c - a);
    if (d < bestDiff || (d == bestDiff && (code & 1) == 0)) {
      bestDiff = d;
      best = uint8_t(code);
    }
  }
  float bestValue = fp8ToFloat(best, bf8, fnuz);
  if (a > f.max && !saturate) {
    // Past the largest normal by more than half an ULP: overflow.
    if (a >= f.max * (1 + std::ldexp(1.0f, -f.mantissa - 1)))
      return f.hasInf ? uint8_t((sign ? 0x80 : 0) | 0x7c) : nan;
  }
  (void)bestValue;
  if (best == 0 && f.fnuz)
    return 0; // FNUZ has no negative zero
  return uint8_t((sign ? 0x80 : 0) | best);
}

} // namespace mlir::rocdsl::emu
