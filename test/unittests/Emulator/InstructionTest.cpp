//===- InstructionTest.cpp - single instructions of the emulator ----------===//
//
// Each test sets up one wave, runs a few printed instructions, and checks
// the registers or memory against values derived from the CDNA3/CDNA4 ISA
// guides' definitions, written out here independently of the emulator's
// implementation (DPP lane selections, EXEC masking, buffer range checking,
// bf16 and fp8 rounding, counted waits, MFMA layouts).
//
//===----------------------------------------------------------------------===//
#include "Machine.h"

#include "llvm/ADT/bit.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include <cmath>
#include <cstring>
#include <functional>
#include <random>

using namespace mlir::rocdsl::emu;

namespace {

class EmulatorInstructionTest : public ::testing::TestWithParam<const char *> {
protected:
  void SetUp() override {
    auto model = getChipModel(GetParam());
    ASSERT_TRUE(bool(model)) << llvm::toString(model.takeError());
    chip = *model;
    resetWave(wave);
    group.lds.assign(65536, 0);
  }
  std::string run(std::vector<std::string> lines) {
    return runInstructions(chip, lines, wave, group, memory);
  }
  uint32_t *v(unsigned r) { return wave.vreg(r); }
  void iota(unsigned r, uint32_t base = 100) {
    for (unsigned l = 0; l < 64; ++l)
      v(r)[l] = base + l;
  }

  ChipModel chip;
  Wave wave;
  Workgroup group;
  Memory memory;
};

// DPP lane selection, per the ISA guide's DPP_CTRL table: the source lane of
// each destination lane (-1: out of range).
int dppSource(const std::string &ctrl, unsigned lane) {
  unsigned row = lane / 16, i = lane % 16;
  if (ctrl == "quad_perm:[3,2,1,0]")
    return (lane & ~3u) + (3 - (lane & 3));
  if (ctrl == "row_shl:1")
    return i + 1 < 16 ? int(lane + 1) : -1;
  if (ctrl == "row_shr:3")
    return i >= 3 ? int(lane - 3) : -1;
  if (ctrl == "row_ror:5")
    return int(row * 16 + (i + 16 - 5) % 16);
  if (ctrl == "row_mirror")
    return int(row * 16 + 15 - i);
  if (ctrl == "row_half_mirror")
    return int(row * 16 + (i < 8 ? 7 - i : 23 - i));
  if (ctrl == "wave_shr:1")
    return lane == 0 ? -1 : int(lane - 1);
  if (ctrl == "wave_rol:1")
    return int((lane + 1) % 64);
  if (ctrl == "row_bcast:15")
    return row == 0 ? -1 : int(16 * row - 1);
  if (ctrl == "row_bcast:31")
    return row < 2 ? -1 : 31;
  return -2;
}

TEST_P(EmulatorInstructionTest, DPPSelectsTheDocumentedLanes) {
  for (const char *ctrl :
       {"quad_perm:[3,2,1,0]", "row_shl:1", "row_shr:3", "row_ror:5",
        "row_mirror", "row_half_mirror", "wave_shr:1", "wave_rol:1",
        "row_bcast:15", "row_bcast:31"}) {
    for (bool bound : {false, true}) {
      resetWave(wave);
      iota(1);
      for (unsigned l = 0; l < 64; ++l)
        v(2)[l] = 0xdead0000u + l;
      std::string text = std::string("v_mov_b32_dpp v2, v1 ") + ctrl +
                         " row_mask:0xf bank_mask:0xf" +
                         (bound ? " bound_ctrl:1" : "");
      ASSERT_EQ(run({text}), "") << text;
      for (unsigned l = 0; l < 64; ++l) {
        int from = dppSource(ctrl, l);
        ASSERT_NE(from, -2);
        uint32_t want = from >= 0 ? 100 + from : bound ? 0 : 0xdead0000u + l;
        EXPECT_EQ(v(2)[l], want) << text << " lane " << l;
      }
    }
  }
}

TEST_P(EmulatorInstructionTest, DPPRowAndBankMasksLimitWrites) {
  iota(1);
  for (unsigned l = 0; l < 64; ++l)
    v(2)[l] = 7;
  // Rows 1 and 3; banks 0 and 2 (lanes 0-3 and 8-11 of each row).
  ASSERT_EQ(run({"v_mov_b32_dpp v2, v1 quad_perm:[0,1,2,3] row_mask:0xa "
                 "bank_mask:0x5"}),
            "");
  for (unsigned l = 0; l < 64; ++l) {
    bool on = ((l / 16) & 1) && (((l % 16) / 4) % 2 == 0);
    EXPECT_EQ(v(2)[l], on ? 100 + l : 7u) << "lane " << l;
  }
}

TEST_P(EmulatorInstructionTest, DPPReadsSourcesBeforeWriting) {
  // In-place row reduction step: every lane must see its neighbour's value
  // from before the instruction.
  for (unsigned l = 0; l < 64; ++l)
    v(0)[l] = llvm::bit_cast<uint32_t>(float(l));
  ASSERT_EQ(run({"v_add_f32_dpp v0, v0, v0 quad_perm:[1,0,3,2] row_mask:0xf "
                 "bank_mask:0xf bound_ctrl:1"}),
            "");
  for (unsigned l = 0; l < 64; ++l)
    EXPECT_EQ(llvm::bit_cast<float>(v(0)[l]), float(l + (l ^ 1))) << l;
}

TEST_P(EmulatorInstructionTest, ExecMasksVectorWrites) {
  iota(1);
  iota(2, 1000);
  wave.setExec(0x8000000000000005ull);
  ASSERT_EQ(run({"v_add_u32_e32 v3, v1, v2"}), "");
  for (unsigned l = 0; l < 64; ++l) {
    bool on = l == 0 || l == 2 || l == 63;
    EXPECT_EQ(v(3)[l], on ? 1100 + 2 * l : 0u) << l;
  }
  // Compares write 0 for disabled lanes.
  ASSERT_EQ(run({"v_cmp_gt_u32_e64 s[4:5], v2, v1"}), "");
  EXPECT_EQ(uint64_t(wave.s[4]) | uint64_t(wave.s[5]) << 32,
            0x8000000000000005ull);
}

TEST_P(EmulatorInstructionTest, BufferRangeCheckingZeroesAndDrops) {
  // 10 dwords of memory; num_records 24 bytes: dwords 0..5 in range.
  auto *data = static_cast<uint32_t *>(memory.allocate(40));
  for (unsigned i = 0; i < 10; ++i)
    data[i] = 0x1000 + i;
  uint64_t base = reinterpret_cast<uint64_t>(data);
  wave.s[8] = uint32_t(base);
  wave.s[9] = uint32_t(base >> 32) & 0xffff;
  wave.s[10] = 24;
  wave.s[11] = 0x27000;
  for (unsigned l = 0; l < 64; ++l)
    v(0)[l] = 4 * l; // byte offsets
  ASSERT_EQ(run({"buffer_load_dword v1, v0, s[8:11], 0 offen",
                 "buffer_load_dwordx2 v[2:3], v0, s[8:11], 0 offen offset:16",
                 "s_waitcnt vmcnt(0)"}),
            "");
  for (unsigned l = 0; l < 64; ++l) {
    EXPECT_EQ(v(1)[l], l < 6 ? 0x1000 + l : 0u) << l;
    // Each component is checked on its own: offset 16 + 4l and 20 + 4l.
    EXPECT_EQ(v(2)[l], 16 + 4 * l + 4 <= 24 ? 0x1000 + 4 + l : 0u) << l;
    EXPECT_EQ(v(3)[l], 20 + 4 * l + 4 <= 24 ? 0x1000 + 5 + l : 0u) << l;
  }
  for (unsigned l = 0; l < 64; ++l)
    v(4)[l] = 0xabc0 + l;
  ASSERT_EQ(run({"buffer_store_dword v4, v0, s[8:11], 0 offen",
                 "s_waitcnt vmcnt(0)"}),
            "");
  for (unsigned i = 0; i < 10; ++i)
    EXPECT_EQ(data[i], i < 6 ? 0xabc0 + i : 0x1000 + i) << i;
}

TEST_P(EmulatorInstructionTest, LoadsReachRegistersOnlyWhenWaitedFor) {
  auto *data = static_cast<uint32_t *>(memory.allocate(512));
  for (unsigned i = 0; i < 128; ++i)
    data[i] = i * 3;
  uint64_t base = reinterpret_cast<uint64_t>(data);
  for (unsigned l = 0; l < 64; ++l) {
    v(0)[l] = uint32_t(base + 4 * l);
    v(1)[l] = uint32_t((base + 4 * l) >> 32);
    v(5)[l] = 77;
    v(6)[l] = 88;
  }
  // vmcnt(1) retires the older load only: v5 holds its value, v6 still
  // the old one, and reading v6 is a violation that stops the wave.
  std::string err = run({"global_load_dword v5, v[0:1], off",
                         "global_load_dword v6, v[0:1], off offset:256",
                         "s_waitcnt vmcnt(1)", "v_mov_b32_e32 v7, v5",
                         "v_mov_b32_e32 v8, v6"});
  EXPECT_NE(err.find("reads v6 before `global_load_dword v6"), std::string::npos)
      << err;
  EXPECT_NE(err.find("needs s_waitcnt vmcnt(0)"), std::string::npos) << err;
  for (unsigned l = 0; l < 64; ++l) {
    EXPECT_EQ(v(7)[l], 3 * l);
    EXPECT_EQ(v(6)[l], 88u); // not retired
    EXPECT_EQ(v(8)[l], 88u); // the stale value, as the hardware would read
  }
}

TEST_P(EmulatorInstructionTest, BF16ConversionRoundsToNearestEven) {
  struct Case {
    uint32_t in;
    uint16_t out;
  } cases[] = {
      {0x3f800000, 0x3f80}, // 1.0
      {0x3f808000, 0x3f80}, // tie, even stays
      {0x3f818000, 0x3f82}, // tie, odd rounds up
      {0x3f808001, 0x3f81}, // above the tie
      {0x7f7fffff, 0x7f80}, // max float rounds to infinity
      {0xff800000, 0xff80}, // -inf
  };
  for (const Case &c : cases) {
    for (unsigned l = 0; l < 64; ++l) {
      v(1)[l] = c.in;
      v(2)[l] = 0x40000000; // 2.0 -> 0x4000
    }
    ASSERT_EQ(run({"v_cvt_pk_bf16_f32 v3, v1, v2"}), "");
    EXPECT_EQ(v(3)[0], uint32_t(c.out) | 0x40000000u) << std::hex << c.in;
  }
  // NaN stays NaN.
  for (unsigned l = 0; l < 64; ++l)
    v(1)[l] = 0x7fc00001;
  ASSERT_EQ(run({"v_cvt_pk_bf16_f32 v3, v1, v1"}), "");
  EXPECT_TRUE(std::isnan(bf16ToFloat(uint16_t(v(3)[0]))));
}

TEST_P(EmulatorInstructionTest, FP8FollowsTheChipsFormat) {
  bool fnuz = std::string(GetParam()) == "gfx942";
  // Largest e4m3 normals: 240 (FNUZ, 0x7f) and 448 (OCP, 0x7e); values past
  // them saturate there.
  EXPECT_EQ(floatToFP8(1000.0f, false, fnuz, true), fnuz ? 0x7f : 0x7e);
  EXPECT_EQ(fp8ToFloat(fnuz ? 0x7f : 0x7e, false, fnuz), fnuz ? 240.0f : 448.0f);
  EXPECT_TRUE(std::isnan(fp8ToFloat(fnuz ? 0x80 : 0x7f, false, fnuz)));
  EXPECT_EQ(fp8ToFloat(0x38, false, fnuz), fnuz ? 0.5f : 1.0f);
  // bf8 (e5m2): 1.0 is 0x40 in FNUZ (bias 16), 0x3c in OCP (bias 15).
  EXPECT_EQ(floatToFP8(1.0f, true, fnuz, true), fnuz ? 0x40 : 0x3c);
  // Every code round-trips.
  for (unsigned code = 0; code < 256; ++code) {
    float f = fp8ToFloat(uint8_t(code), false, fnuz);
    if (std::isnan(f) || (fnuz && code == 0x80) || (!fnuz && code == 0x80))
      continue;
    EXPECT_EQ(floatToFP8(f, false, fnuz, true), code) << code;
  }
  for (unsigned l = 0; l < 64; ++l) {
    v(1)[l] = llvm::bit_cast<uint32_t>(1.0f);
    v(2)[l] = llvm::bit_cast<uint32_t>(-2.0f);
    v(3)[l] = 0;
  }
  ASSERT_EQ(run({"v_cvt_pk_fp8_f32 v3, v1, v2", "v_cvt_f32_fp8_e32 v4, v3"}), "");
  EXPECT_EQ(llvm::bit_cast<float>(v(4)[0]), 1.0f);
}

TEST_P(EmulatorInstructionTest, MFMA4x4x4BlocksFollowTheGeneralLayout) {
  // v_mfma_f32_4x4x4_16b_f16: 16 blocks of 4x4x4. A[b][i][k] sits in lane
  // i + 4b, element k; B[b][k][j] in lane j + 4b; D[b][i][j] is register i of
  // lane j + 4b.
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> small(-3, 3);
  float A[16][4][4], B[16][4][4];
  for (unsigned b = 0; b < 16; ++b)
    for (unsigned i = 0; i < 4; ++i)
      for (unsigned k = 0; k < 4; ++k) {
        A[b][i][k] = float(small(rng));
        B[b][k][i] = float(small(rng));
      }
  for (unsigned l = 0; l < 64; ++l) {
    unsigned b = l / 4, x = l % 4;
    for (unsigned r = 0; r < 2; ++r) {
      v(0 + r)[l] = floatToHalf(A[b][x][2 * r]) |
                    uint32_t(floatToHalf(A[b][x][2 * r + 1])) << 16;
      v(2 + r)[l] = floatToHalf(B[b][2 * r][x]) |
                    uint32_t(floatToHalf(B[b][2 * r + 1][x])) << 16;
    }
  }
  ASSERT_EQ(run({"v_mfma_f32_4x4x4_16b_f16 v[4:7], v[0:1], v[2:3], 0"}), "");
  for (unsigned b = 0; b < 16; ++b)
    for (unsigned i = 0; i < 4; ++i)
      for (unsigned j = 0; j < 4; ++j) {
        float want = 0;
        for (unsigned k = 0; k < 4; ++k)
          want += A[b][i][k] * B[b][k][j];
        EXPECT_EQ(llvm::bit_cast<float>(v(4 + i)[j + 4 * b]), want)
            << "block " << b << " D[" << i << "][" << j << "]";
      }
}

TEST_P(EmulatorInstructionTest, SwizzleAndBpermuteMoveLanes) {
  iota(1);
  for (unsigned l = 0; l < 64; ++l)
    v(2)[l] = ((l + 5) % 64) * 4;
  ASSERT_EQ(run({"ds_swizzle_b32 v3, v1 offset:swizzle(SWAP,16)",
                 "ds_bpermute_b32 v4, v2, v1", "s_waitcnt lgkmcnt(0)"}),
            "");
  for (unsigned l = 0; l < 64; ++l) {
    // SWAP,16 within each 32-lane half: lane ^ 16.
    EXPECT_EQ(v(3)[l], 100 + (l ^ 16)) << l;
    EXPECT_EQ(v(4)[l], 100 + (l + 5) % 64) << l;
  }
}

TEST_P(EmulatorInstructionTest, TransposeReadGivesEachLaneAColumn) {
  if (std::string(GetParam()) != "gfx950")
    GTEST_SKIP() << "ds_read_b64_tr_b16 is gfx950's";
  // A 16 x 64 matrix of 16-bit values in LDS, row-major; within each group
  // of 16 lanes, lane 4e + q reads row e, columns 4q..4q+3 (as Triton's
  // gfx950 code addresses it); after the transpose, lane l holds rows 0..3
  // of column l mod 16.
  auto *lds = reinterpret_cast<uint16_t *>(group.lds.data());
  for (unsigned r = 0; r < 16; ++r)
    for (unsigned c = 0; c < 64; ++c)
      lds[r * 64 + c] = uint16_t(r * 1000 + c);
  for (unsigned l = 0; l < 64; ++l) {
    unsigned g = l / 16, e = (l % 16) / 4, q = l % 4;
    v(0)[l] = 2 * ((4 * g + e) * 64 + 4 * q + 16 * 0); // rows 4g..4g+3
  }
  ASSERT_EQ(run({"ds_read_b64_tr_b16 v[2:3], v0", "s_waitcnt lgkmcnt(0)"}), "");
  for (unsigned l = 0; l < 64; ++l) {
    unsigned g = l / 16, col = l % 16;
    for (unsigned e = 0; e < 4; ++e) {
      uint16_t got = uint16_t(v(2 + e / 2)[l] >> (16 * (e % 2)));
      EXPECT_EQ(got, (4 * g + e) * 1000 + col) << "lane " << l << " e " << e;
    }
  }
}

// Bank conflicts as the profile counts them (docs/emulator.md): 4-byte
// banks, lanes served in phases of banks / dwords-per-lane consecutive
// lanes, a phase costing one extra cycle per further distinct dword in its
// busiest bank; each half of a ds_read2 is a pass of its own.
TEST_P(EmulatorInstructionTest, LdsBankConflictsFollowTheLanesAddresses) {
  unsigned banks = chip.ldsBanks;
  auto conflictCycles = [&](const std::string &inst,
                            const std::function<uint32_t(unsigned)> &addr) {
    for (unsigned l = 0; l < 64; ++l)
      v(0)[l] = addr(l);
    Profile profile;
    std::string error = runInstructions(chip, {inst, "s_waitcnt lgkmcnt(0)"},
                                        wave, group, memory, &profile);
    EXPECT_EQ(error, "") << inst;
    EXPECT_EQ(profile.ldsAccesses, 1u) << inst;
    return profile.ldsBankConflictCycles;
  };
  // Consecutive 8-byte elements: every phase covers each bank once.
  EXPECT_EQ(conflictCycles("ds_read_b64 v[2:3], v0",
                           [](unsigned l) { return 8 * l; }),
            0u);
  // One word per lane, all lanes on bank 0 at distinct dwords: each phase
  // of `banks` lanes costs banks - 1 extra cycles.
  EXPECT_EQ(conflictCycles("ds_read_b32 v2, v0",
                           [&](unsigned l) { return 4 * banks * l; }),
            uint64_t(64 / banks * (banks - 1)));
  // Equal addresses broadcast.
  EXPECT_EQ(conflictCycles("ds_read_b32 v2, v0", [](unsigned) { return 64; }),
            0u);
  // Rows of 64 bytes, lane l reading 8 bytes of row l % 16 at a slot that
  // repeats every 8 rows: rows r and r + 8 meet on the same banks at
  // distinct dwords. 32 banks: phases of 16 lanes, one extra cycle each (4);
  // 64 banks: phases of 32 lanes (rows 0..15 twice, broadcast), one extra
  // cycle each (2).
  EXPECT_EQ(conflictCycles("ds_read_b64 v[2:3], v0",
                           [&](unsigned l) {
                             unsigned row = l % 16;
                             return 64 * row + 8 * ((row / 2) % 4);
                           }),
            banks == 32 ? 4u : 2u);
  // ds_read2st64_b64 reads two 8-byte elements 512 bytes apart, each half
  // a pass of its own: lanes 16 bytes apart meet every 8 lanes on 32 banks
  // (one extra cycle per 16-lane phase, 4 per half) and every 16 lanes on
  // 64 banks (one per 32-lane phase, 2 per half). Costing the pair as one
  // 16-byte read per lane would find none.
  EXPECT_EQ(conflictCycles("ds_read2st64_b64 v[2:5], v0 offset1:1",
                           [](unsigned l) { return 16 * l; }),
            banks == 32 ? 8u : 4u);
}

TEST_P(EmulatorInstructionTest, Maximum3AndMinimum3PropagateNaNAndOrderZeros) {
  if (std::string(GetParam()) != "gfx950")
    GTEST_SKIP() << "v_maximum3_f32 and v_minimum3_f32 are gfx950's";
  auto bits = [](float f) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    return u;
  };
  const float nan = std::numeric_limits<float>::quiet_NaN();
  // Lane by lane: (a, b, c, maximum, minimum).
  const float cases[][5] = {{1, 5, -2, 5, -2},        {-0.0f, 0.0f, -0.0f, 0, -0.0f},
                            {nan, 1, 2, nan, nan},    {3, 3, nan, nan, nan},
                            {-7, -8, -9, -7, -9},     {0.0f, -0.0f, 0.0f, 0, -0.0f}};
  const unsigned n = sizeof(cases) / sizeof(cases[0]);
  for (unsigned l = 0; l < 64; ++l)
    for (unsigned k = 0; k < 3; ++k)
      v(1 + k)[l] = bits(cases[l % n][k]);
  ASSERT_EQ(run({"v_maximum3_f32 v4, v1, v2, v3",
                 "v_minimum3_f32 v5, v1, v2, v3"}),
            "");
  for (unsigned l = 0; l < 64; ++l) {
    const float *c = cases[l % n];
    for (unsigned r = 0; r < 2; ++r) {
      float want = c[3 + r], got;
      std::memcpy(&got, &v(4 + r)[l], 4);
      if (std::isnan(want))
        EXPECT_TRUE(std::isnan(got)) << "lane " << l << " r " << r;
      else
        EXPECT_EQ(bits(got), bits(want)) << "lane " << l << " r " << r;
    }
  }
}

TEST_P(EmulatorInstructionTest, ScalarCarriesAndSelects) {
  wave.s[0] = 0xffffffffu;
  wave.s[1] = 2;
  ASSERT_EQ(run({"s_add_u32 s2, s0, s1", "s_addc_u32 s3, 0, 0",
                 "s_cmp_lt_i32 s0, s1", "s_cselect_b32 s4, 11, 22"}),
            "");
  EXPECT_EQ(wave.s[2], 1u);
  EXPECT_EQ(wave.s[3], 1u); // the carry
  EXPECT_EQ(wave.s[4], 11u); // -1 < 2 signed
}

TEST_P(EmulatorInstructionTest, UnknownInstructionIsNamed) {
  std::string err = run({"v_sad_u8 v1, v2, v3, v4"});
  EXPECT_NE(err.find("'v_sad_u8' is not implemented"), std::string::npos)
      << err;
}

INSTANTIATE_TEST_SUITE_P(Chips, EmulatorInstructionTest,
                         ::testing::Values("gfx942", "gfx950"));

} // namespace
