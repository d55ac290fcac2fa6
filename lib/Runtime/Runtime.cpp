//===- Runtime.cpp - compiled launchers from memory, disk or compiler -----===//
#include "Devices.h"
#include "rocdsl/Runtime/SourceKernel.h"
#include "rocdsl/Support/Log.h"

#include "rocdsl/ISA/HazardCheck.h"
#include "rocdsl/Pipelines/Pipelines.h"
#include "rocdsl/Target/ScheduleChoice.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "rocdsl/Runtime/CudaDriver.h"
#include "rocdsl/Runtime/HipRuntime.h"
#include "rocdsl/Runtime/HostJIT.h"
#include "rocdsl/Target/AMDGPU.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/raw_ostream.h"

#include "rocdsl_build_id.inc"

#include <chrono>
#include <cstdlib>
#include <mutex>

using namespace mlir;
using namespace mlir::rocdsl;

static constexpr const char *kVersion = "0.1.0";

Launcher::~Launcher() = default;

llvm::Error Launcher::readBack(void *host, const void *device, size_t bytes) {
  (void)host, (void)device, (void)bytes;
  return llvm::createStringError("reading " + toString(getDevice()).str() +
                                 " device memory back is not supported");
}

const char *Runtime::getVersion() { return kVersion; }

llvm::StringRef mlir::rocdsl::toString(DeviceKind kind) {
  switch (kind) {
  case DeviceKind::Host:
    return "host";
  case DeviceKind::HIP:
    return "hip";
  case DeviceKind::CUDA:
    return "cuda";
  }
  llvm_unreachable("unknown device");
}

std::optional<DeviceKind> mlir::rocdsl::parseDeviceKind(llvm::StringRef name) {
  if (name == "host")
    return DeviceKind::Host;
  if (name == "hip")
    return DeviceKind::HIP;
  if (name == "cuda")
    return DeviceKind::CUDA;
  return std::nullopt;
}

std::string DeviceId::str() const {
  std::string name = toString(kind).str();
  if (ordinal != 0)
    name += ":" + std::to_string(ordinal);
  return name;
}

std::optional<DeviceId> mlir::rocdsl::parseDeviceId(llvm::StringRef name) {
  auto [kindName, ordinalText] = name.split(':');
  std::optional<DeviceKind> kind = parseDeviceKind(kindName);
  if (!kind)
    return std::nullopt;
  if (!name.contains(':'))
    return DeviceId(*kind);
  unsigned ordinal = 0;
  // Digits only: no sign, no spaces, nothing after them.
  if (ordinalText.empty() || !llvm::all_of(ordinalText, llvm::isDigit) ||
      ordinalText.getAsInteger(10, ordinal) || ordinal > 1023 ||
      (*kind == DeviceKind::Host && ordinal != 0))
    return std::nullopt;
  return DeviceId(*kind, int(ordinal));
}

/// Where the AMDGPU device libraries and linker come from, and a hash of the
/// libraries ROCDSL kernels link (ocml, ockl), computed once per process.
static std::string getDeviceLibraryFingerprint() {
  static const std::string fingerprint = [] {
    std::string root = getROCmPath();
    llvm::SHA256 hash;
    for (const char *lib : {"ocml.bc", "ockl.bc"}) {
      llvm::SmallString<256> path(root);
      llvm::sys::path::append(path, "amdgcn", "bitcode", lib);
      if (auto buffer = llvm::MemoryBuffer::getFile(path))
        hash.update((*buffer)->getBuffer());
      else
        hash.update(llvm::StringRef("missing:" + path.str().str()));
    }
    return root + ":" + llvm::toHex(hash.final(), /*LowerCase=*/true);
  }();
  return fingerprint;
}

CompilerFingerprint Runtime::getCompilerFingerprint(DeviceKind device) {
  CompilerFingerprint f;
  f.version = kVersion;
  // The code also depends on the LLVM/MLIR libraries ROCDSL runs with (shared
  // libraries that can be upgraded on their own) and, for AMDGPU, on the
  // device libraries and linker it links with.
  f.buildId = std::string(ROCDSL_BUILD_ID) + "/llvm-" + LLVM_VERSION_STRING;
  if (device == DeviceKind::HIP)
    f.buildId += "/" + getDeviceLibraryFingerprint();
  f.pipeline = device == DeviceKind::Host  ? "rocdsl-to-host,O3"
               : device == DeviceKind::HIP ? "rocdsl-to-rocdl,O3,hsaco"
                                           : "rocdsl-to-nvvm,ptx";
  if (device == DeviceKind::HIP)
    f.pipeline += ",schedule=" + getScheduleSettingKey() + "," +
                  asyncCopyEnvironmentKey();
  // AMDGPU binaries are only served if checked by this version of the
  // hazard rules (CheckedCompile.h).
  f.isaCheckVersion = device == DeviceKind::HIP ? isa::kCheckerVersion : "none";
  return f;
}

CacheTarget Runtime::getTarget(DeviceKind device, llvm::StringRef chip) {
  CacheTarget t;
  switch (device) {
  case DeviceKind::Host:
    t.chip = "host";
    t.features = getHostTargetDescription();
    t.waveSize = 1;
    break;
  case DeviceKind::HIP:
    t.chip = chip.str();
    t.waveSize = 64;
    break;
  case DeviceKind::CUDA:
    t.chip = chip.str();
    t.waveSize = 32;
    break;
  }
  return t;
}

bool Runtime::isAvailable(DeviceId device, std::string &why) {
  switch (device.kind) {
  case DeviceKind::Host:
    return isHostAvailable(why);
  case DeviceKind::HIP:
    return isHipAvailable(device.ordinal, why);
  case DeviceKind::CUDA:
    return isCudaAvailable(device.ordinal, why);
  }
  return false;
}

llvm::Expected<std::string> Runtime::resolveChip(DeviceId device,
                                                 llvm::StringRef requested) {
  switch (device.kind) {
  case DeviceKind::Host:
    // The host device compiles for this CPU; a chip asked of it would be
    // silently ignored.
    if (!requested.empty() && requested != "host")
      return llvm::createStringError(
          "chip " + requested.str() +
          ": the host device compiles for this CPU (a chip applies to hip and "
          "cuda devices)");
    return std::string("host");
  case DeviceKind::CUDA: {
    if (!requested.empty())
      return requested.str();
    // Compute capability 9.0 (H100, H200) runs sm_90a code, which adds
    // warpgroup MMA to sm_90's (gemm's wgmma=auto takes it); sm_90a code
    // runs nowhere else, while sm_90 PTX is JIT-compiled for later chips.
    // Without a driver (compiling only) the Hopper target is assumed.
    std::string why;
    CudaDriver *cuda = CudaDriver::get(why);
    int capability = cuda && cuda->checkDevice(device.ordinal, why)
                         ? cuda->computeCapability(device.ordinal)
                         : 90;
    return std::string(capability == 90 || capability == 0 ? "sm_90a"
                                                            : "sm_90");
  }
  case DeviceKind::HIP:
    break;
  }
  std::string why;
  HipRuntime *hip = HipRuntime::get(why);
  if (!hip) // compiling needs no GPU; launching will say what is missing
    return requested.empty() ? std::string("gfx942") : requested.str();
  if (!hip->checkDevice(device.ordinal, why))
    return llvm::createStringError(why);
  std::string chip = hip->getChip(device.ordinal);
  std::string which = "hip device " + std::to_string(device.ordinal) + " (" +
                      hip->getDeviceName(device.ordinal) + ")";
  if (!isSupportedAMDGPUChip(chip))
    return llvm::createStringError(
        which + " is " + hip->getArchName(device.ordinal) +
        ", which ROCDSL does not compile for (supported: " +
        llvm::join(getSupportedAMDGPUChips(), ", ") + ")");
  if (!requested.empty() && requested != chip)
    return llvm::createStringError("chip " + requested.str() +
                                   " was requested, but " + which + " is " +
                                   chip);
  return chip;
}

struct Runtime::Impl {
  Impl() : disk(DiskCache::fromEnvironment()) {
    DialectRegistry registry;
    registerRocDSLDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
    // Compiles run one at a time; the context needs no thread pool.
    context.disableMultithreading();
  }

  MLIRContext context;
  std::mutex compileMutex; // guards `context`
  std::unique_ptr<DiskCache> disk;
  MemoryCache<Launcher> memory;
  std::atomic<uint64_t> diskHits{0}, compiles{0};
  std::atomic<double> compileMs{0};
};

Runtime::Runtime() : impl(std::make_unique<Impl>()) {}

Runtime &Runtime::get() {
  static Runtime runtime;
  return runtime;
}

RuntimeStats Runtime::getStats() const {
  RuntimeStats s;
  s.memoryHits = impl->memory.hits();
  s.diskHits = impl->diskHits;
  s.compiles = impl->compiles;
  s.compileMilliseconds = impl->compileMs;
  return s;
}

/// ROCDSL_DUMP_DIR: keep what each compile produced, for debugging.
static void dump(llvm::StringRef kernel, llvm::StringRef digest,
                 llvm::StringRef suffix, llvm::StringRef text) {
  const char *dir = std::getenv("ROCDSL_DUMP_DIR");
  if (!dir || !*dir || text.empty())
    return;
  llvm::sys::fs::create_directories(dir);
  llvm::SmallString<256> path(dir);
  llvm::sys::path::append(
      path, (kernel + "-" + digest.take_front(16) + "." + suffix).str());
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  if (ec) {
    logWarning("cannot write " + path + ": " + ec.message());
    return;
  }
  os << text;
  logDebug("wrote " + path);
}

void Runtime::countMemoryHit() { impl->memory.countHit(); }

llvm::Expected<std::shared_ptr<Launcher>>
Runtime::getLauncher(DeviceId deviceId, const CompileRequest &request,
                     CacheTier &tier, double &compileMs) {
  compileMs = 0;
  DeviceKind device = deviceId.kind;
  // The memory tier keys on the full canonical key (its target and pipeline
  // name the device kind), so a change to any component misses; devices
  // other than the first of their kind add their ordinal, since each loads
  // its own module. The disk tier shares one entry among them.
  std::string ordinalKey;
  if (deviceId.ordinal != 0)
    ordinalKey = request.getCanonicalKey() + "\n@device " +
                 std::to_string(deviceId.ordinal);
  llvm::StringRef memoryKey =
      deviceId.ordinal == 0 ? llvm::StringRef(request.getCanonicalKey())
                            : llvm::StringRef(ordinalKey);
  if (std::shared_ptr<Launcher> hit = impl->memory.lookup(memoryKey)) {
    tier = CacheTier::Memory;
    return hit;
  }
  std::string digest = request.getKey().digest();
  logDebug("cache lookup " + request.getKernelName() + " " + digest);

  auto compile = [&]() -> llvm::Expected<std::string> {
    std::lock_guard<std::mutex> lock(impl->compileMutex);
    // MLIR's diagnostics become part of the returned error instead of going
    // to stderr, so callers of the API see why a compile failed.
    std::string diagnostics;
    ScopedDiagnosticHandler collect(&impl->context, [&](Diagnostic &d) {
      if (d.getSeverity() == DiagnosticSeverity::Error)
        diagnostics += (diagnostics.empty() ? "" : "; ") + formatDiagnostic(d);
      return success();
    });
    auto withDiagnostics = [&](llvm::Error err) -> llvm::Error {
      if (diagnostics.empty())
        return err;
      return llvm::createStringError(llvm::toString(std::move(err)) + ": " +
                                     diagnostics);
    };
    auto start = std::chrono::steady_clock::now();
    std::string error;
    OwningOpRef<ModuleOp> module = request.getBuild()(&impl->context, error);
    if (!module)
      return withDiagnostics(llvm::createStringError(
          "building " + request.getKernelName() + " failed" +
          (error.empty() ? std::string() : ": " + error)));
    std::string source, lowered, code;
    {
      llvm::raw_string_ostream os(source);
      module->print(os);
    }
    llvm::Expected<std::string> payload =
        device == DeviceKind::Host ? compileForHost(*module, &lowered)
        : device == DeviceKind::HIP
            ? compileForHip(*module, request.getKey().target.chip, &lowered,
                            &code)
            : compileForCuda(*module, request.getKey().target.chip, &lowered);
    if (!payload)
      return withDiagnostics(payload.takeError());
    compileMs = std::chrono::duration<double, std::milli>(
                    std::chrono::steady_clock::now() - start)
                    .count();
    impl->compiles++;
    impl->compileMs = impl->compileMs + compileMs;
    logInfo("compiled " + request.getKernelName() + " for " + toString(device) +
            " in " + llvm::formatv("{0:F1}", compileMs).str() + " ms");
    dump(request.getKernelName(), digest, "rocdsl.mlir", source);
    dump(request.getKernelName(), digest, "lowered.mlir", lowered);
    dump(request.getKernelName(), digest,
         device == DeviceKind::HIP    ? "s"
         : device == DeviceKind::CUDA ? "ptx"
                                      : "o",
         device == DeviceKind::HIP ? llvm::StringRef(code)
                                   : llvm::StringRef(*payload));
    return payload;
  };

  if (!impl->disk)
    tier = CacheTier::Miss;
  llvm::Expected<std::string> payload =
      impl->disk ? impl->disk->getOrCompute(digest, compile, tier) : compile();
  if (!payload)
    return payload.takeError();

  auto load = [&](const std::string &code) {
    return device == DeviceKind::Host
               ? loadOnHost(code, request.getKernelName())
           : device == DeviceKind::HIP
               ? loadOnHip(code, request.getKernelName(), deviceId.ordinal)
               : loadOnCuda(code, request.getKernelName(), deviceId.ordinal);
  };
  llvm::Expected<std::shared_ptr<Launcher>> launcher = load(*payload);
  if (!launcher && tier == CacheTier::Disk) {
    // An entry whose checksum holds but whose code does not load (written
    // by a broken build, or by hand) would fail this kernel on every run:
    // it is reported, deleted and rebuilt, like a corrupt one.
    logWarning("the cached code of " + request.getKernelName() + " (" +
               impl->disk->getEntryPath(digest) + ") does not load (" +
               llvm::toString(launcher.takeError()) +
               "); deleted, compiling again");
    if (llvm::Error err = impl->disk->remove(digest))
      return err;
    payload = impl->disk->getOrCompute(digest, compile, tier);
    if (!payload)
      return payload.takeError();
    launcher = load(*payload);
  }
  if (!launcher)
    return launcher.takeError();
  // Counted once the code loaded: an entry that did not load was a miss.
  if (tier == CacheTier::Disk)
    impl->diskHits++;
  // If another thread loaded the same kernel meanwhile, both get its copy.
  return impl->memory.insert(memoryKey, std::move(*launcher));
}
