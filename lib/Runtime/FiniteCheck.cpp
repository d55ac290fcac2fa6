//===- FiniteCheck.cpp - stop on NaN or Inf in a kernel's outputs ---------===//
#include "rocdsl/Runtime/FiniteCheck.h"

#include "rocdsl/Support/Environment.h"
#include "rocdsl/Support/Log.h"

#include "llvm/ADT/StringExtras.h"

#include <atomic>
#include <cstring>
#include <vector>

using namespace mlir;
using namespace mlir::rocdsl;

bool mlir::rocdsl::isFiniteCheckRequested(std::optional<bool> perCall) {
  if (perCall)
    return *perCall;
  return isSwitchOnInEnvironment("ROCDSL_CHECK_FINITE");
}

namespace {

/// Exponent all ones: NaN or infinity, in any IEEE-style format.
template <typename Bits>
std::optional<size_t> scanBits(const void *data, size_t count, Bits mask) {
  const Bits *p = static_cast<const Bits *>(data);
  for (size_t i = 0; i < count; ++i) {
    Bits x;
    std::memcpy(&x, p + i, sizeof(Bits));
    if ((x & mask) == mask)
      return i;
  }
  return std::nullopt;
}

size_t elementBytes(dsl::DType dtype) { return dsl::bitWidth(dtype) / 8; }

bool isFloat(dsl::DType dtype) {
  return dtype == dsl::DType::F32 || dtype == dsl::DType::F16 ||
         dtype == dsl::DType::BF16;
}

/// "nan", "inf" or "-inf" for a non-finite element.
std::string describe(const void *element, dsl::DType dtype) {
  uint32_t bits = 0;
  bool negative = false, nan = false;
  switch (dtype) {
  case dsl::DType::F32:
    std::memcpy(&bits, element, 4);
    negative = bits >> 31;
    nan = (bits & 0x007fffffu) != 0;
    break;
  case dsl::DType::F16: {
    uint16_t h;
    std::memcpy(&h, element, 2);
    negative = h >> 15;
    nan = (h & 0x03ffu) != 0;
    break;
  }
  case dsl::DType::BF16: {
    uint16_t b;
    std::memcpy(&b, element, 2);
    negative = b >> 15;
    nan = (b & 0x007fu) != 0;
    break;
  }
  default:
    break;
  }
  if (nan)
    return "nan";
  return negative ? "-inf" : "inf";
}

std::atomic<bool> warnedCapture{false};

} // namespace

std::optional<size_t> mlir::rocdsl::findFirstNonFinite(const void *data,
                                                       dsl::DType dtype,
                                                       size_t count) {
  switch (dtype) {
  case dsl::DType::F32:
    return scanBits<uint32_t>(data, count, 0x7f800000u);
  case dsl::DType::F16:
    return scanBits<uint16_t>(data, count, 0x7c00u);
  case dsl::DType::BF16:
    return scanBits<uint16_t>(data, count, 0x7f80u);
  default:
    return std::nullopt;
  }
}

llvm::Error mlir::rocdsl::checkOutputsFinite(Launcher &launcher,
                                             llvm::StringRef kernel,
                                             llvm::ArrayRef<OutputView> outputs,
                                             void *stream) {
  bool onHost = launcher.getDevice() == DeviceKind::Host;
  if (!onHost) {
    bool capturing = false;
    if (llvm::Error err = launcher.synchronize(stream, capturing))
      return llvm::createStringError("ROCDSL_CHECK_FINITE: cannot wait for " +
                                     kernel.str() + ": " +
                                     llvm::toString(std::move(err)));
    if (capturing) {
      if (!warnedCapture.exchange(true))
        logWarning("ROCDSL_CHECK_FINITE: launches captured into a CUDA graph "
                   "are not checked (the stream cannot be waited for during "
                   "capture); first seen with " +
                   kernel);
      return llvm::Error::success();
    }
  }
  // GPU outputs come back through a bounded buffer.
  constexpr size_t kChunkBytes = 16 << 20;
  std::vector<char> chunk;
  for (const OutputView &out : outputs) {
    if (!isFloat(out.dtype) || out.count == 0 || !out.data)
      continue;
    size_t bytes = elementBytes(out.dtype);
    std::optional<size_t> bad;
    const void *badElement = nullptr;
    if (onHost) {
      bad = findFirstNonFinite(out.data, out.dtype, out.count);
      if (bad)
        badElement = static_cast<const char *>(out.data) + *bad * bytes;
    } else {
      size_t perChunk = kChunkBytes / bytes;
      chunk.resize(std::min(out.count, perChunk) * bytes);
      for (size_t start = 0; start < out.count && !bad; start += perChunk) {
        size_t n = std::min(perChunk, out.count - start);
        if (llvm::Error err = launcher.readBack(
                chunk.data(),
                static_cast<const char *>(out.data) + start * bytes,
                n * bytes))
          return llvm::createStringError(
              "ROCDSL_CHECK_FINITE: cannot read output '" + out.name +
              "' of " + kernel.str() + ": " + llvm::toString(std::move(err)));
        if (std::optional<size_t> at =
                findFirstNonFinite(chunk.data(), out.dtype, n)) {
          bad = start + *at;
          badElement = chunk.data() + *at * bytes;
        }
      }
    }
    if (bad)
      return llvm::createStringError(
          "non-finite output: " + kernel.str() + " wrote " +
          describe(badElement, out.dtype) + " to '" + out.name +
          "' at element " + std::to_string(*bad) + " of " +
          std::to_string(out.count) + " (" +
          dsl::toString(out.dtype).str() + "; ROCDSL_CHECK_FINITE)");
  }
  return llvm::Error::success();
}
