//===- HipRuntime.h - the HIP runtime API, loaded at run time ---*- C++ -*-===//
//
// The HIP library is opened with dlopen, so ROCDSL neither links nor needs
// HIP where no AMD GPU is used: $ROCDSL_HIP_LIBRARY when set (for example
// build/lib/librocdsl-hip-emu.so, the emulated device), else the system's
// libamdhip64. Every way this can fail (no library, missing entry point, no
// driver, no device) is one message naming what is missing.
//
//===----------------------------------------------------------------------===//
#ifndef ROCDSL_RUNTIME_HIPRUNTIME_H
#define ROCDSL_RUNTIME_HIPRUNTIME_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace mlir::rocdsl {

class HipRuntime {
public:
  /// The runtime, or null; `why` then says why.
  static HipRuntime *get(std::string &why);

  /// The library that was loaded.
  const std::string &getLibrary() const { return library; }
  /// Devices the runtime reports (at least one).
  int getDeviceCount() const { return int(devices.size()); }
  /// Whether `device` exists; otherwise `error` says how many do.
  bool checkDevice(int device, std::string &error) const;
  /// A device's name and gcnArchName ("gfx942:sramecc+:xnack-").
  const std::string &getDeviceName(int device) const {
    return devices[device].name;
  }
  const std::string &getArchName(int device) const {
    return devices[device].archName;
  }
  /// The processor in gcnArchName ("gfx942").
  std::string getChip(int device) const;

  // Each call below makes `device` current for its duration and then
  // restores the caller's current device, as a framework's device guard
  // would, so callers (PyTorch on ROCm) keep their own device selection.

  /// Loads a code object on `device` and finds `kernel` in it.
  bool loadKernel(int device, const std::string &codeObject,
                  const std::string &kernel, void **function,
                  std::string &error);
  /// Launches with the kernarg segment `kernarg` and waits; `microseconds`
  /// receives the event-timed duration.
  bool launch(int device, void *function, const unsigned grid[3],
              const unsigned block[3], unsigned dynamicLdsBytes,
              std::vector<uint8_t> &kernarg, float *microseconds,
              std::string &error);

  /// Queues the launch on `stream` (a hipStream_t of `device`; null: its
  /// null stream) and returns without waiting. HIP copies the kernarg
  /// buffer at the call.
  bool enqueue(int device, void *function, const unsigned grid[3],
               const unsigned block[3], unsigned dynamicLdsBytes,
               std::vector<uint8_t> &kernarg, void *stream,
               std::string &error);
  /// Waits for `stream` (null: the whole device).
  bool synchronize(int device, void *stream, std::string &error);
  /// Whether `stream` is being captured into a graph (hipStreamIsCapturing);
  /// false, with `error`, where the library cannot say.
  bool isCapturing(int device, void *stream, bool &capturing,
                   std::string &error);

  bool allocate(int device, uint64_t *devicePtr, size_t bytes,
                std::string &error);
  bool free(int device, uint64_t devicePtr);
  bool copyToDevice(int device, uint64_t dst, const void *src, size_t bytes,
                    std::string &error);
  bool copyToHost(int device, void *dst, uint64_t src, size_t bytes,
                  std::string &error);

  struct Api;

private:
  friend class HipDeviceGuard;
  struct DeviceInfo {
    std::string name, archName;
    void *startEvent = nullptr, *stopEvent = nullptr;
  };
  HipRuntime() = default;
  Api *api = nullptr;
  std::string library;
  std::vector<DeviceInfo> devices;
  bool check(int result, const char *what, std::string &error);
  /// hipModuleLaunchKernel with the kernarg buffer, on the current device.
  bool launchOnCurrent(void *function, const unsigned grid[3],
                       const unsigned block[3], unsigned dynamicLdsBytes,
                       std::vector<uint8_t> &kernarg, void *stream,
                       std::string &error);
};


} // namespace mlir::rocdsl

#endif
