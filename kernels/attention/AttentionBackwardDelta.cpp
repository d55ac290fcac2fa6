//===- AttentionBackwardDelta.cpp - delta = rowsum(dO * O) ----------------===//
//
// The backward's preprocessing, as in FlashAttention-2: one fp32 per query
// row (lse's shape), read by every step of attention_bwd that sees the row.
// Computing it there instead cost each key program a load of O and dO and
// a reduction across waves per step, and the registers to hold them while
// the step's products ran: on an H100, B2 H16 S4096 D128 bf16, the
// backward went from 237 to 305 TFLOP/s non-causal when the step read one
// fp32 per row instead (docs/benchmarks.md).
//
//===----------------------------------------------------------------------===//
#include "Attention.h"

#include "llvm/Support/MathExtras.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::rocdsl;
using namespace mlir::rocdsl::dsl;

/// Query rows a program takes: about 8K elements of each of O and dO, in
/// registers at once.
static int64_t deltaRows(const AttentionConfig &c) {
  return std::clamp<int64_t>(int64_t(llvm::bit_floor(uint64_t(8192 / c.dv))),
                             16, 256);
}

static constexpr unsigned kDeltaWarps = 4;

OwningOpRef<ModuleOp>
mlir::rocdsl::buildAttentionBackwardDelta(MLIRContext *ctx,
                                          const AttentionConfig &c) {
  SmallVector<ArgSpec> args = {ArgSpec::ptr("out", c.dtype),
                               ArgSpec::ptr("dout", c.dtype),
                               ArgSpec::ptr("delta", DType::F32)};
  appendSequenceArgSpecs(c, args);
  KernelBuilder kb(ctx, "attention_bwd_delta", kDeltaWarps, args);
  int64_t rows = deltaRows(c);
  Scalar q0 = kb.programId(0) * rows;
  Scalar heads = kb.programId(1);
  Scalar batch = heads / kb.i32(c.hq);
  Scalar head = kb.rem(heads, kb.i32(c.hq));
  Sequences seq = getSequences(kb, c, batch);
  auto body = [&] {
    HeadRows outView = getHeadRows(kb, c, seq, batch, head, true, c.dv);
    HeadRows deltaView = getLseRows(kb, c, seq, batch, head);
    Tile out = loadHeadRows(kb, c, kb.ptrArg("out"), outView, q0, rows);
    Tile dout = loadHeadRows(kb, c, kb.ptrArg("dout"), outView, q0, rows);
    Tile delta = (out.to(DType::F32) * dout.to(DType::F32)).sum(1);
    storeRowStats(kb, delta, kb.ptrArg("delta"), deltaView, q0);
  };
  withinSequence(kb, c, q0, seq.qLength, body);
  return kb.finish();
}

LaunchPlan mlir::rocdsl::planAttentionBackwardDelta(const AttentionConfig &c) {
  std::vector<int64_t> oShape = attentionShape(c, true, c.dv);
  LaunchPlan plan;
  plan.kernelName = "attention_bwd_delta";
  plan.args = {attentionTensorArg("out", c.dtype, oShape, false),
               attentionTensorArg("dout", c.dtype, oShape, false),
               attentionTensorArg("delta", DType::F32, attentionLseShape(c),
                                  true)};
  appendSequenceArgs(c, plan.args);
  plan.grid[0] = uint32_t(llvm::divideCeil(c.sq, deltaRows(c)));
  plan.grid[1] = uint32_t(c.batch * c.hq);
  return plan;
}
