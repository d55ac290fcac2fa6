//===- KernelReport.cpp - per-kernel waitcnt/register/spill/scratch/LDS ---===//
//
// Resources come from whatever the text carries, the most precise source
// winning: the `.amdgpu_metadata` YAML (also what a code object's note
// becomes), `.set <kernel>.num_vgpr`-style symbols and llc's "; NumVgprs:"
// kernel-info comments, then `.amdhsa_*` directives. s_waitcnt instructions
// are counted from the parsed kernel, by the counters they wait on.
//
//===----------------------------------------------------------------------===//
#include "rocdsl/ISA/HazardCheck.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace mlir::rocdsl::isa {

namespace {

/// A value and the precision of its source; a more precise source wins.
struct Sourced {
  unsigned value = 0;
  int priority = -1;
  void set(unsigned v, int p) {
    if (p >= priority) {
      value = v;
      priority = p;
    }
  }
};

/// How precise a source is. Exact: the number itself (metadata, llc's
/// "; NumVgprs:" and `.set x.num_vgpr`). Derived: the same number from a
/// related one (architected VGPRs from the unified count), or a second-hand
/// copy (comments and symbols next to metadata). Directive: `.amdhsa_*`
/// allocation bounds. Weakest: bounds that omit registers the hardware adds.
enum Priority { kWeakest = 0, kDirective = 1, kDerived = 2, kExact = 3 };

struct Resources {
  Sourced vgprs, agprs, sgprs, vgprSpills, sgprSpills, scratch, lds;
};

/// The leading decimal (or 0x hex) integer of `text`.
std::optional<unsigned> leadingInteger(StringRef text) {
  text = text.trim().trim("'\"");
  StringRef digits = text;
  if (digits.starts_with("0x") || digits.starts_with("0X"))
    digits = text.take_while(
        [&](char c) { return isHexDigit(c) || c == 'x' || c == 'X'; });
  else
    digits = text.take_while(isDigit);
  unsigned value = 0;
  if (digits.empty() || digits.getAsInteger(0, value))
    return std::nullopt;
  return value;
}

/// One kernel entry of `amdhsa.kernels` in the metadata YAML.
struct MetadataKernel {
  std::string name;
  std::optional<unsigned> vgprs, agprs, sgprs, vgprSpills, sgprSpills, scratch,
      lds;
  void set(StringRef key, StringRef value) {
    if (key == ".name") {
      name = value.trim().trim("'\"").str();
      return;
    }
    std::optional<unsigned> v = leadingInteger(value);
    if (!v)
      return;
    if (key == ".vgpr_count")
      vgprs = v;
    else if (key == ".agpr_count")
      agprs = v;
    else if (key == ".sgpr_count")
      sgprs = v;
    else if (key == ".vgpr_spill_count")
      vgprSpills = v;
    else if (key == ".sgpr_spill_count")
      sgprSpills = v;
    else if (key == ".private_segment_fixed_size")
      scratch = v;
    else if (key == ".group_segment_fixed_size")
      lds = v;
  }
};

class ResourceScanner {
public:
  ResourceScanner(const AsmModule &module) {
    for (const Kernel &k : module.kernels)
      names.insert(k.name);
  }

  StringMap<Resources> scan(StringRef text) {
    for (StringRef rest = text; !rest.empty();) {
      auto [line, tail] = rest.split('\n');
      rest = tail;
      if (inMetadata)
        metadataLine(line);
      else
        asmLine(line.trim());
    }
    flushMetadataKernel();
    return std::move(table);
  }

private:
  void asmLine(StringRef s) {
    if (s.empty())
      return;
    if (s.front() == ';') {
      commentLine(s.drop_front().trim());
      return;
    }
    if (s.front() == '.') {
      directiveLine(s);
      return;
    }
    // A kernel's label makes it the subject of later comments.
    size_t colon = s.find(':');
    if (colon != StringRef::npos && names.contains(s.take_front(colon)))
      current = s.take_front(colon).str();
  }

  void commentLine(StringRef s) {
    if (current.empty())
      return;
    auto [key, value] = s.split(':');
    key = key.trim();
    std::optional<unsigned> v = leadingInteger(value);
    if (!v || value.empty())
      return;
    Resources &r = table[current];
    if (key == "NumVgprs")
      r.vgprs.set(*v, kExact);
    else if (key == "NumAgprs")
      r.agprs.set(*v, kDerived);
    else if (key == "TotalNumSgprs")
      r.sgprs.set(*v, kDerived);
    else if (key == "ScratchSize")
      r.scratch.set(*v, kDerived);
    else if (key == "LDSByteSize")
      r.lds.set(*v, kDerived);
  }

  void directiveLine(StringRef s) {
    // Strip a trailing comment.
    s = s.split(';').first.trim();
    StringRef name = s.take_until([](char c) { return isSpace(c); });
    StringRef args = s.drop_front(name.size()).trim();
    if (name == ".amdgpu_metadata") {
      inMetadata = true;
      inKernels = false;
      return;
    }
    if (name == ".amdhsa_kernel") {
      hsaKernel = args.str();
      return;
    }
    if (name == ".end_amdhsa_kernel") {
      hsaKernel.clear();
      return;
    }
    if (name == ".type") {
      // Later comments describe the function declared last.
      StringRef sym = args.split(',').first.trim();
      if (names.contains(sym))
        current = sym.str();
      return;
    }
    if (name == ".set") {
      auto [sym, value] = args.split(',');
      sym = sym.trim();
      size_t dot = sym.rfind('.');
      if (dot == StringRef::npos)
        return;
      StringRef kernel = sym.take_front(dot), key = sym.drop_front(dot + 1);
      std::optional<unsigned> v = leadingInteger(value);
      if (!v || !names.contains(kernel) ||
          value.trim().size() != value.trim().take_while(isDigit).size())
        return;
      Resources &r = table[kernel];
      if (key == "num_vgpr")
        r.vgprs.set(*v, kExact);
      else if (key == "num_agpr")
        r.agprs.set(*v, kDerived);
      else if (key == "numbered_sgpr")
        r.sgprs.set(*v, kDirective);
      else if (key == "private_seg_size")
        r.scratch.set(*v, kDerived);
      return;
    }
    if (hsaKernel.empty() || !name.starts_with(".amdhsa_"))
      return;
    // Only literal values: LLVM may write expressions of the symbols above.
    if (args.empty() || !llvm::all_of(args, isDigit))
      return;
    std::optional<unsigned> v = leadingInteger(args);
    if (!v)
      return;
    Resources &r = table[hsaKernel];
    if (name == ".amdhsa_next_free_vgpr")
      r.vgprs.set(*v, kDirective);
    else if (name == ".amdhsa_next_free_sgpr")
      r.sgprs.set(*v, kWeakest);
    else if (name == ".amdhsa_private_segment_fixed_size")
      r.scratch.set(*v, kDirective);
    else if (name == ".amdhsa_group_segment_fixed_size")
      r.lds.set(*v, kDirective);
  }

  void metadataLine(StringRef line) {
    StringRef trimmed = line.trim();
    if (trimmed.starts_with(".end_amdgpu_metadata")) {
      flushMetadataKernel();
      inMetadata = false;
      return;
    }
    if (trimmed.empty() || trimmed == "---" || trimmed == "...")
      return;
    size_t indent = line.find_first_not_of(' ');
    if (indent == 0 && trimmed.front() != '-') {
      flushMetadataKernel();
      inKernels = trimmed.starts_with("amdhsa.kernels:");
      itemIndent = StringRef::npos;
      return;
    }
    if (!inKernels)
      return;
    StringRef content = trimmed;
    if (content.consume_front("- ") || content == "-") {
      if (itemIndent == StringRef::npos)
        itemIndent = indent;
      if (indent != itemIndent)
        return; // an argument of the kernel
      flushMetadataKernel();
      item.emplace();
      indent += 2;
      content = content.ltrim();
    }
    if (!item || indent != itemIndent + 2 || !content.starts_with("."))
      return;
    auto [key, value] = content.split(':');
    item->set(key.trim(), value);
  }

  void flushMetadataKernel() {
    if (!item)
      return;
    MetadataKernel k = std::move(*item);
    item.reset();
    if (k.name.empty() || !names.contains(k.name))
      return;
    Resources &r = table[k.name];
    unsigned agprs = k.agprs.value_or(0);
    if (k.agprs)
      r.agprs.set(agprs, kExact);
    // .vgpr_count is the unified count on chips with AGPRs.
    if (k.vgprs)
      r.vgprs.set(*k.vgprs > agprs ? *k.vgprs - agprs : 0, kDerived);
    if (k.sgprs)
      r.sgprs.set(*k.sgprs, kExact);
    if (k.vgprSpills)
      r.vgprSpills.set(*k.vgprSpills, kExact);
    if (k.sgprSpills)
      r.sgprSpills.set(*k.sgprSpills, kExact);
    if (k.scratch)
      r.scratch.set(*k.scratch, kExact);
    if (k.lds)
      r.lds.set(*k.lds, kExact);
  }

  StringSet<> names;
  StringMap<Resources> table;
  std::string current, hsaKernel;
  bool inMetadata = false, inKernels = false;
  size_t itemIndent = StringRef::npos;
  std::optional<MetadataKernel> item;
};

/// Counters one s_waitcnt-family instruction waits on.
void waitcntKinds(const Instruction &inst, StringRef chip,
                  SmallVectorImpl<std::string> &kinds) {
  StringRef m = inst.mnemonic;
  auto add = [&](StringRef kind) {
    if (!kind.empty() && !llvm::is_contained(kinds, kind))
      kinds.push_back(kind.str());
  };
  if (auto counts = decodeWaitcnt(inst, chip.starts_with("gfx9"))) {
    for (auto [kind, value] : *counts)
      add(kind);
    return;
  }
  if (m.consume_front("s_waitcnt_")) {
    add(m);
    return;
  }
  if (m.consume_front("s_wait_")) {
    SmallVector<StringRef, 2> pieces;
    m.split(pieces, '_');
    for (StringRef piece : pieces)
      add(piece);
  }
}

const char *plural(unsigned n) { return n == 1 ? "" : "s"; }

} // namespace

std::vector<KernelReport>
buildKernelReports(StringRef text, const AsmModule &module, StringRef chip) {
  StringMap<Resources> table = ResourceScanner(module).scan(text);
  std::vector<KernelReport> reports;
  reports.reserve(module.kernels.size());
  SmallVector<std::string, 4> kinds;
  for (const Kernel &kernel : module.kernels) {
    KernelReport report;
    report.name = kernel.name;
    report.waitcnts["total"] = 0;
    for (const Instruction &inst : kernel.instructions) {
      if (!inst.mnemonic.starts_with("s_wait"))
        continue;
      ++report.waitcnts["total"];
      kinds.clear();
      waitcntKinds(inst, chip, kinds);
      for (const std::string &kind : kinds)
        ++report.waitcnts[kind];
    }
    auto it = table.find(kernel.name);
    if (it != table.end()) {
      const Resources &r = it->second;
      report.vgprs = r.vgprs.value;
      report.agprs = r.agprs.value;
      report.sgprs = r.sgprs.value;
      report.vgprSpills = r.vgprSpills.value;
      report.sgprSpills = r.sgprSpills.value;
      report.scratchBytes = r.scratch.value;
      report.ldsBytes = r.lds.value;
    }
    reports.push_back(std::move(report));
  }
  return reports;
}

std::string formatFinding(const Finding &f) {
  std::string out;
  raw_string_ostream os(out);
  os << f.file;
  if (f.storeLine)
    os << ":" << f.storeLine;
  os << ": hazard: kernel '" << f.kernel << "': '" << f.storeText << "' data "
     << f.registers << " overwritten";
  if (f.writeLine)
    os << " at line " << f.writeLine;
  os << " by '" << f.writeText << "' after " << f.waitStates << " wait state"
     << plural(f.waitStates) << " (" << f.needed << " needed)";
  return out;
}

std::string toText(const CheckResult &result) {
  std::string out;
  raw_string_ostream os(out);
  unsigned hazards = 0;
  for (const KernelReport &k : result.kernels)
    for (const Finding &f : k.hazards) {
      os << formatFinding(f) << "\n";
      ++hazards;
    }
  os << result.file << ": " << result.chip << ": " << result.kernels.size()
     << " kernel" << plural(result.kernels.size()) << ", " << hazards
     << " hazard" << plural(hazards) << "\n";
  for (const KernelReport &k : result.kernels) {
    unsigned total = 0;
    if (auto it = k.waitcnts.find("total"); it != k.waitcnts.end())
      total = it->second;
    os << "  kernel " << k.name << ": s_waitcnt " << total;
    bool first = true;
    for (const auto &[kind, count] : k.waitcnts) {
      if (kind == "total")
        continue;
      os << (first ? " (" : ", ") << kind << " " << count;
      first = false;
    }
    if (!first)
      os << ")";
    os << "; VGPRs " << k.vgprs << ", AGPRs " << k.agprs << ", SGPRs "
       << k.sgprs << "; spills " << k.vgprSpills << " VGPR, " << k.sgprSpills
       << " SGPR; scratch " << k.scratchBytes << " B; LDS " << k.ldsBytes
       << " B; " << k.hazards.size() << " hazard" << plural(k.hazards.size())
       << "\n";
  }
  return out;
}

} // namespace mlir::rocdsl::isa
