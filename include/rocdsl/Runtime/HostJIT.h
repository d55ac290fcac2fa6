//===- HostJIT.h - compile and load rocdsl kernels for the CPU --*- C++ -*-===//
#ifndef ROCDSL_RUNTIME_HOSTJIT_H
#define ROCDSL_RUNTIME_HOSTJIT_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <string>

namespace llvm::orc {
class LLJIT;
} // namespace llvm::orc

namespace mlir::rocdsl {

/// Entry point of a host kernel: `args[i]` points to the i-th kernel
/// argument, followed by pid_x, pid_y, pid_z, num_programs_x/y/z (int32).
using PackedKernelFn = void (*)(void **args);

/// The CPU the host target compiles for: name and feature string.
std::string getHostTargetDescription();

/// Compiles a module lowered by `rocdsl-to-host` into a relocatable object
/// for this CPU (optimized at -O3), adding `__rocdsl_packed_<name>` entry
/// points for each function. The object is what the disk cache stores.
llvm::Expected<std::string> compileHostObject(ModuleOp lowered);

/// An object loaded into this process through ORC.
class HostObject {
public:
  static llvm::Expected<std::unique_ptr<HostObject>>
  load(llvm::StringRef object);
  ~HostObject();
  llvm::Expected<PackedKernelFn> lookup(llvm::StringRef kernel);

private:
  HostObject() = default;
  std::unique_ptr<llvm::orc::LLJIT> jit;
};

} // namespace mlir::rocdsl

#endif
