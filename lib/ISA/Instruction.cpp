//===- Instruction.cpp - AMDGCN statements: operands, writes, store data --===//
//
// What the hazard check needs from one instruction: its wait states, how it
// leaves its block, the vector registers it writes, and for VMEM stores and
// atomics the data registers and their width. Unknown instructions are
// treated conservatively (one wait state, a writer of a vector first
// operand); malformed text never fails.
//
//===----------------------------------------------------------------------===//
#include "rocdsl/ISA/HazardCheck.h"

#include "llvm/ADT/StringExtras.h"

using namespace llvm;

namespace mlir::rocdsl::isa {

namespace {

/// Register numbers beyond any AMDGPU register file are not registers.
constexpr unsigned kMaxRegNumber = 1023;

bool parseRegNumber(StringRef text, unsigned &value) {
  text = text.trim();
  if (text.empty() || !llvm::all_of(text, isDigit))
    return false;
  if (text.getAsInteger(10, value))
    return false;
  return value <= kMaxRegNumber;
}

/// Strips sign, |abs| and neg()/abs()/sext() wrappers around a register.
StringRef stripOperandModifiers(StringRef op) {
  for (;;) {
    op = op.trim();
    if (op.consume_front("-"))
      continue;
    if (op.size() >= 2 && op.front() == '|' && op.back() == '|') {
      op = op.drop_front().drop_back();
      continue;
    }
    bool stripped = false;
    for (StringRef fn : {"neg(", "abs(", "sext("}) {
      if (op.starts_with(fn) && op.ends_with(")")) {
        op = op.drop_front(fn.size()).drop_back();
        stripped = true;
        break;
      }
    }
    if (!stripped)
      return op;
  }
}

/// A register file prefix followed by "N", "[N]" or "[N:M]".
std::optional<RegRange> parseIndexed(StringRef op, StringRef prefix,
                                     RegRange::Kind kind) {
  if (!op.consume_front(prefix) || op.empty())
    return std::nullopt;
  RegRange r;
  r.kind = kind;
  if (op.front() == '[') {
    if (!op.consume_back("]"))
      return std::nullopt;
    op = op.drop_front();
    auto [lo, hi] = op.split(':');
    if (!parseRegNumber(lo, r.first))
      return std::nullopt;
    r.last = r.first;
    if (op.contains(':') && !parseRegNumber(hi, r.last))
      return std::nullopt;
    if (r.last < r.first)
      return std::nullopt;
    return r;
  }
  // 16-bit halves (v1.l, v1.h) name the whole register.
  if (op.ends_with(".l") || op.ends_with(".h"))
    op = op.drop_back(2);
  if (!parseRegNumber(op, r.first))
    return std::nullopt;
  r.last = r.first;
  return r;
}

bool isSpecialRegister(StringRef op) {
  if (!op.consume_back("_lo"))
    op.consume_back("_hi");
  static const char *const names[] = {
      "vcc",       "exec",         "m0",         "scc",
      "vccz",      "execz",        "null",       "tba",
      "tma",       "flat_scratch", "src_scc",    "src_vccz",
      "src_execz", "xnack_mask",   "lds_direct", "src_lds_direct"};
  return llvm::is_contained(names, op);
}

/// Whitespace-separated tokens of `piece`, keeping brackets and parens
/// (v[0 : 3], op_sel:[0, 1]) whole.
void splitTokens(StringRef piece, SmallVectorImpl<StringRef> &tokens) {
  unsigned depth = 0;
  size_t start = StringRef::npos;
  for (size_t i = 0, e = piece.size(); i != e; ++i) {
    char c = piece[i];
    if (c == '[' || c == '(')
      ++depth;
    else if ((c == ']' || c == ')') && depth > 0)
      --depth;
    bool space = depth == 0 && (c == ' ' || c == '\t');
    if (space) {
      if (start != StringRef::npos)
        tokens.push_back(piece.slice(start, i));
      start = StringRef::npos;
    } else if (start == StringRef::npos) {
      start = i;
    }
  }
  if (start != StringRef::npos)
    tokens.push_back(piece.substr(start));
}

void splitOperands(StringRef rest, Instruction &inst) {
  unsigned depth = 0;
  size_t start = 0;
  SmallVector<StringRef, 4> tokens;
  auto flush = [&](StringRef piece) {
    tokens.clear();
    splitTokens(piece, tokens);
    if (tokens.empty()) {
      inst.operands.push_back(StringRef());
      return;
    }
    inst.operands.push_back(tokens.front());
    inst.modifiers.append(tokens.begin() + 1, tokens.end());
  };
  for (size_t i = 0, e = rest.size(); i != e; ++i) {
    char c = rest[i];
    if (c == '[' || c == '(')
      ++depth;
    else if ((c == ']' || c == ')') && depth > 0)
      --depth;
    else if (c == ',' && depth == 0) {
      flush(rest.slice(start, i));
      start = i + 1;
    }
  }
  if (!rest.empty())
    flush(rest.substr(start));
}

std::optional<RegRange> vectorOperand(const Instruction &inst, unsigned idx) {
  if (idx >= inst.operands.size())
    return std::nullopt;
  std::optional<RegRange> r = parseRegister(inst.operands[idx]);
  if (!r || !r->isVector())
    return std::nullopt;
  return r;
}

void addDef(Instruction &inst, unsigned idx) {
  if (std::optional<RegRange> r = vectorOperand(inst, idx))
    inst.vectorDefs.push_back(*r);
}

bool hasModifier(const Instruction &inst, StringRef name) {
  return llvm::is_contained(inst.modifiers, name);
}

/// Atomics return the pre-op value when GLC (SC0 on gfx940+) is set, or
/// when the mnemonic says so.
bool atomicReturns(const Instruction &inst) {
  return inst.mnemonic.contains("_rtn") || hasModifier(inst, "glc") ||
         hasModifier(inst, "sc0");
}

bool isCompareSwap(StringRef mnemonic) {
  return mnemonic.contains("cmpswap") || mnemonic.contains("cmpst");
}

void setStoreData(Instruction &inst, unsigned idx) {
  if (std::optional<RegRange> r = vectorOperand(inst, idx)) {
    inst.storeData = *r;
    inst.storeDwords = r->size();
    return;
  }
  inst.storeDwords = mnemonicDataDwords(inst.mnemonic);
}

void classifyScalar(Instruction &inst) {
  StringRef m = inst.mnemonic;
  StringRef first = inst.operands.empty() ? StringRef() : inst.operands[0];
  if (m == "s_nop") {
    uint64_t imm = 0;
    if (!first.getAsInteger(0, imm))
      inst.waitStates = (imm & 0xf) + 1;
    return;
  }
  if (m == "s_branch") {
    inst.flow = Flow::Branch;
    inst.target = first;
    return;
  }
  if (m.starts_with("s_cbranch_")) {
    inst.flow = Flow::CondBranch;
    // s_cbranch_join/g_fork jump through registers: only the fall-through
    // is known.
    if (!m.starts_with("s_cbranch_join") && !m.starts_with("s_cbranch_g_fork"))
      inst.target = first;
    return;
  }
  if (m.starts_with("s_endpgm") || m.starts_with("s_setpc_") ||
      m.starts_with("s_rfe_")) {
    inst.flow = Flow::Return;
    return;
  }
  if (m.starts_with("s_swappc_") || m.starts_with("s_call_")) {
    inst.flow = Flow::Call;
    return;
  }
}

void classifyVector(Instruction &inst) {
  StringRef m = inst.mnemonic;
  // Compares write VCC, an SGPR pair or EXEC; readlane writes an SGPR.
  if (m.starts_with("v_cmp") || m.starts_with("v_readlane") ||
      m.starts_with("v_readfirstlane") || m.starts_with("v_nop"))
    return;
  addDef(inst, 0);
  // Swaps write both vector operands.
  if (m.starts_with("v_swap") || m.contains("lane16_swap") ||
      m.contains("lane32_swap"))
    addDef(inst, 1);
}

/// MUBUF/MTBUF: buffer_store data is the first operand, buffer atomics
/// return into it.
void classifyBuffer(Instruction &inst) {
  StringRef m = inst.mnemonic;
  bool toLds = m.contains("_lds") || hasModifier(inst, "lds");
  if (m.contains("_store")) {
    if (!toLds)
      setStoreData(inst, 0);
    return;
  }
  if (m.contains("_atomic")) {
    setStoreData(inst, 0);
    if (atomicReturns(inst)) {
      if (std::optional<RegRange> r = vectorOperand(inst, 0)) {
        if (isCompareSwap(m) && r->size() >= 2)
          r->last = r->first + r->size() / 2 - 1;
        inst.vectorDefs.push_back(*r);
      }
    }
    return;
  }
  if (m.contains("_load")) {
    if (!toLds)
      addDef(inst, 0);
    return;
  }
  // buffer_wbinvl1, buffer_inv... have no vector operands; anything else
  // unknown writes its first vector operand.
  addDef(inst, 0);
}

/// FLAT, global and scratch: stores take (vaddr, vdata, ...), atomics with
/// return (vdst, vaddr, vdata, ...).
void classifyFlat(Instruction &inst) {
  StringRef m = inst.mnemonic;
  if (m.contains("_store")) {
    if (!m.contains("_lds"))
      setStoreData(inst, 1);
    return;
  }
  if (m.contains("_atomic")) {
    bool returns = atomicReturns(inst);
    setStoreData(inst, returns ? 2 : 1);
    if (returns)
      addDef(inst, 0);
    return;
  }
  if (m.contains("_load")) {
    if (!m.contains("_lds"))
      addDef(inst, 0);
    return;
  }
  addDef(inst, 0);
}

void classifyDS(Instruction &inst) {
  StringRef m = inst.mnemonic;
  if (m.starts_with("ds_read") || m.starts_with("ds_load") ||
      m.contains("_rtn") || m.starts_with("ds_swizzle") ||
      m.starts_with("ds_permute") || m.starts_with("ds_bpermute") ||
      m.starts_with("ds_append") || m.starts_with("ds_consume") ||
      m.starts_with("ds_ordered_count") || m.starts_with("ds_bvh_stack"))
    addDef(inst, 0);
}

/// MIMG: stores are VMEM stores, but only a 128-bit resource (r128) makes
/// them hazardous; every other image instruction but atomics without return
/// writes its first operand.
void classifyImage(Instruction &inst) {
  StringRef m = inst.mnemonic;
  if (m.starts_with("image_store")) {
    std::optional<RegRange> rsrc;
    if (inst.operands.size() > 2)
      rsrc = parseRegister(inst.operands[2]);
    if (rsrc && rsrc->kind == RegRange::SGPR && rsrc->size() == 4)
      setStoreData(inst, 0);
    return;
  }
  if (m.starts_with("image_atomic")) {
    if (atomicReturns(inst))
      addDef(inst, 0);
    return;
  }
  addDef(inst, 0);
}

unsigned formatComponents(StringRef m) {
  if (m.ends_with("_xyzw"))
    return 4;
  if (m.ends_with("_xyz"))
    return 3;
  if (m.ends_with("_xy"))
    return 2;
  return 1;
}

} // namespace

std::string RegRange::str() const {
  const char *prefix = "";
  switch (kind) {
  case None:
    return "";
  case VGPR:
    prefix = "v";
    break;
  case AGPR:
    prefix = "a";
    break;
  case SGPR:
    prefix = "s";
    break;
  case TTMP:
    prefix = "ttmp";
    break;
  case Special:
    return "special";
  }
  if (first == last)
    return (Twine(prefix) + Twine(first)).str();
  return (Twine(prefix) + "[" + Twine(first) + ":" + Twine(last) + "]").str();
}

std::optional<RegRange> parseRegister(StringRef operand) {
  StringRef op = stripOperandModifiers(operand);
  if (op.empty())
    return std::nullopt;
  // Scalar and vector register files; "ttmp" before "t..." anything else.
  if (op.starts_with("ttmp"))
    return parseIndexed(op, "ttmp", RegRange::TTMP);
  switch (op.front()) {
  case 'v':
    if (auto r = parseIndexed(op, "v", RegRange::VGPR))
      return r;
    break;
  case 'a':
    if (auto r = parseIndexed(op, "acc", RegRange::AGPR))
      return r;
    if (auto r = parseIndexed(op, "a", RegRange::AGPR))
      return r;
    break;
  case 's':
    if (auto r = parseIndexed(op, "s", RegRange::SGPR))
      return r;
    break;
  default:
    break;
  }
  if (isSpecialRegister(op)) {
    RegRange r;
    r.kind = RegRange::Special;
    return r;
  }
  return std::nullopt;
}

bool Instruction::writes(const RegRange &regs) const {
  return llvm::any_of(vectorDefs,
                      [&](const RegRange &d) { return d.overlaps(regs); });
}

unsigned mnemonicDataDwords(StringRef m) {
  bool vmem = m.starts_with("buffer_") || m.starts_with("tbuffer_") ||
              m.starts_with("global_") || m.starts_with("flat_") ||
              m.starts_with("scratch_") || m.starts_with("image_");
  bool store = m.contains("_store");
  bool atomic = m.contains("_atomic");
  if (!vmem || (!store && !atomic) || m.contains("_lds"))
    return 0;
  // Strip encoding suffixes.
  for (StringRef suffix : {"_e32", "_e64", "_vi", "_gfx9"})
    if (m.ends_with(suffix))
      m = m.drop_back(suffix.size());
  unsigned dwords = 1;
  if (m.contains("_format_")) {
    unsigned components = formatComponents(m);
    dwords = m.contains("_d16") ? (components + 1) / 2 : components;
  } else if (m.contains("_d16") || m.ends_with("_byte") ||
             m.ends_with("_short") || m.ends_with("_b8") ||
             m.ends_with("_b16")) {
    dwords = 1;
  } else if (m.ends_with("dwordx4") || m.ends_with("_b128") ||
             m.ends_with("_x4")) {
    dwords = 4;
  } else if (m.ends_with("dwordx3") || m.ends_with("_b96") ||
             m.ends_with("_x3")) {
    dwords = 3;
  } else if (m.ends_with("dwordx2") || m.ends_with("_b64") ||
             m.ends_with("_x2") || m.ends_with("_f64") || m.ends_with("_u64") ||
             m.ends_with("_i64")) {
    dwords = 2;
  }
  // Compare-and-swap carries the new value and the compare value.
  if (atomic && isCompareSwap(m))
    dwords *= 2;
  return dwords;
}

/// Whether `operand` is written as a register (a register file's prefix
/// followed by a number or a bracket) that parseRegister cannot read.
static bool isMalformedRegister(StringRef operand) {
  StringRef op = stripOperandModifiers(operand);
  for (StringRef prefix : {"ttmp", "acc", "v", "a", "s"}) {
    StringRef rest = op;
    if (!rest.consume_front(prefix) || rest.empty())
      continue;
    if (rest.front() != '[' && !isDigit(rest.front()))
      continue;
    return !parseRegister(operand);
  }
  return false;
}

static bool isReadableWaitcnt(const Instruction &inst);

Instruction parseInstruction(StringRef statement, unsigned line) {
  Instruction inst;
  inst.line = line;
  inst.text = statement.trim();
  size_t space = inst.text.find_first_of(" \t");
  inst.mnemonic = inst.text.substr(0, space);
  if (space != StringRef::npos)
    splitOperands(inst.text.substr(space).trim(), inst);

  StringRef m = inst.mnemonic;
  if (m.starts_with("s_"))
    classifyScalar(inst);
  else if (m.starts_with("v_"))
    classifyVector(inst);
  else if (m.starts_with("buffer_") || m.starts_with("tbuffer_"))
    classifyBuffer(inst);
  else if (m.starts_with("global_") || m.starts_with("flat_") ||
           m.starts_with("scratch_"))
    classifyFlat(inst);
  else if (m.starts_with("ds_"))
    classifyDS(inst);
  else if (m.starts_with("image_"))
    classifyImage(inst);
  else if (m == "exp" || m.starts_with("exp_") || m.starts_with("export"))
    ; // exports read VGPRs only
  else
    addDef(inst, 0); // unknown: conservatively a writer
  if (inst.mnemonic == "s_waitcnt" && !isReadableWaitcnt(inst))
    inst.malformedOperand = inst.text.drop_front(inst.mnemonic.size()).trim();
  for (StringRef operand : inst.operands)
    if (operand != inst.target && isMalformedRegister(operand)) {
      inst.malformedOperand = operand;
      break;
    }
  return inst;
}

namespace {

/// Reads the operand of an `s_waitcnt` as the assembler does: counters
/// `name(expr)` joined by `&`, `,` or nothing, or one bare immediate;
/// spaces anywhere between tokens. Expressions are integers with + - * and
/// parentheses. Anything else (a symbol, an unknown form) fails: the wait
/// cannot be read. Counter names point into the text read.
class WaitcntOperand {
public:
  explicit WaitcntOperand(StringRef text) : s(text) {}

  /// Named counts, or the bare immediate in `imm`; false if unreadable.
  bool parse(SmallVectorImpl<std::pair<StringRef, unsigned>> &counts,
             std::optional<int64_t> &imm) {
    s = s.ltrim();
    if (s.empty())
      return false;
    if (isDigit(s.front()) || s.front() == '(' || s.front() == '-') {
      int64_t value;
      if (!expr(value) || !s.ltrim().empty())
        return false;
      imm = value;
      return true;
    }
    while (!(s = s.ltrim()).empty()) {
      StringRef name = s.take_while([](char c) { return isAlnum(c) || c == '_'; });
      s = s.drop_front(name.size());
      int64_t value;
      if (name.empty() || !eat('(') || !expr(value) || !eat(')') || value < 0)
        return false;
      name.consume_back("_sat");
      counts.push_back({name, unsigned(value)});
      if (!eat('&'))
        eat(',');
    }
    return true;
  }

private:
  /// Consumes `c` after any spaces.
  bool eat(char c) {
    s = s.ltrim();
    return s.consume_front(StringRef(&c, 1));
  }
  bool expr(int64_t &value) {
    if (!term(value))
      return false;
    for (;;) {
      bool plus = eat('+');
      if (!plus && !eat('-'))
        return true;
      int64_t rhs;
      if (!term(rhs))
        return false;
      value = plus ? value + rhs : value - rhs;
    }
  }
  bool term(int64_t &value) {
    if (!atom(value))
      return false;
    while (eat('*')) {
      int64_t rhs;
      if (!atom(rhs))
        return false;
      value *= rhs;
    }
    return true;
  }
  bool atom(int64_t &value) {
    if (eat('-')) {
      if (!atom(value))
        return false;
      value = -value;
      return true;
    }
    if (eat('('))
      return expr(value) && eat(')');
    StringRef digits = s.take_while(isAlnum);
    uint64_t v;
    if (digits.empty() || digits.getAsInteger(0, v) || v > (1u << 20))
      return false;
    s = s.drop_front(digits.size());
    value = int64_t(v);
    return true;
  }

  StringRef s;
};

} // namespace

static bool isReadableWaitcnt(const Instruction &inst) {
  SmallVector<std::pair<StringRef, unsigned>, 3> counts;
  std::optional<int64_t> imm;
  return WaitcntOperand(inst.text.drop_front(inst.mnemonic.size()))
      .parse(counts, imm);
}

std::optional<SmallVector<std::pair<StringRef, unsigned>, 3>>
decodeWaitcnt(const Instruction &inst, bool gfx9) {
  if (inst.mnemonic != "s_waitcnt")
    return std::nullopt;
  SmallVector<std::pair<StringRef, unsigned>, 3> counts;
  std::optional<int64_t> imm;
  if (!WaitcntOperand(inst.text.drop_front(inst.mnemonic.size()))
           .parse(counts, imm))
    return SmallVector<std::pair<StringRef, unsigned>, 3>();
  if (imm && gfx9) {
    uint64_t bits = uint64_t(*imm);
    unsigned vm = (bits & 0xf) | ((bits >> 10) & 0x30);
    unsigned exp = (bits >> 4) & 0x7;
    unsigned lgkm = (bits >> 8) & 0xf;
    if (vm != 0x3f)
      counts.push_back({"vmcnt", vm});
    if (exp != 0x7)
      counts.push_back({"expcnt", exp});
    if (lgkm != 0xf)
      counts.push_back({"lgkmcnt", lgkm});
  }
  return counts;
}

} // namespace mlir::rocdsl::isa
