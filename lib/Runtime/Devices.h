//===- Devices.h - per-device compile and load ------------------*- C++ -*-===//
#ifndef ROCDSL_LIB_RUNTIME_DEVICES_H
#define ROCDSL_LIB_RUNTIME_DEVICES_H

#include "rocdsl/Runtime/Runtime.h"

#include <array>
#include <optional>

namespace mlir::rocdsl {

/// Per device: compile a rocdsl module (modified in place) into the bytes
/// the disk cache stores, and load those bytes as a launcher. `lowered`, when
/// non-null, receives the IR after the target pipeline; `code` the final
/// human-readable code (AMDGCN assembly, PTX) where there is one.
llvm::Expected<std::string> compileForHost(ModuleOp module,
                                           std::string *lowered);
llvm::Expected<std::shared_ptr<Launcher>> loadOnHost(llvm::StringRef object,
                                                     llvm::StringRef kernel);
bool isHostAvailable(std::string &why);

llvm::Expected<std::string> compileForHip(ModuleOp module, llvm::StringRef chip,
                                          std::string *lowered,
                                          std::string *code);
llvm::Expected<std::shared_ptr<Launcher>>
loadOnHip(llvm::StringRef codeObject, llvm::StringRef kernel, int device);
/// Whether hip device `device` exists and has a chip ROCDSL compiles for.
bool isHipAvailable(int device, std::string &why);

llvm::Expected<std::string> compileForCuda(ModuleOp module,
                                           llvm::StringRef chip,
                                           std::string *lowered);
/// The workgroup size a PTX kernel declares (.reqntid or .maxntid).
std::optional<std::array<unsigned, 3>> getPTXBlockSize(llvm::StringRef ptx,
                                                       llvm::StringRef kernel);
/// The dynamic shared memory a PTX kernel takes (its
/// dynamicSharedBytesSymbol constant), 0 when it has none.
unsigned getPTXDynamicSharedBytes(llvm::StringRef ptx, llvm::StringRef kernel);
llvm::Expected<std::shared_ptr<Launcher>>
loadOnCuda(llvm::StringRef ptx, llvm::StringRef kernel, int device);
bool isCudaAvailable(int device, std::string &why);

} // namespace mlir::rocdsl

#endif
