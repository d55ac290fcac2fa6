//===- CudaDriver.h - the CUDA driver API, loaded at run time ---*- C++ -*-===//
//
// libcuda is opened with dlopen: ROCDSL neither links nor needs it where no
// NVIDIA GPU is used. Depends only on the C++ standard library, so the same
// file builds on a GPU machine that has no LLVM.
//
//===----------------------------------------------------------------------===//
#ifndef ROCDSL_RUNTIME_CUDADRIVER_H
#define ROCDSL_RUNTIME_CUDADRIVER_H

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace mlir::rocdsl {

class CudaDriver {
public:
  /// The driver, with device 0's primary context made current, or null;
  /// `why` then names what is missing (library, entry point, driver,
  /// device).
  static CudaDriver *get(std::string &why);

  int getDeviceCount() const { return deviceCount; }
  /// Whether `device` exists; otherwise `error` says how many do.
  bool checkDevice(int device, std::string &error) const;

  // Calls taking a device run in that device's primary context (the one
  // the CUDA runtime and PyTorch use) and then restore the caller's current
  // context. The calls without one are for device 0.

  /// Loads PTX (JIT-compiled by the driver) and finds `kernel` in it.
  bool loadKernel(int device, const std::string &ptx, const std::string &kernel,
                  void **function, std::string &error);
  /// Launches and waits; `args[i]` points to the i-th argument's value.
  /// `microseconds` receives the GPU-event time of the kernel.
  /// `sharedBytes`: dynamic shared memory (allowDynamicShared first when
  /// above the 48 KiB a block gets without opting in).
  bool launch(int device, void *function, const unsigned grid[3],
              const unsigned block[3], unsigned sharedBytes, void **args,
              float *microseconds, std::string &error);
  /// Enqueues on `stream` (a CUstream; null is the legacy default stream)
  /// and returns without waiting: how kernels join a framework's stream.
  bool enqueue(int device, void *function, const unsigned grid[3],
               const unsigned block[3], unsigned sharedBytes, void **args,
               void *stream, std::string &error);
  /// Lets `function` take `bytes` of dynamic shared memory per block
  /// (cuFuncSetAttribute, MAX_DYNAMIC_SHARED_SIZE_BYTES).
  bool allowDynamicShared(int device, void *function, unsigned bytes,
                          std::string &error);
  /// Streaming multiprocessors (0 if the driver cannot say).
  int multiprocessorCount(int device = 0);
  /// Compute capability as major * 10 + minor (90 on H100/H200; 0 if the
  /// driver cannot say).
  int computeCapability(int device = 0);
  bool allocate(int device, uint64_t *devicePtr, size_t bytes,
                std::string &error);
  bool free(int device, uint64_t devicePtr);
  bool copyToDevice(int device, uint64_t dst, const void *src, size_t bytes,
                    std::string &error);
  bool copyToHost(int device, void *dst, uint64_t src, size_t bytes,
                  std::string &error);
  /// Waits for `stream` (null: the whole context). `capturing` is set, and
  /// nothing waited for, while the stream is captured into a graph.
  bool synchronize(int device, void *stream, bool &capturing,
                   std::string &error);
  /// Whether `stream` is being captured into a graph (cuStreamIsCapturing);
  /// false, with `error`, where the driver cannot say.
  bool isCapturing(int device, void *stream, bool &capturing,
                   std::string &error);

  bool loadKernel(const std::string &ptx, const std::string &kernel,
                  void **function, std::string &error) {
    return loadKernel(0, ptx, kernel, function, error);
  }
  bool launch(void *function, const unsigned grid[3], const unsigned block[3],
              void **args, float *microseconds, std::string &error) {
    return launch(0, function, grid, block, 0, args, microseconds, error);
  }
  bool enqueue(void *function, const unsigned grid[3], const unsigned block[3],
               void **args, void *stream, std::string &error) {
    return enqueue(0, function, grid, block, 0, args, stream, error);
  }
  bool allocate(uint64_t *devicePtr, size_t bytes, std::string &error) {
    return allocate(0, devicePtr, bytes, error);
  }
  bool free(uint64_t devicePtr) { return free(0, devicePtr); }
  bool copyToDevice(uint64_t dst, const void *src, size_t bytes,
                    std::string &error) {
    return copyToDevice(0, dst, src, bytes, error);
  }
  bool copyToHost(void *dst, uint64_t src, size_t bytes, std::string &error) {
    return copyToHost(0, dst, src, bytes, error);
  }
  bool synchronize(void *stream, bool &capturing, std::string &error) {
    return synchronize(0, stream, capturing, error);
  }

  struct Api;

private:
  friend class CudaContextGuard;
  struct DeviceContext {
    int device = -1; // CUdevice, -1 until retained
    void *context = nullptr;
    void *startEvent = nullptr, *stopEvent = nullptr; // reused by launch()
  };
  CudaDriver() = default;
  /// Device `ordinal`'s context, retained on first use.
  DeviceContext *contextOf(int ordinal, std::string &error);
  Api *api = nullptr;
  int deviceCount = 0;
  std::mutex contextsMutex;
  std::vector<std::unique_ptr<DeviceContext>> contexts;
  bool check(int result, const char *what, std::string &error);
  /// cuLaunchKernel in the current context.
  bool launchOnCurrent(void *function, const unsigned grid[3],
                       const unsigned block[3], unsigned sharedBytes,
                       void **args, void *stream, std::string &error);
};

} // namespace mlir::rocdsl

#endif
