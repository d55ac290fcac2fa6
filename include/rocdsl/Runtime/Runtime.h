//===- Runtime.h - devices, compiled launchers and their cache --*- C++ -*-===//
//
// Runtime::getLauncher returns a compiled kernel for one device from, in
// order: this process's memory tier (the same Launcher object every time),
// the disk tier (ROCDSL_CACHE_DIR, see DiskCache.h), or a fresh compile.
//
// Environment:
//   ROCDSL_CACHE_DIR, ROCDSL_CACHE_DISABLE  disk tier (DiskCache.h)
//   ROCDSL_DUMP_DIR   on every compile, write <kernel>-<digest>.{rocdsl.mlir,
//                     lowered.mlir,s|ptx|o} there: the kernel IR, the IR after the
//                     pipeline, and the AMDGCN assembly, PTX or host object
//   ROCDSL_LOG        info: one line per compile with its time; debug: also
//                     every cache lookup (Log.h)
//
//===----------------------------------------------------------------------===//
#ifndef ROCDSL_RUNTIME_RUNTIME_H
#define ROCDSL_RUNTIME_RUNTIME_H

#include "rocdsl/Runtime/CacheKey.h"
#include "rocdsl/Runtime/DiskCache.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

namespace mlir::rocdsl {

enum class DeviceKind { Host, HIP, CUDA };
llvm::StringRef toString(DeviceKind kind);
std::optional<DeviceKind> parseDeviceKind(llvm::StringRef name);

/// One device: its kind and its ordinal among the devices of that kind
/// (the host has only ordinal 0). Written "hip", "hip:1", "cuda:0", "host".
struct DeviceId {
  DeviceKind kind = DeviceKind::Host;
  int ordinal = 0;
  DeviceId() = default;
  DeviceId(DeviceKind kind, int ordinal = 0) : kind(kind), ordinal(ordinal) {}
  /// "hip" for ordinal 0, "hip:1" otherwise.
  std::string str() const;
  bool operator==(const DeviceId &other) const {
    return kind == other.kind && ordinal == other.ordinal;
  }
};
/// "host", "hip", "hip:N", "cuda", "cuda:N" (N a non-negative integer);
/// nullopt for anything else, including "host:1".
std::optional<DeviceId> parseDeviceId(llvm::StringRef name);

struct LaunchGrid {
  uint32_t x = 1, y = 1, z = 1;
};

/// One compiled kernel, loaded on one device.
class Launcher {
public:
  virtual ~Launcher();
  /// `args[i]` points to the value of the i-th kernel argument: for a
  /// pointer argument, to the (device) pointer.
  virtual llvm::Error launch(llvm::ArrayRef<void *> args, LaunchGrid grid) = 0;
  /// Queues the launch on `stream` (a CUstream for cuda) and returns without
  /// waiting or timing. Devices without streams run it synchronously.
  virtual llvm::Error enqueue(llvm::ArrayRef<void *> args, LaunchGrid grid,
                              void *stream) {
    (void)stream;
    return launch(args, grid);
  }
  /// Device time of the last launch in microseconds, where the device can
  /// measure it (host: wall time of the launch).
  virtual double lastLaunchMicroseconds() const = 0;
  virtual DeviceKind getDevice() const = 0;
  /// Waits for the work queued on `stream` (null: everything this launcher
  /// queued). `capturing` is set, and nothing waited for, when the stream
  /// is being captured into a graph. Devices that run synchronously have
  /// nothing to wait for.
  virtual llvm::Error synchronize(void *stream, bool &capturing) {
    (void)stream;
    capturing = false;
    return llvm::Error::success();
  }
  /// Copies `bytes` of device memory at `device` to `host`, after
  /// synchronize. Not needed on the host (its memory is host memory); the
  /// default is an error naming the device.
  virtual llvm::Error readBack(void *host, const void *device, size_t bytes);
};

/// What to compile, and everything the compiled code depends on. Immutable:
/// the key's canonical form, which the memory tier looks up on every launch,
/// is computed once here and can never disagree with the key.
class CompileRequest {
public:
  using BuildFn =
      std::function<OwningOpRef<ModuleOp>(MLIRContext *, std::string &error)>;
  CompileRequest() = default;
  CompileRequest(std::string kernelName, BuildFn build, CacheKey key)
      : kernelName(std::move(kernelName)), build(std::move(build)),
        key(std::move(key)), canonicalKey(this->key.canonicalForm()) {}

  const std::string &getKernelName() const { return kernelName; }
  /// Builds the rocdsl module; called only when no tier has the kernel.
  const BuildFn &getBuild() const { return build; }
  const CacheKey &getKey() const { return key; }
  const std::string &getCanonicalKey() const { return canonicalKey; }
  /// The same kernel under another key.
  CompileRequest withKey(CacheKey newKey) const {
    return CompileRequest(kernelName, build, std::move(newKey));
  }

private:
  std::string kernelName;
  BuildFn build;
  CacheKey key;
  std::string canonicalKey;
};

/// The launcher one kernel object found on its first launch, so that later
/// launches skip the memory tier's lookup (hashing the canonical key, which
/// holds a source kernel's whole IR, and taking the cache's lock). Safe to
/// read from several threads; set once.
class LauncherSlot {
public:
  Launcher *get() const { return fast.load(std::memory_order_acquire); }
  void set(std::shared_ptr<Launcher> launcher) {
    std::lock_guard<std::mutex> lock(mutex);
    if (kept)
      return;
    kept = std::move(launcher);
    fast.store(kept.get(), std::memory_order_release);
  }

private:
  std::mutex mutex;
  std::shared_ptr<Launcher> kept;
  std::atomic<Launcher *> fast{nullptr};
};

struct RuntimeStats {
  uint64_t memoryHits = 0, diskHits = 0, compiles = 0;
  double compileMilliseconds = 0; // sum over compiles in this process
};

class Runtime {
public:
  static Runtime &get();

  /// The compiled launcher for `request` on `device`; `tier` says which tier
  /// served it and `compileMs` how long compiling took (0 unless Miss).
  /// Each device of a kind gets its own launcher (its own loaded module);
  /// they share the compiled code (one disk entry, one compile).
  llvm::Expected<std::shared_ptr<Launcher>>
  getLauncher(DeviceId device, const CompileRequest &request, CacheTier &tier,
              double &compileMs);

  /// Counts a memory-tier hit served from a LauncherSlot (getStats reports
  /// it like a lookup that found its entry).
  void countMemoryHit();

  RuntimeStats getStats() const;
  /// ROCDSL's version string.
  static const char *getVersion();

  /// The compiler's own fingerprint (version, build id, pipeline, ISA-check
  /// version) for `device`.
  static CompilerFingerprint getCompilerFingerprint(DeviceKind device);
  /// Target description for cache keys: chip for GPUs, CPU for the host.
  static CacheTarget getTarget(DeviceKind device, llvm::StringRef chip);

  /// Whether `device` can run kernels here; `why` says what is missing (no
  /// runtime, no such device, a chip ROCDSL does not compile for).
  static bool isAvailable(DeviceId device, std::string &why);

  /// The chip kernels for `device` compile for. HIP: the device's own chip
  /// where a HIP runtime reports the device (an error if that chip is not
  /// one ROCDSL compiles for, or if `requested` names another), else
  /// `requested` or gfx942, so code can be compiled without a GPU. CUDA:
  /// `requested` or sm_90. Host: "host".
  static llvm::Expected<std::string> resolveChip(DeviceId device,
                                                 llvm::StringRef requested);

private:
  Runtime();
  struct Impl;
  std::unique_ptr<Impl> impl;
};

} // namespace mlir::rocdsl

#endif
