//===- CompileOnly.cpp - everything a compile for one chip produces -------===//
#include "rocdsl/Runtime/CompileOnly.h"

#include "rocdsl/Dialect/RocDSL/IR/RocDSL.h"
#include "rocdsl/Kernels/Registry.h"
#include "rocdsl/Pipelines/Pipelines.h"
#include "rocdsl/Runtime/SourceKernel.h"
#include "rocdsl/Support/ChipInfo.h"
#include "rocdsl/Target/CheckedCompile.h"
#include "rocdsl/Target/NVIDIA.h"
#include "rocdsl/Target/ScheduleChoice.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::rocdsl;

static std::string print(ModuleOp module) {
  std::string text;
  llvm::raw_string_ostream os(text);
  module->print(os);
  return text;
}

llvm::Expected<CompiledArtifacts>
mlir::rocdsl::compileOnly(const CompileRequest::BuildFn &build,
                          llvm::StringRef chip) {
  bool nvidia = isSupportedNVIDIAChip(chip);
  if (!nvidia && !isSupportedAMDGPUChip(chip))
    return llvm::createStringError("unsupported chip '" + chip.str() +
                                   "' (supported: " + listChips() + ")");
  DialectRegistry registry;
  registerRocDSLDialects(registry);
  MLIRContext ctx(registry, MLIRContext::Threading::DISABLED);
  ctx.loadAllAvailableDialects();
  std::string diagnostics;
  ScopedDiagnosticHandler collect(&ctx, [&](Diagnostic &d) {
    if (d.getSeverity() == DiagnosticSeverity::Error)
      diagnostics += (diagnostics.empty() ? "" : "; ") + formatDiagnostic(d);
    return success();
  });
  auto failure = [&](const std::string &what) {
    return llvm::createStringError(
        what + (diagnostics.empty() ? "" : ": " + diagnostics));
  };

  std::string error;
  OwningOpRef<ModuleOp> module = build(&ctx, error);
  if (!module)
    return failure("building the kernel failed" +
                   (error.empty() ? std::string() : ": " + error));
  CompiledArtifacts out;
  out.chip = chip.str();
  out.source = print(*module);
  if (nvidia) {
    if (failed(lowerToNVVM(*module, chip)))
      return failure("lowering to NVVM for " + chip.str() + " failed");
    out.lowered = print(*module);
    FailureOr<std::string> ptx = serializePTX(*module);
    FailureOr<std::string> ir =
        serializeAMDGPU(*module, AMDGPUOutput::LLVMIR);
    if (failed(ptx) || failed(ir))
      return failure("serialization for " + chip.str() + " failed");
    out.assembly = std::move(*ptx);
    out.llvmIR = std::move(*ir);
    return out;
  }
  auto checked = compileAMDGPUChecked(*module, chip);
  if (!checked)
    return failure(llvm::toString(checked.takeError()));
  out.lowered = std::move(checked->lowered);
  out.assembly = std::move(checked->assembly);
  out.binary = std::move(checked->codeObject);
  out.storeForm = checked->form;
  out.rejectedHazards = std::move(checked->rejected);
  out.schedule = checked->schedule;
  // LLVM IR of the form and schedule that were kept (the checked compile
  // lowers a copy).
  if (failed(lowerToROCDL(*module, chip, 3, out.storeForm, checked->copies)))
    return failure("lowering to ROCDL failed");
  setScheduleStrategy(*module, out.schedule);
  FailureOr<std::string> ir = serializeAMDGPU(*module, AMDGPUOutput::LLVMIR);
  if (failed(ir))
    return failure("translation to LLVM IR failed");
  out.llvmIR = std::move(*ir);
  auto resources = readKernelResources(out.binary, chip, error);
  if (failed(resources))
    return failure(error);
  out.resources = std::move(*resources);
  auto check = isa::checkAssembly(out.assembly, "", chip);
  if (!check)
    return check.takeError();
  for (const isa::KernelReport &k : check->kernels)
    out.hazards.insert(out.hazards.end(), k.hazards.begin(), k.hazards.end());
  return out;
}

llvm::Expected<CompileRequest::BuildFn>
mlir::rocdsl::builtinKernelBuilder(llvm::StringRef name,
                                   llvm::ArrayRef<std::string> definitions,
                                   llvm::StringRef chip) {
  const KernelSpec *spec = lookupKernel(name);
  if (!spec)
    return llvm::createStringError(unknownKernelMessage(name));
  TargetFacts facts;
  facts.chip = lookupChip(chip);
  std::string error;
  KernelParams params;
  LaunchPlan plan; // unused: prepareKernel refuses what the code cannot address
  if (failed(prepareKernel(*spec, facts, definitions, params, plan, error)))
    return llvm::createStringError(error);
  return CompileRequest::BuildFn(
      [spec, params](MLIRContext *ctx, std::string &error) {
        return spec->build(ctx, params, error);
      });
}
