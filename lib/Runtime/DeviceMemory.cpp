//===- DeviceMemory.cpp - buffers of device memory ------------------------===//
#include "rocdsl/Runtime/DeviceMemory.h"

#include "rocdsl/Runtime/CudaDriver.h"
#include "rocdsl/Runtime/HipRuntime.h"

#include <cstdlib>
#include <cstring>

using namespace mlir;
using namespace mlir::rocdsl;

static constexpr size_t kAlignment = 256;

llvm::Expected<std::unique_ptr<DeviceBuffer>>
DeviceBuffer::allocate(DeviceId device, size_t bytes) {
  if (bytes == 0)
    return llvm::createStringError("cannot allocate 0 bytes on " +
                                   device.str());
  std::string why;
  uint64_t address = 0;
  switch (device.kind) {
  case DeviceKind::Host: {
    void *p = std::aligned_alloc(kAlignment,
                                 (bytes + kAlignment - 1) / kAlignment *
                                     kAlignment);
    if (!p)
      return llvm::createStringError("out of host memory allocating " +
                                     std::to_string(bytes) + " bytes");
    address = reinterpret_cast<uint64_t>(p);
    break;
  }
  case DeviceKind::HIP: {
    HipRuntime *hip = HipRuntime::get(why);
    if (!hip || !hip->allocate(device.ordinal, &address, bytes, why))
      return llvm::createStringError("cannot allocate " +
                                     std::to_string(bytes) + " bytes on " +
                                     device.str() + ": " + why);
    break;
  }
  case DeviceKind::CUDA: {
    CudaDriver *cuda = CudaDriver::get(why);
    if (!cuda || !cuda->allocate(device.ordinal, &address, bytes, why))
      return llvm::createStringError("cannot allocate " +
                                     std::to_string(bytes) + " bytes on " +
                                     device.str() + ": " + why);
    break;
  }
  }
  return std::unique_ptr<DeviceBuffer>(new DeviceBuffer(device, address, bytes));
}

DeviceBuffer::~DeviceBuffer() {
  std::string why;
  switch (device.kind) {
  case DeviceKind::Host:
    std::free(data());
    break;
  case DeviceKind::HIP:
    if (HipRuntime *hip = HipRuntime::get(why))
      hip->free(device.ordinal, address);
    break;
  case DeviceKind::CUDA:
    if (CudaDriver *cuda = CudaDriver::get(why))
      cuda->free(device.ordinal, address);
    break;
  }
}

llvm::Error DeviceBuffer::checkRange(size_t count, size_t offset) const {
  if (offset > bytes || count > bytes - offset)
    return llvm::createStringError(
        "copy of " + std::to_string(count) + " bytes at offset " +
        std::to_string(offset) + " is outside the " + std::to_string(bytes) +
        "-byte buffer on " + device.str());
  return llvm::Error::success();
}

llvm::Error DeviceBuffer::transfer(void *host, size_t count, size_t offset,
                                   bool toDevice) const {
  if (llvm::Error err = checkRange(count, offset))
    return err;
  if (count == 0)
    return llvm::Error::success();
  std::string why;
  bool ok = false;
  uint64_t at = address + offset;
  switch (device.kind) {
  case DeviceKind::Host: {
    void *mine = reinterpret_cast<void *>(at);
    std::memmove(toDevice ? mine : host, toDevice ? host : mine, count);
    ok = true;
    break;
  }
  case DeviceKind::HIP:
    if (HipRuntime *hip = HipRuntime::get(why))
      ok = toDevice ? hip->copyToDevice(device.ordinal, at, host, count, why)
                    : hip->copyToHost(device.ordinal, host, at, count, why);
    break;
  case DeviceKind::CUDA:
    if (CudaDriver *cuda = CudaDriver::get(why))
      ok = toDevice ? cuda->copyToDevice(device.ordinal, at, host, count, why)
                    : cuda->copyToHost(device.ordinal, host, at, count, why);
    break;
  }
  if (!ok)
    return llvm::createStringError("copy " +
                                   std::string(toDevice ? "to " : "from ") +
                                   device.str() + " failed: " + why);
  return llvm::Error::success();
}

llvm::Expected<std::string> mlir::rocdsl::describeDevice(DeviceId device) {
  std::string why;
  if (!Runtime::isAvailable(device, why))
    return llvm::createStringError("cannot run on " + device.str() + ": " +
                                   why);
  if (device.kind == DeviceKind::HIP) {
    HipRuntime *hip = HipRuntime::get(why);
    return hip->getDeviceName(device.ordinal) + " (" +
           hip->getArchName(device.ordinal) + ", " + hip->getLibrary() + ")";
  }
  if (device.kind == DeviceKind::CUDA)
    return "NVIDIA GPU " + std::to_string(device.ordinal) + " (CUDA driver)";
  return std::string("host CPU");
}
