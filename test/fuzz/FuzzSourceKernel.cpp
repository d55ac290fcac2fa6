//===- FuzzSourceKernel.cpp - kernels given as IR text (the Python path) --===//
//
// The first line names the kernel, the rest is its rocdsl IR text, as the
// Python DSL hands them to SourceKernel. Creation parses, verifies and
// derives the argument signature; validation checks launch arguments
// against it. Both must fail cleanly on anything malformed.
//
//===----------------------------------------------------------------------===//
#include "FuzzSupport.h"

#include "rocdsl/Runtime/SourceKernel.h"

using namespace mlir::rocdsl;

int mlir::rocdsl::fuzz::runSourceKernel(const uint8_t *data, size_t size) {
  if (size > fuzz::kMaxInputBytes)
    return -1;
  llvm::StringRef input(reinterpret_cast<const char *>(data), size);
  auto [name, source] = input.split('\n');
  auto kernel = SourceKernel::create(source, name.trim(), DeviceKind::Host);
  if (!kernel) {
    llvm::consumeError(kernel.takeError());
    return 0;
  }
  // Launch arguments that are wrong in every way the signature can tell:
  // none, null pointers, and scalars where pointers belong.
  float buffer[64] = {};
  std::vector<ArgValue> none, nulls, scalars;
  for (const SourceArg &arg : (*kernel)->getArgs()) {
    nulls.push_back(ArgValue::of({nullptr, arg.dtype, {64}, {}}));
    scalars.push_back(ArgValue::ofI32(7));
    (void)arg;
  }
  for (auto *values : {&none, &nulls, &scalars})
    llvm::consumeError((*kernel)->validate(*values));
  std::vector<ArgValue> good;
  for (const SourceArg &arg : (*kernel)->getArgs())
    good.push_back(arg.kind == ArgKind::Tensor
                       ? ArgValue::of({buffer, arg.dtype, {64}, {}})
                       : (arg.kind == ArgKind::Int32 ? ArgValue::ofI32(1)
                                                     : ArgValue::ofF32(1.0f)));
  llvm::consumeError((*kernel)->validate(good));
  return 0;
}

#ifdef ROCDSL_LIBFUZZER
extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  return mlir::rocdsl::fuzz::runSourceKernel(data, size);
}
#endif
