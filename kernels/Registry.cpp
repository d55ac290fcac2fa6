//===- Registry.cpp - built-in kernels by name ----------------------------===//
#include "rocdsl/Kernels/Registry.h"

#include "attention/Attention.h"
#include "gemm/Gemm.h"
#include "norm/RMSNorm.h"

#include "rocdsl/Conversion/Addressing.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"

using namespace mlir;
using namespace mlir::rocdsl;

llvm::StringRef KernelParams::get(llvm::StringRef name) const {
  auto it = values.find(name);
  return it == values.end() ? llvm::StringRef() : llvm::StringRef(it->second);
}

LogicalResult KernelParams::getInt(llvm::StringRef name, int64_t &out,
                                   std::string &error) const {
  if (llvm::to_integer(get(name), out, 10))
    return success();
  error = "parameter " + name.str() + "='" + get(name).str() +
          "' is not an integer";
  return failure();
}

LogicalResult KernelParams::getSizeOrDefault(llvm::StringRef name,
                                             int64_t &out,
                                             std::string &error) const {
  if (failed(getInt(name, out, error)))
    return failure();
  if (out >= 0)
    return success();
  error = name.str() + "=" + std::to_string(out) +
          " is negative (0 picks the default)";
  return failure();
}

LogicalResult KernelParams::getFloat(llvm::StringRef name, double &out,
                                     std::string &error) const {
  if (llvm::to_float(get(name), out))
    return success();
  error =
      "parameter " + name.str() + "='" + get(name).str() + "' is not a number";
  return failure();
}

LogicalResult KernelParams::getFlag(llvm::StringRef name, bool &out,
                                    std::string &error) const {
  int64_t v = 0;
  if (failed(getInt(name, v, error)))
    return failure();
  if (v != 0 && v != 1) {
    error = name.str() + "=" + std::to_string(v) + " is not 0 or 1";
    return failure();
  }
  out = v == 1;
  return success();
}

const std::vector<KernelSpec> &mlir::rocdsl::getBuiltinKernels() {
  static const std::vector<KernelSpec> kernels = [] {
    std::vector<KernelSpec> all = getRMSNormSpecs();
    all.push_back(getGemmSpec());
    all.push_back(getAttentionForwardSpec());
    all.push_back(getAttentionBackwardSpec());
    all.push_back(getAttentionBackwardDeltaSpec());
    return all;
  }();
  return kernels;
}

const KernelSpec *mlir::rocdsl::lookupKernel(llvm::StringRef name) {
  for (const KernelSpec &spec : getBuiltinKernels())
    if (spec.name == name)
      return &spec;
  return nullptr;
}

std::string mlir::rocdsl::unknownKernelMessage(llvm::StringRef name) {
  std::string names = llvm::join(
      llvm::map_range(getBuiltinKernels(),
                      [](const KernelSpec &spec) { return spec.name; }),
      ", ");
  return "unknown kernel '" + name.str() + "' (kernels: " + names + ")";
}

bool mlir::rocdsl::definesParam(llvm::ArrayRef<std::string> definitions,
                                llvm::StringRef name) {
  return llvm::any_of(definitions, [&](const std::string &d) {
    return llvm::StringRef(d).split('=').first == name;
  });
}

/// Whether `spec` has a parameter called `name`.
static bool takesParam(const KernelSpec &spec, llvm::StringRef name) {
  return llvm::any_of(spec.params, [&](const KernelParamSpec &p) {
    return llvm::StringRef(p.name) == name;
  });
}

LogicalResult mlir::rocdsl::applyTargetDefaults(
    const KernelSpec &spec, const TargetFacts &facts,
    std::vector<std::string> &definitions, std::string &error) {
  // chip and wave follow the target; a definition that contradicts it would
  // build a kernel for one chip and compile it for another. (A kernel
  // without such a parameter refuses the definition as it does any other
  // unknown name, whatever its value.)
  if (const ChipInfo *chip = facts.chip) {
    for (llvm::StringRef def : definitions) {
      auto [name, value] = def.split('=');
      if (!takesParam(spec, name))
        continue;
      if (name == "chip" && value != chip->name) {
        error = "chip=" + value.str() + " contradicts the target " +
                chip->name.str() +
                " (leave chip out: it follows --chip or the device)";
        return failure();
      }
      if (name == "wave" && value != std::to_string(chip->waveSize)) {
        error = "wave=" + value.str() + " does not match " +
                chip->name.str() + "'s waves of " +
                std::to_string(chip->waveSize) +
                " lanes (leave wave out: it follows the chip)";
        return failure();
      }
    }
  }
  if (!spec.targetDefaults)
    return success();
  return spec.targetDefaults(facts, definitions, error);
}

LogicalResult
mlir::rocdsl::resolveKernelParams(const KernelSpec &spec,
                                  llvm::ArrayRef<std::string> definitions,
                                  KernelParams &params, std::string &error) {
  for (const KernelParamSpec &p : spec.params)
    params.set(p.name, p.defaultValue);
  llvm::StringMap<llvm::StringRef> given;
  for (const std::string &def : definitions) {
    // Named variables, not a structured binding: a lambda below captures
    // the name.
    std::pair<llvm::StringRef, llvm::StringRef> split =
        llvm::StringRef(def).split('=');
    llvm::StringRef name = split.first, value = split.second;
    if (name.empty() || value.empty() || !llvm::StringRef(def).contains('=')) {
      error = "malformed definition '" + def + "' (expected NAME=VALUE)";
      return failure();
    }
    if (!takesParam(spec, name)) {
      std::string names = llvm::join(
          llvm::map_range(spec.params,
                          [](const KernelParamSpec &p) { return p.name; }),
          ", ");
      error = "kernel " + spec.name + " has no parameter '" + name.str() +
              "' (parameters: " + names + ")";
      return failure();
    }
    // A parameter given twice is a typo or a script's mistake: which one
    // the caller meant is unknown.
    auto [it, inserted] = given.try_emplace(name, value);
    if (!inserted && it->second != value) {
      error = "parameter '" + name.str() + "' given twice (" +
              it->second.str() + " and " + value.str() + ")";
      return failure();
    }
    params.set(name, value);
  }
  return success();
}

std::string mlir::rocdsl::shapeString(llvm::ArrayRef<int64_t> shape) {
  return "[" +
         llvm::join(llvm::map_range(
                        shape, [](int64_t d) { return std::to_string(d); }),
                    ", ") +
         "]";
}

uint64_t mlir::rocdsl::elementCount(llvm::ArrayRef<int64_t> shape) {
  uint64_t count = 1;
  for (int64_t d : shape)
    count *= uint64_t(std::max<int64_t>(d, 0));
  return count;
}

LogicalResult mlir::rocdsl::prepareKernel(
    const KernelSpec &spec, const TargetFacts &facts,
    llvm::ArrayRef<std::string> definitions, KernelParams &params,
    LaunchPlan &plan, std::string &error) {
  std::vector<std::string> defs(definitions.begin(), definitions.end());
  if (failed(applyTargetDefaults(spec, facts, defs, error)) ||
      failed(resolveKernelParams(spec, defs, params, error)) ||
      failed(spec.plan(params, plan, error)))
    return failure();
  for (const ArgSignature &sig : plan.args) {
    if (sig.kind != ArgKind::Tensor)
      continue;
    uint64_t bytes = elementCount(sig.shape) *
                     std::max(1u, dsl::bitWidth(sig.dtype) / 8);
    if (bytes > uint64_t(kMaxTensorBytes)) {
      error = "argument '" + sig.name + "': " + shapeString(sig.shape) + " " +
              dsl::toString(sig.dtype).str() + " is " +
              std::to_string(bytes) + " bytes; a kernel addresses at most " +
              std::to_string(kMaxTensorBytes) +
              " bytes per tensor (32-bit offsets): split the call";
      return failure();
    }
  }
  return success();
}
