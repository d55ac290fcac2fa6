//===- HipDevice.cpp - AMD GPUs through the HIP runtime, loaded at run time
//===//
//
// Through HipRuntime (libamdhip64 or $ROCDSL_HIP_LIBRARY, opened at run
// time): code objects are loaded with hipModuleLoadData and launched with
// the kernarg segment the metadata lays out; pointer arguments are device
// memory (hipMalloc).
//
//===----------------------------------------------------------------------===//
#include "Devices.h"

#include "rocdsl/ISA/Disassembly.h"
#include "rocdsl/Runtime/HipRuntime.h"
#include "rocdsl/Runtime/KernelArgs.h"
#include "rocdsl/Target/AMDGPU.h"
#include "rocdsl/Target/CheckedCompile.h"

#include <cstring>


using namespace mlir;
using namespace mlir::rocdsl;

namespace {

class HipLauncher : public Launcher {
public:
  HipLauncher(HipRuntime *hip, int device, void *function,
              KernelResources kernel)
      : hip(hip), device(device), function(function),
        kernel(std::move(kernel)) {}

  void blockSize(uint32_t block[3]) const {
    block[0] = kernel.requiredWorkgroupSize[0];
    block[1] = std::max(1u, kernel.requiredWorkgroupSize[1]);
    block[2] = std::max(1u, kernel.requiredWorkgroupSize[2]);
    if (block[0] == 0)
      block[0] = kernel.maxFlatWorkgroupSize;
  }

  llvm::Error launch(llvm::ArrayRef<void *> args, LaunchGrid grid) override {
    float us = 0;
    if (llvm::Error err = submit(args, grid, /*stream=*/nullptr, &us))
      return err;
    lastMicroseconds = us;
    return llvm::Error::success();
  }
  llvm::Error enqueue(llvm::ArrayRef<void *> args, LaunchGrid grid,
                      void *stream) override {
    return submit(args, grid, stream, /*microseconds=*/nullptr);
  }
  llvm::Error synchronize(void *stream, bool &capturing) override {
    capturing = false;
    std::string error;
    if (!hip->synchronize(device, stream, error))
      return llvm::createStringError(error);
    return llvm::Error::success();
  }
  double lastLaunchMicroseconds() const override { return lastMicroseconds; }
  DeviceKind getDevice() const override { return DeviceKind::HIP; }
  llvm::Error readBack(void *host, const void *data, size_t bytes) override {
    std::string error;
    if (!hip->copyToHost(device, host, reinterpret_cast<uint64_t>(data), bytes,
                         error))
      return llvm::createStringError(error);
    return llvm::Error::success();
  }

private:
  /// Packs the kernarg segment and launches: timed and waited for when
  /// `microseconds` is given, else queued on `stream`.
  llvm::Error submit(llvm::ArrayRef<void *> args, LaunchGrid grid,
                     void *stream, float *microseconds) {
    uint32_t block[3];
    blockSize(block);
    auto segment = packKernelArgs(kernel, args, grid, block);
    if (!segment)
      return segment.takeError();
    unsigned g[3] = {grid.x, grid.y, grid.z};
    std::string error;
    bool ok = microseconds
                  ? hip->launch(device, function, g, block, 0, *segment,
                                microseconds, error)
                  : hip->enqueue(device, function, g, block, 0, *segment,
                                 stream, error);
    if (!ok)
      return llvm::createStringError("HIP launch of " + kernel.name +
                                     " failed: " + error);
    return llvm::Error::success();
  }
  HipRuntime *hip;
  int device;
  void *function;
  KernelResources kernel;
  double lastMicroseconds = 0;
};

/// The processor an AMDGPU ELF names in e_flags; empty if it is no ELF64.
llvm::StringRef chipOfCodeObject(llvm::StringRef object) {
  if (object.size() < 0x34 || !object.starts_with("\x7f" "ELF") ||
      object[4] != 2)
    return "";
  uint32_t flags;
  std::memcpy(&flags, object.data() + 0x30, 4); // e_flags, little-endian
  return isa::chipFromELFFlags(flags);
}

} // namespace

bool mlir::rocdsl::isHipAvailable(int device, std::string &why) {
  if (!HipRuntime::get(why))
    return false;
  auto chip = Runtime::resolveChip(DeviceId(DeviceKind::HIP, device), "");
  if (!chip) {
    why = llvm::toString(chip.takeError());
    return false;
  }
  return true;
}

llvm::Expected<std::string> mlir::rocdsl::compileForHip(ModuleOp module,
                                                        llvm::StringRef chip,
                                                        std::string *lowered,
                                                        std::string *code) {
  auto checked = compileAMDGPUChecked(module, chip);
  if (!checked)
    return checked.takeError();
  if (lowered)
    *lowered = std::move(checked->lowered);
  if (code)
    *code = std::move(checked->assembly);
  return std::move(checked->codeObject);
}

llvm::Expected<std::shared_ptr<Launcher>>
mlir::rocdsl::loadOnHip(llvm::StringRef codeObject, llvm::StringRef kernel,
                        int device) {
  std::string why;
  HipRuntime *hip = HipRuntime::get(why);
  if (!hip)
    return llvm::createStringError("cannot run on hip: " + why);
  std::string error;
  auto kernels = readKernelResources(codeObject, "", error);
  if (failed(kernels))
    return llvm::createStringError("bad code object: " + error);
  auto it = llvm::find_if(
      *kernels, [&](const KernelResources &k) { return k.name == kernel; });
  if (it == kernels->end())
    return llvm::createStringError("code object has no kernel " + kernel.str());
  void *function = nullptr;
  if (!hip->checkDevice(device, error))
    return llvm::createStringError(error);
  // A code object for another chip would fail to load with a bare "no
  // kernel image"; say which chips differ instead.
  llvm::StringRef chip = chipOfCodeObject(codeObject);
  if (!chip.empty() && chip != hip->getChip(device))
    return llvm::createStringError(
        "the code object of " + kernel.str() + " is for " + chip.str() +
        ", but hip device " + std::to_string(device) + " is " +
        hip->getArchName(device));
  if (!hip->loadKernel(device, codeObject.str(), kernel.str(), &function,
                       error))
    return llvm::createStringError(error);
  return std::make_shared<HipLauncher>(hip, device, function, *it);
}
