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
  /// The runtime with device 0 selected, or null; `why` then says why.
  static HipRuntime *get(std::string &why);

  /// The library that was loaded, and device 0's name and gcnArchName
  /// ("gfx942:sramecc+:xnack-").
  const std::string &getLibrary() const { return library; }
  const std::string &getDeviceName() const { return deviceName; }
  const std::string &getArchName() const { return archName; }
  /// The processor in gcnArchName ("gfx942").
  std::string getChip() const;

  /// Loads a code object and finds `kernel` in it.
  bool loadKernel(const std::string &codeObject, const std::string &kernel,
                  void **function, std::string &error);
  /// Launches with the kernarg segment `kernarg` and waits; `microseconds`
  /// receives the event-timed duration.
  bool launch(void *function, const unsigned grid[3], const unsigned block[3],
              unsigned dynamicLdsBytes, std::vector<uint8_t> &kernarg,
              float *microseconds, std::string &error);

  /// Queues the launch on `stream` (a hipStream_t; null: the null stream)
  /// and returns without waiting. HIP copies the kernarg buffer at the call.
  bool enqueue(void *function, const unsigned grid[3], const unsigned block[3],
               unsigned dynamicLdsBytes, std::vector<uint8_t> &kernarg,
               void *stream, std::string &error);
  /// Waits for `stream` (null: the whole device).
  bool synchronize(void *stream, std::string &error);

  bool allocate(uint64_t *devicePtr, size_t bytes, std::string &error);
  bool free(uint64_t devicePtr);
  bool copyToDevice(uint64_t dst, const void *src, size_t bytes,
                    std::string &error);
  bool copyToHost(void *dst, uint64_t src, size_t bytes, std::string &error);

  struct Api;

private:
  HipRuntime() = default;
  Api *api = nullptr;
  std::string library, deviceName, archName;
  void *startEvent = nullptr, *stopEvent = nullptr;
  bool check(int result, const char *what, std::string &error);
};

/// The chip to compile for when the hip device is used without one: the
/// device's, where a HIP runtime and device exist; else gfx942.
std::string getDefaultHipChip();

} // namespace mlir::rocdsl

#endif
