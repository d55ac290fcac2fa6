//===- ConcurrencyTest.cpp - the runtime under many threads at once -------===//
//
// Threads that share nothing but the runtime launch built-in and source
// kernels of several specializations at once, starting together so that
// the first compiles race: each specialization compiles once, every thread
// gets the same launcher for it, and every result matches float64. (Python
// threads on different streams reach the same code through the extension,
// which releases the GIL around launches.)
//
//===----------------------------------------------------------------------===//
#include "RMSNormHostSupport.h"

#include "rocdsl/Runtime/SourceKernel.h"

#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <map>
#include <mutex>
#include <set>
#include <thread>

using namespace mlir;
using namespace mlir::rocdsl;
using namespace mlir::rocdsl::testing;

namespace {

const char *const kScaleSource = R"(
#blk = #rocdsl.blocked<sizePerThread = [4], threadsPerWarp = [64], warpsPerCTA = [1], order = [0]>
rocdsl.func @scale(%x: !rocdsl.ptr<f32>, %out: !rocdsl.ptr<f32>, %s: f32) attributes {num_warps = 1 : i32} {
  %c0 = arith.constant 0 : i32
  %v = rocdsl.load %x[%c0] : !rocdsl.ptr<f32> -> tensor<256xf32, #blk>
  %b = rocdsl.splat %s : f32 -> tensor<256xf32, #blk>
  %r = arith.mulf %v, %b : tensor<256xf32, #blk>
  rocdsl.store %r, %out[%c0] : tensor<256xf32, #blk>, !rocdsl.ptr<f32>
  rocdsl.return
}
)";

TEST(ConcurrencyTest, ManyThreadsShareCompilesAndLaunchers) {
  // A fresh specialization per run (N), so the first compiles really race.
  static std::atomic<int> salt{0};
  const int64_t n = 136 + 8 * (::getpid() % 64) + 8 * salt++;
  const std::vector<std::pair<const char *, std::vector<std::string>>> kinds =
      {{"rmsnorm_fwd", {"N=" + std::to_string(n), "M=3", "dtype=f32"}},
       {"rmsnorm_fwd", {"N=" + std::to_string(n), "M=3", "dtype=bf16"}},
       {"rmsnorm_add_fwd", {"N=" + std::to_string(n), "M=2", "dtype=f16"}}};
  constexpr int kThreads = 8, kIterations = 6;
  const uint64_t compilesBefore = Runtime::get().getStats().compiles;

  std::mutex mutex;
  std::map<std::string, std::set<const Launcher *>> launchers;
  std::vector<std::string> failures;
  std::atomic<int> launches{0};
  // All threads start together (C++17 has no std::barrier).
  std::condition_variable ready;
  int waiting = 0;
  auto arriveAndWait = [&] {
    std::unique_lock<std::mutex> lock(mutex);
    if (++waiting == kThreads)
      ready.notify_all();
    else
      ready.wait(lock, [&] { return waiting == kThreads; });
  };
  auto fail = [&](const std::string &what) {
    std::lock_guard<std::mutex> lock(mutex);
    failures.push_back(what);
  };
  auto worker = [&](int id) {
    std::mt19937_64 rng(1000 + id);
    arriveAndWait();
    for (int it = 0; it < kIterations; ++it) {
      size_t pick = (id + it) % (kinds.size() + 1);
      if (pick == kinds.size()) {
        // The source kernel: out = x * s.
        auto k = SourceKernel::create(kScaleSource, "scale", DeviceKind::Host);
        if (!k) {
          fail(llvm::toString(k.takeError()));
          continue;
        }
        std::vector<float> x(256), out(256, -1.0f);
        for (float &v : x)
          v = float(std::normal_distribution<double>(0, 1)(rng));
        float s = 0.5f + float(id);
        std::vector<ArgValue> args = {
            ArgValue::of({x.data(), dsl::DType::F32, {256}, {}}),
            ArgValue::of({out.data(), dsl::DType::F32, {256}, {}}),
            ArgValue::ofF32(s)};
        RunInfo info;
        if (llvm::Error err =
                (*k)->run(args, LaunchGrid{}, nullptr, true, info)) {
          fail(llvm::toString(std::move(err)));
          continue;
        }
        for (int i = 0; i < 256; ++i)
          if (out[i] != x[i] * s) {
            fail("scale: thread " + std::to_string(id) + " element " +
                 std::to_string(i));
            break;
          }
        std::lock_guard<std::mutex> lock(mutex);
        launchers["scale"].insert(info.launcher);
        ++launches;
        continue;
      }
      const auto &[name, defs] = kinds[pick];
      auto kernel = BuiltinKernel::create(name, defs, DeviceKind::Host);
      if (!kernel) {
        fail(llvm::toString(kernel.takeError()));
        continue;
      }
      int64_t m = (*kernel)->getPlan().args[0].shape[0];
      HostLaunch launch((*kernel)->getPlan(), rng);
      RunInfo info;
      if (llvm::Error err = (*kernel)->run(launch.args, info)) {
        fail(llvm::toString(std::move(err)));
        continue;
      }
      std::vector<std::vector<double>> tensors = launch.toDoubles();
      (*kernel)->getSpec().reference((*kernel)->getParams(), tensors,
                                     {double(m), double(kTestEps)});
      size_t t = 0;
      for (const ArgSignature &sig : (*kernel)->getPlan().args) {
        if (sig.kind != ArgKind::Tensor)
          continue;
        const std::vector<double> &ref = tensors[t++];
        if (sig.isOutput && !compareToReference(launch[sig.name], ref).passed())
          fail(std::string(name) + " " + defs[2] + " " + sig.name +
               ": mismatch in thread " + std::to_string(id));
      }
      std::lock_guard<std::mutex> lock(mutex);
      launchers[std::string(name) + defs[2]].insert(info.launcher);
      ++launches;
    }
  };
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i)
    threads.emplace_back(worker, i);
  for (std::thread &t : threads)
    t.join();

  EXPECT_TRUE(failures.empty()) << llvm::join(failures, "\n");
  EXPECT_EQ(launches.load(), kThreads * kIterations);
  // Each specialization: one launcher object for every thread ...
  EXPECT_EQ(launchers.size(), kinds.size() + 1);
  for (const auto &[key, set] : launchers)
    EXPECT_EQ(set.size(), 1u) << key;
  // ... compiled at most once (the source kernel may already be cached
  // from an earlier test in this process, the built-ins are new).
  uint64_t compiles = Runtime::get().getStats().compiles - compilesBefore;
  EXPECT_GE(compiles, kinds.size());
  EXPECT_LE(compiles, kinds.size() + 1);
}

} // namespace
