//===- SourceKernel.cpp - run a kernel given as rocdsl IR text ------------===//
#include "rocdsl/Runtime/SourceKernel.h"
#include "rocdsl/Transforms/AxisInfo.h"

#include "rocdsl/Runtime/HipRuntime.h"

#include "rocdsl/Dialect/RocDSL/IR/KernelModule.h"
#include "rocdsl/Dialect/RocDSL/IR/RocDSL.h"
#include "rocdsl/Pipelines/Pipelines.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/SourceMgr.h"

using namespace mlir;
using namespace mlir::rocdsl;

std::string mlir::rocdsl::formatDiagnostic(const Diagnostic &diagnostic) {
  std::string prefix;
  SmallVector<Location> work{diagnostic.getLocation()};
  while (!work.empty() && prefix.empty()) {
    Location loc = work.pop_back_val();
    if (auto file = dyn_cast<FileLineColLoc>(loc))
      prefix = (file.getFilename().strref() + ":" + Twine(file.getLine()) +
                ":" + Twine(file.getColumn()) + ": ")
                   .str();
    else if (auto name = dyn_cast<NameLoc>(loc))
      work.push_back(name.getChildLoc());
    else if (auto call = dyn_cast<CallSiteLoc>(loc))
      work.push_back(call.getCallee());
    else if (auto fused = dyn_cast<FusedLoc>(loc))
      for (Location inner : llvm::reverse(fused.getLocations()))
        work.push_back(inner);
  }
  return prefix + diagnostic.str();
}

OwningOpRef<ModuleOp> mlir::rocdsl::parseKernelSource(llvm::StringRef source,
                                                      MLIRContext *ctx,
                                                      std::string &error) {
  // An empty StringRef may have a null data pointer, which MLIR's lexer
  // mistakes for its code-completion location (and crashes); nothing to
  // parse is an error anyway.
  if (source.trim().empty()) {
    error = "the kernel source is empty";
    return nullptr;
  }
  ScopedDiagnosticHandler collect(ctx, [&](Diagnostic &d) {
    if (d.getSeverity() == DiagnosticSeverity::Error)
      error += (error.empty() ? "" : "\n") + formatDiagnostic(d);
    return success();
  });
  // MLIR's lexer reads past the end of a buffer that is not NUL-terminated
  // (found by fuzzing); a StringRef promises no terminator, so parse a copy
  // that has one.
  auto buffer = llvm::MemoryBuffer::getMemBufferCopy(source, "kernel source");
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(buffer), llvm::SMLoc());
  OwningOpRef<ModuleOp> module =
      parseSourceFile<ModuleOp>(sourceMgr, ParserConfig(ctx));
  if (!module)
    return nullptr;
  return takeKernelModule(std::move(module));
}

std::string mlir::rocdsl::noKernelMessage(ModuleOp module,
                                          llvm::StringRef kernel) {
  std::string message = "the source has no rocdsl.func @" + kernel.str();
  std::string nested = describeNestedKernels(module);
  if (!nested.empty())
    message += " at its top level: its rocdsl.func are inside " + nested +
               " (kernels go at the top level of the source, or of a module "
               "that is its only content)";
  return message;
}

static std::optional<dsl::DType> dtypeOf(Type type) {
  if (type.isF32())
    return dsl::DType::F32;
  if (type.isF16())
    return dsl::DType::F16;
  if (type.isBF16())
    return dsl::DType::BF16;
  if (type.isInteger(32))
    return dsl::DType::I32;
  return std::nullopt;
}

llvm::Expected<std::unique_ptr<SourceKernel>>
SourceKernel::create(llvm::StringRef source, llvm::StringRef kernel,
                     DeviceId device, llvm::StringRef chip) {
  llvm::Expected<std::string> targetChip = Runtime::resolveChip(device, chip);
  if (!targetChip)
    return targetChip.takeError();
  // A private context: only the signature is needed here; the runtime
  // parses again in its own context when (and only when) it compiles.
  DialectRegistry registry;
  registerRocDSLDialects(registry);
  MLIRContext ctx(registry, MLIRContext::Threading::DISABLED);
  std::string error;
  OwningOpRef<ModuleOp> module = parseKernelSource(source, &ctx, error);
  if (!module)
    return llvm::createStringError("invalid kernel source:\n" + error);
  auto func = module->lookupSymbol<FuncOp>(kernel);
  if (!func)
    return llvm::createStringError(noKernelMessage(*module, kernel));

  std::unique_ptr<SourceKernel> k(new SourceKernel());
  k->device = device;
  CacheKey key;
  for (auto [i, type] : llvm::enumerate(func.getArgumentTypes())) {
    SourceArg arg;
    std::optional<dsl::DType> dtype;
    if (auto ptr = dyn_cast<PtrType>(type)) {
      arg.kind = ArgKind::Tensor;
      dtype = dtypeOf(ptr.getElementType());
    } else {
      dtype = dtypeOf(type);
      arg.kind = type.isF32() ? ArgKind::Float32 : ArgKind::Int32;
      if (dtype && *dtype != dsl::DType::F32 && *dtype != dsl::DType::I32)
        dtype.reset();
    }
    if (!dtype)
      return llvm::createStringError(
          "argument " + std::to_string(i) + " of @" + kernel.str() +
          " has an unsupported type (pointers to f32/f16/bf16/i32, i32 and "
          "f32 scalars)");
    arg.dtype = *dtype;
    // Launch facts the code was compiled for (AxisInfo.h): checked on
    // every launch, so a launch that lacks them is refused, never run.
    if (auto a = func.getArgAttrOfType<IntegerAttr>(i, kAlignmentAttr))
      arg.requiredMultiple = uint64_t(std::max<int64_t>(a.getInt(), 1));
    if (auto d = func.getArgAttrOfType<IntegerAttr>(i, kDivisibilityAttr))
      arg.requiredMultiple = uint64_t(std::max<int64_t>(d.getInt(), 1));
    Value value = func.getArgument(i);
    arg.written = arg.kind == ArgKind::Tensor &&
                  llvm::any_of(value.getUsers(), [&](Operation *user) {
                    auto store = dyn_cast<StoreOp>(user);
                    return store && store.getPtr() == value;
                  });
    if (arg.written)
      k->outputs.push_back({unsigned(i), "argument " + std::to_string(i)});
    k->args.push_back(arg);
    std::string typeText;
    llvm::raw_string_ostream(typeText) << type;
    key.argSignature.push_back(typeText);
  }

  key.kernelFingerprint =
      "source:" +
      llvm::toHex(llvm::SHA256::hash(llvm::arrayRefFromStringRef(source)),
                  /*LowerCase=*/true);
  key.target = Runtime::getTarget(device.kind, *targetChip);
  key.compileOptions["opt-level"] = "3";
  key.compiler = Runtime::getCompilerFingerprint(device.kind);
  k->request = CompileRequest(
      kernel.str(),
      [text = source.str()](MLIRContext *ctx, std::string &error) {
        return parseKernelSource(text, ctx, error);
      },
      std::move(key));
  return k;
}

llvm::Error SourceKernel::validate(llvm::ArrayRef<ArgValue> values) const {
  if (values.size() != args.size())
    return llvm::createStringError(
        request.getKernelName() + " takes " + std::to_string(args.size()) +
        " arguments, got " + std::to_string(values.size()));
  for (auto [i, sig, value] : llvm::enumerate(args, values)) {
    std::string where = "argument " + std::to_string(i) + ": ";
    if (value.kind != sig.kind)
      return llvm::createStringError(
          where + (sig.kind == ArgKind::Tensor  ? "expected an array"
                   : sig.kind == ArgKind::Int32 ? "expected an i32 scalar"
                                                : "expected an f32 scalar"));
    if (sig.kind == ArgKind::Int32 && sig.requiredMultiple > 1 &&
        uint64_t(int64_t(value.i32) < 0 ? -int64_t(value.i32)
                                        : int64_t(value.i32)) %
                sig.requiredMultiple !=
            0)
      return llvm::createStringError(
          where + "the kernel was specialized for multiples of " +
          std::to_string(sig.requiredMultiple) +
          " (rocdsl.divisibility), got " + std::to_string(value.i32));
    if (sig.kind != ArgKind::Tensor)
      continue;
    if (value.tensor.dtype != sig.dtype)
      return llvm::createStringError(where + "expected dtype " +
                                     dsl::toString(sig.dtype).str() + ", got " +
                                     dsl::toString(value.tensor.dtype).str());
    if (!value.tensor.data)
      return llvm::createStringError(where + "null data pointer");
    unsigned elementBytes = dsl::bitWidth(sig.dtype) / 8;
    if (reinterpret_cast<uintptr_t>(value.tensor.data) % elementBytes != 0)
      return llvm::createStringError(where + "data is not aligned to its " +
                                     std::to_string(elementBytes) +
                                     "-byte elements");
    if (sig.requiredMultiple > 1 &&
        reinterpret_cast<uintptr_t>(value.tensor.data) % sig.requiredMultiple)
      return llvm::createStringError(
          where + "the kernel was specialized for " +
          std::to_string(sig.requiredMultiple) +
          "-byte aligned data (rocdsl.alignment), got an address that is not");
  }
  return llvm::Error::success();
}

llvm::Error SourceKernel::run(llvm::ArrayRef<ArgValue> values, LaunchGrid grid,
                              void *stream, bool wait, RunInfo &info,
                              const LaunchOptions &options) {
  if (llvm::Error err = validate(values))
    return err;
  if (grid.x == 0 || grid.y == 0 || grid.z == 0)
    return llvm::createStringError("the grid must have at least one program "
                                   "along each axis");
  return launchRequest(device, request, launcher, values, grid, stream, wait,
                       info, outputs, options);
}
