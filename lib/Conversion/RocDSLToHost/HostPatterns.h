//===- HostPatterns.h - rocdsl -> host pattern sets -------------*- C++ -*-===//
#ifndef ROCDSL_LIB_CONVERSION_HOSTPATTERNS_H
#define ROCDSL_LIB_CONVERSION_HOSTPATTERNS_H

#include "rocdsl/Dialect/RocDSL/IR/RocDSL.h"

#include "mlir/Transforms/DialectConversion.h"

namespace mlir::rocdsl {

/// Tiles -> n-D vectors of their shape, !rocdsl.ptr -> !llvm.ptr,
/// !rocdsl.lds -> memref.
class HostTypeConverter : public TypeConverter {
public:
  explicit HostTypeConverter(MLIRContext *ctx);
};

/// Trailing i32 arguments the host kernel gets after the kernel's own:
/// pid_x, pid_y, pid_z, num_programs_x, num_programs_y, num_programs_z.
constexpr unsigned kHostGridArgs = 6;

void populateHostKernelPatterns(HostTypeConverter &converter,
                                RewritePatternSet &patterns);
void populateHostTilePatterns(HostTypeConverter &converter,
                              RewritePatternSet &patterns);
void populateHostMemoryPatterns(HostTypeConverter &converter,
                                RewritePatternSet &patterns);

} // namespace mlir::rocdsl

#endif
