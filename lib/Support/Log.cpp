//===- Log.cpp - rocdsl runtime diagnostics on stderr ---------------------===//
#include "rocdsl/Support/Log.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <mutex>
#include <string>

using namespace mlir;
using llvm::StringRef;

namespace {

struct LogState {
  std::mutex mutex;
  rocdsl::LogHandler handler;
};

LogState &getState() {
  static LogState state;
  return state;
}

StringRef getLevelName(rocdsl::LogLevel level) {
  switch (level) {
  case rocdsl::LogLevel::Warning:
    return "warning";
  case rocdsl::LogLevel::Info:
    return "info";
  case rocdsl::LogLevel::Debug:
    return "debug";
  }
  return "unknown";
}

/// Writes one message, unconditionally. Does not consult the level, so it
/// can be used while the level itself is being computed.
void emit(rocdsl::LogLevel level, StringRef message) {
  std::string line;
  line.reserve(message.size() + 24);
  line += "rocdsl: ";
  line += getLevelName(level);
  line += ": ";
  line += message;
  line += '\n';
  std::lock_guard<std::mutex> lock(getState().mutex);
  if (getState().handler) {
    getState().handler(level, message);
    return;
  }
  // errs() is unbuffered: one << is one write(2), so the lines of concurrent
  // processes do not interleave either.
  llvm::errs() << line;
}

rocdsl::LogLevel computeLogLevel() {
  const char *env = std::getenv("ROCDSL_LOG");
  StringRef value = env ? StringRef(env) : StringRef();
  if (std::optional<rocdsl::LogLevel> level = rocdsl::parseLogLevel(value))
    return *level;
  emit(rocdsl::LogLevel::Warning,
       "ignoring ROCDSL_LOG='" + value.str() +
           "' (expected 'warning', 'info' or 'debug'); printing warnings only");
  return rocdsl::LogLevel::Warning;
}

} // namespace

std::optional<rocdsl::LogLevel> rocdsl::parseLogLevel(StringRef value) {
  value = value.trim();
  if (value.empty() || value.equals_insensitive("warning") ||
      value.equals_insensitive("warn"))
    return LogLevel::Warning;
  if (value.equals_insensitive("info"))
    return LogLevel::Info;
  if (value.equals_insensitive("debug"))
    return LogLevel::Debug;
  return std::nullopt;
}

rocdsl::LogLevel rocdsl::getLogLevel() {
  static const LogLevel level = computeLogLevel();
  return level;
}

bool rocdsl::logEnabled(LogLevel level) {
  return static_cast<int>(level) <= static_cast<int>(getLogLevel());
}

void rocdsl::log(LogLevel level, const llvm::Twine &message) {
  if (!logEnabled(level))
    return;
  llvm::SmallString<256> storage;
  emit(level, message.toStringRef(storage));
}

void rocdsl::logWarning(const llvm::Twine &message) {
  log(LogLevel::Warning, message);
}

void rocdsl::logInfo(const llvm::Twine &message) {
  log(LogLevel::Info, message);
}

void rocdsl::logDebug(const llvm::Twine &message) {
  log(LogLevel::Debug, message);
}

rocdsl::LogHandler rocdsl::setLogHandler(LogHandler handler) {
  // Settle the level first: computing it may emit, which takes the mutex.
  (void)getLogLevel();
  std::lock_guard<std::mutex> lock(getState().mutex);
  std::swap(handler, getState().handler);
  return handler;
}
