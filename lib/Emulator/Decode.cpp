//===- Decode.cpp - printed AMDGCN instructions into the executed form ----===//
//
// LLVM's MC disassembler decodes each word and its printer spells the
// instruction in the documented AMDGPU assembler syntax; that spelling is
// parsed here, once per code object, into Inst. Keying on the printed names
// keeps the emulator independent of LLVM's private opcode numbering, which
// Debian does not install.
//
//===----------------------------------------------------------------------===//
#include "Decode.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSwitch.h"

#include <cmath>
#include <mutex>

using namespace llvm;

namespace mlir::rocdsl::emu {

const char *className(InstClass c) {
  switch (c) {
  case InstClass::SALU: return "salu";
  case InstClass::SMEM: return "smem";
  case InstClass::Branch: return "branch";
  case InstClass::Wait: return "waitcnt";
  case InstClass::Barrier: return "barrier";
  case InstClass::Misc: return "misc";
  case InstClass::VALU: return "valu";
  case InstClass::Trans: return "trans";
  case InstClass::VMEM: return "vmem";
  case InstClass::LDS: return "lds";
  case InstClass::MFMA: return "mfma";
  default: return "?";
  }
}

const OpInfo *lookupOp(StringRef mnemonic) {
  static const StringMap<OpInfo> table = [] {
    std::vector<OpInfo> ops;
    registerScalarOps(ops);
    registerVectorOps(ops);
    registerMemoryOps(ops);
    registerMatrixOps(ops);
    StringMap<OpInfo> map;
    for (const OpInfo &op : ops)
      map[op.mnemonic] = op;
    return map;
  }();
  auto it = table.find(mnemonic);
  return it == table.end() ? nullptr : &it->second;
}

namespace {

/// Scalar register index of a special register name, or -1.
int specialRegister(StringRef name, unsigned &count) {
  count = 1;
  int reg = StringSwitch<int>(name)
                .Case("vcc_lo", kVccLo)
                .Case("vcc_hi", kVccLo + 1)
                .Case("exec_lo", kExecLo)
                .Case("exec_hi", kExecLo + 1)
                .Case("m0", kM0)
                .Case("flat_scratch_lo", kFlatScratchLo)
                .Case("flat_scratch_hi", kFlatScratchLo + 1)
                .Case("xnack_mask_lo", kXnackMaskLo)
                .Case("xnack_mask_hi", kXnackMaskLo + 1)
                .Default(-1);
  if (reg >= 0)
    return reg;
  count = 2;
  return StringSwitch<int>(name)
      .Case("vcc", kVccLo)
      .Case("exec", kExecLo)
      .Case("flat_scratch", kFlatScratchLo)
      .Case("xnack_mask", kXnackMaskLo)
      .Default(-1);
}

/// f32/f16/f64 bits of an inline float constant as the hardware holds it.
uint64_t inlineFloatBits(double value, unsigned bytes) {
  bool invTwoPi = std::fabs(std::fabs(value) - 0.15915494309189535) < 1e-7;
  if (bytes == 2) {
    if (invTwoPi)
      return 0x3118;
    return floatToHalf(float(value));
  }
  if (bytes == 8) {
    if (invTwoPi)
      return 0x3fc45f306dc9c882ull;
    return asBits64(value);
  }
  if (invTwoPi)
    return 0x3e22f983;
  return asBits(float(value));
}

} // namespace

bool parseOperand(StringRef text, const OpInfo &info, Operand &op,
                  std::string &error) {
  text = text.trim();
  op = Operand();
  // Modifiers: -x, |x|, -|x|, neg(x), abs(x), sext(x).
  for (bool changed = true; changed;) {
    changed = false;
    if (text.consume_front("-")) {
      if (text.empty() || isDigit(text[0]) || text[0] == '.') {
        text = StringRef(text.data() - 1, text.size() + 1);
        break;
      }
      op.neg = !op.neg;
      changed = true;
    } else if (text.size() >= 2 && text.front() == '|' && text.back() == '|') {
      op.abs = true;
      text = text.drop_front().drop_back();
      changed = true;
    } else if (text.consume_front("neg(") && text.consume_back(")")) {
      op.neg = !op.neg;
      changed = true;
    } else if (text.consume_front("abs(") && text.consume_back(")")) {
      op.abs = true;
      changed = true;
    } else if (text.consume_front("sext(") && text.consume_back(")")) {
      op.sext = true;
      changed = true;
    }
  }
  if (text == "off") {
    op.kind = Operand::Off;
    return true;
  }
  if (text == "scc" || text == "src_scc") {
    op.kind = Operand::SCC;
    return true;
  }
  if (text == "src_vccz" || text == "vccz") {
    op.kind = Operand::VccZ;
    return true;
  }
  if (text == "src_execz" || text == "execz") {
    op.kind = Operand::ExecZ;
    return true;
  }
  if (text == "src_shared_base" || text == "src_private_base" ||
      text == "src_shared_limit" || text == "src_private_limit") {
    // Apertures of the flat address space (see deviceAddress).
    op.kind = Operand::Imm;
    op.imm = text == "src_shared_base"    ? kSharedApertureHi
             : text == "src_private_base" ? kPrivateApertureHi
             : text == "src_shared_limit" ? kSharedApertureHi | 0xffffffffull
                                          : kPrivateApertureHi | 0xffffffffull;
    return true;
  }
  unsigned count;
  if (int reg = specialRegister(text, count); reg >= 0) {
    op.kind = Operand::SReg;
    op.reg = reg;
    op.count = count;
    return true;
  }
  // v7, v[4:7], s[0:1], a3, ttmp[4:5].
  auto parseRange = [&](StringRef rest, unsigned &first,
                        unsigned &n) -> bool {
    if (rest.consume_front("[")) {
      if (!rest.consume_back("]"))
        return false;
      auto [lo, hi] = rest.split(':');
      unsigned a, b;
      if (lo.getAsInteger(10, a))
        return false;
      b = a;
      if (!hi.empty() && hi.getAsInteger(10, b))
        return false;
      if (b < a)
        return false;
      first = a;
      n = b - a + 1;
      return true;
    }
    n = 1;
    return !rest.empty() && !rest.getAsInteger(10, first);
  };
  unsigned first = 0, n = 0;
  if (text.starts_with("ttmp") && parseRange(text.drop_front(4), first, n)) {
    op.kind = Operand::SReg;
    op.reg = kTtmp0 + first;
    op.count = n;
    return first + n <= 16;
  }
  if (!text.empty() && (text[0] == 'v' || text[0] == 's' || text[0] == 'a') &&
      text.size() > 1 && (text[1] == '[' || isDigit(text[1])) &&
      parseRange(text.drop_front(), first, n)) {
    if (text[0] == 's') {
      if (first + n > 106) {
        error = "register " + text.str() + " is out of range";
        return false;
      }
      op.kind = Operand::SReg;
      op.reg = first;
    } else {
      unsigned base = text[0] == 'a' ? kAGPRBase : 0;
      if (first + n > 256) {
        error = "register " + text.str() + " is out of range";
        return false;
      }
      op.kind = Operand::VReg;
      op.reg = base + first;
    }
    op.count = n;
    return true;
  }
  // Constants.
  int64_t value;
  if (!text.getAsInteger(0, value)) {
    op.kind = Operand::Imm;
    // A 32-bit literal of an f64 operand is the value's high half.
    bool f64 = StringRef(info.mnemonic).contains("_f64");
    if (f64 && info.floatBytes == 8 && !(value >= -16 && value <= 64) &&
        value >= 0 && value <= 0xffffffffll)
      op.imm = uint64_t(value) << 32; // a 64-bit float's literal: high half
    else if (value < 0)
      op.imm = uint64_t(value); // sign-extended
    else
      op.imm = uint64_t(value);
    return true;
  }
  double real;
  if (!text.getAsDouble(real)) {
    op.kind = Operand::Imm;
    op.inlineFloat = true;
    op.imm = inlineFloatBits(op.neg ? -real : real,
                             info.floatBytes ? info.floatBytes : 4);
    op.neg = false;
    return true;
  }
  error = "cannot read operand '" + text.str() + "'";
  return false;
}

namespace {

/// Applies one modifier token (offset:16, glc, quad_perm:[..], vmcnt(0)...).
bool applyModifier(StringRef token, Inst &inst, std::string &error) {
  auto intAfter = [&](StringRef prefix, int64_t &out) {
    StringRef rest = token;
    if (!rest.consume_front(prefix))
      return false;
    return !rest.getAsInteger(0, out);
  };
  auto bitsAfter = [&](StringRef prefix, uint8_t &out) {
    StringRef rest = token;
    if (!rest.consume_front(prefix) || !rest.consume_front("[") ||
        !rest.consume_back("]"))
      return false;
    SmallVector<StringRef, 4> bits;
    rest.split(bits, ',');
    out = 0;
    for (size_t i = 0; i < bits.size(); ++i)
      if (bits[i].trim() == "1")
        out |= 1u << i;
    return true;
  };
  int64_t v;
  if (token.starts_with("offset:swizzle(") && token.ends_with(")")) {
    SmallVector<StringRef, 6> args;
    token.drop_front(15).drop_back().split(args, ',');
    auto num = [&](size_t i) {
      unsigned n = 0;
      if (i < args.size())
        args[i].trim().getAsInteger(0, n);
      return n;
    };
    StringRef mode = args[0];
    if (mode == "QUAD_PERM" && args.size() == 5) {
      inst.offset = 0x8000 | num(1) | (num(2) << 2) | (num(3) << 4) |
                    (num(4) << 6);
    } else if (mode == "SWAP") {
      inst.offset = 0x1f | (num(1) << 10);
    } else if (mode == "REVERSE") {
      inst.offset = 0x1f | ((num(1) - 1) << 10);
    } else if (mode == "BROADCAST") {
      inst.offset = ((~(num(1) - 1)) & 0x1f) | (num(2) << 5);
    } else if (mode == "BITMASK_PERM" && args.size() == 2) {
      // Five characters, lane bit 4 first: 0, 1, p (keep), i (invert).
      StringRef m = args[1].trim().trim('"');
      unsigned andMask = 0, orMask = 0, xorMask = 0;
      for (unsigned i = 0; i < m.size() && i < 5; ++i) {
        unsigned bit = 1u << (4 - i);
        switch (m[i]) {
        case '1': orMask |= bit; break;
        case 'p': andMask |= bit; break;
        case 'i': andMask |= bit; xorMask |= bit; break;
        default: break;
        }
      }
      inst.offset = andMask | (orMask << 5) | (xorMask << 10);
    } else {
      error = "unknown swizzle '" + token.str() + "'";
      return false;
    }
    return true;
  }
  if (intAfter("offset:", v)) {
    inst.offset = int32_t(v);
    return true;
  }
  if (intAfter("offset0:", v)) {
    inst.offset = int32_t(v);
    return true;
  }
  if (intAfter("bitop3:", v)) {
    inst.bitop3 = uint8_t(v);
    return true;
  }
  if (intAfter("offset1:", v)) {
    inst.offset1 = int32_t(v);
    return true;
  }
  if (token == "offen") return inst.offen = true;
  if (token == "idxen") return inst.idxen = true;
  if (token == "glc" || token == "sc0") return inst.glc = true;
  if (token == "slc" || token == "sc1" || token == "nt" || token == "dlc" ||
      token == "scc" || token == "nv")
    return true;
  if (token == "lds") return inst.lds = true;
  if (token == "gds") return inst.gds = true;
  if (token == "clamp") return (inst.clamp = 1), true;
  if (token == "mul:2") return (inst.omod = 1), true;
  if (token == "mul:4") return (inst.omod = 2), true;
  if (token == "div:2") return (inst.omod = 3), true;
  if (bitsAfter("op_sel:", inst.opSel)) return true;
  if (bitsAfter("op_sel_hi:", inst.opSelHi)) return inst.hasOpSelHi = true;
  if (bitsAfter("neg_lo:", inst.negLo)) return true;
  if (bitsAfter("neg_hi:", inst.negHi)) return true;
  // s_waitcnt fields.
  auto counter = [&](StringRef name, uint8_t &field) {
    StringRef rest = token;
    if (!rest.consume_front(name) || !rest.consume_front("(") ||
        !rest.consume_back(")"))
      return false;
    unsigned n;
    if (rest.getAsInteger(0, n))
      return false;
    field = uint8_t(std::min(n, 255u));
    return true;
  };
  if (counter("vmcnt", inst.vmcnt) || counter("lgkmcnt", inst.lgkmcnt) ||
      counter("expcnt", inst.expcnt))
    return true;
  // DPP.
  if (token.starts_with("quad_perm:[")) {
    SmallVector<StringRef, 4> lanes;
    token.drop_front(11).drop_back().split(lanes, ',');
    if (lanes.size() != 4)
      return false;
    inst.dppCtrl = 0;
    for (unsigned i = 0; i < 4; ++i) {
      unsigned l;
      if (lanes[i].getAsInteger(10, l) || l > 3)
        return false;
      inst.dppCtrl |= l << (2 * i);
    }
    return true;
  }
  auto dpp = [&](StringRef prefix, unsigned base) {
    int64_t n;
    if (!intAfter(prefix, n) || n < 1 || n > 15)
      return false;
    inst.dppCtrl = base + unsigned(n);
    return true;
  };
  if (dpp("row_shl:", 0x100) || dpp("row_shr:", 0x110) ||
      dpp("row_ror:", 0x120))
    return true;
  unsigned ctrl = StringSwitch<unsigned>(token)
                      .Case("wave_shl:1", 0x130)
                      .Case("wave_rol:1", 0x134)
                      .Case("wave_shr:1", 0x138)
                      .Case("wave_ror:1", 0x13c)
                      .Case("row_mirror", 0x140)
                      .Case("row_half_mirror", 0x141)
                      .Case("row_bcast:15", 0x142)
                      .Case("row_bcast:31", 0x143)
                      .Default(0);
  if (ctrl)
    return (inst.dppCtrl = ctrl), true;
  if (intAfter("row_mask:", v))
    return (inst.rowMask = uint8_t(v & 0xf)), true;
  if (intAfter("bank_mask:", v))
    return (inst.bankMask = uint8_t(v & 0xf)), true;
  if (token.starts_with("bound_ctrl:"))
    return inst.boundCtrl = true;
  // SDWA.
  auto sel = [&](StringRef prefix, uint8_t &field) {
    StringRef rest = token;
    if (!rest.consume_front(prefix))
      return false;
    int s = StringSwitch<int>(rest)
                .Case("BYTE_0", 0)
                .Case("BYTE_1", 1)
                .Case("BYTE_2", 2)
                .Case("BYTE_3", 3)
                .Case("WORD_0", 4)
                .Case("WORD_1", 5)
                .Case("DWORD", 6)
                .Default(-1);
    if (s < 0)
      return false;
    field = uint8_t(s);
    return true;
  };
  if (sel("dst_sel:", inst.dstSel) || sel("src0_sel:", inst.src0Sel) ||
      sel("src1_sel:", inst.src1Sel))
    return true;
  if (token.starts_with("dst_unused:")) {
    StringRef u = token.drop_front(11);
    inst.dstUnused = u == "UNUSED_SEXT" ? 1 : u == "UNUSED_PRESERVE" ? 2 : 0;
    return true;
  }
  // Accepted and without effect here: cache and format hints, cbsz/abid/blgp
  // are read by the matrix handlers from the text when used.
  if (token.starts_with("cbsz:") || token.starts_with("abid:") ||
      token.starts_with("blgp:") || token.starts_with("format:") ||
      token.starts_with("hwreg(") || token.starts_with("sendmsg("))
    return true;
  error = "unknown modifier '" + token.str() + "'";
  return false;
}

} // namespace

/// Whether a token after the last operand's comma is a modifier (offen,
/// offset:16, vmcnt(0), quad_perm:[..]) rather than the operand itself.
static bool isModifierToken(StringRef tok) {
  if (tok.starts_with("v[") || tok.starts_with("s[") || tok.starts_with("a[") ||
      tok.starts_with("ttmp[") || tok.starts_with("-") || tok.starts_with("|") ||
      tok.starts_with("neg(") || tok.starts_with("abs(") ||
      tok.starts_with("sext("))
    return false;
  if (tok.contains(':') || tok.contains('('))
    return true;
  return StringSwitch<bool>(tok)
      .Cases({"offen", "idxen", "glc", "slc", "sc0", "sc1", "nt", "lds", "gds",
              "clamp", "dlc", "scc", "nv"},
             true)
      .Cases({"row_mirror", "row_half_mirror", "tfe", "lwe", "da", "r128",
              "d16", "unorm"},
             true)
      .Default(false);
}

bool decodeText(StringRef text, Inst &inst, std::string &error) {
  text = text.trim();
  auto [mnemonicText, rest] = text.split(' ');
  StringRef mnemonic = mnemonicText;
  inst.enc = Encoding::Native;
  if (mnemonic.consume_back("_e32"))
    inst.enc = Encoding::E32;
  else if (mnemonic.consume_back("_e64"))
    inst.enc = Encoding::E64;
  else if (mnemonic.consume_back("_dpp"))
    inst.enc = Encoding::DPP;
  else if (mnemonic.consume_back("_sdwa"))
    inst.enc = Encoding::SDWA;
  const OpInfo *info = lookupOp(mnemonic);
  if (!info) {
    error = "instruction '" + mnemonicText.str() +
            "' is not implemented by the emulator";
    return false;
  }
  inst.fn = info->fn;
  inst.sub = info->sub;
  inst.cls = info->cls;
  inst.numDefs = info->numDefs;
  // Operands are separated by ", "; modifiers follow the last one after
  // spaces and contain no ", " (quad_perm:[1,0,3,2]).
  SmallVector<StringRef, 8> parts;
  rest.trim().split(parts, ", ", -1, false);
  SmallVector<StringRef, 8> operands, modifiers;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i + 1 < parts.size()) {
      operands.push_back(parts[i].trim());
      continue;
    }
    SmallVector<StringRef, 8> tokens;
    parts[i].split(tokens, ' ', -1, false);
    for (size_t t = 0; t < tokens.size(); ++t) {
      StringRef tok = tokens[t];
      bool isModifier = isModifierToken(tok);
      if (t == 0 && !isModifier)
        operands.push_back(tok);
      else
        modifiers.push_back(tok);
    }
  }
  // abs/neg operands printed as "|v1|" never hold spaces; "neg(v1)" neither.
  if (operands.size() > 6) {
    error = "too many operands in '" + text.str() + "'";
    return false;
  }
  inst.numOps = operands.size();
  for (size_t i = 0; i < operands.size(); ++i)
    if (!parseOperand(operands[i], *info, inst.ops[i], error))
      return false;
  for (StringRef m : modifiers)
    if (!applyModifier(m, inst, error))
      return false;
  if (mnemonic == "s_nop" && inst.numOps == 1)
    inst.waitStates = uint8_t((inst.ops[0].imm & 0xf) + 1);
  if (mnemonic == "s_waitcnt" && inst.numOps == 1) {
    // The raw SIMM16: vmcnt [3:0] and [15:14], expcnt [6:4], lgkmcnt [11:8].
    uint32_t simm = uint32_t(inst.ops[0].imm);
    inst.vmcnt = (simm & 0xf) | ((simm >> 10) & 0x30);
    inst.expcnt = (simm >> 4) & 7;
    inst.lgkmcnt = (simm >> 8) & 0xf;
    inst.numOps = 0;
  }
  if (info->numDefs == kDefsIfReturning)
    inst.numDefs = inst.glc ? 1 : 0;
  inst.writesVALU = inst.cls == InstClass::VALU || inst.cls == InstClass::Trans ||
                    inst.cls == InstClass::MFMA;
  return true;
}

} // namespace mlir::rocdsl::emu
