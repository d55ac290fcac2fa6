//===- DSLTest.cpp - the C++ DSL builds verified rocdsl IR ----------------===//
#include "rocdsl/DSL/DSL.h"
#include "rocdsl/Pipelines/Pipelines.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace mlir::rocdsl;
using namespace mlir::rocdsl::dsl;

namespace {

class DSLTest : public ::testing::Test {
protected:
  DSLTest() {
    DialectRegistry registry;
    registerRocDSLDialects(registry);
    ctx.appendDialectRegistry(registry);
    ctx.loadAllAvailableDialects();
  }

  std::string print(ModuleOp module) {
    std::string s;
    llvm::raw_string_ostream os(s);
    module.print(os);
    return s;
  }

  MLIRContext ctx;
};

TEST_F(DSLTest, BuildsAVerifiedElementwiseKernel) {
  KernelBuilder kb(
      &ctx, "square", 4,
      {ArgSpec::ptr("x", DType::F32), ArgSpec::scalar("n", DType::I32)});
  Ptr x = kb.ptrArg("x");
  Scalar n = kb.scalarArg("n");
  Layout layout = kb.defaultLayout({1024}, DType::F32);
  AccessOptions access;
  access.bounds = {n};
  access.vec = 4;
  Tile t = kb.load(x, {kb.i32(0)}, {1024}, layout, access);
  kb.store(t * t, x, {kb.i32(0)}, access);
  OwningOpRef<ModuleOp> module = kb.finish();
  ASSERT_TRUE(module);
  std::string text = print(*module);
  EXPECT_NE(text.find("rocdsl.func @square"), std::string::npos);
  EXPECT_NE(text.find("arith.mulf"), std::string::npos);
  EXPECT_NE(text.find("vec = 4 : i32"), std::string::npos);
}

TEST_F(DSLTest, DefaultLayoutUses128BitLanesAndAllWaves) {
  auto blocked = cast<BlockedAttr>(
      BlockedAttr::getDefault(&ctx, {4, 1024}, /*numWarps=*/4, 64, 16));
  EXPECT_EQ(blocked.getSizePerThread()[1], 8u); // 8 x bf16 = 128 bits
  EXPECT_EQ(blocked.getThreadsPerWarp()[1], 64u);
  EXPECT_EQ(blocked.getLayoutNumWarps(), 4u);
  EXPECT_EQ(blocked.getLayoutWarpSize(), 64u);
  EXPECT_EQ(blocked.getOrder()[0], 1u);
}

TEST_F(DSLTest, ReductionGivesSliceLayoutAndExpandsBack) {
  KernelBuilder kb(&ctx, "rowsum", 1, {ArgSpec::ptr("x", DType::F32)});
  Ptr x = kb.ptrArg("x");
  Layout layout = kb.blocked({1, 4}, {1, 64}, {1, 1}, {1, 0});
  AccessOptions access;
  access.strides = {kb.i32(256)};
  Tile t = kb.load(x, {kb.i32(0), kb.i32(0)}, {2, 256}, layout, access);
  Tile s = t.sum(1);
  EXPECT_EQ(s.getShape().size(), 1u);
  auto slice = dyn_cast<SliceAttr>(s.getLayout());
  ASSERT_TRUE(slice);
  EXPECT_EQ(slice.getDim(), 1u);
  EXPECT_EQ(slice.getParent(), layout);
  Tile back = s.expandDims(1).broadcastTo({2, 256});
  EXPECT_EQ(back.getType(), t.getType());
  kb.store(t / back, x, {kb.i32(0), kb.i32(0)}, access);
  EXPECT_TRUE(kb.finish());
}

TEST_F(DSLTest, VerifierRejectsMismatchedTileAndReportsWhy) {
  std::string diagnostics;
  ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &d) {
    diagnostics += d.str();
    return success();
  });
  KernelBuilder kb(&ctx, "bad", 4, {ArgSpec::ptr("x", DType::F32)});
  Ptr x = kb.ptrArg("x");
  // A layout for 2 waves inside a 4-wave kernel.
  Layout layout = kb.blocked({4}, {64}, {2}, {0});
  kb.load(x, {kb.i32(0)}, {512}, layout);
  EXPECT_FALSE(kb.finish());
  EXPECT_NE(diagnostics.find("num_warps = 4"), std::string::npos)
      << diagnostics;
}

TEST_F(DSLTest, LoopCarriesTiles) {
  KernelBuilder kb(
      &ctx, "acc", 4,
      {ArgSpec::ptr("x", DType::F32), ArgSpec::scalar("n", DType::I32)});
  Ptr x = kb.ptrArg("x");
  Layout layout = kb.defaultLayout({1024}, DType::F32);
  AccessOptions access;
  access.bounds = {kb.scalarArg("n")};
  Tile zero = kb.zeros({1024}, layout, DType::F32);
  SmallVector<Tile> out =
      kb.forLoop(kb.i32(0), kb.scalarArg("n"), kb.i32(1024), {zero},
                 [&](Scalar i, ArrayRef<Tile> acc) -> SmallVector<Tile> {
                   return {acc[0] + kb.load(x, {i}, {1024}, layout, access)};
                 });
  ASSERT_EQ(out.size(), 1u);
  kb.store(out[0], x, {kb.i32(0)}, access);
  OwningOpRef<ModuleOp> module = kb.finish();
  ASSERT_TRUE(module);
  EXPECT_NE(print(*module).find("scf.for"), std::string::npos);
}

TEST_F(DSLTest, StackedLdsBuffersIndexToOneTileOfTheSameSwizzle) {
  KernelBuilder kb(&ctx, "stack", 4,
                   {ArgSpec::ptr("x", DType::BF16),
                    ArgSpec::scalar("i", DType::I32)});
  Ptr x = kb.ptrArg("x");
  Layout layout = kb.defaultLayout({64, 32}, DType::BF16);
  AccessOptions access;
  access.strides = {kb.i32(32)};
  Layout shared = kb.sharedLayout({64, 32}, DType::BF16, {1, 0}, 32);
  LdsTile stack = kb.localAllocBuffers(3, {64, 32}, DType::BF16, shared);
  EXPECT_EQ(stack.getShape(), ArrayRef<int64_t>({3, 64, 32}));
  auto stacked = cast<SharedAttr>(stack.getType().getEncoding());
  EXPECT_EQ(stacked.getOrder(), ArrayRef<unsigned>({2, 1, 0}));
  LdsTile one = stack.index(kb.scalarArg("i"));
  EXPECT_EQ(one.getShape(), ArrayRef<int64_t>({64, 32}));
  EXPECT_EQ(one.getType().getEncoding(), shared);
  one.store(kb.load(x, {kb.i32(0), kb.i32(0)}, {64, 32}, layout, access));
  kb.store(one.load(layout), x, {kb.i32(0), kb.i32(0)}, access);
  OwningOpRef<ModuleOp> module = kb.finish();
  ASSERT_TRUE(module);
  EXPECT_NE(print(*module).find("rocdsl.local_index"), std::string::npos);
}

TEST_F(DSLTest, MaskSelectAndApproximateMathBuildTheirOps) {
  KernelBuilder kb(&ctx, "masked", 1,
                   {ArgSpec::ptr("x", DType::F32), ArgSpec::ptr("y", DType::F32)});
  Layout layout = kb.defaultLayout({64}, DType::F32);
  Tile t = kb.load(kb.ptrArg("x"), {kb.i32(0)}, {64}, layout);
  Tile index = kb.iota(64, layout);
  Tile inside = index.compare(Cmp::LT, kb.i32(40)) &
                index.compare(Cmp::GE, kb.i32(3));
  Tile picked = kb.select(inside, (-t).exp2(), t.log2().maximum(t));
  kb.store(picked, kb.ptrArg("y"), {kb.i32(0)});
  OwningOpRef<ModuleOp> module = kb.finish();
  ASSERT_TRUE(module);
  std::string text = print(*module);
  for (const char *op : {"arith.cmpi slt", "arith.cmpi sge", "arith.andi",
                         "arith.select", "arith.negf", "arith.maximumf"})
    EXPECT_NE(text.find(op), std::string::npos) << op;
  // The hardware approximations (TargetMath.cpp lowers afn to them).
  EXPECT_NE(text.find("math.exp2 %"), std::string::npos);
  EXPECT_NE(text.find("fastmath<afn>"), std::string::npos);
  EXPECT_NE(text.find("math.log2"), std::string::npos);
}

TEST_F(DSLTest, ContractionIsOptInAndMarksFloatArithmetic) {
  KernelBuilder kb(&ctx, "fma", 1,
                   {ArgSpec::ptr("x", DType::F32), ArgSpec::ptr("y", DType::F32)});
  Layout layout = kb.defaultLayout({64}, DType::F32);
  Tile t = kb.load(kb.ptrArg("x"), {kb.i32(0)}, {64}, layout);
  Tile plain = t * t;
  kb.allowContraction();
  Tile fused = plain * t + t;
  kb.store(fused, kb.ptrArg("y"), {kb.i32(0)});
  OwningOpRef<ModuleOp> module = kb.finish();
  ASSERT_TRUE(module);
  std::string text = print(*module);
  size_t first = text.find("arith.mulf");
  ASSERT_NE(first, std::string::npos);
  size_t firstEnd = text.find('\n', first);
  EXPECT_EQ(text.substr(first, firstEnd - first).find("contract"),
            std::string::npos);
  size_t second = text.find("arith.mulf", firstEnd);
  ASSERT_NE(second, std::string::npos);
  EXPECT_NE(text.find("fastmath<contract>", second), std::string::npos);
  EXPECT_NE(text.find("arith.addf"), std::string::npos);
}

} // namespace
