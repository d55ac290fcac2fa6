//===- CudaDevice.cpp - NVIDIA GPUs through the CUDA driver ---------------===//
#include "Devices.h"

#include "rocdsl/Runtime/CudaDriver.h"

using namespace mlir;
using namespace mlir::rocdsl;

bool mlir::rocdsl::isCudaAvailable(std::string &why) {
  return CudaDriver::get(why) != nullptr;
}

llvm::Expected<std::string> mlir::rocdsl::compileForCuda(ModuleOp,
                                                         llvm::StringRef chip) {
  return llvm::createStringError(
      "the NVIDIA (" + chip.str() +
      ") lowering of rocdsl kernels is not implemented yet; the cuda device "
      "can load and run PTX (see CudaDriver)");
}

llvm::Expected<std::shared_ptr<Launcher>>
mlir::rocdsl::loadOnCuda(llvm::StringRef, llvm::StringRef) {
  return llvm::createStringError(
      "cuda launchers need the NVIDIA lowering, which is not implemented yet");
}
