//===- DiskCache.cpp - compiled-kernel cache: disk tier -------------------===//
#include "rocdsl/Runtime/DiskCache.h"

#include "rocdsl/Support/Log.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SHA256.h"

#include <array>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include <fcntl.h>
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

/// An exclusive flock(2) on a lock file, released on destruction. flock locks
/// belong to the open file description, so they also exclude other threads
/// of this process (each opens the file itself), and the kernel drops them if
/// the process dies.
class FileLock {
public:
  static llvm::Expected<FileLock> acquire(StringRef dir,
                                          const std::string &path) {
    llvm::Expected<FileDescriptor> fd =
        openInDirectory(dir, path, O_RDWR | O_CREAT, 0600);
    if (!fd)
      return fd.takeError();
    int result;
    do
      result = ::flock(fd->get(), LOCK_EX);
    while (result != 0 && errno == EINTR);
    if (result != 0)
      return makeFileError("cannot lock", path, errno);
    return FileLock(std::move(*fd));
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
  enum Kind { Absent, Valid, Corrupt } kind = Absent;
  std::string payload; // Valid
  std::string problem; // Corrupt
};

llvm::Expected<EntryState> readEntry(const std::string &path) {
  EntryState state;
  FileDescriptor fd(openRetryingEINTR(path, O_RDONLY));
  if (!fd) {
    // ENOTDIR: a component of the directory is not one; nothing is stored.
    if (errno == ENOENT || errno == ENOTDIR)
      return state;
    return makeFileError("cannot open", path, errno);
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

bool isFalseString(StringRef value) {
  value = value.trim();
  return value.empty() || value == "0" || value.equals_insensitive("false") ||
         value.equals_insensitive("no") || value.equals_insensitive("off");
}

std::optional<std::string> getNonEmptyEnv(const char *name) {
  const char *value = std::getenv(name);
  if (!value || !*value)
    return std::nullopt;
  return std::string(value);
}

/// Distinguishes the temporary files of one process.
std::atomic<uint64_t> tempFileCounter{0};

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

rocdsl::DiskCache::DiskCache(std::string directory)
    : dir(std::move(directory)) {}

bool rocdsl::DiskCache::isDisabledByEnvironment() {
  const char *value = std::getenv("ROCDSL_CACHE_DISABLE");
  return value && !isFalseString(value);
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
  return std::make_unique<DiskCache>(std::move(*dir));
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
  std::string path = getEntryPath(digest);
  llvm::Expected<EntryState> state = readEntry(path);
  if (!state)
    return state.takeError();
  if (state->kind == EntryState::Valid)
    return std::optional<std::string>(std::move(state->payload));
  if (state->kind == EntryState::Absent)
    return std::nullopt;

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
  return std::nullopt;
}

llvm::Error rocdsl::DiskCache::store(StringRef digest, StringRef payload) {
  if (!isValidDigest(digest))
    return makeInvalidDigestError(digest);
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
  } else {
    reportUnusable(llvm::toString(state.takeError()));
  }

  logDebug("disk cache miss '" + path + "': compiling");
  llvm::Expected<std::string> payload = compile();
  if (!payload)
    return payload.takeError();
  if (llvm::Error err = store(digest, *payload))
    reportUnusable(llvm::toString(std::move(err)));
  return payload;
}
