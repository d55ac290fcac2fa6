//===- HipRuntime.cpp - the HIP runtime API, loaded at run time -----------===//
#include "rocdsl/Runtime/HipRuntime.h"

#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <mutex>

using namespace mlir::rocdsl;

// The HIP API's own types, declared as HIP declares them (opaque handles,
// enums at global scope), so calls through the dlsym'd pointers have the
// functions' exact types.
enum hipError_t : int { hipSuccess = 0 };
enum hipMemcpyKind : int { hipMemcpyHostToDevice = 1, hipMemcpyDeviceToHost = 2 };
struct ihipModule_t;
struct ihipModuleSymbol_t;
struct ihipStream_t;
struct ihipEvent_t;
struct hipDeviceProp_t;

namespace {
// hipDeviceProp_t of HIP 5 (the un-suffixed hipGetDeviceProperties, which
// HIP 6 keeps for binaries built against it): 792 bytes, gcnArchName at 396.
// The buffer handed over is larger, so a runtime that writes a later, longer
// layout cannot write past it.
constexpr size_t kArchNameOffset = 396, kPropsBufferBytes = 4096;
static_assert(kArchNameOffset + 256 <= kPropsBufferBytes,
              "gcnArchName must fit the buffer");
} // namespace

struct HipRuntime::Api {
  hipError_t (*init)(unsigned);
  hipError_t (*getDeviceCount)(int *);
  hipError_t (*setDevice)(int);
  hipError_t (*getDevice)(int *);
  hipError_t (*getDeviceProperties)(hipDeviceProp_t *, int);
  hipError_t (*moduleLoadData)(ihipModule_t **, const void *);
  hipError_t (*moduleGetFunction)(ihipModuleSymbol_t **, ihipModule_t *,
                                  const char *);
  hipError_t (*moduleLaunchKernel)(ihipModuleSymbol_t *, unsigned, unsigned,
                                   unsigned, unsigned, unsigned, unsigned,
                                   unsigned, ihipStream_t *, void **, void **);
  hipError_t (*deviceSynchronize)();
  hipError_t (*streamSynchronize)(ihipStream_t *);
  hipError_t (*malloc)(void **, size_t);
  hipError_t (*free)(void *);
  hipError_t (*memcpy)(void *, const void *, size_t, hipMemcpyKind);
  hipError_t (*eventCreate)(ihipEvent_t **);
  hipError_t (*eventRecord)(ihipEvent_t *, ihipStream_t *);
  hipError_t (*eventSynchronize)(ihipEvent_t *);
  hipError_t (*eventElapsedTime)(float *, ihipEvent_t *, ihipEvent_t *);
  const char *(*getErrorString)(hipError_t);
  hipError_t (*streamIsCapturing)(ihipStream_t *, int *); // optional
  hipError_t (*getLastError)();                          // optional
  const char *(*lastMessage)(); // librocdsl-hip-emu only
};

HipRuntime *HipRuntime::get(std::string &why) {
  static std::once_flag once;
  static HipRuntime *runtime = nullptr;
  static std::string failure;
  std::call_once(once, [] {
    void *lib = nullptr;
    std::string tried;
    const char *chosen = std::getenv("ROCDSL_HIP_LIBRARY");
    std::vector<std::string> names;
    if (chosen && *chosen)
      names.push_back(chosen);
    else
      names = {"libamdhip64.so", "libamdhip64.so.6", "libamdhip64.so.5"};
    std::string loaded;
    for (const std::string &name : names) {
      tried += (tried.empty() ? "" : ", ") + name;
      if ((lib = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL))) {
        loaded = name;
        break;
      }
    }
    if (!lib) {
      const char *err = dlerror();
      failure = chosen && *chosen
                    ? "ROCDSL_HIP_LIBRARY=" + std::string(chosen) +
                          " cannot be loaded: " + (err ? err : "unknown error")
                    : "HIP runtime not found (tried " + tried + ")";
      return;
    }
    // Kept for the process's life whether or not the runtime works.
    static Api storage;
    Api *api = &storage;
    auto bind = [&](auto &fn, const char *symbol, bool required = true) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(
          dlsym(lib, symbol));
      if (!fn && required && failure.empty())
        failure = loaded + " lacks " + symbol;
    };
    bind(api->init, "hipInit");
    bind(api->getDeviceCount, "hipGetDeviceCount");
    bind(api->setDevice, "hipSetDevice");
    bind(api->getDevice, "hipGetDevice");
    bind(api->getDeviceProperties, "hipGetDeviceProperties");
    bind(api->moduleLoadData, "hipModuleLoadData");
    bind(api->moduleGetFunction, "hipModuleGetFunction");
    bind(api->moduleLaunchKernel, "hipModuleLaunchKernel");
    bind(api->deviceSynchronize, "hipDeviceSynchronize");
    bind(api->streamSynchronize, "hipStreamSynchronize");
    bind(api->malloc, "hipMalloc");
    bind(api->free, "hipFree");
    bind(api->memcpy, "hipMemcpy");
    bind(api->eventCreate, "hipEventCreate");
    bind(api->eventRecord, "hipEventRecord");
    bind(api->eventSynchronize, "hipEventSynchronize");
    bind(api->eventElapsedTime, "hipEventElapsedTime");
    bind(api->getErrorString, "hipGetErrorString");
    bind(api->streamIsCapturing, "hipStreamIsCapturing", false);
    bind(api->getLastError, "hipGetLastError", false);
    bind(api->lastMessage, "rocdslEmuGetLastErrorMessage", false);
    if (!failure.empty())
      return;
    if (hipError_t err = api->init(0); err != hipSuccess) {
      // The emulator says why it has no device (a bad ROCDSL_EMU_CHIP);
      // a real driver only has the error code.
      if (api->lastMessage && *api->lastMessage())
        failure = std::string("the HIP library's hipInit failed: ") +
                  api->lastMessage();
      else
        failure = std::string("no AMD GPU driver: hipInit failed (") +
                  api->getErrorString(err) + ")";
      return;
    }
    int count = 0;
    if (api->getDeviceCount(&count) != hipSuccess || count == 0) {
      failure = "no AMD GPU found (hipGetDeviceCount reports none)";
      return;
    }
    // Never destroyed: launches may still run during static destruction,
    // and the devices' events stay reachable (no leak report at exit).
    static HipRuntime *const r = new HipRuntime();
    r->api = api;
    r->library = loaded;
    int previous = 0;
    api->getDevice(&previous);
    std::string error;
    for (int d = 0; d < count && failure.empty(); ++d) {
      DeviceInfo info;
      std::vector<char> props(kPropsBufferBytes, 0);
      if (api->setDevice(d) == hipSuccess &&
          api->getDeviceProperties(
              reinterpret_cast<hipDeviceProp_t *>(props.data()), d) ==
              hipSuccess) {
        info.name = std::string(props.data(), strnlen(props.data(), 256));
        const char *arch = props.data() + kArchNameOffset;
        info.archName = std::string(arch, strnlen(arch, 256));
      }
      // Events belong to the device current at their creation.
      ihipEvent_t *start = nullptr, *stop = nullptr;
      if (!r->check(api->eventCreate(&start), "hipEventCreate", error) ||
          !r->check(api->eventCreate(&stop), "hipEventCreate", error))
        failure = error;
      info.startEvent = start;
      info.stopEvent = stop;
      r->devices.push_back(std::move(info));
    }
    api->setDevice(previous);
    if (failure.empty())
      runtime = r;
  });
  why = failure;
  return runtime;
}

namespace mlir::rocdsl {
/// Makes a device current for one call and restores the caller's.
class HipDeviceGuard {
public:
  HipDeviceGuard(HipRuntime &hip, int device, std::string &error)
      : hip(hip) {
    if (!hip.checkDevice(device, error))
      return;
    if (!hip.check(hip.api->getDevice(&previous), "hipGetDevice", error))
      return;
    if (previous != device &&
        !hip.check(hip.api->setDevice(device), "hipSetDevice", error))
      return;
    entered = true;
    changed = previous != device;
  }
  ~HipDeviceGuard() {
    if (changed)
      hip.api->setDevice(previous);
  }
  explicit operator bool() const { return entered; }

private:
  HipRuntime &hip;
  int previous = 0;
  bool entered = false, changed = false;
};
} // namespace mlir::rocdsl

bool HipRuntime::checkDevice(int device, std::string &error) const {
  if (device >= 0 && device < getDeviceCount())
    return true;
  error = "hip device " + std::to_string(device) + " does not exist (" +
          std::to_string(getDeviceCount()) + " device" +
          (getDeviceCount() == 1 ? "" : "s") + " found)";
  return false;
}

std::string HipRuntime::getChip(int device) const {
  const std::string &arch = devices[device].archName;
  return arch.substr(0, arch.find(':'));
}

bool HipRuntime::check(int result, const char *what, std::string &error) {
  hipError_t err = hipError_t(result);
  if (result == hipSuccess)
    return true;
  error = std::string(what) + " failed: " + api->getErrorString(err);
  if (api->lastMessage && *api->lastMessage())
    error += std::string(" (") + api->lastMessage() + ")";
  return false;
}

bool HipRuntime::loadKernel(int device, const std::string &codeObject,
                            const std::string &kernel, void **function,
                            std::string &error) {
  HipDeviceGuard guard(*this, device, error);
  if (!guard)
    return false;
  ihipModule_t *module = nullptr;
  ihipModuleSymbol_t *symbol = nullptr;
  bool ok = check(api->moduleLoadData(&module, codeObject.data()),
                  "hipModuleLoadData", error) &&
            check(api->moduleGetFunction(&symbol, module, kernel.c_str()),
                  "hipModuleGetFunction", error);
  *function = symbol;
  return ok;
}

bool HipRuntime::launchOnCurrent(void *function, const unsigned grid[3],
                                 const unsigned block[3],
                                 unsigned dynamicLdsBytes,
                                 std::vector<uint8_t> &kernarg, void *stream,
                                 std::string &error) {
  size_t size = kernarg.size();
  // HIP_LAUNCH_PARAM_BUFFER_POINTER, _BUFFER_SIZE, _END.
  void *extra[] = {reinterpret_cast<void *>(1), kernarg.data(),
                   reinterpret_cast<void *>(2), &size,
                   reinterpret_cast<void *>(3)};
  return check(api->moduleLaunchKernel(
                   static_cast<ihipModuleSymbol_t *>(function), grid[0],
                   grid[1], grid[2], block[0], block[1], block[2],
                   dynamicLdsBytes, static_cast<ihipStream_t *>(stream),
                   nullptr, extra),
               "hipModuleLaunchKernel", error);
}

bool HipRuntime::launch(int device, void *function, const unsigned grid[3],
                        const unsigned block[3], unsigned dynamicLdsBytes,
                        std::vector<uint8_t> &kernarg, float *microseconds,
                        std::string &error) {
  HipDeviceGuard guard(*this, device, error);
  if (!guard)
    return false;
  auto *start = static_cast<ihipEvent_t *>(devices[device].startEvent);
  auto *stop = static_cast<ihipEvent_t *>(devices[device].stopEvent);
  if (!check(api->eventRecord(start, nullptr), "hipEventRecord", error) ||
      !launchOnCurrent(function, grid, block, dynamicLdsBytes, kernarg,
                       /*stream=*/nullptr, error) ||
      !check(api->eventRecord(stop, nullptr), "hipEventRecord", error) ||
      !check(api->eventSynchronize(stop), "hipEventSynchronize", error) ||
      !check(api->deviceSynchronize(), "hipDeviceSynchronize", error))
    return false;
  float ms = 0;
  if (microseconds &&
      check(api->eventElapsedTime(&ms, start, stop),
            "hipEventElapsedTime", error))
    *microseconds = ms * 1000.0f;
  return true;
}

bool HipRuntime::enqueue(int device, void *function, const unsigned grid[3],
                         const unsigned block[3], unsigned dynamicLdsBytes,
                         std::vector<uint8_t> &kernarg, void *stream,
                         std::string &error) {
  HipDeviceGuard guard(*this, device, error);
  return guard && launchOnCurrent(function, grid, block, dynamicLdsBytes,
                                  kernarg, stream, error);
}

bool HipRuntime::synchronize(int device, void *stream, std::string &error) {
  HipDeviceGuard guard(*this, device, error);
  if (!guard)
    return false;
  if (!stream)
    return check(api->deviceSynchronize(), "hipDeviceSynchronize", error);
  return check(api->streamSynchronize(static_cast<ihipStream_t *>(stream)),
               "hipStreamSynchronize", error);
}

bool HipRuntime::isCapturing(int device, void *stream, bool &capturing,
                             std::string &error) {
  capturing = false;
  if (!api->streamIsCapturing) {
    error = library + " has no hipStreamIsCapturing";
    return false;
  }
  HipDeviceGuard guard(*this, device, error);
  if (!guard)
    return false;
  int status = 0; // hipStreamCaptureStatusNone
  if (!check(api->streamIsCapturing(static_cast<ihipStream_t *>(stream),
                                    &status),
             "hipStreamIsCapturing", error)) {
    // A runtime error is also the thread's last error, which the caller's
    // framework would find at its next launch check: this one is answered
    // here (the caller keeps nothing), so it is cleared.
    if (api->getLastError)
      api->getLastError();
    return false;
  }
  capturing = status != 0;
  return true;
}

bool HipRuntime::allocate(int device, uint64_t *devicePtr, size_t bytes,
                          std::string &error) {
  HipDeviceGuard guard(*this, device, error);
  if (!guard)
    return false;
  void *p = nullptr;
  if (!check(api->malloc(&p, bytes), "hipMalloc", error))
    return false;
  *devicePtr = reinterpret_cast<uint64_t>(p);
  return true;
}

bool HipRuntime::free(int device, uint64_t devicePtr) {
  std::string error;
  HipDeviceGuard guard(*this, device, error);
  return guard && api->free(reinterpret_cast<void *>(devicePtr)) == hipSuccess;
}

bool HipRuntime::copyToDevice(int device, uint64_t dst, const void *src,
                              size_t bytes, std::string &error) {
  HipDeviceGuard guard(*this, device, error);
  return guard && check(api->memcpy(reinterpret_cast<void *>(dst), src, bytes,
                           hipMemcpyHostToDevice),
               "hipMemcpy (to device)", error);
}

bool HipRuntime::copyToHost(int device, void *dst, uint64_t src, size_t bytes,
                            std::string &error) {
  HipDeviceGuard guard(*this, device, error);
  return guard && check(api->memcpy(dst, reinterpret_cast<const void *>(src), bytes,
                           hipMemcpyDeviceToHost),
               "hipMemcpy (to host)", error);
}
