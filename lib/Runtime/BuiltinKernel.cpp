//===- BuiltinKernel.cpp - run a built-in kernel on a device --------------===//
#include "rocdsl/Runtime/BuiltinKernel.h"

#include "rocdsl/Runtime/CudaDriver.h"
#include "rocdsl/Runtime/FiniteCheck.h"

#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace mlir::rocdsl;

static llvm::StringRef kindName(ArgKind kind) {
  switch (kind) {
  case ArgKind::Tensor:
    return "a tensor";
  case ArgKind::Int32:
    return "an i32 scalar";
  case ArgKind::Float32:
    return "an f32 scalar";
  }
  return "?";
}

llvm::Expected<std::unique_ptr<BuiltinKernel>>
BuiltinKernel::create(llvm::StringRef name,
                      llvm::ArrayRef<std::string> definitions,
                      DeviceId device, llvm::StringRef chip) {
  std::unique_ptr<BuiltinKernel> k(new BuiltinKernel());
  k->spec = lookupKernel(name);
  if (!k->spec)
    return llvm::createStringError(unknownKernelMessage(name));
  std::string error;
  llvm::Expected<std::string> targetChip = Runtime::resolveChip(device, chip);
  if (!targetChip)
    return targetChip.takeError();
  // The kernel's own rules for this target (wave size, grid size).
  TargetFacts facts;
  facts.chip = lookupChip(*targetChip);
  if (device.kind == DeviceKind::CUDA) {
    std::string why;
    if (CudaDriver *driver = CudaDriver::get(why))
      facts.multiprocessors = driver->multiprocessorCount(device.ordinal);
  }
  if (failed(prepareKernel(*k->spec, facts, definitions, k->params, k->plan,
                            error)))
    return llvm::createStringError(error);
  k->device = device;
  for (auto [i, sig] : llvm::enumerate(k->plan.args))
    if (sig.kind == ArgKind::Tensor && sig.isOutput)
      k->outputs.push_back({unsigned(i), sig.name});

  CacheKey key;
  // The kernel's source is compiled into ROCDSL, so the build id in the
  // compiler fingerprint already covers it.
  key.kernelFingerprint = "builtin:" + name.str();
  for (const KernelParamSpec &p : k->spec->params)
    if (!p.runtimeOnly)
      key.constexprs[p.name] = k->params.get(p.name).str();
  for (const ArgSignature &a : k->plan.args)
    key.argSignature.push_back(a.name + ":" + kindName(a.kind).str() + ":" +
                               dsl::toString(a.dtype).str() + ":rank" +
                               std::to_string(a.shape.size()) + ":align" +
                               std::to_string(a.alignment));
  key.target = Runtime::getTarget(device.kind, *targetChip);
  key.compileOptions["opt-level"] = "3";
  key.compiler = Runtime::getCompilerFingerprint(device.kind);
  const KernelSpec *spec = k->spec;
  KernelParams params = k->params;
  k->request = CompileRequest(
      k->plan.kernelName,
      [spec, params](MLIRContext *ctx, std::string &error) {
        return spec->build(ctx, params, error);
      },
      std::move(key));
  return k;
}

llvm::Error BuiltinKernel::validate(llvm::ArrayRef<ArgValue> args) const {
  if (args.size() != plan.args.size())
    return llvm::createStringError(
        plan.kernelName + " takes " + std::to_string(plan.args.size()) +
        " arguments, got " + std::to_string(args.size()));
  for (auto [sig, arg] : llvm::zip(plan.args, args)) {
    // Built only for a message: a launch that passes pays no allocation.
    auto where = [&sig = sig] { return "argument '" + sig.name + "': "; };
    if (arg.kind != sig.kind)
      return llvm::createStringError(where() + "expected " +
                                     kindName(sig.kind).str() + ", got " +
                                     kindName(arg.kind).str());
    if (sig.kind == ArgKind::Int32 && sig.expectedInt &&
        arg.i32 != *sig.expectedInt)
      return llvm::createStringError(
          where() + "expected " + std::to_string(*sig.expectedInt) +
          " (the value this launch was planned for), got " +
          std::to_string(arg.i32));
    if (sig.kind == ArgKind::Float32 && sig.checkFloat)
      if (std::optional<std::string> problem = sig.checkFloat(arg.f32))
        return llvm::createStringError(where() + "got " +
                                       std::to_string(arg.f32) + ", which " +
                                       *problem);
    if (sig.kind != ArgKind::Tensor)
      continue;
    const TensorArg &t = arg.tensor;
    if (t.dtype != sig.dtype)
      return llvm::createStringError(where() + "expected dtype " +
                                     dsl::toString(sig.dtype).str() + ", got " +
                                     dsl::toString(t.dtype).str());
    if (t.shape.size() != sig.shape.size())
      return llvm::createStringError(where() + "expected rank " +
                                     std::to_string(sig.shape.size()) +
                                     ", got " + std::to_string(t.shape.size()));
    if (t.shape != sig.shape)
      return llvm::createStringError(where() + "expected shape " +
                                     shapeString(sig.shape) + ", got " +
                                     shapeString(t.shape));
    if (!t.strides.empty()) {
      SmallVector<int64_t, 4> contiguous(t.shape.size(), 1);
      for (int d = int(t.shape.size()) - 2; d >= 0; --d)
        contiguous[d] = contiguous[d + 1] * t.shape[d + 1];
      // A dimension of one element is never stepped along: its stride is
      // free (NumPy and torch call such arrays contiguous whatever it is,
      // e.g. x[:, :2] of a batch of one).
      bool dense = true;
      for (size_t d = 0; d < t.shape.size(); ++d)
        dense &= t.shape[d] == 1 || t.strides[d] == contiguous[d];
      if (!dense)
        return llvm::createStringError(
            where() + "expected contiguous strides " +
            shapeString(contiguous) + ", got " + shapeString(t.strides));
    }
    if (!t.data)
      return llvm::createStringError(where() + "null data pointer");
    if (reinterpret_cast<uintptr_t>(t.data) % sig.alignment != 0)
      return llvm::createStringError(
          where() + "data must be " + std::to_string(sig.alignment) +
          "-byte aligned (this specialization uses " +
          std::to_string(sig.alignment * 8) + "-bit accesses)");
  }
  return checkOverlaps(args);
}

llvm::Error BuiltinKernel::checkOverlaps(llvm::ArrayRef<ArgValue> args) const {
  struct Range {
    uintptr_t begin, end;
  };
  auto rangeOf = [&](size_t i) {
    const ArgSignature &sig = plan.args[i];
    uintptr_t begin = reinterpret_cast<uintptr_t>(args[i].tensor.data);
    return Range{begin, begin + uintptr_t(elementCount(sig.shape) *
                                          dsl::bitWidth(sig.dtype) / 8)};
  };
  for (size_t o = 0; o < plan.args.size(); ++o) {
    const ArgSignature &out = plan.args[o];
    if (out.kind != ArgKind::Tensor || !out.isOutput)
      continue;
    Range a = rangeOf(o);
    for (size_t t = 0; t < plan.args.size(); ++t) {
      const ArgSignature &other = plan.args[t];
      if (t == o || other.kind != ArgKind::Tensor ||
          (other.isOutput && t < o))
        continue; // output pairs are looked at once
      Range b = rangeOf(t);
      if (a.end <= b.begin || b.end <= a.begin || a.begin == a.end ||
          b.begin == b.end)
        continue;
      bool inPlace = !other.isOutput && out.inPlaceOf == other.name &&
                     a.begin == b.begin && a.end == b.end;
      if (inPlace)
        continue;
      std::string how =
          out.inPlaceOf.empty()
              ? " (" + plan.kernelName + " cannot write its outputs over "
                                         "its arguments)"
              : " (the only overlap " + plan.kernelName +
                    " allows is '" + out.inPlaceOf + "' being exactly '" +
                    out.name + "', in place)";
      return llvm::createStringError("argument '" + out.name +
                                     "' overlaps argument '" + other.name +
                                     "' in memory" + how);
    }
  }
  return llvm::Error::success();
}

llvm::Error BuiltinKernel::run(llvm::ArrayRef<ArgValue> args, RunInfo &info,
                               const LaunchOptions &options) {
  return launch(args, /*stream=*/nullptr, /*wait=*/true, info, options);
}

llvm::Error BuiltinKernel::enqueue(llvm::ArrayRef<ArgValue> args, void *stream,
                                   RunInfo &info,
                                   const LaunchOptions &options) {
  return launch(args, stream, /*wait=*/false, info, options);
}

llvm::Error BuiltinKernel::launch(llvm::ArrayRef<ArgValue> args, void *stream,
                                  bool wait, RunInfo &info,
                                  const LaunchOptions &options) {
  if (llvm::Error err = validate(args))
    return err;
  return launchRequest(device, request, launcher, args,
                       LaunchGrid{plan.grid[0], plan.grid[1], plan.grid[2]},
                       stream, wait, info, outputs, options);
}

llvm::Error mlir::rocdsl::launchRequest(
    DeviceId device, const CompileRequest &request, LauncherSlot &slot,
    llvm::ArrayRef<ArgValue> args, LaunchGrid grid, void *stream, bool wait,
    RunInfo &info, llvm::ArrayRef<OutputArg> outputs,
    const LaunchOptions &options) {
  Launcher *launcher = slot.get();
  if (launcher) {
    info.tier = CacheTier::Memory;
    info.compileMilliseconds = 0;
    Runtime::get().countMemoryHit();
  } else {
    auto found = Runtime::get().getLauncher(device, request, info.tier,
                                            info.compileMilliseconds);
    if (!found)
      return found.takeError();
    launcher = found->get();
    slot.set(std::move(*found));
  }
  info.launcher = launcher;
  // Launchers take a pointer to each argument's value.
  SmallVector<void *, 8> pointers;
  for (const ArgValue &a : args)
    pointers.push_back(a.kind == ArgKind::Tensor
                           ? const_cast<void **>(&a.tensor.data)
                       : a.kind == ArgKind::Int32
                           ? static_cast<void *>(const_cast<int32_t *>(&a.i32))
                           : static_cast<void *>(const_cast<float *>(&a.f32)));
  if (!wait) {
    if (llvm::Error err = launcher->enqueue(pointers, grid, stream))
      return err;
  } else {
    if (llvm::Error err = launcher->launch(pointers, grid))
      return err;
    info.kernelMicroseconds = launcher->lastLaunchMicroseconds();
  }
  if (outputs.empty() || !isFiniteCheckRequested(options.checkFinite))
    return llvm::Error::success();
  std::vector<OutputView> views;
  for (const OutputArg &out : outputs) {
    const TensorArg &t = args[out.index].tensor;
    if (t.shape.empty())
      continue; // a bare pointer: its extent is unknown
    views.push_back({out.name, t.data, t.dtype, size_t(elementCount(t.shape))});
  }
  return checkOutputsFinite(*launcher, request.getKernelName(), views,
                            wait ? nullptr : stream);
}
