//===- HipDevice.cpp - AMD GPUs through the HIP runtime, loaded at run time
//===//
//
// libamdhip64 is opened with dlopen, so ROCDSL neither links nor needs HIP
// where no AMD GPU is used. Every way this can fail (no library, missing
// entry point, no driver, no device) is one message naming what is missing.
//
//===----------------------------------------------------------------------===//
#include "Devices.h"

#include "rocdsl/Runtime/KernelArgs.h"
#include "rocdsl/Target/AMDGPU.h"
#include "rocdsl/Target/CheckedCompile.h"

#include <dlfcn.h>
#include <mutex>

using namespace mlir;
using namespace mlir::rocdsl;

namespace {

using hipError_t = int;
constexpr hipError_t hipSuccess = 0;

struct HipApi {
  hipError_t (*init)(unsigned);
  hipError_t (*getDeviceCount)(int *);
  hipError_t (*moduleLoadData)(void **, const void *);
  hipError_t (*moduleGetFunction)(void **, void *, const char *);
  hipError_t (*moduleLaunchKernel)(void *, unsigned, unsigned, unsigned,
                                   unsigned, unsigned, unsigned, unsigned,
                                   void *, void **, void **);
  hipError_t (*deviceSynchronize)();
  const char *(*getErrorString)(hipError_t);
};

/// Loads libamdhip64 once; the result (or the reason it failed) is kept.
const HipApi *getHip(std::string &why) {
  static std::once_flag once;
  static HipApi api;
  static std::string failure;
  std::call_once(once, [] {
    void *lib = nullptr;
    std::string tried;
    for (const char *name :
         {"libamdhip64.so", "libamdhip64.so.6", "libamdhip64.so.5"}) {
      tried += std::string(tried.empty() ? "" : ", ") + name;
      if ((lib = dlopen(name, RTLD_NOW | RTLD_LOCAL)))
        break;
    }
    if (!lib) {
      failure = "HIP runtime not found (tried " + tried + ")";
      return;
    }
    auto bind = [&](auto &fn, const char *symbol) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(
          dlsym(lib, symbol));
      if (!fn && failure.empty())
        failure = std::string("the HIP runtime lacks ") + symbol;
    };
    bind(api.init, "hipInit");
    bind(api.getDeviceCount, "hipGetDeviceCount");
    bind(api.moduleLoadData, "hipModuleLoadData");
    bind(api.moduleGetFunction, "hipModuleGetFunction");
    bind(api.moduleLaunchKernel, "hipModuleLaunchKernel");
    bind(api.deviceSynchronize, "hipDeviceSynchronize");
    bind(api.getErrorString, "hipGetErrorString");
    if (!failure.empty())
      return;
    if (hipError_t err = api.init(0); err != hipSuccess) {
      failure = std::string("no AMD GPU driver: hipInit failed (") +
                api.getErrorString(err) + ")";
      return;
    }
    int count = 0;
    if (api.getDeviceCount(&count) != hipSuccess || count == 0)
      failure = "no AMD GPU found (hipGetDeviceCount reports none)";
  });
  why = failure;
  return failure.empty() ? &api : nullptr;
}

class HipLauncher : public Launcher {
public:
  HipLauncher(const HipApi *api, void *function, KernelResources kernel)
      : api(api), function(function), kernel(std::move(kernel)) {}

  llvm::Error launch(llvm::ArrayRef<void *> args, LaunchGrid grid) override {
    uint32_t block[3] = {kernel.requiredWorkgroupSize[0],
                         std::max(1u, kernel.requiredWorkgroupSize[1]),
                         std::max(1u, kernel.requiredWorkgroupSize[2])};
    if (block[0] == 0)
      block[0] = kernel.maxFlatWorkgroupSize;
    auto segment = packKernelArgs(kernel, args, grid, block);
    if (!segment)
      return segment.takeError();
    size_t size = segment->size();
    // HIP_LAUNCH_PARAM_BUFFER_POINTER, _BUFFER_SIZE, _END.
    void *extra[] = {reinterpret_cast<void *>(1), segment->data(),
                     reinterpret_cast<void *>(2), &size,
                     reinterpret_cast<void *>(3)};
    hipError_t err =
        api->moduleLaunchKernel(function, grid.x, grid.y, grid.z, block[0],
                                block[1], block[2], 0, nullptr, nullptr, extra);
    if (err == hipSuccess)
      err = api->deviceSynchronize();
    if (err != hipSuccess)
      return llvm::createStringError(std::string("HIP launch of ") +
                                     kernel.name +
                                     " failed: " + api->getErrorString(err));
    return llvm::Error::success();
  }
  double lastLaunchMicroseconds() const override { return 0; }
  DeviceKind getDevice() const override { return DeviceKind::HIP; }

private:
  const HipApi *api;
  void *function;
  KernelResources kernel;
};

} // namespace

bool mlir::rocdsl::isHipAvailable(std::string &why) {
  return getHip(why) != nullptr;
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
mlir::rocdsl::loadOnHip(llvm::StringRef codeObject, llvm::StringRef kernel) {
  std::string why;
  const HipApi *api = getHip(why);
  if (!api)
    return llvm::createStringError("cannot run on hip: " + why);
  std::string error;
  auto kernels = readKernelResources(codeObject, "", error);
  if (failed(kernels))
    return llvm::createStringError("bad code object: " + error);
  auto it = llvm::find_if(
      *kernels, [&](const KernelResources &k) { return k.name == kernel; });
  if (it == kernels->end())
    return llvm::createStringError("code object has no kernel " + kernel.str());
  void *module = nullptr, *function = nullptr;
  if (hipError_t err = api->moduleLoadData(&module, codeObject.data()))
    return llvm::createStringError(std::string("hipModuleLoadData: ") +
                                   api->getErrorString(err));
  if (hipError_t err =
          api->moduleGetFunction(&function, module, kernel.str().c_str()))
    return llvm::createStringError(std::string("hipModuleGetFunction: ") +
                                   api->getErrorString(err));
  return std::make_shared<HipLauncher>(api, function, *it);
}
