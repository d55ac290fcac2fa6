//===- StagedWalk.h - a loop's steps staged through LDS ---------*- C++ -*-===//
//
// The schedule every kernel with asynchronous copies into N LDS buffers
// shares (attention's KV and query walks, the RMSNorm backward's row
// tiles): copies of the first N - 1 steps before the loop, then at each
// step a wait, a barrier and the copies N - 1 steps ahead.
//
//===----------------------------------------------------------------------===//
#ifndef ROCDSL_KERNELS_COMMON_STAGEDWALK_H
#define ROCDSL_KERNELS_COMMON_STAGEDWALK_H

#include "rocdsl/DSL/DSL.h"

namespace mlir::rocdsl {

/// An asynchronous walk over steps `step` apart from `lo` with `stages`
/// LDS buffers: step i lives in buffer i mod stages, and the copies of
/// step i + stages - 1 are issued right after step i's barrier, into the
/// buffer the step before read. One group is committed per step, empty or
/// not, so the counts stay exact; copies past the walk's end are the
/// caller's to bound (they then copy nothing).
struct StagedWalk {
  dsl::KernelBuilder &kb;
  dsl::Scalar lo;
  /// Distance between steps (rows of a tile, or a grid-strided stride).
  dsl::Scalar step;
  unsigned stages;
  /// Issues one step's copies (rows from row0) into a buffer. Refers to
  /// the caller's callable, which must outlive the walk.
  function_ref<void(dsl::Scalar row0, dsl::Scalar buffer)> copy;

  /// The copies of the first stages - 1 steps.
  void prologue();
  /// Once the step at `row0` is in LDS and every wave is past the step
  /// before, issues the copies stages - 1 steps ahead; returns the step's
  /// buffer.
  dsl::Scalar enter(dsl::Scalar row0);
  /// Nothing left in flight into LDS and every wave done with it.
  void drain();
};

} // namespace mlir::rocdsl

#endif // ROCDSL_KERNELS_COMMON_STAGEDWALK_H
