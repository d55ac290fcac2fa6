//===- WaitCheck.cpp - loads' registers touched before their wait ---------===//
//
// A forward dataflow over the kernel's blocks. The state is the set of
// possibly outstanding loads, one entry per (destination register, load),
// each with the number of operations of its counter issued after it on the
// path seen so far. Joining paths keeps every entry and the smallest such
// number, so the fixpoint describes the worst path to each instruction;
// every step only adds entries or lowers numbers, so it is reached. The
// findings come from one more pass over each block from its fixpoint state.
// See WaitCheck.h for the counters' rules.
//
//===----------------------------------------------------------------------===//
#include "rocdsl/ISA/WaitCheck.h"
#include "rocdsl/Support/WaitFences.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <map>
#include <optional>

using namespace llvm;

namespace mlir::rocdsl::isa {

namespace {

/// gfx9: vmcnt has 6 bits, lgkmcnt 4.
constexpr unsigned kMaxVmcnt = 63;
constexpr unsigned kMaxLgkmcnt = 15;

enum class Counter : uint8_t {
  None,
  Vmem, ///< buffer, global, scratch, image: vmcnt, in order
  Lds,  ///< ds_*: lgkmcnt, in order among LDS operations
  Smem, ///< scalar memory: lgkmcnt, out of order
  Flat, ///< flat_*: both counters
};

Counter counterOf(StringRef m) {
  if (m.starts_with("buffer_") || m.starts_with("tbuffer_") ||
      m.starts_with("global_") || m.starts_with("scratch_") ||
      m.starts_with("image_"))
    return Counter::Vmem;
  if (m.starts_with("flat_"))
    return Counter::Flat;
  if (m.starts_with("ds_") && m != "ds_nop")
    return Counter::Lds;
  if (m.starts_with("s_load_") || m.starts_with("s_buffer_load_") ||
      m.starts_with("s_scratch_load_") || m.starts_with("s_memtime") ||
      m.starts_with("s_memrealtime") || m.starts_with("s_atomic_") ||
      m.starts_with("s_buffer_atomic_") || m.starts_with("s_store_") ||
      m.starts_with("s_buffer_store_") || m.starts_with("s_scratch_store_"))
    return Counter::Smem;
  return Counter::None;
}

/// One register of one file, as a map key.
uint32_t unitKey(RegRange::Kind kind, unsigned reg) {
  return (uint32_t(kind) << 16) | reg;
}

/// The key of an operation that writes LDS instead of registers (ds_write,
/// ds atomics without return, `buffer_load ... lds`): no register file has
/// the kind None.
constexpr uint32_t kLdsMemoryKey = 0;
/// Direct-to-LDS loads (`buffer_load ... lds`) are kept per instruction
/// and per number of copy groups committed after them (ROCDSL's commit
/// marks, WaitFences.h), so that the instances of one load in successive
/// iterations of a pipelined loop are told apart.
constexpr uint32_t kDmaKeyBase = 0xFF000000u;
uint32_t dmaKey(unsigned groups) { return kDmaKeyBase + groups; }

bool writesLdsMemory(const Instruction &inst, Counter counter) {
  StringRef m = inst.mnemonic;
  if (counter == Counter::Lds)
    return m.starts_with("ds_write") || m.starts_with("ds_store") ||
           ((m.contains("_add") || m.contains("_sub") || m.contains("_min") ||
             m.contains("_max") || m.contains("_and") || m.contains("_or") ||
             m.contains("_xor") || m.contains("_inc") || m.contains("_dec") ||
             m.contains("_cmpst") || m.contains("_mskor") ||
             m.contains("_wrxchg") || m.contains("_cond_sub")) &&
            !m.starts_with("ds_read") && !m.starts_with("ds_load"));
  if (counter == Counter::Vmem)
    return m.contains("_lds") || llvm::is_contained(inst.modifiers, "lds");
  return false;
}

struct Entry {
  Counter counter = Counter::None;
  /// Operations of the entry's counter issued after the load (for Flat:
  /// VMEM ones), saturating at the counter's maximum.
  uint8_t younger = 0;
  bool vmDone = false; ///< Flat: the vmcnt half has retired
  /// A direct-to-LDS load: copy groups committed after it (saturating).
  uint8_t groups = 0;
};

constexpr uint8_t kMaxGroups = 8;

/// (register unit, load instruction index) -> entry.
using State = std::map<std::pair<uint32_t, unsigned>, Entry>;

/// Limits of one s_waitcnt; nullopt: that counter is not waited on.
struct WaitLimits {
  std::optional<unsigned> vm, lgkm, exp;
};

std::optional<WaitLimits> parseWait(const Instruction &inst) {
  auto counts = decodeWaitcnt(inst, /*gfx9=*/true);
  if (!counts)
    return std::nullopt;
  WaitLimits limits;
  for (auto [kind, value] : *counts) {
    if (kind == "vmcnt")
      limits.vm = value;
    else if (kind == "lgkmcnt")
      limits.lgkm = value;
    else if (kind == "expcnt")
      limits.exp = value;
  }
  return limits;
}

/// ROCDSL's marks (Support/WaitFences.h): a commit closes a group of
/// direct-to-LDS loads; a planned wait names the groups it leaves running.
bool isCommitMark(const WaitLimits &limits) {
  return limits.exp == kCommitExpcnt;
}
std::optional<unsigned> plannedPending(const WaitLimits &limits) {
  if (limits.vm && limits.exp && *limits.exp <= kMaxPlannedPending)
    return limits.exp;
  return std::nullopt;
}

bool isDirectToLds(std::pair<uint32_t, unsigned> key, const Entry &e) {
  return key.first >= kDmaKeyBase;
}

/// The register file a state key names (None: LDS memory).
RegRange::Kind keyKind(uint32_t key) {
  return key == kLdsMemoryKey || key >= kDmaKeyBase ? RegRange::None
                                                    : RegRange::Kind(key >> 16);
}

/// Registers an operand names (none for literals, labels, special
/// registers).
std::optional<RegRange> operandRegisters(StringRef operand) {
  std::optional<RegRange> r = parseRegister(operand);
  if (!r || r->kind == RegRange::None || r->kind == RegRange::Special)
    return std::nullopt;
  return r;
}

/// What a memory instruction writes when its data returns.
SmallVector<RegRange, 2> destinations(const Instruction &inst,
                                      Counter counter) {
  if (counter == Counter::None)
    return {};
  if (counter == Counter::Smem) {
    SmallVector<RegRange, 2> out;
    StringRef m = inst.mnemonic;
    bool returns =
        m.starts_with("s_load_") || m.starts_with("s_buffer_load_") ||
        m.starts_with("s_scratch_load_") || m.starts_with("s_memtime") ||
        m.starts_with("s_memrealtime") ||
        ((m.starts_with("s_atomic_") || m.starts_with("s_buffer_atomic_")) &&
         (llvm::is_contained(inst.modifiers, "glc")));
    if (returns && !inst.operands.empty())
      if (std::optional<RegRange> r = operandRegisters(inst.operands[0]))
        out.push_back(*r);
    return out;
  }
  return SmallVector<RegRange, 2>(inst.vectorDefs.begin(),
                                  inst.vectorDefs.end());
}

bool inOrder(Counter counter) {
  return counter == Counter::Vmem || counter == Counter::Lds;
}

/// Transfer of one instruction. With `report`, touches of outstanding
/// registers are recorded in `found` (keyed by load and use).
class Transfer {
public:
  struct Touch {
    unsigned load, use;
    Counter counter;
    unsigned loosest;
    unsigned firstReg, lastReg;
    RegRange::Kind kind;
  };

  /// `overrideIndex`: an s_waitcnt whose limits are taken as `limits`
  /// instead of its text (to ask whether a looser wait would do).
  explicit Transfer(const Kernel &kernel, unsigned overrideIndex = ~0u,
                    WaitLimits overrideLimits = {})
      : kernel(kernel), overrideIndex(overrideIndex),
        overrideLimits(overrideLimits) {
    // A kernel's waits are planned when it has both marks (a plain
    // `s_waitcnt 0` prints with expcnt(0) too).
    bool waits = false, commits = false;
    for (const Instruction &inst : kernel.instructions)
      if (std::optional<WaitLimits> limits = parseWait(inst)) {
        waits |= plannedPending(*limits).has_value();
        commits |= isCommitMark(*limits);
      }
    planned = waits && commits;
  }

  /// Whether instruction `index` is a planned wait of a planned kernel.
  bool isPlannedWait(unsigned index) const {
    std::optional<WaitLimits> limits = parseWait(kernel.instructions[index]);
    return planned && limits && plannedPending(*limits);
  }

  void step(State &state, unsigned index, std::vector<Touch> *found) const {
    const Instruction &inst = kernel.instructions[index];
    if (std::optional<WaitLimits> limits = parseWait(inst)) {
      WaitLimits applied = index == overrideIndex ? overrideLimits : *limits;
      if (isCommitMark(*limits)) {
        // One more group committed after each load in flight; loads this
        // many groups old or older are kept together (the worse of them).
        State older;
        for (auto it = state.begin(); it != state.end();) {
          if (!isDirectToLds(it->first, it->second)) {
            ++it;
            continue;
          }
          Entry e = it->second;
          e.groups = std::min<uint8_t>(e.groups + 1, kMaxGroups);
          auto [at, inserted] =
              older.try_emplace({dmaKey(e.groups), it->first.second}, e);
          if (!inserted)
            at->second.younger = std::min(at->second.younger, e.younger);
          it = state.erase(it);
        }
        state.insert(older.begin(), older.end());
      }
      if (std::optional<unsigned> pending =
              planned ? plannedPending(*limits) : std::nullopt;
          pending && found) {
        // The plan: every load of a group older than the `pending` newest
        // is done after this wait.
        for (const auto &[key, e] : state)
          if (isDirectToLds(key, e) && e.groups > *pending &&
              !(applied.vm && e.younger >= *applied.vm))
            found->push_back({key.second, index, e.counter, loosest(e),
                              key.first & 0xffff, key.first & 0xffff,
                              keyKind(key.first)});
      }
      retire(state, applied);
      return;
    }
    if (inst.flow == Flow::Call) {
      // The callee starts by waiting for everything (LLVM's convention) and
      // returns with nothing in flight.
      state.clear();
      return;
    }
    if (inst.mnemonic == "s_barrier") {
      // Other waves go on past the barrier: every LDS access of this wave
      // must be done (its writes visible, its reads taken before another
      // wave overwrites them), and so must VMEM loads into LDS.
      // In a kernel whose waits ROCDSL planned, committed direct-to-LDS
      // loads may run on past a barrier: what they write is read only after
      // a later planned wait, which is checked to retire them.
      if (found)
        for (const auto &[key, e] : state)
          if ((e.counter == Counter::Lds || key.first == kLdsMemoryKey ||
               isDirectToLds(key, e)) &&
              !(planned && isDirectToLds(key, e) && e.groups > 0))
            found->push_back({key.second, index, e.counter, loosest(e),
                              key.first & 0xffff, key.first & 0xffff,
                              keyKind(key.first)});
      return;
    }
    Counter counter = counterOf(inst.mnemonic);
    SmallVector<RegRange, 2> defs = destinations(inst, counter);

    // Every register the text names, read or written: the reads first,
    // then a memory instruction's destination (its first operand; the same
    // registers elsewhere, say as an address, are read at issue).
    auto touch = [&](const RegRange &r, bool isDef) {
      for (unsigned reg = r.first; reg <= r.last; ++reg) {
        uint32_t key = unitKey(r.kind, reg);
        for (auto it = state.lower_bound({key, 0});
             it != state.end() && it->first.first == key;) {
          const Entry &e = it->second;
          // A later load of the same in-order counter lands after it.
          if (isDef && counter == e.counter && inOrder(counter)) {
            it = state.erase(it);
            continue;
          }
          if (found)
            found->push_back({it->first.second, index, e.counter, loosest(e),
                              reg, reg, r.kind});
          ++it;
        }
      }
    };
    std::optional<RegRange> def;
    for (auto [position, operand] : llvm::enumerate(inst.operands)) {
      std::optional<RegRange> r = operandRegisters(operand);
      if (!r)
        continue;
      if (position == 0 && !defs.empty() && defs.front() == *r)
        def = r;
      else
        touch(*r, false);
    }
    if (def)
      touch(*def, true);

    issue(state, counter);
    if (writesLdsMemory(inst, counter))
      state[{counter == Counter::Vmem ? dmaKey(0) : kLdsMemoryKey, index}] =
          Entry{counter, 0, false};
    for (const RegRange &d : defs)
      for (unsigned reg = d.first; reg <= d.last; ++reg)
        state[{unitKey(d.kind, reg), index}] = Entry{counter, 0, false};
  }

private:
  /// The largest count of the counter an entry waits on.
  static unsigned counterMax(const Entry &e) {
    return e.counter == Counter::Lds ? kMaxLgkmcnt : kMaxVmcnt;
  }

  static unsigned loosest(const Entry &e) {
    if (e.counter == Counter::Smem || (e.counter == Counter::Flat && e.vmDone))
      return 0;
    return std::min<unsigned>(e.younger, counterMax(e) - 1);
  }

  /// A new operation of `counter` is issued.
  static void issue(State &state, Counter counter) {
    if (counter == Counter::None || counter == Counter::Smem)
      return;
    bool vmem = counter == Counter::Vmem || counter == Counter::Flat;
    for (auto it = state.begin(); it != state.end();) {
      Entry &e = it->second;
      bool counts = (vmem && (e.counter == Counter::Vmem ||
                              (e.counter == Counter::Flat && !e.vmDone))) ||
                    (counter == Counter::Lds && e.counter == Counter::Lds);
      if (counts)
        e.younger = std::min<unsigned>(e.younger + 1, counterMax(e));
      ++it;
    }
  }

  static void retire(State &state, WaitLimits limits) {
    // A count at the counter's maximum waits for nothing.
    if (limits.vm && *limits.vm >= kMaxVmcnt)
      limits.vm.reset();
    if (limits.lgkm && *limits.lgkm >= kMaxLgkmcnt)
      limits.lgkm.reset();
    for (auto it = state.begin(); it != state.end();) {
      Entry &e = it->second;
      bool done = false;
      switch (e.counter) {
      case Counter::Vmem:
        done = limits.vm && e.younger >= *limits.vm;
        break;
      case Counter::Lds:
        done = limits.lgkm && e.younger >= *limits.lgkm;
        break;
      case Counter::Smem:
        done = limits.lgkm && *limits.lgkm == 0;
        break;
      case Counter::Flat:
        if (limits.vm && e.younger >= *limits.vm)
          e.vmDone = true;
        // Its LDS half may return out of order with scalar loads.
        done = e.vmDone && limits.lgkm && *limits.lgkm == 0;
        break;
      case Counter::None:
        done = true;
        break;
      }
      it = done ? state.erase(it) : std::next(it);
    }
  }

  const Kernel &kernel;
  unsigned overrideIndex;
  WaitLimits overrideLimits;
  bool planned = false;
};

/// Adds `from` into `into` (the worse of both paths); true if it changed.
/// `widen`: a count that would drop drops to 0 at once (nothing retired
/// but by a wait for 0), so that every entry changes at most twice.
bool join(State &into, const State &from, bool widen) {
  bool changed = false;
  for (const auto &[key, entry] : from) {
    auto [it, inserted] = into.try_emplace(key, entry);
    if (inserted) {
      changed = true;
      continue;
    }
    Entry &e = it->second;
    if (entry.younger < e.younger) {
      e.younger = widen ? 0 : entry.younger;
      changed = true;
    }
    if (e.vmDone && !entry.vmDone) {
      e.vmDone = false;
      changed = true;
    }
    if (entry.groups > e.groups) {
      e.groups = entry.groups;
      changed = true;
    }
  }
  return changed;
}

const char *counterName(Counter counter) {
  return counter == Counter::Vmem || counter == Counter::Flat ? "vmcnt"
                                                              : "lgkmcnt";
}

/// What the analysis keeps at most: (register unit, load) entries summed
/// over the blocks' entry states, and touches found. Compiled kernels stay
/// orders of magnitude below; chains of branches around loads (each path
/// leaving a different load in flight) grow quadratically past them.
constexpr size_t kMaxStateEntries = size_t(1) << 22;
constexpr size_t kMaxTouches = size_t(1) << 20;

using Touches = std::map<std::pair<unsigned, unsigned>, Transfer::Touch>;

Error tooLarge(const Kernel &kernel, StringRef what, size_t limit) {
  return createStringError(
      inconvertibleErrorCode(),
      "kernel '%s': waits not checked: its control flow leaves more than %zu "
      "%s for the wait analysis",
      kernel.name.c_str(), limit, what.str().c_str());
}

/// Every (load, use) touch of `kernel` under `transfer`, one per pair with
/// the loosest count over its paths and the registers touched; adds the
/// instructions it steps through to `*steps`.
Expected<Touches> collectTouches(const Kernel &kernel, const Transfer &transfer,
                                 uint64_t *steps = nullptr) {
  Touches touches;
  uint64_t unused = 0;
  uint64_t &stepped = steps ? *steps : unused;
  unsigned numBlocks = kernel.blocks.size();
  if (numBlocks == 0)
    return touches;
  size_t entries = 0;
  std::vector<State> in(numBlocks);
  std::vector<bool> reached(numBlocks, false), queued(numBlocks, false);
  std::vector<unsigned> worklist = {0};
  reached[0] = queued[0] = true;
  // Kernels settle in a few passes over each loop (ROCDSL's, LLVM's and
  // Triton's come nowhere near this budget); a control flow that keeps
  // lowering counts past it is widened: still sound, possibly stricter
  // than needed.
  size_t visits = 0, budget = 16 * size_t(numBlocks) + 256;
  while (!worklist.empty()) {
    unsigned b = worklist.back();
    worklist.pop_back();
    queued[b] = false;
    bool widen = ++visits > budget;
    State state = in[b];
    const BasicBlock &block = kernel.blocks[b];
    stepped += block.end - block.begin;
    for (unsigned i = block.begin; i != block.end; ++i)
      transfer.step(state, i, nullptr);
    for (unsigned s : block.succs) {
      size_t before = in[s].size();
      bool changed = join(in[s], state, widen) || !reached[s];
      entries += in[s].size() - before;
      if (entries > kMaxStateEntries)
        return tooLarge(kernel, "(register, load) states", kMaxStateEntries);
      reached[s] = true;
      if (changed && !queued[s]) {
        queued[s] = true;
        worklist.push_back(s);
      }
    }
  }

  // Joined states already hold the worst path into each block.
  std::vector<Transfer::Touch> found;
  for (unsigned b = 0; b != numBlocks; ++b) {
    if (!reached[b])
      continue;
    State state = in[b];
    const BasicBlock &block = kernel.blocks[b];
    stepped += block.end - block.begin;
    for (unsigned i = block.begin; i != block.end; ++i)
      transfer.step(state, i, &found);
    if (found.size() > kMaxTouches)
      return tooLarge(kernel, "touches of loads in flight", kMaxTouches);
  }
  for (const Transfer::Touch &t : found) {
    auto [it, inserted] = touches.try_emplace({t.load, t.use}, t);
    if (inserted)
      continue;
    Transfer::Touch &kept = it->second;
    kept.loosest = std::min(kept.loosest, t.loosest);
    if (kept.kind == t.kind) {
      kept.firstReg = std::min(kept.firstReg, t.firstReg);
      kept.lastReg = std::max(kept.lastReg, t.lastReg);
    }
  }
  return touches;
}

} // namespace

bool waitCheckApplies(StringRef chip) {
  // gfx9 and its CDNA parts (gfx90a, gfx940-gfx942, gfx950, the gfx9
  // generic targets); gfx10 and later count stores apart (vscnt).
  std::string name = normalizeChip(chip);
  return StringRef(name).starts_with("gfx9") && isKnownChip(name);
}

Expected<std::vector<WaitFinding>> findWaitViolations(const Kernel &kernel) {
  std::vector<WaitFinding> findings;
  Transfer transfer(kernel);
  Expected<Touches> touches = collectTouches(kernel, transfer);
  if (!touches)
    return touches.takeError();
  for (const auto &[key, t] : *touches) {
    const Instruction &load = kernel.instructions[t.load];
    const Instruction &use = kernel.instructions[t.use];
    WaitFinding f;
    f.kernel = kernel.name;
    f.loadLine = load.line;
    f.loadText = load.text.str();
    f.useLine = use.line;
    f.atPlannedWait = transfer.isPlannedWait(t.use);
    f.directToLdsLoad = writesLdsMemory(load, Counter::Vmem);
    f.useText = use.text.str();
    f.registers = t.kind == RegRange::None
                      ? std::string("LDS")
                      : RegRange{t.kind, t.firstReg, t.lastReg}.str();
    f.counter = counterName(t.counter);
    f.loosest = t.loosest;
    findings.push_back(std::move(f));
  }
  llvm::sort(findings, [](const WaitFinding &a, const WaitFinding &b) {
    return std::tie(a.useLine, a.loadLine) < std::tie(b.useLine, b.loadLine);
  });
  return findings;
}

Expected<SlackSearch> findLooserWaits(const Kernel &kernel, uint64_t budget) {
  SlackSearch search;
  uint64_t spent = 0;
  Expected<Touches> baseline = collectTouches(kernel, Transfer(kernel), &spent);
  if (!baseline)
    return baseline.takeError();
  // Whether the kernel with wait `index` at `limits` touches nothing the
  // kernel as written does not (a looser wait whose analysis grows past
  // the limits is not offered).
  auto enough = [&](unsigned index, WaitLimits limits) {
    Expected<Touches> touches =
        collectTouches(kernel, Transfer(kernel, index, limits), &spent);
    if (!touches) {
      consumeError(touches.takeError());
      return false;
    }
    return llvm::all_of(*touches, [&](const auto &entry) {
      return baseline->count(entry.first) != 0;
    });
  };
  // The largest count in [from, max] that is still enough (monotone: a
  // looser wait only leaves more in flight); `max` waits for nothing. Most
  // waits are tight, and many others not needed at all, so one count looser
  // and the maximum are tried before the bisection: one or two reruns of
  // the analysis for those instead of six.
  auto loosest = [&](unsigned index, WaitLimits limits,
                     std::optional<unsigned> WaitLimits::*counter,
                     unsigned from, unsigned max) {
    auto enoughAt = [&](unsigned count) {
      WaitLimits trial = limits;
      trial.*counter = count;
      return enough(index, trial);
    };
    if (!enoughAt(from + 1))
      return from;
    if (from + 1 == max || enoughAt(max))
      return max;
    unsigned lo = from + 1, hi = max - 1;
    while (lo < hi) {
      unsigned mid = lo + (hi - lo + 1) / 2;
      if (enoughAt(mid))
        lo = mid;
      else
        hi = mid - 1;
    }
    return lo;
  };
  std::vector<unsigned> waits;
  for (unsigned i = 0, e = kernel.instructions.size(); i != e; ++i) {
    std::optional<WaitLimits> limits = parseWait(kernel.instructions[i]);
    if (limits && ((limits->vm && *limits->vm < kMaxVmcnt) ||
                   (limits->lgkm && *limits->lgkm < kMaxLgkmcnt)))
      waits.push_back(i);
  }
  search.waits = waits.size();
  for (unsigned i : waits) {
    // Each rerun of the analysis costs about what the baseline did; stop
    // before the budget is spent rather than in the middle of a wait.
    if (spent >= budget)
      break;
    WaitLimits limits = *parseWait(kernel.instructions[i]);
    WaitSlack w;
    w.kernel = kernel.name;
    w.line = kernel.instructions[i].line;
    w.text = kernel.instructions[i].text.str();
    bool looser = false;
    if (limits.vm && *limits.vm < kMaxVmcnt) {
      w.vmcnt = *limits.vm;
      w.loosestVmcnt =
          loosest(i, limits, &WaitLimits::vm, *limits.vm, kMaxVmcnt);
      looser |= *w.loosestVmcnt > *w.vmcnt;
    }
    if (limits.lgkm && *limits.lgkm < kMaxLgkmcnt) {
      w.lgkmcnt = *limits.lgkm;
      w.loosestLgkmcnt =
          loosest(i, limits, &WaitLimits::lgkm, *limits.lgkm, kMaxLgkmcnt);
      looser |= *w.loosestLgkmcnt > *w.lgkmcnt;
    }
    ++search.examined;
    if (looser)
      search.looser.push_back(std::move(w));
  }
  search.steps = spent;
  return search;
}

/// "FILE:LINE: WHAT: kernel 'K': '" -- code objects have no lines (0):
/// their instruction texts end with the address instead.
static void printHeader(raw_ostream &os, StringRef file, unsigned line,
                        StringRef what, StringRef kernel) {
  os << file;
  if (line)
    os << ":" << line;
  os << ": " << what << ": kernel '" << kernel << "': '";
}

std::string formatWaitSlack(const WaitSlack &w) {
  std::string out;
  raw_string_ostream os(out);
  printHeader(os, w.file, w.line, "wait stricter than needed", w.kernel);
  os << w.text << "':";
  auto say = [&](const char *name, std::optional<unsigned> now,
                 std::optional<unsigned> loosest, unsigned max) {
    if (!now || !loosest || *loosest == *now)
      return;
    if (*loosest >= max)
      os << " " << name << " not needed";
    else
      os << " " << name << "(" << *loosest << ") would do";
  };
  say("vmcnt", w.vmcnt, w.loosestVmcnt, kMaxVmcnt);
  say("lgkmcnt", w.lgkmcnt, w.loosestLgkmcnt, kMaxLgkmcnt);
  return out;
}

std::string formatWaitFinding(const WaitFinding &f) {
  std::string out;
  raw_string_ostream os(out);
  printHeader(os, f.file, f.useLine, "wait violation", f.kernel);
  os << f.useText << "' touches " << f.registers << " while '" << f.loadText
     << "'";
  if (f.loadLine)
    os << " (line " << f.loadLine << ")";
  os << " may be outstanding: needs " << f.counter << "(" << f.loosest
     << ") or lower before it";
  if (f.counter == "vmcnt" && StringRef(f.loadText).starts_with("flat_"))
    os << " and lgkmcnt(0)";
  return out;
}

} // namespace mlir::rocdsl::isa
