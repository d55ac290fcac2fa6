//===- cuda_rmsnorm_run.cpp - ROCDSL RMSNorm PTX on an NVIDIA GPU ---------===//
//
// Built on the GPU machine with only g++ (no LLVM): reads the manifest that
// rocdsl-prepare-cuda-rmsnorm wrote, and for every case draws fresh random
// inputs, poisons the output with NaN, launches through CudaDriver, checks
// every element against a float64 reference (non-finite = failure), and
// times the kernel with GPU events (median of 100 after 10 warm-ups).
// Prints one CSV line per case: m,n,dtype,wdtype,mismatches,max_abs_err,us.
//
//===----------------------------------------------------------------------===//
#include "rocdsl/Runtime/CudaDriver.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

using mlir::rocdsl::CudaDriver;

static uint16_t toBF16(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  if (std::isnan(f))
    return 0x7fc0;
  bits += 0x7fff + ((bits >> 16) & 1);
  return uint16_t(bits >> 16);
}
static float fromBF16(uint16_t h) {
  uint32_t bits = uint32_t(h) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

/// Host copy of a tensor in its dtype, plus the values it holds as doubles.
struct Buffer {
  std::string dtype;
  std::vector<uint8_t> bytes;
  size_t count;
  Buffer(std::string dtype, size_t count)
      : dtype(std::move(dtype)), count(count) {
    bytes.resize(count * (this->dtype == "f32" ? 4 : 2));
  }
  void set(size_t i, double v) {
    if (dtype == "f32") {
      float f = float(v);
      std::memcpy(&bytes[4 * i], &f, 4);
    } else if (dtype == "f16") {
      _Float16 h = _Float16(v);
      std::memcpy(&bytes[2 * i], &h, 2);
    } else {
      uint16_t h = toBF16(float(v));
      std::memcpy(&bytes[2 * i], &h, 2);
    }
  }
  double get(size_t i) const {
    if (dtype == "f32") {
      float f;
      std::memcpy(&f, &bytes[4 * i], 4);
      return f;
    }
    if (dtype == "f16") {
      _Float16 h;
      std::memcpy(&h, &bytes[2 * i], 2);
      return double(h);
    }
    uint16_t h;
    std::memcpy(&h, &bytes[2 * i], 2);
    return fromBF16(h);
  }
};

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s DIR (with manifest.txt)\n", argv[0]);
    return 2;
  }
  std::string dir = argv[1], why, error;
  CudaDriver *driver = CudaDriver::get(why);
  if (!driver) {
    std::printf("SKIP: %s\n", why.c_str());
    return 0;
  }
  std::ifstream manifest(dir + "/manifest.txt");
  std::map<std::string, void *> kernels;
  std::mt19937_64 rng(std::random_device{}());
  std::normal_distribution<double> dist(0.0, 1.0);
  int failures = 0;
  std::printf("m,n,dtype,wdtype,mismatches,max_abs_err,us\n");
  std::string file, dtype, wdtype;
  long m, n;
  unsigned grid, block;
  while (manifest >> file >> m >> n >> dtype >> wdtype >> grid >> block) {
    if (!kernels.count(file)) {
      std::ifstream in(dir + "/" + file);
      std::stringstream ptx;
      ptx << in.rdbuf();
      void *fn = nullptr;
      if (!driver->loadKernel(ptx.str(), "rmsnorm_fwd", &fn, error)) {
        std::printf("FAIL %s: %s\n", file.c_str(), error.c_str());
        return 1;
      }
      kernels[file] = fn;
    }
    Buffer x(dtype, size_t(m) * n), w(wdtype, n), y(dtype, size_t(m) * n);
    for (size_t i = 0; i < x.count; ++i)
      x.set(i, dist(rng));
    for (size_t i = 0; i < w.count; ++i)
      w.set(i, dist(rng));
    for (size_t i = 0; i < y.count; ++i)
      y.set(i, std::numeric_limits<double>::quiet_NaN());
    uint64_t dx, dw, dy;
    if (!driver->allocate(&dx, x.bytes.size(), error) ||
        !driver->allocate(&dw, w.bytes.size(), error) ||
        !driver->allocate(&dy, y.bytes.size(), error) ||
        !driver->copyToDevice(dx, x.bytes.data(), x.bytes.size(), error) ||
        !driver->copyToDevice(dw, w.bytes.data(), w.bytes.size(), error) ||
        !driver->copyToDevice(dy, y.bytes.data(), y.bytes.size(), error)) {
      std::printf("FAIL: %s\n", error.c_str());
      return 1;
    }
    int32_t rows = int32_t(m);
    float eps = 1e-6f;
    void *args[] = {&dx, &dw, &dy, &rows, &eps};
    unsigned g[3] = {grid, 1, 1}, b[3] = {block, 1, 1};
    float us = 0;
    if (!driver->launch(kernels[file], g, b, args, &us, error) ||
        !driver->copyToHost(y.bytes.data(), dy, y.bytes.size(), error)) {
      std::printf("FAIL: %s\n", error.c_str());
      return 1;
    }
    // float64 reference on the inputs as the kernel saw them.
    double atol = dtype == "f32" ? 1e-5 : dtype == "f16" ? 1e-3 : 1e-2;
    double rtol = dtype == "f32" ? 1e-5 : dtype == "f16" ? 2e-3 : 1e-2;
    size_t bad = 0;
    double maxErr = 0;
    for (long r = 0; r < m; ++r) {
      double ss = 0;
      for (long c = 0; c < n; ++c)
        ss += x.get(r * n + c) * x.get(r * n + c);
      double inv = 1.0 / std::sqrt(ss / double(n) + double(eps));
      for (long c = 0; c < n; ++c) {
        double ref = x.get(r * n + c) * inv * w.get(c);
        double got = y.get(r * n + c);
        double err = std::fabs(got - ref);
        if (!std::isfinite(got) || err > atol + rtol * std::fabs(ref))
          ++bad;
        if (std::isfinite(got))
          maxErr = std::max(maxErr, err);
      }
    }
    failures += bad != 0;
    std::vector<float> times;
    for (int i = 0; i < 110; ++i) {
      if (!driver->launch(kernels[file], g, b, args, &us, error)) {
        std::printf("FAIL: %s\n", error.c_str());
        return 1;
      }
      if (i >= 10)
        times.push_back(us);
    }
    std::sort(times.begin(), times.end());
    std::printf("%ld,%ld,%s,%s,%zu,%.3g,%.2f\n", m, n, dtype.c_str(),
                wdtype.c_str(), bad, maxErr, times[times.size() / 2]);
    driver->free(dx);
    driver->free(dw);
    driver->free(dy);
  }
  std::printf("%s: %d failing case(s)\n", failures ? "FAIL" : "PASS", failures);
  return failures ? 1 : 0;
}
