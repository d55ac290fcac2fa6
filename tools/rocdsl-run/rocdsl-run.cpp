//===- rocdsl-run.cpp - run a built-in kernel and check it ----------------===//
//
//   rocdsl-run --kernel rmsnorm_fwd -D M=4096 -D N=4096 -D dtype=bf16 \
//       --device host --check     (or --device cuda/hip: data copied to the GPU)
//
// Fresh random inputs (normal, seed printed; --seed repeats a run), outputs
// poisoned with NaN before the launch, every output compared with the
// kernel's float64 reference. Prints the errors, compile time, the cache
// tier that served the launcher (miss, memory, disk) and the kernel time.
//
//===----------------------------------------------------------------------===//
#include "rocdsl/Runtime/BuiltinKernel.h"
#include "rocdsl/Runtime/DeviceMemory.h"
#include "rocdsl/Runtime/HostData.h"
#include "rocdsl/Support/FatalErrors.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::rocdsl;
namespace cl = llvm::cl;

static cl::OptionCategory category("rocdsl-run options");
static cl::opt<std::string> kernelName("kernel", cl::desc("Built-in kernel"),
                                       cl::value_desc("name"), cl::Required,
                                       cl::cat(category));
static cl::list<std::string>
    definitions("D", cl::desc("Kernel parameter NAME=VALUE"), cl::Prefix,
                cl::value_desc("NAME=VALUE"), cl::cat(category));
static cl::opt<std::string> deviceName("device",
                                       cl::desc("host, hip[:N] or cuda[:N]"),
                                       cl::init("host"), cl::cat(category));
static cl::opt<std::string>
    chip("chip",
         cl::desc("Chip (default: the hip device's own, else gfx942; for "
                  "cuda sm_90a on compute capability 9.0, else sm_90)"),
         cl::init(""), cl::cat(category));
static cl::opt<bool> check("check",
                           cl::desc("Compare the outputs with the float64 "
                                    "reference and exit non-zero on a "
                                    "mismatch (without it nothing is "
                                    "compared)"),
                           cl::cat(category));
static cl::opt<uint64_t> seed("seed", cl::desc("Random seed (default: fresh)"),
                              cl::init(0), cl::cat(category));
static cl::opt<unsigned> repeat("repeat",
                                cl::desc("Launches to time (median reported)"),
                                cl::init(1), cl::cat(category));


static int fail(const llvm::Twine &message) {
  llvm::errs() << "rocdsl-run: error: " << message << "\n";
  return 2;
}

/// `status`, unless what was printed did not reach its reader (a full disk,
/// a closed pipe): that is a write error, status 2, not a result.
static int finish(int status) {
  llvm::outs().flush();
  if (std::error_code ec = llvm::outs().error()) {
    llvm::outs().clear_error();
    return fail("cannot write the report: " + ec.message());
  }
  return status;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  // What ROCDSL's own checks exist to prevent, should LLVM still hit it (a
  // backend that cannot lower an intrinsic a kernel calls, say): one line
  // and exit status 2 like any failed request (1 is for a mismatch), not an
  // abort with a stack dump.
  rocdsl::installOneLineFatalErrorHandler(
      "rocdsl-run: error: LLVM cannot compile this kernel: ", 2);
  cl::HideUnrelatedOptions(category);
  // Bad options are a bad request too: status 2, not LLVM's default 1.
  if (!cl::ParseCommandLineOptions(argc, argv, "ROCDSL kernel runner\n",
                                   &llvm::errs()))
    return 2;

  auto device = parseDeviceId(deviceName);
  if (!device)
    return fail("unknown --device '" + deviceName +
                "' (host, hip, hip:N, cuda or cuda:N)");
  std::string why;
  if (!Runtime::isAvailable(*device, why))
    return fail("cannot run on " + deviceName + ": " + why);

  auto kernel = BuiltinKernel::create(kernelName, definitions, *device, chip);
  if (!kernel)
    return fail(llvm::toString(kernel.takeError()));
  const LaunchPlan &plan = (*kernel)->getPlan();

  uint64_t usedSeed = seed ? uint64_t(seed) : std::random_device{}();
  std::mt19937_64 rng(usedSeed);
  std::vector<std::unique_ptr<HostBuffer>> buffers;
  std::vector<ArgValue> args;
  std::vector<double> scalars;
  for (const ArgSignature &sig : plan.args) {
    if (sig.kind == ArgKind::Tensor) {
      size_t count = 1;
      for (int64_t d : sig.shape)
        if (__builtin_mul_overflow(count, size_t(d), &count))
          return fail("argument '" + sig.name + "' is too large");
      auto buffer = std::make_unique<HostBuffer>(sig.dtype, count);
      if (!buffer->isValid())
        return fail("cannot allocate argument '" + sig.name + "' (" +
                    llvm::Twine(count) + " elements)");
      if (sig.zeroScratch)
        buffer->assign(std::vector<double>(count, 0.0));
      else if (sig.isOutput)
        buffer->poison();
      else
        buffer->fillRandom(rng);
      args.push_back(ArgValue::of({buffer->data(), sig.dtype, sig.shape, {}}));
      buffers.push_back(std::move(buffer));
      continue;
    }
    double value = 0;
    std::string error;
    if (sig.kind == ArgKind::Int32) {
      // Planned values (row counts, program counts) come from the plan.
      int64_t v = sig.expectedInt.value_or(0);
      if (!sig.expectedInt &&
          failed((*kernel)->getParams().getInt(sig.name, v, error)))
        return fail(error);
      args.push_back(ArgValue::ofI32(int32_t(v)));
      value = double(v);
    } else {
      if (failed((*kernel)->getParams().getFloat(sig.name, value, error)))
        return fail(error);
      args.push_back(ArgValue::ofF32(float(value)));
      value = double(float(value));
    }
    scalars.push_back(value);
  }

  // Inputs the kernel derives from others (a derivation as costly as the
  // check itself only for checked runs).
  if ((*kernel)->getSpec().prepareInputs) {
    std::vector<std::vector<double>> inputs;
    for (const auto &buffer : buffers)
      inputs.push_back(buffer->toDoubles());
    (*kernel)->getSpec().prepareInputs((*kernel)->getParams(), inputs, scalars,
                                       check);
    size_t tensor = 0;
    for (const ArgSignature &sig : plan.args)
      if (sig.kind == ArgKind::Tensor) {
        if (!sig.isOutput)
          buffers[tensor]->assign(inputs[tensor]);
        ++tensor;
      }
  }

  // On cuda and hip the same (random or poisoned) bytes are copied to
  // device buffers, and the outputs copied back after the runs.
  std::vector<std::unique_ptr<DeviceBuffer>> deviceBuffers;
  std::string deviceDescription;
  if (device->kind != DeviceKind::Host) {
    auto described = describeDevice(*device);
    if (!described)
      return fail(llvm::toString(described.takeError()));
    deviceDescription = *described;
    size_t tensor = 0;
    for (ArgValue &arg : args) {
      if (arg.kind != ArgKind::Tensor)
        continue;
      const HostBuffer &host = *buffers[tensor++];
      auto copy = DeviceBuffer::allocate(*device, host.bytes());
      if (!copy)
        return fail(llvm::toString(copy.takeError()));
      if (llvm::Error err = (*copy)->copyFromHost(host.data(), host.bytes()))
        return fail(llvm::toString(std::move(err)));
      arg.tensor.data = (*copy)->data();
      deviceBuffers.push_back(std::move(*copy));
    }
  }

  RunInfo first;
  if (llvm::Error err = (*kernel)->run(args, first))
    return fail(llvm::toString(std::move(err)));
  std::vector<double> times{first.kernelMicroseconds};
  for (unsigned i = 1; i < repeat; ++i) {
    RunInfo again;
    if (llvm::Error err = (*kernel)->run(args, again))
      return fail(llvm::toString(std::move(err)));
    times.push_back(again.kernelMicroseconds);
  }
  std::sort(times.begin(), times.end());
  for (size_t i = 0; i < deviceBuffers.size(); ++i)
    if (llvm::Error err = deviceBuffers[i]->copyToHost(buffers[i]->data(),
                                                       buffers[i]->bytes()))
      return fail(llvm::toString(std::move(err)));

  // Reference on the inputs as the kernel saw them (already rounded); only
  // with --check: a float64 GEMM reference at 8192^3 takes hours, and
  // timing runs do not need it.
  std::vector<std::vector<double>> tensors;
  std::vector<std::vector<double>> magnitudes(buffers.size());
  if (check) {
    for (const auto &buffer : buffers)
      tensors.push_back(buffer->toDoubles());
    if ((*kernel)->getSpec().magnitudes)
      (*kernel)->getSpec().magnitudes((*kernel)->getParams(), tensors,
                                      scalars, magnitudes);
    (*kernel)->getSpec().reference((*kernel)->getParams(), tensors, scalars);
  }

  llvm::outs() << "kernel:  " << kernelName;
  for (const KernelParamSpec &p : (*kernel)->getSpec().params)
    llvm::outs() << " " << p.name << "=" << (*kernel)->getParams().get(p.name);
  llvm::outs() << " on " << deviceName << " (seed " << usedSeed << ")\n";
  if (!deviceDescription.empty())
    llvm::outs() << "device:  " << deviceDescription << "\n";
  llvm::outs() << "cache:   " << getCacheTierName(first.tier) << "\n";
  llvm::outs() << llvm::formatv("compile: {0:F1} ms\n",
                                first.compileMilliseconds);
  llvm::outs() << llvm::formatv("time:    {0:F1} us (median of {1})\n",
                                times[times.size() / 2], times.size());
  if (!check) {
    llvm::outs() << "outputs: not compared (--check compares them with the "
                    "float64 reference)\n";
    return finish(0);
  }
  bool ok = true;
  size_t tensorIndex = 0;
  for (const ArgSignature &sig : plan.args) {
    if (sig.kind != ArgKind::Tensor)
      continue;
    size_t i = tensorIndex++;
    if (!sig.isOutput)
      continue;
    Comparison c = compareToReference(*buffers[i], tensors[i], magnitudes[i]);
    ok &= c.passed();
    std::string l2;
    if (c.maxRelL2Error > 0)
      l2 = llvm::formatv(", L2 rel err {0:e2} (at most {1:e1}{2})",
                         c.relL2Error, c.maxRelL2Error,
                         c.withinL2() ? "" : ": TOO LARGE");
    llvm::outs() << llvm::formatv(
        "{0}: max abs err {1:e2}, max rel err {2:e2} (atol {3:e1}, rtol "
        "{4:e1}){9}: {5} ({6} of {7} mismatched, {8} non-finite)\n",
        sig.name, c.maxAbsError, c.maxRelError, c.atol, c.rtol,
        c.passed() ? "ok" : "MISMATCH", c.mismatches, c.count, c.nonFinite,
        l2);
  }
  return finish(ok ? 0 : 1);
}
