//===- prepare_cuda_rmsnorm.cpp - PTX + launch manifest for a GPU run -----===//
//
// The GPU machine has no LLVM: this compiles the RMSNorm forward kernels for
// sm_90 here and writes, into DIR, one PTX file per specialization and
// manifest.txt with one line per case:
//   fwd <ptx file> <M> <N> <dtype> <wdtype> <grid> <block>
//   bwd <ptx bwd> <ptx bwd_dw> <M> <N> <dtype> <wdtype> <grid> <G> <grid_dw>
//   <block>
// benchmarks/cuda_rmsnorm_run.cpp (built on the GPU machine) runs them.
//
//===----------------------------------------------------------------------===//
#include "norm/RMSNorm.h"
#include "norm/RMSNormConfigs.h"

#include "rocdsl/Kernels/Registry.h"
#include "rocdsl/Pipelines/Pipelines.h"
#include "rocdsl/Target/NVIDIA.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <set>

using namespace mlir;
using namespace mlir::rocdsl;

int main(int argc, char **argv) {
  if (argc != 2) {
    llvm::errs() << "usage: rocdsl-prepare-cuda-rmsnorm DIR\n";
    return 2;
  }
  std::string dir = argv[1];
  llvm::sys::fs::create_directories(dir);
  DialectRegistry registry;
  registerRocDSLDialects(registry);
  MLIRContext ctx(registry);
  ctx.loadAllAvailableDialects();

  // Correctness cases: the whole matrix (M from the row counts); timing
  // cases: the benchmark shapes.
  struct Case {
    int64_t m, n;
    std::string dtype, wdtype;
  };
  std::vector<Case> cases;
  for (const RMSNormCase &c : getRMSNormForwardCases())
    for (int64_t m : getRMSNormRowCounts())
      cases.push_back({m, c.n, c.dtype, c.weightDType});
  for (auto [m, n, dtype] :
       std::vector<std::tuple<int64_t, int64_t, std::string>>{
           {1, 4096, "bf16"},
           {128, 4096, "bf16"},
           {4096, 4096, "bf16"},
           {512, 2048, "bf16"},
           {512, 3000, "f32"},
           {1024, 8192, "bf16"},
           {32768, 8192, "bf16"}})
    cases.push_back({m, n, dtype, "same"});

  std::error_code ec;
  llvm::raw_fd_ostream manifest(dir + "/manifest.txt", ec);
  if (ec) {
    llvm::errs() << "cannot write manifest: " << ec.message() << "\n";
    return 1;
  }
  std::set<std::string> written;
  // Compiles `kernel` for the case once per specialization; returns the file.
  auto ptxFor = [&](const char *kernel, const Case &c,
                    LaunchPlan &plan) -> std::string {
    const KernelSpec *spec = lookupKernel(kernel);
    std::vector<std::string> defs = {"N=" + std::to_string(c.n),
                                     "dtype=" + c.dtype, "wdtype=" + c.wdtype,
                                     "M=" + std::to_string(c.m), "wave=32"};
    KernelParams params;
    std::string error;
    if (failed(resolveKernelParams(*spec, defs, params, error)) ||
        failed(spec->plan(params, plan, error)))
      return "";
    std::string file = std::string(kernel) + "_N" + std::to_string(c.n) + "_" +
                       c.dtype + "_w" + c.wdtype + ".ptx";
    if (!written.count(file)) {
      OwningOpRef<ModuleOp> module = spec->build(&ctx, params, error);
      if (!module || failed(lowerToNVVM(*module, "sm_90")))
        return "";
      FailureOr<std::string> ptx = serializePTX(*module);
      if (failed(ptx))
        return "";
      llvm::raw_fd_ostream out(dir + "/" + file, ec);
      out << *ptx;
      written.insert(file);
    }
    return file;
  };
  // The backward, where it applies (N <= 8192), on the matrix and shapes.
  for (const Case &c : cases) {
    if (c.n > 8192)
      continue;
    LaunchPlan step1, step2;
    std::string f1 = ptxFor("rmsnorm_bwd", c, step1);
    std::string f2 = ptxFor("rmsnorm_bwd_dw", c, step2);
    if (f1.empty() || f2.empty()) {
      llvm::errs() << "compiling the backward failed\n";
      return 1;
    }
    manifest << "bwd " << f1 << " " << f2 << " " << c.m << " " << c.n << " "
             << dsl::toString(step1.args[0].dtype) << " "
             << dsl::toString(step1.args[1].dtype) << " " << step1.grid[0]
             << " " << step1.args[4].shape[0] << " " << step2.grid[0]
             << " 256\n";
  }
  const KernelSpec *spec = lookupKernel("rmsnorm_fwd");
  for (const Case &c : cases) {
    std::vector<std::string> defs = {"N=" + std::to_string(c.n),
                                     "dtype=" + c.dtype, "wdtype=" + c.wdtype,
                                     "M=" + std::to_string(c.m), "wave=32"};
    KernelParams params;
    std::string error;
    LaunchPlan plan;
    if (failed(resolveKernelParams(*spec, defs, params, error)) ||
        failed(spec->plan(params, plan, error))) {
      llvm::errs() << error << "\n";
      return 1;
    }
    std::string file = "rmsnorm_N" + std::to_string(c.n) + "_" + c.dtype +
                       "_w" + c.wdtype + ".ptx";
    if (!written.count(file)) {
      OwningOpRef<ModuleOp> module = spec->build(&ctx, params, error);
      if (!module || failed(lowerToNVVM(*module, "sm_90"))) {
        llvm::errs() << "compiling " << file << " failed " << error << "\n";
        return 1;
      }
      FailureOr<std::string> ptx = serializePTX(*module);
      if (failed(ptx))
        return 1;
      llvm::raw_fd_ostream out(dir + "/" + file, ec);
      out << *ptx;
      written.insert(file);
    }
    auto dtypeOf = [&](unsigned i) {
      return dsl::toString(plan.args[i].dtype);
    };
    manifest << "fwd " << file << " " << c.m << " " << c.n << " " << dtypeOf(0)
             << " " << dtypeOf(1) << " " << plan.grid[0] << " 256\n";
  }
  llvm::outs() << written.size() << " PTX files, " << cases.size()
               << " cases in " << dir << "\n";
  return 0;
}
