//===- DiskCache.h - compiled-kernel cache tiers ----------------*- C++ -*-===//
//
// Compiled kernels are cached by the digest of their CacheKey, in two tiers:
// MemoryCache (per process, holds loaded objects) and DiskCache (shared by
// all processes of the user, holds serialized payloads).
//
// Environment:
//   ROCDSL_CACHE_DIR      Directory of the disk tier. Default:
//                         $XDG_CACHE_HOME/rocdsl if XDG_CACHE_HOME is an
//                         absolute path, else $HOME/.cache/rocdsl.
//   ROCDSL_CACHE_DISABLE  "1" (or any value other than "", "0", "false",
//                         "no", "off") turns the disk tier off:
//                         DiskCache::fromEnvironment() returns null.
//   ROCDSL_CACHE_MAX_BYTES  Size cap of the entries, in bytes, with an
//                         optional K, M, G or T suffix (powers of 1024);
//                         "0" means no cap. Default 1G. When a store takes
//                         the entries over the cap, the least recently used
//                         ones are deleted (a hit refreshes an entry's
//                         modification time).
//
// Trust: entries are machine code that is loaded into the process, so the
// cache is only used when nobody but the user can write it. The directory
// must be owned by the effective user and not writable by group or others,
// and so must every entry (a regular file, not a symlink). Anything else is
// refused with one warning; the cache then compiles without its disk tier
// for the rest of its life, and the suspicious files are left untouched.
//
// On disk, each entry is one file `<digest>.rocdsl`:
//   offset  0: magic "ROCDSLKC" (8 bytes)
//   offset  8: format version, uint32 little-endian
//   offset 12: payload size in bytes, uint64 little-endian
//   offset 20: SHA-256 of the payload (32 bytes)
//   offset 52: payload
// Entries are written to a unique temporary file in the same directory
// (`<digest>.tmp.<pid>.<counter>`), fsync'ed and renamed over the final name,
// so readers see either no entry or a complete one. An entry that fails any
// check (magic, version, size, checksum) is reported once with a warning,
// deleted and treated as a miss.
//
// Temporary files of writers that died (kill -9, power loss) are deleted
// the first time a process uses the directory: those whose writer process
// no longer exists and that are older than a minute, and any older than an
// hour.
//
// Compilation of one digest is serialized across threads and processes with
// flock(2) on `<digest>.lock` (lock files are left in place: removing them
// would let two processes lock different files of the same name).
//
//===----------------------------------------------------------------------===//
#ifndef ROCDSL_RUNTIME_DISKCACHE_H
#define ROCDSL_RUNTIME_DISKCACHE_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

namespace mlir::rocdsl {

/// Where a cached kernel came from.
enum class CacheTier {
  Miss,   ///< Not cached: compiled now.
  Memory, ///< This process's MemoryCache.
  Disk,   ///< A DiskCache entry.
};

/// Name of a tier, for logs: "miss", "memory", "disk".
llvm::StringRef getCacheTierName(CacheTier tier);

/// Thread-safe map digest -> shared object, for reuse within a process.
/// Counts lookups that found an entry (hits) and those that did not (misses).
template <typename V> class MemoryCache {
public:
  /// The entry for `digest`, or null. Counts a hit or a miss.
  std::shared_ptr<V> lookup(llvm::StringRef digest) {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = entries.find(digest);
    if (it == entries.end()) {
      ++missCount;
      return nullptr;
    }
    ++hitCount;
    return it->second;
  }

  /// Inserts `value` unless `digest` is present already. Returns the entry
  /// now in the cache: `value`, or the one another thread inserted first.
  std::shared_ptr<V> insert(llvm::StringRef digest, std::shared_ptr<V> value) {
    std::lock_guard<std::mutex> lock(mutex);
    auto [it, inserted] = entries.try_emplace(digest, std::move(value));
    (void)inserted;
    return it->second;
  }

  /// Drops the entry for `digest`; returns whether there was one.
  bool erase(llvm::StringRef digest) {
    std::lock_guard<std::mutex> lock(mutex);
    return entries.erase(digest);
  }

  size_t size() const {
    std::lock_guard<std::mutex> lock(mutex);
    return entries.size();
  }

  uint64_t hits() const { return hitCount.load(); }
  /// A hit served without a lookup (a caller that kept the entry).
  void countHit() { ++hitCount; }
  uint64_t misses() const { return missCount.load(); }

private:
  mutable std::mutex mutex;
  llvm::StringMap<std::shared_ptr<V>> entries;
  std::atomic<uint64_t> hitCount{0};
  std::atomic<uint64_t> missCount{0};
};

/// The on-disk tier. All methods are thread-safe; several processes may use
/// the same directory.
class DiskCache {
public:
  /// Entry file format (see the file comment).
  static constexpr llvm::StringLiteral kMagic = "ROCDSLKC";
  static constexpr uint32_t kFormatVersion = 1;
  static constexpr size_t kHeaderSize = 8 + 4 + 8 + 32;
  /// Size cap without ROCDSL_CACHE_MAX_BYTES: 1 GiB.
  static constexpr uint64_t kDefaultMaxBytes = uint64_t(1) << 30;

  /// A cache in `directory`, created (mode 0700) when first written to,
  /// whose entries are kept under `maxBytes` in all (0: no cap).
  explicit DiskCache(std::string directory,
                     uint64_t maxBytes = kDefaultMaxBytes);

  DiskCache(const DiskCache &) = delete;
  DiskCache &operator=(const DiskCache &) = delete;

  /// The cache the environment asks for, or null when ROCDSL_CACHE_DISABLE
  /// is set or no directory can be determined (neither ROCDSL_CACHE_DIR,
  /// XDG_CACHE_HOME nor HOME set).
  static std::unique_ptr<DiskCache> fromEnvironment();

  /// The directory ROCDSL_CACHE_DIR / XDG_CACHE_HOME / HOME select, made
  /// absolute; std::nullopt if none of them is set. Ignores
  /// ROCDSL_CACHE_DISABLE.
  static std::optional<std::string> getDirectoryFromEnvironment();

  /// Whether ROCDSL_CACHE_DISABLE turns the disk tier off.
  static bool isDisabledByEnvironment();

  /// The cap ROCDSL_CACHE_MAX_BYTES asks for (kDefaultMaxBytes when unset;
  /// an unparsable value is warned about and gives the default).
  static uint64_t getMaxBytesFromEnvironment();

  /// Parses a size: decimal digits with an optional K/M/G/T suffix (powers
  /// of 1024, case-insensitive, an optional trailing "B" or "iB").
  static std::optional<uint64_t> parseSize(llvm::StringRef text);

  llvm::StringRef directory() const { return dir; }
  /// `<directory>/<digest>.rocdsl`
  std::string getEntryPath(llvm::StringRef digest) const;
  /// `<directory>/<digest>.lock`
  std::string getLockPath(llvm::StringRef digest) const;

  uint64_t getMaxBytes() const { return maxBytes; }

  /// Why the directory must not be used (not owned by this user, writable
  /// by group or others, not a directory); std::nullopt if it may be used
  /// or does not exist yet.
  std::optional<std::string> checkDirectory() const;

  /// Whether the disk tier is in use: false once the directory or an entry
  /// was refused (see the file comment).
  bool isTrusted() const { return !refused.load(); }

  /// Deletes temporary files left by dead writers: those whose writer pid
  /// does not exist and that are at least `deadWriterAge` old, and any at
  /// least `anyAge` old. Returns how many were deleted.
  size_t removeStaleTemporaries(std::chrono::seconds deadWriterAge,
                                std::chrono::seconds anyAge);

  /// Deletes least recently used entries until they take at most the cap;
  /// never the entry of `keep`. Returns how many were deleted.
  size_t enforceSizeLimit(llvm::StringRef keep = {});

  /// Digests name files: 1 to 128 characters of [0-9A-Za-z_-].
  static bool isValidDigest(llvm::StringRef digest);

  /// The payload stored for `digest`; std::nullopt if there is none or the
  /// entry was corrupt (then it was reported and deleted). Errors: invalid
  /// digest, or the entry could not be read.
  llvm::Expected<std::optional<std::string>> load(llvm::StringRef digest);

  /// Stores `payload` for `digest` atomically, replacing any entry.
  llvm::Error store(llvm::StringRef digest, llvm::StringRef payload);

  /// Deletes the entry for `digest`; no error if there is none.
  llvm::Error remove(llvm::StringRef digest);

  /// Returns the payload for `digest`: from disk if a valid entry exists,
  /// else from `compile`, which is then stored. Holds `<digest>.lock` while
  /// checking, compiling and storing, so concurrent callers (threads or
  /// processes) with the same digest compile once; the others wait and read
  /// the stored entry. `tier` is Disk or Miss (compiled now). Errors come
  /// from `compile` or an invalid digest; if the directory cannot be used,
  /// this still compiles and returns the payload (warning once per cache).
  llvm::Expected<std::string>
  getOrCompute(llvm::StringRef digest,
               llvm::function_ref<llvm::Expected<std::string>()> compile,
               CacheTier &tier);

private:
  /// Warns about an unusable directory the first time, later only at debug
  /// level.
  void reportUnusable(const llvm::Twine &message);

  /// Checks the directory before every use and cleans stale temporaries on
  /// the first; false if the disk tier is (now) refused.
  bool ensureTrusted();
  /// Turns the disk tier off for good, warning once with `problem`.
  void refuse(const llvm::Twine &problem);

  std::string dir;
  uint64_t maxBytes;
  std::atomic<bool> warnedUnusable{false};
  std::atomic<bool> refused{false};
  std::once_flag cleanedTemporaries;
};

} // namespace mlir::rocdsl

#endif // ROCDSL_RUNTIME_DISKCACHE_H
