//===- Disassembly.cpp - AMDGPU code objects decoded in-process -----------===//
#include "rocdsl/ISA/Disassembly.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/Twine.h"
#include "llvm/BinaryFormat/ELF.h"
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
#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Triple.h"

#include <algorithm>
#include <mutex>

using namespace llvm;

namespace mlir::rocdsl::isa {

namespace {

/// LLVM's AMDGPU decoder crashes on some invalid encodings, and recovering
/// needs LLVM's crash signal handlers, which are process-wide. They are
/// installed while any decode runs and the process's own handlers restored
/// when the last one ends: the decoder also runs inside other programs (the
/// HIP emulator library loads code objects there), which must keep theirs.
class CrashRecoveryScope {
public:
  CrashRecoveryScope() {
    std::lock_guard<std::mutex> lock(mutex());
    if (active()++ == 0)
      CrashRecoveryContext::Enable();
  }
  ~CrashRecoveryScope() {
    std::lock_guard<std::mutex> lock(mutex());
    if (--active() == 0)
      CrashRecoveryContext::Disable();
  }
  CrashRecoveryScope(const CrashRecoveryScope &) = delete;
  CrashRecoveryScope &operator=(const CrashRecoveryScope &) = delete;

private:
  static std::mutex &mutex() {
    static std::mutex m;
    return m;
  }
  static unsigned &active() {
    static unsigned count = 0;
    return count;
  }
};

} // namespace

StringRef chipFromELFFlags(unsigned flags) {
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

/// Kernel symbols in executable sections, by address. Only the Expected
/// APIs of ELFFile: a corrupt code object is an error or skipped, never
/// fatal.
void forEachSymbol(
    const object::ELF64LEFile &elf,
    function_ref<bool(const object::ELF64LE::Sym &, StringRef name)> visit) {
  auto sections = elf.sections();
  if (!sections) {
    consumeError(sections.takeError());
    return;
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
      auto name = sym.getName(*strings);
      if (!name) {
        consumeError(name.takeError());
        continue;
      }
      if (!visit(sym, *name))
        return;
    }
  }
}

std::vector<CodeFunction> collectCodeFunctions(const object::ELF64LEFile &elf) {
  std::vector<CodeFunction> functions;
  auto sections = elf.sections();
  if (!sections) {
    consumeError(sections.takeError());
    return functions;
  }
  forEachSymbol(elf, [&](const object::ELF64LE::Sym &sym, StringRef name) {
      uint8_t type = sym.getType();
      if (type != ELF::STT_FUNC && type != ELF::STT_AMDGPU_HSA_KERNEL)
        return true;
      unsigned index = sym.st_shndx;
      if (index == ELF::SHN_UNDEF || index >= ELF::SHN_LORESERVE ||
          index >= sections->size())
        return true;
      const object::ELF64LE::Shdr &text = (*sections)[index];
      if (!(text.sh_flags & ELF::SHF_EXECINSTR) ||
          text.sh_type != ELF::SHT_PROGBITS)
        return true;
      auto contents = elf.getSectionContents(text);
      if (!contents) {
        consumeError(contents.takeError());
        return true;
      }
      uint64_t address = sym.st_value;
      if (llvm::any_of(functions, [&](const CodeFunction &f) {
            return f.address == address && f.name == name;
          }))
        return true;
      CodeFunction f;
      f.name = name.str();
      f.address = address;
      f.size = sym.st_size;
      f.bytes = toStringRef(*contents);
      f.sectionAddress = text.sh_addr;
      functions.push_back(std::move(f));
      return true;
  });
  llvm::sort(functions, [](const CodeFunction &a, const CodeFunction &b) {
    return a.address < b.address;
  });
  // Functions without a size run to the next one or the section end.
  for (size_t i = 0; i < functions.size(); ++i) {
    CodeFunction &f = functions[i];
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

std::vector<CodeFunction> collectCodeSections(const object::ELF64LEFile &elf) {
  std::vector<CodeFunction> functions;
  auto sections = elf.sections();
  if (!sections) {
    consumeError(sections.takeError());
    return functions;
  }
  for (const object::ELF64LE::Shdr &text : *sections) {
    if (!(text.sh_flags & ELF::SHF_EXECINSTR) ||
        text.sh_type != ELF::SHT_PROGBITS)
      continue;
    auto contents = elf.getSectionContents(text);
    auto name = elf.getSectionName(text);
    if (!contents || !name || contents->empty()) {
      if (!contents)
        consumeError(contents.takeError());
      if (!name)
        consumeError(name.takeError());
      continue;
    }
    CodeFunction f;
    f.name = name->str();
    f.address = f.sectionAddress = text.sh_addr;
    f.size = contents->size();
    f.bytes = toStringRef(*contents);
    functions.push_back(std::move(f));
  }
  return functions;
}

struct AMDGPUDisassembler::Impl {
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
};

AMDGPUDisassembler::~AMDGPUDisassembler() = default;

Expected<std::unique_ptr<AMDGPUDisassembler>>
AMDGPUDisassembler::create(StringRef cpu) {
  std::unique_ptr<AMDGPUDisassembler> d(new AMDGPUDisassembler());
  if (Error err = d->init(cpu))
    return std::move(err);
  return std::move(d);
}

Error AMDGPUDisassembler::init(StringRef cpuName) {
  impl = std::make_unique<Impl>();
  Impl &d = *impl;
  d.cpu = cpuName.str();
  static const bool initialized = [] {
    LLVMInitializeAMDGPUTargetInfo();
    LLVMInitializeAMDGPUTargetMC();
    LLVMInitializeAMDGPUDisassembler();
    return true;
  }();
  (void)initialized;
  std::string error;
  const Target *target = TargetRegistry::lookupTarget(d.triple, error);
  if (!target)
    return createStringError("no AMDGPU disassembler: " + error);
  d.mri.reset(target->createMCRegInfo(d.triple));
  MCTargetOptions options;
  if (d.mri)
    d.mai.reset(target->createMCAsmInfo(*d.mri, d.triple, options));
  d.sti.reset(target->createMCSubtargetInfo(d.triple, d.cpu, ""));
  d.mii.reset(target->createMCInstrInfo());
  if (!d.mri || !d.mai || !d.sti || !d.mii)
    return createStringError("cannot set up the AMDGPU disassembler for " +
                             d.cpu);
  d.ctx = std::make_unique<MCContext>(d.triple, d.mai.get(), d.mri.get(),
                                      d.sti.get());
  d.disassembler.reset(target->createMCDisassembler(*d.sti, *d.ctx));
  d.printer.reset(target->createMCInstPrinter(
      d.triple, d.mai->getAssemblerDialect(), *d.mai, *d.mii, *d.mri));
  d.analysis.reset(target->createMCInstrAnalysis(d.mii.get()));
  if (!d.disassembler || !d.printer)
    return createStringError("cannot set up the AMDGPU disassembler for " +
                             d.cpu);
  return Error::success();
}

std::vector<DecodedInstruction>
AMDGPUDisassembler::decode(const CodeFunction &f) {
  std::vector<DecodedInstruction> out;
  if (f.size == 0)
    return out;
  ArrayRef<uint8_t> bytes = arrayRefFromStringRef(f.bytes);
  uint64_t begin = f.address - f.sectionAddress;
  bytes = bytes.slice(begin, f.size);
  CrashRecoveryScope crashRecovery;
  for (uint64_t offset = 0; offset < bytes.size();) {
    uint64_t address = f.address + offset;
    MCInst inst;
    uint64_t size = 0;
    DecodedInstruction decoded;
    decoded.address = address;
    std::string text;
    MCDisassembler::DecodeStatus status = MCDisassembler::Fail;
    // A word the decoder crashes on costs that word; the decoder starts
    // again with fresh MC state.
    CrashRecoveryContext recovery;
    bool survived = recovery.RunSafely([&] {
      status = impl->disassembler->getInstruction(
          inst, size, bytes.slice(offset), address, nulls());
      if (status == MCDisassembler::Success && size != 0) {
        raw_string_ostream os(text);
        impl->printer->printInst(&inst, address, "", *impl->sti, os);
      }
    });
    if (!survived) {
      status = MCDisassembler::Fail;
      if (Error err = init(std::string(impl->cpu))) {
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
      decoded.size = size;
      decoded.text = (".long 0x" + Twine::utohexstr(word)).str();
      out.push_back(std::move(decoded));
      offset += size;
      continue;
    }
    // One statement per line: keep the first, without tabs.
    decoded.decoded = true;
    decoded.size = size;
    decoded.text = StringRef(text).split('\n').first.trim().str();
    std::replace(decoded.text.begin(), decoded.text.end(), '\t', ' ');
    uint64_t target = 0;
    if (impl->analysis && impl->analysis->isBranch(inst) &&
        impl->analysis->evaluateBranch(inst, address, size, target))
      decoded.branchTarget = target;
    out.push_back(std::move(decoded));
    offset += size;
  }
  return out;
}

} // namespace mlir::rocdsl::isa
