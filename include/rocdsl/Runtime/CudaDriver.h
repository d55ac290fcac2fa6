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
#include <string>

namespace mlir::rocdsl {

class CudaDriver {
public:
  /// The driver with a current context on device 0, or null; `why` then
  /// names what is missing (library, entry point, driver, device).
  static CudaDriver *get(std::string &why);

  /// Loads PTX (JIT-compiled by the driver) and finds `kernel` in it.
  bool loadKernel(const std::string &ptx, const std::string &kernel,
                  void **function, std::string &error);
  /// Launches and waits; `args[i]` points to the i-th argument's value.
  /// `microseconds` receives the GPU-event time of the kernel.
  bool launch(void *function, const unsigned grid[3], const unsigned block[3],
              void **args, float *microseconds, std::string &error);
  /// Enqueues on `stream` (a CUstream; null is the legacy default stream)
  /// and returns without waiting: how kernels join a framework's stream.
  bool enqueue(void *function, const unsigned grid[3], const unsigned block[3],
               void **args, void *stream, std::string &error);

  /// Streaming multiprocessors of device 0 (0 if the driver cannot say).
  int multiprocessorCount();

  bool allocate(uint64_t *devicePtr, size_t bytes, std::string &error);
  bool free(uint64_t devicePtr);
  bool copyToDevice(uint64_t dst, const void *src, size_t bytes,
                    std::string &error);
  bool copyToHost(void *dst, uint64_t src, size_t bytes, std::string &error);
  /// Waits for `stream` (null: the whole context). `capturing` is set, and
  /// nothing waited for, while the stream is captured into a graph.
  bool synchronize(void *stream, bool &capturing, std::string &error);

  struct Api;

private:
  CudaDriver() = default;
  Api *api = nullptr;
  void *context = nullptr;
  int device = 0;
  void *startEvent = nullptr, *stopEvent = nullptr; // reused by launch()
  bool check(int result, const char *what, std::string &error);
};

} // namespace mlir::rocdsl

#endif
