//===- WaitCheckTest.cpp - loads' registers touched before their wait -----===//
//
// Hand-written gfx9 sequences whose answer follows from the counters' rules
// (WaitCheck.h): each case says which instruction touches which register
// too early and the loosest wait that would have been enough, or that the
// sequence is clean.
//
//===----------------------------------------------------------------------===//
#include "rocdsl/ISA/WaitCheck.h"

#include "KernelText.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>

using namespace mlir::rocdsl::isa;
using llvm::StringRef;
using mlir::rocdsl::isa::testsupport::kernelText;

namespace {

std::vector<WaitFinding> violations(StringRef body, StringRef chip = "gfx942") {
  llvm::Expected<CheckResult> result =
      checkAssembly(kernelText(body, chip), "t.s", "");
  if (!result) {
    ADD_FAILURE() << llvm::toString(result.takeError());
    return {};
  }
  std::vector<WaitFinding> all;
  for (const KernelReport &k : result->kernels) {
    EXPECT_TRUE(k.waitsChecked);
    all.insert(all.end(), k.waitViolations.begin(), k.waitViolations.end());
  }
  return all;
}

/// The one finding of `body`: the touching instruction's mnemonic, the
/// registers, the counter and its loosest sufficient count.
void expectOne(StringRef body, StringRef use, StringRef registers,
               StringRef counter, unsigned loosest, StringRef chip = "gfx942") {
  std::vector<WaitFinding> found = violations(body, chip);
  ASSERT_EQ(found.size(), 1u) << body.str();
  EXPECT_TRUE(StringRef(found[0].useText).starts_with(use)) << found[0].useText;
  EXPECT_EQ(found[0].registers, registers);
  EXPECT_EQ(found[0].counter, counter);
  EXPECT_EQ(found[0].loosest, loosest);
}

TEST(WaitCheck, ScalarLoadNeedsLgkmcntZero) {
  expectOne("\ts_load_dwordx2 s[4:5], s[0:1], 0x0\n"
            "\ts_mov_b32 s6, s5\n",
            "s_mov_b32", "s5", "lgkmcnt", 0);
  EXPECT_TRUE(violations("\ts_load_dwordx2 s[4:5], s[0:1], 0x0\n"
                         "\ts_waitcnt lgkmcnt(0)\n"
                         "\ts_mov_b32 s6, s5\n")
                  .empty());
  // Scalar loads return out of order: lgkmcnt(1) retires neither of two.
  std::vector<WaitFinding> two = violations("\ts_load_dword s4, s[0:1], 0x0\n"
                                            "\ts_load_dword s5, s[0:1], 0x4\n"
                                            "\ts_waitcnt lgkmcnt(1)\n"
                                            "\ts_add_u32 s6, s4, 1\n");
  ASSERT_EQ(two.size(), 1u);
  EXPECT_EQ(two[0].registers, "s4");
}

TEST(WaitCheck, VmemLoadsRetireInOrder) {
  const char *loads = "\tbuffer_load_dwordx2 v[0:1], v4, s[8:11], 0 offen\n"
                      "\tbuffer_load_dword v2, v4, s[8:11], 0 offen\n";
  // vmcnt(1): the first is back, the second may not be.
  EXPECT_TRUE(violations(std::string(loads) + "\ts_waitcnt vmcnt(1)\n"
                                              "\tv_add_f32_e32 v5, v0, v1\n")
                  .empty());
  expectOne(std::string(loads) + "\ts_waitcnt vmcnt(1)\n"
                                 "\tv_add_f32_e32 v5, v2, v2\n",
            "v_add_f32", "v2", "vmcnt", 0);
  // Reading the first with no wait: one later load, so vmcnt(1) suffices.
  expectOne(std::string(loads) + "\tv_add_f32_e32 v5, v0, v1\n", "v_add_f32",
            "v[0:1]", "vmcnt", 1);
}

TEST(WaitCheck, StoresCountInVmcnt) {
  EXPECT_TRUE(violations("\tbuffer_load_dword v0, v4, s[8:11], 0 offen\n"
                         "\tbuffer_store_dword v5, v4, s[8:11], 0 offen\n"
                         "\ts_waitcnt vmcnt(1)\n"
                         "\tv_mov_b32_e32 v6, v0\n")
                  .empty());
}

TEST(WaitCheck, OverwritingAnOutstandingDestination) {
  expectOne("\tbuffer_load_dword v0, v4, s[8:11], 0 offen\n"
            "\tv_mov_b32_e32 v0, 0\n",
            "v_mov_b32", "v0", "vmcnt", 0);
  // A later load of the same in-order counter lands after it: no wait.
  EXPECT_TRUE(violations("\tbuffer_load_dword v0, v4, s[8:11], 0 offen\n"
                         "\tbuffer_load_dword v0, v5, s[8:11], 0 offen\n"
                         "\ts_waitcnt vmcnt(0)\n"
                         "\tv_mov_b32_e32 v6, v0\n")
                  .empty());
  // A load whose address is an outstanding load's result reads it at
  // issue, even when it also writes the same registers.
  expectOne("\tbuffer_load_dword v4, v5, s[8:11], 0 offen\n"
            "\tbuffer_load_dword v4, v4, s[8:11], 0 offen\n"
            "\ts_waitcnt vmcnt(0)\n",
            "buffer_load_dword v4, v4", "v4", "vmcnt", 0);
  // A load's own address registers are read at issue.
  expectOne("\tbuffer_load_dword v4, v4, s[8:11], 0 offen\n"
            "\tbuffer_load_dword v0, v4, s[8:11], 0 offen\n"
            "\ts_waitcnt vmcnt(0)\n",
            "buffer_load_dword v0", "v4", "vmcnt", 0);
}

TEST(WaitCheck, LdsCountsOnlyLdsWhenScalarLoadsAreInFlight) {
  // ds_read, then a scalar load: lgkmcnt(1) may leave the ds_read out (the
  // scalar load can return first).
  expectOne("\tds_read_b32 v0, v4\n"
            "\ts_load_dword s4, s[0:1], 0x0\n"
            "\ts_waitcnt lgkmcnt(1)\n"
            "\tv_mov_b32_e32 v6, v0\n",
            "v_mov_b32", "v0", "lgkmcnt", 0);
  EXPECT_TRUE(violations("\tds_read_b32 v0, v4\n"
                         "\tds_read_b32 v1, v4 offset:4\n"
                         "\ts_waitcnt lgkmcnt(1)\n"
                         "\tv_mov_b32_e32 v6, v0\n")
                  .empty());
}

TEST(WaitCheck, FlatNeedsBothCounters) {
  expectOne("\tflat_load_dword v0, v[2:3]\n"
            "\ts_waitcnt vmcnt(0)\n"
            "\tv_mov_b32_e32 v6, v0\n",
            "v_mov_b32", "v0", "vmcnt", 0);
  EXPECT_TRUE(violations("\tflat_load_dword v0, v[2:3]\n"
                         "\ts_waitcnt vmcnt(0) lgkmcnt(0)\n"
                         "\tv_mov_b32_e32 v6, v0\n")
                  .empty());
  // global_ loads are VMEM only.
  EXPECT_TRUE(violations("\tglobal_load_dword v0, v[2:3], off\n"
                         "\ts_waitcnt vmcnt(0)\n"
                         "\tv_mov_b32_e32 v6, v0\n")
                  .empty());
}

TEST(WaitCheck, ImmediateWaitEncoding) {
  const char *load = "\tbuffer_load_dword v0, v4, s[8:11], 0 offen\n";
  // 0xf70: vmcnt 0, expcnt 7, lgkmcnt 15 (gfx9).
  EXPECT_TRUE(violations(std::string(load) + "\ts_waitcnt 0xf70\n"
                                             "\tv_mov_b32_e32 v6, v0\n")
                  .empty());
  // 0xc07f: vmcnt 63 (no wait), lgkmcnt 0.
  expectOne(std::string(load) + "\ts_waitcnt 0xc07f\n"
                                "\tv_mov_b32_e32 v6, v0\n",
            "v_mov_b32", "v0", "vmcnt", 0);
  EXPECT_TRUE(violations(std::string(load) + "\ts_waitcnt 0\n"
                                             "\tv_mov_b32_e32 v6, v0\n")
                  .empty());
}

TEST(WaitCheck, NoLoadRetiresOnAFullCounter) {
  // Sixteen later LDS reads: lgkmcnt(14) retires the first, lgkmcnt(15)
  // waits for nothing.
  std::string body = "\tds_read_b32 v0, v40\n";
  for (int i = 1; i <= 16; ++i)
    body += "\tds_read_b32 v" + std::to_string(i) + ", v40\n";
  EXPECT_TRUE(violations(body + "\ts_waitcnt lgkmcnt(14)\n"
                                "\tv_mov_b32_e32 v30, v0\n")
                  .empty());
  expectOne(body + "\ts_waitcnt lgkmcnt(15)\n\tv_mov_b32_e32 v30, v0\n",
            "v_mov_b32", "v0", "lgkmcnt", 14);
}

TEST(WaitCheck, EveryPathThroughBranches) {
  // The wait is on one arm only.
  expectOne("\tbuffer_load_dword v0, v4, s[8:11], 0 offen\n"
            "\ts_cbranch_scc1 .LBB0_2\n"
            "\ts_waitcnt vmcnt(0)\n"
            ".LBB0_2:\n"
            "\tv_mov_b32_e32 v6, v0\n",
            "v_mov_b32", "v0", "vmcnt", 0);
}

TEST(WaitCheck, LoopBackEdge) {
  // The next iteration's load is issued before this one's store and read at
  // the loop head after vmcnt(1): on entry the second prologue load follows
  // it, around the back-edge the store (stores count too). vmcnt(2) is not
  // enough on either path; with the store before the load, around the
  // back-edge nothing follows it and only vmcnt(0) is.
  const char *loop = "\tbuffer_load_dword v0, v4, s[8:11], 0 offen\n"
                     "\tbuffer_load_dword v1, v4, s[8:11], 0 offen offset:4\n"
                     ".LBB0_1:\n"
                     "\ts_waitcnt vmcnt(%d)\n"
                     "\tv_add_f32_e32 v6, v0, v0\n"
                     "\tbuffer_load_dword v0, v4, s[8:11], 0 offen\n"
                     "\tbuffer_store_dword v6, v5, s[8:11], 0 offen\n"
                     "\ts_cbranch_scc1 .LBB0_1\n";
  char text[512];
  snprintf(text, sizeof text, loop, 1);
  EXPECT_TRUE(violations(text).empty());
  snprintf(text, sizeof text, loop, 2);
  std::vector<WaitFinding> found = violations(text);
  ASSERT_FALSE(found.empty());
  for (const WaitFinding &f : found) {
    EXPECT_TRUE(StringRef(f.useText).starts_with("v_add_f32")) << f.useText;
    EXPECT_EQ(f.loosest, 1u);
  }
  std::string storeFirst = text;
  size_t load = storeFirst.find(
      "\tbuffer_load_dword v0, v4, s[8:11], 0 offen\n\tbuffer_store");
  ASSERT_NE(load, std::string::npos);
  std::string loadLine = "\tbuffer_load_dword v0, v4, s[8:11], 0 offen\n";
  std::string storeLine = "\tbuffer_store_dword v6, v5, s[8:11], 0 offen\n";
  storeFirst.replace(load, loadLine.size() + storeLine.size(),
                     storeLine + loadLine);
  found = violations(storeFirst);
  // The prologue's load still has one later load; the loop's has nothing
  // after it around the back-edge.
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0].loadLine, 6u);
  EXPECT_EQ(found[0].loosest, 1u);
  EXPECT_EQ(found[1].loadLine, 12u);
  EXPECT_EQ(found[1].loosest, 0u);
}

TEST(WaitCheck, ManyLoopsAndBackEdges) {
  // Forty nested loops, each loading at its head and reading the previous
  // level's load after a wait for all but that level's own load.
  std::string body;
  for (int i = 0; i < 40; ++i)
    body += ".LBB0_" + std::to_string(i) + ":\n\tbuffer_load_dword v" +
            std::to_string(i) + ", v100, s[8:11], 0 offen\n";
  for (int i = 39; i >= 0; --i)
    body += "\ts_waitcnt vmcnt(0)\n\tv_add_f32_e32 v101, v" +
            std::to_string(i) + ", v101\n\ts_cbranch_scc1 .LBB0_" +
            std::to_string(i) + "\n";
  EXPECT_TRUE(violations(body).empty());
  // Every block branching back to the first, each with a load: the head
  // reads v0 with a load of the last block possibly in flight.
  std::string chain = ".LBB0_0:\n\ts_waitcnt vmcnt(1)\n"
                      "\tv_add_f32_e32 v101, v0, v101\n";
  for (int i = 1; i < 300; ++i)
    chain += ".LBB0_" + std::to_string(i) + ":\n\tbuffer_load_dword v" +
             std::to_string(i % 2) +
             ", v100, s[8:11], 0 offen\n"
             "\ts_cbranch_scc1 .LBB0_0\n";
  std::vector<WaitFinding> found = violations(chain);
  ASSERT_FALSE(found.empty());
  for (const WaitFinding &f : found)
    EXPECT_TRUE(StringRef(f.useText).starts_with("v_add_f32")) << f.useText;
}

TEST(WaitCheck, BarrierWaitsForLds) {
  expectOne("\tds_write_b32 v4, v0\n"
            "\ts_barrier\n",
            "s_barrier", "LDS", "lgkmcnt", 0);
  EXPECT_TRUE(violations("\tds_write_b32 v4, v0\n"
                         "\ts_waitcnt lgkmcnt(0)\n"
                         "\ts_barrier\n")
                  .empty());
  // A VMEM load into LDS (gfx950's direct-to-LDS loads) before a barrier.
  expectOne("\tbuffer_load_dword v1, s[8:11], 0 offen lds\n"
            "\ts_barrier\n",
            "s_barrier", "LDS", "vmcnt", 0, "gfx950");
}

TEST(WaitCheck, CallsDrainEverything) {
  EXPECT_TRUE(violations("\tbuffer_load_dword v0, v4, s[8:11], 0 offen\n"
                         "\ts_swappc_b64 s[30:31], s[16:17]\n"
                         "\tv_mov_b32_e32 v6, v0\n")
                  .empty());
}

TEST(WaitCheck, OnlyTheGfx9FamilyIsChecked) {
  EXPECT_TRUE(waitCheckApplies("gfx942"));
  EXPECT_TRUE(waitCheckApplies("gfx950"));
  EXPECT_TRUE(waitCheckApplies("gfx90a"));
  EXPECT_TRUE(waitCheckApplies("amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-"));
  EXPECT_FALSE(waitCheckApplies("gfx1100"));
  EXPECT_FALSE(waitCheckApplies("gfx1201"));
  EXPECT_FALSE(waitCheckApplies("sm_90"));
  llvm::Expected<CheckResult> result =
      checkAssembly(kernelText("\tbuffer_load_dword v0, v4, s[8:11], 0 offen\n"
                               "\tv_mov_b32_e32 v6, v0\n",
                               "gfx1100"),
                    "t.s", "");
  ASSERT_TRUE(bool(result)) << llvm::toString(result.takeError());
  EXPECT_FALSE(result->kernels.at(0).waitsChecked);
  EXPECT_FALSE(result->hasWaitViolation());
}

TEST(WaitCheck, FindingText) {
  std::vector<WaitFinding> found =
      violations("\tbuffer_load_dword v0, v4, s[8:11], 0 offen\n"
                 "\tv_mov_b32_e32 v6, v0\n");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(formatWaitFinding(found[0]),
            "t.s:7: wait violation: kernel 'k': 'v_mov_b32_e32 v6, v0' "
            "touches v0 while 'buffer_load_dword v0, v4, s[8:11], 0 offen' "
            "(line 6) may be outstanding: needs vmcnt(0) or lower before it");
}

} // namespace

namespace {

std::vector<WaitSlack> slack(StringRef body) {
  llvm::Expected<CheckResult> result = checkAssembly(
      kernelText(body, "gfx942"), "t.s", "", WaitAnalysis::ViolationsAndSlack);
  if (!result) {
    ADD_FAILURE() << llvm::toString(result.takeError());
    return {};
  }
  return result->kernels.at(0).waitSlack;
}

TEST(WaitSlack, LoosestCountThatStillRetiresEveryUse) {
  // v0 is read after three later loads were issued: vmcnt(3) would do. Each
  // wait is judged with the others as written: after the first vmcnt(0)
  // nothing is in flight, so the second waits for nothing.
  std::vector<WaitSlack> found =
      slack("\tbuffer_load_dword v0, v4, s[8:11], 0 offen\n"
            "\tbuffer_load_dword v1, v4, s[8:11], 0 offen offset:4\n"
            "\tbuffer_load_dword v2, v4, s[8:11], 0 offen offset:8\n"
            "\tbuffer_load_dword v3, v4, s[8:11], 0 offen offset:12\n"
            "\ts_waitcnt vmcnt(0)\n"
            "\tv_mov_b32_e32 v6, v0\n"
            "\ts_waitcnt vmcnt(0)\n"
            "\tv_mov_b32_e32 v7, v3\n");
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[1].line, 12u);
  EXPECT_EQ(found[1].loosestVmcnt, 63u);
  EXPECT_EQ(found[0].line, 10u);
  EXPECT_EQ(found[0].vmcnt, 0u);
  EXPECT_EQ(found[0].loosestVmcnt, 3u);
  EXPECT_FALSE(found[0].lgkmcnt.has_value());
  EXPECT_EQ(formatWaitSlack(found[0]),
            "t.s:10: wait stricter than needed: kernel 'k': "
            "'s_waitcnt vmcnt(0)': vmcnt(3) would do");
}

TEST(WaitSlack, WaitsForNothing) {
  std::vector<WaitSlack> found =
      slack("\tbuffer_load_dword v0, v4, s[8:11], 0 offen\n"
            "\ts_waitcnt vmcnt(0) lgkmcnt(0)\n"
            "\tv_mov_b32_e32 v6, v0\n");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].loosestVmcnt, 0u);
  EXPECT_EQ(found[0].loosestLgkmcnt, 15u);
  EXPECT_EQ(formatWaitSlack(found[0]),
            "t.s:7: wait stricter than needed: kernel 'k': "
            "'s_waitcnt vmcnt(0) lgkmcnt(0)': lgkmcnt not needed");
}

TEST(WaitSlack, TightWaitsAreNotReported) {
  EXPECT_TRUE(slack("\ts_load_dword s4, s[0:1], 0x0\n"
                    "\tds_read_b32 v0, v4\n"
                    "\tds_read_b32 v1, v4 offset:4\n"
                    "\ts_waitcnt lgkmcnt(1)\n"
                    "\tv_mov_b32_e32 v6, v0\n"
                    "\ts_waitcnt lgkmcnt(0)\n"
                    "\ts_add_u32 s5, s4, 1\n"
                    "\tds_write_b32 v4, v1\n"
                    "\ts_waitcnt lgkmcnt(0)\n"
                    "\ts_barrier\n")
                  .empty());
}

/// `text` parsed, with the CFG of its one kernel. The module owns text its
/// instructions refer to, so callers keep it while they use the kernel
/// (and `text` itself).
AsmModule parsedModule(const std::string &text) {
  AsmModule module = parseAssembly(text);
  EXPECT_EQ(module.kernels.size(), 1u);
  buildCFG(module.kernels.at(0));
  return module;
}

TEST(WaitSlack, BudgetStopsBetweenWaitsAndSaysHowFar) {
  // Four loose waits (each judged with the others as written: after the
  // first of each counter nothing of it is in flight). With room for
  // everything all four are examined; with less, a prefix of them, and what
  // was found is a prefix of the full answer.
  std::string text = kernelText("\tbuffer_load_dword v0, v4, s[8:11], 0 offen\n"
                                "\tbuffer_load_dword v1, v4, s[8:11], 0 offen\n"
                                "\ts_waitcnt vmcnt(0)\n"
                                "\tv_mov_b32_e32 v6, v0\n"
                                "\ts_waitcnt vmcnt(0)\n"
                                "\tv_mov_b32_e32 v7, v1\n"
                                "\tds_read_b32 v2, v4\n"
                                "\ts_waitcnt lgkmcnt(0)\n"
                                "\tv_mov_b32_e32 v8, v5\n"
                                "\ts_waitcnt lgkmcnt(0)\n"
                                "\tv_mov_b32_e32 v9, v2\n");
  AsmModule module = parsedModule(text);
  const Kernel &kernel = module.kernels.at(0);
  llvm::Expected<SlackSearch> full = findLooserWaits(kernel);
  ASSERT_TRUE(bool(full)) << llvm::toString(full.takeError());
  EXPECT_EQ(full->waits, 4u);
  EXPECT_EQ(full->examined, 4u);
  ASSERT_EQ(full->looser.size(), 4u);
  EXPECT_EQ(full->looser[0].loosestVmcnt, 1u);
  EXPECT_EQ(full->looser[1].loosestVmcnt, 63u);
  EXPECT_EQ(full->looser[2].loosestLgkmcnt, 15u);
  EXPECT_EQ(full->looser[3].loosestLgkmcnt, 15u);

  // The baseline alone spends more than one step: nothing is examined.
  llvm::Expected<SlackSearch> none = findLooserWaits(kernel, 1);
  ASSERT_TRUE(bool(none)) << llvm::toString(none.takeError());
  EXPECT_EQ(none->waits, 4u);
  EXPECT_EQ(none->examined, 0u);
  EXPECT_TRUE(none->looser.empty());

  // Half the full search's steps: some waits, not all.
  llvm::Expected<SlackSearch> part = findLooserWaits(kernel, full->steps / 2);
  ASSERT_TRUE(bool(part)) << llvm::toString(part.takeError());
  EXPECT_GT(part->examined, 0u);
  EXPECT_LT(part->examined, 4u);
  ASSERT_LE(part->looser.size(), full->looser.size());
  for (size_t i = 0; i < part->looser.size(); ++i)
    EXPECT_EQ(part->looser[i].line, full->looser[i].line);
}

/// `text` with line `line` (1-based) replaced by `replacement`.
std::string withLine(const std::string &text, unsigned line,
                     const std::string &replacement) {
  llvm::SmallVector<StringRef> lines;
  StringRef(text).split(lines, '\n');
  std::string out;
  for (unsigned i = 0; i < lines.size(); ++i) {
    out += i + 1 == line ? replacement : lines[i].str();
    if (i + 1 < lines.size())
      out += '\n';
  }
  return out;
}

/// The (use line, load line) pairs the violation check finds in `text`.
std::set<std::pair<unsigned, unsigned>> touchPairs(const std::string &text) {
  std::set<std::pair<unsigned, unsigned>> pairs;
  llvm::Expected<CheckResult> result = checkAssembly(text, "t.s", "");
  if (!result) {
    ADD_FAILURE() << llvm::toString(result.takeError());
    return pairs;
  }
  for (const WaitFinding &f : result->kernels.at(0).waitViolations)
    pairs.insert({f.useLine, f.loadLine});
  return pairs;
}

TEST(WaitSlack, EachLoosestCountIsEnoughAndOneMoreIsNot) {
  // Random straight-line and branchy sequences of VMEM and LDS loads,
  // waits and uses. For every wait the search calls looser, the kernel
  // rewritten with that count must touch nothing the original does not,
  // and with one count more (below the maximum) it must: the answer is
  // checked through the violation analysis, not the search's own steps.
  std::mt19937 rng(20261207);
  unsigned checked = 0, between = 0;
  for (int trial = 0; trial < 300; ++trial) {
    std::string body;
    // Mostly loads and uses, so several loads are in flight at a wait and
    // the loosest counts fall between the written one and the maximum.
    int n = 8 + int(rng() % 12);
    for (int i = 0; i < n; ++i) {
      unsigned r = rng() % 8, pick = rng() % 20;
      if (pick < 7)
        body += "\tbuffer_load_dword v" + std::to_string(r) +
                ", v20, s[8:11], 0 offen\n";
      else if (pick < 10)
        body += "\tds_read_b32 v" + std::to_string(r) + ", v21\n";
      else if (pick < 12)
        body += "\ts_waitcnt vmcnt(" + std::to_string(rng() % 2) + ")\n";
      else if (pick < 13)
        body += "\ts_waitcnt lgkmcnt(0)\n";
      else if (pick < 19)
        body += "\tv_mov_b32_e32 v" + std::to_string(10 + r) + ", v" +
                std::to_string(r) + "\n";
      else
        body += "\ts_cbranch_scc1 .LBB" + std::to_string(trial) + "_end\n";
    }
    body += ".LBB" + std::to_string(trial) + "_end:\n";
    std::string text = kernelText(body);
    std::set<std::pair<unsigned, unsigned>> original = touchPairs(text);
    AsmModule module = parsedModule(text);
    const Kernel &kernel = module.kernels.at(0);
    llvm::Expected<SlackSearch> search = findLooserWaits(kernel);
    ASSERT_TRUE(bool(search)) << llvm::toString(search.takeError());
    EXPECT_EQ(search->examined, search->waits);
    for (const WaitSlack &w : search->looser) {
      auto rewritten = [&](std::optional<unsigned> vm,
                           std::optional<unsigned> lgkm) {
        std::string wait = "\ts_waitcnt";
        if (vm)
          wait += " vmcnt(" + std::to_string(*vm) + ")";
        if (lgkm)
          wait += " lgkmcnt(" + std::to_string(*lgkm) + ")";
        return touchPairs(withLine(text, w.line, wait));
      };
      auto isSubset = [&](const std::set<std::pair<unsigned, unsigned>> &s) {
        return std::includes(original.begin(), original.end(), s.begin(),
                             s.end());
      };
      if (w.vmcnt) {
        EXPECT_TRUE(isSubset(rewritten(w.loosestVmcnt, w.lgkmcnt)))
            << text << "line " << w.line;
        if (*w.loosestVmcnt < 62) {
          EXPECT_FALSE(isSubset(rewritten(*w.loosestVmcnt + 1, w.lgkmcnt)))
              << text << "line " << w.line;
          ++between;
        }
        ++checked;
      }
      if (w.lgkmcnt) {
        EXPECT_TRUE(isSubset(rewritten(w.vmcnt, w.loosestLgkmcnt)))
            << text << "line " << w.line;
        if (*w.loosestLgkmcnt < 14) {
          EXPECT_FALSE(isSubset(rewritten(w.vmcnt, *w.loosestLgkmcnt + 1)))
              << text << "line " << w.line;
          ++between;
        }
        ++checked;
      }
    }
  }
  // The sequences must exercise the search, not pass vacuously: loose waits,
  // and among them counts that fall between the written one and the maximum.
  EXPECT_GT(checked, 100u);
  EXPECT_GT(between, 15u);
}

} // namespace
