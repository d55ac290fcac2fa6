//===- RMSNormSpecs.cpp - the RMSNorm kernels in the registry -------------===//
//
// Every RMSNorm kernel takes the same parameters and parses them the same
// way; each entry only names its builder, launch plan and reference.
//
//===----------------------------------------------------------------------===//
#include "RMSNorm.h"

#include "rocdsl/Conversion/Addressing.h"

#include <cmath>

using namespace mlir;
using namespace mlir::rocdsl;
using namespace mlir::rocdsl::dsl;

std::optional<std::string> mlir::rocdsl::checkRMSNormEps(double eps) {
  if (!std::isfinite(eps) || eps < 0)
    return std::string("must be a finite, non-negative number");
  return std::nullopt;
}

LogicalResult mlir::rocdsl::configureRMSNorm(const KernelParams &params,
                                             RMSNormConfig &config, int64_t &m,
                                             std::string &error) {
  int64_t n = 0;
  double eps = 0;
  if (failed(params.getInt("N", n, error)) ||
      failed(params.getInt("M", m, error)) ||
      failed(params.getFloat("eps", eps, error)))
    return failure();
  if (n < 1 || n > (1 << 24)) {
    error = "N=" + std::to_string(n) + " out of range [1, 16777216]";
    return failure();
  }
  if (std::optional<std::string> problem = checkRMSNormEps(eps)) {
    error = "eps=" + params.get("eps").str() + " " + *problem;
    return failure();
  }
  if (m < 1 || m > INT32_MAX) {
    error = "M=" + std::to_string(m) + " out of range [1, 2147483647]";
    return failure();
  }
  auto dtype = parseDType(params.get("dtype"));
  if (!dtype || *dtype == DType::I32) {
    error = "dtype='" + params.get("dtype").str() +
            "' is not one of f32, f16, bf16";
    return failure();
  }
  std::optional<DType> wdtype =
      params.get("wdtype") == "same" ? dtype : parseDType(params.get("wdtype"));
  if (!wdtype || *wdtype == DType::I32) {
    error = "wdtype='" + params.get("wdtype").str() +
            "' is not one of same, f32, f16, bf16";
    return failure();
  }
  // Byte offsets are 32-bit integers in the kernels (Addressing.h): a
  // larger [M, N] tensor would wrap.
  int64_t bytes = m * n * (bitWidth(*dtype) / 8);
  if (bytes > kMaxTensorBytes) {
    error = "M*N=" + std::to_string(m) + "*" + std::to_string(n) + " " +
            toString(*dtype).str() + " is " + std::to_string(bytes) +
            " bytes, beyond 32-bit indexing (at most " +
            std::to_string(kMaxTensorBytes) +
            " bytes per tensor; split the rows into several launches)";
    return failure();
  }
  int64_t wave = 0;
  if (failed(params.getInt("wave", wave, error)))
    return failure();
  if (wave != 32 && wave != 64) {
    error = "wave=" + std::to_string(wave) + " is not 32 or 64";
    return failure();
  }
  config = RMSNormConfig::choose(n, *dtype, *wdtype, unsigned(wave));
  return success();
}

std::vector<KernelParamSpec> mlir::rocdsl::getRMSNormParams() {
  return {
      {"N", "4096", "row length (specializes the kernel)", false},
      {"dtype", "bf16",
       "element type of the activations and their gradients: f32, f16, bf16",
       false},
      {"wdtype", "same", "weight element type (same: as dtype)", false},
      {"M", "4096", "rows (launch-time)", true},
      {"eps", "1e-6", "epsilon (launch-time)", true},
      {"wave", "64",
       "lanes per wave: 64 (AMDGPU), 32 (NVIDIA); "
       "rocdsl-compile sets it from --chip",
       false},
  };
}

std::vector<KernelParamSpec> mlir::rocdsl::getRMSNormBackwardParams() {
  std::vector<KernelParamSpec> params = getRMSNormParams();
  params.push_back(
      {"max_programs", std::to_string(RMSNormConfig::kMaxBackwardPrograms),
       "most programs G of rmsnorm_bwd / rmsnorm_add_bwd, each taking every "
       "G-th row tile; dw_partial has G = min(row tiles, max_programs) rows "
       "(launch-time; the same value for rmsnorm_bwd_dw)",
       true});
  params.push_back(
      {"prefetch", "1",
       "rmsnorm_bwd / rmsnorm_add_bwd with rows in registers (N <= 8192): "
       "row tiles a program loads ahead of the one it reduces (0-3)",
       false});
  params.push_back(
      {"stages", "0",
       "rmsnorm_bwd / rmsnorm_add_bwd with rows in registers (N <= 8192): "
       "0 loads the row tiles ahead (prefetch) into registers; 2-8 copies "
       "x and dy of the next stages-1 row tiles asynchronously into LDS "
       "(stages buffers of each; prefetch is then unused)",
       false});
  params.push_back(
      {"lanes", "256",
       "rmsnorm_bwd / rmsnorm_add_bwd: lanes per program, 256 or 512 (512: "
       "each lane holds half as much of a row, so fewer registers a lane)",
       false});
  params.push_back(
      {"direct_dw", "0",
       "rmsnorm_bwd / rmsnorm_add_bwd with rows in registers (N <= 8192): "
       "1 launches one program, which writes dw (weight dtype) in "
       "dw_partial's place, so rmsnorm_bwd_dw is not needed; for M up to a "
       "row tile (rows per program), where the second launch costs more "
       "than the work",
       false});
  params.push_back(
      {"atomic_dw", "0",
       "rmsnorm_bwd / rmsnorm_add_bwd with rows in registers (N <= 8192): "
       "1 is one launch for any M: programs add their fp32 column sums into "
       "dw_sums [N] atomically and the last to finish (dw_count) writes dw "
       "(weight dtype) and leaves dw_sums and dw_count zero for the next "
       "launch; not bitwise reproducible (the order of the adds varies)",
       false});
  params.push_back(
      {"tree_dw", "0",
       "rmsnorm_bwd / rmsnorm_add_bwd with rows in registers (N <= 8192): "
       "1 is one launch for any M without data atomics: programs store fp32 "
       "column sums in dw_partial [G + ceil(G/16), N], the last of each "
       "group of 16 programs (counted in dw_count [1 + ceil(G/16)]) sums "
       "its group, the last group writes dw (weight dtype) and leaves "
       "dw_count zero for the next launch; bitwise reproducible",
       false});
  return params;
}

LogicalResult mlir::rocdsl::getRMSNormMaxPrograms(const KernelParams &params,
                                                  int64_t &maxPrograms,
                                                  std::string &error) {
  if (failed(params.getInt("max_programs", maxPrograms, error)))
    return failure();
  if (maxPrograms < 1 || maxPrograms > INT32_MAX) {
    error = "max_programs=" + std::to_string(maxPrograms) +
            " out of range [1, 2147483647]";
    return failure();
  }
  return success();
}

LogicalResult mlir::rocdsl::configureRMSNormBackward(const KernelParams &params,
                                                    RMSNormConfig &config,
                                                    std::string &error) {
  int64_t prefetch = 1, stages = 0, lanes = 256;
  bool direct = false, atomic = false, tree = false;
  if (failed(params.getInt("prefetch", prefetch, error)) ||
      failed(params.getInt("stages", stages, error)) ||
      failed(params.getInt("lanes", lanes, error)) ||
      failed(params.getFlag("direct_dw", direct, error)) ||
      failed(params.getFlag("atomic_dw", atomic, error)) ||
      failed(params.getFlag("tree_dw", tree, error)))
    return failure();
  if (lanes != 256 && lanes != 512) {
    error = "lanes=" + std::to_string(lanes) + " is not 256 or 512";
    return failure();
  }
  if (lanes != 256)
    config = RMSNormConfig::choose(config.n, config.dtype, config.weightDType,
                                   config.waveSize, unsigned(lanes));
  if (int(direct) + int(atomic) + int(tree) > 1) {
    error = std::string(direct ? "direct_dw=1" : "atomic_dw=1") + " and " +
            (tree ? "tree_dw=1" : "atomic_dw=1") +
            " are two ways to one launch: pick one";
    return failure();
  }
  for (auto [on, name] : {std::pair{direct, "direct_dw"},
                          {atomic, "atomic_dw"},
                          {tree, "tree_dw"}})
    if (on && !config.singlePass) {
      error = std::string(name) +
              "=1 needs rows in registers (N <= 8192), got N=" +
              std::to_string(config.n);
      return failure();
    }
  if (prefetch < 0 || prefetch > RMSNormConfig::kMaxPrefetchDepth) {
    error = "prefetch=" + std::to_string(prefetch) + " is not in 0.." +
            std::to_string(RMSNormConfig::kMaxPrefetchDepth);
    return failure();
  }
  if (stages == 1 || stages < 0 || stages > RMSNormConfig::kMaxStages) {
    error = "stages=" + std::to_string(stages) + " is not 0 or in 2.." +
            std::to_string(RMSNormConfig::kMaxStages);
    return failure();
  }
  if (stages && !config.singlePass) {
    error = "stages=" + std::to_string(stages) +
            " needs rows in registers (N <= 8192), got N=" +
            std::to_string(config.n);
    return failure();
  }
  config.prefetchDepth = unsigned(prefetch);
  config.stages = unsigned(stages);
  config.directWeightGrad = direct;
  config.atomicWeightGrad = atomic;
  config.treeWeightGrad = tree;
  return success();
}

namespace {
using Tensors = std::vector<std::vector<double>>;
using BuildFn =
    std::function<OwningOpRef<ModuleOp>(MLIRContext *, const RMSNormConfig &)>;
using PlanFn = std::function<LaunchPlan(const RMSNormConfig &, int64_t m,
                                        int64_t maxPrograms)>;
/// Fills the outputs in `t` (tensor arguments in order) from the inputs;
/// `eps` as the kernel received it.
using ReferenceFn = std::function<void(const RMSNormConfig &, int64_t m,
                                       double eps, Tensors &t)>;
/// Sets the magnitudes of the outputs that are sums (KernelSpec::magnitudes).
using MagnitudeFn =
    std::function<void(const RMSNormConfig &, int64_t m, double eps,
                       const Tensors &t, Tensors &magnitudes)>;
} // namespace

/// Every RMSNorm kernel is specialized for the target's wave size (the
/// layouts name it): wave defaults to the chip's. The backward's kernels,
/// whose programs loop over row tiles, default on NVIDIA to as many
/// programs as the device holds at once for this row length and row count
/// (defaultRMSNormBackwardPrograms); `resolve` gives the configuration the
/// definitions make (wave included), and where it fails the build reports
/// why.
using ResolveFn = std::function<LogicalResult(
    llvm::ArrayRef<std::string> defs, RMSNormConfig &config, int64_t &m)>;
static LogicalResult rmsnormTargetDefaults(bool backward,
                                           const TargetFacts &facts,
                                           const ResolveFn &resolve,
                                           std::vector<std::string> &defs) {
  // A wave that contradicts the chip was refused before (applyTargetDefaults).
  const ChipInfo *chip = facts.chip;
  if (chip && !definesParam(defs, "wave"))
    defs.insert(defs.begin(), "wave=" + std::to_string(chip->waveSize));
  if (!backward || !chip || !chip->isNVIDIA() || facts.multiprocessors <= 0 ||
      definesParam(defs, "max_programs"))
    return success();
  RMSNormConfig config;
  int64_t m = 0;
  if (failed(resolve(defs, config, m)))
    return success();
  defs.insert(defs.begin(),
              "max_programs=" + std::to_string(defaultRMSNormBackwardPrograms(
                                    config, m, facts.multiprocessors,
                                    chip->registersPerMultiprocessor)));
  return success();
}

/// A registry entry over the shared parameters (and max_programs for the
/// backward's kernels). `epsIndex`: where eps is among the scalar arguments
/// (none: -1).
static KernelSpec makeSpec(std::string name, std::string summary, bool backward,
                           BuildFn build, PlanFn plan, ReferenceFn reference,
                           int epsIndex, MagnitudeFn magnitudes = nullptr) {
  KernelSpec spec;
  spec.name = std::move(name);
  spec.summary = std::move(summary);
  spec.params = backward ? getRMSNormBackwardParams() : getRMSNormParams();
  // The configuration every hook of the entry sees: the shared parameters,
  // and the backward's own where they apply.
  auto configure = [backward](const KernelParams &params,
                              RMSNormConfig &config, int64_t &m,
                              std::string &error) {
    return success(
        succeeded(configureRMSNorm(params, config, m, error)) &&
        (!backward ||
         succeeded(configureRMSNormBackward(params, config, error))));
  };
  ResolveFn resolve = [params = spec.params,
                       configure](llvm::ArrayRef<std::string> defs,
                                  RMSNormConfig &config, int64_t &m) {
    KernelSpec paramsOnly;
    paramsOnly.params = params;
    KernelParams values;
    std::string error;
    return success(
        succeeded(resolveKernelParams(paramsOnly, defs, values, error)) &&
        succeeded(configure(values, config, m, error)));
  };
  spec.targetDefaults = [backward, resolve](const TargetFacts &facts,
                                            std::vector<std::string> &defs,
                                            std::string &) {
    return rmsnormTargetDefaults(backward, facts, resolve, defs);
  };
  spec.build = [build, configure](MLIRContext *ctx, const KernelParams &params,
                                  std::string &error) -> OwningOpRef<ModuleOp> {
    RMSNormConfig config;
    int64_t m = 0;
    if (failed(configure(params, config, m, error)))
      return nullptr;
    return build(ctx, config);
  };
  spec.plan = [plan, backward, configure](const KernelParams &params,
                                          LaunchPlan &out,
                                          std::string &error) -> LogicalResult {
    RMSNormConfig config;
    int64_t m = 0, maxPrograms = RMSNormConfig::kMaxBackwardPrograms;
    if (failed(configure(params, config, m, error)) ||
        (backward && failed(getRMSNormMaxPrograms(params, maxPrograms, error))))
      return failure();
    out = plan(config, m, maxPrograms);
    return success();
  };
  spec.reference = [reference, epsIndex,
                    configure](const KernelParams &params, Tensors &tensors,
                               const std::vector<double> &scalars) {
    RMSNormConfig config;
    int64_t m = 0;
    std::string error;
    if (failed(configure(params, config, m, error)))
      return; // the plan failed the same way before anything ran
    reference(config, m, epsIndex < 0 ? 0.0 : scalars[epsIndex], tensors);
  };
  if (magnitudes)
    spec.magnitudes = [magnitudes, epsIndex, configure](
                          const KernelParams &params, const Tensors &tensors,
                          const std::vector<double> &scalars, Tensors &out) {
      RMSNormConfig config;
      int64_t m = 0;
      std::string error;
      if (succeeded(configure(params, config, m, error)))
        magnitudes(config, m, epsIndex < 0 ? 0.0 : scalars[epsIndex], tensors,
                   out);
    };
  return spec;
}

KernelSpec mlir::rocdsl::getRMSNormForwardSpec(RMSNormVariant variant) {
  auto build = [variant](MLIRContext *ctx, const RMSNormConfig &c) {
    return buildRMSNormForward(ctx, c, variant);
  };
  auto plan = [variant](const RMSNormConfig &c, int64_t m, int64_t) {
    return planRMSNormForward(c, m, variant);
  };
  if (variant == RMSNormVariant::Plain)
    return makeSpec(
        "rmsnorm_fwd", "RMSNorm forward: y = x * rsqrt(mean(x^2) + eps) * w",
        /*backward=*/false, build, plan,
        // (x, w, y)
        [](const RMSNormConfig &c, int64_t m, double eps, Tensors &t) {
          rmsNormForwardReference(m, c.n, eps, t[0], t[1], t[2]);
        },
        /*epsIndex=*/1);
  return makeSpec(
      "rmsnorm_add_fwd",
      "RMSNorm forward after a residual add: h = x + residual, "
      "residual_out = h, y = h * rsqrt(mean(h^2) + eps) * w",
      /*backward=*/false, build, plan,
      // (x, residual, w, y, residual_out)
      [](const RMSNormConfig &c, int64_t m, double eps, Tensors &t) {
        rmsNormAddForwardReference(m, c.n, eps, c.dtype, t[0], t[1], t[2], t[3],
                                   t[4]);
      },
      /*epsIndex=*/1);
}

/// tree_dw's dw_partial [G + groups, N] (G solved from its rows): the
/// programs' rows as without tree_dw, then each group's sum of them; the
/// same for magnitudes where `magnitude` is given.
static void treePartialsReference(const RMSNormConfig &c, int64_t m, double eps,
                                  const std::vector<double> &x,
                                  const std::vector<double> &dy,
                                  std::vector<double> &partial,
                                  std::vector<double> *magnitude) {
  const int64_t n = c.n, total = int64_t(partial.size()) / n;
  int64_t g = 1;
  while (g + RMSNormConfig::treeGroups(g) < total)
    ++g;
  std::vector<double> programs(g * n), programMagnitudes;
  rmsNormWeightGradPartialsReference(c, m, eps, x, dy, programs,
                                     magnitude ? &programMagnitudes : nullptr);
  auto fill = [&](std::vector<double> &out, const std::vector<double> &rows) {
    out.assign(partial.size(), 0.0);
    std::copy(rows.begin(), rows.end(), out.begin());
    for (int64_t p = 0; p < g; ++p) {
      int64_t group = g + p / RMSNormConfig::kTreeGroupPrograms;
      for (int64_t col = 0; col < n; ++col)
        out[group * n + col] += rows[p * n + col];
    }
  };
  fill(partial, programs);
  if (magnitude)
    fill(*magnitude, programMagnitudes);
}

/// The backward's outputs are sums and differences: dx of two terms that
/// nearly cancel for short rows, dw_partial of a program's rows. Their
/// magnitudes are those of the terms (x or h is tensor 0, w tensor 1, dy
/// tensor 2 in both backwards; rmsnorm_add_bwd's dresidual_out tensor 3).
static MagnitudeFn backwardMagnitudes(size_t dxIndex, size_t partialIndex,
                                      bool fused) {
  return [=](const RMSNormConfig &c, int64_t m, double eps, const Tensors &t,
             Tensors &out) {
    std::vector<double> dx(t[dxIndex].size()), dw(c.n);
    // With direct_dw the output is dw itself: its magnitude comes with dx's.
    bool dwItself = c.writesWeightGrad();
    rmsNormBackwardReference(m, c.n, eps, t[0], t[1], t[2], dx, dw,
                             dwItself ? &out[partialIndex] : nullptr,
                             fused ? &t[3] : nullptr, &out[dxIndex]);
    if (c.treeWeightGrad) {
      std::vector<double> partial(t[partialIndex + 1].size());
      treePartialsReference(c, m, eps, t[0], t[2], partial,
                            &out[partialIndex + 1]);
    }
    if (dwItself)
      return;
    std::vector<double> partial(t[partialIndex].size());
    rmsNormWeightGradPartialsReference(c, m, eps, t[0], t[2], partial,
                                       &out[partialIndex]);
  };
}

/// dw itself at t[index]; with atomic_dw the scratch after it (dw_sums,
/// dw_count) is left all zero; with tree_dw dw_partial holds the programs'
/// and the groups' sums and dw_count is left all zero.
static void setWeightGrad(const RMSNormConfig &c, int64_t m, double eps,
                          Tensors &t, size_t index,
                          const std::vector<double> &dw) {
  t[index] = dw;
  if (c.atomicWeightGrad)
    std::fill(t[index + 1].begin(), t[index + 1].end(), 0.0);
  if (c.treeWeightGrad)
    treePartialsReference(c, m, eps, t[0], t[2], t[index + 1], nullptr);
  if (c.atomicWeightGrad || c.treeWeightGrad)
    std::fill(t[index + 2].begin(), t[index + 2].end(), 0.0);
}

KernelSpec mlir::rocdsl::getRMSNormBackwardSpec(RMSNormVariant variant) {
  auto build = [variant](MLIRContext *ctx, const RMSNormConfig &c) {
    return buildRMSNormBackward(ctx, c, variant);
  };
  auto plan = [variant](const RMSNormConfig &c, int64_t m,
                        int64_t maxPrograms) {
    return planRMSNormBackward(c, m, variant, maxPrograms);
  };
  // dx as in the math; dw_partial row p sums the rows of tiles p, p+G, ...
  // (with direct_dw, dw itself: the sum over all rows).
  if (variant == RMSNormVariant::Plain)
    return makeSpec(
        "rmsnorm_bwd",
        "RMSNorm backward, step 1: dx and per-program fp32 dw sums",
        /*backward=*/true, build, plan,
        // (x, w, dy, dx, dw_partial)
        [](const RMSNormConfig &c, int64_t m, double eps, Tensors &t) {
          std::vector<double> dw(c.n);
          rmsNormBackwardReference(m, c.n, eps, t[0], t[1], t[2], t[3], dw);
          if (c.writesWeightGrad())
            setWeightGrad(c, m, eps, t, 4, dw);
          else
            rmsNormWeightGradPartialsReference(c, m, eps, t[0], t[2], t[4]);
        },
        /*epsIndex=*/1,
        backwardMagnitudes(/*dxIndex=*/3, /*partialIndex=*/4, /*fused=*/false));
  return makeSpec(
      "rmsnorm_add_bwd",
      "RMSNorm-after-add backward, step 1: dx (the gradient of x and of "
      "residual) and per-program fp32 dw sums",
      /*backward=*/true, build, plan,
      // (h, w, dy, dresidual_out, dx, dw_partial)
      [](const RMSNormConfig &c, int64_t m, double eps, Tensors &t) {
        std::vector<double> dw(c.n);
        rmsNormBackwardReference(m, c.n, eps, t[0], t[1], t[2], t[4], dw,
                                 nullptr, &t[3]);
        if (c.writesWeightGrad())
          setWeightGrad(c, m, eps, t, 5, dw);
        else
          rmsNormWeightGradPartialsReference(c, m, eps, t[0], t[2], t[5]);
      },
      /*epsIndex=*/1,
      backwardMagnitudes(/*dxIndex=*/4, /*partialIndex=*/5, /*fused=*/true));
}

KernelSpec mlir::rocdsl::getRMSNormWeightGradSpec() {
  KernelSpec spec = makeSpec(
      "rmsnorm_bwd_dw",
      "RMSNorm backward, step 2 (after rmsnorm_bwd or rmsnorm_add_bwd): "
      "dw = sum of the fp32 partial sums, cast to the weight dtype",
      /*backward=*/true, buildRMSNormWeightGrad, planRMSNormWeightGrad,
      // (dw_partial [G, N], dw)
      [](const RMSNormConfig &c, int64_t, double, Tensors &t) {
        int64_t g = int64_t(t[0].size()) / c.n;
        std::fill(t[1].begin(), t[1].end(), 0.0);
        for (int64_t p = 0; p < g; ++p)
          for (int64_t col = 0; col < c.n; ++col)
            t[1][col] += t[0][p * c.n + col];
      },
      /*epsIndex=*/-1,
      // dw sums the G partial rows.
      [](const RMSNormConfig &c, int64_t, double, const Tensors &t,
         Tensors &out) {
        int64_t g = int64_t(t[0].size()) / c.n;
        out[1].assign(c.n, 0.0);
        for (int64_t p = 0; p < g; ++p)
          for (int64_t col = 0; col < c.n; ++col)
            out[1][col] += std::fabs(t[0][p * c.n + col]);
      });
  // Step 1's choices, taken here with the same -D list: the reduction's
  // code reads none of them, so they stay out of its cache key and one
  // compile serves every value.
  for (KernelParamSpec &p : spec.params)
    if (p.name == "prefetch" || p.name == "direct_dw" ||
        p.name == "atomic_dw" || p.name == "tree_dw")
      p.runtimeOnly = true;
  return spec;
}

std::vector<KernelSpec> mlir::rocdsl::getRMSNormSpecs() {
  return {getRMSNormForwardSpec(RMSNormVariant::Plain),
          getRMSNormForwardSpec(RMSNormVariant::FusedAdd),
          getRMSNormBackwardSpec(RMSNormVariant::Plain),
          getRMSNormBackwardSpec(RMSNormVariant::FusedAdd),
          getRMSNormWeightGradSpec()};
}
