//===- HazardCheckTest.cpp - the AMDGCN wide-store hazard checker ---------===//
#include "rocdsl/ISA/HazardCheck.h"

#include "KernelText.h"

#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <gtest/gtest.h>

#include <random>

using namespace mlir::rocdsl::isa;
using llvm::StringRef;
using mlir::rocdsl::isa::testsupport::kernelText;

namespace {

CheckResult check(StringRef text, StringRef chip = "") {
  llvm::Expected<CheckResult> result = checkAssembly(text, "t.s", chip);
  if (!result) {
    ADD_FAILURE() << llvm::toString(result.takeError());
    return CheckResult();
  }
  return std::move(*result);
}

std::vector<Finding> findings(StringRef body, StringRef chip = "gfx942") {
  CheckResult result = check(kernelText(body, chip));
  std::vector<Finding> all;
  for (const KernelReport &k : result.kernels)
    all.insert(all.end(), k.hazards.begin(), k.hazards.end());
  return all;
}

RegRange reg(RegRange::Kind kind, unsigned first, unsigned last) {
  RegRange r;
  r.kind = kind;
  r.first = first;
  r.last = last;
  return r;
}

std::string defs(StringRef statement) {
  Instruction inst = parseInstruction(statement, 1);
  std::string out;
  for (const RegRange &r : inst.vectorDefs)
    out += (out.empty() ? "" : " ") + r.str();
  return out;
}

//===----------------------------------------------------------------------===//
// Registers and operands
//===----------------------------------------------------------------------===//

TEST(RegisterParsing, VectorAndScalarForms) {
  EXPECT_EQ(parseRegister("v7"), reg(RegRange::VGPR, 7, 7));
  EXPECT_EQ(parseRegister("v[4:7]"), reg(RegRange::VGPR, 4, 7));
  EXPECT_EQ(parseRegister("v[4]"), reg(RegRange::VGPR, 4, 4));
  EXPECT_EQ(parseRegister("v[ 4 : 7 ]"), reg(RegRange::VGPR, 4, 7));
  EXPECT_EQ(parseRegister("a[0:3]"), reg(RegRange::AGPR, 0, 3));
  EXPECT_EQ(parseRegister("a5"), reg(RegRange::AGPR, 5, 5));
  EXPECT_EQ(parseRegister("s[8:11]"), reg(RegRange::SGPR, 8, 11));
  EXPECT_EQ(parseRegister("s12"), reg(RegRange::SGPR, 12, 12));
  EXPECT_EQ(parseRegister("ttmp[4:5]"), reg(RegRange::TTMP, 4, 5));
  EXPECT_EQ(parseRegister("v511"), reg(RegRange::VGPR, 511, 511));
  EXPECT_EQ(parseRegister("vcc")->kind, RegRange::Special);
  EXPECT_EQ(parseRegister("exec_lo")->kind, RegRange::Special);
  EXPECT_EQ(parseRegister("m0")->kind, RegRange::Special);
}

TEST(RegisterParsing, ModifiersAndHalves) {
  EXPECT_EQ(parseRegister("-v1"), reg(RegRange::VGPR, 1, 1));
  EXPECT_EQ(parseRegister("|v2|"), reg(RegRange::VGPR, 2, 2));
  EXPECT_EQ(parseRegister("neg(v3)"), reg(RegRange::VGPR, 3, 3));
  EXPECT_EQ(parseRegister("-|a[2:3]|"), reg(RegRange::AGPR, 2, 3));
  EXPECT_EQ(parseRegister("v1.l"), reg(RegRange::VGPR, 1, 1));
}

TEST(RegisterParsing, RejectsNonRegisters) {
  for (StringRef text :
       {"", "off", "0x10", "1.0", "v", "v[", "v[4:", "v[7:4]", "v[4:7",
        "v99999999999", "v[0:99999999999]", "vmcnt(0)", ".LBB0_1", "sv", "v-1",
        "v[a:b]", "a[1:0]", "s[1:2:3]", "ttmp"})
    EXPECT_FALSE(parseRegister(text).has_value()) << "'" << text.str() << "'";
}

TEST(RegisterParsing, TextAndOverlap) {
  EXPECT_EQ(reg(RegRange::VGPR, 7, 7).str(), "v7");
  EXPECT_EQ(reg(RegRange::VGPR, 4, 7).str(), "v[4:7]");
  EXPECT_EQ(reg(RegRange::AGPR, 0, 3).str(), "a[0:3]");
  RegRange data = reg(RegRange::VGPR, 0, 3);
  EXPECT_TRUE(data.overlaps(reg(RegRange::VGPR, 3, 3)));
  EXPECT_TRUE(data.overlaps(reg(RegRange::VGPR, 2, 5)));
  EXPECT_FALSE(data.overlaps(reg(RegRange::VGPR, 4, 5)));
  EXPECT_FALSE(data.overlaps(reg(RegRange::AGPR, 0, 3)));
  EXPECT_FALSE(data.overlaps(reg(RegRange::SGPR, 0, 3)));
}

TEST(OperandSplitting, OperandsAndModifiers) {
  Instruction store = parseInstruction(
      "  buffer_store_dwordx4 v[0:3], v6, s[8:11], s0 offen offset:16", 7);
  EXPECT_EQ(store.line, 7u);
  EXPECT_EQ(store.mnemonic, "buffer_store_dwordx4");
  ASSERT_EQ(store.operands.size(), 4u);
  EXPECT_EQ(store.operands[0], "v[0:3]");
  EXPECT_EQ(store.operands[3], "s0");
  ASSERT_EQ(store.modifiers.size(), 2u);
  EXPECT_EQ(store.modifiers[0], "offen");
  EXPECT_EQ(store.modifiers[1], "offset:16");

  Instruction pk =
      parseInstruction("v_pk_mov_b32 v[8:9], s[6:7], s[6:7] op_sel:[0,1]", 1);
  ASSERT_EQ(pk.operands.size(), 3u);
  ASSERT_EQ(pk.modifiers.size(), 1u);
  EXPECT_EQ(pk.modifiers[0], "op_sel:[0,1]");

  Instruction bare = parseInstruction("s_endpgm", 1);
  EXPECT_TRUE(bare.operands.empty());
  EXPECT_EQ(bare.flow, Flow::Return);
}

//===----------------------------------------------------------------------===//
// Store width
//===----------------------------------------------------------------------===//

TEST(Width, FromMnemonic) {
  struct Case {
    const char *mnemonic;
    unsigned dwords;
  } cases[] = {
      {"buffer_store_dwordx4", 4},
      {"buffer_store_dwordx3", 3},
      {"buffer_store_dwordx2", 2},
      {"buffer_store_dword", 1},
      {"buffer_store_short_d16_hi", 1},
      {"global_store_b128", 4},
      {"global_store_b96", 3},
      {"global_store_b64", 2},
      {"flat_store_dwordx4", 4},
      {"scratch_store_dwordx3", 3},
      {"buffer_store_format_xyzw", 4},
      {"buffer_store_format_xyz", 3},
      {"buffer_store_format_d16_xyzw", 2},
      {"tbuffer_store_format_d16_xyz", 2},
      {"buffer_atomic_cmpswap_x2", 4},
      {"buffer_atomic_cmpswap", 2},
      {"global_atomic_cmpswap_x2", 4},
      {"flat_atomic_cmpswap_x2", 4},
      {"global_atomic_add_x2", 2},
      {"global_atomic_add_f64", 2},
      {"global_atomic_xor_x4", 4},
      {"buffer_atomic_add_x3", 3},
      {"global_atomic_pk_add_f16", 1},
      {"image_store", 1},
      {"buffer_load_dwordx4", 0},
      {"ds_write_b128", 0},
      {"v_add_f32", 0},
      {"buffer_store_lds_dword", 0},
      {"s_store_dwordx4", 0},
  };
  for (const Case &c : cases)
    EXPECT_EQ(mnemonicDataDwords(c.mnemonic), c.dwords) << c.mnemonic;
}

TEST(Width, FromDataRegisters) {
  Instruction buffer =
      parseInstruction("buffer_store_dwordx4 v[0:3], v6, s[8:11], s0 offen", 1);
  EXPECT_TRUE(buffer.isWideStore());
  EXPECT_EQ(buffer.storeData, reg(RegRange::VGPR, 0, 3));
  EXPECT_TRUE(buffer.vectorDefs.empty());

  Instruction global =
      parseInstruction("global_store_dwordx4 v4, a[0:3], s[0:1]", 1);
  EXPECT_EQ(global.storeData, reg(RegRange::AGPR, 0, 3));

  Instruction flat = parseInstruction("flat_store_dwordx3 v[0:1], v[2:4]", 1);
  EXPECT_EQ(flat.storeDwords, 3u);
  EXPECT_EQ(flat.storeData, reg(RegRange::VGPR, 2, 4));

  Instruction scratch =
      parseInstruction("scratch_store_dwordx4 off, v[2:5], s0", 1);
  EXPECT_EQ(scratch.storeData, reg(RegRange::VGPR, 2, 5));

  EXPECT_FALSE(parseInstruction("global_store_dwordx2 v4, v[0:1], s[0:1]", 1)
                   .isWideStore());
  EXPECT_FALSE(
      parseInstruction(
          "buffer_store_format_d16_xyzw v[0:1], v4, s[0:3], 0 offen", 1)
          .isWideStore());
  EXPECT_FALSE(parseInstruction("ds_write_b128 v4, v[0:3]", 1).isWideStore());
  EXPECT_FALSE(
      parseInstruction("buffer_atomic_cmpswap v[0:1], v4, s[0:3], 0 offen", 1)
          .isWideStore());

  // A 96-bit range in a store of any name is wide.
  EXPECT_TRUE(
      parseInstruction("global_store_b96 v4, v[0:2], s[0:1]", 1).isWideStore());

  // Unparsable data: the mnemonic tells the width, no register can overlap.
  Instruction symbolic =
      parseInstruction("buffer_store_dwordx4 DATA, v0, s[0:3], 0", 1);
  EXPECT_EQ(symbolic.storeDwords, 4u);
  EXPECT_EQ(symbolic.storeData.kind, RegRange::None);
}

TEST(Width, Atomics) {
  Instruction buffer = parseInstruction(
      "buffer_atomic_cmpswap_x2 v[0:3], v8, s[8:11], s12 offen", 1);
  EXPECT_TRUE(buffer.isWideStore());
  EXPECT_EQ(buffer.storeData, reg(RegRange::VGPR, 0, 3));
  EXPECT_TRUE(buffer.vectorDefs.empty());

  // With return (glc), the pre-op value comes back in the low half.
  Instruction bufferRtn = parseInstruction(
      "buffer_atomic_cmpswap_x2 v[0:3], v8, s[8:11], s12 offen glc", 1);
  ASSERT_EQ(bufferRtn.vectorDefs.size(), 1u);
  EXPECT_EQ(bufferRtn.vectorDefs[0], reg(RegRange::VGPR, 0, 1));

  Instruction globalRtn = parseInstruction(
      "global_atomic_cmpswap_x2 v[0:1], v8, v[4:7], s[2:3] sc0", 1);
  EXPECT_EQ(globalRtn.storeData, reg(RegRange::VGPR, 4, 7));
  EXPECT_EQ(defs(globalRtn.text), "v[0:1]");

  Instruction global =
      parseInstruction("global_atomic_cmpswap_x2 v8, v[4:7], s[2:3]", 1);
  EXPECT_EQ(global.storeData, reg(RegRange::VGPR, 4, 7));
  EXPECT_TRUE(global.vectorDefs.empty());
}

TEST(Width, ImageStoresNeedA128BitResource) {
  EXPECT_TRUE(
      parseInstruction("image_store v[0:3], v4, s[0:3] dmask:0xf unorm r128", 1)
          .isWideStore());
  EXPECT_FALSE(
      parseInstruction("image_store v[0:3], v4, s[0:7] dmask:0xf unorm", 1)
          .isWideStore());
}

//===----------------------------------------------------------------------===//
// Writers
//===----------------------------------------------------------------------===//

TEST(Writers, VectorALU) {
  EXPECT_EQ(defs("v_add_u32_e32 v1, 16, v1"), "v1");
  EXPECT_EQ(defs("v_mad_u64_u32 v[0:1], s[0:1], v2, v3, 0"), "v[0:1]");
  EXPECT_EQ(defs("v_readlane_b32 s0, v1, 0"), "");
  EXPECT_EQ(defs("v_readfirstlane_b32 s0, v1"), "");
  EXPECT_EQ(defs("v_writelane_b32 v1, s0, 0"), "v1");
  EXPECT_EQ(defs("v_cmp_eq_u32_e32 vcc, v0, v1"), "");
  EXPECT_EQ(defs("v_cmpx_eq_u32_e32 v0, v1"), "");
  EXPECT_EQ(defs("v_nop"), "");
  EXPECT_EQ(defs("v_accvgpr_write_b32 a2, v2"), "a2");
  EXPECT_EQ(defs("v_accvgpr_read_b32 v2, a2"), "v2");
  EXPECT_EQ(defs("v_mfma_f32_16x16x16_f16 a[0:3], v[0:1], v[2:3], a[0:3]"),
            "a[0:3]");
  EXPECT_EQ(defs("v_swap_b32 v1, v2"), "v1 v2");
  EXPECT_EQ(defs("v_permlane16_swap_b32_e32 v1, v2"), "v1 v2");
  EXPECT_EQ(defs("v_permlane32_swap_b32 v3, v4"), "v3 v4");
}

TEST(Writers, Memory) {
  EXPECT_EQ(defs("buffer_load_dwordx4 v[0:3], v4, s[8:11], 0 offen"), "v[0:3]");
  EXPECT_EQ(defs("global_load_dwordx2 v[2:3], v4, s[0:1]"), "v[2:3]");
  EXPECT_EQ(defs("flat_load_dword v5, v[0:1]"), "v5");
  EXPECT_EQ(defs("scratch_load_dword v5, off, s0"), "v5");
  EXPECT_EQ(defs("buffer_load_dword v1, s[4:7], 0 offen lds"), "");
  EXPECT_EQ(defs("global_load_lds_dwordx4 v2, s[4:5]"), "");
  EXPECT_EQ(defs("ds_read_b64 v[0:1], v4"), "v[0:1]");
  EXPECT_EQ(defs("ds_load_b128 v[0:3], v4"), "v[0:3]");
  EXPECT_EQ(defs("ds_add_rtn_u32 v0, v1, v2"), "v0");
  EXPECT_EQ(defs("ds_bpermute_b32 v0, v1, v2"), "v0");
  EXPECT_EQ(defs("ds_write_b64 v4, v[0:1]"), "");
  EXPECT_EQ(defs("ds_add_u32 v0, v1"), "");
  EXPECT_EQ(defs("buffer_atomic_add v1, v2, s[0:3], 0 offen glc"), "v1");
  EXPECT_EQ(defs("buffer_atomic_add v1, v2, s[0:3], 0 offen"), "");
  EXPECT_EQ(defs("global_atomic_add v1, v[2:3], v4, off sc0"), "v1");
  EXPECT_EQ(defs("global_atomic_add v[2:3], v4, off"), "");
  EXPECT_EQ(defs("image_sample v[0:3], v[4:5], s[0:7], s[8:11] dmask:0xf"),
            "v[0:3]");
  EXPECT_EQ(defs("buffer_store_dwordx4 v[0:3], v4, s[0:3], 0 offen"), "");
  EXPECT_EQ(defs("global_store_dwordx4 v4, v[0:3], s[0:1]"), "");
}

TEST(Writers, ScalarExportAndUnknown) {
  EXPECT_EQ(defs("s_mov_b32 s0, 0"), "");
  EXPECT_EQ(defs("s_load_dwordx4 s[0:3], s[4:5], 0x0"), "");
  EXPECT_EQ(defs("exp mrt0 v0, v1, v2, v3 done vm"), "");
  // Unknown mnemonics write their first operand when it is a VGPR or AGPR.
  EXPECT_EQ(defs("frobnicate_b32 v3, v4"), "v3");
  EXPECT_EQ(defs("frobnicate_b32 a[0:1], v4"), "a[0:1]");
  EXPECT_EQ(defs("frobnicate_b32 s3, v4"), "");
  EXPECT_EQ(defs("frobnicate"), "");
}

//===----------------------------------------------------------------------===//
// Wait states and chips
//===----------------------------------------------------------------------===//

TEST(WaitStates, PerInstruction) {
  EXPECT_EQ(parseInstruction("s_nop 0", 1).waitStates, 1u);
  EXPECT_EQ(parseInstruction("s_nop 1", 1).waitStates, 2u);
  EXPECT_EQ(parseInstruction("s_nop 7", 1).waitStates, 8u);
  EXPECT_EQ(parseInstruction("s_nop 0x3", 1).waitStates, 4u);
  EXPECT_EQ(parseInstruction("s_nop 15", 1).waitStates, 16u);
  EXPECT_EQ(parseInstruction("s_nop 16", 1).waitStates, 1u); // SIMM16[3:0]
  EXPECT_EQ(parseInstruction("s_nop", 1).waitStates, 1u);
  EXPECT_EQ(parseInstruction("s_nop banana", 1).waitStates, 1u);
  EXPECT_EQ(parseInstruction("s_waitcnt vmcnt(0) lgkmcnt(0)", 1).waitStates,
            1u);
  EXPECT_EQ(parseInstruction("v_add_u32 v0, v1, v2", 1).waitStates, 1u);
}

TEST(WaitStates, BetweenStoreAndOverwrite) {
  const char *store = "\tbuffer_store_dwordx4 v[0:3], v4, s[8:11], s12 offen\n";
  auto waitsBefore = [&](StringRef between) {
    std::vector<Finding> f =
        findings((store + between + "\tv_mov_b32 v1, 0\n").str());
    return f.empty() ? -1 : int(f[0].waitStates);
  };
  EXPECT_EQ(waitsBefore(""), 0);
  EXPECT_EQ(waitsBefore("\ts_nop 0\n"), 1);
  EXPECT_EQ(waitsBefore("\ts_waitcnt vmcnt(0)\n"), 1);
  EXPECT_EQ(waitsBefore("\ts_nop 1\n"), -1);
  EXPECT_EQ(waitsBefore("\ts_waitcnt vmcnt(0)\n\ts_nop 0\n"), -1);
  EXPECT_EQ(waitsBefore("\tv_mov_b32 v9, 0\n\ts_add_u32 s0, s0, 1\n"), -1);
  EXPECT_EQ(waitsBefore("; a comment\n\n\t.p2align 2\n.Lx:\n"), 0);
}

TEST(Chips, RequiredWaitStates) {
  EXPECT_EQ(requiredWaitStates("gfx942"), 2u);
  EXPECT_EQ(requiredWaitStates("gfx940"), 2u);
  EXPECT_EQ(requiredWaitStates("gfx941"), 2u);
  EXPECT_EQ(requiredWaitStates("gfx950"), 2u);
  EXPECT_EQ(requiredWaitStates("gfx9-4-generic"), 2u);
  EXPECT_EQ(requiredWaitStates("amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-"),
            2u);
  EXPECT_EQ(requiredWaitStates("gfx90a"), 1u);
  EXPECT_EQ(requiredWaitStates("gfx908"), 1u);
  EXPECT_EQ(requiredWaitStates("gfx900"), 1u);
  EXPECT_EQ(requiredWaitStates("gfx9-generic"), 1u);
  EXPECT_EQ(requiredWaitStates("gfx803"), 1u);
  EXPECT_EQ(requiredWaitStates("gfx600"), 0u);
  EXPECT_EQ(requiredWaitStates("gfx1100"), 0u);
  EXPECT_EQ(requiredWaitStates("gfx1201"), 0u);
  EXPECT_EQ(requiredWaitStates("sm_90"), 0u);
}

TEST(Chips, Names) {
  EXPECT_EQ(normalizeChip("amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-"),
            "gfx942");
  EXPECT_EQ(normalizeChip(" GFX950 "), "gfx950");
  EXPECT_EQ(normalizeChip("\"amdgcn-amd-amdhsa--gfx90a\""), "gfx90a");
  EXPECT_EQ(normalizeChip("sm_90"), "sm_90");
  EXPECT_TRUE(isKnownChip("gfx942"));
  EXPECT_TRUE(isKnownChip("gfx941"));
  EXPECT_TRUE(isKnownChip("gfx1100"));
  EXPECT_FALSE(isKnownChip("gfx999"));
  EXPECT_FALSE(isKnownChip("sm_90"));
}

TEST(Chips, FromTargetOrArgument) {
  std::string text =
      kernelText("\tbuffer_store_dwordx4 v[0:3], v4, s[8:11], s12 offen\n"
                 "\ts_nop 0\n\tv_mov_b32 v1, 0\n",
                 "gfx90a");
  CheckResult fromTarget = check(text);
  EXPECT_EQ(fromTarget.chip, "gfx90a");
  EXPECT_FALSE(fromTarget.hasHazard());
  CheckResult overridden = check(text, "gfx942");
  EXPECT_EQ(overridden.chip, "gfx942");
  EXPECT_TRUE(overridden.hasHazard());

  llvm::Expected<CheckResult> unknown = checkAssembly(text, "t.s", "gfx999");
  ASSERT_FALSE(unknown);
  EXPECT_EQ(llvm::toString(unknown.takeError()), "t.s: unknown chip 'gfx999'");
  llvm::Expected<CheckResult> none = checkAssembly("\ts_endpgm\n", "t.s", "");
  ASSERT_FALSE(none);
  EXPECT_NE(llvm::toString(none.takeError()).find("no target chip"),
            std::string::npos);
}

//===----------------------------------------------------------------------===//
// Kernels and basic blocks
//===----------------------------------------------------------------------===//

TEST(CFG, BlocksAndSuccessors) {
  // The module refers into the text: it must outlive the module (a
  // temporary here was a use-after-free that AddressSanitizer found).
  const std::string text =
      kernelText("\ts_mov_b32 s0, 0\n"           // 0: block 0
                 ".LBB0_1:\n"                    //
                 "\tv_add_u32 v0, 1, v0\n"       // 1: block 1
                 "\ts_cbranch_scc1 .LBB0_1\n"    // 2
                 "\ts_branch .LBB0_3\n"          // 3: block 2
                 ".LBB0_2:\n"                    //
                 "\tv_mov_b32 v1, 0\n"           // 4: block 3
                 ".LBB0_3:\n"                    //
                 "\ts_cbranch_execz .Lmissing\n" // 5: block 4
                 "\ts_endpgm\n"                  // 6: block 5
                 "\tv_mov_b32 v2, 0\n");         // 7: block 6, then s_endpgm
  AsmModule module = parseAssembly(text);
  ASSERT_EQ(module.kernels.size(), 1u);
  Kernel &k = module.kernels[0];
  EXPECT_EQ(k.name, "k");
  ASSERT_EQ(k.instructions.size(), 9u);
  buildCFG(k);
  ASSERT_EQ(k.blocks.size(), 7u);
  auto succs = [&](unsigned b) {
    return std::vector<unsigned>(k.blocks[b].succs.begin(),
                                 k.blocks[b].succs.end());
  };
  EXPECT_EQ(k.blocks[0].begin, 0u);
  EXPECT_EQ(k.blocks[0].end, 1u);
  EXPECT_EQ(succs(0), std::vector<unsigned>({1}));
  EXPECT_EQ(k.blocks[1].label, ".LBB0_1");
  EXPECT_EQ(k.blocks[1].end, 3u);
  EXPECT_EQ(succs(1), std::vector<unsigned>({1, 2})); // back-edge, fall-through
  EXPECT_EQ(succs(2), std::vector<unsigned>({4}));    // s_branch .LBB0_3
  EXPECT_EQ(succs(3), std::vector<unsigned>({4}));
  EXPECT_EQ(k.blocks[4].label, ".LBB0_3");
  EXPECT_EQ(succs(4), std::vector<unsigned>({5})); // unknown target
  EXPECT_TRUE(succs(5).empty());                   // s_endpgm
  EXPECT_EQ(k.blocks[6].begin, 7u);
  EXPECT_TRUE(succs(6).empty());
}

TEST(CFG, KernelSplitting) {
  AsmModule module =
      parseAssembly("\t.amdgcn_target \"amdgcn-amd-amdhsa--gfx942\"\n"
                    "\t.type first,@function\n"
                    "\t.type second, @function\n"
                    "first:\n\tv_mov_b32 v0, 0 ; comment\n\ts_endpgm\n"
                    ".Lfunc_end0:\n"
                    "\t.p2alignl 6, 3212836864\n"
                    "second:\n\tv_mov_b32 v1, 0 // comment\n"
                    "/* block\n comment */\n\ts_endpgm\n"
                    "\t.size second, .-second\n"
                    "\t.amdhsa_kernel third\n\t.amdhsa_next_free_vgpr 1\n"
                    "\t.end_amdhsa_kernel\n"
                    "third:\n\ts_nop 0\n\ts_endpgm\n");
  EXPECT_EQ(module.target, "amdgcn-amd-amdhsa--gfx942");
  ASSERT_EQ(module.kernels.size(), 3u);
  EXPECT_EQ(module.kernels[0].name, "first");
  EXPECT_EQ(module.kernels[0].instructions.size(), 2u);
  EXPECT_EQ(module.kernels[0].instructions[0].text, "v_mov_b32 v0, 0");
  EXPECT_EQ(module.kernels[1].name, "second");
  EXPECT_EQ(module.kernels[1].instructions.size(), 2u);
  EXPECT_EQ(module.kernels[1].instructions[1].line, 13u);
  EXPECT_EQ(module.kernels[2].name, "third");
}

TEST(CFG, SnippetsWithoutDeclaredFunctions) {
  // Global labels start kernels, except where code branches to them.
  AsmModule module = parseAssembly("a:\n\ts_cbranch_scc0 done\n\ts_endpgm\n"
                                   "done:\n\ts_endpgm\n"
                                   "b:\n\tv_mov_b32 v0, 0\n"
                                   "loop:\n\ts_cbranch_scc0 loop\n"
                                   "\ts_endpgm\n");
  ASSERT_EQ(module.kernels.size(), 2u);
  EXPECT_EQ(module.kernels[0].name, "a");
  EXPECT_EQ(module.kernels[0].instructions.size(), 3u);
  EXPECT_EQ(module.kernels[1].name, "b");
  EXPECT_EQ(module.kernels[1].instructions.size(), 3u);

  AsmModule bare = parseAssembly("\tv_mov_b32 v0, 0\n");
  ASSERT_EQ(bare.kernels.size(), 1u);
  EXPECT_EQ(bare.kernels[0].name, "<anonymous>");

  // A bare loop keeps its label, and its back-edge.
  llvm::Expected<CheckResult> loop =
      checkAssembly(".Lloop:\n"
                    "\tv_mov_b32 v1, 0\n"
                    "\tbuffer_store_dwordx4 v[0:3], v4, s[8:11], s12 offen\n"
                    "\ts_cbranch_scc1 .Lloop\n",
                    "loop.s", "gfx942");
  ASSERT_TRUE(bool(loop));
  ASSERT_EQ(loop->kernels.size(), 1u);
  ASSERT_EQ(loop->kernels[0].hazards.size(), 1u);
  EXPECT_EQ(loop->kernels[0].hazards[0].writeLine, 2u);
  EXPECT_EQ(loop->kernels[0].hazards[0].waitStates, 1u);
}

//===----------------------------------------------------------------------===//
// The fixture classes
//===----------------------------------------------------------------------===//

const char *kSgprSoffset = // llc-22 -mcpu=gfx942, buffer-store-sgpr-soffset.ll
    "\tbuffer_load_dwordx4 v[0:3], v4, s[8:11], 0 offen\n"
    "\ts_waitcnt vmcnt(0)\n"
    "\tbuffer_store_dwordx4 v[0:3], v4, s[8:11], s12 offen\n"
    "\tv_mul_lo_u32 v3, v3, v3\n"
    "\tv_mul_lo_u32 v2, v2, v2\n"
    "\tv_mul_lo_u32 v1, v1, v1\n"
    "\tv_mul_lo_u32 v0, v0, v0\n"
    "\tbuffer_store_dwordx4 v[0:3], v4, s[8:11], s12 offen offset:16\n";

TEST(Fixtures, SgprSoffsetUnprotected) {
  std::vector<Finding> f = findings(kSgprSoffset);
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[0].kernel, "k");
  EXPECT_EQ(f[0].file, "t.s");
  EXPECT_EQ(f[0].storeLine, 8u);
  EXPECT_EQ(f[0].storeText,
            "buffer_store_dwordx4 v[0:3], v4, s[8:11], s12 offen");
  EXPECT_EQ(f[0].writeLine, 9u);
  EXPECT_EQ(f[0].writeText, "v_mul_lo_u32 v3, v3, v3");
  EXPECT_EQ(f[0].waitStates, 0u);
  EXPECT_EQ(f[0].needed, 2u);
  EXPECT_EQ(f[0].registers, "v3");
  EXPECT_EQ(f[1].registers, "v2");
  EXPECT_EQ(f[1].waitStates, 1u);

  EXPECT_EQ(findings(kSgprSoffset, "gfx950").size(), 2u);
  std::vector<Finding> gfx90a = findings(kSgprSoffset, "gfx90a");
  ASSERT_EQ(gfx90a.size(), 1u);
  EXPECT_EQ(gfx90a[0].needed, 1u);
  EXPECT_TRUE(findings(kSgprSoffset, "gfx1100").empty());
}

TEST(Fixtures, ProtectedByNop) {
  const char *nop1 = "\tglobal_store_dwordx4 v4, v[0:3], s[2:3]\n"
                     "\ts_nop 1\n"
                     "\tv_mul_lo_u32 v3, v3, v3\n";
  EXPECT_TRUE(findings(nop1, "gfx942").empty());
  EXPECT_TRUE(findings(nop1, "gfx950").empty());
  const char *nop0 = "\tglobal_store_dwordx4 v5, v[0:3], s[2:3]\n"
                     "\ts_nop 0\n"
                     "\tv_mul_lo_u32 v3, v3, v3\n";
  EXPECT_TRUE(findings(nop0, "gfx90a").empty());
  std::vector<Finding> f = findings(nop0, "gfx950");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].waitStates, 1u);
  EXPECT_EQ(f[0].needed, 2u);
}

TEST(Fixtures, SafeStores) {
  // Two or more instructions in between.
  EXPECT_TRUE(findings("\tbuffer_store_dwordx4 v[0:3], v4, s[8:11], s12 offen\n"
                       "\ts_add_i32 s12, s12, 16\n"
                       "\tv_add_u32 v4, 16, v4\n"
                       "\tv_mul_lo_u32 v3, v3, v3\n")
                  .empty());
  // Writes next to the data, or to SGPRs.
  EXPECT_TRUE(findings("\tbuffer_store_dwordx4 v[4:7], v8, s[8:11], s12 offen\n"
                       "\tv_mov_b32 v3, 0\n"
                       "\tv_mov_b64 v[8:9], 0\n"
                       "\tv_readlane_b32 s5, v4, 0\n"
                       "\tv_accvgpr_write_b32 a4, v3\n")
                  .empty());
  // 64-bit stores.
  EXPECT_TRUE(findings("\tbuffer_store_dwordx2 v[0:1], v4, s[8:11], s12 offen\n"
                       "\tv_mul_lo_u32 v1, v1, v1\n"
                       "\tglobal_store_dwordx2 v4, v[0:1], s[2:3]\n"
                       "\tv_mov_b32 v0, 0\n")
                  .empty());
}

TEST(Fixtures, AgprData) {
  std::vector<Finding> f =
      findings("\tglobal_store_dwordx4 v4, a[0:3], s[0:1]\n"
               "\tv_mov_b32 v2, 0\n"
               "\tv_accvgpr_write_b32 a2, v2\n");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].registers, "a2");
  EXPECT_EQ(f[0].waitStates, 1u);
}

TEST(Fixtures, CrossBlockWorstPath) {
  // Fall-through: s_cbranch and s_nop 0 (2 wait states). Taken: 1.
  std::vector<Finding> f =
      findings("\tbuffer_store_dwordx4 v[0:3], v4, s[8:11], s12 offen\n"
               "\ts_cbranch_scc1 .LBB0_2\n"
               "\ts_nop 0\n"
               ".LBB0_2:\n"
               "\tv_mov_b32 v1, 1\n");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].waitStates, 1u);
  EXPECT_EQ(f[0].writeText, "v_mov_b32 v1, 1");
  // Through an unconditional branch too.
  EXPECT_EQ(findings("\tbuffer_store_dwordx4 v[0:3], v4, s[8:11], s12 offen\n"
                     "\ts_branch .LBB0_2\n"
                     "\tv_mov_b32 v1, 0\n"
                     "\tv_mov_b32 v1, 0\n"
                     ".LBB0_2:\n"
                     "\tv_mov_b32 v2, 1\n")
                .size(),
            1u);
}

TEST(Fixtures, LoopBackEdge) {
  // Through the back-edge the VALU write at the loop head comes 1 wait
  // state after the store (2 needed); the load after it, at 2, needs 1.
  const char *loop = ".LBB0_1:\n"
                     "\tv_mov_b32 v2, 0\n"
                     "\tbuffer_load_dwordx4 v[2:5], v0, s[8:11], 0 offen\n"
                     "\ts_waitcnt vmcnt(0)\n"
                     "\tv_add_u32 v0, 16, v0\n"
                     "\tbuffer_store_dwordx4 v[2:5], v0, s[8:11], s12 offen\n"
                     "\ts_cbranch_scc1 .LBB0_1\n";
  std::vector<Finding> f = findings(loop);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].writeLine, 7u);
  EXPECT_EQ(f[0].storeLine, 11u);
  EXPECT_EQ(f[0].registers, "v2");
  EXPECT_EQ(f[0].waitStates, 1u);
  EXPECT_EQ(f[0].needed, 2u);
  EXPECT_TRUE(findings(loop, "gfx90a").empty());

  // A load at the head, 1 wait state after the store, is not an overwrite
  // too early: loads need 1; one right after the store is.
  const char *loadAtHead =
      ".LBB0_1:\n"
      "\tbuffer_load_dwordx4 v[2:5], v0, s[8:11], 0 offen\n"
      "\ts_waitcnt vmcnt(0)\n"
      "\tv_add_u32 v0, 16, v0\n"
      "\tbuffer_store_dwordx4 v[2:5], v0, s[8:11], s12 offen\n"
      "\ts_cbranch_scc1 .LBB0_1\n";
  EXPECT_TRUE(findings(loadAtHead).empty());
  std::vector<Finding> early = findings(
      "\tbuffer_store_dwordx4 v[2:5], v0, s[8:11], s12 offen\n"
      "\tbuffer_load_dword v3, v0, s[8:11], 0 offen\n");
  ASSERT_EQ(early.size(), 1u);
  EXPECT_EQ(early[0].waitStates, 0u);
  EXPECT_EQ(early[0].needed, 1u);
}

TEST(Fixtures, WaitcntOnly) {
  std::vector<Finding> f =
      findings("\tbuffer_store_dwordx4 v[0:3], v4, s[8:11], s12 offen\n"
               "\ts_waitcnt vmcnt(0)\n"
               "\tv_mov_b32 v1, 0\n");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].waitStates, 1u);
}

TEST(Fixtures, WideData) {
  EXPECT_EQ(findings("\tbuffer_store_dwordx3 v[0:2], v4, s[8:11], s12 offen\n"
                     "\tv_mov_b32 v2, 0\n")
                .size(),
            1u);
  EXPECT_EQ(findings("\tbuffer_atomic_cmpswap_x2 v[0:3], v8, s[8:11], s12 "
                     "offen\n\tv_mov_b32 v3, 1\n")
                .size(),
            1u);
  EXPECT_TRUE(findings("\tbuffer_atomic_cmpswap v[0:1], v8, s[8:11], s12 "
                       "offen\n\tv_mov_b32 v1, 1\n")
                  .empty());
  std::vector<Finding> load =
      findings("\tbuffer_store_dwordx4 v[0:3], v4, s[8:11], s12 offen\n"
               "\tds_read_b64 v[2:3], v4\n");
  ASSERT_EQ(load.size(), 1u);
  EXPECT_EQ(load[0].registers, "v[2:3]");
  std::vector<Finding> swap =
      findings("\tbuffer_store_dwordx4 v[0:3], v4, s[8:11], s12 offen\n"
               "\tv_swap_b32 v3, v1\n");
  ASSERT_EQ(swap.size(), 1u);
  EXPECT_EQ(swap[0].registers, "v3, v1");
}

TEST(Fixtures, Gfx90aOneInstructionIsEnough) {
  const char *one = "\tglobal_store_dwordx4 v5, v[0:3], s[2:3]\n"
                    "\tv_add_u32 v5, 16, v5\n"
                    "\tv_mul_lo_u32 v3, v3, v3\n";
  const char *none = "\tglobal_store_dwordx4 v5, v[0:3], s[2:3]\n"
                     "\tv_mul_lo_u32 v3, v3, v3\n";
  EXPECT_TRUE(findings(one, "gfx90a").empty());
  EXPECT_EQ(findings(none, "gfx90a").size(), 1u);
  EXPECT_EQ(findings(one, "gfx942").size(), 1u);
}

TEST(Fixtures, PathsEndAtCallsAndReturns) {
  EXPECT_TRUE(findings("\tbuffer_store_dwordx4 v[0:3], v4, s[8:11], s12 offen\n"
                       "\ts_swappc_b64 s[30:31], s[0:1]\n"
                       "\tv_mov_b32 v1, 0\n")
                  .empty());
  EXPECT_TRUE(findings("\tbuffer_store_dwordx4 v[0:3], v4, s[8:11], s12 offen\n"
                       "\ts_endpgm\n"
                       "\tv_mov_b32 v1, 0\n")
                  .empty());
  // An atomic's own return is not an overwrite, even around a loop.
  EXPECT_TRUE(findings(".LBB0_1:\n"
                       "\tbuffer_atomic_cmpswap_x2 v[0:3], v8, s[8:11], 0 "
                       "offen glc\n\ts_cbranch_scc1 .LBB0_1\n")
                  .empty());
}

//===----------------------------------------------------------------------===//
// Kernel report
//===----------------------------------------------------------------------===//

TEST(KernelReport, WaitcntKinds) {
  CheckResult r = check(kernelText("\ts_waitcnt vmcnt(0) lgkmcnt(0)\n"
                                   "\ts_waitcnt vmcnt(1)\n"
                                   "\ts_waitcnt 0\n"
                                   "\ts_waitcnt expcnt(0) & lgkmcnt(2)\n"
                                   "\ts_waitcnt_vscnt null, 0x0\n"
                                   "\ts_wait_loadcnt_dscnt 0x0\n"));
  ASSERT_EQ(r.kernels.size(), 1u);
  std::map<std::string, unsigned> expected = {
      {"total", 6}, {"vmcnt", 3},   {"lgkmcnt", 3}, {"expcnt", 2},
      {"vscnt", 1}, {"loadcnt", 1}, {"dscnt", 1}};
  EXPECT_EQ(r.kernels[0].waitcnts, expected);
}

TEST(KernelReport, Resources) {
  std::string text = kernelText("\tv_mov_b32 v0, 0\n") +
                     "\t.set k.num_vgpr, 5\n"
                     "\t.set k.num_agpr, 4\n"
                     "; Kernel info:\n"
                     "; TotalNumSgprs: 14\n"
                     "; ScratchSize: 16\n"
                     "; LDSByteSize: 4096 bytes/workgroup (compile time only)\n"
                     "\t.amdgpu_metadata\n---\namdhsa.kernels:\n"
                     "  - .agpr_count:     4\n"
                     "    .args:\n"
                     "      - .name:           in\n"
                     "        .offset:         0\n"
                     "    .name:           k\n"
                     "    .sgpr_spill_count: 2\n"
                     "    .vgpr_count:     12\n"
                     "    .vgpr_spill_count: 1\n"
                     "amdhsa.target:   amdgcn-amd-amdhsa--gfx942\n...\n"
                     "\t.end_amdgpu_metadata\n";
  CheckResult r = check(text);
  ASSERT_EQ(r.kernels.size(), 1u);
  const KernelReport &k = r.kernels[0];
  EXPECT_EQ(k.name, "k");
  EXPECT_EQ(k.vgprs, 5u); // .set beats .vgpr_count - .agpr_count
  EXPECT_EQ(k.agprs, 4u);
  EXPECT_EQ(k.sgprs, 14u);
  EXPECT_EQ(k.vgprSpills, 1u);
  EXPECT_EQ(k.sgprSpills, 2u);
  EXPECT_EQ(k.scratchBytes, 16u);
  EXPECT_EQ(k.ldsBytes, 4096u);

  // Only .amdhsa_* directives: their literal values.
  CheckResult bounds =
      check(kernelText("") +
            "\t.amdhsa_kernel k\n\t\t.amdhsa_group_segment_fixed_size 512\n"
            "\t\t.amdhsa_next_free_vgpr 9\n"
            "\t\t.amdhsa_next_free_sgpr max(k.numbered_sgpr, 1)\n"
            "\t.end_amdhsa_kernel\n");
  EXPECT_EQ(bounds.kernels[0].ldsBytes, 512u);
  EXPECT_EQ(bounds.kernels[0].vgprs, 9u);
  EXPECT_EQ(bounds.kernels[0].sgprs, 0u);
}

//===----------------------------------------------------------------------===//
// Output
//===----------------------------------------------------------------------===//

TEST(Output, JSONShape) {
  CheckResult r = check(kernelText(kSgprSoffset));
  std::string text = toJSON({r, CheckResult()});
  llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(text);
  ASSERT_TRUE(bool(parsed)) << llvm::toString(parsed.takeError());
  const llvm::json::Object *root = parsed->getAsObject();
  ASSERT_TRUE(root);
  EXPECT_EQ(root->getString("checker"), StringRef(kCheckerVersion));
  const llvm::json::Array *files = root->getArray("files");
  ASSERT_TRUE(files);
  ASSERT_EQ(files->size(), 2u);
  const llvm::json::Object *file = (*files)[0].getAsObject();
  ASSERT_TRUE(file);
  EXPECT_EQ(file->getString("file"), StringRef("t.s"));
  EXPECT_EQ(file->getString("chip"), StringRef("gfx942"));
  EXPECT_EQ(file->getBoolean("hazard"), true);
  const llvm::json::Array *kernels = file->getArray("kernels");
  ASSERT_TRUE(kernels);
  ASSERT_EQ(kernels->size(), 1u);
  const llvm::json::Object *kernel = (*kernels)[0].getAsObject();
  ASSERT_TRUE(kernel);
  EXPECT_EQ(kernel->getString("name"), StringRef("k"));
  for (StringRef key : {"vgprs", "agprs", "sgprs", "vgpr_spills", "sgpr_spills",
                        "scratch_bytes", "lds_bytes"})
    EXPECT_TRUE(kernel->getInteger(key).has_value()) << key.str();
  const llvm::json::Object *waitcnts = kernel->getObject("waitcnts");
  ASSERT_TRUE(waitcnts);
  EXPECT_EQ(waitcnts->getInteger("total"), 1);
  EXPECT_EQ(waitcnts->getInteger("vmcnt"), 1);
  const llvm::json::Array *hazards = kernel->getArray("hazards");
  ASSERT_TRUE(hazards);
  ASSERT_EQ(hazards->size(), 2u);
  const llvm::json::Object *h = (*hazards)[0].getAsObject();
  ASSERT_TRUE(h);
  EXPECT_EQ(h->getInteger("store_line"), 8);
  EXPECT_EQ(h->getString("store"),
            StringRef("buffer_store_dwordx4 v[0:3], v4, s[8:11], s12 offen"));
  EXPECT_EQ(h->getInteger("write_line"), 9);
  EXPECT_EQ(h->getString("write"), StringRef("v_mul_lo_u32 v3, v3, v3"));
  EXPECT_EQ(h->getInteger("wait_states"), 0);
  EXPECT_EQ(h->getInteger("needed"), 2);
  EXPECT_EQ(h->getString("registers"), StringRef("v3"));
  EXPECT_EQ((*files)[1].getAsObject()->getBoolean("hazard"), false);
}

TEST(Output, JSONSurvivesInvalidUTF8) {
  CheckResult r =
      check(kernelText("\tbuffer_store_dwordx4 v[0:3], v4, s[8:11], s12 offen\n"
                       "\tfrob\xff\xfe v1, v2\n"));
  ASSERT_TRUE(r.hasHazard());
  EXPECT_TRUE(bool(llvm::json::parse(toJSON({r}))));
}

TEST(Output, Text) {
  CheckResult r = check(kernelText(kSgprSoffset));
  std::string text = toText(r);
  EXPECT_NE(text.find("t.s:8: hazard: kernel 'k': 'buffer_store_dwordx4 "
                      "v[0:3], v4, s[8:11], s12 offen' data v3 overwritten at "
                      "line 9 by 'v_mul_lo_u32 v3, v3, v3' after 0 wait "
                      "states (2 needed)\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("t.s: gfx942: 1 kernel, 2 hazards\n"), std::string::npos);
  EXPECT_NE(text.find("  kernel k: s_waitcnt 1 (vmcnt 1); VGPRs 0"),
            std::string::npos);
}

TEST(Output, FileDispatch) {
  llvm::Expected<CheckResult> text =
      checkFile(kernelText(kSgprSoffset), "t.s", "");
  ASSERT_TRUE(bool(text));
  EXPECT_TRUE(text->hasHazard());

  llvm::Expected<CheckResult> binary =
      checkFile(StringRef("\x01\x02\x00junk", 7), "b.bin", "gfx942");
  ASSERT_FALSE(binary);
  EXPECT_EQ(llvm::toString(binary.takeError()),
            "b.bin: neither AMDGCN assembly nor an ELF code object (binary "
            "data)");

  llvm::Expected<CheckResult> elf = checkFile(StringRef("\x7f"
                                                        "ELF\x02\x01\x01",
                                                        7),
                                              "e.o", "");
  ASSERT_FALSE(elf);
  EXPECT_NE(llvm::toString(elf.takeError()).find("e.o: not a readable ELF"),
            std::string::npos);
}

//===----------------------------------------------------------------------===//
// Robustness
//===----------------------------------------------------------------------===//

TEST(Robustness, RandomGarbageLines) {
  static const char *const pieces[] = {"buffer_store_dwordx4",
                                       "global_store_dwordx3",
                                       "v_mov_b32",
                                       "v_swap_b32",
                                       "s_nop",
                                       "s_waitcnt",
                                       "s_cbranch_scc1",
                                       "s_branch",
                                       "s_endpgm",
                                       "s_setpc_b64",
                                       "ds_read_b64",
                                       "global_atomic_cmpswap_x2",
                                       "v[0:3]",
                                       "v[4:",
                                       "a[0:3]",
                                       "v1",
                                       "a2",
                                       "s[0:3]",
                                       "vcc",
                                       "0x7",
                                       "-1",
                                       ".LBB0_1",
                                       ".LBB0_1:",
                                       "k:",
                                       ".Lfunc_end0:",
                                       ".type k,@function",
                                       ".amdgpu_metadata",
                                       ".end_amdgpu_metadata",
                                       ".amdhsa_kernel k",
                                       ".end_amdhsa_kernel",
                                       ".set k.num_vgpr, 3",
                                       "; NumVgprs: 9",
                                       "/*",
                                       "*/",
                                       "//",
                                       ",",
                                       ",,",
                                       ":",
                                       "::",
                                       "[",
                                       "]",
                                       "(",
                                       ")",
                                       "\"",
                                       "|",
                                       "offen",
                                       "glc",
                                       "sc0",
                                       "lds",
                                       "vmcnt(0)",
                                       "  - .name: k",
                                       "amdhsa.kernels:",
                                       "\t",
                                       " "};
  std::mt19937 rng(20240611);
  for (unsigned iteration = 0; iteration < 3000; ++iteration) {
    std::string text;
    unsigned lines = rng() % 40;
    for (unsigned l = 0; l < lines; ++l) {
      unsigned tokens = rng() % 8;
      for (unsigned t = 0; t < tokens; ++t) {
        if (rng() % 10 == 0) {
          text += char(rng() % 256); // any byte, NUL included
        } else {
          text += pieces[rng() % (sizeof(pieces) / sizeof(pieces[0]))];
          text += rng() % 3 ? " " : "";
        }
      }
      text += rng() % 20 ? "\n" : "\r\n";
    }
    llvm::Expected<CheckResult> result =
        checkAssembly(text, "junk.s", "gfx942");
    ASSERT_TRUE(bool(result)) << llvm::toString(result.takeError());
    for (const KernelReport &k : result->kernels)
      for (const Finding &f : k.hazards)
        EXPECT_LT(f.waitStates, f.needed);
    EXPECT_TRUE(bool(llvm::json::parse(toJSON({*result}))));
    (void)toText(*result);
    // Without a chip the text may or may not name one; either way no crash.
    llvm::Expected<CheckResult> sniffed = checkFile(text, "junk", "");
    if (!sniffed)
      llvm::consumeError(sniffed.takeError());
  }
}

TEST(Robustness, RandomBinaryAndELFJunk) {
  std::mt19937 rng(7);
  for (unsigned iteration = 0; iteration < 500; ++iteration) {
    std::string bytes = iteration % 2 ? "\x7f"
                                        "ELF"
                                      : "";
    unsigned size = rng() % 300;
    for (unsigned i = 0; i < size; ++i)
      bytes += char(rng() % 256);
    llvm::Expected<CheckResult> result = checkFile(bytes, "junk.bin", "");
    if (!result)
      llvm::consumeError(result.takeError());
  }
}

/// The code object of test/ISA/fixtures, found next to this source file.
std::string readFixture(StringRef name) {
  llvm::SmallString<256> path(__FILE__);
  llvm::sys::path::remove_filename(path);
  llvm::sys::path::append(path, "../../ISA/fixtures", name);
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  return buffer ? (*buffer)->getBuffer().str() : std::string();
}

TEST(Robustness, CodeObjectAndCorruptions) {
  std::string hsaco = readFixture("buffer-store-sgpr-soffset.hsaco");
  if (hsaco.empty())
    GTEST_SKIP() << "fixture not found next to " << __FILE__;
  llvm::Expected<CheckResult> result =
      checkCodeObject(hsaco, "buffer-store-sgpr-soffset.hsaco", "");
  ASSERT_TRUE(bool(result)) << llvm::toString(result.takeError());
  EXPECT_EQ(result->chip, "gfx942");
  ASSERT_EQ(result->kernels.size(), 1u);
  const KernelReport &k = result->kernels[0];
  EXPECT_EQ(k.name, "store_sgpr_soffset");
  EXPECT_EQ(k.sgprs, 19u);
  ASSERT_EQ(k.hazards.size(), 2u);
  EXPECT_EQ(k.hazards[0].storeLine, 0u);
  EXPECT_EQ(k.hazards[0].storeText,
            "buffer_store_dwordx4 v[0:3], v4, s[8:11], s12 offen // "
            "store_sgpr_soffset+0x118");
  EXPECT_EQ(k.hazards[0].registers, "v3");
  EXPECT_EQ(k.hazards[1].registers, "v2");

  // The same bytes with some flipped, cut short, or bytes appended. LLVM's
  // AMDGPU decoder crashes on some invalid encodings; the check survives
  // them under crash recovery, as rocdsl-isa-check runs it.
  llvm::CrashRecoveryContext::Enable();
  std::mt19937 rng(11);
  for (unsigned iteration = 0; iteration < 400; ++iteration) {
    std::string bytes = hsaco;
    unsigned flips = 1 + rng() % 8;
    for (unsigned i = 0; i < flips; ++i)
      bytes[rng() % bytes.size()] = char(rng() % 256);
    if (iteration % 5 == 0)
      bytes.resize(rng() % bytes.size());
    if (iteration % 7 == 0)
      bytes += std::string(rng() % 64, char(rng() % 256));
    llvm::Expected<CheckResult> mutated = checkFile(bytes, "mutated", "");
    if (!mutated)
      llvm::consumeError(mutated.takeError());
  }
}

} // namespace
