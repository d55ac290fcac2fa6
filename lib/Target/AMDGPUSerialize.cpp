//===- AMDGPUSerialize.cpp - rocdsl -> LLVM IR / AMDGCN / code object -----===//
#include "rocdsl/Target/AMDGPU.h"

#include "rocdsl/Conversion/AmdAsyncCopies.h"
#include "rocdsl/Pipelines/Pipelines.h"
#include "rocdsl/Support/ChipInfo.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <vector>

#ifndef ROCDSL_DEFAULT_ROCM_PATH
#define ROCDSL_DEFAULT_ROCM_PATH ""
#endif
#ifndef ROCDSL_DEVICE_LIBS_DIR
#define ROCDSL_DEVICE_LIBS_DIR ""
#endif
#ifndef ROCDSL_LLD_PATH
#define ROCDSL_LLD_PATH ""
#endif

using namespace mlir;

ArrayRef<StringRef> rocdsl::getSupportedAMDGPUChips() {
  static const std::vector<StringRef> chips = [] {
    std::vector<StringRef> names;
    for (const ChipInfo &chip : getChips())
      if (chip.isAMD())
        names.push_back(chip.name);
    return names;
  }();
  return chips;
}

bool rocdsl::isSupportedAMDGPUChip(StringRef chip) {
  const ChipInfo *info = lookupChip(chip);
  return info && info->isAMD();
}

/// Whether `prefix` has what the ROCDL serializer reads.
static bool isROCmPrefix(llvm::StringRef prefix) {
  llvm::SmallString<256> bitcode(prefix), lld(prefix);
  llvm::sys::path::append(bitcode, "amdgcn", "bitcode", "ockl.bc");
  llvm::sys::path::append(lld, "llvm", "bin", "ld.lld");
  return llvm::sys::fs::exists(bitcode) && llvm::sys::fs::exists(lld);
}

/// The build's prefix of links lives in the build tree. An installed ROCDSL
/// (pip) outlives that tree, so it assembles the same links to the system
/// paths found at configure time under the user's cache directory.
static std::string assemblePrefix() {
  llvm::SmallString<256> root;
  if (!llvm::sys::path::cache_directory(root))
    llvm::sys::path::system_temp_directory(/*ErasedOnReboot=*/true, root);
  // Beside, not inside, the kernel cache (which evicts what it finds).
  llvm::sys::path::append(root, "rocdsl-rocm-prefix");
  llvm::SmallString<256> amdgcn(root), bin(root), lld;
  llvm::sys::path::append(amdgcn, "amdgcn");
  llvm::sys::path::append(bin, "llvm", "bin");
  lld = bin;
  llvm::sys::path::append(lld, "ld.lld");
  if (llvm::sys::fs::create_directories(bin))
    return "";
  // Replace stale links (another ROCDSL build's), never other files.
  for (auto [link, target] :
       {std::pair<llvm::StringRef, llvm::StringRef>(amdgcn,
                                                    ROCDSL_DEVICE_LIBS_DIR),
        {lld, ROCDSL_LLD_PATH}}) {
    llvm::sys::fs::file_status status;
    if (!llvm::sys::fs::status(link, status, /*follow=*/false) &&
        llvm::sys::fs::is_symlink_file(status))
      llvm::sys::fs::remove(link);
    llvm::sys::fs::create_link(target, link);
  }
  return isROCmPrefix(root) ? std::string(root) : "";
}

std::string rocdsl::getROCmPath() {
  if (const char *env = std::getenv("ROCDSL_ROCM_PATH"); env && *env)
    return env;
  static const std::string path = [] {
    if (isROCmPrefix(ROCDSL_DEFAULT_ROCM_PATH))
      return std::string(ROCDSL_DEFAULT_ROCM_PATH);
    if (llvm::sys::fs::exists(ROCDSL_DEVICE_LIBS_DIR) &&
        llvm::sys::fs::exists(ROCDSL_LLD_PATH))
      if (std::string assembled = assemblePrefix(); !assembled.empty())
        return assembled;
    if (isROCmPrefix("/opt/rocm"))
      return std::string("/opt/rocm");
    return std::string(ROCDSL_DEFAULT_ROCM_PATH); // errors name what lacks
  }();
  return path;
}

llvm::Expected<rocdsl::AsyncCopyOptions>
rocdsl::applyAsyncCopyEnvironment(rocdsl::AsyncCopyOptions copies) {
  if (const char *direct = std::getenv("ROCDSL_AMD_DIRECT_COPIES");
      direct && *direct) {
    StringRef value(direct);
    if (value != "0" && value != "1")
      return llvm::createStringError("ROCDSL_AMD_DIRECT_COPIES='" +
                                     value.str() + "' (expected 0 or 1)");
    copies.direct |= value == "1";
  }
  if (const char *waits = std::getenv("ROCDSL_AMD_WAITS"); waits && *waits) {
    StringRef value(waits);
    if (!parseWaitsMode(value))
      return llvm::createStringError(
          "ROCDSL_AMD_WAITS='" + value.str() +
          "' (expected explicit, llvm or weakened-for-testing)");
    copies.waits = value.str();
  }
  return copies;
}

std::string rocdsl::asyncCopyEnvironmentKey() {
  auto copies = applyAsyncCopyEnvironment({});
  if (!copies) {
    // The compile reports it; the key just must not match a valid one.
    llvm::consumeError(copies.takeError());
    return "invalid";
  }
  return std::string("direct=") + (copies->direct ? "1" : "0") +
         ",waits=" + copies->waits;
}

LogicalResult rocdsl::lowerToROCDL(ModuleOp module, StringRef chip,
                                   unsigned optLevel, StoreForm storeForm,
                                   const AsyncCopyOptions &copies) {
  if (!isSupportedAMDGPUChip(chip))
    return module.emitError()
           << "unsupported chip '" << chip
           << "' (supported: " << listChips(ChipVendor::AMD) << ")";
  PassManager pm(module.getContext());
  RocDSLToROCDLOptions options;
  options.chip = chip.str();
  options.optLevel = optLevel;
  options.maxStoreBits = storeForm == StoreForm::Split64 ? 64 : 128;
  options.padWideStores = storeForm == StoreForm::Padded;
  options.directCopies = copies.direct;
  options.waits = copies.waits;
  buildRocDSLToROCDLPipeline(pm, options);
  return pm.run(module);
}

static FailureOr<gpu::GPUModuleOp> findKernelModule(ModuleOp module) {
  auto modules = module.getOps<gpu::GPUModuleOp>();
  if (modules.empty()) {
    module.emitError() << "no gpu.module to serialize (was the module "
                          "lowered with rocdsl-to-rocdl?)";
    return failure();
  }
  return *modules.begin();
}

FailureOr<std::string> rocdsl::serializeAMDGPU(ModuleOp module,
                                               AMDGPUOutput output) {
  FailureOr<gpu::GPUModuleOp> gpuModule = findKernelModule(module);
  if (failed(gpuModule))
    return failure();

  if (output == AMDGPUOutput::LLVMIR) {
    llvm::LLVMContext llvmContext;
    std::unique_ptr<llvm::Module> llvmModule =
        translateModuleToLLVMIR(*gpuModule, llvmContext, "rocdsl_kernels");
    if (!llvmModule)
      return failure();
    std::string text;
    llvm::raw_string_ostream os(text);
    llvmModule->print(os, nullptr);
    return text;
  }

  return runModuleToBinary(
      module, output == AMDGPUOutput::Assembly ? "isa" : "bin", getROCmPath());
}

FailureOr<std::string> rocdsl::runModuleToBinary(ModuleOp module,
                                                 StringRef format,
                                                 StringRef toolkit) {
  // Serialize a copy so the caller's module stays inspectable.
  OwningOpRef<ModuleOp> copy = module.clone();
  PassManager pm(module.getContext());
  GpuModuleToBinaryPassOptions options;
  options.toolkitPath = toolkit.str();
  options.compilationTarget = format.str();
  pm.addPass(createGpuModuleToBinaryPass(options));
  if (failed(pm.run(*copy)))
    return failure();
  for (auto binary : copy->getOps<gpu::BinaryOp>())
    for (Attribute object : binary.getObjects())
      if (auto obj = dyn_cast<gpu::ObjectAttr>(object))
        return obj.getObject().getValue().str();
  module.emitError() << "gpu-module-to-binary produced no object";
  return failure();
}
