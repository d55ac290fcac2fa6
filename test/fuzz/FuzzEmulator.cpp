//===- FuzzEmulator.cpp - arbitrary machine code on the emulator ----------===//
//
// The first byte picks the chip, the rest is gfx942/gfx950 machine code:
// decoded with LLVM's disassembler, then run as one wave (branches go back
// to the start; a 100000-instruction budget ends loops) over registers that
// point into a small device buffer and LDS. Whatever the code does --
// stray addresses, out-of-range registers, unimplemented or undecodable
// words, wait violations -- the emulator must answer with an error, never
// crash or touch memory it does not own.
//
//===----------------------------------------------------------------------===//
#include "FuzzSupport.h"

#include "Machine.h"

#include "rocdsl/ISA/Disassembly.h"

#include "llvm/Support/CrashRecoveryContext.h"

using namespace mlir::rocdsl;

int mlir::rocdsl::fuzz::runEmulator(const uint8_t *data, size_t size) {
  if (size < 5 || size > 4096)
    return -1;
  static const bool recovery = [] {
    llvm::CrashRecoveryContext::Enable(); // LLVM's decoder, as elsewhere
    return true;
  }();
  (void)recovery;
  const char *chipName = data[0] & 1 ? "gfx950" : "gfx942";
  auto chip = emu::getChipModel(chipName);
  if (!chip) {
    llvm::consumeError(chip.takeError());
    return 0;
  }
  // One disassembler per chip: setting up LLVM's MC layer dominates a run.
  static std::unique_ptr<isa::AMDGPUDisassembler> disassemblers[2];
  std::unique_ptr<isa::AMDGPUDisassembler> &disassembler =
      disassemblers[data[0] & 1];
  if (!disassembler) {
    auto created = isa::AMDGPUDisassembler::create(chipName);
    if (!created) {
      llvm::consumeError(created.takeError());
      return 0;
    }
    disassembler = std::move(*created);
  }
  isa::CodeFunction code;
  code.name = "fuzz";
  code.bytes = llvm::StringRef(reinterpret_cast<const char *>(data + 1), size - 1);
  code.size = size - 1;
  std::vector<std::string> lines;
  for (const isa::DecodedInstruction &d : disassembler->decode(code))
    if (d.decoded)
      lines.push_back(d.text);
  if (lines.empty())
    return 0;
  static emu::Memory memory;
  static void *buffer = memory.allocate(4096);
  emu::Wave wave;
  emu::resetWave(wave);
  emu::Workgroup group;
  group.lds.assign(4096, 0);
  uint64_t base = reinterpret_cast<uint64_t>(buffer);
  // Scalar pairs and a buffer resource over the device buffer, VGPR pairs
  // with per-lane addresses in it.
  for (unsigned s = 0; s < 16; s += 2) {
    wave.s[s] = uint32_t(base);
    wave.s[s + 1] = uint32_t(base >> 32);
  }
  wave.s[16] = uint32_t(base);
  wave.s[17] = uint32_t(base >> 32) & 0xffff;
  wave.s[18] = 4096;
  wave.s[19] = 0x27000;
  for (unsigned r = 0; r < 8; r += 2)
    for (unsigned lane = 0; lane < emu::kLanes; ++lane) {
      wave.vreg(r)[lane] = uint32_t(base + 4 * lane);
      wave.vreg(r + 1)[lane] = uint32_t((base + 4 * lane) >> 32);
    }
  (void)emu::runInstructions(*chip, lines, wave, group, memory);
  return 0;
}

#ifdef ROCDSL_LIBFUZZER
extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  return mlir::rocdsl::fuzz::runEmulator(data, size);
}
#endif
