//===- API.h - librocdsl's interface for bindings ---------------*- C++ -*-===//
//
// What language bindings (the Python extension) use: kernels by name or by
// rocdsl IR text, their argument signatures, and launches through the
// runtime's launcher cache. Depends only on the C++ standard library, so a
// binding compiles on a machine that has no LLVM or MLIR headers and links
// librocdsl.so (which carries LLVM/MLIR inside when built with
// ROCDSL_STATIC_LLVM). Errors are returned, never thrown.
//
//===----------------------------------------------------------------------===//
#ifndef ROCDSL_API_H
#define ROCDSL_API_H

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace mlir::rocdsl::api {

/// Element types, numbered like the DSL's (dsl::DType).
enum class DType : int { F32, F16, BF16, I32, I1 };
enum class ArgKind : int { Tensor, Int32, Float32 };

/// "f32", "f16", "bf16", "i32"; false for anything else.
bool parseDType(const std::string &name, DType &dtype);
const char *dtypeName(DType dtype);

constexpr int kMaxRank = 8;

/// One launch argument. Tensors: `data` is a host pointer (host device) or a
/// device pointer (cuda, hip); shape/strides (in elements) are checked for
/// built-in kernels; `rank` -1 passes a bare pointer (source kernels).
struct Arg {
  ArgKind kind = ArgKind::Tensor;
  DType dtype = DType::F32;
  void *data = nullptr;
  int rank = -1;
  int64_t shape[kMaxRank] = {};
  int64_t strides[kMaxRank] = {};
  int32_t i32 = 0;
  float f32 = 0;
};

/// What a kernel expects in one argument position.
struct ArgInfo {
  std::string name;
  ArgKind kind = ArgKind::Tensor;
  DType dtype = DType::F32;
  std::vector<int64_t> shape; // built-in kernels only
  bool isOutput = false;
  bool hasExpectedInt = false; // a scalar the launch was planned for
  int64_t expectedInt = 0;
};

struct LaunchInfo {
  const char *tier = "miss"; // cache tier: miss, memory or disk
  double compileMilliseconds = 0;
  double kernelMicroseconds = 0; // synchronous launches only
  uintptr_t launcher = 0;        // identity of the compiled launcher
};

/// What a caller may ask of one launch beyond its arguments.
struct LaunchOptions {
  /// Scan the outputs for NaN/Inf after the launch and fail naming the
  /// first bad element: 1 yes, 0 no, -1 as ROCDSL_CHECK_FINITE says.
  int checkFinite = -1;
};

class Kernel {
public:
  /// A built-in kernel specialized by NAME=VALUE definitions.
  static std::unique_ptr<Kernel>
  builtin(const std::string &name, const std::vector<std::string> &definitions,
          const std::string &device, const std::string &chip,
          std::string &error);
  /// The rocdsl.func named `kernel` in rocdsl IR text.
  static std::unique_ptr<Kernel> fromSource(const std::string &source,
                                            const std::string &kernel,
                                            const std::string &device,
                                            const std::string &chip,
                                            std::string &error);
  ~Kernel();

  const std::string &name() const;
  const std::vector<ArgInfo> &args() const;
  /// The planned grid of a built-in kernel; {0, 0, 0} for source kernels,
  /// which are launched on a grid the caller gives.
  std::array<uint32_t, 3> grid() const;
  /// The specialization's parameter values (built-in kernels).
  std::vector<std::pair<std::string, std::string>> params() const;

  /// Launches with `args` on `grid` (null: the planned grid). With `wait`
  /// the launch finishes and is timed before this returns; otherwise it is
  /// queued on `stream` (a CUstream on cuda, null: the default stream).
  bool launch(const Arg *args, size_t count, const uint32_t *grid,
              void *stream, bool wait, LaunchInfo &info, std::string &error,
              const LaunchOptions &options = LaunchOptions());

private:
  Kernel();
  struct Impl;
  std::unique_ptr<Impl> impl;
};

/// Memory on one device ("hip", "hip:1", "cuda:0", "host"), freed with the
/// object; kernels take data() as a pointer. Copies are explicit calls.
class DeviceBuffer {
public:
  static std::unique_ptr<DeviceBuffer> allocate(const std::string &device,
                                                size_t bytes,
                                                std::string &error);
  ~DeviceBuffer();
  void *data() const;
  size_t size() const;
  /// The device, normalized ("hip" for "hip:0").
  const std::string &device() const;
  bool copyFromHost(const void *src, size_t bytes, size_t offset,
                    std::string &error);
  bool copyToHost(void *dst, size_t bytes, size_t offset,
                  std::string &error) const;

private:
  DeviceBuffer();
  struct Impl;
  std::unique_ptr<Impl> impl;
};

/// One kernel's resources in a code object (AMD chips).
struct KernelStats {
  std::string name;
  unsigned vgprs = 0, agprs = 0, sgprs = 0, vgprSpills = 0, sgprSpills = 0;
  unsigned scratchBytes = 0, ldsBytes = 0;
  unsigned wavesPerSimd = 0, maxWorkgroupSize = 0, wavefrontSize = 0;
};

/// Everything compiling for one chip produced (no GPU needed).
struct Compiled {
  std::string chip;
  std::string mlir, lowered, llvmIR, assembly;
  std::string binary; // HSA code object (AMD chips); empty for NVIDIA
  std::vector<KernelStats> stats;
  /// "wide", "split64" or "padded": the store form the hazard check kept.
  std::string storeForm;
  /// AMD chips: LLVM's machine-scheduler strategy the code was generated
  /// with ("" for its default; ROCDSL_AMD_SCHEDULE in docs/runtime.md).
  std::string schedule;
  /// Wide-store hazard findings of the final code (one line each), and of
  /// store forms rejected before it.
  std::vector<std::string> hazards, rejectedHazards;
};
/// A built-in kernel specialized by NAME=VALUE definitions, compiled for
/// `chip` (gfx942, gfx950, sm_90, sm_90a).
bool compileBuiltin(const std::string &name,
                    const std::vector<std::string> &definitions,
                    const std::string &chip, Compiled &out,
                    std::string &error);
/// The rocdsl.func `kernel` of rocdsl IR text, compiled for `chip`.
bool compileSource(const std::string &source, const std::string &kernel,
                   const std::string &chip, Compiled &out,
                   std::string &error);

struct ParamInfo {
  std::string name, defaultValue, help;
};
struct KernelInfo {
  std::string name, summary;
  std::vector<ParamInfo> params;
};
std::vector<KernelInfo> listKernels();

/// Whether `device` (host, hip, hip:N, cuda, cuda:N) can run kernels;
/// `why` says what is missing.
bool deviceAvailable(const std::string &device, std::string &why);
/// Whether work queued on `stream` (a CUstream of a cuda device, a
/// hipStream_t of a hip device) is being captured into a graph instead of
/// run. False, with `error`, where ROCDSL cannot tell: the host, or a
/// driver without the query.
bool streamIsCapturing(const std::string &device, void *stream,
                       bool &capturing, std::string &error);
/// A message through ROCDSL's log (stderr, filtered by ROCDSL_LOG): level
/// "warning", "info" or "debug"; false for another level.
bool logMessage(const std::string &level, const std::string &message);
/// Bytes a kernel can address in one tensor argument (its offsets are
/// 32-bit); launches refuse larger tensors.
int64_t maxTensorBytes();
/// ROCDSL's cache directory as the environment names it (ROCDSL_CACHE_DIR,
/// else $XDG_CACHE_HOME/rocdsl, else $HOME/.cache/rocdsl; absolute), or ""
/// when none of them is set. Compiled kernels live there, and whatever else
/// ROCDSL builds once per environment.
std::string cacheDirectory();
/// "hip:1" for "hip:1", "hip" for "hip:0": the canonical spelling, or ""
/// (and `error`) for a name that is no device.
std::string normalizeDevice(const std::string &device, std::string &error);
/// One line naming the device (name, chip, library), or "" and `error`.
std::string describeDevice(const std::string &device, std::string &error);
/// Devices of a kind ("hip", "cuda") this process can see; 0 if none.
int deviceCount(const std::string &kind);
/// Lanes per wave for layouts on `device`; 0 for an unknown device.
unsigned waveSize(const std::string &device);
/// Lanes one workgroup (thread block) may hold on `device`'s chip; 0 for
/// an unknown device.
unsigned maxWorkgroupLanes(const std::string &device);
/// The default #rocdsl.blocked layout for a tile, as attribute text;
/// `minPerLane`: the widest explicit vec of the tile's accesses.
std::string defaultLayout(const std::vector<int64_t> &shape,
                          unsigned elementBits, unsigned numWarps,
                          unsigned waveSize, unsigned minPerLane = 1);
/// Launcher-cache counters of this process.
struct CacheStats {
  uint64_t memoryHits = 0, diskHits = 0, compiles = 0;
};
CacheStats cacheStats();
const char *version();

} // namespace mlir::rocdsl::api

#endif
