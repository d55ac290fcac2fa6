//===- Emulator.h - gfx942/gfx950 code objects executed on the CPU -*- C++ -*-===//
//
// Runs HSA code objects (code object v5/v6) for CDNA3 (gfx942) and CDNA4
// (gfx950) on the host. A code object is decoded once, with LLVM's AMDGPU
// MC disassembler, into a compact form keyed on instruction names; launches
// then execute that form: wave64 lockstep per wave, the waves of a
// workgroup interleaved (they meet at s_barrier), workgroups spread over the
// host's cores.
//
// Memory ordering is modelled so that a wrong s_waitcnt is caught: VMEM
// loads, stores and atomics of a wave complete in issue order, LDS
// operations in order, scalar loads in any (seeded) order, and their
// results reach registers and memory only when an s_waitcnt (or the
// counter's limit, or the end of the program) retires them. Reading or
// overwriting a register a pending operation will write is a wait
// violation, as is overwriting the data registers of a wide VMEM store
// within the chip's wait states. Violations fail the launch unless
// Options::violationsAreWarnings.
//
// "Device memory" is host memory the caller registers (Memory): every
// global, flat and scalar access is checked against it, so a stray address
// is a clear fault, not a crash of the host process.
//
//===----------------------------------------------------------------------===//
#ifndef ROCDSL_EMULATOR_EMULATOR_H
#define ROCDSL_EMULATOR_EMULATOR_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace mlir::rocdsl::emu {

/// Host memory the emulated device may access. Thread-safe.
class Memory {
public:
  /// Registers [base, base + bytes) as device memory.
  void add(const void *base, size_t bytes);
  void remove(const void *base);
  /// Allocates zeroed, 256-byte aligned device memory.
  void *allocate(size_t bytes);
  /// Frees memory from allocate(); false if `base` is not such a block.
  bool release(void *base);
  /// True when [address, address + bytes) lies in one registered block.
  bool contains(uint64_t address, uint64_t bytes) const;
  /// The registered block holding `address`: its base and size.
  bool lookup(uint64_t address, uint64_t &base, uint64_t &size) const;
  ~Memory();

private:
  mutable std::mutex mutex;
  std::map<uint64_t, uint64_t> blocks;   // base -> size
  std::map<uint64_t, void *> allocations; // base -> malloc'd pointer
};

/// What the emulated chip is.
struct ChipModel {
  std::string name;            // gfx942, gfx950
  unsigned ldsBytes = 0;       // per workgroup
  unsigned ldsBanks = 0;       // of 4 bytes
  unsigned wideStoreWaitStates = 0;
  bool fp8IsFNUZ = true;
};
/// The model of `chip`, from the chip table; error for other chips.
llvm::Expected<ChipModel> getChipModel(llvm::StringRef chip);

struct Options {
  /// Report wait violations and wide-store hazards on stderr instead of
  /// failing the launch (ROCDSL_EMU_VIOLATIONS=warn).
  bool violationsAreWarnings = false;
  /// Collect a Profile (ROCDSL_EMU_PROFILE=1).
  bool profile = false;
  /// Host threads for workgroups; 0: the host's cores (ROCDSL_EMU_THREADS).
  unsigned threads = 0;
  /// Seeds the order scalar loads complete in and where waves switch.
  uint64_t seed = 1;
  /// A wave that executes more instructions than this fails the launch (a
  /// kernel that never ends would hang the host as it hangs a GPU)
  /// (ROCDSL_EMU_MAX_INSTRUCTIONS).
  uint64_t maxWaveInstructions = 1ull << 32;
  /// Defaults, then the ROCDSL_EMU_* environment variables.
  static Options fromEnvironment();
};

/// What one launch executed (Options::profile).
struct Profile {
  uint64_t waves = 0, instructions = 0, laneOps = 0;
  std::map<std::string, uint64_t> byClass; // salu, valu, smem, vmem, lds, ...
  uint64_t mfma = 0, mfmaFlops = 0;
  uint64_t waitcnts = 0, barriers = 0;
  uint64_t globalBytesRead = 0, globalBytesWritten = 0;
  uint64_t ldsBytesRead = 0, ldsBytesWritten = 0;
  /// LDS accesses, and the extra cycles bank conflicts cost them (from the
  /// lanes' actual addresses).
  uint64_t ldsAccesses = 0, ldsBankConflictCycles = 0;
  double seconds = 0;
  void merge(const Profile &other);
  std::string str() const;
};

struct Violation {
  std::string kernel;
  uint64_t offset = 0;     // of the instruction, from the kernel's entry
  std::string instruction; // as disassembled
  std::string message;
  std::string str() const;
};

struct LaunchResult {
  std::vector<Violation> violations; // at most a few per launch
  Profile profile;
};

/// One kernel of a loaded code object.
struct KernelInfo {
  std::string name;
  unsigned kernargBytes = 0, staticLdsBytes = 0, privateBytes = 0;
  unsigned vgprs = 0, agprs = 0, sgprs = 0;
  unsigned maxFlatWorkgroupSize = 0;
  std::array<unsigned, 3> requiredWorkgroupSize = {0, 0, 0};
  /// The explicit (not hidden) arguments' place in the kernarg segment.
  struct Arg {
    unsigned offset = 0, size = 0;
  };
  std::vector<Arg> explicitArgs;
};

struct LaunchConfig {
  std::array<uint32_t, 3> grid = {1, 1, 1};  // workgroups
  std::array<uint32_t, 3> block = {1, 1, 1}; // work-items per workgroup
  unsigned dynamicLdsBytes = 0;
  /// The explicit arguments as the metadata lays them out; hidden
  /// arguments are filled in by launch() as the HIP runtime fills them.
  std::vector<uint8_t> kernarg;
};

class Program {
public:
  ~Program();
  /// Decodes every kernel of `codeObject` for `chip`. A code object built
  /// for another chip is an error.
  static llvm::Expected<std::unique_ptr<Program>>
  load(llvm::StringRef codeObject, const ChipModel &chip);

  const ChipModel &getChip() const;
  std::vector<KernelInfo> getKernels() const;
  const KernelInfo *findKernel(llvm::StringRef name) const;

  /// Runs `kernel` to completion. A fault, an unimplemented instruction or
  /// (unless warnings) a wait violation is an error naming the kernel, the
  /// instruction and its offset.
  llvm::Expected<LaunchResult> launch(llvm::StringRef kernel,
                                      const LaunchConfig &config,
                                      Memory &memory,
                                      const Options &options) const;

  struct Impl;

private:
  Program();
  std::unique_ptr<Impl> impl;
};

} // namespace mlir::rocdsl::emu

#endif
