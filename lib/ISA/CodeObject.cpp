//===- CodeObject.cpp - check an HSA code object by disassembling it ------===//
//
// The code object's functions are disassembled in-process with the LLVM MC
// disassembler for AMDGPU into an assembly listing: one labelled function
// per kernel symbol, a `.Lpc_<address>` label at every branch target, the
// branches rewritten to name them, and the metadata note (MessagePack) as
// the `.amdgpu_metadata` YAML an assembler would read. The listing goes
// through checkAssembly; findings then carry each instruction's address
// ("// kernel+0x118") instead of a line.
//
// The chip comes from the ELF e_flags, else from the metadata's
// amdhsa.target. Only the ELFFile APIs that return errors read the object,
// and the metadata is walked with the streaming MessagePack reader, so a
// corrupt code object is an error, never fatal. LLVM 22's AMDGPU decoder
// itself crashes on some invalid encodings (an 8-byte MUBUF store with
// soffset 0xff on gfx942, for one); the decoder recovers (with
// llvm::CrashRecoveryContext, installed while it runs) and keeps such a word
// as data.
//
//===----------------------------------------------------------------------===//
#include "rocdsl/ISA/HazardCheck.h"
#include "rocdsl/ISA/Disassembly.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/BinaryFormat/MsgPackReader.h"
#include "llvm/Object/ELF.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/TargetParser.h"

#include <algorithm>
#include <memory>

using namespace llvm;

namespace mlir::rocdsl::isa {

namespace {

Error fail(StringRef file, const Twine &message) {
  return createStringError(inconvertibleErrorCode(),
                           (file + ": " + message).str());
}


/// Metadata fields the kernel report reads.
const char *const kReportKeys[] = {".vgpr_count",
                                   ".agpr_count",
                                   ".sgpr_count",
                                   ".vgpr_spill_count",
                                   ".sgpr_spill_count",
                                   ".private_segment_fixed_size",
                                   ".group_segment_fixed_size"};

/// A metadata string fit for one YAML line.
std::string yamlScalar(StringRef text) {
  std::string out;
  for (char c : text)
    out += isPrint(c) && c != '\'' ? c : '_';
  return "'" + out + "'";
}

/// A streaming walk over MessagePack: a corrupt note ends the walk, it never
/// aborts it.
class MsgPackWalker {
public:
  explicit MsgPackWalker(StringRef blob) : reader(blob) {}

  bool next(msgpack::Object &obj) {
    Expected<bool> more = reader.read(obj);
    if (!more) {
      consumeError(more.takeError());
      return false;
    }
    return *more;
  }

  /// Skips what `obj` contains (the entries of a map or an array).
  bool skipContents(const msgpack::Object &obj, unsigned depth = 0) {
    if (depth > 32)
      return false;
    uint64_t children = obj.Kind == msgpack::Type::Map
                            ? 2 * uint64_t(obj.Length)
                        : obj.Kind == msgpack::Type::Array ? obj.Length
                                                           : 0;
    for (uint64_t i = 0; i < children; ++i) {
      msgpack::Object child;
      if (!next(child) || !skipContents(child, depth + 1))
        return false;
    }
    return true;
  }

private:
  msgpack::Reader reader;
};

/// One kernel map of amdhsa.kernels as YAML lines.
bool readKernel(MsgPackWalker &walker, const msgpack::Object &map,
                raw_ostream &os) {
  const char *lead = "  - ";
  for (size_t i = 0; i < map.Length; ++i) {
    msgpack::Object key, value;
    if (!walker.next(key) || !walker.skipContents(key) || !walker.next(value))
      return false;
    bool named = key.Kind == msgpack::Type::String;
    if (named && value.Kind == msgpack::Type::String &&
        (key.Raw == ".name" || key.Raw == ".symbol")) {
      os << lead << key.Raw << ": " << yamlScalar(value.Raw) << "\n";
      lead = "    ";
    } else if (named && value.Kind == msgpack::Type::UInt &&
               llvm::is_contained(kReportKeys, key.Raw)) {
      os << lead << key.Raw << ": " << value.UInt << "\n";
      lead = "    ";
    } else if (!walker.skipContents(value)) {
      return false;
    }
  }
  return true;
}

/// The kernel resources of the metadata note (MessagePack) as the
/// `.amdgpu_metadata` YAML of an assembly file, and its amdhsa.target. Only
/// the fields the report reads are carried over.
void readMetadataNote(StringRef blob, raw_ostream &os, std::string &target) {
  MsgPackWalker walker(blob);
  msgpack::Object root;
  if (!walker.next(root) || root.Kind != msgpack::Type::Map)
    return;
  std::string kernels;
  raw_string_ostream kernelsOS(kernels);
  for (size_t i = 0; i < root.Length; ++i) {
    msgpack::Object key, value;
    if (!walker.next(key) || !walker.skipContents(key) || !walker.next(value))
      break;
    bool named = key.Kind == msgpack::Type::String;
    if (named && key.Raw == "amdhsa.target" &&
        value.Kind == msgpack::Type::String) {
      target = value.Raw.str();
      continue;
    }
    if (!named || key.Raw != "amdhsa.kernels" ||
        value.Kind != msgpack::Type::Array) {
      if (!walker.skipContents(value))
        break;
      continue;
    }
    bool ok = true;
    for (size_t k = 0; ok && k < value.Length; ++k) {
      msgpack::Object kernel;
      if (!walker.next(kernel))
        ok = false;
      else if (kernel.Kind == msgpack::Type::Map)
        ok = readKernel(walker, kernel, kernelsOS);
      else
        ok = walker.skipContents(kernel);
    }
    if (!ok)
      break;
  }
  os << "---\namdhsa.kernels:\n" << kernels;
  if (!target.empty())
    os << "amdhsa.target: " << yamlScalar(target) << "\n";
  os << "...\n";
}

void readMetadata(const object::ELF64LEFile &elf, std::string &yaml,
                  std::string &target) {
  auto sections = elf.sections();
  if (!sections) {
    consumeError(sections.takeError());
    return;
  }
  raw_string_ostream os(yaml);
  for (const auto &section : *sections) {
    if (section.sh_type != ELF::SHT_NOTE)
      continue;
    Error err = Error::success();
    for (const auto &note : elf.notes(section, err))
      if (note.getName() == "AMDGPU" &&
          note.getType() == ELF::NT_AMDGPU_METADATA)
        readMetadataNote(toStringRef(note.getDesc(section.sh_addralign)), os,
                         target);
    consumeError(std::move(err));
  }
}



std::string sanitizeLabel(StringRef name, size_t index) {
  std::string label;
  for (char c : name)
    label += isAlnum(c) || c == '_' || c == '.' || c == '$' ? c : '_';
  if (label.empty() || label.front() == '.' || isDigit(label.front()))
    label = "kernel_" + std::to_string(index) + "_" + label;
  return label;
}

std::string pcLabel(uint64_t address) {
  return (".Lpc_" + Twine::utohexstr(address)).str();
}

} // namespace

Expected<CheckResult> checkCodeObject(StringRef bytes, StringRef file,
                                      StringRef chip, WaitAnalysis analysis) {
  if (bytes.size() < ELF::EI_NIDENT || !bytes.starts_with("\x7f"
                                                          "ELF"))
    return fail(file, "not a readable ELF code object: no ELF header");
  if (bytes[ELF::EI_CLASS] != ELF::ELFCLASS64 ||
      bytes[ELF::EI_DATA] != ELF::ELFDATA2LSB)
    return fail(file, "not an AMDGPU code object (not 64-bit little-endian "
                      "ELF)");
  Expected<object::ELF64LEFile> elfOrErr = object::ELF64LEFile::create(bytes);
  if (!elfOrErr)
    return fail(file, "not a readable ELF code object: " +
                          toString(elfOrErr.takeError()));
  const object::ELF64LEFile &elf = *elfOrErr;
  if (elf.getHeader().e_machine != ELF::EM_AMDGPU)
    return fail(file, "not an AMDGPU code object");
  unsigned flags = elf.getHeader().e_flags;

  std::string yaml, metadataTarget;
  readMetadata(elf, yaml, metadataTarget);
  std::string name = normalizeChip(chip);
  if (name.empty())
    name = chipFromELFFlags(flags).str();
  if (name.empty())
    name = normalizeChip(metadataTarget);
  if (name.empty())
    return fail(file, "the code object names no chip it knows (pass a chip)");
  if (!isKnownChip(name))
    return fail(file, "unknown chip '" + name + "'");

  // gfx940/gfx941 code decodes like gfx942's. LLVM disassembles GCN3
  // encodings (gfx8) and later only, and aborts on older ones.
  std::string cpu = name == "gfx940" || name == "gfx941" ? "gfx942" : name;
  if (AMDGPU::getIsaVersion(cpu).Major < 8)
    return fail(file, "cannot disassemble " + name +
                          " code objects (LLVM decodes gfx8 and later)");
  auto d = AMDGPUDisassembler::create(cpu);
  if (!d)
    return fail(file, toString(d.takeError()));

  // Lines of the listing that hold instructions, and where they came from.
  DenseMap<unsigned, std::string> where;
  std::string listing;
  raw_string_ostream os(listing);
  unsigned line = 1;
  auto emit = [&](const Twine &text) {
    os << text << "\n";
    ++line;
  };
  emit("\t.amdgcn_target \"amdgcn-amd-amdhsa--" + name + "\"");
  emit("\t.text");
  // A section table that cannot be read (a truncated object) hides the
  // code: unreadable input, not a clean result.
  if (auto sections = elf.sections(); !sections)
    return fail(file, "not a readable ELF code object: " +
                          toString(sections.takeError()));
  std::vector<CodeFunction> functions = collectCodeFunctions(elf);
  if (functions.empty())
    functions = collectCodeSections(elf);
  if (functions.empty())
    return fail(file, "no executable code in the code object");
  for (size_t i = 0; i < functions.size(); ++i) {
    const CodeFunction &f = functions[i];
    std::string label = sanitizeLabel(f.name, i);
    std::vector<DecodedInstruction> code = (*d)->decode(f);
    SmallVector<uint64_t, 16> targets;
    for (const DecodedInstruction &inst : code)
      if (inst.branchTarget)
        targets.push_back(*inst.branchTarget);
    llvm::sort(targets);
    emit("\t.type " + label + ",@function");
    emit(label + ":");
    for (const DecodedInstruction &inst : code) {
      if (std::binary_search(targets.begin(), targets.end(), inst.address))
        emit(pcLabel(inst.address) + ":");
      where[line] =
          (label + "+0x" + Twine::utohexstr(inst.address - f.address)).str();
      if (inst.branchTarget) {
        StringRef mnemonic = StringRef(inst.text).split(' ').first;
        emit("\t" + mnemonic + " " + pcLabel(*inst.branchTarget));
      } else {
        emit("\t" + inst.text);
      }
    }
    emit(".Lfunc_end" + Twine(i) + ":");
  }
  if (!yaml.empty()) {
    emit("\t.amdgpu_metadata");
    os << yaml;
    emit("\t.end_amdgpu_metadata");
  }
  os.flush();

  Expected<CheckResult> result =
      checkAssembly(listing, file, name, analysis);
  if (!result)
    return result.takeError();
  auto locate = [&](unsigned &lineNo, std::string &text) {
    auto it = where.find(lineNo);
    if (it != where.end())
      text += " // " + it->second;
    lineNo = 0;
  };
  for (KernelReport &k : result->kernels) {
    for (Finding &f : k.hazards) {
      locate(f.storeLine, f.storeText);
      locate(f.writeLine, f.writeText);
    }
    for (WaitFinding &f : k.waitViolations) {
      locate(f.loadLine, f.loadText);
      locate(f.useLine, f.useText);
    }
    for (WaitSlack &w : k.waitSlack)
      locate(w.line, w.text);
  }
  for (CheckResult::UncheckedCode &u : result->unchecked)
    locate(u.line, u.text);
  return result;
}

} // namespace mlir::rocdsl::isa
