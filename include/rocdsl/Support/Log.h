//===- Log.h - rocdsl runtime diagnostics on stderr -------------*- C++ -*-===//
//
// Messages of the runtime (kernel cache, launcher) go to stderr, one line
// each, prefixed with "rocdsl: " and the level.
//
// Environment:
//   ROCDSL_LOG  How much to print. Unset or empty: warnings only.
//               "warning": warnings only; "info": warnings and info;
//               "debug": everything. Case-insensitive. Any other value prints
//               one warning and falls back to warnings only. Read once, on
//               the first log call of the process.
//
// All functions are thread-safe: lines are written whole, under one mutex.
//
//===----------------------------------------------------------------------===//
#ifndef ROCDSL_SUPPORT_LOG_H
#define ROCDSL_SUPPORT_LOG_H

#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"

#include <functional>
#include <optional>

namespace mlir::rocdsl {

/// Ordered by verbosity: a level is enabled when it is <= the current one.
enum class LogLevel { Warning = 0, Info = 1, Debug = 2 };

/// Parses a ROCDSL_LOG value; std::nullopt for an unrecognized one. An empty
/// value means the default, LogLevel::Warning.
std::optional<LogLevel> parseLogLevel(llvm::StringRef value);

/// The level selected by ROCDSL_LOG (computed once per process).
LogLevel getLogLevel();

/// Whether messages of `level` are printed. Warnings always are.
bool logEnabled(LogLevel level);

/// Prints `message` at `level` if that level is enabled.
void log(LogLevel level, const llvm::Twine &message);
void logWarning(const llvm::Twine &message);
void logInfo(const llvm::Twine &message);
void logDebug(const llvm::Twine &message);

/// Receives the enabled messages (without the "rocdsl: <level>: " prefix)
/// instead of stderr. It is called under the log mutex, so calls are
/// serialized; it must not log itself.
using LogHandler = std::function<void(LogLevel, llvm::StringRef)>;

/// Installs `handler` (an empty one restores stderr); returns the previous.
LogHandler setLogHandler(LogHandler handler);

} // namespace mlir::rocdsl

#endif // ROCDSL_SUPPORT_LOG_H
