//===- RuntimeTestEnvironment.h - a private cache for runtime tests -------===//
//
// The runtime reads ROCDSL_CACHE_DIR once, when first used; every test
// binary that touches it points it at a fresh temporary directory first, so
// tests never read or pollute a user's cache.
//
//===----------------------------------------------------------------------===//
#ifndef ROCDSL_TEST_UNITTESTS_RUNTIMETESTENVIRONMENT_H
#define ROCDSL_TEST_UNITTESTS_RUNTIMETESTENVIRONMENT_H

#include <cstdlib>
#include <string>

namespace mlir::rocdsl::testing {

inline const std::string &privateCacheDir() {
  static const std::string dir = [] {
    char pattern[] = "/tmp/rocdsl-unittests-XXXXXX";
    const char *made = mkdtemp(pattern);
    std::string path = made ? made : "/tmp/rocdsl-unittests";
    setenv("ROCDSL_CACHE_DIR", path.c_str(), 1);
    unsetenv("ROCDSL_CACHE_DISABLE");
    return path;
  }();
  return dir;
}

// Runs before main(), hence before any test uses the runtime.
inline const bool kPrivateCacheReady = !privateCacheDir().empty();

} // namespace mlir::rocdsl::testing

#endif
