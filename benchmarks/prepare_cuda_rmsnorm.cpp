//===- prepare_cuda_rmsnorm.cpp - PTX + launch manifest for a GPU run -----===//
//
// The GPU machine has no LLVM: this compiles every RMSNorm kernel for sm_90
// here and writes, into DIR, one PTX file per kernel and specialization and
// manifest.txt with one line per case:
//   fwd <ptx> <M> <N> <dtype> <wdtype> <grid> <block>
//   addfwd <ptx> <M> <N> <dtype> <wdtype> <grid> <block>
//   bwd <ptx bwd> <ptx bwd_dw> <M> <N> <dtype> <wdtype> <grid> <G> <grid_dw>
//   <block>
//   addbwd <ptx add_bwd> <ptx bwd_dw> <M> <N> <dtype> <wdtype> <grid> <G>
//   <grid_dw> <block>
// (fwd: rmsnorm_fwd; addfwd: rmsnorm_add_fwd; bwd: rmsnorm_bwd then
// rmsnorm_bwd_dw; addbwd: rmsnorm_add_bwd then rmsnorm_bwd_dw.)
// benchmarks/cuda_rmsnorm_run.cpp (built on the GPU machine) runs them.
//
//===----------------------------------------------------------------------===//
#include "RMSNormCases.h"
#include "norm/RMSNorm.h"

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
  // One argument, the output directory; an option (--help, say) is not a
  // directory to create.
  if (argc != 2 || argv[1][0] == '-') {
    bool help = argc == 2 && (llvm::StringRef(argv[1]) == "--help" ||
                              llvm::StringRef(argv[1]) == "-h");
    (help ? llvm::outs() : llvm::errs())
        << "usage: rocdsl-prepare-cuda-rmsnorm DIR\n"
           "Writes the RMSNorm family's PTX for the CUDA benchmarks, and a "
           "manifest, into DIR.\n";
    return help ? 0 : 2;
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
  for (const RMSNormCase &c : getRMSNormCases())
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
           {32768, 8192, "bf16"},
           {4096, 16384, "bf16"}})
    cases.push_back({m, n, dtype, "same"});

  std::error_code ec;
  llvm::raw_fd_ostream manifest(dir + "/manifest.txt", ec);
  if (ec) {
    llvm::errs() << "cannot write manifest: " << ec.message() << "\n";
    return 1;
  }
  std::set<std::string> written;
  // Plans `kernel` for the case and compiles it once per specialization
  // (M changes no code); returns the PTX file, or "" after an error.
  auto ptxFor = [&](const std::string &kernel, const Case &c,
                    LaunchPlan &plan) -> std::string {
    const KernelSpec *spec = lookupKernel(kernel);
    std::vector<std::string> defs = {"N=" + std::to_string(c.n),
                                     "dtype=" + c.dtype, "wdtype=" + c.wdtype,
                                     "M=" + std::to_string(c.m), "wave=32"};
    KernelParams params;
    std::string error;
    if (!spec || failed(resolveKernelParams(*spec, defs, params, error)) ||
        failed(spec->plan(params, plan, error))) {
      llvm::errs() << kernel << ": " << error << "\n";
      return "";
    }
    std::string file = kernel + "_N" + std::to_string(c.n) + "_" + c.dtype +
                       "_w" + c.wdtype + ".ptx";
    if (!written.count(file)) {
      OwningOpRef<ModuleOp> module = spec->build(&ctx, params, error);
      FailureOr<std::string> ptx = failure();
      if (module && succeeded(lowerToNVVM(*module, "sm_90")))
        ptx = serializePTX(*module);
      if (failed(ptx)) {
        llvm::errs() << "compiling " << file << " failed " << error << "\n";
        return "";
      }
      llvm::raw_fd_ostream out(dir + "/" + file, ec);
      out << *ptx;
      written.insert(file);
    }
    return file;
  };
  auto dtypes = [](const LaunchPlan &plan, unsigned activation,
                   unsigned weight) {
    return dsl::toString(plan.args[activation].dtype).str() + " " +
           dsl::toString(plan.args[weight].dtype).str();
  };
  for (const char *op : {"fwd", "addfwd"})
    for (const Case &c : cases) {
      LaunchPlan plan;
      bool fused = op == std::string("addfwd");
      std::string file =
          ptxFor(fused ? "rmsnorm_add_fwd" : "rmsnorm_fwd", c, plan);
      if (file.empty())
        return 1;
      // The weight follows x (and residual).
      manifest << op << " " << file << " " << c.m << " " << c.n << " "
               << dtypes(plan, 0, fused ? 2 : 1) << " " << plan.grid[0]
               << " 256\n";
    }
  for (const char *op : {"bwd", "addbwd"})
    for (const Case &c : cases) {
      LaunchPlan step1, step2;
      bool fused = op == std::string("addbwd");
      std::string f1 =
          ptxFor(fused ? "rmsnorm_add_bwd" : "rmsnorm_bwd", c, step1);
      std::string f2 = ptxFor("rmsnorm_bwd_dw", c, step2);
      if (f1.empty() || f2.empty())
        return 1;
      // dw_partial [G, N] is the argument before M.
      const ArgSignature &partial = step1.args[step1.args.size() - 3];
      manifest << op << " " << f1 << " " << f2 << " " << c.m << " " << c.n
               << " " << dtypes(step1, 0, 1) << " " << step1.grid[0] << " "
               << partial.shape[0] << " " << step2.grid[0] << " 256\n";
    }
  llvm::outs() << written.size() << " PTX files, " << 4 * cases.size()
               << " cases in " << dir << "\n";
  return 0;
}
