//===- cuda_driver_check.cpp - CudaDriver on a real NVIDIA GPU ------------===//
//
// Built and run on a GPU machine (needs only g++ and the driver):
//   scripts/device-cuda-check.sh
// Loads PTX through CudaDriver, runs it on fresh random inputs with the
// output poisoned, checks against a float64 reference, and times the kernel
// (GPU events) and the host cost of one launch call.
//
//===----------------------------------------------------------------------===//
#include "rocdsl/Runtime/CudaDriver.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>
#include <vector>

using mlir::rocdsl::CudaDriver;

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s axpy.ptx\n", argv[0]);
    return 2;
  }
  std::string why;
  CudaDriver *driver = CudaDriver::get(why);
  if (!driver) {
    std::printf("SKIP: %s\n", why.c_str());
    return 0;
  }
  std::ifstream file(argv[1]);
  std::stringstream ptx;
  ptx << file.rdbuf();
  std::string error;
  void *fn = nullptr;
  if (!driver->loadKernel(ptx.str(), "axpy", &fn, error)) {
    std::printf("FAIL: %s\n", error.c_str());
    return 1;
  }

  const int n = (1 << 26) + 3; // not a multiple of the block size
  std::mt19937_64 rng(std::random_device{}());
  std::normal_distribution<float> dist(0.f, 1.f);
  std::vector<float> x(n), y(n),
      out(n, std::numeric_limits<float>::quiet_NaN());
  for (int i = 0; i < n; ++i) {
    x[i] = dist(rng);
    y[i] = dist(rng);
  }
  float a = dist(rng);
  size_t bytes = size_t(n) * sizeof(float);
  uint64_t dx, dy, dout;
  if (!driver->allocate(&dx, bytes, error) ||
      !driver->allocate(&dy, bytes, error) ||
      !driver->allocate(&dout, bytes, error) ||
      !driver->copyToDevice(dx, x.data(), bytes, error) ||
      !driver->copyToDevice(dy, y.data(), bytes, error) ||
      !driver->copyToDevice(dout, out.data(), bytes, error)) {
    std::printf("FAIL: %s\n", error.c_str());
    return 1;
  }
  void *args[] = {&dx, &dy, &dout, &a, const_cast<int *>(&n)};
  unsigned block[3] = {256, 1, 1};
  unsigned grid[3] = {unsigned((n + 255) / 256), 1, 1};
  std::vector<float> kernelUs, launchUs;
  for (int rep = 0; rep < 30; ++rep) {
    float us = 0;
    auto start = std::chrono::steady_clock::now();
    if (!driver->launch(fn, grid, block, args, &us, error)) {
      std::printf("FAIL: %s\n", error.c_str());
      return 1;
    }
    launchUs.push_back(std::chrono::duration<float, std::micro>(
                           std::chrono::steady_clock::now() - start)
                           .count() -
                       us);
    kernelUs.push_back(us);
  }
  if (!driver->copyToHost(out.data(), dout, bytes, error)) {
    std::printf("FAIL: %s\n", error.c_str());
    return 1;
  }
  double maxErr = 0;
  size_t bad = 0;
  for (int i = 0; i < n; ++i) {
    double ref = double(a) * double(x[i]) + double(y[i]);
    double err = std::fabs(double(out[i]) - ref);
    if (!std::isfinite(out[i]) || err > 1e-5 + 1e-5 * std::fabs(ref))
      ++bad;
    maxErr = std::max(maxErr, err);
  }
  std::sort(kernelUs.begin(), kernelUs.end());
  std::sort(launchUs.begin(), launchUs.end());
  double medianUs = kernelUs[kernelUs.size() / 2];
  std::printf("axpy n=%d: %zu mismatches, max abs err %.3g\n", n, bad, maxErr);
  std::printf("kernel %.1f us (median of 30, GPU events), %.0f GB/s\n",
              medianUs, 3.0 * bytes / (medianUs * 1e3));
  std::printf("host time around one launch beyond the kernel: %.1f us (median; "
              "includes event record and synchronize)\n",
              launchUs[launchUs.size() / 2]);
  driver->free(dx);
  driver->free(dy);
  driver->free(dout);
  std::printf("%s\n", bad == 0 ? "PASS" : "FAIL");
  return bad == 0 ? 0 : 1;
}
