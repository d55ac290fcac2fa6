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
// soffset 0xff on gfx942, for one); with llvm::CrashRecoveryContext enabled,
// as rocdsl-isa-check does, such a word is skipped as data.
//
//===----------------------------------------------------------------------===//
#include "rocdsl/ISA/HazardCheck.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/BinaryFormat/MsgPackReader.h"
#include "llvm/MC/MCAsmInfo.h"
#include "llvm/MC/MCContext.h"
#include "llvm/MC/MCDisassembler/MCDisassembler.h"
#include "llvm/MC/MCInst.h"
#include "llvm/MC/MCInstPrinter.h"
#include "llvm/MC/MCInstrAnalysis.h"
#include "llvm/MC/MCInstrInfo.h"
#include "llvm/MC/MCRegisterInfo.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/MCTargetOptions.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Object/ELF.h"
#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/TargetParser.h"
#include "llvm/TargetParser/Triple.h"

#include <algorithm>
#include <memory>

using namespace llvm;

namespace mlir::rocdsl::isa {

namespace {

Error fail(StringRef file, const Twine &message) {
  return createStringError(inconvertibleErrorCode(),
                           (file + ": " + message).str());
}

/// The processor an AMDGPU ELF's e_flags name, for the chips with a
/// wide-store rule and the generic targets; "" otherwise (the metadata then
/// decides).
StringRef chipFromFlags(unsigned flags) {
  switch (flags & ELF::EF_AMDGPU_MACH) {
  case ELF::EF_AMDGPU_MACH_AMDGCN_GFX600:
    return "gfx600";
  case ELF::EF_AMDGPU_MACH_AMDGCN_GFX601:
    return "gfx601";
  case ELF::EF_AMDGPU_MACH_AMDGCN_GFX602:
    return "gfx602";
  case ELF::EF_AMDGPU_MACH_AMDGCN_GFX700:
    return "gfx700";
  case ELF::EF_AMDGPU_MACH_AMDGCN_GFX701:
    return "gfx701";
  case ELF::EF_AMDGPU_MACH_AMDGCN_GFX702:
    return "gfx702";
  case ELF::EF_AMDGPU_MACH_AMDGCN_GFX703:
    return "gfx703";
  case ELF::EF_AMDGPU_MACH_AMDGCN_GFX704:
    return "gfx704";
  case ELF::EF_AMDGPU_MACH_AMDGCN_GFX705:
    return "gfx705";
  case ELF::EF_AMDGPU_MACH_AMDGCN_GFX801:
    return "gfx801";
  case ELF::EF_AMDGPU_MACH_AMDGCN_GFX802:
    return "gfx802";
  case ELF::EF_AMDGPU_MACH_AMDGCN_GFX803:
    return "gfx803";
  case ELF::EF_AMDGPU_MACH_AMDGCN_GFX805:
    return "gfx805";
  case ELF::EF_AMDGPU_MACH_AMDGCN_GFX810:
    return "gfx810";
  case ELF::EF_AMDGPU_MACH_AMDGCN_GFX900:
    return "gfx900";
  case ELF::EF_AMDGPU_MACH_AMDGCN_GFX902:
    return "gfx902";
  case ELF::EF_AMDGPU_MACH_AMDGCN_GFX904:
    return "gfx904";
  case ELF::EF_AMDGPU_MACH_AMDGCN_GFX906:
    return "gfx906";
  case ELF::EF_AMDGPU_MACH_AMDGCN_GFX908:
    return "gfx908";
  case ELF::EF_AMDGPU_MACH_AMDGCN_GFX909:
    return "gfx909";
  case ELF::EF_AMDGPU_MACH_AMDGCN_GFX90A:
    return "gfx90a";
  case ELF::EF_AMDGPU_MACH_AMDGCN_GFX90C:
    return "gfx90c";
  case 0x040: // EF_AMDGPU_MACH_AMDGCN_GFX940, reserved since LLVM 20
    return "gfx940";
  case 0x04b: // EF_AMDGPU_MACH_AMDGCN_GFX941, reserved since LLVM 20
    return "gfx941";
  case ELF::EF_AMDGPU_MACH_AMDGCN_GFX942:
    return "gfx942";
  case ELF::EF_AMDGPU_MACH_AMDGCN_GFX950:
    return "gfx950";
  case ELF::EF_AMDGPU_MACH_AMDGCN_GFX9_GENERIC:
    return "gfx9-generic";
  case ELF::EF_AMDGPU_MACH_AMDGCN_GFX9_4_GENERIC:
    return "gfx9-4-generic";
  default:
    return "";
  }
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

struct Function {
  std::string name;
  uint64_t address = 0, size = 0;
  StringRef bytes; ///< the section's contents
  uint64_t sectionAddress = 0;
};

std::string sanitizeLabel(StringRef name, size_t index) {
  std::string label;
  for (char c : name)
    label += isAlnum(c) || c == '_' || c == '.' || c == '$' ? c : '_';
  if (label.empty() || label.front() == '.' || isDigit(label.front()))
    label = "kernel_" + std::to_string(index) + "_" + label;
  return label;
}

/// Kernel symbols in executable sections, by address. Only the Expected
/// APIs of ELFFile: a corrupt code object is an error or skipped, never
/// fatal.
std::vector<Function> collectFunctions(const object::ELF64LEFile &elf) {
  std::vector<Function> functions;
  auto sections = elf.sections();
  if (!sections) {
    consumeError(sections.takeError());
    return functions;
  }
  for (const object::ELF64LE::Shdr &table : *sections) {
    if (table.sh_type != ELF::SHT_SYMTAB && table.sh_type != ELF::SHT_DYNSYM)
      continue;
    auto symbols = elf.symbols(&table);
    auto strings = elf.getStringTableForSymtab(table, *sections);
    if (!symbols || !strings) {
      consumeError(symbols.takeError());
      consumeError(strings.takeError());
      continue;
    }
    for (const object::ELF64LE::Sym &sym : *symbols) {
      uint8_t type = sym.getType();
      if (type != ELF::STT_FUNC && type != ELF::STT_AMDGPU_HSA_KERNEL)
        continue;
      unsigned index = sym.st_shndx;
      if (index == ELF::SHN_UNDEF || index >= ELF::SHN_LORESERVE ||
          index >= sections->size())
        continue;
      const object::ELF64LE::Shdr &text = (*sections)[index];
      if (!(text.sh_flags & ELF::SHF_EXECINSTR) ||
          text.sh_type != ELF::SHT_PROGBITS)
        continue;
      auto name = sym.getName(*strings);
      auto contents = elf.getSectionContents(text);
      if (!name || !contents) {
        consumeError(name.takeError());
        consumeError(contents.takeError());
        continue;
      }
      uint64_t address = sym.st_value;
      if (llvm::any_of(functions, [&](const Function &f) {
            return f.address == address && f.name == *name;
          }))
        continue;
      Function f;
      f.name = name->str();
      f.address = address;
      f.size = sym.st_size;
      f.bytes = toStringRef(*contents);
      f.sectionAddress = text.sh_addr;
      functions.push_back(std::move(f));
    }
  }
  llvm::sort(functions, [](const Function &a, const Function &b) {
    return a.address < b.address;
  });
  // Functions without a size run to the next one or the section end.
  for (size_t i = 0; i < functions.size(); ++i) {
    Function &f = functions[i];
    uint64_t sectionEnd = f.sectionAddress + f.bytes.size();
    if (f.address < f.sectionAddress || f.address > sectionEnd ||
        sectionEnd < f.sectionAddress) {
      f.size = 0;
      continue;
    }
    uint64_t limit = sectionEnd - f.address;
    if (f.size == 0 && i + 1 < functions.size() &&
        functions[i + 1].address > f.address)
      f.size = functions[i + 1].address - f.address;
    f.size = std::min(f.size == 0 ? limit : f.size, limit);
  }
  return functions;
}

/// The LLVM MC pieces that disassemble and print AMDGPU code for one chip.
struct Disassembler {
  Triple triple{"amdgcn-amd-amdhsa"};
  std::unique_ptr<MCRegisterInfo> mri;
  std::unique_ptr<MCAsmInfo> mai;
  std::unique_ptr<MCSubtargetInfo> sti;
  std::unique_ptr<MCInstrInfo> mii;
  std::unique_ptr<MCContext> ctx;
  std::unique_ptr<MCDisassembler> disassembler;
  std::unique_ptr<MCInstPrinter> printer;
  std::unique_ptr<MCInstrAnalysis> analysis;

  std::string cpu;

  Error init(StringRef cpuName, StringRef file) {
    analysis.reset();
    printer.reset();
    disassembler.reset();
    ctx.reset();
    cpu = cpuName.str();
    static const bool initialized = [] {
      LLVMInitializeAMDGPUTargetInfo();
      LLVMInitializeAMDGPUTargetMC();
      LLVMInitializeAMDGPUDisassembler();
      return true;
    }();
    (void)initialized;
    std::string error;
    const Target *target = TargetRegistry::lookupTarget(triple, error);
    if (!target)
      return fail(file, "no AMDGPU disassembler: " + error);
    mri.reset(target->createMCRegInfo(triple));
    MCTargetOptions options;
    if (mri)
      mai.reset(target->createMCAsmInfo(*mri, triple, options));
    sti.reset(target->createMCSubtargetInfo(triple, cpu, ""));
    mii.reset(target->createMCInstrInfo());
    if (!mri || !mai || !sti || !mii)
      return fail(file, "cannot set up the AMDGPU disassembler for " + cpu);
    ctx = std::make_unique<MCContext>(triple, mai.get(), mri.get(), sti.get());
    disassembler.reset(target->createMCDisassembler(*sti, *ctx));
    printer.reset(target->createMCInstPrinter(
        triple, mai->getAssemblerDialect(), *mai, *mii, *mri));
    analysis.reset(target->createMCInstrAnalysis(mii.get()));
    if (!disassembler || !printer)
      return fail(file, "cannot set up the AMDGPU disassembler for " + cpu);
    return Error::success();
  }
};

struct Decoded {
  uint64_t address = 0;
  std::string text;
  std::optional<uint64_t> target;
};

std::vector<Decoded> disassemble(Disassembler &d, const Function &f) {
  std::vector<Decoded> out;
  if (f.size == 0)
    return out;
  ArrayRef<uint8_t> bytes = arrayRefFromStringRef(f.bytes);
  uint64_t begin = f.address - f.sectionAddress;
  bytes = bytes.slice(begin, f.size);
  for (uint64_t offset = 0; offset < bytes.size();) {
    uint64_t address = f.address + offset;
    MCInst inst;
    uint64_t size = 0;
    Decoded decoded;
    decoded.address = address;
    std::string text;
    MCDisassembler::DecodeStatus status = MCDisassembler::Fail;
    // LLVM's AMDGPU decoder crashes on some invalid encodings. Where crash
    // recovery is enabled that costs one word, decoded again with fresh MC
    // state.
    CrashRecoveryContext recovery;
    bool survived = recovery.RunSafely([&] {
      status = d.disassembler->getInstruction(inst, size, bytes.slice(offset),
                                              address, nulls());
      if (status == MCDisassembler::Success && size != 0) {
        raw_string_ostream os(text);
        d.printer->printInst(&inst, address, "", *d.sti, os);
      }
    });
    if (!survived) {
      status = MCDisassembler::Fail;
      if (Error err = d.init(d.cpu, "")) {
        consumeError(std::move(err));
        return out;
      }
    }
    if (status != MCDisassembler::Success || size == 0 ||
        size > bytes.size() - offset) {
      size = std::min<uint64_t>(4, bytes.size() - offset);
      uint32_t word = 0;
      for (uint64_t i = 0; i < size; ++i)
        word |= uint32_t(bytes[offset + i]) << (8 * i);
      decoded.text = (".long 0x" + Twine::utohexstr(word)).str();
      out.push_back(std::move(decoded));
      offset += size;
      continue;
    }
    // One statement per line: keep the first, without tabs.
    decoded.text = StringRef(text).split('\n').first.trim().str();
    std::replace(decoded.text.begin(), decoded.text.end(), '\t', ' ');
    uint64_t target = 0;
    if (d.analysis && d.analysis->isBranch(inst) &&
        d.analysis->evaluateBranch(inst, address, size, target))
      decoded.target = target;
    out.push_back(std::move(decoded));
    offset += size;
  }
  return out;
}

std::string pcLabel(uint64_t address) {
  return (".Lpc_" + Twine::utohexstr(address)).str();
}

} // namespace

Expected<CheckResult> checkCodeObject(StringRef bytes, StringRef file,
                                      StringRef chip) {
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
    name = chipFromFlags(flags).str();
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
  Disassembler d;
  if (Error err = d.init(cpu, file))
    return err;

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
  std::vector<Function> functions = collectFunctions(elf);
  for (size_t i = 0; i < functions.size(); ++i) {
    const Function &f = functions[i];
    std::string label = sanitizeLabel(f.name, i);
    std::vector<Decoded> code = disassemble(d, f);
    SmallVector<uint64_t, 16> targets;
    for (const Decoded &inst : code)
      if (inst.target)
        targets.push_back(*inst.target);
    llvm::sort(targets);
    emit("\t.type " + label + ",@function");
    emit(label + ":");
    for (const Decoded &inst : code) {
      if (std::binary_search(targets.begin(), targets.end(), inst.address))
        emit(pcLabel(inst.address) + ":");
      where[line] =
          (label + "+0x" + Twine::utohexstr(inst.address - f.address)).str();
      if (inst.target) {
        StringRef mnemonic = StringRef(inst.text).split(' ').first;
        emit("\t" + mnemonic + " " + pcLabel(*inst.target));
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

  Expected<CheckResult> result = checkAssembly(listing, file, name);
  if (!result)
    return result.takeError();
  auto locate = [&](unsigned &lineNo, std::string &text) {
    auto it = where.find(lineNo);
    if (it != where.end())
      text += " // " + it->second;
    lineNo = 0;
  };
  for (KernelReport &k : result->kernels)
    for (Finding &f : k.hazards) {
      locate(f.storeLine, f.storeText);
      locate(f.writeLine, f.writeText);
    }
  return result;
}

} // namespace mlir::rocdsl::isa
