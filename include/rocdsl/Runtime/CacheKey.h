//===- CacheKey.h - identity of a compiled kernel ---------------*- C++ -*-===//
//
// Everything that can change the code the compiler emits for a kernel launch.
// Two launches may share a compiled kernel exactly when their keys have the
// same digest.
//
//===----------------------------------------------------------------------===//
#ifndef ROCDSL_RUNTIME_CACHEKEY_H
#define ROCDSL_RUNTIME_CACHEKEY_H

#include <map>
#include <string>
#include <vector>

namespace mlir::rocdsl {

/// The device the kernel is compiled for.
struct CacheTarget {
  /// Chip name, e.g. "gfx942".
  std::string chip;
  /// Target features, e.g. "+sramecc,-xnack". Compared as text: callers pass
  /// them in a canonical order.
  std::string features;
  /// Lanes per wave (32 or 64).
  unsigned waveSize = 64;
};

/// The compiler that produced the code. Any change to it invalidates every
/// cached kernel.
struct CompilerFingerprint {
  std::string version;
  /// Identifies the build (e.g. a VCS revision or build timestamp).
  std::string buildId;
  /// Textual description of the lowering pipeline (passes and options).
  std::string pipeline;
  /// Version of the ISA checks applied to the emitted code.
  std::string isaCheckVersion;
};

struct CacheKey {
  /// Canonical IR text of the kernel, or a hash of its source.
  std::string kernelFingerprint;
  /// Constexpr / specialization values, name -> printed value. Values of
  /// different kinds should print differently (e.g. "4" vs "4.0").
  std::map<std::string, std::string> constexprs;
  /// One entry per kernel argument: dtype, rank, alignment and divisibility
  /// facts, e.g. "memref<?xbf16> align=16 div(0)=8".
  std::vector<std::string> argSignature;
  CacheTarget target;
  /// Compile options, name -> value (e.g. "opt-level" -> "3").
  std::map<std::string, std::string> compileOptions;
  CompilerFingerprint compiler;

  /// Lowercase hex SHA-256 (64 characters) of canonicalForm().
  std::string digest() const;

  /// Unambiguous serialization of every field: a format tag, then each field
  /// in a fixed order, strings length-prefixed, lists and maps count-prefixed,
  /// maps in key order. Equal keys give equal text, different keys different
  /// text.
  std::string canonicalForm() const;

  /// One line for logs; long fields (IR text) are abbreviated to their size
  /// and a hash prefix.
  std::string describe() const;
};

} // namespace mlir::rocdsl

#endif // ROCDSL_RUNTIME_CACHEKEY_H
