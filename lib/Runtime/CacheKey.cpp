//===- CacheKey.cpp - identity of a compiled kernel -----------------------===//
#include "rocdsl/Runtime/CacheKey.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using llvm::StringRef;

namespace {

/// Bump when the serialization below changes, so old digests stop matching.
constexpr StringRef kCanonicalFormTag = "rocdsl-cache-key/1";

class CanonicalWriter {
public:
  explicit CanonicalWriter(std::string &out) : os(out) {}

  /// `<size>:<bytes>,` -- the size makes every boundary unambiguous.
  void string(StringRef s) { os << s.size() << ':' << s << ','; }

  void field(StringRef name, StringRef value) {
    string(name);
    string(value);
  }

  void field(StringRef name, const std::vector<std::string> &values) {
    string(name);
    os << '#' << values.size() << ';';
    for (const std::string &value : values)
      string(value);
  }

  /// std::map iterates in key order, whatever the insertion order was.
  void field(StringRef name, const std::map<std::string, std::string> &map) {
    string(name);
    os << '#' << map.size() << ';';
    for (const auto &[key, value] : map) {
      string(key);
      string(value);
    }
  }

private:
  llvm::raw_string_ostream os;
};

/// Short, single-line form of a possibly long or multi-line field.
std::string abbreviate(StringRef s) {
  constexpr size_t kMaxInline = 64;
  if (s.size() <= kMaxInline && !s.contains('\n') && !s.contains('\r'))
    return s.str();
  std::string hex =
      llvm::toHex(llvm::SHA256::hash(llvm::arrayRefFromStringRef(s)),
                  /*LowerCase=*/true);
  return "<" + std::to_string(s.size()) + " bytes, sha256 " +
         hex.substr(0, 12) + ">";
}

void describeMap(llvm::raw_ostream &os,
                 const std::map<std::string, std::string> &map) {
  os << '{';
  llvm::ListSeparator sep(", ");
  for (const auto &[key, value] : map)
    os << sep << abbreviate(key) << '=' << abbreviate(value);
  os << '}';
}

} // namespace

std::string rocdsl::CacheKey::canonicalForm() const {
  std::string out;
  CanonicalWriter writer(out);
  writer.string(kCanonicalFormTag);
  writer.field("kernel", kernelFingerprint);
  writer.field("constexprs", constexprs);
  writer.field("args", argSignature);
  writer.field("target.chip", target.chip);
  writer.field("target.features", target.features);
  writer.field("target.wave-size", std::to_string(target.waveSize));
  writer.field("options", compileOptions);
  writer.field("compiler.version", compiler.version);
  writer.field("compiler.build-id", compiler.buildId);
  writer.field("compiler.pipeline", compiler.pipeline);
  writer.field("compiler.isa-check-version", compiler.isaCheckVersion);
  return out;
}

std::string rocdsl::CacheKey::digest() const {
  std::string canonical = canonicalForm();
  return llvm::toHex(
      llvm::SHA256::hash(llvm::arrayRefFromStringRef(StringRef(canonical))),
      /*LowerCase=*/true);
}

std::string rocdsl::CacheKey::describe() const {
  std::string out;
  llvm::raw_string_ostream os(out);
  os << "kernel=" << abbreviate(kernelFingerprint) << " constexprs=";
  describeMap(os, constexprs);
  os << " args=[";
  llvm::ListSeparator sep(", ");
  for (const std::string &arg : argSignature)
    os << sep << abbreviate(arg);
  os << "] target=" << abbreviate(target.chip);
  if (!target.features.empty())
    os << ':' << abbreviate(target.features);
  os << " wave" << target.waveSize << " options=";
  describeMap(os, compileOptions);
  os << " compiler=" << abbreviate(compiler.version)
     << " build=" << abbreviate(compiler.buildId)
     << " pipeline=" << abbreviate(compiler.pipeline)
     << " isa-check=" << abbreviate(compiler.isaCheckVersion);
  return out;
}
