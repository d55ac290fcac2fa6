//===- Environment.h - on/off switches read from the environment -*- C++ -*-===//
#ifndef ROCDSL_SUPPORT_ENVIRONMENT_H
#define ROCDSL_SUPPORT_ENVIRONMENT_H

namespace mlir::rocdsl {

/// Whether the switch `name` (e.g. ROCDSL_CACHE_DISABLE) is on: set to
/// anything but "", "0", "false", "no" or "off" (case-insensitive, spaces
/// around ignored). Read each call, so a process may flip it.
bool isSwitchOnInEnvironment(const char *name);

} // namespace mlir::rocdsl

#endif
