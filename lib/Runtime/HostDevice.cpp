//===- HostDevice.cpp - run rocdsl kernels on the CPU ---------------------===//
//
// Program instances are independent by the programming model, so they are
// spread over the machine's cores; each core runs whole programs.
//
//===----------------------------------------------------------------------===//
#include "Devices.h"

#include "rocdsl/Pipelines/Pipelines.h"
#include "rocdsl/Runtime/HostJIT.h"

#include "mlir/Pass/PassManager.h"

#include <atomic>
#include <chrono>
#include <thread>

using namespace mlir;
using namespace mlir::rocdsl;

namespace {

class HostLauncher : public Launcher {
public:
  HostLauncher(std::unique_ptr<HostObject> object, PackedKernelFn fn)
      : object(std::move(object)), fn(fn) {}

  llvm::Error launch(llvm::ArrayRef<void *> args, LaunchGrid grid) override {
    auto start = std::chrono::steady_clock::now();
    uint64_t programs = uint64_t(grid.x) * grid.y * grid.z;
    std::atomic<uint64_t> next{0};
    auto worker = [&] {
      SmallVector<void *> argv(args.begin(), args.end());
      int32_t ids[6] = {
          0, 0, 0, int32_t(grid.x), int32_t(grid.y), int32_t(grid.z)};
      for (int32_t &id : ids)
        argv.push_back(&id);
      for (uint64_t p = next++; p < programs; p = next++) {
        ids[0] = int32_t(p % grid.x);
        ids[1] = int32_t((p / grid.x) % grid.y);
        ids[2] = int32_t(p / (uint64_t(grid.x) * grid.y));
        fn(argv.data());
      }
    };
    // hardware_concurrency() reads /sys on every call (microseconds): ask
    // once per process.
    static const unsigned threads =
        std::max(1u, std::thread::hardware_concurrency());
    if (programs < 64 || threads == 1) {
      worker();
    } else {
      std::vector<std::thread> pool;
      for (unsigned t = 1; t < threads; ++t)
        pool.emplace_back(worker);
      worker();
      for (std::thread &t : pool)
        t.join();
    }
    lastMicroseconds = std::chrono::duration<double, std::micro>(
                           std::chrono::steady_clock::now() - start)
                           .count();
    return llvm::Error::success();
  }

  double lastLaunchMicroseconds() const override { return lastMicroseconds; }
  // Written by concurrent launches of this shared launcher.
  DeviceKind getDevice() const override { return DeviceKind::Host; }

private:
  std::unique_ptr<HostObject> object; // keeps the code mapped
  PackedKernelFn fn;
  std::atomic<double> lastMicroseconds{0};
};

} // namespace

bool mlir::rocdsl::isHostAvailable(std::string &) { return true; }

llvm::Expected<std::string>
mlir::rocdsl::compileForHost(ModuleOp module, std::string *dumpLowered) {
  PassManager pm(module.getContext());
  buildRocDSLToHostPipeline(pm);
  if (failed(pm.run(module)))
    return llvm::createStringError("lowering to the host target failed");
  if (dumpLowered) {
    llvm::raw_string_ostream os(*dumpLowered);
    module.print(os);
  }
  return compileHostObject(module);
}

llvm::Expected<std::shared_ptr<Launcher>>
mlir::rocdsl::loadOnHost(llvm::StringRef payload, llvm::StringRef kernel) {
  auto object = HostObject::load(payload);
  if (!object)
    return object.takeError();
  auto fn = (*object)->lookup(kernel);
  if (!fn)
    return fn.takeError();
  return std::make_shared<HostLauncher>(std::move(*object), *fn);
}
