//===- FuzzRegressionTest.cpp - every fuzzing finding stays fixed ---------===//
//
// Each input the fuzzers found a crash, hang or sanitizer report with is
// kept under test/fuzz/regressions/<target>/ and replayed here through the
// same target body, in every build (the sanitizer build too). A crash fails
// the test process; a target must also keep rejecting nothing silently
// that it used to accept, which the bodies assert themselves.
//
//===----------------------------------------------------------------------===//
#include "FuzzSupport.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

using namespace mlir::rocdsl;

namespace {

struct Target {
  const char *dir;
  int (*run)(const uint8_t *, size_t);
};

const Target kTargets[] = {
    {"ir", fuzz::runIR},
    {"assembly", fuzz::runAssembly},
    {"code-object", fuzz::runCodeObject},
    {"cache-entry", fuzz::runCacheEntry},
    {"source-kernel", fuzz::runSourceKernel},
    {"emulator", fuzz::runEmulator},
};

std::vector<std::string> listInputs(const std::string &dir) {
  std::vector<std::string> files;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(dir, ec), end; !ec && it != end;
       it.increment(ec))
    if (llvm::sys::fs::is_regular_file(it->path()) &&
        llvm::sys::path::filename(it->path()) != "README")
      files.push_back(it->path());
  std::sort(files.begin(), files.end());
  return files;
}

class FuzzRegressionTest : public ::testing::TestWithParam<Target> {};

TEST_P(FuzzRegressionTest, SavedFindingsRunCleanly) {
  llvm::SmallString<256> dir(ROCDSL_FUZZ_REGRESSIONS_DIR);
  llvm::sys::path::append(dir, GetParam().dir);
  std::vector<std::string> inputs = listInputs(std::string(dir));
  for (const std::string &path : inputs) {
    auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false);
    ASSERT_TRUE(bool(buffer)) << path;
    SCOPED_TRACE(path);
    const auto *data =
        reinterpret_cast<const uint8_t *>((*buffer)->getBufferStart());
    int result = GetParam().run(data, (*buffer)->getBufferSize());
    EXPECT_TRUE(result == 0 || result == -1) << path;
  }
  std::printf("%zu saved input(s) for %s\n", inputs.size(), GetParam().dir);
}

INSTANTIATE_TEST_SUITE_P(Targets, FuzzRegressionTest,
                         ::testing::ValuesIn(kTargets),
                         [](const ::testing::TestParamInfo<Target> &info) {
                           std::string name = info.param.dir;
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

} // namespace
