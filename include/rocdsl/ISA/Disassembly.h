//===- Disassembly.h - AMDGPU code objects decoded in-process ---*- C++ -*-===//
//
// The pieces every reader of AMDGPU code objects shares: the chip an ELF's
// e_flags name, the kernel functions in its executable sections, and LLVM's
// MC disassembler for one chip, decoding a function into printed
// instructions with their addresses and branch targets. The hazard checker
// turns them into an assembly listing; the emulator decodes them further
// into the form it executes.
//
//===----------------------------------------------------------------------===//
#ifndef ROCDSL_ISA_DISASSEMBLY_H
#define ROCDSL_ISA_DISASSEMBLY_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Object/ELF.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mlir::rocdsl::isa {

/// The processor an AMDGPU ELF's e_flags name, for the chips with a
/// wide-store rule and the generic targets; "" otherwise.
llvm::StringRef chipFromELFFlags(unsigned flags);

/// Calls `visit` with every symbol of every symbol table and its name;
/// unreadable tables and names are skipped (a corrupt object yields fewer
/// symbols, never a crash). `visit` returns false to stop.
void forEachSymbol(
    const llvm::object::ELF64LEFile &elf,
    llvm::function_ref<bool(const llvm::object::ELF64LE::Sym &,
                            llvm::StringRef name)>
        visit);

/// A function symbol in an executable section of a code object.
struct CodeFunction {
  std::string name;
  uint64_t address = 0, size = 0;
  llvm::StringRef bytes; ///< the whole section's contents
  uint64_t sectionAddress = 0;
};

/// Function (and kernel) symbols in executable sections, by address. Only
/// the Expected APIs of ELFFile are used: a corrupt code object yields fewer
/// functions, never a crash.
std::vector<CodeFunction>
collectCodeFunctions(const llvm::object::ELF64LEFile &elf);

/// Every non-empty executable section as one function named after the
/// section: the code of an object whose symbols do not say where functions
/// are (hand-assembled code without `.type`).
std::vector<CodeFunction>
collectCodeSections(const llvm::object::ELF64LEFile &elf);

struct DecodedInstruction {
  uint64_t address = 0;
  unsigned size = 0;
  /// The printed instruction (one line, no tabs), or ".long 0x..." for a
  /// word the decoder rejected.
  std::string text;
  bool decoded = false;
  std::optional<uint64_t> branchTarget;
};

/// LLVM's MC disassembler and printer for one AMDGPU chip.
class AMDGPUDisassembler {
public:
  ~AMDGPUDisassembler();
  /// `cpu` as LLVM names it (gfx942, gfx950...).
  static llvm::Expected<std::unique_ptr<AMDGPUDisassembler>>
  create(llvm::StringRef cpu);
  /// Decodes every instruction of `function`. Words LLVM rejects or crashes
  /// on become ".long" items.
  std::vector<DecodedInstruction> decode(const CodeFunction &function);

private:
  AMDGPUDisassembler() = default;
  llvm::Error init(llvm::StringRef cpu);
  struct Impl;
  std::unique_ptr<Impl> impl;
};

} // namespace mlir::rocdsl::isa

#endif
