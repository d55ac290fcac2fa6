//===- AsyncCopies.cpp - async copies as loads and LDS stores -------------===//
#include "rocdsl/Conversion/AsyncCopies.h"
#include "rocdsl/Dialect/RocDSL/IR/RocDSL.h"

using namespace mlir;
using namespace mlir::rocdsl;

void mlir::rocdsl::buildCopyThroughRegisters(OpBuilder &b, AsyncCopyOp copy) {
  Value value = LoadOp::create(
      b, copy.getLoc(), copy.getTileType(), copy.getPtr(), copy.getOrigin(),
      copy.getStrides(), copy.getBounds(), copy.getMask(), /*other=*/Value(),
      copy.getVecAttr(), copy.getUniformMaskAttr());
  auto store = LocalStoreOp::create(b, copy.getLoc(), value, copy.getDst());
  store->setAttr(kAuthorOrderedAttr, b.getUnitAttr());
}

void mlir::rocdsl::expandAsyncCopies(ModuleOp module) {
  SmallVector<Operation *> done;
  module.walk([&](Operation *op) {
    if (isa<AsyncCommitOp, AsyncWaitOp>(op)) {
      done.push_back(op);
      return;
    }
    auto copy = dyn_cast<AsyncCopyOp>(op);
    if (!copy)
      return;
    OpBuilder b(copy);
    buildCopyThroughRegisters(b, copy);
    done.push_back(copy);
  });
  for (Operation *op : done)
    op->erase();
}
