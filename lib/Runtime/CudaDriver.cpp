//===- CudaDriver.cpp - the CUDA driver API, loaded at run time -----------===//
#include "rocdsl/Runtime/CudaDriver.h"

#include <dlfcn.h>
#include <mutex>

using namespace mlir::rocdsl;

struct CudaDriver::Api {
  int (*init)(unsigned);
  int (*deviceGetCount)(int *);
  int (*deviceGet)(int *, int);
  int (*deviceGetAttribute)(int *, int, int);
  int (*primaryCtxRetain)(void **, int);
  int (*ctxSetCurrent)(void *);
  int (*ctxGetCurrent)(void **);
  int (*moduleLoadData)(void **, const void *);
  int (*moduleGetFunction)(void **, void *, const char *);
  int (*launchKernel)(void *, unsigned, unsigned, unsigned, unsigned, unsigned,
                      unsigned, unsigned, void *, void **, void **);
  int (*ctxSynchronize)();
  int (*memAlloc)(uint64_t *, size_t);
  int (*memFree)(uint64_t);
  int (*memcpyHtoD)(uint64_t, const void *, size_t);
  int (*memcpyDtoH)(void *, uint64_t, size_t);
  int (*eventCreate)(void **, unsigned);
  int (*eventRecord)(void *, void *);
  int (*eventSynchronize)(void *);
  int (*eventElapsedTime)(float *, void *, void *);
  int (*getErrorString)(int, const char **);
  int (*streamSynchronize)(void *);
  int (*streamIsCapturing)(void *, int *); // optional
  int (*funcSetAttribute)(void *, int, int);
};

bool CudaDriver::check(int result, const char *what, std::string &error) {
  if (result == 0)
    return true;
  const char *text = "unknown error";
  if (api->getErrorString)
    api->getErrorString(result, &text);
  error = std::string(what) + " failed: " + text + " (" +
          std::to_string(result) + ")";
  return false;
}

CudaDriver *CudaDriver::get(std::string &why) {
  static std::once_flag once;
  // Never destroyed (see HipRuntime::get): contexts and events stay valid
  // for launches during static destruction and reachable at exit.
  static CudaDriver &driver = *new CudaDriver();
  static Api api;
  static std::string failure;
  std::call_once(once, [] {
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib)
      lib = dlopen("libcuda.so", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      failure = "CUDA driver not found (tried libcuda.so.1, libcuda.so): no "
                "NVIDIA driver installed";
      return;
    }
    auto bind = [&](auto &fn, const char *symbol) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(
          dlsym(lib, symbol));
      if (!fn && failure.empty())
        failure = std::string("the CUDA driver lacks ") + symbol;
    };
    bind(api.init, "cuInit");
    bind(api.deviceGetCount, "cuDeviceGetCount");
    bind(api.deviceGet, "cuDeviceGet");
    bind(api.deviceGetAttribute, "cuDeviceGetAttribute");
    bind(api.primaryCtxRetain, "cuDevicePrimaryCtxRetain");
    bind(api.ctxSetCurrent, "cuCtxSetCurrent");
    bind(api.ctxGetCurrent, "cuCtxGetCurrent");
    bind(api.moduleLoadData, "cuModuleLoadData");
    bind(api.moduleGetFunction, "cuModuleGetFunction");
    bind(api.launchKernel, "cuLaunchKernel");
    bind(api.funcSetAttribute, "cuFuncSetAttribute");
    bind(api.ctxSynchronize, "cuCtxSynchronize");
    bind(api.memAlloc, "cuMemAlloc_v2");
    bind(api.memFree, "cuMemFree_v2");
    bind(api.memcpyHtoD, "cuMemcpyHtoD_v2");
    bind(api.memcpyDtoH, "cuMemcpyDtoH_v2");
    bind(api.eventCreate, "cuEventCreate");
    bind(api.eventRecord, "cuEventRecord");
    bind(api.eventSynchronize, "cuEventSynchronize");
    bind(api.eventElapsedTime, "cuEventElapsedTime_v2");
    if (!api.eventElapsedTime) {
      failure.clear();
      bind(api.eventElapsedTime, "cuEventElapsedTime");
    }
    bind(api.getErrorString, "cuGetErrorString");
    bind(api.streamSynchronize, "cuStreamSynchronize");
    if (!failure.empty())
      return;
    api.streamIsCapturing = reinterpret_cast<int (*)(void *, int *)>(
        dlsym(lib, "cuStreamIsCapturing"));
    driver.api = &api;
    std::string error;
    int count = 0;
    if (!driver.check(api.init(0), "cuInit (no NVIDIA GPU driver?)", error) ||
        !driver.check(api.deviceGetCount(&count), "cuDeviceGetCount", error)) {
      failure = error;
      return;
    }
    if (count == 0) {
      failure = "no NVIDIA GPU found (cuDeviceGetCount reports none)";
      return;
    }
    driver.deviceCount = count;
    driver.contexts.resize(count);
    // Device 0's context is made current, as before any device was named.
    if (CudaDriver::DeviceContext *c = driver.contextOf(0, error))
      api.ctxSetCurrent(c->context);
    else
      failure = error;
  });
  why = failure;
  return failure.empty() ? &driver : nullptr;
}

bool CudaDriver::checkDevice(int device, std::string &error) const {
  if (device >= 0 && device < deviceCount)
    return true;
  error = "cuda device " + std::to_string(device) + " does not exist (" +
          std::to_string(deviceCount) + " device" +
          (deviceCount == 1 ? "" : "s") + " found)";
  return false;
}

CudaDriver::DeviceContext *CudaDriver::contextOf(int ordinal,
                                                 std::string &error) {
  if (!checkDevice(ordinal, error))
    return nullptr;
  std::lock_guard<std::mutex> lock(contextsMutex);
  std::unique_ptr<DeviceContext> &slot = contexts[ordinal];
  if (slot)
    return slot.get();
  auto c = std::make_unique<DeviceContext>();
  if (!check(api->deviceGet(&c->device, ordinal), "cuDeviceGet", error) ||
      !check(api->primaryCtxRetain(&c->context, c->device),
             "cuDevicePrimaryCtxRetain", error))
    return nullptr;
  slot = std::move(c);
  return slot.get();
}

namespace mlir::rocdsl {
/// Makes a device's primary context current for one call and restores the
/// caller's.
class CudaContextGuard {
public:
  CudaContextGuard(CudaDriver &driver, int device, std::string &error)
      : driver(driver) {
    context = driver.contextOf(device, error);
    if (!context ||
        !driver.check(driver.api->ctxGetCurrent(&previous), "cuCtxGetCurrent",
                      error))
      return;
    if (previous != context->context &&
        !driver.check(driver.api->ctxSetCurrent(context->context),
                      "cuCtxSetCurrent", error))
      return;
    entered = true;
  }
  ~CudaContextGuard() {
    if (entered && previous && previous != context->context)
      driver.api->ctxSetCurrent(previous);
  }
  explicit operator bool() const { return entered; }
  CudaDriver::DeviceContext *context = nullptr;

private:
  CudaDriver &driver;
  void *previous = nullptr;
  bool entered = false;
};
} // namespace mlir::rocdsl

bool CudaDriver::loadKernel(int device, const std::string &ptx,
                            const std::string &kernel, void **function,
                            std::string &error) {
  CudaContextGuard guard(*this, device, error);
  if (!guard)
    return false;
  void *module = nullptr;
  return check(api->moduleLoadData(&module, ptx.c_str()), "cuModuleLoadData",
               error) &&
         check(api->moduleGetFunction(function, module, kernel.c_str()),
               "cuModuleGetFunction", error);
}

bool CudaDriver::allowDynamicShared(int device, void *function, unsigned bytes,
                                    std::string &error) {
  constexpr int kMaxDynamicSharedSizeBytes = 8; // CU_FUNC_ATTRIBUTE_...
  CudaContextGuard guard(*this, device, error);
  return guard && check(api->funcSetAttribute(
                            function, kMaxDynamicSharedSizeBytes, int(bytes)),
                        "cuFuncSetAttribute (dynamic shared memory)", error);
}

bool CudaDriver::launch(int device, void *function, const unsigned grid[3],
                        const unsigned block[3], unsigned sharedBytes,
                        void **args, float *microseconds, std::string &error) {
  CudaContextGuard guard(*this, device, error);
  if (!guard)
    return false;
  DeviceContext &c = *guard.context;
  if (!c.startEvent &&
      (!check(api->eventCreate(&c.startEvent, 0), "cuEventCreate", error) ||
       !check(api->eventCreate(&c.stopEvent, 0), "cuEventCreate", error)))
    return false;
  void *start = c.startEvent, *stop = c.stopEvent;
  if (!check(api->eventRecord(start, nullptr), "cuEventRecord", error) ||
      !launchOnCurrent(function, grid, block, sharedBytes, args,
                       /*stream=*/nullptr, error) ||
      !check(api->eventRecord(stop, nullptr), "cuEventRecord", error) ||
      !check(api->eventSynchronize(stop), "cuEventSynchronize", error) ||
      !check(api->ctxSynchronize(), "kernel execution", error))
    return false;
  float ms = 0;
  if (!check(api->eventElapsedTime(&ms, start, stop), "cuEventElapsedTime",
             error))
    return false;
  if (microseconds)
    *microseconds = ms * 1000.0f;
  return true;
}

bool CudaDriver::enqueue(int device, void *function, const unsigned grid[3],
                         const unsigned block[3], unsigned sharedBytes,
                         void **args, void *stream, std::string &error) {
  CudaContextGuard guard(*this, device, error);
  return guard && launchOnCurrent(function, grid, block, sharedBytes, args,
                                  stream, error);
}

bool CudaDriver::launchOnCurrent(void *function, const unsigned grid[3],
                                 const unsigned block[3], unsigned sharedBytes,
                                 void **args, void *stream,
                                 std::string &error) {
  return check(api->launchKernel(function, grid[0], grid[1], grid[2], block[0],
                                 block[1], block[2], sharedBytes, stream, args,
                                 nullptr),
               "cuLaunchKernel", error);
}

int CudaDriver::multiprocessorCount(int device) {
  constexpr int kMultiprocessorCount = 16; // CU_DEVICE_ATTRIBUTE_...
  std::string error;
  DeviceContext *c = contextOf(device, error);
  int count = 0;
  if (!c ||
      api->deviceGetAttribute(&count, kMultiprocessorCount, c->device) != 0)
    return 0;
  return count;
}

int CudaDriver::computeCapability(int device) {
  constexpr int kMajor = 75, kMinor = 76; // CU_DEVICE_ATTRIBUTE_COMPUTE_...
  std::string error;
  DeviceContext *c = contextOf(device, error);
  int major = 0, minor = 0;
  if (!c || api->deviceGetAttribute(&major, kMajor, c->device) != 0 ||
      api->deviceGetAttribute(&minor, kMinor, c->device) != 0)
    return 0;
  return major * 10 + minor;
}

bool CudaDriver::allocate(int device, uint64_t *ptr, size_t bytes,
                          std::string &error) {
  CudaContextGuard guard(*this, device, error);
  return guard && check(api->memAlloc(ptr, bytes), "cuMemAlloc", error);
}

bool CudaDriver::free(int device, uint64_t ptr) {
  std::string error;
  CudaContextGuard guard(*this, device, error);
  return guard && api->memFree(ptr) == 0;
}

bool CudaDriver::copyToDevice(int device, uint64_t dst, const void *src,
                              size_t bytes, std::string &error) {
  CudaContextGuard guard(*this, device, error);
  return guard &&
         check(api->memcpyHtoD(dst, src, bytes), "cuMemcpyHtoD", error);
}

bool CudaDriver::copyToHost(int device, void *dst, uint64_t src, size_t bytes,
                            std::string &error) {
  CudaContextGuard guard(*this, device, error);
  return guard &&
         check(api->memcpyDtoH(dst, src, bytes), "cuMemcpyDtoH", error);
}

bool CudaDriver::isCapturing(int device, void *stream, bool &capturing,
                             std::string &error) {
  capturing = false;
  if (!api->streamIsCapturing) {
    error = "the CUDA driver has no cuStreamIsCapturing";
    return false;
  }
  CudaContextGuard guard(*this, device, error);
  if (!guard)
    return false;
  int status = 0; // CU_STREAM_CAPTURE_STATUS_NONE
  if (!check(api->streamIsCapturing(stream, &status), "cuStreamIsCapturing",
             error))
    return false;
  capturing = status != 0;
  return true;
}

bool CudaDriver::synchronize(int device, void *stream, bool &capturing,
                             std::string &error) {
  capturing = false;
  if (stream && api->streamIsCapturing) {
    if (!isCapturing(device, stream, capturing, error))
      return false;
    if (capturing)
      return true;
  }
  CudaContextGuard guard(*this, device, error);
  if (!guard)
    return false;
  if (!stream)
    return check(api->ctxSynchronize(), "cuCtxSynchronize", error);
  return check(api->streamSynchronize(stream), "cuStreamSynchronize", error);
}
