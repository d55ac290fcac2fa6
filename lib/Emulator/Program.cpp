//===- Program.cpp - loading code objects and running launches ------------===//
//
// A launch runs workgroups on a pool of host threads; inside a workgroup the
// waves take turns of a few dozen instructions (seeded lengths), so they
// interleave as on hardware and meet at s_barrier. The kernel descriptor
// decides the initial registers exactly as the hardware's dispatcher does:
// user SGPRs (private segment buffer, dispatch pointer, queue pointer,
// kernarg pointer, dispatch id, flat scratch, private segment size), then
// the workgroup IDs, and the work-item IDs packed into v0 (gfx90a and later).
//
//===----------------------------------------------------------------------===//
#include "Decode.h"

#include "rocdsl/ISA/Disassembly.h"
#include "rocdsl/Support/ChipInfo.h"
#include "rocdsl/Support/Environment.h"
#include "rocdsl/Target/AMDGPU.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Object/ELF.h"
#include "llvm/Support/raw_ostream.h"

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <limits>
#include <thread>
#include <type_traits>

using namespace llvm;

namespace mlir::rocdsl::emu {

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

Memory::~Memory() {
  for (auto &[base, pointer] : allocations)
    std::free(pointer);
}

void Memory::add(const void *base, size_t bytes) {
  std::lock_guard<std::mutex> lock(mutex);
  blocks[reinterpret_cast<uint64_t>(base)] = bytes;
}

void Memory::remove(const void *base) {
  std::lock_guard<std::mutex> lock(mutex);
  blocks.erase(reinterpret_cast<uint64_t>(base));
}

void *Memory::allocate(size_t bytes) {
  size_t rounded = (std::max<size_t>(bytes, 1) + 255) & ~size_t(255);
  void *pointer = std::aligned_alloc(256, rounded);
  if (!pointer)
    return nullptr;
  std::memset(pointer, 0, rounded);
  std::lock_guard<std::mutex> lock(mutex);
  blocks[reinterpret_cast<uint64_t>(pointer)] = bytes;
  allocations[reinterpret_cast<uint64_t>(pointer)] = pointer;
  return pointer;
}

bool Memory::release(void *base) {
  std::lock_guard<std::mutex> lock(mutex);
  auto it = allocations.find(reinterpret_cast<uint64_t>(base));
  if (it == allocations.end())
    return false;
  std::free(it->second);
  blocks.erase(it->first);
  allocations.erase(it);
  return true;
}

bool Memory::lookup(uint64_t address, uint64_t &base, uint64_t &size) const {
  std::lock_guard<std::mutex> lock(mutex);
  auto it = blocks.upper_bound(address);
  if (it == blocks.begin())
    return false;
  --it;
  if (address - it->first >= it->second)
    return false;
  base = it->first;
  size = it->second;
  return true;
}

bool Memory::contains(uint64_t address, uint64_t bytes) const {
  uint64_t base, size;
  // lookup keeps address - base below size, so the difference cannot wrap.
  return lookup(address, base, size) && bytes <= size - (address - base);
}

//===----------------------------------------------------------------------===//
// Chips, options, reports
//===----------------------------------------------------------------------===//

Expected<ChipModel> getChipModel(StringRef chip) {
  const ChipInfo *info = lookupChip(chip);
  if (!info || !info->isAMD())
    return createStringError("the emulator runs " +
                             listChips(ChipVendor::AMD) + ", not '" + chip +
                             "'");
  ChipModel model;
  model.name = info->name.str();
  model.ldsBytes = info->sharedMemoryBytes;
  model.ldsBanks = info->sharedMemoryBanks;
  model.wideStoreWaitStates = 2; // CDNA3 and CDNA4 ISA: >64-bit VMEM store data
  model.fp8IsFNUZ = info->fp8IsFNUZ;
  return model;
}

Options Options::fromEnvironment() {
  Options o;
  if (const char *v = std::getenv("ROCDSL_EMU_VIOLATIONS"))
    o.violationsAreWarnings = StringRef(v) == "warn";
  if (const char *v = std::getenv("ROCDSL_EMU_PROFILE"))
    o.profile = StringRef(v) == "1" || StringRef(v) == "on";
  // A value that is not a number keeps the default, and says so.
  auto number = [](const char *name, auto &out, uint64_t least) {
    const char *v = std::getenv(name);
    if (!v || !*v)
      return;
    uint64_t parsed = 0;
    if (StringRef(v).trim().getAsInteger(10, parsed) || parsed < least ||
        parsed > std::numeric_limits<std::decay_t<decltype(out)>>::max()) {
      llvm::errs() << "rocdsl-emu: warning: " << name << "='" << v
                   << "' is not an integer of at least " << least
                   << "; using the default, " << out << "\n";
      return;
    }
    out = parsed;
  };
  number("ROCDSL_EMU_THREADS", o.threads, 0);
  number("ROCDSL_EMU_SEED", o.seed, 0);
  number("ROCDSL_EMU_MAX_INSTRUCTIONS", o.maxWaveInstructions, 1);
  return o;
}

void Profile::merge(const Profile &o) {
  waves += o.waves;
  instructions += o.instructions;
  laneOps += o.laneOps;
  for (auto &[k, v] : o.byClass)
    byClass[k] += v;
  mfma += o.mfma;
  mfmaFlops += o.mfmaFlops;
  waitcnts += o.waitcnts;
  barriers += o.barriers;
  globalBytesRead += o.globalBytesRead;
  globalBytesWritten += o.globalBytesWritten;
  ldsBytesRead += o.ldsBytesRead;
  ldsBytesWritten += o.ldsBytesWritten;
  ldsAccesses += o.ldsAccesses;
  ldsBankConflictCycles += o.ldsBankConflictCycles;
}

std::string Profile::str() const {
  std::string out;
  raw_string_ostream os(out);
  os << "waves " << waves << ", wave-instructions " << instructions
     << ", lane-ops " << laneOps << "\n";
  os << "by class:";
  for (auto &[k, v] : byClass)
    os << " " << k << "=" << v;
  os << "\nmfma " << mfma << " (" << mfmaFlops << " flops), s_waitcnt "
     << waitcnts << ", s_barrier " << barriers << "\n";
  os << "global bytes read " << globalBytesRead << ", written "
     << globalBytesWritten << "\n";
  os << "lds bytes read " << ldsBytesRead << ", written " << ldsBytesWritten
     << ", accesses " << ldsAccesses << ", bank-conflict cycles "
     << ldsBankConflictCycles << "\n";
  if (seconds > 0)
    os << format("%.3f s, %.3g wave-instructions/s, %.3g lane-ops/s\n",
                 seconds, instructions / seconds, laneOps / seconds);
  return out;
}

std::string Violation::str() const {
  return (kernel + "+0x" + Twine(utohexstr(offset, true)) + ": `" + instruction +
          "`: " + message)
      .str();
}

//===----------------------------------------------------------------------===//
// Loading
//===----------------------------------------------------------------------===//

struct LaunchState {
  std::atomic<bool> stop{false};
  uint64_t maxWaveInstructions = ~0ull;
  std::mutex mutex;
  std::string error;
  std::vector<Violation> violations;
  bool warnOnly = false;
  Profile profile;
};

void ExecContext::fault(const std::string &message) {
  std::lock_guard<std::mutex> lock(launch->mutex);
  if (launch->error.empty())
    launch->error = kernel->info.name + "+0x" +
                    utohexstr(kernel->insts[currentInst].address, true) + ": `" +
                    kernel->texts[currentInst] + "`: " + message;
  launch->stop = true;
  yield = true;
}

void ExecContext::violation(const std::string &message) {
  std::lock_guard<std::mutex> lock(launch->mutex);
  Violation v;
  v.kernel = kernel->info.name;
  v.offset = kernel->insts[currentInst].address;
  v.instruction = kernel->texts[currentInst];
  v.message = message;
  if (launch->violations.size() < 16)
    launch->violations.push_back(v);
  if (launch->warnOnly) {
    if (launch->violations.size() <= 16)
      errs() << "rocdsl-emu: warning: " << v.str() << "\n";
    return;
  }
  if (launch->error.empty())
    launch->error = "wait violation: " + v.str();
  launch->stop = true;
  yield = true;
}

struct Program::Impl {
  ChipModel chip;
  std::vector<KernelCode> kernels;
};

Program::Program() : impl(std::make_unique<Impl>()) {}
Program::~Program() = default;
const ChipModel &Program::getChip() const { return impl->chip; }

std::vector<KernelInfo> Program::getKernels() const {
  std::vector<KernelInfo> out;
  for (const KernelCode &k : impl->kernels)
    out.push_back(k.info);
  return out;
}

const KernelInfo *Program::findKernel(StringRef name) const {
  for (const KernelCode &k : impl->kernels)
    if (k.info.name == name)
      return &k.info;
  return nullptr;
}

namespace {

/// The kernel descriptor bytes of symbol `name`.kd, or empty.
StringRef findDescriptor(const object::ELF64LEFile &elf, StringRef name) {
  auto sections = elf.sections();
  if (!sections) {
    consumeError(sections.takeError());
    return {};
  }
  std::string symbol = (name + ".kd").str();
  StringRef found;
  isa::forEachSymbol(elf, [&](const object::ELF64LE::Sym &sym,
                              StringRef symName) {
    if (symName != symbol || sym.st_shndx == 0 ||
        sym.st_shndx >= sections->size())
      return true;
    const auto &section = (*sections)[sym.st_shndx];
    auto contents = elf.getSectionContents(section);
    if (!contents) {
      consumeError(contents.takeError());
      return false;
    }
    uint64_t offset = sym.st_value - section.sh_addr;
    if (sym.st_value >= section.sh_addr && offset + 64 <= contents->size())
      found = toStringRef(contents->slice(offset, 64));
    return false;
  });
  return found;
}

template <typename T> T readLE(StringRef bytes, unsigned offset) {
  T value;
  std::memcpy(&value, bytes.data() + offset, sizeof(T));
  return value;
}

} // namespace

Expected<std::unique_ptr<Program>> Program::load(StringRef codeObject,
                                                 const ChipModel &chip) {
  if (codeObject.size() < ELF::EI_NIDENT || !codeObject.starts_with("\x7f"
                                                                    "ELF"))
    return createStringError("not an HSA code object (no ELF header)");
  Expected<object::ELF64LEFile> elfOrErr =
      object::ELF64LEFile::create(codeObject);
  if (!elfOrErr)
    return createStringError("not a readable code object: " +
                             toString(elfOrErr.takeError()));
  const object::ELF64LEFile &elf = *elfOrErr;
  if (elf.getHeader().e_machine != ELF::EM_AMDGPU)
    return createStringError("not an AMDGPU code object");
  StringRef built = isa::chipFromELFFlags(elf.getHeader().e_flags);
  if (built != chip.name)
    return createStringError(
        "no kernel image is available for execution on the device: the code "
        "object is for " +
        (built.empty() ? StringRef("another processor") : built) +
        ", the device is " + chip.name);

  std::string error;
  auto resources = readKernelResources(codeObject, chip.name, error);
  if (failed(resources))
    return createStringError("bad code object metadata: " + error);

  auto disassembler = isa::AMDGPUDisassembler::create(chip.name);
  if (!disassembler)
    return disassembler.takeError();
  std::vector<isa::CodeFunction> functions = isa::collectCodeFunctions(elf);

  std::unique_ptr<Program> program(new Program());
  program->impl->chip = chip;
  for (const KernelResources &r : *resources) {
    KernelCode code;
    code.info.name = r.name;
    code.info.kernargBytes = r.kernargSegmentSize;
    code.info.staticLdsBytes = r.ldsBytes;
    code.info.privateBytes = r.scratchBytes;
    code.info.vgprs = r.vgprs;
    code.info.agprs = r.agprs;
    code.info.sgprs = r.sgprs;
    code.info.maxFlatWorkgroupSize = r.maxFlatWorkgroupSize;
    for (int i = 0; i < 3; ++i)
      code.info.requiredWorkgroupSize[i] = r.requiredWorkgroupSize[i];
    for (const KernelArgInfo &a : r.args) {
      code.args.push_back({a.valueKind, a.offset, a.size});
      if (!a.isHidden())
        code.info.explicitArgs.push_back({a.offset, a.size});
    }

    StringRef kd = findDescriptor(elf, r.name);
    if (kd.size() != 64)
      return createStringError("kernel " + r.name +
                               " has no kernel descriptor (" + r.name +
                               ".kd)");
    code.info.staticLdsBytes = readLE<uint32_t>(kd, 0);
    code.info.privateBytes = readLE<uint32_t>(kd, 4);
    code.rsrc3 = readLE<uint32_t>(kd, 44);
    code.rsrc1 = readLE<uint32_t>(kd, 48);
    code.rsrc2 = readLE<uint32_t>(kd, 52);
    code.kernelCodeProperties = readLE<uint16_t>(kd, 56);
    code.accumOffset = ((code.rsrc3 & 0x3f) + 1) * 4;

    auto fn = llvm::find_if(functions, [&](const isa::CodeFunction &f) {
      return f.name == r.name;
    });
    if (fn == functions.end())
      return createStringError("kernel " + r.name + " has no code symbol");
    std::vector<isa::DecodedInstruction> decoded = (*disassembler)->decode(*fn);
    DenseMap<uint64_t, uint32_t> indexOf;
    for (size_t i = 0; i < decoded.size(); ++i)
      indexOf[decoded[i].address] = i;
    for (size_t i = 0; i < decoded.size(); ++i) {
      const isa::DecodedInstruction &d = decoded[i];
      Inst inst;
      inst.address = uint32_t(d.address - fn->address);
      std::string why;
      if (!d.decoded) {
        why = "cannot decode " + d.text;
      } else if (!decodeText(d.text, inst, why)) {
        inst = Inst();
        inst.address = uint32_t(d.address - fn->address);
      }
      if (d.branchTarget) {
        auto it = indexOf.find(*d.branchTarget);
        if (it == indexOf.end())
          why = "branch target outside the kernel";
        else
          inst.target = it->second;
      }
      if (!why.empty()) {
        inst.fn = nullptr;
        inst.sub = uint16_t(code.decodeErrors.size());
        code.decodeErrors.push_back(why);
      }
      code.insts.push_back(inst);
      code.texts.push_back(d.text);
    }
    program->impl->kernels.push_back(std::move(code));
  }
  return std::move(program);
}

//===----------------------------------------------------------------------===//
// Launching
//===----------------------------------------------------------------------===//

namespace {

/// Runs one wave until it ends, waits at a barrier, or has executed
/// `budget` instructions.
void runWave(ExecContext &ctx, unsigned budget) {
  Wave &w = *ctx.wave;
  const KernelCode &k = *ctx.kernel;
  while (budget-- && !w.done && !w.atBarrier) {
    if (w.pc >= k.insts.size()) {
      ctx.currentInst = k.insts.empty() ? 0 : k.insts.size() - 1;
      if (k.insts.empty()) {
        std::lock_guard<std::mutex> lock(ctx.launch->mutex);
        ctx.launch->error = k.info.name + ": the kernel has no code";
        ctx.launch->stop = true;
      } else {
        ctx.fault("execution ran past the end of the kernel");
      }
      w.done = true;
      return;
    }
    const Inst &inst = k.insts[w.pc];
    ctx.currentInst = w.pc;
    if (!inst.fn) {
      ctx.fault(k.decodeErrors[inst.sub]);
      w.done = true;
      return;
    }
    if (w.pendingRegs || w.wideStoreCount)
      checkHazards(ctx, inst);
    ctx.branched = false;
    ctx.yield = false;
    if (ctx.trace && w.id == 0 && ctx.group->id[0] == 0 && ctx.group->id[1] == 0 &&
        ctx.group->id[2] == 0)
      errs() << "trace: +0x" << utohexstr(inst.address, true) << " exec=0x"
             << utohexstr(w.exec(), true) << " " << k.texts[w.pc] << "\n";
    inst.fn(ctx, inst);
    if (ctx.trace && w.id == 0 && ctx.group->id[0] == 0 &&
        ctx.group->id[1] == 0 && ctx.group->id[2] == 0 && inst.numOps &&
        inst.ops[0].isReg()) {
      errs() << "   =";
      for (unsigned lane : {0u, 1u, 2u, 3u, 16u, 32u, 63u})
        errs() << " " << utohexstr(readLane(w, inst.ops[0], lane), true);
      errs() << "\n";
    }
    ++w.executed;
    if (ctx.profile) {
      ++ctx.profile->instructions;
      ++ctx.profile->byClass[className(inst.cls)];
      if (inst.cls == InstClass::VALU || inst.cls == InstClass::Trans ||
          inst.cls == InstClass::VMEM || inst.cls == InstClass::LDS ||
          inst.cls == InstClass::MFMA)
        ctx.profile->laneOps += __builtin_popcountll(w.exec());
    }
    if (!ctx.branched)
      ++w.pc;
    if (w.executed > ctx.launch->maxWaveInstructions) {
      ctx.fault("wave " + std::to_string(w.id) + " executed more than " +
                std::to_string(ctx.launch->maxWaveInstructions) +
                " instructions: the kernel does not terminate "
                "(ROCDSL_EMU_MAX_INSTRUCTIONS raises the limit)");
      w.done = true;
      return;
    }
    if (ctx.launch->stop.load(std::memory_order_relaxed)) {
      w.done = true;
      return;
    }
    if (ctx.yield)
      return;
  }
}

struct GroupRunner {
  const KernelCode &kernel;
  const ChipModel &chip;
  Memory &memory;
  LaunchState &launch;
  const LaunchConfig &config;
  uint64_t kernargAddress, dispatchAddress;
  unsigned ldsBytes;
  bool profile;

  std::vector<Wave> waves;
  Workgroup group;
  Profile localProfile;

  void initWave(Wave &w, unsigned index, unsigned threads) {
    // VGPRs hold no defined value at dispatch: poison them (a NaN in f32).
    resetWave(w, 0x7fbad000u);
    w.id = index;
    // Private memory per lane, poisoned like registers.
    w.scratchPerLane = kernel.info.privateBytes;
    w.scratch.assign(size_t(w.scratchPerLane) * kLanes, 0xff);
    unsigned first = index * kLanes;
    unsigned active = std::min(kLanes, threads - first);
    w.setExec(active == 64 ? ~0ull : ((1ull << active) - 1));
    // FLOAT_DENORM_MODE_32 (rsrc1[13:12]) and _16_64 ([15:14]): 0 flushes
    // inputs and outputs; 3 keeps denormals.
    w.flushF32Denormals = ((kernel.rsrc1 >> 12) & 3) == 0;
    w.flushF16Denormals = ((kernel.rsrc1 >> 14) & 3) == 0;

    unsigned s = 0;
    uint16_t props = kernel.kernelCodeProperties;
    auto put64 = [&](uint64_t value) {
      w.s[s++] = uint32_t(value);
      w.s[s++] = uint32_t(value >> 32);
    };
    if (props & (1 << 0)) { // private segment buffer (a V#)
      put64(0);
      w.s[s++] = 0;
      w.s[s++] = 0;
    }
    if (props & (1 << 1))
      put64(dispatchAddress);
    if (props & (1 << 2))
      put64(0); // queue pointer
    if (props & (1 << 3))
      put64(kernargAddress);
    if (props & (1 << 4))
      put64(0); // dispatch id
    if (props & (1 << 5))
      put64(0); // flat scratch init
    if (props & (1 << 6))
      w.s[s++] = kernel.info.privateBytes;
    unsigned userSGPRs = (kernel.rsrc2 >> 1) & 0x1f;
    s = std::max(s, userSGPRs);
    if (kernel.rsrc2 & (1 << 7))
      w.s[s++] = group.id[0];
    if (kernel.rsrc2 & (1 << 8))
      w.s[s++] = group.id[1];
    if (kernel.rsrc2 & (1 << 9))
      w.s[s++] = group.id[2];
    if (kernel.rsrc2 & (1 << 10))
      w.s[s++] = 0; // workgroup info
    if (kernel.rsrc2 & 1)
      w.s[s++] = 0; // private segment wave offset
    // Work-item IDs, packed: x in [9:0], y in [19:10], z in [29:20].
    uint32_t *v0 = w.vreg(0);
    unsigned bx = config.block[0], by = config.block[1];
    for (unsigned lane = 0; lane < kLanes; ++lane) {
      unsigned t = first + lane;
      unsigned x = t % bx, y = (t / bx) % by, z = t / (bx * by);
      v0[lane] = t < threads ? (x | (y << 10) | (z << 20)) : 0;
    }
  }

  void run(uint32_t gx, uint32_t gy, uint32_t gz, std::mt19937_64 &rng) {
    group.id[0] = gx;
    group.id[1] = gy;
    group.id[2] = gz;
    unsigned threads = config.block[0] * config.block[1] * config.block[2];
    unsigned count = (threads + kLanes - 1) / kLanes;
    if (waves.size() != count)
      waves.resize(count);
    // LDS holds no defined value at dispatch either.
    group.lds.assign(ldsBytes, 0xff);
    group.dmaInFlight.clear();
    group.dmaWriter.clear();
    for (unsigned i = 0; i < count; ++i)
      initWave(waves[i], i, threads);
    ExecContext ctx;
    ctx.group = &group;
    ctx.kernel = &kernel;
    ctx.chip = &chip;
    ctx.memory = &memory;
    ctx.launch = &launch;
    ctx.profile = profile ? &localProfile : nullptr;
    ctx.rng = &rng;
    static const bool trace = isSwitchOnInEnvironment("ROCDSL_EMU_TRACE");
    ctx.trace = trace;
    if (profile)
      localProfile.waves += count;
    std::uniform_int_distribution<unsigned> slice(8, 48);
    for (;;) {
      bool progressed = false, anyLive = false;
      for (Wave &w : waves) {
        if (w.done)
          continue;
        anyLive = true;
        if (w.atBarrier)
          continue;
        ctx.wave = &w;
        uint64_t before = w.executed;
        runWave(ctx, slice(rng));
        progressed |= w.executed != before || w.done;
        if (launch.stop)
          return;
      }
      if (!anyLive)
        return;
      if (!progressed) {
        // Everyone alive waits at the barrier: release them. (Waves that
        // ended no longer take part, as on hardware.)
        for (Wave &w : waves)
          w.atBarrier = false;
        if (profile)
          ++localProfile.barriers;
      }
    }
  }
};

} // namespace

Expected<LaunchResult> Program::launch(StringRef name,
                                       const LaunchConfig &config,
                                       Memory &memory,
                                       const Options &options) const {
  auto start = std::chrono::steady_clock::now();
  const KernelCode *kernel = nullptr;
  for (const KernelCode &k : impl->kernels)
    if (k.info.name == name)
      kernel = &k;
  if (!kernel)
    return createStringError("the code object has no kernel " + name);
  uint64_t threads =
      uint64_t(config.block[0]) * config.block[1] * config.block[2];
  if (threads == 0 || threads > 1024)
    return createStringError("invalid workgroup size " +
                             Twine(config.block[0]) + "x" +
                             Twine(config.block[1]) + "x" +
                             Twine(config.block[2]) + " (1 to 1024 work-items)");
  if (kernel->info.maxFlatWorkgroupSize &&
      threads > kernel->info.maxFlatWorkgroupSize)
    return createStringError(
        "workgroup of " + Twine(threads) + " work-items exceeds the kernel's "
        "maximum of " + Twine(kernel->info.maxFlatWorkgroupSize));
  for (int i = 0; i < 3; ++i)
    if (kernel->info.requiredWorkgroupSize[i] &&
        config.block[i] != kernel->info.requiredWorkgroupSize[i])
      return createStringError("the kernel requires workgroup size " +
                               Twine(kernel->info.requiredWorkgroupSize[0]) +
                               "x" +
                               Twine(kernel->info.requiredWorkgroupSize[1]) +
                               "x" +
                               Twine(kernel->info.requiredWorkgroupSize[2]));
  if (config.grid[0] == 0 || config.grid[1] == 0 || config.grid[2] == 0)
    return LaunchResult();
  // The dispatch packet holds each dimension's work-items in 32 bits, as
  // HIP's launch does; a larger grid would wrap there (and in the count of
  // workgroups) and run something other than what was asked.
  for (int i = 0; i < 3; ++i)
    if (uint64_t(config.grid[i]) * config.block[i] > UINT32_MAX)
      return createStringError(
          "grid dimension " + Twine(i) + ": " + Twine(config.grid[i]) +
          " workgroups of " + Twine(config.block[i]) +
          " work-items is more than 2^32 - 1 work-items");
  if (uint64_t(config.grid[0]) * config.grid[1] > UINT64_MAX / config.grid[2])
    return createStringError("the grid has 2^64 workgroups or more");
  uint64_t lds = uint64_t(kernel->info.staticLdsBytes) + config.dynamicLdsBytes;
  if (lds > impl->chip.ldsBytes)
    return createStringError("the launch needs " + Twine(lds) +
                             " bytes of LDS; " + impl->chip.name + " has " +
                             Twine(impl->chip.ldsBytes));

  // The kernarg segment: explicit arguments as given, hidden ones filled as
  // the HIP runtime fills them for code object v5.
  size_t size = std::max<size_t>(kernel->info.kernargBytes, config.kernarg.size());
  for (const KernelCode::Arg &a : kernel->args)
    size = std::max<size_t>(size, a.offset + a.size);
  std::vector<uint8_t> kernarg(std::max<size_t>(size, 8) + 64, 0);
  std::memcpy(kernarg.data(), config.kernarg.data(),
              std::min(config.kernarg.size(), size));
  for (const KernelCode::Arg &a : kernel->args) {
    StringRef kind = a.valueKind;
    uint64_t value = 0;
    bool known = true;
    auto dim = [&](StringRef prefix, int &d) {
      if (!kind.starts_with(prefix))
        return false;
      char c = kind.back();
      d = c == 'x' ? 0 : c == 'y' ? 1 : 2;
      return true;
    };
    int d;
    if (dim("hidden_block_count_", d))
      value = config.grid[d];
    else if (dim("hidden_group_size_", d))
      value = config.block[d];
    else if (dim("hidden_remainder_", d))
      value = 0; // grids are whole workgroups here
    else if (dim("hidden_global_offset_", d))
      value = 0;
    else if (kind == "hidden_grid_dims")
      value = config.grid[2] > 1 || config.block[2] > 1   ? 3
              : config.grid[1] > 1 || config.block[1] > 1 ? 2
                                                          : 1;
    else if (kind == "hidden_dynamic_lds_size")
      value = config.dynamicLdsBytes;
    else if (kind == "hidden_shared_base")
      value = kSharedApertureHi >> 32;
    else if (kind == "hidden_private_base")
      value = kPrivateApertureHi >> 32;
    else
      known = kind.starts_with("hidden_");
    if (!known)
      continue;
    if (kind.starts_with("hidden_") && a.offset + a.size <= kernarg.size())
      std::memcpy(kernarg.data() + a.offset, &value,
                  std::min<size_t>(a.size, sizeof(value)));
  }
  // The dispatch packet (hsa_kernel_dispatch_packet_t).
  std::vector<uint8_t> packet(64, 0);
  auto put = [&](unsigned offset, uint64_t value, unsigned bytes) {
    std::memcpy(packet.data() + offset, &value, bytes);
  };
  put(2, 3, 2); // setup: dimensions
  put(4, config.block[0], 2);
  put(6, config.block[1], 2);
  put(8, config.block[2], 2);
  put(12, uint64_t(config.grid[0]) * config.block[0], 4);
  put(16, uint64_t(config.grid[1]) * config.block[1], 4);
  put(20, uint64_t(config.grid[2]) * config.block[2], 4);
  put(28, lds, 4);
  put(40, reinterpret_cast<uint64_t>(kernarg.data()), 8);
  memory.add(kernarg.data(), kernarg.size());
  memory.add(packet.data(), packet.size());

  LaunchState state;
  state.warnOnly = options.violationsAreWarnings;
  state.maxWaveInstructions = options.maxWaveInstructions;
  uint64_t groups = uint64_t(config.grid[0]) * config.grid[1] * config.grid[2];
  unsigned workers = options.threads ? options.threads
                                     : std::max(1u, std::thread::hardware_concurrency());
  workers = unsigned(std::min<uint64_t>(workers, groups));
  std::atomic<uint64_t> next{0};
  std::mutex profileMutex;
  auto work = [&](unsigned worker) {
    GroupRunner runner{*kernel,
                       impl->chip,
                       memory,
                       state,
                       config,
                       reinterpret_cast<uint64_t>(kernarg.data()),
                       reinterpret_cast<uint64_t>(packet.data()),
                       unsigned(lds),
                       options.profile,
                       {},
                       {},
                       {}};
    std::mt19937_64 rng(options.seed * 0x9e3779b97f4a7c15ull + worker);
    for (;;) {
      uint64_t g = next.fetch_add(1);
      if (g >= groups || state.stop)
        break;
      uint32_t gx = g % config.grid[0];
      uint32_t gy = (g / config.grid[0]) % config.grid[1];
      uint32_t gz = g / (uint64_t(config.grid[0]) * config.grid[1]);
      runner.run(gx, gy, gz, rng);
    }
    if (options.profile) {
      std::lock_guard<std::mutex> lock(profileMutex);
      state.profile.merge(runner.localProfile);
    }
  };
  if (workers <= 1) {
    work(0);
  } else {
    std::vector<std::thread> pool;
    for (unsigned i = 0; i < workers; ++i)
      pool.emplace_back(work, i);
    for (std::thread &t : pool)
      t.join();
  }
  memory.remove(kernarg.data());
  memory.remove(packet.data());
  if (!state.error.empty())
    return createStringError(state.error);
  LaunchResult result;
  result.violations = std::move(state.violations);
  result.profile = std::move(state.profile);
  result.profile.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  return result;
}

} // namespace mlir::rocdsl::emu

namespace mlir::rocdsl::emu {

void resetWave(Wave &w, uint32_t vgprFill) {
  std::memset(w.s, 0, sizeof(w.s));
  std::memset(w.vPending, 0, sizeof(w.vPending));
  std::memset(w.sPending, 0, sizeof(w.sPending));
  w.pendingRegs = 0;
  w.vmem.clear();
  w.lgkm.clear();
  w.smemPending = w.ldsPending = 0;
  w.wideStoreCount = 0;
  w.scc = false;
  w.pc = 0;
  w.done = w.atBarrier = false;
  w.executed = 0;
  w.v.assign(size_t(kVGPRs) * kLanes, vgprFill);
  w.setExec(~0ull);
}

std::string runInstructions(const ChipModel &chip, ArrayRef<std::string> lines,
                            Wave &wave, Workgroup &group, Memory &memory,
                            Profile *profile) {
  KernelCode code;
  code.info.name = "test";
  for (size_t i = 0; i < lines.size(); ++i) {
    Inst inst;
    inst.address = uint32_t(4 * i);
    std::string why;
    if (!decodeText(lines[i], inst, why))
      return why;
    code.insts.push_back(inst);
    code.texts.push_back(lines[i]);
  }
  LaunchState state;
  state.maxWaveInstructions = 100000;
  std::mt19937_64 rng(1);
  ExecContext ctx;
  ctx.wave = &wave;
  ctx.group = &group;
  ctx.kernel = &code;
  ctx.chip = &chip;
  ctx.memory = &memory;
  ctx.launch = &state;
  ctx.rng = &rng;
  ctx.profile = profile;
  wave.pc = 0;
  wave.done = false;
  while (!wave.done && wave.pc < code.insts.size() && state.error.empty()) {
    wave.atBarrier = false;
    runWave(ctx, 1);
  }
  return state.error;
}

} // namespace mlir::rocdsl::emu
