//===- CacheKeyTest.cpp - cache key digests -------------------------------===//
#include "rocdsl/Runtime/CacheKey.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/SHA256.h"

#include <gtest/gtest.h>

#include <functional>
#include <set>

using namespace mlir;
using namespace mlir::rocdsl;

namespace {

CacheKey makeKey() {
  CacheKey key;
  key.kernelFingerprint = "gpu.module @kernels {\n  gpu.func @rmsnorm_fwd() "
                          "kernel { gpu.return }\n}\n";
  key.constexprs = {{"BLOCK", "256"}, {"N", "4096"}, {"dtype", "bf16"}};
  key.argSignature = {"memref<?x4096xbf16> align=16 div(1)=8",
                      "memref<?x4096xbf16> align=16 div(1)=8", "f32"};
  key.target.chip = "gfx942";
  key.target.features = "+sramecc,-xnack";
  key.target.waveSize = 64;
  key.compileOptions = {{"opt-level", "3"}, {"fast-math", "false"}};
  key.compiler.version = "0.1.0";
  key.compiler.buildId = "6566a12";
  key.compiler.pipeline = "rocdsl-to-rocdl{opt-level=3}";
  key.compiler.isaCheckVersion = "1";
  return key;
}

/// The digest of makeKey() with `mutate` applied differs from makeKey()'s.
void expectDigestChanges(llvm::function_ref<void(CacheKey &)> mutate) {
  CacheKey base = makeKey();
  CacheKey changed = makeKey();
  mutate(changed);
  EXPECT_NE(base.digest(), changed.digest())
      << "base:    " << base.describe() << "\nchanged: " << changed.describe();
}

TEST(CacheKeyTest, DigestIsHexSHA256OfCanonicalForm) {
  CacheKey key = makeKey();
  std::string digest = key.digest();
  ASSERT_EQ(digest.size(), 64u);
  for (char c : digest)
    EXPECT_TRUE(llvm::isDigit(c) || (c >= 'a' && c <= 'f')) << digest;
  std::string canonical = key.canonicalForm();
  EXPECT_EQ(digest, llvm::toHex(llvm::SHA256::hash(llvm::arrayRefFromStringRef(
                                    llvm::StringRef(canonical))),
                                /*LowerCase=*/true));
}

TEST(CacheKeyTest, EqualKeysHaveEqualDigests) {
  CacheKey a = makeKey();
  CacheKey b = makeKey();
  EXPECT_EQ(a.digest(), b.digest());
  CacheKey copy = a;
  EXPECT_EQ(a.digest(), copy.digest());
  // Computing the digest is repeatable.
  EXPECT_EQ(a.digest(), a.digest());
}

TEST(CacheKeyTest, KernelFingerprintChangesDigest) {
  expectDigestChanges([](CacheKey &k) { k.kernelFingerprint += " "; });
  expectDigestChanges([](CacheKey &k) { k.kernelFingerprint.clear(); });
}

TEST(CacheKeyTest, ConstexprValueChangesDigest) {
  expectDigestChanges([](CacheKey &k) { k.constexprs["BLOCK"] = "512"; });
  expectDigestChanges([](CacheKey &k) { k.constexprs["dtype"] = "f16"; });
}

TEST(CacheKeyTest, ConstexprNameChangesDigest) {
  expectDigestChanges([](CacheKey &k) {
    k.constexprs.erase("BLOCK");
    k.constexprs["BLOCK_M"] = "256";
  });
}

TEST(CacheKeyTest, ConstexprAddedOrRemovedChangesDigest) {
  expectDigestChanges([](CacheKey &k) { k.constexprs["EPS_IS_ZERO"] = "0"; });
  expectDigestChanges([](CacheKey &k) { k.constexprs.erase("N"); });
  // An empty value is still a value.
  expectDigestChanges([](CacheKey &k) { k.constexprs[""] = ""; });
}

TEST(CacheKeyTest, ArgSignatureChangesDigest) {
  expectDigestChanges([](CacheKey &k) {
    k.argSignature[0] = "memref<?x4096xbf16> align=8 div(1)=8";
  });
  expectDigestChanges([](CacheKey &k) { k.argSignature[2] = "f64"; });
  expectDigestChanges([](CacheKey &k) { k.argSignature.push_back("i32"); });
  expectDigestChanges([](CacheKey &k) { k.argSignature.pop_back(); });
  // Argument order matters.
  expectDigestChanges(
      [](CacheKey &k) { std::swap(k.argSignature[1], k.argSignature[2]); });
}

TEST(CacheKeyTest, TargetChipChangesDigest) {
  expectDigestChanges([](CacheKey &k) { k.target.chip = "gfx950"; });
}

TEST(CacheKeyTest, TargetFeaturesChangesDigest) {
  expectDigestChanges(
      [](CacheKey &k) { k.target.features = "+sramecc,+xnack"; });
  expectDigestChanges([](CacheKey &k) { k.target.features.clear(); });
}

TEST(CacheKeyTest, TargetWaveSizeChangesDigest) {
  expectDigestChanges([](CacheKey &k) { k.target.waveSize = 32; });
}

TEST(CacheKeyTest, CompileOptionsChangesDigest) {
  expectDigestChanges([](CacheKey &k) { k.compileOptions["opt-level"] = "2"; });
  expectDigestChanges([](CacheKey &k) { k.compileOptions["unroll"] = "4"; });
  expectDigestChanges([](CacheKey &k) { k.compileOptions.clear(); });
}

TEST(CacheKeyTest, CompilerVersionChangesDigest) {
  expectDigestChanges([](CacheKey &k) { k.compiler.version = "0.1.1"; });
}

TEST(CacheKeyTest, CompilerBuildIdChangesDigest) {
  expectDigestChanges([](CacheKey &k) { k.compiler.buildId = "6566a13"; });
}

TEST(CacheKeyTest, CompilerPipelineChangesDigest) {
  expectDigestChanges([](CacheKey &k) {
    k.compiler.pipeline = "rocdsl-to-rocdl{opt-level=2}";
  });
}

TEST(CacheKeyTest, CompilerIsaCheckVersionChangesDigest) {
  expectDigestChanges([](CacheKey &k) { k.compiler.isaCheckVersion = "2"; });
}

TEST(CacheKeyTest, MapInsertionOrderDoesNotChangeDigest) {
  std::vector<std::pair<std::string, std::string>> entries;
  for (int i = 0; i < 32; ++i)
    entries.emplace_back("name" + std::to_string((i * 7) % 32),
                         "value" + std::to_string(i));

  CacheKey forward = makeKey(), backward = makeKey();
  forward.constexprs.clear();
  backward.constexprs.clear();
  forward.compileOptions.clear();
  backward.compileOptions.clear();
  for (const auto &[name, value] : entries) {
    forward.constexprs[name] = value;
    forward.compileOptions.emplace(name, value);
  }
  for (auto it = entries.rbegin(); it != entries.rend(); ++it) {
    backward.constexprs.insert(*it);
    backward.compileOptions[it->first] = it->second;
  }
  EXPECT_EQ(forward.digest(), backward.digest());
  EXPECT_EQ(forward.describe(), backward.describe());

  // The maps are in the digest at all: the same test must see a change.
  backward.constexprs["name3"] = "other";
  EXPECT_NE(forward.digest(), backward.digest());
}

TEST(CacheKeyTest, FieldBoundariesAreUnambiguous) {
  // Text moved across a boundary must change the digest, which a plain
  // concatenation of the fields would not.
  CacheKey a = makeKey(), b = makeKey();
  a.argSignature = {"ab", "c"};
  b.argSignature = {"a", "bc"};
  EXPECT_NE(a.digest(), b.digest());

  a = makeKey(), b = makeKey();
  a.argSignature = {};
  b.argSignature = {""};
  EXPECT_NE(a.digest(), b.digest());

  a = makeKey(), b = makeKey();
  a.constexprs = {{"a", "bc"}};
  b.constexprs = {{"ab", "c"}};
  EXPECT_NE(a.digest(), b.digest());

  // The same entry in a different map.
  a = makeKey(), b = makeKey();
  a.constexprs["x"] = "1";
  b.compileOptions["x"] = "1";
  EXPECT_NE(a.digest(), b.digest());

  // Between adjacent string fields.
  a = makeKey(), b = makeKey();
  a.target.chip = "gfx942+";
  a.target.features = "xnack";
  b.target.chip = "gfx942";
  b.target.features = "+xnack";
  EXPECT_NE(a.digest(), b.digest());

  a = makeKey(), b = makeKey();
  a.compiler.version = "1";
  a.compiler.buildId = "";
  b.compiler.version = "";
  b.compiler.buildId = "1";
  EXPECT_NE(a.digest(), b.digest());

  // A string that imitates the serialization of two list entries.
  a = makeKey(), b = makeKey();
  a.argSignature = {"a", "b"};
  b.argSignature = {"a,1:b"};
  EXPECT_NE(a.digest(), b.digest());
}

TEST(CacheKeyTest, AllComponentsGiveDistinctDigests) {
  std::vector<std::function<void(CacheKey &)>> mutations = {
      [](CacheKey &) {},
      [](CacheKey &k) { k.kernelFingerprint = "x"; },
      [](CacheKey &k) { k.constexprs["x"] = "x"; },
      [](CacheKey &k) { k.argSignature.push_back("x"); },
      [](CacheKey &k) { k.target.chip = "x"; },
      [](CacheKey &k) { k.target.features = "x"; },
      [](CacheKey &k) { k.target.waveSize = 1; },
      [](CacheKey &k) { k.compileOptions["x"] = "x"; },
      [](CacheKey &k) { k.compiler.version = "x"; },
      [](CacheKey &k) { k.compiler.buildId = "x"; },
      [](CacheKey &k) { k.compiler.pipeline = "x"; },
      [](CacheKey &k) { k.compiler.isaCheckVersion = "x"; },
  };
  std::set<std::string> digests;
  for (const auto &mutate : mutations) {
    CacheKey key = makeKey();
    mutate(key);
    digests.insert(key.digest());
  }
  EXPECT_EQ(digests.size(), mutations.size());
}

TEST(CacheKeyTest, DescribeIsOneReadableLine) {
  CacheKey key = makeKey();
  key.kernelFingerprint = std::string(1000, 'k') + "\n" + "tail";
  std::string text = key.describe();
  EXPECT_EQ(text.find('\n'), std::string::npos) << text;
  EXPECT_NE(text.find("BLOCK=256"), std::string::npos) << text;
  EXPECT_NE(text.find("gfx942"), std::string::npos) << text;
  EXPECT_NE(text.find("+sramecc,-xnack"), std::string::npos) << text;
  EXPECT_NE(text.find("wave64"), std::string::npos) << text;
  EXPECT_NE(text.find("opt-level=3"), std::string::npos) << text;
  EXPECT_NE(text.find("f32"), std::string::npos) << text;
  EXPECT_NE(text.find("0.1.0"), std::string::npos) << text;
  // The IR is abbreviated to its size and a hash prefix.
  EXPECT_NE(text.find("<1005 bytes, sha256 "), std::string::npos) << text;
  EXPECT_LT(text.size(), 600u) << text;
}

} // namespace
