//===- HipEmu.cpp - the HIP runtime API backed by the emulator ------------===//
//
// librocdsl-hip-emu.so exports libamdhip64's names and signatures (checked
// against the installed HIP headers) for the part of the API a runtime
// uses: devices and their properties, memory, module loading, kernel
// launches (kernelParams or the `extra` buffer), streams (with their
// capture state, though not graphs) and events.
// ROCDSL_EMU_CHIP lists the devices, one chip each ("gfx942,gfx950" is two
// devices; gfx942 alone by default). A gfx chip the emulator cannot execute
// (gfx90a, gfx1100, ...) still appears as a device that reports its name,
// so runtimes' chip checks can be tested, but loading code on it fails.
// Launches run synchronously, whatever the stream; events record host
// time. "Device" memory is host memory the emulator checks every access
// against; all devices share one address space (as HIP's unified
// addressing does), and the current device is per thread (hipSetDevice).
//
// HIP errors are numbers; the message behind the last failure of the
// calling thread (a fault, a wait violation, a wrong chip) is printed to
// stderr and available from rocdslEmuGetLastErrorMessage().
//
//===----------------------------------------------------------------------===//
#define __HIP_PLATFORM_AMD__ 1
#include <hip/hip_runtime_api.h>

#include "DevicePropsR0600.h"

#include "rocdsl/Emulator/Emulator.h"
#include "rocdsl/Support/ChipInfo.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <atomic>
#include <chrono>
#include <map>
#include <optional>
#include <vector>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>

using namespace mlir::rocdsl;

struct ihipModuleSymbol_t {
  struct ihipModule_t *module;
  std::string name;
  mlir::rocdsl::emu::KernelInfo info;
};
struct ihipModule_t {
  std::unique_ptr<mlir::rocdsl::emu::Program> program;
  int device = 0; // the device current when it was loaded
  /// The functions handed out, freed with the module.
  std::vector<std::unique_ptr<ihipModuleSymbol_t>> functions;
};
struct ihipStream_t {
  /// Between hipStreamBeginCapture and hipStreamEndCapture. Graphs are not
  /// emulated: the state is kept so that runtimes' capture queries can be
  /// tested, and a launch while capturing fails instead of running.
  std::atomic<bool> capturing{false};
  /// The capture's mode was global (hipStreamCaptureModeGlobal).
  bool global = false;
};
struct ihipEvent_t {
  std::chrono::steady_clock::time_point time;
  bool recorded = false;
};

namespace {

/// Streams capturing in global mode: while there are any, HIP refuses to
/// say whether the null stream is capturing (it would join the capture).
std::atomic<int> globalCaptures{0};

struct Device {
  std::string arch;                  // "gfx942", or one it cannot execute
  std::optional<emu::ChipModel> chip; // set when the emulator executes arch
  std::mutex mutex;                  // one launch at a time
};

struct Platform {
  std::vector<std::unique_ptr<Device>> devices;
  std::string initError; // set when ROCDSL_EMU_CHIP names no valid device
  emu::Memory memory;
  /// Loaded modules (owned here until hipModuleUnload).
  std::map<ihipModule_t *, std::unique_ptr<ihipModule_t>> modules;
  std::mutex modulesMutex;
};

/// "gfx" and hex digits (gfx90a, gfx1100): the shape of an AMD processor
/// name, so a typo is an error rather than an exotic device.
bool looksLikeGfxName(llvm::StringRef name) {
  return name.size() > 3 && name.starts_with("gfx") &&
         llvm::all_of(name.drop_front(3), llvm::isHexDigit);
}

Platform &platform() {
  static Platform *p = [] {
    auto *platform = new Platform();
    const char *list = std::getenv("ROCDSL_EMU_CHIP");
    llvm::SmallVector<llvm::StringRef> names;
    llvm::StringRef(list && *list ? list : "gfx942").split(names, ',');
    for (llvm::StringRef name : names) {
      name = name.trim();
      auto device = std::make_unique<Device>();
      device->arch = name.str();
      auto model = emu::getChipModel(name);
      if (model) {
        device->chip = *model;
      } else {
        std::string why = llvm::toString(model.takeError());
        if (!looksLikeGfxName(name)) {
          platform->initError = "ROCDSL_EMU_CHIP: '" + name.str() +
                                "' is not a chip (" + why + ")";
          platform->devices.clear();
          break;
        }
      }
      platform->devices.push_back(std::move(device));
    }
    return platform;
  }();
  return *p;
}

thread_local int currentDevice = 0;

Device &current() { return *platform().devices[currentDevice]; }

bool validDevice(int id) {
  return id >= 0 && size_t(id) < platform().devices.size();
}

std::string noSuchDevice(int id) {
  return "device " + std::to_string(id) + " does not exist (" +
         std::to_string(platform().devices.size()) +
         " emulated: ROCDSL_EMU_CHIP)";
}

/// What the properties report: the chip table's facts for chips it knows,
/// gfx942's otherwise (a reported-only device runs nothing).
const ChipInfo &chipInfo(int id) {
  const ChipInfo *c = lookupChip(platform().devices[id]->arch);
  return c ? *c : *lookupChip("gfx942");
}

thread_local hipError_t lastError = hipSuccess;
thread_local std::string lastMessage;

hipError_t fail(hipError_t err, const std::string &message) {
  lastError = err;
  lastMessage = message;
  if (!message.empty())
    llvm::errs() << "rocdsl-hip-emu: " << message << "\n";
  return err;
}
hipError_t ok() { return hipSuccess; }

bool isDevice(const void *p, size_t bytes) {
  return platform().memory.contains(reinterpret_cast<uint64_t>(p), bytes);
}

hipError_t copy(void *dst, const void *src, size_t bytes, hipMemcpyKind kind) {
  if (bytes == 0)
    return ok();
  if (!dst || !src)
    return fail(hipErrorInvalidValue, "hipMemcpy with a null pointer");
  // A caller may pass any integer as the kind: reject those past the enum
  // before the switch, which then covers every value it can see.
  if (static_cast<unsigned>(kind) > static_cast<unsigned>(hipMemcpyDefault))
    return fail(hipErrorInvalidMemcpyDirection, "unknown hipMemcpyKind");
  bool dstDev = isDevice(dst, bytes), srcDev = isDevice(src, bytes);
  switch (kind) {
  case hipMemcpyHostToDevice:
    if (!dstDev)
      return fail(hipErrorInvalidValue,
                  "hipMemcpyHostToDevice: the destination is not device "
                  "memory of this size");
    break;
  case hipMemcpyDeviceToHost:
    if (!srcDev)
      return fail(hipErrorInvalidValue,
                  "hipMemcpyDeviceToHost: the source is not device memory "
                  "of this size");
    break;
  case hipMemcpyDeviceToDevice:
    if (!srcDev || !dstDev)
      return fail(hipErrorInvalidValue,
                  "hipMemcpyDeviceToDevice: both sides must be device memory");
    break;
  case hipMemcpyHostToHost:
  case hipMemcpyDefault:
    break;
  }
  std::memmove(dst, src, bytes);
  return ok();
}

} // namespace

extern "C" {

/// The message behind the calling thread's last failed call ("" if none).
__attribute__((visibility("default"))) const char *
rocdslEmuGetLastErrorMessage() {
  return lastMessage.c_str();
}

hipError_t hipInit(unsigned int flags) {
  if (flags != 0)
    return fail(hipErrorInvalidValue, "hipInit flags must be 0");
  if (!platform().initError.empty())
    return fail(hipErrorNoDevice, platform().initError);
  return ok();
}

hipError_t hipDriverGetVersion(int *version) {
  if (!version)
    return fail(hipErrorInvalidValue, "");
  *version = 60000000;
  return ok();
}

hipError_t hipRuntimeGetVersion(int *version) { return hipDriverGetVersion(version); }

hipError_t hipGetDeviceCount(int *count) {
  if (!count)
    return fail(hipErrorInvalidValue, "");
  *count = int(platform().devices.size());
  if (*count == 0)
    return fail(hipErrorNoDevice, platform().initError);
  return ok();
}

hipError_t hipSetDevice(int id) {
  if (!platform().initError.empty())
    return fail(hipErrorNoDevice, platform().initError);
  if (!validDevice(id))
    return fail(hipErrorInvalidDevice, noSuchDevice(id));
  currentDevice = id;
  return ok();
}

hipError_t hipGetDevice(int *id) {
  if (!id)
    return fail(hipErrorInvalidValue, "");
  *id = currentDevice;
  return ok();
}

hipError_t hipSetDeviceFlags(unsigned) { return ok(); }

hipError_t hipDeviceSynchronize(void) { return ok(); }


} // extern "C"

/// Fills HIP 5's or HIP 6's hipDeviceProp_t (the same field names) for the
/// emulated device.
template <typename Props> static hipError_t fillProperties(Props *prop, int id) {
  if (!prop)
    return fail(hipErrorInvalidValue, "");
  if (!platform().initError.empty())
    return fail(hipErrorNoDevice, platform().initError);
  if (!validDevice(id))
    return fail(hipErrorInvalidDevice, noSuchDevice(id));
  std::memset(static_cast<void *>(prop), 0, sizeof(*prop));
  const ChipInfo &c = chipInfo(id);
  const std::string &arch = platform().devices[id]->arch;
  bool runs = platform().devices[id]->chip.has_value();
  std::snprintf(prop->name, sizeof(prop->name), "ROCDSL emulated %s%s",
                arch.c_str(), runs ? "" : " (reported only)");
  std::snprintf(prop->gcnArchName, sizeof(prop->gcnArchName), "%s%s",
                arch.c_str(), runs ? c.archFeatures.data() : "");
  prop->totalGlobalMem = size_t(64) << 30;
  prop->sharedMemPerBlock = c.sharedMemoryBytes;
  prop->maxSharedMemoryPerMultiProcessor = c.sharedMemoryBytes;
  prop->warpSize = int(c.waveSize);
  prop->maxThreadsPerBlock = 1024;
  prop->maxThreadsDim[0] = prop->maxThreadsDim[1] = prop->maxThreadsDim[2] = 1024;
  prop->maxGridSize[0] = prop->maxGridSize[1] = prop->maxGridSize[2] = 0x7fffffff;
  prop->multiProcessorCount = int(c.computeUnits);
  prop->regsPerBlock = 512 * 64;
  prop->major = 9;
  prop->minor = 4;
  prop->clockRate = 2100000;
  prop->maxThreadsPerMultiProcessor = 2048;
  prop->concurrentKernels = 1;
  return ok();
}

extern "C" {

hipError_t hipGetDeviceProperties(hipDeviceProp_t *prop, int id) {
  hipError_t err = fillProperties(prop, id);
  if (err == hipSuccess)
    // The legacy number is the processor name's digits: 942 for gfx942.
    chipInfo(id).name.drop_front(3).getAsInteger(10, prop->gcnArch);
  return err;
}

/// HIP 6's versioned name, with HIP 6's structure.
__attribute__((visibility("default"))) hipError_t
hipGetDevicePropertiesR0600(hipemu::DevicePropsR0600 *prop, int id) {
  hipError_t err = fillProperties(prop, id);
  if (err == hipSuccess)
    prop->sharedMemPerMultiprocessor = chipInfo(id).sharedMemoryBytes;
  return err;
}

hipError_t hipDeviceGetAttribute(int *value, hipDeviceAttribute_t attr,
                                 int id) {
  if (!value)
    return fail(hipErrorInvalidValue, "");
  if (!validDevice(id))
    return fail(hipErrorInvalidDevice, noSuchDevice(id));
  const ChipInfo &c = chipInfo(id);
  switch (attr) {
  case hipDeviceAttributeWarpSize: *value = int(c.waveSize); return ok();
  case hipDeviceAttributeMaxSharedMemoryPerBlock:
  case hipDeviceAttributeMaxSharedMemoryPerMultiprocessor:
    *value = int(c.sharedMemoryBytes);
    return ok();
  case hipDeviceAttributeMultiprocessorCount: *value = int(c.computeUnits); return ok();
  case hipDeviceAttributeMaxThreadsPerBlock:
  case hipDeviceAttributeMaxBlockDimX:
  case hipDeviceAttributeMaxBlockDimY:
  case hipDeviceAttributeMaxBlockDimZ:
    *value = 1024;
    return ok();
  case hipDeviceAttributeMaxGridDimX:
  case hipDeviceAttributeMaxGridDimY:
  case hipDeviceAttributeMaxGridDimZ:
    *value = 0x7fffffff;
    return ok();
  case hipDeviceAttributeComputeCapabilityMajor: *value = 9; return ok();
  case hipDeviceAttributeComputeCapabilityMinor: *value = 4; return ok();
  case hipDeviceAttributeMaxRegistersPerBlock: *value = 512 * 64; return ok();
  case hipDeviceAttributeClockRate: *value = 2100000; return ok();
  default:
    return fail(hipErrorInvalidValue,
                "hipDeviceGetAttribute: attribute " + std::to_string(int(attr)) +
                    " is not reported by the emulated device");
  }
}

const char *hipGetErrorString(hipError_t err) {
  switch (err) {
  case hipSuccess: return "no error";
  case hipErrorInvalidValue: return "invalid argument";
  case hipErrorOutOfMemory: return "out of memory";
  case hipErrorNotInitialized: return "initialization error";
  case hipErrorInvalidConfiguration: return "invalid configuration argument";
  case hipErrorInvalidMemcpyDirection: return "invalid copy direction for memcpy";
  case hipErrorInvalidDeviceFunction: return "invalid device function";
  case hipErrorNoDevice: return "no ROCm-capable device is detected";
  case hipErrorInvalidDevice: return "invalid device ordinal";
  case hipErrorInvalidImage: return "device kernel image is invalid";
  case hipErrorNoBinaryForGpu: return "no kernel image is available for execution on the device";
  case hipErrorInvalidHandle: return "invalid resource handle";
  case hipErrorNotFound: return "named symbol not found";
  case hipErrorIllegalAddress: return "an illegal memory access was encountered";
  case hipErrorLaunchOutOfResources: return "too many resources requested for launch";
  case hipErrorLaunchFailure: return "unspecified launch failure";
  case hipErrorNotSupported: return "operation not supported";
  default: return "unknown error";
  }
}

const char *hipGetErrorName(hipError_t err) {
  switch (err) {
  case hipSuccess: return "hipSuccess";
  case hipErrorInvalidValue: return "hipErrorInvalidValue";
  case hipErrorOutOfMemory: return "hipErrorOutOfMemory";
  case hipErrorNotInitialized: return "hipErrorNotInitialized";
  case hipErrorInvalidConfiguration: return "hipErrorInvalidConfiguration";
  case hipErrorInvalidMemcpyDirection: return "hipErrorInvalidMemcpyDirection";
  case hipErrorInvalidDeviceFunction: return "hipErrorInvalidDeviceFunction";
  case hipErrorNoDevice: return "hipErrorNoDevice";
  case hipErrorInvalidDevice: return "hipErrorInvalidDevice";
  case hipErrorInvalidImage: return "hipErrorInvalidImage";
  case hipErrorNoBinaryForGpu: return "hipErrorNoBinaryForGpu";
  case hipErrorInvalidHandle: return "hipErrorInvalidHandle";
  case hipErrorNotFound: return "hipErrorNotFound";
  case hipErrorIllegalAddress: return "hipErrorIllegalAddress";
  case hipErrorLaunchOutOfResources: return "hipErrorLaunchOutOfResources";
  case hipErrorLaunchFailure: return "hipErrorLaunchFailure";
  case hipErrorNotSupported: return "hipErrorNotSupported";
  default: return "hipErrorUnknown";
  }
}

hipError_t hipGetLastError(void) {
  hipError_t e = lastError;
  lastError = hipSuccess;
  return e;
}

hipError_t hipPeekAtLastError(void) { return lastError; }

hipError_t hipMalloc(void **ptr, size_t size) {
  if (!ptr)
    return fail(hipErrorInvalidValue, "hipMalloc: null result pointer");
  *ptr = nullptr;
  if (size == 0)
    return ok();
  if (size > (size_t(64) << 30))
    return fail(hipErrorOutOfMemory, "hipMalloc: " + std::to_string(size) +
                                         " bytes exceed the emulated 64 GiB");
  *ptr = platform().memory.allocate(size);
  if (!*ptr)
    return fail(hipErrorOutOfMemory, "hipMalloc: host allocation failed");
  return ok();
}

hipError_t hipFree(void *ptr) {
  if (!ptr)
    return ok();
  if (!platform().memory.release(ptr))
    return fail(hipErrorInvalidValue, "hipFree: not a pointer from hipMalloc");
  return ok();
}

hipError_t hipMemcpy(void *dst, const void *src, size_t bytes,
                     hipMemcpyKind kind) {
  return copy(dst, src, bytes, kind);
}

hipError_t hipMemcpyAsync(void *dst, const void *src, size_t bytes,
                          hipMemcpyKind kind, hipStream_t) {
  return copy(dst, src, bytes, kind);
}

hipError_t hipMemcpyHtoD(hipDeviceptr_t dst, void *src, size_t bytes) {
  return copy(dst, src, bytes, hipMemcpyHostToDevice);
}

hipError_t hipMemcpyDtoH(void *dst, hipDeviceptr_t src, size_t bytes) {
  return copy(dst, src, bytes, hipMemcpyDeviceToHost);
}

hipError_t hipMemcpyDtoD(hipDeviceptr_t dst, hipDeviceptr_t src, size_t bytes) {
  return copy(dst, src, bytes, hipMemcpyDeviceToDevice);
}

hipError_t hipMemset(void *dst, int value, size_t bytes) {
  if (bytes && !isDevice(dst, bytes))
    return fail(hipErrorInvalidValue, "hipMemset: not device memory");
  std::memset(dst, value, bytes);
  return ok();
}

hipError_t hipMemsetD32(hipDeviceptr_t dst, int value, size_t count) {
  if (count && !isDevice(dst, count * 4))
    return fail(hipErrorInvalidValue, "hipMemsetD32: not device memory");
  auto *p = static_cast<int *>(dst);
  for (size_t i = 0; i < count; ++i)
    p[i] = value;
  return ok();
}

hipError_t hipModuleLoadData(hipModule_t *module, const void *image) {
  if (!module || !image)
    return fail(hipErrorInvalidValue, "hipModuleLoadData: null argument");
  if (!platform().initError.empty())
    return fail(hipErrorNoDevice, platform().initError);
  Device &device = current();
  if (!device.chip)
    return fail(hipErrorNoBinaryForGpu,
                "hipModuleLoadData: device " + std::to_string(currentDevice) +
                    " is " + device.arch +
                    ", which the emulator only reports (it executes gfx942 "
                    "and gfx950 code)");
  // The image is an ELF; its size comes from the section header table.
  const auto *bytes = static_cast<const uint8_t *>(image);
  if (std::memcmp(bytes, "\x7f" "ELF", 4) != 0 || bytes[4] != 2)
    return fail(hipErrorInvalidImage, "hipModuleLoadData: not an ELF64 code object");
  uint64_t shoff;
  uint16_t shentsize, shnum;
  std::memcpy(&shoff, bytes + 0x28, 8);
  std::memcpy(&shentsize, bytes + 0x3a, 2);
  std::memcpy(&shnum, bytes + 0x3c, 2);
  size_t size = shoff + size_t(shentsize) * shnum;
  if (size < 64 || size > (size_t(1) << 31))
    return fail(hipErrorInvalidImage, "hipModuleLoadData: malformed ELF header");
  auto program = emu::Program::load(
      llvm::StringRef(static_cast<const char *>(image), size), *device.chip);
  if (!program) {
    std::string message = llvm::toString(program.takeError());
    bool wrongChip = message.find("no kernel image") != std::string::npos;
    return fail(wrongChip ? hipErrorNoBinaryForGpu : hipErrorInvalidImage,
                message);
  }
  auto owned = std::make_unique<ihipModule_t>();
  owned->program = std::move(*program);
  owned->device = currentDevice;
  *module = owned.get();
  std::lock_guard<std::mutex> lock(platform().modulesMutex);
  platform().modules[*module] = std::move(owned);
  return ok();
}

hipError_t hipModuleUnload(hipModule_t module) {
  std::lock_guard<std::mutex> lock(platform().modulesMutex);
  if (!module || !platform().modules.erase(module))
    return fail(hipErrorInvalidHandle, "hipModuleUnload: not a loaded module");
  return ok();
}

hipError_t hipModuleGetFunction(hipFunction_t *function, hipModule_t module,
                                const char *name) {
  if (!function || !module || !name)
    return fail(hipErrorInvalidValue, "hipModuleGetFunction: null argument");
  const emu::KernelInfo *info = module->program->findKernel(name);
  if (!info)
    return fail(hipErrorNotFound, std::string("hipModuleGetFunction: no "
                                              "kernel named ") + name);
  auto fn = std::make_unique<ihipModuleSymbol_t>();
  fn->module = module;
  fn->name = name;
  fn->info = *info;
  *function = fn.get();
  std::lock_guard<std::mutex> lock(platform().modulesMutex);
  module->functions.push_back(std::move(fn));
  return ok();
}

hipError_t hipModuleLaunchKernel(hipFunction_t f, unsigned int gx,
                                 unsigned int gy, unsigned int gz,
                                 unsigned int bx, unsigned int by,
                                 unsigned int bz, unsigned int sharedBytes,
                                 hipStream_t stream, void **kernelParams,
                                 void **extra) {
  if (!f)
    return fail(hipErrorInvalidHandle, "hipModuleLaunchKernel: null function");
  if (stream && stream->capturing)
    return fail(hipErrorStreamCaptureUnsupported,
                "hipModuleLaunchKernel: the stream is capturing, and graphs "
                "are not emulated");
  emu::LaunchConfig config;
  config.grid = {gx, gy, gz};
  config.block = {bx, by, bz};
  config.dynamicLdsBytes = sharedBytes;
  config.kernarg.assign(f->info.kernargBytes, 0);
  if (kernelParams) {
    for (size_t i = 0; i < f->info.explicitArgs.size(); ++i) {
      const auto &a = f->info.explicitArgs[i];
      if (!kernelParams[i])
        return fail(hipErrorInvalidValue, "kernelParams[" + std::to_string(i) +
                                              "] is null");
      if (a.offset + a.size > config.kernarg.size())
        config.kernarg.resize(a.offset + a.size);
      std::memcpy(config.kernarg.data() + a.offset, kernelParams[i], a.size);
    }
  } else if (extra) {
    void *buffer = nullptr;
    size_t *size = nullptr;
    for (size_t i = 0; extra[i] != HIP_LAUNCH_PARAM_END; i += 2) {
      if (extra[i] == HIP_LAUNCH_PARAM_BUFFER_POINTER)
        buffer = extra[i + 1];
      else if (extra[i] == HIP_LAUNCH_PARAM_BUFFER_SIZE)
        size = static_cast<size_t *>(extra[i + 1]);
      else
        return fail(hipErrorInvalidValue, "hipModuleLaunchKernel: unknown "
                                          "entry in `extra`");
    }
    if (!buffer || !size)
      return fail(hipErrorInvalidValue, "hipModuleLaunchKernel: `extra` lacks "
                                        "the buffer pointer or size");
    config.kernarg.assign(static_cast<uint8_t *>(buffer),
                          static_cast<uint8_t *>(buffer) + *size);
  } else if (!f->info.explicitArgs.empty()) {
    return fail(hipErrorInvalidValue, "hipModuleLaunchKernel: the kernel takes "
                                      "arguments but none were passed");
  }
  // A module runs on the device it was loaded on, as in HIP.
  Device &device = *platform().devices[f->module->device];
  std::lock_guard<std::mutex> lock(device.mutex);
  emu::Options options = emu::Options::fromEnvironment();
  auto result = f->module->program->launch(f->name, config, platform().memory,
                                           options);
  if (!result) {
    std::string message = llvm::toString(result.takeError());
    hipError_t err = message.find("memory access fault") != std::string::npos
                         ? hipErrorIllegalAddress
                     : message.find("workgroup") != std::string::npos ||
                             message.find("LDS") != std::string::npos
                         ? hipErrorInvalidConfiguration
                         : hipErrorLaunchFailure;
    return fail(err, message);
  }
  if (options.profile)
    llvm::errs() << "rocdsl-hip-emu: profile of " << f->name << " on "
                 << device.arch << " (device " << f->module->device
                 << "):\n" << result->profile.str();
  return ok();
}

hipError_t hipStreamCreate(hipStream_t *stream) {
  if (!stream)
    return fail(hipErrorInvalidValue, "");
  *stream = new ihipStream_t();
  return ok();
}

hipError_t hipStreamDestroy(hipStream_t stream) {
  delete stream;
  return ok();
}

hipError_t hipStreamSynchronize(hipStream_t) { return ok(); }

hipError_t hipStreamBeginCapture(hipStream_t stream,
                                 hipStreamCaptureMode mode) {
  if (!stream)
    return fail(hipErrorStreamCaptureUnsupported,
                "hipStreamBeginCapture: the null stream cannot be captured");
  bool expected = false;
  if (!stream->capturing.compare_exchange_strong(expected, true))
    return fail(hipErrorIllegalState,
                "hipStreamBeginCapture: the stream is already capturing");
  stream->global = mode == hipStreamCaptureModeGlobal;
  if (stream->global)
    ++globalCaptures;
  return ok();
}

hipError_t hipStreamEndCapture(hipStream_t stream, hipGraph_t *graph) {
  if (!stream || !graph)
    return fail(hipErrorInvalidValue, "");
  bool expected = true;
  if (!stream->capturing.compare_exchange_strong(expected, false))
    return fail(hipErrorIllegalState,
                "hipStreamEndCapture: the stream is not capturing");
  if (stream->global)
    --globalCaptures;
  *graph = nullptr;
  return fail(hipErrorNotSupported,
              "hipStreamEndCapture: graphs are not emulated");
}

hipError_t hipStreamIsCapturing(hipStream_t stream,
                                hipStreamCaptureStatus *status) {
  if (!status)
    return fail(hipErrorInvalidValue, "");
  if (!stream && globalCaptures > 0)
    return fail(hipErrorStreamCaptureImplicit,
                "hipStreamIsCapturing: the null stream, while another "
                "stream captures in global mode");
  *status = stream && stream->capturing ? hipStreamCaptureStatusActive
                                        : hipStreamCaptureStatusNone;
  return ok();
}

hipError_t hipEventCreate(hipEvent_t *event) {
  if (!event)
    return fail(hipErrorInvalidValue, "");
  *event = new ihipEvent_t();
  return ok();
}

hipError_t hipEventDestroy(hipEvent_t event) {
  delete event;
  return ok();
}

hipError_t hipEventRecord(hipEvent_t event, hipStream_t) {
  if (!event)
    return fail(hipErrorInvalidHandle, "hipEventRecord: null event");
  event->time = std::chrono::steady_clock::now();
  event->recorded = true;
  return ok();
}

hipError_t hipEventSynchronize(hipEvent_t event) {
  return event ? ok() : fail(hipErrorInvalidHandle, "");
}

hipError_t hipEventElapsedTime(float *ms, hipEvent_t start, hipEvent_t stop) {
  if (!ms || !start || !stop)
    return fail(hipErrorInvalidValue, "");
  if (!start->recorded || !stop->recorded)
    return fail(hipErrorInvalidHandle, "hipEventElapsedTime: event not recorded");
  *ms = std::chrono::duration<float, std::milli>(stop->time - start->time).count();
  return ok();
}

} // extern "C"
