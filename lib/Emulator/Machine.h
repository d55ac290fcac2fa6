//===- Machine.h - the emulator's decoded program and machine state -*- C++ -*-===//
//
// Internal to lib/Emulator. An instruction is decoded once into Inst: its
// handler, a selector for the handler's variant, typed operands and the
// modifiers that matter. A Wave holds the architectural state of one wave64
// and its outstanding memory operations.
//
//===----------------------------------------------------------------------===//
#ifndef ROCDSL_LIB_EMULATOR_MACHINE_H
#define ROCDSL_LIB_EMULATOR_MACHINE_H

#include "rocdsl/Emulator/Emulator.h"

#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <cstring>
#include <deque>
#include <random>
#include <string>
#include <vector>

namespace mlir::rocdsl::emu {

constexpr unsigned kLanes = 64;
constexpr unsigned kVGPRs = 512; // architected VGPRs and AGPRs (a0 = 256)
constexpr unsigned kAGPRBase = 256;
constexpr unsigned kSRegs = 128;
// Scalar register file indices, as the hardware encodes them.
constexpr unsigned kFlatScratchLo = 102, kXnackMaskLo = 104, kVccLo = 106,
                   kTtmp0 = 108, kM0 = 124, kExecLo = 126;

struct Operand {
  enum Kind : uint8_t { None, SReg, VReg, Imm, SCC, VccZ, ExecZ, Off, LdsDirect };
  Kind kind = None;
  uint8_t count = 1; // registers (dwords) for SReg/VReg
  bool neg = false, abs = false, sext = false;
  /// The operand prints an inline float constant; `imm` was fixed for the
  /// instruction's type at decode time.
  bool inlineFloat = false;
  uint16_t reg = 0; // SReg: scalar file index; VReg: 0..511 (AGPRs 256+)
  uint64_t imm = 0;
  bool isReg() const { return kind == SReg || kind == VReg; }
};

enum class Encoding : uint8_t { Native, E32, E64, DPP, SDWA };
enum class InstClass : uint8_t {
  SALU, SMEM, Branch, Wait, Barrier, Misc, VALU, Trans, VMEM, LDS, MFMA,
  NumClasses
};
const char *className(InstClass c);

struct Wave;
struct Inst;
struct ExecContext;
using Handler = void (*)(ExecContext &, const Inst &);

struct Inst {
  Handler fn = nullptr;
  uint16_t sub = 0;      // the handler's variant
  InstClass cls = InstClass::Misc;
  Encoding enc = Encoding::Native;
  uint8_t numOps = 0, numDefs = 0;
  Operand ops[6];
  // VOP3/VOP3P modifiers.
  uint8_t bitop3 = 0; // v_bitop3 truth table
  uint8_t clamp = 0, omod = 0, opSel = 0, opSelHi = 0xff, negLo = 0, negHi = 0;
  bool hasOpSelHi = false;
  // DPP.
  uint16_t dppCtrl = 0; // encoded as the hardware's DPP_CTRL
  uint8_t rowMask = 0xf, bankMask = 0xf;
  bool boundCtrl = false;
  // SDWA selects: 0..3 bytes, 4..5 words, 6 dword; dst_unused 0 pad,
  // 1 sext, 2 preserve.
  uint8_t dstSel = 6, dstUnused = 0, src0Sel = 6, src1Sel = 6;
  // Memory.
  int32_t offset = 0, offset1 = 0; // offset0/offset1 for ds_*2
  bool offen = false, idxen = false, glc = false, lds = false, gds = false;
  uint8_t dwords = 0; // data size in dwords (loads/stores), or bytes code
  // s_waitcnt.
  uint8_t vmcnt = 63, lgkmcnt = 15, expcnt = 7;
  uint32_t target = 0; // branch: index of the target instruction
  uint32_t address = 0; // offset from the kernel entry
  uint8_t waitStates = 1;
  bool writesVALU = false; // a VALU write (for the wide-store rule)
};

/// A register range a pending operation will write.
struct RegRange {
  bool vector = false;
  uint16_t first = 0, count = 0;
};

/// An outstanding memory operation: applied to registers and memory when
/// retired.
struct Pending {
  enum Kind : uint8_t { VMem, LDS, SMem } kind;
  explicit Pending(Kind k) : kind(k) {}
  uint32_t inst = 0; // index in the kernel
  RegRange dst;
  /// Performs the operation's effect (memory read into registers, memory
  /// write, atomic). Captured operands live in `data`.
  void (*apply)(Wave &, Pending &) = nullptr;
  uint64_t exec = 0;
  std::vector<uint64_t> addr;  // per lane (or one, for scalar)
  std::vector<uint32_t> data;  // captured store data, [dword][lane]
  std::vector<uint8_t> valid;  // per lane and dword: in range
  uint16_t sub = 0;
  uint8_t dwords = 0;
  /// A flat access that reached LDS through the shared aperture.
  bool touchesLds = false;
  /// The LDS write of a direct-to-LDS load (`buffer_load ... lds`).
  bool ldsDma = false;
  uint32_t issuedAt = 0; // LDS operations: the workgroup's ldsClock
};

struct Workgroup;
struct KernelCode;

struct Wave {
  uint32_t s[kSRegs];
  bool scc = false;
  std::vector<uint32_t> v; // [reg][lane], kVGPRs registers
  uint32_t pc = 0;         // instruction index
  bool done = false, atBarrier = false;
  unsigned id = 0;         // within the workgroup
  std::deque<Pending> vmem, lgkm;
  unsigned smemPending = 0, ldsPending = 0;
  // Registers pending operations will write: how many operations each.
  uint8_t vPending[kVGPRs];
  uint8_t sPending[kSRegs];
  unsigned pendingRegs = 0;
  // Wide VMEM stores (and atomics) whose data registers are still inside
  // the chip's wait states, for the wait-state rule; `wideStoreCount` of
  // them, oldest first. The window is 2 wait states, so 4 is plenty.
  struct WideStore {
    RegRange data;
    int states = 0;
    uint32_t inst = 0;
  };
  WideStore wideStores[4];
  unsigned wideStoreCount = 0;
  bool flushF32Denormals = false, flushF16Denormals = false;
  uint64_t executed = 0;
  /// Private (scratch) memory: `scratchPerLane` bytes for each lane.
  std::vector<uint8_t> scratch;
  unsigned scratchPerLane = 0;

  uint64_t exec() const {
    return uint64_t(s[kExecLo]) | (uint64_t(s[kExecLo + 1]) << 32);
  }
  void setExec(uint64_t e) {
    s[kExecLo] = uint32_t(e);
    s[kExecLo + 1] = uint32_t(e >> 32);
  }
  uint64_t vcc() const {
    return uint64_t(s[kVccLo]) | (uint64_t(s[kVccLo + 1]) << 32);
  }
  uint32_t *vreg(unsigned r) { return &v[size_t(r) * kLanes]; }
};

struct Workgroup {
  std::vector<uint8_t> lds;
  uint32_t id[3] = {0, 0, 0};
  /// For each LDS dword: when it was last written (ldsClock) and by which
  /// wave, to find reads that another wave's write overtook.
  std::vector<uint32_t> ldsWrittenAt;
  std::vector<uint16_t> ldsWrittenBy;
  uint32_t ldsClock = 0;
  /// For each LDS dword: direct-to-LDS loads still writing it, and the
  /// last one issued (its instruction index), to find LDS accesses that
  /// run ahead of the wait (and barrier) that should retire them.
  std::vector<uint16_t> dmaInFlight;
  std::vector<uint32_t> dmaWriter;
};

/// Per decoded kernel.
struct KernelCode {
  KernelInfo info;
  std::vector<Inst> insts;
  std::vector<std::string> texts;
  // From the kernel descriptor.
  uint32_t rsrc1 = 0, rsrc2 = 0, rsrc3 = 0;
  uint16_t kernelCodeProperties = 0;
  unsigned accumOffset = 0;
  /// Decode failure of an instruction (reported when executed).
  std::vector<std::string> decodeErrors;
  /// Explicit and hidden arguments from the metadata.
  struct Arg {
    std::string valueKind;
    unsigned offset = 0, size = 0;
  };
  std::vector<Arg> args;
};

/// An error or violation raised while executing.
struct Fault {
  std::string message;
  uint32_t inst = 0;
  bool violation = false;
};

struct LaunchState;

struct ExecContext {
  Wave *wave = nullptr;
  Workgroup *group = nullptr;
  const KernelCode *kernel = nullptr;
  const ChipModel *chip = nullptr;
  Memory *memory = nullptr;
  LaunchState *launch = nullptr;
  Profile *profile = nullptr; // null unless profiling
  std::mt19937_64 *rng = nullptr;
  uint32_t currentInst = 0;
  /// The device-memory block the last access hit (accesses cluster).
  uint64_t blockBase = 0, blockSize = 0;
  bool branched = false;
  /// ROCDSL_EMU_TRACE: print every instruction of wave 0 of workgroup 0.
  bool trace = false;
  /// Set by a handler that stops the wave (s_endpgm) or waits (s_barrier).
  bool yield = false;
  void fault(const std::string &message);
  void violation(const std::string &message);
};

// Handlers register themselves by mnemonic (without _e32/_e64/_dpp/_sdwa).
struct OpInfo {
  const char *mnemonic;
  Handler fn;
  uint16_t sub;
  InstClass cls;
  uint8_t numDefs;
  /// How the decoder types inline float constants: 4 = f32, 2 = f16,
  /// 8 = f64, 0 = integer.
  uint8_t floatBytes;
};
/// numDefs of an atomic: it writes its first operand only when it returns
/// the old value (glc / sc0).
constexpr uint8_t kDefsIfReturning = 0xff;
void registerScalarOps(std::vector<OpInfo> &ops);
void registerVectorOps(std::vector<OpInfo> &ops);
void registerMemoryOps(std::vector<OpInfo> &ops);
void registerMatrixOps(std::vector<OpInfo> &ops);
const OpInfo *lookupOp(llvm::StringRef mnemonic);

// Memory-ordering helpers (Memory.cpp).
void issue(ExecContext &ctx, Pending &&p);
void retireVMem(ExecContext &ctx, unsigned keep);
void retireLGKM(ExecContext &ctx, unsigned keep);
void retireAll(ExecContext &ctx);
/// Checks the instruction's register reads and writes against pending
/// operations and the wide-store rule; called before it executes.
void checkHazards(ExecContext &ctx, const Inst &inst);
/// Checked host pointer for `bytes` of device memory at `address`.
uint8_t *deviceAddress(ExecContext &ctx, uint64_t address, uint64_t bytes);

// Operand access (Operands.cpp).
uint32_t readScalar32(const Wave &w, const Operand &op);
uint64_t readScalar64(const Wave &w, const Operand &op);
void writeScalar32(Wave &w, const Operand &op, uint32_t value);
void writeScalar64(Wave &w, const Operand &op, uint64_t value);
/// Source dword `dword` of operand `op` for `lane` (SGPRs and constants are
/// the same in every lane).
inline uint32_t readLane(const Wave &w, const Operand &op, unsigned lane,
                         unsigned dword = 0) {
  switch (op.kind) {
  case Operand::VReg:
    return w.v[size_t(op.reg + dword) * kLanes + lane];
  case Operand::SReg:
    return w.s[(op.reg + dword) & (kSRegs - 1)];
  case Operand::Imm:
    return uint32_t(op.imm >> (32 * dword));
  case Operand::SCC:
    return w.scc;
  case Operand::VccZ:
    return w.vcc() == 0;
  case Operand::ExecZ:
    return w.exec() == 0;
  default:
    return 0;
  }
}
inline uint64_t readLane64(const Wave &w, const Operand &op, unsigned lane) {
  if (op.kind == Operand::Imm)
    return op.imm;
  return uint64_t(readLane(w, op, lane, 0)) |
         (uint64_t(readLane(w, op, lane, 1)) << 32);
}

// Numeric formats (Numerics.cpp).
float halfToFloat(uint16_t h);
uint16_t floatToHalf(float f); // round to nearest even
float bf16ToFloat(uint16_t b);
uint16_t floatToBF16(float f); // round to nearest even, NaN kept quiet
inline float asFloat(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
inline uint32_t asBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
inline double asDouble(uint64_t u) {
  double d;
  std::memcpy(&d, &u, 8);
  return d;
}
inline uint64_t asBits64(double d) {
  uint64_t u;
  std::memcpy(&u, &d, 8);
  return u;
}
/// fp8/bf8 to f32 and back (saturating as the hardware does): FNUZ formats
/// on gfx942, OCP e4m3fn/e5m2 on gfx950.
float fp8ToFloat(uint8_t v, bool bf8, bool fnuz);
uint8_t floatToFP8(float f, bool bf8, bool fnuz, bool saturate);

} // namespace mlir::rocdsl::emu

#endif

namespace mlir::rocdsl::emu {
/// Decodes `lines` (printed instructions, no branches) and runs them as one
/// wave of one workgroup on `wave` and `group`, which the caller sets up
/// (registers, EXEC, LDS). For tests of single instructions. Returns the
/// error or violation message, "" on success. With `profile`, counts into
/// it as a profiled launch does.
std::string runInstructions(const ChipModel &chip,
                            llvm::ArrayRef<std::string> lines, Wave &wave,
                            Workgroup &group, Memory &memory,
                            Profile *profile = nullptr);
/// A wave with zeroed SGPRs, VGPRs set to `vgprFill`, nothing pending,
/// EXEC all ones.
void resetWave(Wave &wave, uint32_t vgprFill = 0);
} // namespace mlir::rocdsl::emu
