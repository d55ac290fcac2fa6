//===- Pipelines.h - registration and named pipelines -----------*- C++ -*-===//
#ifndef ROCDSL_PIPELINES_PIPELINES_H
#define ROCDSL_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassOptions.h"

namespace mlir {
class DialectRegistry;
class OpPassManager;
} // namespace mlir

namespace mlir::rocdsl {

struct RocDSLToROCDLOptions : public PassPipelineOptions<RocDSLToROCDLOptions> {
  Option<std::string> chip{*this, "chip",
                           llvm::cl::desc("Target chip: gfx942 or gfx950"),
                           llvm::cl::init("gfx942")};
  Option<unsigned> optLevel{*this, "opt-level",
                            llvm::cl::desc("LLVM optimization level"),
                            llvm::cl::init(3)};
  Option<unsigned> maxStoreBits{
      *this, "max-store-bits",
      llvm::cl::desc("Widest global store (64: conservative form)"),
      llvm::cl::init(128)};
  Option<bool> padWideStores{
      *this, "pad-wide-stores",
      llvm::cl::desc("s_nop 1 after every store wider than 64 bits"),
      llvm::cl::init(false)};
  Option<bool> directCopies{
      *this, "direct-copies",
      llvm::cl::desc("async_copy as direct-to-LDS loads (experimental)"),
      llvm::cl::init(false)};
  Option<std::string> waits{
      *this, "waits",
      llvm::cl::desc("Waits of asynchronous copies: explicit (planned "
                     "vmcnt) or llvm (drained)"),
      llvm::cl::init("explicit")};
};

struct RocDSLToNVVMOptions : public PassPipelineOptions<RocDSLToNVVMOptions> {
  Option<std::string> chip{*this, "chip",
                           llvm::cl::desc("Target chip: sm_90 or sm_90a"),
                           llvm::cl::init("sm_90")};
  Option<unsigned> optLevel{*this, "opt-level",
                            llvm::cl::desc("LLVM optimization level"),
                            llvm::cl::init(3)};
};

/// rocdsl -> gpu.module of NVVM/LLVM ops with a #nvvm.target, ready for
/// gpu-module-to-binary (PTX).
void buildRocDSLToNVVMPipeline(OpPassManager &pm,
                               const RocDSLToNVVMOptions &options);

/// rocdsl -> gpu.module of LLVM/ROCDL ops with a #rocdl.target attached,
/// ready for gpu-module-to-binary (or the ROCDSL serializer).
void buildRocDSLToROCDLPipeline(OpPassManager &pm,
                                const RocDSLToROCDLOptions &options);

/// rocdsl -> LLVM dialect functions for the host CPU, one call per program
/// instance (see convert-rocdsl-to-host).
void buildRocDSLToHostPipeline(OpPassManager &pm);

/// Every dialect and interface ROCDSL's tools need.
void registerRocDSLDialects(DialectRegistry &registry);

/// ROCDSL's passes, the upstream passes its pipelines use, and the named
/// pipelines (`rocdsl-to-rocdl`, `rocdsl-to-nvvm`, `rocdsl-to-host`).
void registerRocDSLPassesAndPipelines();

} // namespace mlir::rocdsl

#endif
