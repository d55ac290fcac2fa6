//===- StagedWalk.cpp - a loop's steps staged through LDS -----------------===//
#include "common/StagedWalk.h"

using namespace mlir;
using namespace mlir::rocdsl;
using namespace mlir::rocdsl::dsl;

void StagedWalk::prologue() {
  for (unsigned i = 0; i + 1 < stages; ++i) {
    copy(i ? lo + step * int64_t(i) : lo, kb.i32(i));
    kb.asyncCommit();
  }
}

Scalar StagedWalk::enter(Scalar row0) {
  Scalar index = (row0 - lo) / step;
  Scalar count = kb.i32(stages);
  // At most stages - 2 newer groups may still run: this step's are done.
  kb.asyncWait(stages - 2);
  // Every lane's copies visible; every wave done with the step before,
  // whose buffer the next copies refill.
  kb.barrier();
  copy(row0 + step * int64_t(stages - 1),
       kb.rem(index + int64_t(stages - 1), count));
  kb.asyncCommit();
  return kb.rem(index, count);
}

void StagedWalk::drain() {
  kb.asyncWait(0);
  kb.barrier();
}
