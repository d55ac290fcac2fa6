//===- CudaDevice.cpp - NVIDIA GPUs through the CUDA driver ---------------===//
//
// Kernels go through the rocdsl-to-nvvm pipeline and LLVM's NVPTX backend
// in-process; the cache stores PTX, which the driver JIT-compiles for the
// GPU at load time. The workgroup size travels in the PTX itself (the
// kernel's .maxntid/.reqntid directive), and so does the dynamic shared
// memory a kernel takes beyond the static 48 KiB (a constant beside it,
// see getPTXDynamicSharedBytes), so nothing else needs storing.
//
//===----------------------------------------------------------------------===//
#include "Devices.h"

#include "rocdsl/Conversion/SharedMemory.h"
#include "rocdsl/Runtime/CudaDriver.h"
#include "rocdsl/Target/NVIDIA.h"

#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace mlir::rocdsl;

namespace {

class CudaLauncher : public Launcher {
public:
  CudaLauncher(CudaDriver *driver, int device, void *function, std::string name,
               std::array<unsigned, 3> block, unsigned sharedBytes)
      : driver(driver), device(device), function(function),
        name(std::move(name)), block(block), sharedBytes(sharedBytes) {}

  llvm::Error launch(llvm::ArrayRef<void *> args, LaunchGrid grid) override {
    unsigned g[3] = {grid.x, grid.y, grid.z};
    float us = 0;
    std::string error;
    if (!driver->launch(device, function, g, block.data(), sharedBytes,
                        const_cast<void **>(args.data()), &us, error))
      return llvm::createStringError("cuda launch of " + name + ": " + error);
    microseconds = us;
    return llvm::Error::success();
  }
  llvm::Error enqueue(llvm::ArrayRef<void *> args, LaunchGrid grid,
                      void *stream) override {
    unsigned g[3] = {grid.x, grid.y, grid.z};
    std::string error;
    if (!driver->enqueue(device, function, g, block.data(), sharedBytes,
                         const_cast<void **>(args.data()), stream, error))
      return llvm::createStringError("cuda launch of " + name + ": " + error);
    return llvm::Error::success();
  }
  double lastLaunchMicroseconds() const override { return microseconds; }
  DeviceKind getDevice() const override { return DeviceKind::CUDA; }
  llvm::Error synchronize(void *stream, bool &capturing) override {
    std::string error;
    if (!driver->synchronize(device, stream, capturing, error))
      return llvm::createStringError(error);
    return llvm::Error::success();
  }
  llvm::Error readBack(void *host, const void *data, size_t bytes) override {
    std::string error;
    if (!driver->copyToHost(device, host, reinterpret_cast<uint64_t>(data),
                            bytes, error))
      return llvm::createStringError(error);
    return llvm::Error::success();
  }

private:
  CudaDriver *driver;
  int device;
  void *function;
  std::string name;
  std::array<unsigned, 3> block;
  unsigned sharedBytes;
  double microseconds = 0;
};

} // namespace

bool mlir::rocdsl::isCudaAvailable(int device, std::string &why) {
  CudaDriver *driver = CudaDriver::get(why);
  return driver && driver->checkDevice(device, why);
}

llvm::Expected<std::string> mlir::rocdsl::compileForCuda(ModuleOp module,
                                                         llvm::StringRef chip,
                                                         std::string *lowered) {
  if (!isSupportedNVIDIAChip(chip))
    return llvm::createStringError("unsupported NVIDIA chip '" + chip.str() +
                                   "' (sm_90, sm_90a)");
  if (failed(lowerToNVVM(module, chip)))
    return llvm::createStringError("lowering to NVVM for " + chip.str() +
                                   " failed");
  if (lowered) {
    llvm::raw_string_ostream os(*lowered);
    module->print(os);
  }
  FailureOr<std::string> ptx = serializePTX(module);
  if (failed(ptx))
    return llvm::createStringError("PTX generation for " + chip.str() +
                                   " failed");
  return std::move(*ptx);
}

std::optional<std::array<unsigned, 3>>
mlir::rocdsl::getPTXBlockSize(llvm::StringRef ptx, llvm::StringRef kernel) {
  size_t entry = ptx.find((".entry " + kernel + "(").str());
  if (entry == llvm::StringRef::npos)
    return std::nullopt;
  llvm::StringRef rest = ptx.drop_front(entry);
  // The directives sit between the parameter list and the body's '{'.
  rest = rest.take_front(rest.find('{'));
  for (llvm::StringRef directive : {".reqntid", ".maxntid"}) {
    size_t at = rest.find(directive);
    if (at == llvm::StringRef::npos)
      continue;
    llvm::StringRef dims = rest.drop_front(at + directive.size());
    dims = dims.take_until([](char c) { return c == '\n'; });
    llvm::SmallVector<llvm::StringRef> parts;
    dims.split(parts, ',');
    std::array<unsigned, 3> block = {1, 1, 1};
    for (size_t i = 0; i < parts.size() && i < 3; ++i)
      if (parts[i].trim().getAsInteger(10, block[i]))
        return std::nullopt;
    return block;
  }
  return std::nullopt;
}

llvm::Expected<std::shared_ptr<Launcher>>
mlir::rocdsl::loadOnCuda(llvm::StringRef ptx, llvm::StringRef kernel,
                         int device) {
  std::string why;
  CudaDriver *driver = CudaDriver::get(why);
  if (!driver)
    return llvm::createStringError("cannot run on cuda: " + why);
  auto block = getPTXBlockSize(ptx, kernel);
  if (!block)
    return llvm::createStringError("the PTX of " + kernel.str() +
                                   " names no workgroup size (.maxntid)");
  void *function = nullptr;
  std::string error;
  if (!driver->loadKernel(device, ptx.str(), kernel.str(), &function, error))
    return llvm::createStringError("loading " + kernel.str() + ": " + error);
  unsigned sharedBytes = getPTXDynamicSharedBytes(ptx, kernel);
  if (sharedBytes &&
      !driver->allowDynamicShared(device, function, sharedBytes, error))
    return llvm::createStringError("loading " + kernel.str() + ": " + error);
  return std::make_shared<CudaLauncher>(driver, device, function, kernel.str(),
                                        *block, sharedBytes);
}

unsigned mlir::rocdsl::getPTXDynamicSharedBytes(llvm::StringRef ptx,
                                                llvm::StringRef kernel) {
  std::string marker = dynamicSharedBytesSymbol(kernel) + " = ";
  size_t at = ptx.find(marker);
  if (at == llvm::StringRef::npos)
    return 0;
  unsigned bytes = 0;
  llvm::StringRef value =
      ptx.drop_front(at + marker.size()).take_while([](char c) {
        return llvm::isDigit(c);
      });
  return value.getAsInteger(10, bytes) ? 0 : bytes;
}
