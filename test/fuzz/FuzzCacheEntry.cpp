//===- FuzzCacheEntry.cpp - disk-cache entry reader -----------------------===//
//
// Arbitrary bytes as the file of a cache entry. The reader must reject
// anything but a well-formed entry; whatever it accepts must be exactly the
// bytes after the header (a payload never comes out altered or partial).
//
//===----------------------------------------------------------------------===//
#include "FuzzSupport.h"

#include "rocdsl/Runtime/DiskCache.h"
#include "rocdsl/Support/Log.h"

#include <cstdio>
#include <cstdlib>
#include <fcntl.h>
#include <string>
#include <unistd.h>

using namespace mlir::rocdsl;

namespace {
const char *const kDigest = "fuzzentry";

const std::string &getDirectory() {
  static const std::string dir = [] {
    char pattern[] = "/tmp/rocdsl-fuzz-cache-XXXXXX";
    const char *made = ::mkdtemp(pattern);
    if (!made)
      std::abort();
    return std::string(made);
  }();
  return dir;
}
} // namespace

int mlir::rocdsl::fuzz::runCacheEntry(const uint8_t *data, size_t size) {
  DiskCache cache(getDirectory());
  std::string path = cache.getEntryPath(kDigest);
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0)
    std::abort();
  size_t written = 0;
  while (written < size) {
    ssize_t n = ::write(fd, data + written, size - written);
    if (n <= 0)
      std::abort();
    written += size_t(n);
  }
  ::close(fd);
  // Corrupt entries are reported as warnings: expected here, not output.
  LogHandler previous = setLogHandler([](LogLevel, llvm::StringRef) {});
  llvm::Expected<std::optional<std::string>> loaded = cache.load(kDigest);
  setLogHandler(std::move(previous));
  if (!loaded) {
    llvm::consumeError(loaded.takeError());
    return 0;
  }
  if (*loaded) {
    const std::string &payload = **loaded;
    if (size < DiskCache::kHeaderSize ||
        payload.size() != size - DiskCache::kHeaderSize ||
        payload.compare(0, payload.size(),
                        reinterpret_cast<const char *>(data) +
                            DiskCache::kHeaderSize,
                        payload.size()) != 0)
      std::abort(); // an accepted entry must be its bytes after the header
  }
  ::unlink(path.c_str());
  return 0;
}

#ifdef ROCDSL_LIBFUZZER
extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  return mlir::rocdsl::fuzz::runCacheEntry(data, size);
}
#endif
