//===- rocdsl-compile.cpp - compile rocdsl kernels for AMD GPUs -----------===//
//
//   rocdsl-compile --kernel rmsnorm_fwd -D N=4096 -D dtype=bf16 \
//       --chip gfx942 --emit asm -o -
//   rocdsl-compile kernel.mlir --chip gfx950 --emit hsaco -o k.hsaco --stats
//   rocdsl-compile --list-kernels
//
// Every failure is one "rocdsl-compile: error: ..." line (plus MLIR's own
// diagnostics for invalid IR) and a non-zero exit.
//
//===----------------------------------------------------------------------===//
#include "rocdsl/Conversion/AmdAsyncCopies.h"
#include "rocdsl/Dialect/RocDSL/IR/KernelModule.h"
#include "rocdsl/Dialect/RocDSL/IR/RocDSL.h"
#include "rocdsl/Kernels/Registry.h"
#include "rocdsl/Pipelines/Pipelines.h"
#include "rocdsl/Support/FatalErrors.h"
#include "rocdsl/Target/AMDGPU.h"
#include "rocdsl/Target/CheckedCompile.h"
#include "rocdsl/Target/NVIDIA.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/Statistic.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
namespace cl = llvm::cl;

static cl::OptionCategory category("rocdsl-compile options");

static cl::opt<std::string> inputFile(cl::Positional, cl::desc("[input.mlir]"),
                                      cl::init(""), cl::cat(category));
static cl::opt<std::string> kernelName("kernel",
                                       cl::desc("Compile a built-in kernel"),
                                       cl::value_desc("name"),
                                       cl::cat(category));
static cl::list<std::string>
    definitions("D", cl::desc("Kernel parameter NAME=VALUE"), cl::Prefix,
                cl::value_desc("NAME=VALUE"), cl::cat(category));
static cl::opt<std::string> chip("chip",
                                 cl::desc("Target chip: gfx942, gfx950 (AMD), "
                                          "sm_90, sm_90a (NVIDIA)"),
                                 cl::init("gfx942"), cl::cat(category));
static cl::opt<std::string>
    emit("emit",
         cl::desc("Output: rocdsl (kernel IR), mlir (lowered), llvm, asm, "
                  "hsaco (AMD), ptx (NVIDIA)"),
         cl::init("asm"), cl::cat(category));
static cl::opt<std::string> outputFile("o",
                                       cl::desc("Output file (- = stdout)"),
                                       cl::value_desc("file"), cl::init("-"),
                                       cl::cat(category));
static cl::opt<bool> listKernels("list-kernels",
                                 cl::desc("List built-in kernels and exit"),
                                 cl::cat(category));
static cl::opt<rocdsl::StoreForm> storeForm(
    "store-form", cl::desc("How wide global stores are emitted"),
    cl::values(clEnumValN(rocdsl::StoreForm::Wide, "wide",
                          "up to 128-bit stores, constant soffset (default)"),
               clEnumValN(rocdsl::StoreForm::Split64, "split64",
                          "no store wider than 64 bits"),
               clEnumValN(rocdsl::StoreForm::Padded, "padded",
                          "wide stores, each followed by s_nop 1")),
    cl::init(rocdsl::StoreForm::Wide), cl::cat(category));

static cl::opt<bool> directCopies(
    "direct-copies",
    cl::desc("AMD: async copies as direct-to-LDS buffer loads with planned "
             "waits (experimental)"),
    cl::init(false), cl::cat(category));

static cl::opt<std::string> waits(
    "waits",
    cl::desc("AMD, with --direct-copies: who places the waits of async "
             "copies: explicit (planned vmcnt, default) or llvm "
             "(each async_wait drains); weakened-for-testing makes the "
             "first wait in a loop (else the first) one too loose, to test "
             "the checks"),
    cl::init("explicit"), cl::cat(category));
static cl::opt<unsigned> optLevel("O", cl::desc("LLVM optimization level"),
                                  cl::init(3), cl::Prefix, cl::cat(category));

static int fail(const llvm::Twine &message) {
  llvm::errs() << "rocdsl-compile: error: " << message << "\n";
  return 1;
}

static void printKernelList() {
  for (const rocdsl::KernelSpec &spec : rocdsl::getBuiltinKernels()) {
    llvm::outs() << spec.name;
    for (const rocdsl::KernelParamSpec &p : spec.params)
      llvm::outs() << " " << p.name << "=" << p.defaultValue;
    llvm::outs() << "\t# " << spec.summary << "\n";
  }
}

static void printStats(llvm::ArrayRef<rocdsl::KernelResources> kernels) {
  for (const rocdsl::KernelResources &k : kernels)
    llvm::errs() << "kernel " << k.name << " (" << chip << "): vgpr " << k.vgprs
                 << ", agpr " << k.agprs << ", sgpr " << k.sgprs
                 << ", vgpr_spill " << k.vgprSpills << ", sgpr_spill "
                 << k.sgprSpills << ", scratch " << k.scratchBytes << " B, lds "
                 << k.ldsBytes << " B, waves/SIMD " << k.wavesPerSimd
                 << ", workgroup " << k.maxFlatWorkgroupSize << "\n";
}

static OwningOpRef<ModuleOp> loadInput(MLIRContext &ctx, std::string &error) {
  if (!kernelName.empty()) {
    const rocdsl::KernelSpec *spec = rocdsl::lookupKernel(kernelName);
    if (!spec) {
      error = rocdsl::unknownKernelMessage(kernelName);
      return nullptr;
    }
    // The kernel's own rules for the chip (its wave size, for one).
    std::vector<std::string> defs(definitions.begin(), definitions.end());
    rocdsl::TargetFacts facts;
    facts.chip = rocdsl::lookupChip(chip);
    rocdsl::KernelParams params;
    rocdsl::LaunchPlan plan; // unused: prepareKernel refuses what the code
                             // cannot address
    if (failed(rocdsl::prepareKernel(*spec, facts, defs, params, plan, error)))
      return nullptr;
    OwningOpRef<ModuleOp> module = spec->build(&ctx, params, error);
    if (!module && error.empty())
      error = "kernel " + kernelName + " failed to build";
    return module;
  }
  if (!definitions.empty()) {
    error = "-D parameters apply to --kernel only";
    return nullptr;
  }
  std::string readError;
  auto buffer = openInputFile(inputFile, &readError);
  if (!buffer) {
    error = readError;
    return nullptr;
  }
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(buffer), llvm::SMLoc());
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &ctx);
  if (!module)
    error = inputFile + " is not a valid module (the error above says why)";
  return rocdsl::takeKernelModule(std::move(module));
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  // What ROCDSL's own checks exist to prevent, should LLVM still hit it (a
  // backend that cannot lower an intrinsic a kernel calls, say): one line
  // and exit status 1, not an abort with a stack dump.
  rocdsl::installOneLineFatalErrorHandler(
      "rocdsl-compile: error: LLVM cannot compile this kernel: ", 1);
  // LLVM already owns `-stats` (its pass statistics, compiled out of release
  // builds); reuse that flag for the resource summary rather than clash.
  cl::Option *statsOption = cl::getRegisteredOptions().lookup("stats");
  statsOption->setDescription("Print a resource summary of each kernel (read "
                              "from the code object) to stderr");
  statsOption->addCategory(category);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(argc, argv, "ROCDSL kernel compiler\n");

  if (listKernels) {
    printKernelList();
    return 0;
  }
  if (kernelName.empty() == inputFile.empty())
    return fail("give exactly one of an input .mlir file or --kernel NAME");
  bool nvidia = rocdsl::isSupportedNVIDIAChip(chip);
  if (!rocdsl::isSupportedAMDGPUChip(chip) && !nvidia)
    return fail("unsupported chip '" + chip +
                "' (supported: gfx942, gfx950, sm_90, sm_90a)");
  static const char *const kinds[] = {"rocdsl", "mlir",  "llvm",
                                      "asm",    "hsaco", "ptx"};
  if (!llvm::is_contained(kinds, llvm::StringRef(emit)))
    return fail("unknown --emit=" + emit +
                " (expected rocdsl, mlir, llvm, asm, hsaco or ptx)");
  if (nvidia && (emit == "asm" || emit == "hsaco"))
    return fail("--emit=" + emit + " is for AMD chips; use --emit=ptx for " +
                chip);
  if (!nvidia && emit == "ptx")
    return fail("--emit=ptx is for NVIDIA chips (sm_90, sm_90a)");
  if (optLevel > 3)
    return fail("-O" + std::to_string(optLevel) +
                " is not an optimization "
                "level (0, 1, 2 or 3)");
  if (!rocdsl::parseWaitsMode(waits))
    return fail("unknown --waits=" + waits +
                " (expected explicit, llvm or weakened-for-testing)");
  if (llvm::AreStatisticsEnabled() && (nvidia || emit == "rocdsl"))
    return fail("--stats reads an AMDGPU code object: it applies to AMD "
                "chips and --emit mlir, llvm, asm or hsaco");
  if (nvidia && (directCopies || waits.getNumOccurrences()))
    return fail("--direct-copies and --waits apply to AMD chips only");
  // Without direct copies every copy completes where it stands: there is
  // no wait to place, and a --waits that changed nothing would mislead.
  if (waits.getNumOccurrences()) {
    auto copies = rocdsl::applyAsyncCopyEnvironment({directCopies, waits});
    if (!copies)
      return fail(llvm::toString(copies.takeError()));
    if (!copies->direct)
      return fail("--waits=" + waits +
                  " places the waits of direct-to-LDS copies; give "
                  "--direct-copies too (or ROCDSL_AMD_DIRECT_COPIES=1)");
  }
  if (nvidia && storeForm.getNumOccurrences() &&
      storeForm != rocdsl::StoreForm::Wide)
    return fail("--store-form applies to AMD chips only (the wide-store "
                "hazard is an AMDGPU one)");

  DialectRegistry registry;
  rocdsl::registerRocDSLDialects(registry);
  MLIRContext ctx(registry);
  ctx.loadAllAvailableDialects();

  std::string error;
  OwningOpRef<ModuleOp> module = loadInput(ctx, error);
  if (!module)
    return fail(error);
  if (module->getOps<rocdsl::FuncOp>().empty()) {
    std::string nested = rocdsl::describeNestedKernels(*module);
    return fail("no kernel in " +
                (inputFile.empty() ? std::string("the input") : inputFile) +
                (nested.empty()
                     ? " (expected at least one rocdsl.func)"
                     : " at its top level: its rocdsl.func are inside " +
                           nested +
                           " (kernels go at the top level of the file, or "
                           "of a module that is its only content)"));
  }

  std::string output;
  llvm::raw_string_ostream os(output);
  if (emit == "rocdsl") {
    module->print(os);
  } else if (nvidia) {
    if (failed(rocdsl::lowerToNVVM(*module, chip, optLevel)))
      return fail("lowering to NVVM failed");
    if (emit == "mlir") {
      module->print(os);
    } else {
      FailureOr<std::string> text =
          emit == "ptx"
              ? rocdsl::serializePTX(*module)
              : rocdsl::serializeAMDGPU(*module, rocdsl::AMDGPUOutput::LLVMIR);
      if (failed(text))
        return fail("serialization for " + chip + " failed");
      os << *text;
    }
  } else {
    // Every AMDGPU kernel is scanned for the wide-store hazard and, if it
    // shows it, recompiled with a safer store form before anything is
    // emitted (see CheckedCompile.h).
    auto checked = rocdsl::compileAMDGPUChecked(
        *module, chip, optLevel, storeForm, rocdsl::checkAssemblyDefault,
        {directCopies, waits});
    if (!checked)
      return fail(llvm::toString(checked.takeError()));
    if (emit == "mlir") {
      os << checked->lowered;
    } else if (emit == "asm") {
      os << checked->assembly;
    } else if (emit == "hsaco") {
      os << checked->codeObject;
    } else {
      if (failed(rocdsl::lowerToROCDL(*module, chip, optLevel, checked->form,
                                      checked->copies)))
        return fail("lowering to ROCDL failed");
      FailureOr<std::string> ir =
          rocdsl::serializeAMDGPU(*module, rocdsl::AMDGPUOutput::LLVMIR);
      if (failed(ir))
        return fail("translation to LLVM IR failed");
      os << *ir;
    }
    if (llvm::AreStatisticsEnabled()) {
      auto kernels =
          rocdsl::readKernelResources(checked->codeObject, chip, error);
      if (failed(kernels))
        return fail(error);
      printStats(*kernels);
    }
  }

  std::string fileError;
  auto file = openOutputFile(outputFile, &fileError);
  if (!file)
    return fail(fileError);
  file->os() << output;
  // A full disk or a closed pipe is a write error, reported as one (and
  // the partial file removed), not as a failure to compile.
  file->os().close();
  if (std::error_code ec = file->os().error()) {
    file->os().clear_error();
    return fail("cannot write " + outputFile + ": " + ec.message());
  }
  file->keep();
  return 0;
}
