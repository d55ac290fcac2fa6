//===- cuda_rmsnorm_run.cpp - ROCDSL RMSNorm PTX on an NVIDIA GPU ---------===//
//
// Built on the GPU machine with only g++ (no LLVM): reads the manifest that
// rocdsl-prepare-cuda-rmsnorm wrote, and for every case draws fresh random
// inputs, poisons the output with NaN, launches through CudaDriver, checks
// every element against a float64 reference (non-finite = failure), and
// times the kernel with GPU events (median of 100 after 10 warm-ups).
// Prints one CSV line per case: op,m,n,dtype,wdtype,mismatches,max_abs_err,us
// (op: fwd, or bwd = rmsnorm_bwd + rmsnorm_bwd_dw, timed together).
//
//===----------------------------------------------------------------------===//
#include "rocdsl/Runtime/CudaDriver.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
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

/// Median GPU-event time of `launch` over 100 runs after 10 warm-ups.
template <typename Fn> static float medianMicroseconds(Fn launch) {
  std::vector<float> times;
  for (int i = 0; i < 110; ++i) {
    float us = launch();
    if (us < 0)
      return -1;
    if (i >= 10)
      times.push_back(us);
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

/// rmsnorm_bwd then rmsnorm_bwd_dw; dx and dw against float64. Returns 1
/// when any element is wrong or non-finite.
static int runBackward(CudaDriver *driver, void *step1, void *step2, long m,
                       long n, const std::string &dtype,
                       const std::string &wdtype, unsigned grid,
                       unsigned programs, unsigned grid2, unsigned block,
                       std::mt19937_64 &rng) {
  std::normal_distribution<double> dist(0.0, 1.0);
  std::string error;
  Buffer x(dtype, size_t(m) * n), w(wdtype, n), dy(dtype, size_t(m) * n),
      dx(dtype, size_t(m) * n), partial("f32", size_t(programs) * n),
      dw(wdtype, n);
  for (size_t i = 0; i < x.count; ++i)
    x.set(i, dist(rng));
  for (size_t i = 0; i < dy.count; ++i)
    dy.set(i, dist(rng));
  for (size_t i = 0; i < w.count; ++i)
    w.set(i, dist(rng));
  double nan = std::numeric_limits<double>::quiet_NaN();
  for (Buffer *b : {&dx, &partial, &dw})
    for (size_t i = 0; i < b->count; ++i)
      b->set(i, nan);
  uint64_t d[6];
  Buffer *host[6] = {&x, &w, &dy, &dx, &partial, &dw};
  for (int i = 0; i < 6; ++i)
    if (!driver->allocate(&d[i], host[i]->bytes.size(), error) ||
        !driver->copyToDevice(d[i], host[i]->bytes.data(),
                              host[i]->bytes.size(), error)) {
      std::printf("FAIL: %s\n", error.c_str());
      std::exit(1);
    }
  int32_t rows = int32_t(m), g = int32_t(programs);
  float eps = 1e-6f;
  void *args1[] = {&d[0], &d[1], &d[2], &d[3], &d[4], &rows, &eps};
  void *args2[] = {&d[4], &d[5], &g};
  unsigned g1[3] = {grid, 1, 1}, g2[3] = {grid2, 1, 1}, b[3] = {block, 1, 1};
  auto both = [&]() -> float {
    float a = 0, c = 0;
    if (!driver->launch(step1, g1, b, args1, &a, error) ||
        !driver->launch(step2, g2, b, args2, &c, error)) {
      std::printf("FAIL: %s\n", error.c_str());
      std::exit(1);
    }
    return a + c;
  };
  both();
  for (Buffer *out : {&dx, &dw})
    if (!driver->copyToHost(out->bytes.data(), d[out == &dx ? 3 : 5],
                            out->bytes.size(), error)) {
      std::printf("FAIL: %s\n", error.c_str());
      std::exit(1);
    }
  double atol = dtype == "f32" ? 1e-5 : dtype == "f16" ? 1e-3 : 1e-2;
  double rtol = dtype == "f32" ? 1e-5 : dtype == "f16" ? 2e-3 : 1e-2;
  double watol = wdtype == "f32" ? 1e-5 : wdtype == "f16" ? 1e-3 : 1e-2;
  double wrtol = wdtype == "f32" ? 1e-5 : wdtype == "f16" ? 2e-3 : 1e-2;
  std::vector<double> dwRef(n, 0.0), dwMag(n, 0.0);
  size_t bad = 0;
  double maxErr = 0;
  for (long r = 0; r < m; ++r) {
    double ss = 0, swdx = 0;
    for (long c = 0; c < n; ++c) {
      double xv = x.get(r * n + c);
      ss += xv * xv;
      swdx += w.get(c) * dy.get(r * n + c) * xv;
    }
    double rstd = 1.0 / std::sqrt(ss / double(n) + double(eps));
    double scale = rstd * rstd * swdx / double(n);
    for (long c = 0; c < n; ++c) {
      double xv = x.get(r * n + c), dyv = dy.get(r * n + c);
      double ref = rstd * (w.get(c) * dyv - xv * scale);
      double got = dx.get(r * n + c);
      double err = std::fabs(got - ref);
      if (!std::isfinite(got) || err > atol + rtol * std::fabs(ref))
        ++bad;
      if (std::isfinite(got))
        maxErr = std::max(maxErr, err);
      dwRef[c] += dyv * xv * rstd;
      dwMag[c] += std::fabs(dyv * xv * rstd);
    }
  }
  for (long c = 0; c < n; ++c) {
    double got = dw.get(c);
    double err = std::fabs(got - dwRef[c]);
    if (!std::isfinite(got) ||
        err > watol + wrtol * std::max(std::fabs(dwRef[c]), dwMag[c]))
      ++bad;
  }
  float us = medianMicroseconds(both);
  std::printf("bwd,%ld,%ld,%s,%s,%zu,%.3g,%.2f\n", m, n, dtype.c_str(),
              wdtype.c_str(), bad, maxErr, us);
  for (uint64_t p : d)
    driver->free(p);
  return bad != 0;
}

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
  std::printf("op,m,n,dtype,wdtype,mismatches,max_abs_err,us\n");
  auto kernelIn = [&](const std::string &file, const char *name) -> void * {
    if (!kernels.count(file)) {
      std::ifstream in(dir + "/" + file);
      std::stringstream ptx;
      ptx << in.rdbuf();
      void *fn = nullptr;
      if (!driver->loadKernel(ptx.str(), name, &fn, error)) {
        std::printf("FAIL %s: %s\n", file.c_str(), error.c_str());
        std::exit(1);
      }
      kernels[file] = fn;
    }
    return kernels[file];
  };
  std::string op, file, file2, dtype, wdtype;
  long m, n;
  unsigned grid, block, programs, grid2;
  while (manifest >> op) {
    if (op == "bwd") {
      manifest >> file >> file2 >> m >> n >> dtype >> wdtype >> grid >>
          programs >> grid2 >> block;
      failures += runBackward(driver, kernelIn(file, "rmsnorm_bwd"),
                              kernelIn(file2, "rmsnorm_bwd_dw"), m, n, dtype,
                              wdtype, grid, programs, grid2, block, rng);
      continue;
    }
    manifest >> file >> m >> n >> dtype >> wdtype >> grid >> block;
    kernelIn(file, "rmsnorm_fwd");
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
    std::printf("fwd,%ld,%ld,%s,%s,%zu,%.3g,%.2f\n", m, n, dtype.c_str(),
                wdtype.c_str(), bad, maxErr, times[times.size() / 2]);
    driver->free(dx);
    driver->free(dw);
    driver->free(dy);
  }
  std::printf("%s: %d failing case(s)\n", failures ? "FAIL" : "PASS", failures);
  return failures ? 1 : 0;
}
