//===- HostJIT.cpp - compile and load rocdsl kernels for the CPU ----------===//
#include "rocdsl/Runtime/HostJIT.h"

#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/SubtargetFeature.h"

#include <cstdlib>
#include <mutex>

using namespace mlir;
using namespace llvm;

static void initializeNativeTarget() {
  static std::once_flag once;
  std::call_once(once, [] {
    InitializeNativeTarget();
    InitializeNativeTargetAsmPrinter();
  });
}

/// ROCDSL_HOST_CPU names an older CPU of this machine's architecture to
/// compile host kernels for (e.g. x86-64-v3): code and compile times are
/// then those of a machine without this one's newer instructions, which is
/// how CI machines of another CPU generation are reproduced. Empty: this
/// machine's own CPU and features.
static std::string requestedHostCPU() {
  const char *cpu = std::getenv("ROCDSL_HOST_CPU");
  return cpu ? std::string(cpu) : std::string();
}

static Expected<std::unique_ptr<TargetMachine>> createHostTargetMachine() {
  initializeNativeTarget();
  auto builder = orc::JITTargetMachineBuilder::detectHost();
  if (!builder)
    return builder.takeError();
  std::string cpu = requestedHostCPU();
  if (!cpu.empty()) {
    // Checked against the target's CPU table before any subtarget of it is
    // built: LLVM would print its own "not a recognized processor" for
    // each one, ahead of ROCDSL's error.
    std::string error;
    const Triple &triple = builder->getTargetTriple();
    const Target *target = TargetRegistry::lookupTarget(triple, error);
    if (!target)
      return createStringError(error);
    std::unique_ptr<MCSubtargetInfo> generic(
        target->createMCSubtargetInfo(triple, "", ""));
    if (!generic || !generic->isCPUStringValid(cpu))
      return createStringError("ROCDSL_HOST_CPU=" + cpu +
                               " is not a CPU of this machine's target (" +
                               sys::getProcessTriple() + ")");
    // The named CPU's own features, none of this machine's.
    builder->setCPU(cpu);
    builder->getFeatures() = SubtargetFeatures();
  }
  builder->setCodeGenOptLevel(CodeGenOptLevel::Aggressive);
  // Position-independent code loads at any address ORC picks.
  builder->setRelocationModel(Reloc::PIC_);
  return builder->createTargetMachine();
}

std::string rocdsl::getHostTargetDescription() {
  std::string cpu = requestedHostCPU();
  if (!cpu.empty())
    return sys::getProcessTriple() + "/" + cpu + "/";
  std::string features;
  for (const auto &feature : sys::getHostCPUFeatures())
    if (feature.second)
      features += "+" + feature.first().str() + ",";
  return sys::getProcessTriple() + "/" + sys::getHostCPUName().str() + "/" +
         features;
}

/// void __rocdsl_packed_<name>(ptr args): loads each argument through its
/// pointer and calls the kernel, so the runtime needs no per-signature code.
static void addPackedEntry(llvm::Function &kernel) {
  llvm::Module &module = *kernel.getParent();
  LLVMContext &ctx = module.getContext();
  auto *ptrType = PointerType::getUnqual(ctx);
  auto *type =
      llvm::FunctionType::get(llvm::Type::getVoidTy(ctx), {ptrType}, false);
  auto *packed =
      llvm::Function::Create(type, GlobalValue::ExternalLinkage,
                             "__rocdsl_packed_" + kernel.getName(), module);
  IRBuilder<> b(BasicBlock::Create(ctx, "entry", packed));
  SmallVector<llvm::Value *> args;
  for (auto [i, arg] : llvm::enumerate(kernel.args())) {
    llvm::Value *slot = b.CreateConstGEP1_64(ptrType, packed->getArg(0), i);
    llvm::Value *pointer = b.CreateLoad(ptrType, slot);
    args.push_back(b.CreateLoad(arg.getType(), pointer));
  }
  b.CreateCall(&kernel, args);
  b.CreateRetVoid();
}

Expected<std::string> rocdsl::compileHostObject(ModuleOp lowered) {
  auto tm = createHostTargetMachine();
  if (!tm)
    return tm.takeError();

  DialectRegistry registry;
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  lowered.getContext()->appendDialectRegistry(registry);
  LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> module =
      translateModuleToLLVMIR(lowered, llvmContext, "rocdsl_host");
  if (!module)
    return createStringError(
        "translation of the host module to LLVM IR failed");
  module->setTargetTriple((*tm)->getTargetTriple());
  module->setDataLayout((*tm)->createDataLayout());

  SmallVector<llvm::Function *> kernels;
  for (llvm::Function &f : *module)
    if (!f.isDeclaration())
      kernels.push_back(&f);
  for (llvm::Function *f : kernels)
    addPackedEntry(*f);

  {
    LoopAnalysisManager lam;
    FunctionAnalysisManager fam;
    CGSCCAnalysisManager cgam;
    ModuleAnalysisManager mam;
    PassBuilder pb(tm->get());
    pb.registerModuleAnalyses(mam);
    pb.registerCGSCCAnalyses(cgam);
    pb.registerFunctionAnalyses(fam);
    pb.registerLoopAnalyses(lam);
    pb.crossRegisterProxies(lam, fam, cgam, mam);
    pb.buildPerModuleDefaultPipeline(OptimizationLevel::O3).run(*module, mam);
  }

  SmallVector<char> buffer;
  raw_svector_ostream os(buffer);
  legacy::PassManager codegen;
  if ((*tm)->addPassesToEmitFile(codegen, os, nullptr,
                                 CodeGenFileType::ObjectFile))
    return createStringError("this CPU target cannot emit object files");
  codegen.run(*module);
  return std::string(buffer.begin(), buffer.end());
}

rocdsl::HostObject::~HostObject() = default;

Expected<std::unique_ptr<rocdsl::HostObject>>
rocdsl::HostObject::load(StringRef object) {
  initializeNativeTarget();
  auto jit = orc::LLJITBuilder().create();
  if (!jit)
    return jit.takeError();
  // memcpy, memset and libm come from this process.
  auto generator = orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
      (*jit)->getDataLayout().getGlobalPrefix());
  if (!generator)
    return generator.takeError();
  (*jit)->getMainJITDylib().addGenerator(std::move(*generator));
  if (Error err = (*jit)->addObjectFile(
          MemoryBuffer::getMemBufferCopy(object, "rocdsl-host-object")))
    return std::move(err);
  std::unique_ptr<HostObject> result(new HostObject());
  result->jit = std::move(*jit);
  return result;
}

Expected<rocdsl::PackedKernelFn> rocdsl::HostObject::lookup(StringRef kernel) {
  auto address = jit->lookup(("__rocdsl_packed_" + kernel).str());
  if (!address)
    return address.takeError();
  return address->toPtr<PackedKernelFn>();
}
