//===- Scalar.cpp - scalar ALU, program flow, waits and barriers ----------===//
#include "Decode.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/bit.h"
#include "llvm/Support/MathExtras.h"

#include <cmath>

namespace mlir::rocdsl::emu {

uint32_t readScalar32(const Wave &w, const Operand &op) {
  // Scalar operands are uniform: lane 0's view of them; a VGPR is no
  // scalar source.
  return op.kind == Operand::VReg ? 0 : readLane(w, op, 0);
}

uint64_t readScalar64(const Wave &w, const Operand &op) {
  if (op.kind == Operand::SReg)
    return uint64_t(w.s[op.reg & (kSRegs - 1)]) |
           (uint64_t(w.s[(op.reg + 1) & (kSRegs - 1)]) << 32);
  if (op.kind == Operand::Imm)
    return op.imm;
  return readScalar32(w, op);
}

void writeScalar32(Wave &w, const Operand &op, uint32_t value) {
  if (op.kind == Operand::SReg)
    w.s[op.reg & (kSRegs - 1)] = value;
}

void writeScalar64(Wave &w, const Operand &op, uint64_t value) {
  if (op.kind != Operand::SReg)
    return;
  w.s[op.reg & (kSRegs - 1)] = uint32_t(value);
  w.s[(op.reg + 1) & (kSRegs - 1)] = uint32_t(value >> 32);
}

namespace {

enum ScalarOp : uint16_t {
  // SOP2 / SOPK
  SAddU32, SAddcU32, SSubU32, SSubbU32, SAddI32, SSubI32, SMulI32, SMulHiU32,
  SMulHiI32, SAnd, SOr, SXor, SAndn2, SOrn2, SNand, SNor, SXnor, SLshl,
  SLshr, SAshr, SBfeU32, SBfeI32, SBfeU64, SBfeI64, SBfm, SMinI32, SMinU32,
  SMaxI32, SMaxU32, SCselect, SAbsdiffI32, SLshl1Add, SLshl2Add, SLshl3Add,
  SLshl4Add, SPackLL, SPackLH, SPackHH, SMovk, SAddk, SMulk, SCmovk,
  // SOP1
  SMov, SCmov, SNot, SBrev, SBcnt0, SBcnt1, SFf0, SFf1, SFlbit, SFlbitI32,
  SSextI8, SSextI16, SAbsI32, SAndSaveexec, SOrSaveexec, SXorSaveexec,
  SAndn2Saveexec, SOrn2Saveexec, SNandSaveexec, SAndn1Saveexec, SGetpc,
  SSetpc, SSwappc, SBitset0, SBitset1, SQuadmask, SWqm,
};

/// `sub` = op | 64-bit << 8.
void salu(ExecContext &ctx, const Inst &inst) {
  Wave &w = *ctx.wave;
  bool wide = inst.sub >> 8 & 1;
  ScalarOp op = ScalarOp(inst.sub & 0xff);
  const Operand &d = inst.ops[0];
  auto a64 = [&](unsigned i) { return readScalar64(w, inst.ops[i]); };
  auto a32 = [&](unsigned i) { return readScalar32(w, inst.ops[i]); };
  auto write = [&](uint64_t value) {
    if (wide)
      writeScalar64(w, d, value);
    else
      writeScalar32(w, d, uint32_t(value));
  };
  auto logic = [&](uint64_t r) {
    write(r);
    w.scc = wide ? r != 0 : uint32_t(r) != 0;
  };
  switch (op) {
  case SAddU32: {
    uint64_t r = uint64_t(a32(1)) + a32(2);
    write(r);
    w.scc = r >> 32;
    return;
  }
  case SAddcU32: {
    uint64_t r = uint64_t(a32(1)) + a32(2) + w.scc;
    write(r);
    w.scc = r >> 32;
    return;
  }
  case SSubU32: {
    uint32_t a = a32(1), b = a32(2);
    write(uint32_t(a - b));
    w.scc = b > a;
    return;
  }
  case SSubbU32: {
    uint32_t a = a32(1), b = a32(2), c = w.scc;
    write(uint32_t(a - b - c));
    w.scc = uint64_t(b) + c > a;
    return;
  }
  case SAddI32: {
    int32_t a = int32_t(a32(1)), b = int32_t(a32(2));
    int32_t r = int32_t(uint32_t(a) + uint32_t(b));
    write(uint32_t(r));
    w.scc = ((a >= 0) == (b >= 0)) && ((r >= 0) != (a >= 0));
    return;
  }
  case SSubI32: {
    int32_t a = int32_t(a32(1)), b = int32_t(a32(2));
    int32_t r = int32_t(uint32_t(a) - uint32_t(b));
    write(uint32_t(r));
    w.scc = ((a >= 0) != (b >= 0)) && ((r >= 0) != (a >= 0));
    return;
  }
  case SMulI32:
    write(uint32_t(int64_t(int32_t(a32(1))) * int32_t(a32(2))));
    return;
  case SMulHiU32:
    write(uint32_t((uint64_t(a32(1)) * a32(2)) >> 32));
    return;
  case SMulHiI32:
    write(uint32_t(uint64_t(int64_t(int32_t(a32(1))) * int32_t(a32(2))) >> 32));
    return;
  case SAnd: return logic(a64(1) & a64(2));
  case SOr: return logic(a64(1) | a64(2));
  case SXor: return logic(a64(1) ^ a64(2));
  case SAndn2: return logic(a64(1) & ~a64(2));
  case SOrn2: return logic(a64(1) | ~a64(2));
  case SNand: return logic(~(a64(1) & a64(2)));
  case SNor: return logic(~(a64(1) | a64(2)));
  case SXnor: return logic(~(a64(1) ^ a64(2)));
  case SLshl:
    return wide ? logic(a64(1) << (a32(2) & 63))
                : logic(uint32_t(a32(1) << (a32(2) & 31)));
  case SLshr:
    return wide ? logic(a64(1) >> (a32(2) & 63)) : logic(a32(1) >> (a32(2) & 31));
  case SAshr:
    return wide ? logic(uint64_t(int64_t(a64(1)) >> (a32(2) & 63)))
                : logic(uint32_t(int32_t(a32(1)) >> (a32(2) & 31)));
  case SBfeU32: case SBfeI32: case SBfeU64: case SBfeI64: {
    uint32_t ctl = a32(2);
    unsigned offset = ctl & (wide ? 63 : 31), width = (ctl >> 16) & 0x7f;
    unsigned bits = wide ? 64 : 32;
    uint64_t v = wide ? a64(1) : a32(1);
    uint64_t r = 0;
    if (width) {
      width = std::min(width, bits - offset);
      r = (v >> offset) & (width >= 64 ? ~0ull : ((1ull << width) - 1));
      if ((op == SBfeI32 || op == SBfeI64) && (r >> (width - 1) & 1))
        r |= ~0ull << width;
    }
    if (!wide)
      r = uint32_t(r);
    return logic(r);
  }
  case SBfm: {
    unsigned width = a32(1) & 31, offset = a32(2) & 31;
    write(uint32_t(((1ull << width) - 1) << offset));
    return;
  }
  case SMinI32: { int32_t a = a32(1), b = a32(2); write(uint32_t(std::min(a, b))); w.scc = a < b; return; }
  case SMinU32: { uint32_t a = a32(1), b = a32(2); write(std::min(a, b)); w.scc = a < b; return; }
  case SMaxI32: { int32_t a = a32(1), b = a32(2); write(uint32_t(std::max(a, b))); w.scc = a > b; return; }
  case SMaxU32: { uint32_t a = a32(1), b = a32(2); write(std::max(a, b)); w.scc = a > b; return; }
  case SCselect:
    write(w.scc ? a64(1) : a64(2));
    return;
  case SAbsdiffI32: {
    int64_t r = std::llabs(int64_t(int32_t(a32(1))) - int32_t(a32(2)));
    return logic(uint32_t(r));
  }
  case SLshl1Add: case SLshl2Add: case SLshl3Add: case SLshl4Add: {
    unsigned sh = op - SLshl1Add + 1;
    uint64_t r = (uint64_t(a32(1)) << sh) + a32(2);
    write(uint32_t(r));
    w.scc = r >> 32;
    return;
  }
  case SPackLL: write((a32(1) & 0xffff) | (a32(2) << 16)); return;
  case SPackLH: write((a32(1) & 0xffff) | (a32(2) & 0xffff0000u)); return;
  case SPackHH: write((a32(1) >> 16) | (a32(2) & 0xffff0000u)); return;
  case SMovk: write(uint32_t(int32_t(int16_t(a32(1))))); return;
  case SCmovk: if (w.scc) write(uint32_t(int32_t(int16_t(a32(1))))); return;
  case SAddk: {
    int32_t a = int32_t(a32(0)), b = int16_t(a32(1));
    int32_t r = int32_t(uint32_t(a) + uint32_t(b));
    write(uint32_t(r));
    w.scc = ((a >= 0) == (b >= 0)) && ((r >= 0) != (a >= 0));
    return;
  }
  case SMulk: write(uint32_t(a32(0)) * uint32_t(int32_t(int16_t(a32(1))))); return;
  case SMov: write(wide ? a64(1) : a32(1)); return;
  case SCmov: if (w.scc) write(wide ? a64(1) : a32(1)); return;
  case SNot: return logic(wide ? ~a64(1) : uint32_t(~a32(1)));
  case SBrev:
    write(wide ? llvm::reverseBits(a64(1)) : llvm::reverseBits(a32(1)));
    return;
  case SBcnt0: case SBcnt1: {
    uint64_t v = wide ? a64(1) : a32(1);
    unsigned ones = __builtin_popcountll(v);
    unsigned r = op == SBcnt1 ? ones : (wide ? 64 : 32) - ones;
    writeScalar32(w, d, r);
    w.scc = r != 0;
    return;
  }
  case SFf0: case SFf1: {
    uint64_t v = wide ? a64(1) : a32(1);
    if (op == SFf0)
      v = wide ? ~v : uint32_t(~v);
    writeScalar32(w, d, v ? uint32_t(__builtin_ctzll(v)) : ~0u);
    return;
  }
  case SFlbit: {
    uint64_t v = wide ? a64(1) : a32(1);
    writeScalar32(w, d, v ? uint32_t(__builtin_clzll(v) - (wide ? 0 : 32)) : ~0u);
    return;
  }
  case SFlbitI32: {
    int32_t v = int32_t(a32(1));
    uint32_t u = v < 0 ? ~uint32_t(v) : uint32_t(v);
    writeScalar32(w, d, (v == 0 || v == -1) ? ~0u : uint32_t(__builtin_clz(u)));
    return;
  }
  case SSextI8: write(uint32_t(int32_t(int8_t(a32(1))))); return;
  case SSextI16: write(uint32_t(int32_t(int16_t(a32(1))))); return;
  case SAbsI32: {
    int32_t v = int32_t(a32(1));
    uint32_t r = v < 0 ? uint32_t(-int64_t(v)) : uint32_t(v);
    write(r);
    w.scc = r != 0;
    return;
  }
  case SAndSaveexec: case SOrSaveexec: case SXorSaveexec: case SAndn2Saveexec:
  case SOrn2Saveexec: case SNandSaveexec: case SAndn1Saveexec: {
    uint64_t s = a64(1), e = w.exec(), r = 0;
    switch (op) {
    case SAndSaveexec: r = s & e; break;
    case SOrSaveexec: r = s | e; break;
    case SXorSaveexec: r = s ^ e; break;
    case SAndn2Saveexec: r = s & ~e; break;
    case SOrn2Saveexec: r = s | ~e; break;
    case SNandSaveexec: r = ~(s & e); break;
    default: r = ~s & e; break;
    }
    writeScalar64(w, d, e);
    w.setExec(r);
    w.scc = r != 0;
    return;
  }
  case SGetpc:
    // Addresses are offsets from the kernel entry here; code never reads
    // its own bytes, so only differences matter.
    writeScalar64(w, d, inst.address + 4);
    return;
  case SSetpc: case SSwappc:
    ctx.fault("indirect branches (s_setpc_b64/s_swappc_b64) are not "
              "supported by the emulator");
    return;
  case SBitset0: case SBitset1: {
    uint64_t v = wide ? a64(0) : a32(0);
    uint64_t bit = 1ull << (a32(1) & (wide ? 63 : 31));
    write(op == SBitset1 ? v | bit : v & ~bit);
    return;
  }
  case SQuadmask: case SWqm: {
    uint64_t v = wide ? a64(1) : a32(1), r = 0;
    unsigned quads = wide ? 16 : 8;
    for (unsigned q = 0; q < quads; ++q)
      if (v >> (4 * q) & 0xf)
        r |= op == SQuadmask ? (1ull << q) : (0xfull << (4 * q));
    return logic(r);
  }
  }
}

enum CmpOp : uint16_t { CEq, CLg, CGt, CGe, CLt, CLe };

bool compare(CmpOp op, int64_t a, int64_t b) {
  switch (op) {
  case CEq: return a == b;
  case CLg: return a != b;
  case CGt: return a > b;
  case CGe: return a >= b;
  case CLt: return a < b;
  case CLe: return a <= b;
  }
  return false;
}

/// s_cmp_*: sub = op | signed << 4 | 64-bit << 5; s_bitcmp0/1: 6/7.
void scmp(ExecContext &ctx, const Inst &inst) {
  Wave &w = *ctx.wave;
  unsigned op = inst.sub & 0xf;
  if (op >= 6) {
    bool wide = inst.sub >> 5 & 1;
    uint64_t v = wide ? readScalar64(w, inst.ops[0]) : readScalar32(w, inst.ops[0]);
    bool bit = v >> (readScalar32(w, inst.ops[1]) & (wide ? 63 : 31)) & 1;
    w.scc = op == 7 ? bit : !bit;
    return;
  }
  bool isSigned = inst.sub >> 4 & 1, wide = inst.sub >> 5 & 1;
  int64_t a, b;
  if (wide) {
    a = int64_t(readScalar64(w, inst.ops[0]));
    b = int64_t(readScalar64(w, inst.ops[1]));
  } else if (isSigned) {
    a = int32_t(readScalar32(w, inst.ops[0]));
    b = int32_t(readScalar32(w, inst.ops[1]));
  } else {
    a = readScalar32(w, inst.ops[0]);
    b = readScalar32(w, inst.ops[1]);
  }
  w.scc = compare(CmpOp(op), a, b);
}

/// s_cmpk_*: compare with a 16-bit constant (zero- or sign-extended).
void scmpk(ExecContext &ctx, const Inst &inst) {
  Wave &w = *ctx.wave;
  bool isSigned = inst.sub >> 4 & 1;
  uint32_t k = readScalar32(w, inst.ops[1]);
  int64_t a = isSigned ? int64_t(int32_t(readScalar32(w, inst.ops[0])))
                       : int64_t(readScalar32(w, inst.ops[0]));
  int64_t b = isSigned ? int64_t(int16_t(k)) : int64_t(uint16_t(k));
  w.scc = compare(CmpOp(inst.sub & 0xf), a, b);
}

enum BranchOp : uint16_t {
  BAlways, BScc0, BScc1, BVccz, BVccnz, BExecz, BExecnz
};

void branch(ExecContext &ctx, const Inst &inst) {
  Wave &w = *ctx.wave;
  bool taken = false;
  switch (BranchOp(inst.sub)) {
  case BAlways: taken = true; break;
  case BScc0: taken = !w.scc; break;
  case BScc1: taken = w.scc; break;
  case BVccz: taken = w.vcc() == 0; break;
  case BVccnz: taken = w.vcc() != 0; break;
  case BExecz: taken = w.exec() == 0; break;
  case BExecnz: taken = w.exec() != 0; break;
  }
  if (taken) {
    w.pc = inst.target;
    ctx.branched = true;
  }
}

void waitcnt(ExecContext &ctx, const Inst &inst) {
  retireVMem(ctx, inst.vmcnt);
  retireLGKM(ctx, inst.lgkmcnt);
  if (ctx.profile)
    ++ctx.profile->waitcnts;
}

void barrier(ExecContext &ctx, const Inst &) {
  Wave &w = *ctx.wave;
  // LDS writes still in flight at a barrier are invisible to the waves the
  // barrier releases: the kernel is missing an s_waitcnt lgkmcnt.
  for (const Pending &p : w.lgkm)
    if (p.kind == Pending::LDS && !p.dst.count && p.apply) {
      ctx.violation("s_barrier with the LDS write `" +
                    ctx.kernel->texts[p.inst] +
                    "` still in flight: missing s_waitcnt lgkmcnt");
      break;
    }
  w.atBarrier = true;
  ctx.yield = true;
}

void endpgm(ExecContext &ctx, const Inst &) {
  retireAll(ctx);
  ctx.wave->done = true;
  ctx.yield = true;
}

void nop(ExecContext &, const Inst &) {}

void trap(ExecContext &ctx, const Inst &) {
  ctx.fault("the kernel trapped (s_trap): a device-side assertion or abort");
}

/// s_getreg_b32: HW_REG_MODE reads the denormal and rounding state; other
/// registers read 0.
void getreg(ExecContext &ctx, const Inst &inst) {
  Wave &w = *ctx.wave;
  writeScalar32(w, inst.ops[0], 0x000000f0u &
                                    ((w.flushF32Denormals ? 0 : 0x30) |
                                     (w.flushF16Denormals ? 0 : 0xc0)));
}

void memtime(ExecContext &ctx, const Inst &inst) {
  writeScalar64(*ctx.wave, inst.ops[0], ctx.wave->executed * 4);
}

} // namespace

void registerScalarOps(std::vector<OpInfo> &ops) {
  auto add = [&](const char *name, Handler fn, uint16_t sub, InstClass cls,
                 uint8_t defs, uint8_t floatBytes = 0) {
    ops.push_back({name, fn, sub, cls, defs, floatBytes});
  };
  constexpr uint16_t W = 1 << 8;
  struct S {
    const char *name;
    uint16_t sub;
  };
  const S sop[] = {
      {"s_add_u32", SAddU32}, {"s_addc_u32", SAddcU32}, {"s_sub_u32", SSubU32},
      {"s_subb_u32", SSubbU32}, {"s_add_i32", SAddI32}, {"s_sub_i32", SSubI32},
      {"s_mul_i32", SMulI32}, {"s_mul_hi_u32", SMulHiU32},
      {"s_mul_hi_i32", SMulHiI32}, {"s_and_b32", SAnd}, {"s_and_b64", SAnd | W},
      {"s_or_b32", SOr}, {"s_or_b64", SOr | W}, {"s_xor_b32", SXor},
      {"s_xor_b64", SXor | W}, {"s_andn2_b32", SAndn2},
      {"s_andn2_b64", SAndn2 | W}, {"s_orn2_b32", SOrn2},
      {"s_orn2_b64", SOrn2 | W}, {"s_nand_b32", SNand},
      {"s_nand_b64", SNand | W}, {"s_nor_b32", SNor}, {"s_nor_b64", SNor | W},
      {"s_xnor_b32", SXnor}, {"s_xnor_b64", SXnor | W},
      {"s_lshl_b32", SLshl}, {"s_lshl_b64", SLshl | W}, {"s_lshr_b32", SLshr},
      {"s_lshr_b64", SLshr | W}, {"s_ashr_i32", SAshr},
      {"s_ashr_i64", SAshr | W}, {"s_bfe_u32", SBfeU32},
      {"s_bfe_i32", SBfeI32}, {"s_bfe_u64", SBfeU64 | W},
      {"s_bfe_i64", SBfeI64 | W}, {"s_bfm_b32", SBfm},
      {"s_min_i32", SMinI32}, {"s_min_u32", SMinU32}, {"s_max_i32", SMaxI32},
      {"s_max_u32", SMaxU32}, {"s_cselect_b32", SCselect},
      {"s_cselect_b64", SCselect | W}, {"s_absdiff_i32", SAbsdiffI32},
      {"s_lshl1_add_u32", SLshl1Add}, {"s_lshl2_add_u32", SLshl2Add},
      {"s_lshl3_add_u32", SLshl3Add}, {"s_lshl4_add_u32", SLshl4Add},
      {"s_pack_ll_b32_b16", SPackLL}, {"s_pack_lh_b32_b16", SPackLH},
      {"s_pack_hh_b32_b16", SPackHH}, {"s_movk_i32", SMovk},
      {"s_cmovk_i32", SCmovk}, {"s_addk_i32", SAddk}, {"s_mulk_i32", SMulk},
      {"s_mov_b32", SMov}, {"s_mov_b64", SMov | W}, {"s_cmov_b32", SCmov},
      {"s_cmov_b64", SCmov | W}, {"s_not_b32", SNot}, {"s_not_b64", SNot | W},
      {"s_brev_b32", SBrev}, {"s_brev_b64", SBrev | W},
      {"s_bcnt0_i32_b32", SBcnt0}, {"s_bcnt0_i32_b64", SBcnt0 | W},
      {"s_bcnt1_i32_b32", SBcnt1}, {"s_bcnt1_i32_b64", SBcnt1 | W},
      {"s_ff0_i32_b32", SFf0}, {"s_ff0_i32_b64", SFf0 | W},
      {"s_ff1_i32_b32", SFf1}, {"s_ff1_i32_b64", SFf1 | W},
      {"s_flbit_i32_b32", SFlbit}, {"s_flbit_i32_b64", SFlbit | W},
      {"s_sext_i32_i8", SSextI8}, {"s_sext_i32_i16", SSextI16},
      {"s_abs_i32", SAbsI32}, {"s_and_saveexec_b64", SAndSaveexec | W},
      {"s_or_saveexec_b64", SOrSaveexec | W},
      {"s_xor_saveexec_b64", SXorSaveexec | W},
      {"s_andn2_saveexec_b64", SAndn2Saveexec | W},
      {"s_orn2_saveexec_b64", SOrn2Saveexec | W},
      {"s_nand_saveexec_b64", SNandSaveexec | W},
      {"s_andn1_saveexec_b64", SAndn1Saveexec | W},
      {"s_getpc_b64", SGetpc | W}, {"s_setpc_b64", SSetpc | W},
      {"s_swappc_b64", SSwappc | W}, {"s_bitset0_b32", SBitset0},
      {"s_bitset1_b32", SBitset1}, {"s_bitset0_b64", SBitset0 | W},
      {"s_bitset1_b64", SBitset1 | W}, {"s_quadmask_b64", SQuadmask | W},
      {"s_wqm_b64", SWqm | W},
  };
  for (const S &s : sop) {
    bool noDef = llvm::StringRef(s.name) == "s_setpc_b64";
    add(s.name, salu, s.sub, InstClass::SALU, noDef ? 0 : 1,
        (s.sub & W) ? 8 : 4);
  }
  const char *cmps[] = {"eq", "lg", "gt", "ge", "lt", "le"};
  static std::vector<std::string> names;
  names.reserve(64);
  for (unsigned c = 0; c < 6; ++c) {
    for (int sgn = 0; sgn < 2; ++sgn) {
      names.push_back(std::string("s_cmp_") + cmps[c] + (sgn ? "_i32" : "_u32"));
      add(names.back().c_str(), scmp, uint16_t(c | (sgn << 4)), InstClass::SALU, 0);
      names.push_back(std::string("s_cmpk_") + cmps[c] + (sgn ? "_i32" : "_u32"));
      add(names.back().c_str(), scmpk, uint16_t(c | (sgn << 4)), InstClass::SALU, 0);
    }
  }
  add("s_cmp_eq_u64", scmp, uint16_t(CEq | (1 << 5)), InstClass::SALU, 0);
  add("s_cmp_lg_u64", scmp, uint16_t(CLg | (1 << 5)), InstClass::SALU, 0);
  add("s_bitcmp0_b32", scmp, 6, InstClass::SALU, 0);
  add("s_bitcmp1_b32", scmp, 7, InstClass::SALU, 0);
  add("s_bitcmp0_b64", scmp, 6 | (1 << 5), InstClass::SALU, 0);
  add("s_bitcmp1_b64", scmp, 7 | (1 << 5), InstClass::SALU, 0);
  add("s_branch", branch, BAlways, InstClass::Branch, 0);
  add("s_cbranch_scc0", branch, BScc0, InstClass::Branch, 0);
  add("s_cbranch_scc1", branch, BScc1, InstClass::Branch, 0);
  add("s_cbranch_vccz", branch, BVccz, InstClass::Branch, 0);
  add("s_cbranch_vccnz", branch, BVccnz, InstClass::Branch, 0);
  add("s_cbranch_execz", branch, BExecz, InstClass::Branch, 0);
  add("s_cbranch_execnz", branch, BExecnz, InstClass::Branch, 0);
  add("s_waitcnt", waitcnt, 0, InstClass::Wait, 0);
  add("s_barrier", barrier, 0, InstClass::Barrier, 0);
  add("s_endpgm", endpgm, 0, InstClass::Branch, 0);
  add("s_trap", trap, 0, InstClass::Misc, 0);
  add("s_getreg_b32", getreg, 0, InstClass::SALU, 1);
  add("s_memtime", memtime, 0, InstClass::SALU, 1);
  add("s_memrealtime", memtime, 0, InstClass::SALU, 1);
  // Scheduling hints, cache control and messages do not change results.
  for (const char *name :
       {"s_nop", "s_setprio", "s_sleep", "s_dcache_wb", "s_dcache_inv",
        "s_icache_inv", "buffer_wbl2", "buffer_inv", "buffer_wbinvl1_vol",
        "buffer_wbinvl1", "s_sendmsg", "s_sched_barrier", "s_ttracedata",
        "s_setreg_imm32_b32", "s_setreg_b32", "s_set_gpr_idx_off",
        "s_waitcnt_vscnt", "s_denorm_mode", "s_round_mode"})
    add(name, nop, 0, InstClass::Misc, 0);
}

} // namespace mlir::rocdsl::emu
