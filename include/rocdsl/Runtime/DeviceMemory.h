//===- DeviceMemory.h - buffers of device memory ----------------*- C++ -*-===//
//
// Memory on one device (hip:N through the HIP runtime, cuda:N through the
// CUDA driver, or the host), freed with its owner, and copies to and from
// host memory. Kernels take `data()` as a pointer argument. Nothing here
// copies implicitly: every transfer is one of these calls.
//
//===----------------------------------------------------------------------===//
#ifndef ROCDSL_RUNTIME_DEVICEMEMORY_H
#define ROCDSL_RUNTIME_DEVICEMEMORY_H

#include "rocdsl/Runtime/Runtime.h"

#include <memory>

namespace mlir::rocdsl {

class DeviceBuffer {
public:
  /// `bytes` (> 0) of memory on `device`, 256-byte aligned like hipMalloc's
  /// and cuMemAlloc's. The error names the device and what is missing.
  static llvm::Expected<std::unique_ptr<DeviceBuffer>>
  allocate(DeviceId device, size_t bytes);
  ~DeviceBuffer();
  DeviceBuffer(const DeviceBuffer &) = delete;
  DeviceBuffer &operator=(const DeviceBuffer &) = delete;

  void *data() const { return reinterpret_cast<void *>(address); }
  size_t size() const { return bytes; }
  DeviceId getDevice() const { return device; }

  /// Copies `count` bytes between host memory and [offset, offset+count) of
  /// this buffer; waits for the device's queued work first (as hipMemcpy
  /// and cuMemcpy do). Out-of-range copies are errors.
  llvm::Error copyFromHost(const void *src, size_t count, size_t offset = 0) {
    return transfer(const_cast<void *>(src), count, offset, /*toDevice=*/true);
  }
  llvm::Error copyToHost(void *dst, size_t count, size_t offset = 0) const {
    return transfer(dst, count, offset, /*toDevice=*/false);
  }

private:
  DeviceBuffer(DeviceId device, uint64_t address, size_t bytes)
      : device(device), address(address), bytes(bytes) {}
  llvm::Error checkRange(size_t count, size_t offset) const;
  llvm::Error transfer(void *host, size_t count, size_t offset,
                       bool toDevice) const;
  DeviceId device;
  uint64_t address;
  size_t bytes;
};

/// One line naming a device for logs and reports: its name, chip and the
/// library behind it ("AMD Instinct MI300X (gfx942:sramecc+:xnack-,
/// libamdhip64.so)"); the error when the device cannot be used.
llvm::Expected<std::string> describeDevice(DeviceId device);

} // namespace mlir::rocdsl

#endif
