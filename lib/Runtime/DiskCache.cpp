//===- DiskCache.cpp - compiled-kernel cache: disk tier -------------------===//
#include "rocdsl/Runtime/DiskCache.h"

#include "rocdsl/Support/Environment.h"
#include "rocdsl/Support/Log.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SHA256.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <set>

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace mlir;
using llvm::StringRef;
using llvm::Twine;

namespace {

//===----------------------------------------------------------------------===//
// POSIX helpers
//===----------------------------------------------------------------------===//

std::error_code errnoCode(int err) {
  return std::error_code(err, std::generic_category());
}

/// "<what> '<path>': <strerror>", carrying the errno as its error_code.
llvm::Error makeFileError(const Twine &what, StringRef path, int err) {
  std::error_code ec = errnoCode(err);
  return llvm::createStringError(ec, what + " '" + path + "': " + ec.message());
}

/// Owns a file descriptor.
class FileDescriptor {
public:
  FileDescriptor() = default;
  explicit FileDescriptor(int fd) : fd(fd) {}
  FileDescriptor(FileDescriptor &&other) : fd(other.release()) {}
  FileDescriptor &operator=(FileDescriptor &&other) {
    if (this != &other) {
      reset();
      fd = other.release();
    }
    return *this;
  }
  FileDescriptor(const FileDescriptor &) = delete;
  FileDescriptor &operator=(const FileDescriptor &) = delete;
  ~FileDescriptor() { reset(); }

  int get() const { return fd; }
  explicit operator bool() const { return fd >= 0; }
  int release() {
    int result = fd;
    fd = -1;
    return result;
  }
  void reset() {
    if (fd >= 0)
      ::close(fd);
    fd = -1;
  }
  /// Closes and reports the error of close(2) (0 on success).
  int close() {
    int result = ::close(release()) == 0 ? 0 : errno;
    return result == EINTR ? 0 : result;
  }

private:
  int fd = -1;
};

int openRetryingEINTR(const std::string &path, int flags, mode_t mode = 0) {
  int fd;
  do
    fd = ::open(path.c_str(), flags | O_CLOEXEC, mode);
  while (fd < 0 && errno == EINTR);
  return fd;
}

/// flock(2), retried when a signal interrupts the wait.
int flockRetryingEINTR(int fd, int operation) {
  int result;
  do
    result = ::flock(fd, operation);
  while (result != 0 && errno == EINTR);
  return result;
}

/// Why a file or directory with status `st` must not be trusted with code
/// that will be loaded into this process: someone other than the user can
/// write it. std::nullopt if only the user can.
std::optional<std::string> describeUntrusted(const struct stat &st,
                                             StringRef what, StringRef path) {
  if (st.st_uid != ::geteuid())
    return (what + " '" + path + "' is owned by uid " + Twine(st.st_uid) +
            ", not by this user (uid " + Twine(::geteuid()) + ")")
        .str();
  if (st.st_mode & (S_IWGRP | S_IWOTH)) {
    char mode[8];
    std::snprintf(mode, sizeof(mode), "%04o", unsigned(st.st_mode & 07777));
    return (what + " '" + path + "' is writable by " +
            ((st.st_mode & S_IWOTH) ? "others" : "its group") + " (mode " +
            mode + ")")
        .str();
  }
  return std::nullopt;
}

/// Creates `dir` (and missing parents) with mode 0700.
llvm::Error createDirectory(StringRef dir) {
  if (std::error_code ec = llvm::sys::fs::create_directories(
          dir, /*IgnoreExisting=*/true, llvm::sys::fs::owner_all))
    return llvm::createStringError(ec, "cannot create cache directory '" + dir +
                                           "': " + ec.message());
  return llvm::Error::success();
}

/// Opens `path`, a file of `dir`; creates `dir` if it is missing.
llvm::Expected<FileDescriptor> openInDirectory(StringRef dir,
                                               const std::string &path,
                                               int flags, mode_t mode) {
  int fd = openRetryingEINTR(path, flags, mode);
  if (fd < 0 && errno == ENOENT) {
    if (llvm::Error err = createDirectory(dir))
      return err;
    fd = openRetryingEINTR(path, flags, mode);
  }
  if (fd < 0)
    return makeFileError("cannot open", path, errno);
  return FileDescriptor(fd);
}

llvm::Error writeAll(int fd, StringRef data, StringRef path) {
  while (!data.empty()) {
    ssize_t written = ::write(fd, data.data(), data.size());
    if (written < 0) {
      if (errno == EINTR)
        continue;
      return makeFileError("cannot write", path, errno);
    }
    data = data.drop_front(written);
  }
  return llvm::Error::success();
}

llvm::Error readAll(int fd, std::string &out, StringRef path) {
  struct stat st;
  if (::fstat(fd, &st) == 0 && st.st_size > 0)
    out.reserve(static_cast<size_t>(st.st_size));
  char buffer[64 * 1024];
  while (true) {
    ssize_t got = ::read(fd, buffer, sizeof(buffer));
    if (got < 0) {
      if (errno == EINTR)
        continue;
      return makeFileError("cannot read", path, errno);
    }
    if (got == 0)
      return llvm::Error::success();
    out.append(buffer, static_cast<size_t>(got));
  }
}

/// Whether `fd` is still the file at `path`: eviction deletes a lock file
/// while holding its lock, so a process that opened the file before the
/// deletion and locked it after holds a lock on a file no one else will
/// open, and must open the path again.
bool isFileAtPath(int fd, const std::string &path) {
  struct stat held, named;
  return ::fstat(fd, &held) == 0 && ::lstat(path.c_str(), &named) == 0 &&
         held.st_dev == named.st_dev && held.st_ino == named.st_ino;
}

/// An exclusive flock(2) on a lock file, released on destruction. flock locks
/// belong to the open file description, so they also exclude other threads
/// of this process (each opens the file itself), and the kernel drops them if
/// the process dies.
class FileLock {
public:
  static llvm::Expected<FileLock> acquire(StringRef dir,
                                          const std::string &path) {
    for (;;) {
      llvm::Expected<FileDescriptor> fd = openInDirectory(
          dir, path, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK, 0600);
      if (!fd)
        return fd.takeError();
      if (flockRetryingEINTR(fd->get(), LOCK_EX) != 0)
        return makeFileError("cannot lock", path, errno);
      if (isFileAtPath(fd->get(), path))
        return FileLock(std::move(*fd));
      // Deleted (or replaced) while we waited: lock the file now there.
    }
  }

  /// Deletes the lock file at `path` if no one holds its lock (an entry's
  /// lock outlives nothing once the entry is evicted). A holder keeps it.
  static void removeIfUnheld(const std::string &path) {
    int fd = openRetryingEINTR(path, O_RDWR | O_NOFOLLOW | O_NONBLOCK, 0);
    if (fd < 0)
      return;
    FileDescriptor owned(fd);
    if (flockRetryingEINTR(fd, LOCK_EX | LOCK_NB) != 0)
      return;
    // Unlinked under the lock: anyone who opened it before re-checks the
    // path after locking (acquire) and opens a new file.
    if (isFileAtPath(fd, path))
      ::unlink(path.c_str());
    ::flock(fd, LOCK_UN);
  }

  FileLock(FileLock &&) = default;
  FileLock &operator=(FileLock &&) = default;
  ~FileLock() {
    if (fd)
      ::flock(fd.get(), LOCK_UN);
  }

private:
  explicit FileLock(FileDescriptor fd) : fd(std::move(fd)) {}
  FileDescriptor fd;
};

//===----------------------------------------------------------------------===//
// Entry format
//===----------------------------------------------------------------------===//

using Checksum = std::array<uint8_t, 32>;

Checksum computeChecksum(StringRef payload) {
  return llvm::SHA256::hash(llvm::arrayRefFromStringRef(payload));
}

std::string encodeHeader(StringRef payload) {
  using rocdsl::DiskCache;
  std::string header(DiskCache::kHeaderSize, '\0');
  char *p = header.data();
  std::memcpy(p, DiskCache::kMagic.data(), 8);
  llvm::support::endian::write32le(p + 8, DiskCache::kFormatVersion);
  llvm::support::endian::write64le(p + 12, payload.size());
  Checksum checksum = computeChecksum(payload);
  std::memcpy(p + 20, checksum.data(), checksum.size());
  return header;
}

/// Checks an entry file's contents. On success sets `payload`; otherwise
/// returns what is wrong.
std::optional<std::string> decodeEntry(StringRef contents,
                                       std::string &payload) {
  using rocdsl::DiskCache;
  const size_t headerSize = DiskCache::kHeaderSize;
  if (contents.size() < DiskCache::kMagic.size())
    return "truncated: " + std::to_string(contents.size()) +
           " bytes, shorter than the " + std::to_string(headerSize) +
           "-byte header";
  if (!contents.starts_with(DiskCache::kMagic))
    return std::string("bad magic (not a rocdsl cache entry)");
  if (contents.size() < headerSize)
    return "truncated: " + std::to_string(contents.size()) +
           " bytes, shorter than the " + std::to_string(headerSize) +
           "-byte header";
  const char *p = contents.data();
  uint32_t version = llvm::support::endian::read32le(p + 8);
  if (version != DiskCache::kFormatVersion)
    return "unsupported format version " + std::to_string(version) +
           " (expected " + std::to_string(DiskCache::kFormatVersion) + ")";
  uint64_t declared = llvm::support::endian::read64le(p + 12);
  uint64_t actual = contents.size() - headerSize;
  if (actual < declared)
    return "truncated: payload has " + std::to_string(actual) + " of " +
           std::to_string(declared) + " bytes";
  if (actual > declared)
    return "size mismatch: " + std::to_string(declared) +
           "-byte payload followed by " + std::to_string(actual - declared) +
           " extra bytes";
  StringRef body = contents.drop_front(headerSize);
  Checksum checksum = computeChecksum(body);
  if (std::memcmp(checksum.data(), p + 20, checksum.size()) != 0)
    return std::string("payload checksum mismatch");
  payload = body.str();
  return std::nullopt;
}

struct EntryState {
  enum Kind { Absent, Valid, Corrupt, Untrusted } kind = Absent;
  std::string payload; // Valid
  std::string problem; // Corrupt, Untrusted
};

/// Reads and checks the entry at `path`. A valid entry's modification time
/// is refreshed: it orders entries for LRU eviction.
llvm::Expected<EntryState> readEntry(const std::string &path) {
  EntryState state;
  // O_NOFOLLOW: an entry that is a symlink is not ours to load.
  // O_NONBLOCK: opening a FIFO in an entry's place must not wait for a
  // writer; the type check below refuses it (regular files ignore the flag).
  FileDescriptor fd(
      openRetryingEINTR(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK));
  if (!fd) {
    // ENOTDIR: a component of the directory is not one; nothing is stored.
    if (errno == ENOENT || errno == ENOTDIR)
      return state;
    if (errno == ELOOP) {
      state.kind = EntryState::Untrusted;
      state.problem = "cache entry '" + path + "' is a symbolic link";
      return state;
    }
    return makeFileError("cannot open", path, errno);
  }
  struct stat st;
  if (::fstat(fd.get(), &st) != 0)
    return makeFileError("cannot stat", path, errno);
  if (!S_ISREG(st.st_mode)) {
    state.kind = EntryState::Untrusted;
    state.problem = "cache entry '" + path + "' is not a regular file";
    return state;
  }
  if (std::optional<std::string> problem =
          describeUntrusted(st, "cache entry", path)) {
    state.kind = EntryState::Untrusted;
    state.problem = std::move(*problem);
    return state;
  }
  std::string contents;
  if (llvm::Error err = readAll(fd.get(), contents, path))
    return err;
  if (std::optional<std::string> problem =
          decodeEntry(contents, state.payload)) {
    state.kind = EntryState::Corrupt;
    state.problem = std::move(*problem);
  } else {
    state.kind = EntryState::Valid;
    // Best effort: a failure only makes the entry look older.
    (void)::futimens(fd.get(), nullptr);
  }
  return state;
}

/// Reports a corrupt entry and deletes it. Callers hold the entry's lock when
/// they can, so that concurrent readers report it once and a valid entry
/// written meanwhile is not deleted.
void discardCorruptEntry(const std::string &path, StringRef problem) {
  if (::unlink(path.c_str()) != 0 && errno != ENOENT) {
    std::error_code ec = errnoCode(errno);
    rocdsl::logWarning(
        "corrupt cache entry '" + path + "': " + problem +
        "; ignoring it, but it cannot be deleted: " + ec.message());
    return;
  }
  rocdsl::logWarning("corrupt cache entry '" + path + "': " + problem +
                     "; deleted it, treating it as a miss");
}

std::optional<std::string> getNonEmptyEnv(const char *name) {
  const char *value = std::getenv(name);
  if (!value || !*value)
    return std::nullopt;
  return std::string(value);
}

/// Distinguishes the temporary files of one process.
std::atomic<uint64_t> tempFileCounter{0};

/// The writer pid of a temporary file name `<digest>.tmp.<pid>.<n>`.
std::optional<pid_t> getTemporaryWriter(StringRef name) {
  size_t at = name.find(".tmp.");
  if (at == StringRef::npos)
    return std::nullopt;
  StringRef rest = name.drop_front(at + 5);
  auto [pidText, counter] = rest.split('.');
  unsigned long long pid, n;
  if (pidText.getAsInteger(10, pid) || counter.getAsInteger(10, n) ||
      pid == 0 || pid > uint64_t(std::numeric_limits<pid_t>::max()))
    return std::nullopt;
  return pid_t(pid);
}

bool processExists(pid_t pid) { return ::kill(pid, 0) == 0 || errno != ESRCH; }

/// Calls `fn(name, stat)` for each regular file of `dir` (not following
/// symlinks).
void forEachFile(const std::string &dir,
                 llvm::function_ref<void(StringRef, const struct stat &)> fn) {
  DIR *d = ::opendir(dir.c_str());
  if (!d)
    return;
  int dfd = ::dirfd(d);
  while (struct dirent *entry = ::readdir(d)) {
    struct stat st;
    if (::fstatat(dfd, entry->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
        !S_ISREG(st.st_mode))
      continue;
    fn(entry->d_name, st);
  }
  ::closedir(d);
}

} // namespace

//===----------------------------------------------------------------------===//
// DiskCache
//===----------------------------------------------------------------------===//

StringRef rocdsl::getCacheTierName(CacheTier tier) {
  switch (tier) {
  case CacheTier::Miss:
    return "miss";
  case CacheTier::Memory:
    return "memory";
  case CacheTier::Disk:
    return "disk";
  }
  return "unknown";
}

rocdsl::DiskCache::DiskCache(std::string directory, uint64_t maxBytes)
    : dir(std::move(directory)), maxBytes(maxBytes) {}

std::optional<uint64_t> rocdsl::DiskCache::parseSize(StringRef text) {
  text = text.trim();
  size_t digits = 0;
  while (digits < text.size() && llvm::isDigit(text[digits]))
    ++digits;
  if (digits == 0)
    return std::nullopt;
  uint64_t value;
  if (text.take_front(digits).getAsInteger(10, value))
    return std::nullopt;
  StringRef suffix = text.drop_front(digits).trim();
  if (suffix.ends_with_insensitive("ib"))
    suffix = suffix.drop_back(2);
  else if (suffix.ends_with_insensitive("b"))
    suffix = suffix.drop_back(1);
  unsigned shift = 0;
  if (suffix.empty())
    shift = 0;
  else if (suffix.equals_insensitive("k"))
    shift = 10;
  else if (suffix.equals_insensitive("m"))
    shift = 20;
  else if (suffix.equals_insensitive("g"))
    shift = 30;
  else if (suffix.equals_insensitive("t"))
    shift = 40;
  else
    return std::nullopt;
  if (shift && value > (std::numeric_limits<uint64_t>::max() >> shift))
    return std::nullopt;
  return value << shift;
}

uint64_t rocdsl::DiskCache::getMaxBytesFromEnvironment() {
  std::optional<std::string> text = getNonEmptyEnv("ROCDSL_CACHE_MAX_BYTES");
  if (!text)
    return kDefaultMaxBytes;
  if (std::optional<uint64_t> value = parseSize(*text))
    return *value;
  logWarning("ROCDSL_CACHE_MAX_BYTES='" + *text +
             "' is not a size (e.g. 1073741824, 512M, 2G; 0 for no cap); "
             "using the default, 1G");
  return kDefaultMaxBytes;
}

std::optional<std::string> rocdsl::DiskCache::checkDirectory() const {
  struct stat st;
  if (::stat(dir.c_str(), &st) != 0)
    return std::nullopt; // Missing: created with mode 0700 when needed.
  if (!S_ISDIR(st.st_mode))
    return "cache directory '" + dir + "' is not a directory";
  return describeUntrusted(st, "cache directory", dir);
}

void rocdsl::DiskCache::refuse(const Twine &problem) {
  if (!refused.exchange(true))
    logWarning(problem +
               "; refusing to use the disk cache (anyone who can write it "
               "could run code as this user): compiled kernels are not "
               "cached on disk");
  else
    logDebug(problem);
}

bool rocdsl::DiskCache::ensureTrusted() {
  if (refused.load())
    return false;
  if (std::optional<std::string> problem = checkDirectory()) {
    refuse(*problem);
    return false;
  }
  std::call_once(cleanedTemporaries, [&] {
    size_t removed =
        removeStaleTemporaries(std::chrono::seconds(60), std::chrono::hours(1));
    if (removed)
      logInfo("deleted " + Twine(removed) +
              " temporary file(s) of dead cache writers in '" + dir + "'");
  });
  return true;
}

size_t
rocdsl::DiskCache::removeStaleTemporaries(std::chrono::seconds deadWriterAge,
                                          std::chrono::seconds anyAge) {
  std::vector<std::string> stale;
  time_t now = ::time(nullptr);
  forEachFile(dir, [&](StringRef name, const struct stat &st) {
    std::optional<pid_t> writer = getTemporaryWriter(name);
    if (!writer || st.st_uid != ::geteuid())
      return;
    int64_t age = int64_t(now) - int64_t(st.st_mtime);
    bool dead = !processExists(*writer);
    if ((dead && age >= deadWriterAge.count()) || age >= anyAge.count())
      stale.push_back(name.str());
  });
  size_t removed = 0;
  for (const std::string &name : stale)
    if (::unlink((dir + "/" + name).c_str()) == 0)
      ++removed;
  return removed;
}

size_t rocdsl::DiskCache::enforceSizeLimit(StringRef keep) {
  if (maxBytes == 0)
    return 0;
  struct Entry {
    struct timespec mtime;
    uint64_t size;
    std::string name;
  };
  std::vector<Entry> entries;
  uint64_t total = 0;
  std::string keepName = (keep + ".rocdsl").str();
  std::set<std::string> digests, lockDigests;
  forEachFile(dir, [&](StringRef name, const struct stat &st) {
    if (name.ends_with(".lock") && st.st_uid == ::geteuid())
      lockDigests.insert(name.drop_back(5).str());
    if (!name.ends_with(".rocdsl"))
      return;
    digests.insert(name.drop_back(7).str());
    total += uint64_t(st.st_size);
    if (name != keepName)
      entries.push_back({st.st_mtim, uint64_t(st.st_size), name.str()});
  });
  // Lock files whose entries are gone (evicted here or by an older ROCDSL
  // that left them, or deleted by hand): a writer about to store one still
  // holds its lock and keeps it.
  auto removeOrphanLocks = [&] {
    for (const std::string &digest : lockDigests)
      if (!digests.count(digest))
        FileLock::removeIfUnheld(getLockPath(digest));
  };
  if (total <= maxBytes) {
    removeOrphanLocks();
    return 0;
  }
  // Oldest first.
  std::sort(entries.begin(), entries.end(), [](const Entry &a, const Entry &b) {
    if (a.mtime.tv_sec != b.mtime.tv_sec)
      return a.mtime.tv_sec < b.mtime.tv_sec;
    return a.mtime.tv_nsec < b.mtime.tv_nsec;
  });
  size_t removed = 0;
  for (const Entry &entry : entries) {
    if (total <= maxBytes)
      break;
    if (::unlink((dir + "/" + entry.name).c_str()) == 0 || errno == ENOENT) {
      total -= std::min(total, entry.size);
      ++removed;
      digests.erase(StringRef(entry.name).drop_back(7).str());
    }
  }
  removeOrphanLocks();
  logInfo("cache over its " + Twine(maxBytes) + "-byte cap: evicted " +
          Twine(removed) + " least recently used entr" +
          (removed == 1 ? "y" : "ies") + " from '" + dir + "'");
  return removed;
}

bool rocdsl::DiskCache::isDisabledByEnvironment() {
  return isSwitchOnInEnvironment("ROCDSL_CACHE_DISABLE");
}

std::optional<std::string> rocdsl::DiskCache::getDirectoryFromEnvironment() {
  llvm::SmallString<256> path;
  if (std::optional<std::string> dir = getNonEmptyEnv("ROCDSL_CACHE_DIR")) {
    path = *dir;
  } else if (std::optional<std::string> xdg = getNonEmptyEnv("XDG_CACHE_HOME");
             xdg && llvm::sys::path::is_absolute(*xdg)) {
    // The XDG base directory specification says to ignore relative paths.
    path = *xdg;
    llvm::sys::path::append(path, "rocdsl");
  } else if (std::optional<std::string> home = getNonEmptyEnv("HOME")) {
    path = *home;
    llvm::sys::path::append(path, ".cache", "rocdsl");
  } else {
    return std::nullopt;
  }
  // Keep meaning the same directory if the process changes directory.
  if (std::error_code ec = llvm::sys::fs::make_absolute(path))
    logDebug("cannot make cache directory '" + path +
             "' absolute: " + ec.message());
  llvm::sys::path::remove_dots(path, /*remove_dot_dot=*/false);
  return std::string(path.str());
}

std::unique_ptr<rocdsl::DiskCache> rocdsl::DiskCache::fromEnvironment() {
  if (isDisabledByEnvironment()) {
    logDebug("disk cache disabled by ROCDSL_CACHE_DISABLE");
    return nullptr;
  }
  std::optional<std::string> dir = getDirectoryFromEnvironment();
  if (!dir) {
    logInfo("disk cache disabled: none of ROCDSL_CACHE_DIR, XDG_CACHE_HOME, "
            "HOME is set");
    return nullptr;
  }
  logDebug("disk cache in '" + *dir + "'");
  return std::make_unique<DiskCache>(std::move(*dir),
                                     getMaxBytesFromEnvironment());
}

bool rocdsl::DiskCache::isValidDigest(StringRef digest) {
  if (digest.empty() || digest.size() > 128)
    return false;
  return llvm::all_of(
      digest, [](char c) { return llvm::isAlnum(c) || c == '_' || c == '-'; });
}

static llvm::Error makeInvalidDigestError(StringRef digest) {
  return llvm::createStringError(
      std::make_error_code(std::errc::invalid_argument),
      "invalid cache digest '" + digest +
          "' (expected 1 to 128 characters of [0-9A-Za-z_-])");
}

std::string rocdsl::DiskCache::getEntryPath(StringRef digest) const {
  llvm::SmallString<256> path(dir);
  llvm::sys::path::append(path, digest + ".rocdsl");
  return std::string(path.str());
}

std::string rocdsl::DiskCache::getLockPath(StringRef digest) const {
  llvm::SmallString<256> path(dir);
  llvm::sys::path::append(path, digest + ".lock");
  return std::string(path.str());
}

void rocdsl::DiskCache::reportUnusable(const Twine &message) {
  if (!warnedUnusable.exchange(true))
    logWarning(message + "; compiled kernels are not cached on disk");
  else
    logDebug(message);
}

llvm::Expected<std::optional<std::string>>
rocdsl::DiskCache::load(StringRef digest) {
  if (!isValidDigest(digest))
    return makeInvalidDigestError(digest);
  if (!ensureTrusted())
    return std::nullopt;
  std::string path = getEntryPath(digest);
  llvm::Expected<EntryState> state = readEntry(path);
  if (!state)
    return state.takeError();
  if (state->kind == EntryState::Valid)
    return std::optional<std::string>(std::move(state->payload));
  if (state->kind == EntryState::Absent)
    return std::nullopt;
  if (state->kind == EntryState::Untrusted) {
    refuse(state->problem);
    return std::nullopt;
  }

  // Corrupt: re-check under the lock, which a writer holds while replacing
  // the entry, so it is reported and deleted by one reader only.
  llvm::Expected<FileLock> lock = FileLock::acquire(dir, getLockPath(digest));
  if (!lock) {
    logDebug("reading corrupt entry without lock: " +
             llvm::toString(lock.takeError()));
    discardCorruptEntry(path, state->problem);
    return std::nullopt;
  }
  state = readEntry(path);
  if (!state)
    return state.takeError();
  if (state->kind == EntryState::Valid)
    return std::optional<std::string>(std::move(state->payload));
  if (state->kind == EntryState::Corrupt)
    discardCorruptEntry(path, state->problem);
  if (state->kind == EntryState::Untrusted)
    refuse(state->problem);
  return std::nullopt;
}

llvm::Error rocdsl::DiskCache::store(StringRef digest, StringRef payload) {
  if (!isValidDigest(digest))
    return makeInvalidDigestError(digest);
  if (!ensureTrusted())
    return llvm::createStringError(
        std::make_error_code(std::errc::permission_denied),
        "refusing to store in the untrusted cache directory '" + dir + "'");
  std::string finalPath = getEntryPath(digest);

  // A unique temporary file next to the entry, so rename(2) is atomic.
  std::string tempPath;
  FileDescriptor fd;
  bool createdDirectory = false;
  for (unsigned attempt = 0; !fd; ++attempt) {
    tempPath = (Twine(dir) + "/" + digest + ".tmp." + Twine(::getpid()) + "." +
                Twine(tempFileCounter.fetch_add(1)))
                   .str();
    int raw = openRetryingEINTR(tempPath, O_WRONLY | O_CREAT | O_EXCL, 0600);
    if (raw >= 0) {
      fd = FileDescriptor(raw);
      break;
    }
    int err = errno;
    // Left over by a dead process whose pid was reused: take another name.
    if (err == EEXIST && attempt < 100)
      continue;
    if (err == ENOENT && !createdDirectory) {
      createdDirectory = true;
      if (llvm::Error dirErr = createDirectory(dir))
        return dirErr;
      continue;
    }
    return makeFileError("cannot create", tempPath, err);
  }

  auto fail = [&](llvm::Error err) {
    fd.reset();
    ::unlink(tempPath.c_str());
    return err;
  };
  if (llvm::Error err = writeAll(fd.get(), encodeHeader(payload), tempPath))
    return fail(std::move(err));
  if (llvm::Error err = writeAll(fd.get(), payload, tempPath))
    return fail(std::move(err));
  if (::fsync(fd.get()) != 0)
    return fail(makeFileError("cannot fsync", tempPath, errno));
  if (int err = fd.close())
    return fail(makeFileError("cannot close", tempPath, err));
  if (::rename(tempPath.c_str(), finalPath.c_str()) != 0)
    return fail(
        makeFileError("cannot rename '" + tempPath + "' to", finalPath, errno));

  // Make the rename itself durable. Best effort: the entry is complete.
  FileDescriptor dirFd(openRetryingEINTR(dir, O_RDONLY | O_DIRECTORY));
  if (!dirFd || ::fsync(dirFd.get()) != 0)
    logDebug("cannot fsync cache directory '" + dir +
             "': " + errnoCode(errno).message());
  logDebug("stored " + Twine(payload.size()) + " bytes in '" + finalPath + "'");
  enforceSizeLimit(digest);
  return llvm::Error::success();
}

llvm::Error rocdsl::DiskCache::remove(StringRef digest) {
  if (!isValidDigest(digest))
    return makeInvalidDigestError(digest);
  std::string path = getEntryPath(digest);
  if (::unlink(path.c_str()) != 0 && errno != ENOENT && errno != ENOTDIR)
    return makeFileError("cannot remove", path, errno);
  return llvm::Error::success();
}

llvm::Expected<std::string> rocdsl::DiskCache::getOrCompute(
    StringRef digest, llvm::function_ref<llvm::Expected<std::string>()> compile,
    CacheTier &tier) {
  tier = CacheTier::Miss;
  if (!isValidDigest(digest))
    return makeInvalidDigestError(digest);
  if (!ensureTrusted())
    return compile();
  std::string path = getEntryPath(digest);

  // Fast path without the lock: entries appear complete (rename), so a valid
  // one can be used at once. Anything else is decided under the lock, where
  // a corrupt entry is reported once.
  if (llvm::Expected<EntryState> state = readEntry(path)) {
    if (state->kind == EntryState::Valid) {
      tier = CacheTier::Disk;
      logDebug("disk cache hit '" + path + "'");
      return std::move(state->payload);
    }
    if (state->kind == EntryState::Untrusted) {
      refuse(state->problem);
      return compile();
    }
  } else {
    logDebug(llvm::toString(state.takeError()));
  }

  llvm::Expected<FileLock> lock = FileLock::acquire(dir, getLockPath(digest));
  if (!lock) {
    reportUnusable(llvm::toString(lock.takeError()));
    return compile();
  }

  // Another process may have stored the entry while we waited for the lock.
  if (llvm::Expected<EntryState> state = readEntry(path)) {
    if (state->kind == EntryState::Valid) {
      tier = CacheTier::Disk;
      logDebug("disk cache hit '" + path + "' after waiting for its lock");
      return std::move(state->payload);
    }
    if (state->kind == EntryState::Corrupt)
      discardCorruptEntry(path, state->problem);
    if (state->kind == EntryState::Untrusted) {
      refuse(state->problem);
      return compile();
    }
  } else {
    reportUnusable(llvm::toString(state.takeError()));
  }

  logDebug("disk cache miss '" + path + "': compiling");
  llvm::Expected<std::string> payload = compile();
  if (!payload)
    return payload.takeError();
  if (refused.load())
    return payload;
  if (llvm::Error err = store(digest, *payload))
    reportUnusable(llvm::toString(std::move(err)));
  return payload;
}
