//===- AMDGPU.h - lowering and serializing rocdsl for AMD GPUs --*- C++ -*-===//
#ifndef ROCDSL_TARGET_AMDGPU_H
#define ROCDSL_TARGET_AMDGPU_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace mlir::rocdsl {

/// Chips the AMDGPU lowering supports.
ArrayRef<StringRef> getSupportedAMDGPUChips();
bool isSupportedAMDGPUChip(StringRef chip);

/// Prefix holding `amdgcn/bitcode` (device libraries) and `llvm/bin/ld.lld`:
/// $ROCDSL_ROCM_PATH, else the one configured at build time.
std::string getROCmPath();

enum class AMDGPUOutput { LLVMIR, Assembly, CodeObject };

/// How wide stores are emitted: the normal form, the conservative form (no
/// store wider than 64 bits), or wide stores each followed by `s_nop 1`.
enum class StoreForm { Wide, Split64, Padded };
/// "wide", "split64", "padded".
llvm::StringRef toString(StoreForm form);

/// How rocdsl.async_copy is emitted (rocdsl-to-rocdl's `direct-copies`
/// and `waits`).
struct AsyncCopyOptions {
  /// Direct-to-LDS buffer loads with planned waits (experimental); off: a
  /// load and an LDS store at each copy.
  bool direct = false;
  /// With `direct`: "explicit" (planned vmcnt) or "llvm" (drained).
  std::string waits = "explicit";
};

/// `copies` with ROCDSL_AMD_DIRECT_COPIES applied: `1` turns direct copies
/// on, `0` or unset leaves them as given; `explicit`/`llvm` in
/// ROCDSL_AMD_WAITS picks the waits. Any other value is an error.
llvm::Expected<AsyncCopyOptions> applyAsyncCopyEnvironment(AsyncCopyOptions copies);
/// The environment's part of a compiled-kernel cache key ("direct=0,waits=explicit").
std::string asyncCopyEnvironmentKey();

/// Runs `rocdsl-to-rocdl` on `module` in place. Diagnostics go to the
/// context's handler.
LogicalResult lowerToROCDL(ModuleOp module, StringRef chip,
                           unsigned optLevel = 3,
                           StoreForm storeForm = StoreForm::Wide,
                           const AsyncCopyOptions &copies = {});

/// Runs gpu-module-to-binary on a copy of `module` with `format` (and
/// `toolkit` when not empty) and returns the object it produced.
FailureOr<std::string> runModuleToBinary(ModuleOp module, StringRef format,
                                         StringRef toolkit = "");

/// Serializes the (already lowered) gpu.module of `module`: LLVM IR text,
/// AMDGCN assembly, or an HSA code object (ELF, linked with ld.lld).
FailureOr<std::string> serializeAMDGPU(ModuleOp module, AMDGPUOutput output);

/// One kernel argument as the code object lays it out in the kernarg
/// segment.
struct KernelArgInfo {
  std::string name;
  std::string valueKind; // by_value, global_buffer, hidden_block_count_x, ...
  unsigned offset = 0, size = 0;
  bool isHidden() const {
    return llvm::StringRef(valueKind).starts_with("hidden_");
  }
};

/// Resources of one kernel, read from a code object's metadata note.
struct KernelResources {
  std::string name;
  std::string symbol; // the kernel descriptor, "<name>.kd"
  std::vector<KernelArgInfo> args;
  unsigned kernargSegmentSize = 0;
  unsigned requiredWorkgroupSize[3] = {0, 0, 0}; // 0: not fixed
  unsigned vgprs = 0, agprs = 0, sgprs = 0;
  unsigned vgprSpills = 0, sgprSpills = 0;
  unsigned scratchBytes = 0; // private segment per lane
  unsigned ldsBytes = 0;     // group segment per workgroup
  unsigned maxFlatWorkgroupSize = 0;
  unsigned wavefrontSize = 64;
  /// Waves per SIMD the register and LDS budgets allow (1..8).
  unsigned wavesPerSimd = 0;
};

/// Parses the AMDGPU metadata of an HSA code object.
FailureOr<std::vector<KernelResources>>
readKernelResources(StringRef codeObject, StringRef chip, std::string &error);

} // namespace mlir::rocdsl

#endif
