//===- Memory.cpp - memory instructions and the memory-ordering model -----===//
//
// A memory instruction computes its lanes' addresses and captures its store
// data when it issues, and becomes a Pending operation in its wave's VMEM
// queue (buffer, global, flat: one in-order queue, loads and stores
// together, as GFX9's vmcnt counts them) or LGKM queue (LDS in order, scalar
// loads in any order). Its effect on memory and registers happens when it
// retires: at an s_waitcnt that needs it, when its counter is full, or at
// s_endpgm. Registers it will write are marked pending until then; reading
// or overwriting them is a wait violation (checkHazards).
//
// Buffer instructions follow the CDNA3/CDNA4 ISA's range checking for raw
// buffers (stride 0): each component is in range when voffset + inst_offset
// + its byte offset + its size <= num_records (soffset is not range
// checked); out-of-range loads return 0 and stores are dropped. Structured
// buffers (stride != 0) check the index against num_records.
//
//===----------------------------------------------------------------------===//
#include "Decode.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/Twine.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <mutex>
#include <type_traits>

using namespace llvm;

namespace mlir::rocdsl::emu {

namespace {

// sub of memory handlers: access bytes per element in [7:0] (1, 2, 4),
// elements (dwords) in [11:8], flags above.
constexpr uint16_t kSigned = 1 << 12, kD16 = 1 << 13, kD16Hi = 1 << 14;
unsigned elemBytes(uint16_t sub) { return sub & 0xff; }
unsigned elemCount(uint16_t sub) { return (sub >> 8) & 0xf; }
constexpr uint16_t mem(unsigned bytes, unsigned count, uint16_t flags = 0) {
  return uint16_t(bytes | (count << 8) | flags);
}

std::string regName(bool vector, unsigned reg) {
  if (vector)
    return reg >= kAGPRBase ? "a" + std::to_string(reg - kAGPRBase)
                            : "v" + std::to_string(reg);
  switch (reg) {
  case kVccLo: return "vcc_lo";
  case kVccLo + 1: return "vcc_hi";
  case kExecLo: return "exec_lo";
  case kExecLo + 1: return "exec_hi";
  case kM0: return "m0";
  default: return "s" + std::to_string(reg);
  }
}

void markPending(Wave &w, const RegRange &r, int delta) {
  for (unsigned i = 0; i < r.count; ++i) {
    uint8_t &c = r.vector ? w.vPending[(r.first + i) & (kVGPRs - 1)]
                          : w.sPending[(r.first + i) & (kSRegs - 1)];
    c = uint8_t(c + delta);
    w.pendingRegs += delta;
  }
}

/// LDS dword indices an operation's lanes touch.
template <typename F>
void forEachLdsDword(ExecContext &ctx, const Pending &p, F f) {
  Workgroup &g = *ctx.group;
  uint64_t base = reinterpret_cast<uint64_t>(g.lds.data());
  for (unsigned i = 0; i < p.addr.size(); ++i) {
    uint64_t a = p.addr[i];
    unsigned lane = unsigned(i * kLanes / std::max<size_t>(1, p.addr.size()));
    if (!a || !(p.exec >> lane & 1) || a < base || a >= base + g.lds.size())
      continue;
    f(size_t(a - base) / 4);
  }
}

/// An LDS read must see the LDS as it was when the read was issued: a write
/// by another wave landing in between means the kernel let the other wave
/// reuse the memory too early (a wait missing before a barrier).
void trackLds(ExecContext &ctx, const Pending &p) {
  // LDS operations, and flat ones that reached LDS through the shared
  // aperture (their other addresses are skipped below); no other memory
  // operation pays for this.
  if ((p.kind != Pending::LDS && !p.touchesLds) || p.addr.empty() ||
      !p.apply || ctx.group->lds.empty())
    return;
  Workgroup &g = *ctx.group;
  if (g.ldsWrittenAt.size() != g.lds.size() / 4 + 1) {
    g.ldsWrittenAt.assign(g.lds.size() / 4 + 1, 0);
    g.ldsWrittenBy.assign(g.lds.size() / 4 + 1, 0);
  }
  uint16_t me = uint16_t(ctx.wave->id);
  ++g.ldsClock;
  if (p.dst.count) { // a read (or an atomic returning data)
    bool raced = false;
    forEachLdsDword(ctx, p, [&](size_t d) {
      raced |= g.ldsWrittenAt[d] > p.issuedAt && g.ldsWrittenBy[d] != me;
    });
    if (raced)
      ctx.violation("`" + ctx.kernel->texts[p.inst] + "` (+0x" +
                    utohexstr(ctx.kernel->insts[p.inst].address, true) +
                    ") read LDS that another wave overwrote before the read "
                    "completed: missing s_waitcnt lgkmcnt before the barrier "
                    "that let it");
  }
  if (!p.data.empty()) // stores and atomics carry their data
    forEachLdsDword(ctx, p, [&](size_t d) {
      g.ldsWrittenAt[d] = g.ldsClock;
      g.ldsWrittenBy[d] = me;
    });
}

/// Counts the LDS dwords a direct-to-LDS load will write while it is in
/// flight (`delta` +1 at issue, -1 at retirement).
void trackDmaWrites(ExecContext &ctx, const Pending &p, int delta) {
  Workgroup &g = *ctx.group;
  if (g.dmaInFlight.size() != g.lds.size() / 4 + 1) {
    g.dmaInFlight.assign(g.lds.size() / 4 + 1, 0);
    g.dmaWriter.assign(g.lds.size() / 4 + 1, 0);
  }
  forEachLdsDword(ctx, p, [&](size_t d) {
    g.dmaInFlight[d] = uint16_t(g.dmaInFlight[d] + delta);
    if (delta > 0)
      g.dmaWriter[d] = p.inst;
  });
}

/// An LDS access (by any wave of the workgroup) of memory a direct-to-LDS
/// load is still writing reads stale data or is overwritten by it: the
/// kernel lacks an s_waitcnt vmcnt, or the s_barrier after it.
void checkDmaOverlap(ExecContext &ctx, const Pending &p) {
  Workgroup &g = *ctx.group;
  if (g.dmaInFlight.empty() || p.addr.empty())
    return;
  std::optional<uint32_t> writer;
  forEachLdsDword(ctx, p, [&](size_t d) {
    if (!writer && g.dmaInFlight[d])
      writer = g.dmaWriter[d];
  });
  if (!writer)
    return;
  ctx.violation("accesses LDS that the direct-to-LDS load `" +
                ctx.kernel->texts[*writer] +
                "` is still writing: missing s_waitcnt vmcnt (and, for "
                "another wave's load, the s_barrier after it)");
}

void retire(ExecContext &ctx, std::deque<Pending> &queue, size_t index) {
  Wave &w = *ctx.wave;
  Pending p = std::move(queue[index]);
  if (p.ldsDma)
    trackDmaWrites(ctx, p, -1);
  trackLds(ctx, p);
  queue.erase(queue.begin() + index);
  if (p.kind == Pending::SMem)
    --w.smemPending;
  else if (p.kind == Pending::LDS)
    --w.ldsPending;
  markPending(w, p.dst, -1);
  if (p.apply)
    p.apply(w, p);
}

const char *counterOf(const Pending &p) {
  return p.kind == Pending::VMem ? "vmcnt" : "lgkmcnt";
}

/// The pending operation that will write `reg`, or null.
const Pending *findWriter(Wave &w, bool vector, unsigned reg) {
  for (auto *queue : {&w.vmem, &w.lgkm})
    for (const Pending &p : *queue)
      if (p.dst.count && p.dst.vector == vector && reg >= p.dst.first &&
          reg < p.dst.first + p.dst.count)
        return &p;
  return nullptr;
}

} // namespace

void issue(ExecContext &ctx, Pending &&p) {
  Wave &w = *ctx.wave;
  // The counters saturate (vmcnt 63, lgkmcnt 15 on GFX9): the wave stalls
  // until the oldest operation completes.
  if (p.kind == Pending::VMem && w.vmem.size() >= 63)
    retireVMem(ctx, 62);
  if (p.kind != Pending::VMem && w.lgkm.size() >= 15)
    retireLGKM(ctx, 14);
  markPending(w, p.dst, +1);
  p.issuedAt = ++ctx.group->ldsClock;
  p.inst = ctx.currentInst;
  if (p.ldsDma)
    trackDmaWrites(ctx, p, +1);
  else if (p.kind == Pending::LDS || p.touchesLds)
    checkDmaOverlap(ctx, p);
  if (p.kind == Pending::SMem)
    ++w.smemPending;
  else if (p.kind == Pending::LDS)
    ++w.ldsPending;
  (p.kind == Pending::VMem ? w.vmem : w.lgkm).push_back(std::move(p));
}

void retireVMem(ExecContext &ctx, unsigned keep) {
  while (ctx.wave->vmem.size() > keep)
    retire(ctx, ctx.wave->vmem, 0);
}

void retireLGKM(ExecContext &ctx, unsigned keep) {
  Wave &w = *ctx.wave;
  while (w.lgkm.size() > keep) {
    // LDS operations complete in order; scalar loads in any order.
    size_t pick = 0;
    if (w.smemPending) {
      std::vector<size_t> candidates;
      bool sawLds = false;
      for (size_t i = 0; i < w.lgkm.size(); ++i) {
        if (w.lgkm[i].kind == Pending::SMem)
          candidates.push_back(i);
        else if (!sawLds) {
          candidates.push_back(i);
          sawLds = true;
        }
      }
      pick = candidates[(*ctx.rng)() % candidates.size()];
    }
    retire(ctx, w.lgkm, pick);
  }
}

void retireAll(ExecContext &ctx) {
  retireVMem(ctx, 0);
  retireLGKM(ctx, 0);
}

void checkHazards(ExecContext &ctx, const Inst &inst) {
  Wave &w = *ctx.wave;
  if (w.pendingRegs) {
    for (unsigned i = 0; i < inst.numOps; ++i) {
      const Operand &op = inst.ops[i];
      if (!op.isReg())
        continue;
      bool vector = op.kind == Operand::VReg;
      for (unsigned r = op.reg; r < unsigned(op.reg) + op.count; ++r) {
        if (!(vector ? w.vPending[r & (kVGPRs - 1)]
                     : w.sPending[r & (kSRegs - 1)]))
          continue;
        const Pending *writer = findWriter(w, vector, r);
        if (!writer)
          continue;
        bool isDef = i < inst.numDefs;
        // Writes into the same in-order queue land in order: no hazard.
        if (isDef && writer->kind != Pending::SMem &&
            ((inst.cls == InstClass::VMEM && writer->kind == Pending::VMem) ||
             (inst.cls == InstClass::LDS && writer->kind == Pending::LDS)))
          continue;
        const Inst &producer = ctx.kernel->insts[writer->inst];
        // The count that would have retired it: the operations issued
        // after it in its queue (for scalar loads only 0 is sound).
        const auto &queue = writer->kind == Pending::VMem ? w.vmem : w.lgkm;
        size_t younger = 0;
        for (size_t q = queue.size(); q-- > 0 && &queue[q] != writer;)
          ++younger;
        if (writer->kind == Pending::SMem)
          younger = 0;
        ctx.violation(std::string(isDef ? "overwrites " : "reads ") +
                      regName(vector, r) + " before `" +
                      ctx.kernel->texts[writer->inst] + "` (+0x" +
                      utohexstr(producer.address, true) +
                      ") has written it: needs s_waitcnt " +
                      counterOf(*writer) + "(" + std::to_string(younger) +
                      ") or lower first");
        return;
      }
    }
  }
  unsigned kept = 0;
  for (unsigned k = 0; k < w.wideStoreCount; ++k) {
    Wave::WideStore &store = w.wideStores[k];
    int elapsed = int(ctx.chip->wideStoreWaitStates) - store.states;
    int need = inst.writesVALU ? int(ctx.chip->wideStoreWaitStates) : 1;
    for (unsigned i = 0; i < inst.numDefs && elapsed < need; ++i) {
      const Operand &op = inst.ops[i];
      if (op.kind != Operand::VReg)
        continue;
      const RegRange &d = store.data;
      if (op.reg < d.first + d.count && d.first < op.reg + op.count) {
        ctx.violation("overwrites the data of the wide store `" +
                      ctx.kernel->texts[store.inst] + "` (+0x" +
                      utohexstr(ctx.kernel->insts[store.inst].address, true) +
                      ") after " + std::to_string(elapsed) +
                      " wait states; " + ctx.chip->name + " needs " +
                      std::to_string(need));
        break;
      }
    }
    store.states -= inst.waitStates;
    if (store.states > 0)
      w.wideStores[kept++] = store;
  }
  w.wideStoreCount = kept;
}

/// [address, address + bytes) lies in [base, base + size), without the
/// wrap-around of `address - base + bytes` for addresses near 2^64.
static bool within(uint64_t address, uint64_t bytes, uint64_t base,
                   uint64_t size) {
  return address >= base && address - base <= size &&
         bytes <= size - (address - base);
}

uint8_t *deviceAddress(ExecContext &ctx, uint64_t address, uint64_t bytes) {
  if (!within(address, bytes, ctx.blockBase, ctx.blockSize)) {
    uint64_t base, size;
    if (!ctx.memory->lookup(address, base, size) ||
        !within(address, bytes, base, size)) {
      ctx.fault("memory access fault: address 0x" + utohexstr(address, true) +
                " (" + std::to_string(bytes) +
                " bytes) is not in any device allocation");
      return nullptr;
    }
    ctx.blockBase = base;
    ctx.blockSize = size;
  }
  return reinterpret_cast<uint8_t *>(address);
}

namespace {

//===----------------------------------------------------------------------===//
// Applying retired operations
//===----------------------------------------------------------------------===//

/// Loads: addr[lane * count + e] is a host pointer or 0 (out of range: 0).
void applyLoad(Wave &w, Pending &p) {
  unsigned bytes = elemBytes(p.sub), count = elemCount(p.sub);
  for (unsigned lane = 0; lane < kLanes; ++lane) {
    if (!(p.exec >> lane & 1))
      continue;
    for (unsigned e = 0; e < count; ++e) {
      const uint8_t *src =
          reinterpret_cast<const uint8_t *>(p.addr[lane * count + e]);
      uint32_t value = 0;
      if (src)
        std::memcpy(&value, src, bytes);
      if (p.sub & kSigned) {
        if (bytes == 1)
          value = uint32_t(int32_t(int8_t(value)));
        else if (bytes == 2)
          value = uint32_t(int32_t(int16_t(value)));
      }
      uint32_t &dst = w.v[size_t(p.dst.first + e) * kLanes + lane];
      if (p.sub & kD16)
        dst = (dst & 0xffff0000u) | (value & 0xffff);
      else if (p.sub & kD16Hi)
        dst = (dst & 0xffffu) | (value << 16);
      else
        dst = value;
    }
  }
}

void applyStore(Wave &w, Pending &p) {
  unsigned bytes = elemBytes(p.sub), count = elemCount(p.sub);
  for (unsigned lane = 0; lane < kLanes; ++lane) {
    if (!(p.exec >> lane & 1))
      continue;
    for (unsigned e = 0; e < count; ++e) {
      uint8_t *dst = reinterpret_cast<uint8_t *>(p.addr[lane * count + e]);
      if (!dst)
        continue;
      uint32_t value = p.data[e * kLanes + lane];
      if (p.sub & kD16Hi)
        value >>= 16;
      std::memcpy(dst, &value, bytes);
    }
  }
}

/// Writes captured per-lane values (ds_bpermute, ds_swizzle) at retire.
void applyCopy(Wave &w, Pending &p) {
  for (unsigned e = 0; e < p.dwords; ++e)
    for (unsigned lane = 0; lane < kLanes; ++lane)
      if (p.exec >> lane & 1)
        w.v[size_t(p.dst.first + e) * kLanes + lane] = p.data[e * kLanes + lane];
}

void applyScalarLoad(Wave &w, Pending &p) {
  for (unsigned i = 0; i < p.dwords; ++i) {
    uint32_t value = 0;
    if (p.addr[i])
      std::memcpy(&value, reinterpret_cast<const void *>(p.addr[i]), 4);
    w.s[(p.dst.first + i) & (kSRegs - 1)] = value;
  }
}

enum AtomicOp : uint8_t {
  AAdd, ASub, ASMin, AUMin, ASMax, AUMax, AAnd, AOr, AXor, ASwap, ACmpSwap,
  AInc, ADec, AFAdd, AFMin, AFMax, APkAddF16, APkAddBF16
};

uint64_t atomicCompute(AtomicOp op, uint64_t old, uint64_t src, uint64_t cmp,
                       bool wide) {
  auto f = [](uint64_t v) { return asFloat(uint32_t(v)); };
  switch (op) {
  case AAdd: return old + src;
  case ASub: return old - src;
  case ASMin: return wide ? uint64_t(std::min(int64_t(old), int64_t(src)))
                          : uint32_t(std::min(int32_t(old), int32_t(src)));
  case AUMin: return std::min(old, src);
  case ASMax: return wide ? uint64_t(std::max(int64_t(old), int64_t(src)))
                          : uint32_t(std::max(int32_t(old), int32_t(src)));
  case AUMax: return std::max(old, src);
  case AAnd: return old & src;
  case AOr: return old | src;
  case AXor: return old ^ src;
  case ASwap: return src;
  case ACmpSwap: return old == cmp ? src : old;
  case AInc: return old >= src ? 0 : old + 1;
  case ADec: return (old == 0 || old > src) ? src : old - 1;
  case AFAdd:
    return wide ? asBits64(asDouble(old) + asDouble(src))
                : asBits(f(old) + f(src));
  case AFMin:
    return wide ? asBits64(std::fmin(asDouble(old), asDouble(src)))
                : asBits(std::fmin(f(old), f(src)));
  case AFMax:
    return wide ? asBits64(std::fmax(asDouble(old), asDouble(src)))
                : asBits(std::fmax(f(old), f(src)));
  case APkAddF16: {
    uint32_t lo = floatToHalf(halfToFloat(old & 0xffff) +
                              halfToFloat(src & 0xffff));
    uint32_t hi = floatToHalf(halfToFloat(old >> 16 & 0xffff) +
                              halfToFloat(src >> 16 & 0xffff));
    return lo | (hi << 16);
  }
  case APkAddBF16: {
    uint32_t lo = floatToBF16(bf16ToFloat(old & 0xffff) +
                              bf16ToFloat(src & 0xffff));
    uint32_t hi = floatToBF16(bf16ToFloat(old >> 16 & 0xffff) +
                              bf16ToFloat(src >> 16 & 0xffff));
    return lo | (hi << 16);
  }
  }
  return old;
}

/// Atomics: sub = op | wide << 8 | returns << 9. data: [src dwords, cmp
/// dwords][lane]. Lanes apply in lane order (hardware order is unspecified;
/// integer results do not depend on it).
std::mutex &atomicMutex() {
  static std::mutex m;
  return m;
}

void applyAtomic(Wave &w, Pending &p) {
  AtomicOp op = AtomicOp(p.sub & 0xff);
  bool wide = p.sub >> 8 & 1, returns = p.sub >> 9 & 1;
  unsigned n = wide ? 2 : 1;
  std::lock_guard<std::mutex> lock(atomicMutex());
  for (unsigned lane = 0; lane < kLanes; ++lane) {
    if (!(p.exec >> lane & 1))
      continue;
    uint8_t *addr = reinterpret_cast<uint8_t *>(p.addr[lane]);
    auto get = [&](unsigned base) {
      uint64_t v = p.data[base * kLanes + lane];
      if (wide)
        v |= uint64_t(p.data[(base + 1) * kLanes + lane]) << 32;
      return v;
    };
    uint64_t src = get(0);
    uint64_t cmp = op == ACmpSwap ? get(n) : 0;
    uint64_t old = 0;
    if (addr) {
      std::memcpy(&old, addr, n * 4);
      uint64_t result = atomicCompute(op, old, src, cmp, wide);
      std::memcpy(addr, &result, n * 4);
    }
    if (returns)
      for (unsigned d = 0; d < n; ++d)
        w.v[size_t(p.dst.first + d) * kLanes + lane] = uint32_t(old >> (32 * d));
  }
}

//===----------------------------------------------------------------------===//
// Issue helpers
//===----------------------------------------------------------------------===//

RegRange rangeOf(const Operand &op, unsigned count) {
  RegRange r;
  r.vector = op.kind == Operand::VReg;
  r.first = op.reg;
  r.count = uint16_t(count);
  return r;
}

void captureData(Wave &w, Pending &p, const Operand &op, unsigned dwords,
                 unsigned first = 0) {
  if (p.data.size() < size_t(first + dwords) * kLanes)
    p.data.resize(size_t(first + dwords) * kLanes);
  for (unsigned d = 0; d < dwords; ++d)
    for (unsigned lane = 0; lane < kLanes; ++lane)
      p.data[(first + d) * kLanes + lane] = readLane(w, op, lane, d);
}

void countBytes(ExecContext &ctx, bool lds, bool write, uint64_t bytes) {
  if (!ctx.profile)
    return;
  Profile &pr = *ctx.profile;
  (lds ? (write ? pr.ldsBytesWritten : pr.ldsBytesRead)
       : (write ? pr.globalBytesWritten : pr.globalBytesRead)) += bytes;
}

/// Marks a VMEM store or atomic with >64 bits of data: its data registers
/// may not be overwritten for the chip's wait states.
void noteWideStore(ExecContext &ctx, const Operand &data, unsigned dwords) {
  if (dwords <= 2 || data.kind != Operand::VReg)
    return;
  Wave &w = *ctx.wave;
  constexpr unsigned slots = std::extent_v<decltype(Wave::wideStores)>;
  if (w.wideStoreCount == slots) { // the oldest has the least window left
    std::move(w.wideStores + 1, w.wideStores + slots, w.wideStores);
    --w.wideStoreCount;
  }
  w.wideStores[w.wideStoreCount++] = {rangeOf(data, dwords),
                                      int(ctx.chip->wideStoreWaitStates),
                                      ctx.currentInst};
}

/// Host pointer of `bytes` of lane's private memory at `offset`; a fault
/// outside the kernel's private segment.
uint8_t *scratchAddress(ExecContext &ctx, unsigned lane, uint64_t offset,
                        unsigned bytes) {
  Wave &w = *ctx.wave;
  if (offset > w.scratchPerLane || bytes > w.scratchPerLane - offset) {
    ctx.fault("scratch access of " + std::to_string(bytes) + " bytes at " +
              std::to_string(offset) + " is outside the kernel's " +
              std::to_string(w.scratchPerLane) +
              "-byte private segment (lane " + std::to_string(lane) + ")");
    return nullptr;
  }
  return w.scratch.data() + size_t(lane) * w.scratchPerLane + offset;
}

/// Per-lane host pointers of a global/flat access; false after a fault.
/// Flat addresses in the shared aperture are LDS.
bool globalAddresses(ExecContext &ctx, Pending &p, unsigned count,
                     unsigned bytes, const std::function<uint64_t(unsigned)> &at) {
  p.addr.assign(size_t(kLanes) * count, 0);
  p.touchesLds = false;
  Workgroup &g = *ctx.group;
  for (unsigned lane = 0; lane < kLanes; ++lane) {
    if (!(p.exec >> lane & 1))
      continue;
    uint64_t a = at(lane);
    for (unsigned e = 0; e < count; ++e) {
      uint64_t ea = a + uint64_t(e) * bytes;
      if ((ea >> 32) == (kPrivateApertureHi >> 32)) {
        uint8_t *host = scratchAddress(ctx, lane, ea & 0xffffffffu, bytes);
        if (!host)
          return false;
        p.addr[lane * count + e] = reinterpret_cast<uint64_t>(host);
        continue;
      }
      if ((ea >> 32) == (kSharedApertureHi >> 32)) {
        p.touchesLds = true;
        uint64_t off = ea & 0xffffffffu;
        if (off + bytes <= g.lds.size())
          p.addr[lane * count + e] =
              reinterpret_cast<uint64_t>(g.lds.data() + off);
        continue;
      }
      uint8_t *host = deviceAddress(ctx, ea, bytes);
      if (!host)
        return false;
      p.addr[lane * count + e] = reinterpret_cast<uint64_t>(host);
    }
  }
  return true;
}

//===----------------------------------------------------------------------===//
// Buffer instructions
//===----------------------------------------------------------------------===//

struct BufferAddress {
  uint64_t base;
  uint32_t stride, numRecords;
  uint32_t soffset;
};

BufferAddress readResource(Wave &w, const Inst &inst, unsigned rsrc,
                           unsigned soff) {
  const Operand &r = inst.ops[rsrc];
  BufferAddress b;
  uint32_t w0 = readLane(w, r, 0, 0), w1 = readLane(w, r, 0, 1);
  b.base = uint64_t(w0) | (uint64_t(w1 & 0xffff) << 32);
  b.stride = (w1 >> 16) & 0x3fff;
  b.numRecords = readLane(w, r, 0, 2);
  b.soffset = readLane(w, inst.ops[soff], 0);
  return b;
}

/// Per-lane host pointers for a buffer access of `count` elements of
/// `bytes`: 0 where out of range. False after a fault.
bool bufferAddresses(ExecContext &ctx, const Inst &inst, Pending &p,
                     unsigned vaddr, unsigned rsrc, unsigned soff,
                     unsigned count, unsigned bytes) {
  Wave &w = *ctx.wave;
  BufferAddress b = readResource(w, inst, rsrc, soff);
  p.addr.assign(size_t(kLanes) * count, 0);
  const Operand &va = inst.ops[vaddr];
  for (unsigned lane = 0; lane < kLanes; ++lane) {
    if (!(p.exec >> lane & 1))
      continue;
    uint64_t index = 0, voffset = 0;
    if (inst.idxen && inst.offen) {
      index = readLane(w, va, lane, 0);
      voffset = readLane(w, va, lane, 1);
    } else if (inst.idxen) {
      index = readLane(w, va, lane, 0);
    } else if (inst.offen) {
      voffset = readLane(w, va, lane, 0);
    }
    uint64_t offset = voffset + uint32_t(inst.offset);
    for (unsigned e = 0; e < count; ++e) {
      uint64_t o = offset + uint64_t(e) * bytes;
      bool inRange = b.stride == 0 ? o + bytes <= b.numRecords
                                   : index < b.numRecords;
      if (!inRange)
        continue;
      uint64_t a = b.base + b.soffset + o + index * b.stride;
      uint8_t *host = deviceAddress(ctx, a, bytes);
      if (!host)
        return false;
      p.addr[lane * count + e] = reinterpret_cast<uint64_t>(host);
    }
  }
  return true;
}

void bufferLoad(ExecContext &ctx, const Inst &inst) {
  Wave &w = *ctx.wave;
  Pending p{Pending::VMem};
  p.exec = w.exec();
  p.sub = inst.sub;
  unsigned count = elemCount(inst.sub), bytes = elemBytes(inst.sub);
  if (inst.lds) {
    // Direct to LDS: lane-linear from M0 + inst_offset, one element each.
    // ops: vaddr, srsrc, soffset.
    if (!bufferAddresses(ctx, inst, p, 0, 1, 2, count, bytes))
      return;
    uint32_t ldsBase = w.s[kM0] + uint32_t(inst.offset);
    Pending write{Pending::VMem};
    write.exec = p.exec;
    write.sub = mem(bytes, count);
    write.data.assign(size_t(count) * kLanes, 0);
    write.addr.assign(size_t(kLanes) * count, 0);
    Workgroup &g = *ctx.group;
    for (unsigned lane = 0; lane < kLanes; ++lane) {
      if (!(p.exec >> lane & 1))
        continue;
      for (unsigned e = 0; e < count; ++e) {
        // Data is read when the load retires in hardware; capturing it at
        // issue is equivalent for ordered kernels (the source is global).
        uint32_t value = 0;
        if (p.addr[lane * count + e])
          std::memcpy(&value, reinterpret_cast<void *>(p.addr[lane * count + e]),
                      bytes);
        write.data[e * kLanes + lane] = value;
        uint64_t off = ldsBase + uint64_t(lane * count + e) * bytes;
        if (off + bytes <= g.lds.size())
          write.addr[lane * count + e] =
              reinterpret_cast<uint64_t>(g.lds.data() + off);
      }
    }
    write.apply = applyStore;
    write.ldsDma = true;
    // Recorded as an LDS write when it lands (trackLds), like a ds_write.
    write.touchesLds = true;
    countBytes(ctx, false, false, uint64_t(count) * bytes *
                                      __builtin_popcountll(p.exec));
    issue(ctx, std::move(write));
    return;
  }
  if (!bufferAddresses(ctx, inst, p, 1, 2, 3, count, bytes))
    return;
  p.dst = rangeOf(inst.ops[0], count);
  p.apply = applyLoad;
  countBytes(ctx, false, false,
             uint64_t(count) * bytes * __builtin_popcountll(p.exec));
  issue(ctx, std::move(p));
}

void bufferStore(ExecContext &ctx, const Inst &inst) {
  Wave &w = *ctx.wave;
  Pending p{Pending::VMem};
  p.exec = w.exec();
  p.sub = inst.sub;
  unsigned count = elemCount(inst.sub), bytes = elemBytes(inst.sub);
  if (!bufferAddresses(ctx, inst, p, 1, 2, 3, count, bytes))
    return;
  captureData(w, p, inst.ops[0], count);
  p.apply = applyStore;
  noteWideStore(ctx, inst.ops[0], count);
  countBytes(ctx, false, true,
             uint64_t(count) * bytes * __builtin_popcountll(p.exec));
  issue(ctx, std::move(p));
}

void bufferAtomic(ExecContext &ctx, const Inst &inst) {
  Wave &w = *ctx.wave;
  Pending p{Pending::VMem};
  p.exec = w.exec();
  bool wide = inst.sub >> 8 & 1;
  unsigned n = wide ? 2 : 1;
  bool cmp = AtomicOp(inst.sub & 0xff) == ACmpSwap;
  if (!bufferAddresses(ctx, inst, p, 1, 2, 3, 1, n * 4))
    return;
  captureData(w, p, inst.ops[0], cmp ? 2 * n : n);
  noteWideStore(ctx, inst.ops[0], cmp ? 2 * n : n);
  p.sub = uint16_t(inst.sub | (inst.glc ? 1 << 9 : 0));
  if (inst.glc)
    p.dst = rangeOf(inst.ops[0], n);
  p.apply = applyAtomic;
  issue(ctx, std::move(p));
}

//===----------------------------------------------------------------------===//
// Global and flat instructions
//===----------------------------------------------------------------------===//

/// Address of lane for global_* (vaddr 64-bit with saddr off, else a 32-bit
/// offset from saddr) or flat_* (vaddr 64-bit).
uint64_t flatAddress(Wave &w, const Inst &inst, unsigned vaddr, int saddr,
                     unsigned lane) {
  const Operand &va = inst.ops[vaddr];
  if (saddr >= 0 && inst.ops[saddr].kind == Operand::SReg)
    return readScalar64(w, inst.ops[saddr]) + readLane(w, va, lane) +
           int64_t(inst.offset);
  return readLane64(w, va, lane) + int64_t(inst.offset);
}

void globalLoad(ExecContext &ctx, const Inst &inst) {
  Wave &w = *ctx.wave;
  Pending p{Pending::VMem};
  p.exec = w.exec();
  p.sub = inst.sub;
  unsigned count = elemCount(inst.sub), bytes = elemBytes(inst.sub);
  int saddr = inst.numOps > 2 ? 2 : -1;
  if (!globalAddresses(ctx, p, count, bytes,
                       [&](unsigned lane) {
                         return flatAddress(w, inst, 1, saddr, lane);
                       }))
    return;
  p.dst = rangeOf(inst.ops[0], count);
  p.apply = applyLoad;
  countBytes(ctx, p.touchesLds, false,
             uint64_t(count) * bytes * __builtin_popcountll(p.exec));
  issue(ctx, std::move(p));
}

void globalStore(ExecContext &ctx, const Inst &inst) {
  Wave &w = *ctx.wave;
  Pending p{Pending::VMem};
  p.exec = w.exec();
  p.sub = inst.sub;
  unsigned count = elemCount(inst.sub), bytes = elemBytes(inst.sub);
  int saddr = inst.numOps > 2 ? 2 : -1;
  if (!globalAddresses(ctx, p, count, bytes,
                       [&](unsigned lane) {
                         return flatAddress(w, inst, 0, saddr, lane);
                       }))
    return;
  captureData(w, p, inst.ops[1], count);
  p.apply = applyStore;
  noteWideStore(ctx, inst.ops[1], count);
  countBytes(ctx, p.touchesLds, true,
             uint64_t(count) * bytes * __builtin_popcountll(p.exec));
  issue(ctx, std::move(p));
}

void globalAtomic(ExecContext &ctx, const Inst &inst) {
  Wave &w = *ctx.wave;
  Pending p{Pending::VMem};
  p.exec = w.exec();
  bool wide = inst.sub >> 8 & 1;
  unsigned n = wide ? 2 : 1;
  bool cmp = AtomicOp(inst.sub & 0xff) == ACmpSwap;
  unsigned first = inst.glc ? 1 : 0; // returning atomics name vdst first
  int saddr = inst.numOps > first + 2 ? int(first + 2) : -1;
  if (!globalAddresses(ctx, p, 1, n * 4,
                       [&](unsigned lane) {
                         return flatAddress(w, inst, first, saddr, lane);
                       }))
    return;
  captureData(w, p, inst.ops[first + 1], cmp ? 2 * n : n);
  noteWideStore(ctx, inst.ops[first + 1], cmp ? 2 * n : n);
  p.sub = uint16_t(inst.sub | (inst.glc ? 1 << 9 : 0));
  if (inst.glc)
    p.dst = rangeOf(inst.ops[0], n);
  p.apply = applyAtomic;
  issue(ctx, std::move(p));
}

//===----------------------------------------------------------------------===//
// Scratch instructions (architected flat scratch, gfx940 and later)
//===----------------------------------------------------------------------===//

/// Per-lane private offsets: vaddr (or off) + saddr (or off) + offset.
bool scratchAddresses(ExecContext &ctx, const Inst &inst, Pending &p,
                      unsigned vaddr, unsigned saddr, unsigned count,
                      unsigned bytes) {
  Wave &w = *ctx.wave;
  p.addr.assign(size_t(kLanes) * count, 0);
  uint64_t scalar =
      inst.ops[saddr].kind == Operand::SReg ? readScalar32(w, inst.ops[saddr]) : 0;
  for (unsigned lane = 0; lane < kLanes; ++lane) {
    if (!(p.exec >> lane & 1))
      continue;
    uint64_t offset = scalar + int64_t(inst.offset);
    if (inst.ops[vaddr].kind == Operand::VReg)
      offset += readLane(w, inst.ops[vaddr], lane);
    for (unsigned e = 0; e < count; ++e) {
      uint8_t *host = scratchAddress(ctx, lane, (offset + uint64_t(e) * bytes) &
                                                    0xffffffffu, bytes);
      if (!host)
        return false;
      p.addr[lane * count + e] = reinterpret_cast<uint64_t>(host);
    }
  }
  return true;
}

void scratchLoad(ExecContext &ctx, const Inst &inst) {
  Pending p{Pending::VMem};
  p.exec = ctx.wave->exec();
  p.sub = inst.sub;
  unsigned count = elemCount(inst.sub), bytes = elemBytes(inst.sub);
  if (!scratchAddresses(ctx, inst, p, 1, 2, count, bytes))
    return;
  p.dst = rangeOf(inst.ops[0], count);
  p.apply = applyLoad;
  issue(ctx, std::move(p));
}

void scratchStore(ExecContext &ctx, const Inst &inst) {
  Wave &w = *ctx.wave;
  Pending p{Pending::VMem};
  p.exec = w.exec();
  p.sub = inst.sub;
  unsigned count = elemCount(inst.sub), bytes = elemBytes(inst.sub);
  if (!scratchAddresses(ctx, inst, p, 0, 2, count, bytes))
    return;
  captureData(w, p, inst.ops[1], count);
  p.apply = applyStore;
  noteWideStore(ctx, inst.ops[1], count);
  issue(ctx, std::move(p));
}

//===----------------------------------------------------------------------===//
// LDS instructions
//===----------------------------------------------------------------------===//

/// Extra cycles bank conflicts cost one part of an LDS access, `dwordsPerLane`
/// consecutive dwords per lane from the lanes' addresses. Lanes are served
/// in phases of banks / dwordsPerLane consecutive lanes; a phase takes as
/// many cycles as its busiest bank has distinct dwords (equal addresses
/// broadcast).
uint64_t bankConflictCycles(const std::vector<uint64_t> &lanes, uint64_t exec,
                            unsigned dwordsPerLane, unsigned banks) {
  unsigned phase = std::max(1u, banks / std::max(1u, dwordsPerLane));
  uint64_t extra = 0;
  std::vector<std::vector<uint64_t>> perBank(banks);
  for (unsigned start = 0; start < kLanes; start += phase) {
    for (auto &b : perBank)
      b.clear();
    for (unsigned lane = start; lane < std::min(kLanes, start + phase); ++lane) {
      if (!(exec >> lane & 1))
        continue;
      for (unsigned d = 0; d < dwordsPerLane; ++d) {
        uint64_t dword = (lanes[lane] >> 2) + d;
        auto &b = perBank[dword % banks];
        if (std::find(b.begin(), b.end(), dword) == b.end())
          b.push_back(dword);
      }
    }
    size_t worst = 0;
    for (auto &b : perBank)
      worst = std::max(worst, b.size());
    if (worst > 1)
      extra += worst - 1;
  }
  return extra;
}

/// Counts one LDS access and its bank-conflict cycles. A lane's elements
/// at `offsets` from its `base` address fall into runs of consecutive
/// bytes (one run for ds_read_b128; two for ds_read2 and ds_read2st64,
/// whose halves are served as separate passes); each run is costed on its
/// own.
void countBankConflicts(ExecContext &ctx, const std::vector<uint64_t> &base,
                        uint64_t exec, unsigned bytes,
                        llvm::ArrayRef<uint32_t> offsets) {
  if (!ctx.profile)
    return;
  uint64_t extra = 0;
  std::vector<uint64_t> lanes(kLanes);
  for (size_t begin = 0; begin < offsets.size();) {
    size_t end = begin + 1;
    while (end < offsets.size() && offsets[end] == offsets[end - 1] + bytes)
      ++end;
    for (unsigned lane = 0; lane < kLanes; ++lane)
      lanes[lane] = base[lane] + offsets[begin];
    unsigned dwords = std::max<unsigned>(1, (end - begin) * bytes / 4);
    extra += bankConflictCycles(lanes, exec, dwords, ctx.chip->ldsBanks);
    begin = end;
  }
  ctx.profile->ldsAccesses++;
  ctx.profile->ldsBankConflictCycles += extra;
}

/// LDS addresses of `count` elements per lane at `offsets`.
void ldsAddresses(ExecContext &ctx, const Inst &inst, Pending &p,
                  unsigned vaddr, unsigned bytes,
                  llvm::ArrayRef<uint32_t> offsets) {
  Wave &w = *ctx.wave;
  Workgroup &g = *ctx.group;
  unsigned count = offsets.size();
  p.addr.assign(size_t(kLanes) * count, 0);
  std::vector<uint64_t> base(kLanes, 0);
  for (unsigned lane = 0; lane < kLanes; ++lane) {
    if (!(p.exec >> lane & 1))
      continue;
    base[lane] = readLane(w, inst.ops[vaddr], lane);
    for (unsigned e = 0; e < count; ++e) {
      uint64_t a = base[lane] + offsets[e];
      // Out of the workgroup's allocation: reads return 0, writes drop.
      if (a + bytes <= g.lds.size())
        p.addr[lane * count + e] = reinterpret_cast<uint64_t>(g.lds.data() + a);
    }
  }
  countBankConflicts(ctx, base, p.exec, bytes, offsets);
}

// sub for ds: bytes | count << 8 | flags; read2/write2 have kPair, st64
// kStride64 (offsets in units of 64 elements).
constexpr uint16_t kPair = 1 << 15;
constexpr uint16_t kStride64 = 1 << 11; // only with kPair (count 1 or 2)

SmallVector<uint32_t, 4> dsOffsets(const Inst &inst, unsigned &bytes) {
  unsigned count = elemCount(inst.sub & ~kStride64);
  bytes = elemBytes(inst.sub);
  SmallVector<uint32_t, 4> offsets;
  if (inst.sub & kPair) {
    // ds_read2/write2: two elements of `bytes` (4 or 8) at offset0/offset1
    // in units of the element (or of 64 elements for st64).
    unsigned unit = bytes * ((inst.sub & kStride64) ? 64 : 1);
    for (unsigned part = 0; part < 2; ++part) {
      uint32_t o = uint32_t(part ? inst.offset1 : inst.offset) * unit;
      for (unsigned d = 0; d < bytes / 4; ++d)
        offsets.push_back(o + 4 * d);
    }
    bytes = 4;
    return offsets;
  }
  for (unsigned e = 0; e < count; ++e)
    offsets.push_back(uint32_t(inst.offset) + e * bytes);
  return offsets;
}

void dsRead(ExecContext &ctx, const Inst &inst) {
  Wave &w = *ctx.wave;
  Pending p{Pending::LDS};
  p.exec = w.exec();
  unsigned bytes;
  SmallVector<uint32_t, 4> offsets = dsOffsets(inst, bytes);
  ldsAddresses(ctx, inst, p, 1, bytes, offsets);
  p.sub = uint16_t(mem(bytes, offsets.size()) |
                   (inst.sub & (kSigned | kD16 | kD16Hi)));
  p.dst = rangeOf(inst.ops[0], std::max<unsigned>(1, offsets.size() * bytes / 4));
  p.apply = applyLoad;
  countBytes(ctx, true, false,
             uint64_t(offsets.size()) * bytes * __builtin_popcountll(p.exec));
  issue(ctx, std::move(p));
}

void dsWrite(ExecContext &ctx, const Inst &inst) {
  Wave &w = *ctx.wave;
  Pending p{Pending::LDS};
  p.exec = w.exec();
  unsigned bytes;
  SmallVector<uint32_t, 4> offsets = dsOffsets(inst, bytes);
  ldsAddresses(ctx, inst, p, 0, bytes, offsets);
  p.sub = uint16_t(mem(bytes, offsets.size()) | (inst.sub & kD16Hi));
  if (inst.sub & kPair) {
    unsigned half = offsets.size() / 2;
    captureData(w, p, inst.ops[1], half, 0);
    captureData(w, p, inst.ops[2], half, half);
  } else {
    captureData(w, p, inst.ops[1], offsets.size());
  }
  p.apply = applyStore;
  countBytes(ctx, true, true,
             uint64_t(offsets.size()) * bytes * __builtin_popcountll(p.exec));
  issue(ctx, std::move(p));
}

/// ds_<op>_u32/f32 and _rtn_ forms: sub = atomic op | wide << 8 | rtn << 9.
void dsAtomic(ExecContext &ctx, const Inst &inst) {
  Wave &w = *ctx.wave;
  Pending p{Pending::LDS};
  p.exec = w.exec();
  bool returns = inst.sub >> 9 & 1, wide = inst.sub >> 8 & 1;
  unsigned n = wide ? 2 : 1;
  unsigned first = returns ? 1 : 0;
  uint32_t off = uint32_t(inst.offset);
  ldsAddresses(ctx, inst, p, first, n * 4, ArrayRef<uint32_t>(off));
  bool cmp = AtomicOp(inst.sub & 0xff) == ACmpSwap;
  // ds_cmpst_b32 names the compare value first; the data then.
  if (cmp) {
    captureData(w, p, inst.ops[first + 2], n, 0);
    captureData(w, p, inst.ops[first + 1], n, n);
  } else {
    captureData(w, p, inst.ops[first + 1], n);
  }
  p.sub = inst.sub;
  if (returns)
    p.dst = rangeOf(inst.ops[0], n);
  p.apply = applyAtomic;
  issue(ctx, std::move(p));
}

/// gfx950 ds_read_b64_tr_b16 (CDNA4 ISA, "MFMA transpose load from LDS"):
/// every lane reads 64 bits (E = four 16-bit or eight 8-bit elements) at its
/// address; within each group of 16 lanes, the 16 / E lanes 16/E * e + q
/// read row e of an E x 16 block (E elements each) and the block is
/// transposed: element e of lane l is element (l mod E) of lane
/// 16 floor(l / 16) + (16 / E) e + floor((l mod 16) / E).
/// So each lane ends up with 4 consecutive K values of one column, as MFMA
/// operands want ("each lane holds 4 consecutive M or N values" of the
/// source rows). The ISA guide gives no lane table; this mapping is the one
/// Triton's gfx950 tl.dot code relies on: its B operand goes through this
/// instruction and the products match NumPy on random data, with 16x16x32
/// and 32x32x16 MFMA alike (test/Emulator/triton-kernels.test), where the
/// 4-lane alternative does not; ds_read_b64_tr_b8 likewise with Triton's
/// fp8 code.
void applyTransposeRead(Wave &w, Pending &p) {
  // E elements of p.sub bits per lane (64 bits); 16 / E lanes per row.
  unsigned bits = p.sub, E = 64 / bits, perRow = 16 / E;
  uint64_t read[kLanes] = {};
  for (unsigned lane = 0; lane < kLanes; ++lane)
    if (p.addr[lane])
      std::memcpy(&read[lane], reinterpret_cast<const void *>(p.addr[lane]), 8);
  uint64_t mask = (1ull << bits) - 1;
  for (unsigned lane = 0; lane < kLanes; ++lane) {
    if (!(p.exec >> lane & 1))
      continue;
    uint64_t out = 0;
    for (unsigned e = 0; e < E; ++e) {
      unsigned from = (lane & ~15u) + perRow * e + (lane & 15) / E;
      out |= ((read[from] >> (bits * (lane % E))) & mask) << (bits * e);
    }
    w.v[size_t(p.dst.first) * kLanes + lane] = uint32_t(out);
    w.v[size_t(p.dst.first + 1) * kLanes + lane] = uint32_t(out >> 32);
  }
}

void dsReadTranspose(ExecContext &ctx, const Inst &inst) {
  Wave &w = *ctx.wave;
  Pending p{Pending::LDS};
  p.exec = w.exec();
  uint32_t off = uint32_t(inst.offset);
  ldsAddresses(ctx, inst, p, 1, 8, llvm::ArrayRef<uint32_t>(off));
  p.dst = rangeOf(inst.ops[0], 2);
  p.sub = inst.sub;
  p.apply = applyTransposeRead;
  countBytes(ctx, true, false, 8ull * __builtin_popcountll(p.exec));
  issue(ctx, std::move(p));
}

/// ds_bpermute_b32 (lane reads addr/4 of source), ds_permute_b32 (lane
/// writes to addr/4), ds_swizzle_b32. No LDS memory is touched.
void dsPermute(ExecContext &ctx, const Inst &inst) {
  Wave &w = *ctx.wave;
  Pending p{Pending::LDS};
  p.exec = w.exec();
  p.dwords = 1;
  p.data.assign(kLanes, 0);
  uint64_t exec = p.exec;
  if (inst.sub == 2) { // swizzle: vdst, vdata
    uint32_t pattern = uint32_t(inst.offset) & 0xffff;
    const Operand &src = inst.ops[1];
    for (unsigned lane = 0; lane < kLanes; ++lane) {
      unsigned from;
      if (pattern & 0x8000) {
        from = (lane & ~3u) | ((pattern >> (2 * (lane & 3))) & 3);
      } else {
        unsigned andMask = pattern & 0x1f, orMask = (pattern >> 5) & 0x1f,
                 xorMask = (pattern >> 10) & 0x1f;
        from = (lane & 0x20) | ((((lane & 0x1f) & andMask) | orMask) ^ xorMask);
      }
      p.data[lane] = (exec >> from & 1) ? readLane(w, src, from) : 0;
    }
  } else {
    const Operand &addr = inst.ops[1], &src = inst.ops[2];
    for (unsigned lane = 0; lane < kLanes; ++lane) {
      if (!(exec >> lane & 1))
        continue;
      unsigned target = ((readLane(w, addr, lane) + uint32_t(inst.offset)) >> 2) & 63;
      if (inst.sub == 1) { // bpermute: pull
        p.data[lane] = (exec >> target & 1) ? readLane(w, src, target) : 0;
      } else { // permute: push (the highest lane wins a collision)
        p.data[target] = readLane(w, src, lane);
      }
    }
  }
  p.dst = rangeOf(inst.ops[0], 1);
  p.apply = applyCopy;
  issue(ctx, std::move(p));
}

//===----------------------------------------------------------------------===//
// Scalar memory
//===----------------------------------------------------------------------===//

void scalarLoad(ExecContext &ctx, const Inst &inst) {
  Wave &w = *ctx.wave;
  Pending p{Pending::SMem};
  unsigned dwords = inst.sub & 0xff;
  bool buffer = inst.sub >> 8 & 1;
  uint64_t offset = inst.ops[2].kind == Operand::Imm
                        ? uint64_t(inst.ops[2].imm & 0x1fffff)
                        : readScalar32(w, inst.ops[2]);
  if (inst.numOps > 3) // s_load ... sbase, soffset offset:imm
    offset = readScalar32(w, inst.ops[2]) + uint64_t(inst.offset);
  else if (inst.offset)
    offset += uint64_t(inst.offset);
  p.addr.assign(dwords, 0);
  if (buffer) {
    BufferAddress b = readResource(w, inst, 1, 2);
    for (unsigned i = 0; i < dwords; ++i) {
      uint64_t o = (offset & ~3ull) + 4 * i;
      if (o + 4 > b.numRecords)
        continue;
      uint8_t *host = deviceAddress(ctx, b.base + o, 4);
      if (!host)
        return;
      p.addr[i] = reinterpret_cast<uint64_t>(host);
    }
  } else {
    uint64_t base = readScalar64(w, inst.ops[1]) + offset;
    base &= ~3ull; // scalar loads ignore the low address bits
    uint8_t *host = deviceAddress(ctx, base, 4ull * dwords);
    if (!host)
      return;
    for (unsigned i = 0; i < dwords; ++i)
      p.addr[i] = reinterpret_cast<uint64_t>(host + 4 * i);
  }
  p.dwords = uint8_t(dwords);
  p.dst = rangeOf(inst.ops[0], dwords);
  p.apply = applyScalarLoad;
  countBytes(ctx, false, false, 4ull * dwords);
  issue(ctx, std::move(p));
}

} // namespace

void registerMemoryOps(std::vector<OpInfo> &ops) {
  auto add = [&](std::string name, Handler fn, uint16_t sub, InstClass cls,
                 uint8_t defs) {
    static std::vector<std::unique_ptr<std::string>> names;
    names.push_back(std::make_unique<std::string>(std::move(name)));
    ops.push_back({names.back()->c_str(), fn, sub, cls, defs, 0});
  };
  struct Form {
    const char *suffix;
    uint16_t sub;
  };
  const Form loads[] = {
      {"dword", mem(4, 1)},       {"dwordx2", mem(4, 2)},
      {"dwordx3", mem(4, 3)},     {"dwordx4", mem(4, 4)},
      {"ubyte", mem(1, 1)},       {"sbyte", mem(1, 1, kSigned)},
      {"ushort", mem(2, 1)},      {"sshort", mem(2, 1, kSigned)},
      {"short_d16", mem(2, 1, kD16)}, {"short_d16_hi", mem(2, 1, kD16Hi)},
      {"ubyte_d16", mem(1, 1, kD16)}, {"ubyte_d16_hi", mem(1, 1, kD16Hi)},
      {"sbyte_d16", mem(1, 1, kD16 | kSigned)},
      {"sbyte_d16_hi", mem(1, 1, kD16Hi | kSigned)},
  };
  const Form stores[] = {
      {"dword", mem(4, 1)},   {"dwordx2", mem(4, 2)}, {"dwordx3", mem(4, 3)},
      {"dwordx4", mem(4, 4)}, {"byte", mem(1, 1)},    {"short", mem(2, 1)},
      {"byte_d16_hi", mem(1, 1, kD16Hi)}, {"short_d16_hi", mem(2, 1, kD16Hi)},
  };
  for (const Form &f : loads) {
    add(std::string("buffer_load_") + f.suffix, bufferLoad, f.sub,
        InstClass::VMEM, 1);
    add(std::string("global_load_") + f.suffix, globalLoad, f.sub,
        InstClass::VMEM, 1);
    add(std::string("flat_load_") + f.suffix, globalLoad, f.sub,
        InstClass::VMEM, 1);
    add(std::string("scratch_load_") + f.suffix, scratchLoad, f.sub,
        InstClass::VMEM, 1);
  }
  for (const Form &f : stores) {
    add(std::string("buffer_store_") + f.suffix, bufferStore, f.sub,
        InstClass::VMEM, 0);
    add(std::string("global_store_") + f.suffix, globalStore, f.sub,
        InstClass::VMEM, 0);
    add(std::string("flat_store_") + f.suffix, globalStore, f.sub,
        InstClass::VMEM, 0);
    add(std::string("scratch_store_") + f.suffix, scratchStore, f.sub,
        InstClass::VMEM, 0);
  }
  struct Atomic {
    const char *name;
    AtomicOp op;
  };
  const Atomic atomics[] = {
      {"add", AAdd},   {"sub", ASub},   {"smin", ASMin}, {"umin", AUMin},
      {"smax", ASMax}, {"umax", AUMax}, {"and", AAnd},   {"or", AOr},
      {"xor", AXor},   {"swap", ASwap}, {"cmpswap", ACmpSwap},
      {"inc", AInc},   {"dec", ADec},   {"add_f32", AFAdd},
      {"pk_add_f16", APkAddF16},         {"pk_add_bf16", APkAddBF16},
      {"add_f64", AFAdd}, {"min_f64", AFMin}, {"max_f64", AFMax},
  };
  for (const Atomic &a : atomics) {
    bool f64 = StringRef(a.name).ends_with("_f64");
    for (int wide = 0; wide < 2; ++wide) {
      if (f64 && !wide)
        continue;
      bool isFloat = StringRef(a.name).contains('_');
      if (isFloat && wide && !f64)
        continue;
      std::string suffix = std::string(a.name) + (wide && !f64 ? "_x2" : "");
      uint16_t sub = uint16_t(a.op | (wide << 8));
      add("buffer_atomic_" + suffix, bufferAtomic, sub, InstClass::VMEM,
          kDefsIfReturning);
      add("global_atomic_" + suffix, globalAtomic, sub, InstClass::VMEM,
          kDefsIfReturning);
      add("flat_atomic_" + suffix, globalAtomic, sub, InstClass::VMEM,
          kDefsIfReturning);
    }
  }
  // LDS.
  const Form dsReads[] = {
      {"b32", mem(4, 1)},  {"b64", mem(4, 2)},  {"b96", mem(4, 3)},
      {"b128", mem(4, 4)}, {"u8", mem(1, 1)},   {"i8", mem(1, 1, kSigned)},
      {"u16", mem(2, 1)},  {"i16", mem(2, 1, kSigned)},
      {"u16_d16", mem(2, 1, kD16)}, {"u16_d16_hi", mem(2, 1, kD16Hi)},
      {"u8_d16", mem(1, 1, kD16)},  {"u8_d16_hi", mem(1, 1, kD16Hi)},
      {"i8_d16", mem(1, 1, kD16 | kSigned)},
      {"i8_d16_hi", mem(1, 1, kD16Hi | kSigned)},
  };
  for (const Form &f : dsReads) {
    add(std::string("ds_read_") + f.suffix, dsRead, f.sub, InstClass::LDS, 1);
    add(std::string("ds_load_") + f.suffix, dsRead, f.sub, InstClass::LDS, 1);
  }
  const Form dsWrites[] = {
      {"b32", mem(4, 1)},  {"b64", mem(4, 2)}, {"b96", mem(4, 3)},
      {"b128", mem(4, 4)}, {"b8", mem(1, 1)},  {"b16", mem(2, 1)},
      {"b8_d16_hi", mem(1, 1, kD16Hi)}, {"b16_d16_hi", mem(2, 1, kD16Hi)},
  };
  for (const Form &f : dsWrites)
    add(std::string("ds_write_") + f.suffix, dsWrite, f.sub, InstClass::LDS, 0);
  add("ds_read2_b32", dsRead, mem(4, 1, kPair), InstClass::LDS, 1);
  add("ds_read2_b64", dsRead, mem(8, 1, kPair), InstClass::LDS, 1);
  add("ds_read2st64_b32", dsRead, mem(4, 1, kPair | kStride64), InstClass::LDS, 1);
  add("ds_read2st64_b64", dsRead, mem(8, 1, kPair | kStride64), InstClass::LDS, 1);
  add("ds_write2_b32", dsWrite, mem(4, 1, kPair), InstClass::LDS, 0);
  add("ds_write2_b64", dsWrite, mem(8, 1, kPair), InstClass::LDS, 0);
  add("ds_write2st64_b32", dsWrite, mem(4, 1, kPair | kStride64), InstClass::LDS, 0);
  add("ds_write2st64_b64", dsWrite, mem(8, 1, kPair | kStride64), InstClass::LDS, 0);
  const Atomic dsAtomics[] = {
      {"add_u32", AAdd},   {"sub_u32", ASub},   {"min_i32", ASMin},
      {"min_u32", AUMin},  {"max_i32", ASMax},  {"max_u32", AUMax},
      {"and_b32", AAnd},   {"or_b32", AOr},     {"xor_b32", AXor},
      {"inc_u32", AInc},   {"dec_u32", ADec},   {"add_f32", AFAdd},
      {"min_f32", AFMin},  {"max_f32", AFMax},  {"cmpst_b32", ACmpSwap},
      {"pk_add_f16", APkAddF16}, {"pk_add_bf16", APkAddBF16},
  };
  for (const Atomic &a : dsAtomics) {
    StringRef name = a.name;
    std::string base = name.take_front(name.rfind('_')).str();
    std::string type = name.drop_front(name.rfind('_')).str();
    add("ds_" + std::string(name), dsAtomic, uint16_t(a.op), InstClass::LDS, 0);
    add("ds_" + base + "_rtn" + type, dsAtomic, uint16_t(a.op | (1 << 9)),
        InstClass::LDS, 1);
  }
  add("ds_wrxchg_rtn_b32", dsAtomic, uint16_t(ASwap | (1 << 9)), InstClass::LDS, 1);
  add("ds_read_b64_tr_b16", dsReadTranspose, 16, InstClass::LDS, 1);
  add("ds_read_b64_tr_b8", dsReadTranspose, 8, InstClass::LDS, 1);
  add("ds_permute_b32", dsPermute, 0, InstClass::LDS, 1);
  add("ds_bpermute_b32", dsPermute, 1, InstClass::LDS, 1);
  add("ds_swizzle_b32", dsPermute, 2, InstClass::LDS, 1);
  // Scalar memory.
  for (unsigned n : {1u, 2u, 4u, 8u, 16u}) {
    std::string suffix = n == 1 ? "dword" : "dwordx" + std::to_string(n);
    add("s_load_" + suffix, scalarLoad, uint16_t(n), InstClass::SMEM, 1);
    add("s_buffer_load_" + suffix, scalarLoad, uint16_t(n | (1 << 8)),
        InstClass::SMEM, 1);
  }
}

} // namespace mlir::rocdsl::emu
