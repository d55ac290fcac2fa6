//===- API.cpp - librocdsl's interface for bindings -----------------------===//
#include "rocdsl/API.h"

#include "rocdsl/Conversion/Addressing.h"
#include "rocdsl/Dialect/RocDSL/IR/RocDSL.h"
#include "rocdsl/Runtime/BuiltinKernel.h"
#include "rocdsl/Runtime/CompileOnly.h"
#include "rocdsl/Runtime/CudaDriver.h"
#include "rocdsl/Runtime/DeviceMemory.h"
#include "rocdsl/Runtime/DiskCache.h"
#include "rocdsl/Runtime/HipRuntime.h"
#include "rocdsl/Runtime/SourceKernel.h"
#include "rocdsl/Support/Log.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/raw_ostream.h"

#include <mutex>

using namespace mlir;
using namespace mlir::rocdsl;
namespace api = mlir::rocdsl::api;

static_assert(int(api::DType::F32) == int(dsl::DType::F32) &&
                  int(api::DType::F16) == int(dsl::DType::F16) &&
                  int(api::DType::BF16) == int(dsl::DType::BF16) &&
                  int(api::DType::I32) == int(dsl::DType::I32) &&
                  int(api::DType::I1) == int(dsl::DType::I1),
              "api::DType mirrors dsl::DType");
static_assert(int(api::ArgKind::Tensor) == int(ArgKind::Tensor) &&
                  int(api::ArgKind::Int32) == int(ArgKind::Int32) &&
                  int(api::ArgKind::Float32) == int(ArgKind::Float32),
              "api::ArgKind mirrors ArgKind");

bool api::parseDType(const std::string &name, DType &dtype) {
  std::optional<dsl::DType> d = dsl::parseDType(name);
  if (!d)
    return false;
  dtype = DType(int(*d));
  return true;
}

const char *api::dtypeName(DType dtype) {
  // StringRefs from dsl::toString point to literals.
  return dsl::toString(dsl::DType(int(dtype))).data();
}

struct api::Kernel::Impl {
  std::unique_ptr<BuiltinKernel> builtin;
  std::unique_ptr<SourceKernel> source;
  std::string name;
  std::vector<ArgInfo> args;
};

api::Kernel::Kernel() : impl(std::make_unique<Impl>()) {}
api::Kernel::~Kernel() = default;

static std::optional<DeviceId> deviceOf(const std::string &name,
                                        std::string &error) {
  std::optional<DeviceId> device = parseDeviceId(name);
  if (!device)
    error = "unknown device '" + name + "' (host, hip, hip:N, cuda or cuda:N)";
  return device;
}

std::unique_ptr<api::Kernel> api::Kernel::builtin(
    const std::string &name, const std::vector<std::string> &definitions,
    const std::string &device, const std::string &chip, std::string &error) {
  std::optional<DeviceId> kind = deviceOf(device, error);
  if (!kind)
    return nullptr;
  auto created = BuiltinKernel::create(name, definitions, *kind, chip);
  if (!created) {
    error = llvm::toString(created.takeError());
    return nullptr;
  }
  std::unique_ptr<Kernel> k(new Kernel());
  k->impl->builtin = std::move(*created);
  const LaunchPlan &plan = k->impl->builtin->getPlan();
  k->impl->name = plan.kernelName;
  for (const ArgSignature &sig : plan.args) {
    ArgInfo info;
    info.name = sig.name;
    info.kind = ArgKind(int(sig.kind));
    info.dtype = DType(int(sig.dtype));
    info.shape = sig.shape;
    info.isOutput = sig.isOutput;
    info.hasExpectedInt = sig.expectedInt.has_value();
    info.expectedInt = sig.expectedInt.value_or(0);
    k->impl->args.push_back(std::move(info));
  }
  return k;
}

std::unique_ptr<api::Kernel> api::Kernel::fromSource(const std::string &source,
                                                     const std::string &kernel,
                                                     const std::string &device,
                                                     const std::string &chip,
                                                     std::string &error) {
  std::optional<DeviceId> kind = deviceOf(device, error);
  if (!kind)
    return nullptr;
  auto created = SourceKernel::create(source, kernel, *kind, chip);
  if (!created) {
    error = llvm::toString(created.takeError());
    return nullptr;
  }
  std::unique_ptr<Kernel> k(new Kernel());
  k->impl->source = std::move(*created);
  k->impl->name = kernel;
  for (auto [i, sig] : llvm::enumerate(k->impl->source->getArgs())) {
    ArgInfo info;
    info.name = "arg" + std::to_string(i);
    info.kind = ArgKind(int(sig.kind));
    info.dtype = DType(int(sig.dtype));
    k->impl->args.push_back(std::move(info));
  }
  return k;
}

const std::string &api::Kernel::name() const { return impl->name; }
const std::vector<api::ArgInfo> &api::Kernel::args() const {
  return impl->args;
}

std::array<uint32_t, 3> api::Kernel::grid() const {
  if (!impl->builtin)
    return {0, 0, 0};
  const LaunchPlan &plan = impl->builtin->getPlan();
  return {plan.grid[0], plan.grid[1], plan.grid[2]};
}

std::vector<std::pair<std::string, std::string>> api::Kernel::params() const {
  std::vector<std::pair<std::string, std::string>> out;
  if (!impl->builtin)
    return out;
  for (const KernelParamSpec &p : impl->builtin->getSpec().params)
    out.emplace_back(p.name, impl->builtin->getParams().get(p.name).str());
  return out;
}

bool api::Kernel::launch(const Arg *args, size_t count, const uint32_t *grid,
                         void *stream, bool wait, LaunchInfo &info,
                         std::string &error, const LaunchOptions &options) {
  rocdsl::LaunchOptions launchOptions;
  if (options.checkFinite >= 0)
    launchOptions.checkFinite = options.checkFinite != 0;
  // Per thread, not per kernel: one Kernel may be launched from several
  // threads at once (Python threads share the cached kernel objects), and
  // reusing the buffer keeps launches free of allocations.
  thread_local SmallVector<ArgValue, 8> values;
  values.resize(count);
  for (size_t i = 0; i < count; ++i) {
    const Arg &a = args[i];
    ArgValue &v = values[i];
    v.kind = rocdsl::ArgKind(int(a.kind));
    v.i32 = a.i32;
    v.f32 = a.f32;
    v.tensor.data = a.data;
    v.tensor.dtype = dsl::DType(int(a.dtype));
    // A bare pointer (rank -1) has no shape: built-in kernels' validation
    // then reports the rank it expected.
    int rank = a.rank < 0 ? 0 : std::min(a.rank, kMaxRank);
    v.tensor.shape.assign(a.shape, a.shape + rank);
    v.tensor.strides.assign(a.strides, a.strides + rank);
  }
  RunInfo run;
  llvm::Error err = [&]() -> llvm::Error {
    if (impl->builtin) {
      const LaunchPlan &plan = impl->builtin->getPlan();
      if (grid && (grid[0] != plan.grid[0] || grid[1] != plan.grid[1] ||
                   grid[2] != plan.grid[2]))
        return llvm::createStringError(
            "built-in kernels run on their planned grid");
      return wait ? impl->builtin->run(values, run, launchOptions)
                  : impl->builtin->enqueue(values, stream, run, launchOptions);
    }
    if (!grid)
      return llvm::createStringError("source kernels need a grid");
    return impl->source->run(values, LaunchGrid{grid[0], grid[1], grid[2]},
                             stream, wait, run, launchOptions);
  }();
  if (err) {
    error = llvm::toString(std::move(err));
    return false;
  }
  info.tier = getCacheTierName(run.tier).data();
  info.compileMilliseconds = run.compileMilliseconds;
  info.kernelMicroseconds = run.kernelMicroseconds;
  info.launcher = reinterpret_cast<uintptr_t>(run.launcher);
  return true;
}

std::vector<api::KernelInfo> api::listKernels() {
  std::vector<KernelInfo> out;
  for (const KernelSpec &spec : getBuiltinKernels()) {
    KernelInfo k;
    k.name = spec.name;
    k.summary = spec.summary;
    for (const KernelParamSpec &p : spec.params)
      k.params.push_back({p.name, p.defaultValue, p.help});
    out.push_back(std::move(k));
  }
  return out;
}

bool api::deviceAvailable(const std::string &device, std::string &why) {
  std::optional<DeviceId> id = deviceOf(device, why);
  return id && Runtime::isAvailable(*id, why);
}

bool api::streamIsCapturing(const std::string &device, void *stream,
                            bool &capturing, std::string &error) {
  capturing = false;
  std::optional<DeviceId> id = deviceOf(device, error);
  if (!id)
    return false;
  if (id->kind == DeviceKind::HIP) {
    HipRuntime *hip = HipRuntime::get(error);
    return hip && hip->isCapturing(id->ordinal, stream, capturing, error);
  }
  if (id->kind != DeviceKind::CUDA) {
    error = "no stream capture query on " + id->str();
    return false;
  }
  CudaDriver *driver = CudaDriver::get(error);
  return driver && driver->isCapturing(id->ordinal, stream, capturing, error);
}

bool api::logMessage(const std::string &level, const std::string &message) {
  // parseLogLevel reads "" as the default level; a message needs a named one.
  if (llvm::StringRef(level).trim().empty())
    return false;
  std::optional<LogLevel> parsed = parseLogLevel(level);
  if (!parsed)
    return false;
  log(*parsed, message);
  return true;
}

int64_t api::maxTensorBytes() { return kMaxTensorBytes; }

std::string api::cacheDirectory() {
  return DiskCache::getDirectoryFromEnvironment().value_or("");
}

std::string api::normalizeDevice(const std::string &device,
                                 std::string &error) {
  std::optional<DeviceId> id = deviceOf(device, error);
  return id ? id->str() : std::string();
}

std::string api::describeDevice(const std::string &device, std::string &error) {
  std::optional<DeviceId> id = deviceOf(device, error);
  if (!id)
    return "";
  auto described = rocdsl::describeDevice(*id);
  if (!described) {
    error = llvm::toString(described.takeError());
    return "";
  }
  return *described;
}

int api::deviceCount(const std::string &kind) {
  std::string why;
  if (kind == "hip") {
    HipRuntime *hip = HipRuntime::get(why);
    return hip ? hip->getDeviceCount() : 0;
  }
  if (kind == "cuda") {
    CudaDriver *cuda = CudaDriver::get(why);
    return cuda ? cuda->getDeviceCount() : 0;
  }
  return kind == "host" ? 1 : 0;
}

struct api::DeviceBuffer::Impl {
  std::unique_ptr<rocdsl::DeviceBuffer> buffer;
  std::string device;
};

api::DeviceBuffer::DeviceBuffer() : impl(std::make_unique<Impl>()) {}
api::DeviceBuffer::~DeviceBuffer() = default;

std::unique_ptr<api::DeviceBuffer>
api::DeviceBuffer::allocate(const std::string &device, size_t bytes,
                            std::string &error) {
  std::optional<DeviceId> id = deviceOf(device, error);
  if (!id)
    return nullptr;
  auto buffer = rocdsl::DeviceBuffer::allocate(*id, bytes);
  if (!buffer) {
    error = llvm::toString(buffer.takeError());
    return nullptr;
  }
  std::unique_ptr<DeviceBuffer> out(new DeviceBuffer());
  out->impl->buffer = std::move(*buffer);
  out->impl->device = id->str();
  return out;
}

void *api::DeviceBuffer::data() const { return impl->buffer->data(); }
size_t api::DeviceBuffer::size() const { return impl->buffer->size(); }
const std::string &api::DeviceBuffer::device() const { return impl->device; }

bool api::DeviceBuffer::copyFromHost(const void *src, size_t bytes,
                                     size_t offset, std::string &error) {
  if (llvm::Error err = impl->buffer->copyFromHost(src, bytes, offset)) {
    error = llvm::toString(std::move(err));
    return false;
  }
  return true;
}

bool api::DeviceBuffer::copyToHost(void *dst, size_t bytes, size_t offset,
                                   std::string &error) const {
  if (llvm::Error err = impl->buffer->copyToHost(dst, bytes, offset)) {
    error = llvm::toString(std::move(err));
    return false;
  }
  return true;
}

static bool fillCompiled(llvm::Expected<CompiledArtifacts> artifacts,
                         api::Compiled &out, std::string &error) {
  if (!artifacts) {
    error = llvm::toString(artifacts.takeError());
    return false;
  }
  out = api::Compiled();
  out.chip = artifacts->chip;
  out.mlir = std::move(artifacts->source);
  out.lowered = std::move(artifacts->lowered);
  out.llvmIR = std::move(artifacts->llvmIR);
  out.assembly = std::move(artifacts->assembly);
  out.binary = std::move(artifacts->binary);
  out.storeForm = toString(artifacts->storeForm).str();
  out.schedule = artifacts->schedule;
  for (const KernelResources &k : artifacts->resources)
    out.stats.push_back({k.name, k.vgprs, k.agprs, k.sgprs, k.vgprSpills,
                         k.sgprSpills, k.scratchBytes, k.ldsBytes,
                         k.wavesPerSimd, k.maxFlatWorkgroupSize,
                         k.wavefrontSize});
  for (const isa::Finding &f : artifacts->hazards)
    out.hazards.push_back(isa::formatFinding(f));
  for (const isa::Finding &f : artifacts->rejectedHazards)
    out.rejectedHazards.push_back(isa::formatFinding(f));
  return true;
}

bool api::compileBuiltin(const std::string &name,
                         const std::vector<std::string> &definitions,
                         const std::string &chip, Compiled &out,
                         std::string &error) {
  auto build = builtinKernelBuilder(name, definitions, chip);
  if (!build) {
    error = llvm::toString(build.takeError());
    return false;
  }
  return fillCompiled(compileOnly(*build, chip), out, error);
}

bool api::compileSource(const std::string &source, const std::string &kernel,
                        const std::string &chip, Compiled &out,
                        std::string &error) {
  auto build = [source, kernel](MLIRContext *ctx,
                                std::string &error) -> OwningOpRef<ModuleOp> {
    OwningOpRef<ModuleOp> module = parseKernelSource(source, ctx, error);
    if (module && !module->lookupSymbol<FuncOp>(kernel)) {
      error = noKernelMessage(*module, kernel);
      return nullptr;
    }
    return module;
  };
  return fillCompiled(compileOnly(build, chip), out, error);
}

/// The chip whose facts shape layouts for `device`: the device's own (the
/// chip the runtime compiles for), and for the host the first AMD chip of
/// the table, since the host lowering keeps whole tiles in one thread and
/// any layout works there: host and AMDGPU then trace the same IR.
static const ChipInfo *layoutChipOf(const std::string &device) {
  std::string error;
  std::optional<DeviceId> id = deviceOf(device, error);
  if (!id)
    return nullptr;
  if (id->kind == DeviceKind::Host) {
    for (const ChipInfo &chip : getChips())
      if (chip.isAMD())
        return &chip;
    return nullptr;
  }
  llvm::Expected<std::string> chip = Runtime::resolveChip(*id, "");
  if (!chip) {
    llvm::consumeError(chip.takeError());
    return nullptr;
  }
  return lookupChip(*chip);
}

unsigned api::waveSize(const std::string &device) {
  const ChipInfo *chip = layoutChipOf(device);
  return chip ? chip->waveSize : 0;
}

unsigned api::maxWorkgroupLanes(const std::string &device) {
  const ChipInfo *chip = layoutChipOf(device);
  return chip ? chip->maxWorkgroupSize : 0;
}

std::string api::defaultLayout(const std::vector<int64_t> &shape,
                               unsigned elementBits, unsigned numWarps,
                               unsigned waveSize, unsigned minPerLane) {
  // Attributes are uniqued in a context; one small context serves all
  // layout queries.
  static std::mutex mutex;
  static MLIRContext *ctx = [] {
    auto *c = new MLIRContext(MLIRContext::Threading::DISABLED);
    c->loadDialect<RocDSLDialect>();
    return c;
  }();
  std::lock_guard<std::mutex> lock(mutex);
  if (shape.empty())
    return "";
  std::string text;
  llvm::raw_string_ostream os(text);
  os << BlockedAttr::getDefault(ctx, shape, numWarps, waveSize, elementBits,
                                std::max(minPerLane, 1u));
  return text;
}

api::CacheStats api::cacheStats() {
  RuntimeStats s = Runtime::get().getStats();
  return {s.memoryHits, s.diskHits, s.compiles};
}

const char *api::version() { return Runtime::getVersion(); }
