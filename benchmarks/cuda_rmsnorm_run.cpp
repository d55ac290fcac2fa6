//===- cuda_rmsnorm_run.cpp - ROCDSL RMSNorm PTX on an NVIDIA GPU ---------===//
//
// Built on the GPU machine with only g++ (no LLVM): reads the manifest that
// rocdsl-prepare-cuda-rmsnorm wrote, and for every case draws fresh random
// inputs, poisons the outputs with NaN, launches through CudaDriver, checks
// every element against a float64 reference (non-finite = failure), and
// times the kernel with GPU events (median of 100 after 10 warm-ups).
// Prints one CSV line per case: op,m,n,dtype,wdtype,mismatches,max_abs_err,us
// (op: fwd, addfwd = rmsnorm_add_fwd, bwd = rmsnorm_bwd + rmsnorm_bwd_dw,
// addbwd = rmsnorm_add_bwd + rmsnorm_bwd_dw; a backward's two kernels are
// timed together).
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
  /// Stores `v` rounded to nearest even in the dtype.
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
  void fillRandom(std::mt19937_64 &rng) {
    std::normal_distribution<double> dist(0.0, 1.0);
    for (size_t i = 0; i < count; ++i)
      set(i, dist(rng));
  }
  void poison() {
    for (size_t i = 0; i < count; ++i)
      set(i, std::numeric_limits<double>::quiet_NaN());
  }
};

[[noreturn]] static void fatal(const std::string &error) {
  std::printf("FAIL: %s\n", error.c_str());
  std::exit(1);
}

/// Device copies of host buffers, freed on scope exit.
struct DeviceBuffers {
  CudaDriver *driver;
  std::vector<Buffer *> host;
  std::vector<uint64_t> ptrs;
  DeviceBuffers(CudaDriver *driver, std::vector<Buffer *> buffers)
      : driver(driver), host(std::move(buffers)), ptrs(host.size()) {
    std::string error;
    for (size_t i = 0; i < host.size(); ++i)
      if (!driver->allocate(&ptrs[i], host[i]->bytes.size(), error) ||
          !driver->copyToDevice(ptrs[i], host[i]->bytes.data(),
                                host[i]->bytes.size(), error))
        fatal(error);
  }
  ~DeviceBuffers() {
    for (uint64_t p : ptrs)
      driver->free(p);
  }
  uint64_t *operator[](const Buffer &b) {
    for (size_t i = 0; i < host.size(); ++i)
      if (host[i] == &b)
        return &ptrs[i];
    fatal("buffer not on the device");
  }
  void copyBack(Buffer &b) {
    std::string error;
    if (!driver->copyToHost(b.bytes.data(), *(*this)[b], b.bytes.size(), error))
      fatal(error);
  }
};

/// Tolerances by dtype (one final rounding plus fp32 accumulation), as the
/// runtime's compareToReference.
struct Tolerance {
  double atol, rtol;
  explicit Tolerance(const std::string &dtype)
      : atol(dtype == "f32"   ? 1e-5
             : dtype == "f16" ? 1e-3
                              : 1e-2),
        rtol(dtype == "f32"   ? 1e-5
             : dtype == "f16" ? 2e-3
                              : 1e-2) {}
};

/// Counts the elements of `out` off `ref` (non-finite always), tracking the
/// largest finite error; `magnitude` (if any) scales the relative tolerance
/// of sums, whose rounding follows their terms.
static size_t mismatches(const Buffer &out, const std::vector<double> &ref,
                         double &maxErr,
                         const std::vector<double> *magnitude = nullptr) {
  Tolerance tol(out.dtype);
  size_t bad = 0;
  for (size_t i = 0; i < out.count; ++i) {
    double got = out.get(i), err = std::fabs(got - ref[i]);
    double scale = std::fabs(ref[i]);
    if (magnitude)
      scale = std::max(scale, (*magnitude)[i]);
    if (!std::isfinite(got) || err > tol.atol + tol.rtol * scale)
      ++bad;
    if (std::isfinite(got))
      maxErr = std::max(maxErr, err);
  }
  return bad;
}

/// Median GPU-event time of `launch` over 100 runs after 10 warm-ups.
template <typename Fn> static float medianMicroseconds(Fn launch) {
  std::vector<float> times;
  for (int i = 0; i < 110; ++i) {
    float us = launch();
    if (i >= 10)
      times.push_back(us);
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

static const float kEps = 1e-6f;

/// rmsnorm_fwd, or rmsnorm_add_fwd (`fused`): y, and residual_out = h =
/// x + residual (fp32 sum rounded to dtype; the value normalized), against
/// float64. Returns 1 when any element is wrong or non-finite.
static int runForward(CudaDriver *driver, void *fn, bool fused, long m, long n,
                      const std::string &dtype, const std::string &wdtype,
                      unsigned grid, unsigned block, std::mt19937_64 &rng) {
  size_t count = size_t(m) * n;
  Buffer x(dtype, count), residual(dtype, fused ? count : 0), w(wdtype, n),
      y(dtype, count), residualOut(dtype, fused ? count : 0);
  x.fillRandom(rng);
  residual.fillRandom(rng);
  w.fillRandom(rng);
  y.poison();
  residualOut.poison();
  std::vector<Buffer *> used = {&x, &w, &y};
  if (fused)
    used.insert(used.end(), {&residual, &residualOut});
  DeviceBuffers d(driver, used);
  int32_t rows = int32_t(m);
  float eps = kEps;
  std::vector<void *> args = {d[x]};
  if (fused)
    args.push_back(d[residual]);
  args.insert(args.end(), {d[w], d[y]});
  if (fused)
    args.push_back(d[residualOut]);
  args.insert(args.end(), {&rows, &eps});
  unsigned g[3] = {grid, 1, 1}, b[3] = {block, 1, 1};
  std::string error;
  auto once = [&]() -> float {
    float us = 0;
    if (!driver->launch(fn, g, b, args.data(), &us, error))
      fatal(error);
    return us;
  };
  once();
  d.copyBack(y);
  if (fused)
    d.copyBack(residualOut);

  // The h the kernel normalizes, then the plain forward of it in float64.
  std::vector<double> h(count), yRef(count);
  Buffer rounded(dtype, 1);
  for (size_t i = 0; i < count; ++i) {
    if (!fused) {
      h[i] = x.get(i);
      continue;
    }
    rounded.set(0, double(float(x.get(i)) + float(residual.get(i))));
    h[i] = rounded.get(0);
  }
  for (long r = 0; r < m; ++r) {
    double ss = 0;
    for (long c = 0; c < n; ++c)
      ss += h[r * n + c] * h[r * n + c];
    double inv = 1.0 / std::sqrt(ss / double(n) + double(eps));
    for (long c = 0; c < n; ++c)
      yRef[r * n + c] = h[r * n + c] * inv * w.get(c);
  }
  double maxErr = 0;
  size_t bad = mismatches(y, yRef, maxErr);
  if (fused)
    bad += mismatches(residualOut, h, maxErr);
  float us = medianMicroseconds(once);
  std::printf("%s,%ld,%ld,%s,%s,%zu,%.3g,%.2f\n", fused ? "addfwd" : "fwd", m,
              n, dtype.c_str(), wdtype.c_str(), bad, maxErr, us);
  return bad != 0;
}

/// rmsnorm_bwd (or rmsnorm_add_bwd, `fused`) then rmsnorm_bwd_dw; dx and
/// dw against float64. Returns 1 when any element is wrong or non-finite.
static int runBackward(CudaDriver *driver, void *step1, void *step2, bool fused,
                       long m, long n, const std::string &dtype,
                       const std::string &wdtype, unsigned grid,
                       unsigned programs, unsigned grid2, unsigned block,
                       std::mt19937_64 &rng) {
  size_t count = size_t(m) * n;
  Buffer x(dtype, count), w(wdtype, n), dy(dtype, count),
      dResidualOut(dtype, fused ? count : 0), dx(dtype, count),
      partial("f32", size_t(programs) * n), dw(wdtype, n);
  x.fillRandom(rng);
  w.fillRandom(rng);
  dy.fillRandom(rng);
  dResidualOut.fillRandom(rng);
  dx.poison();
  partial.poison();
  dw.poison();
  std::vector<Buffer *> used = {&x, &w, &dy, &dx, &partial, &dw};
  if (fused)
    used.push_back(&dResidualOut);
  DeviceBuffers d(driver, used);
  int32_t rows = int32_t(m), g = int32_t(programs);
  float eps = kEps;
  // (x or h, w, dy, [dresidual_out,] dx, dw_partial, M, eps)
  std::vector<void *> args1 = {d[x], d[w], d[dy]};
  if (fused)
    args1.push_back(d[dResidualOut]);
  args1.insert(args1.end(), {d[dx], d[partial], &rows, &eps});
  void *args2[] = {d[partial], d[dw], &g};
  unsigned g1[3] = {grid, 1, 1}, g2[3] = {grid2, 1, 1}, b[3] = {block, 1, 1};
  std::string error;
  auto both = [&]() -> float {
    float a = 0, c = 0;
    if (!driver->launch(step1, g1, b, args1.data(), &a, error) ||
        !driver->launch(step2, g2, b, args2, &c, error))
      fatal(error);
    return a + c;
  };
  both();
  d.copyBack(dx);
  d.copyBack(dw);

  std::vector<double> dxRef(count), dwRef(n, 0.0), dwMag(n, 0.0);
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
      dxRef[r * n + c] = rstd * (w.get(c) * dyv - xv * scale) +
                         (fused ? dResidualOut.get(r * n + c) : 0.0);
      dwRef[c] += dyv * xv * rstd;
      dwMag[c] += std::fabs(dyv * xv * rstd);
    }
  }
  double maxErr = 0, dwErr = 0;
  size_t bad = mismatches(dx, dxRef, maxErr);
  bad += mismatches(dw, dwRef, dwErr, &dwMag);
  float us = medianMicroseconds(both);
  std::printf("%s,%ld,%ld,%s,%s,%zu,%.3g,%.2f\n", fused ? "addbwd" : "bwd", m,
              n, dtype.c_str(), wdtype.c_str(), bad, maxErr, us);
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
  if (!manifest) {
    std::printf("FAIL: cannot read %s/manifest.txt\n", dir.c_str());
    return 1;
  }
  std::map<std::string, void *> kernels;
  std::mt19937_64 rng(std::random_device{}());
  int failures = 0;
  std::printf("op,m,n,dtype,wdtype,mismatches,max_abs_err,us\n");
  auto kernelIn = [&](const std::string &file, const char *name) -> void * {
    std::string key = file + ":" + name;
    if (!kernels.count(key)) {
      std::ifstream in(dir + "/" + file);
      std::stringstream ptx;
      ptx << in.rdbuf();
      void *fn = nullptr;
      if (!driver->loadKernel(ptx.str(), name, &fn, error))
        fatal(file + ": " + error);
      kernels[key] = fn;
    }
    return kernels[key];
  };
  std::string op, file, file2, dtype, wdtype;
  long m, n;
  unsigned grid, block, programs, grid2;
  while (manifest >> op) {
    bool fused = op == "addfwd" || op == "addbwd";
    if (op == "bwd" || op == "addbwd") {
      manifest >> file >> file2 >> m >> n >> dtype >> wdtype >> grid >>
          programs >> grid2 >> block;
      failures += runBackward(
          driver, kernelIn(file, fused ? "rmsnorm_add_bwd" : "rmsnorm_bwd"),
          kernelIn(file2, "rmsnorm_bwd_dw"), fused, m, n, dtype, wdtype, grid,
          programs, grid2, block, rng);
    } else if (op == "fwd" || op == "addfwd") {
      manifest >> file >> m >> n >> dtype >> wdtype >> grid >> block;
      failures += runForward(
          driver, kernelIn(file, fused ? "rmsnorm_add_fwd" : "rmsnorm_fwd"),
          fused, m, n, dtype, wdtype, grid, block, rng);
    } else {
      fatal("unknown manifest op '" + op + "'");
    }
  }
  std::printf("%s: %d failing case(s)\n", failures ? "FAIL" : "PASS", failures);
  return failures ? 1 : 0;
}
