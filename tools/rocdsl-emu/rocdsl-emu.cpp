//===- rocdsl-emu.cpp - run a gfx942/gfx950 code object on the CPU --------===//
//
//   rocdsl-emu k.hsaco --list
//   rocdsl-emu k.hsaco --kernel saxpy --grid 4 --block 256 \
//       --arg f32:2 --arg buf:4096:file=x.bin --arg buf:4096:random \
//       --arg i32:1024 --dump out/ --profile
//
// Arguments are given in the kernel's order. `buf:BYTES[:INIT]` passes a
// pointer to fresh device memory, `rsrc:BYTES[:INIT]` a raw buffer resource
// (V#) over it; INIT is one of: zero, random (seeded
// by --seed), fill=0xHEX (a 32-bit pattern), or file=PATH (its bytes;
// BYTES may then be 0 for the file's size). --dump DIR writes buffer
// argument i to DIR/arg<i>.bin after the launch.
//
//===----------------------------------------------------------------------===//
#include "rocdsl/Emulator/Emulator.h"
#include "rocdsl/Support/FatalErrors.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include "rocdsl/Target/AMDGPU.h"

#include <random>

using namespace llvm;
using namespace mlir::rocdsl;

// The emulator's own options; LLVM's hundreds of backend options, linked in
// with the disassembler, stay out of --help.
static cl::OptionCategory category("rocdsl-emu options");

static cl::opt<std::string> input(cl::Positional, cl::desc("<code object>"),
                                  cl::Required, cl::cat(category));
static cl::opt<std::string> chip("chip",
                                 cl::desc("Emulated chip (default: "
                                          "$ROCDSL_EMU_CHIP, else gfx942)"),
                                 cl::cat(category));
static cl::opt<bool> list("list", cl::desc("List the kernels and exit"),
                          cl::cat(category));
static cl::opt<std::string> kernelName("kernel", cl::desc("Kernel to run"),
                                       cl::cat(category));
static cl::opt<std::string> gridOpt("grid", cl::desc("Workgroups: X[,Y[,Z]]"),
                                    cl::init("1"), cl::cat(category));
static cl::opt<std::string> blockOpt("block",
                                     cl::desc("Work-items per workgroup: "
                                              "X[,Y[,Z]] (default: the "
                                              "kernel's required size, else "
                                              "64)"),
                                     cl::cat(category));
static cl::opt<unsigned> dynamicLds("lds", cl::desc("Dynamic LDS bytes"),
                                    cl::init(0), cl::cat(category));
static cl::list<std::string>
    args("arg",
         cl::desc("Kernel argument, one per explicit argument in order: "
                  "buf:BYTES[:random|zero|fill=N|file=PATH], "
                  "rsrc:BYTES[:...], i32:V, u32:V, i64:V, u64:V, f32:V, "
                  "f64:V"),
         cl::cat(category));
static cl::opt<std::string>
    dumpDir("dump", cl::desc("Write buffer arguments here"), cl::cat(category));
static cl::opt<bool> profile("profile", cl::desc("Print the launch profile"),
                             cl::cat(category));
static cl::opt<bool> warn("warn-violations",
                          cl::desc("Report wait violations as warnings"),
                          cl::cat(category));
static cl::opt<unsigned> seed("emu-seed",
                              cl::desc("Seed for random buffers "
                                       "and the emulator"),
                              cl::init(1), cl::cat(category));
static cl::opt<unsigned> threads("host-threads",
                                 cl::desc("Host threads (0: all cores)"),
                                 cl::init(0), cl::cat(category));

static int fail(const Twine &message) {
  errs() << "rocdsl-emu: error: " << message << "\n";
  return 1;
}

static bool parseDims(StringRef text, std::array<uint32_t, 3> &dims) {
  SmallVector<StringRef, 3> parts;
  text.split(parts, ',');
  if (parts.empty() || parts.size() > 3)
    return false;
  dims = {1, 1, 1};
  for (size_t i = 0; i < parts.size(); ++i)
    if (parts[i].trim().getAsInteger(0, dims[i]) || dims[i] == 0)
      return false;
  return true;
}

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  installOneLineFatalErrorHandler("rocdsl-emu: error: ", 1);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(argc, argv,
                              "Runs gfx942/gfx950 code objects on the CPU\n");
  std::string chipName = chip;
  if (chipName.empty())
    if (const char *env = std::getenv("ROCDSL_EMU_CHIP"))
      chipName = env;
  if (chipName.empty())
    chipName = "gfx942";
  auto model = emu::getChipModel(chipName);
  if (!model)
    return fail(toString(model.takeError()));
  auto file = MemoryBuffer::getFile(input, /*IsText=*/false);
  if (!file)
    return fail(input + ": " + file.getError().message());
  auto program = emu::Program::load((*file)->getBuffer(), *model);
  if (!program)
    return fail(input + ": " + toString(program.takeError()));
  if (list) {
    for (const emu::KernelInfo &k : (*program)->getKernels())
      outs() << k.name << "\tkernarg " << k.kernargBytes << " B, LDS "
             << k.staticLdsBytes << " B, VGPRs " << k.vgprs << ", AGPRs "
             << k.agprs << ", SGPRs " << k.sgprs << "\n";
    return 0;
  }
  if (kernelName.empty())
    return fail("no --kernel given (--list shows them)");
  const emu::KernelInfo *info = (*program)->findKernel(kernelName);
  if (!info)
    return fail("the code object has no kernel '" + kernelName + "'");

  emu::LaunchConfig config;
  if (!parseDims(gridOpt, config.grid))
    return fail("bad --grid '" + gridOpt + "'");
  if (!blockOpt.empty()) {
    if (!parseDims(blockOpt, config.block))
      return fail("bad --block '" + blockOpt + "'");
  } else if (info->requiredWorkgroupSize[0]) {
    for (int i = 0; i < 3; ++i)
      config.block[i] = std::max(1u, info->requiredWorkgroupSize[i]);
  } else {
    config.block = {64, 1, 1};
  }
  config.dynamicLdsBytes = dynamicLds;

  // Explicit arguments from the metadata, in order.
  std::string error;
  auto resources = readKernelResources((*file)->getBuffer(), chipName, error);
  if (failed(resources))
    return fail(error);
  const KernelResources *res = nullptr;
  for (const KernelResources &r : *resources)
    if (r.name == kernelName)
      res = &r;
  // The loader found the kernel's descriptor; its argument list comes from
  // the metadata note, which a hand-made or stripped object may lack.
  if (!res)
    return fail("the code object's metadata does not describe kernel '" +
                kernelName + "', so its arguments are unknown");
  std::vector<KernelArgInfo> explicitArgs;
  for (const KernelArgInfo &a : res->args)
    if (!a.isHidden())
      explicitArgs.push_back(a);
  if (args.size() != explicitArgs.size())
    return fail("kernel " + kernelName + " takes " +
                Twine(explicitArgs.size()) + " arguments, got " +
                Twine(args.size()));

  emu::Memory memory;
  std::mt19937_64 rng(seed);
  struct Buffer {
    unsigned arg;
    void *data;
    size_t bytes;
  };
  std::vector<Buffer> buffers;
  config.kernarg.assign(res->kernargSegmentSize, 0);
  for (size_t i = 0; i < args.size(); ++i) {
    StringRef spec = args[i];
    const KernelArgInfo &a = explicitArgs[i];
    auto [kind, rest] = spec.split(':');
    // Each kind has one size, which must be the argument's in the code
    // object's metadata: anything else would fill the kernarg segment
    // with a value the kernel reads differently.
    unsigned kindBytes = StringSwitch<unsigned>(kind)
                             .Cases({"f32", "i32", "u32"}, 4)
                             .Cases({"f64", "i64", "u64", "buf"}, 8)
                             .Case("rsrc", 16)
                             .Default(0);
    if (kindBytes && kindBytes != a.size)
      return fail("argument " + Twine(i) + " (" +
                  (a.name.empty() ? "" : "'" + a.name + "', ") + a.valueKind +
                  ") is " + Twine(a.size) +
                  " bytes in the kernel's metadata; '" + spec + "' gives " +
                  Twine(kindBytes));
    uint64_t bits = 0;
    if (kind == "buf" || kind == "rsrc") {
      auto [sizeText, initText] = rest.split(':');
      uint64_t bytes;
      if (sizeText.getAsInteger(0, bytes))
        return fail("bad buffer size in '" + spec + "'");
      std::unique_ptr<MemoryBuffer> contents;
      if (initText.starts_with("file=")) {
        auto f = MemoryBuffer::getFile(initText.drop_front(5), false);
        if (!f)
          return fail(initText.drop_front(5) + ": " + f.getError().message());
        contents = std::move(*f);
        if (bytes == 0)
          bytes = contents->getBufferSize();
      }
      void *data = memory.allocate(bytes);
      if (!data)
        return fail("out of memory for a " + Twine(bytes) + "-byte buffer");
      auto *bytesOut = static_cast<uint8_t *>(data);
      if (contents) {
        std::memcpy(data, contents->getBufferStart(),
                    std::min<size_t>(bytes, contents->getBufferSize()));
      } else if (initText == "random") {
        for (uint64_t b = 0; b < bytes; ++b)
          bytesOut[b] = uint8_t(rng());
      } else if (initText.consume_front("fill=")) {
        uint32_t pattern;
        if (initText.getAsInteger(0, pattern))
          return fail("bad fill pattern in '" + spec + "'");
        for (uint64_t b = 0; b < bytes; ++b)
          bytesOut[b] = uint8_t(pattern >> (8 * (b % 4)));
      } else if (!initText.empty() && initText != "zero") {
        return fail("unknown buffer initialiser in '" + spec + "'");
      }
      buffers.push_back({unsigned(i), data, size_t(bytes)});
      bits = reinterpret_cast<uint64_t>(data);
      if (kind == "rsrc") {
        // A raw buffer resource (V#) over the buffer: base, stride 0,
        // num_records = its size, the data format LLVM uses.
        uint32_t rsrc[4] = {uint32_t(bits), uint32_t(bits >> 32) & 0xffff,
                            uint32_t(bytes), 0x27000};
        if (a.offset + 16 > config.kernarg.size())
          config.kernarg.resize(a.offset + 16);
        std::memcpy(config.kernarg.data() + a.offset, rsrc, 16);
        continue;
      }
    } else if (kind == "f32") {
      double v;
      if (rest.getAsDouble(v))
        return fail("bad f32 in '" + spec + "'");
      float f = float(v);
      std::memcpy(&bits, &f, 4);
    } else if (kind == "f64") {
      double v;
      if (rest.getAsDouble(v))
        return fail("bad f64 in '" + spec + "'");
      std::memcpy(&bits, &v, 8);
    } else if (kind == "i32" || kind == "u32" || kind == "i64" ||
               kind == "u64") {
      int64_t v;
      if (rest.getAsInteger(0, v))
        return fail("bad integer in '" + spec + "'");
      bool fits = kind == "i32"   ? v >= INT32_MIN && v <= INT32_MAX
                  : kind == "u32" ? v >= 0 && v <= int64_t(UINT32_MAX)
                  : kind == "u64" ? v >= 0
                                  : true;
      if (!fits)
        return fail("'" + spec + "' is out of range for " + kind);
      bits = uint64_t(v);
    } else {
      return fail("unknown argument kind in '" + spec +
                  "' (buf, rsrc, i32, u32, i64, u64, f32, f64)");
    }
    if (a.offset + a.size > config.kernarg.size())
      config.kernarg.resize(a.offset + a.size);
    std::memcpy(config.kernarg.data() + a.offset, &bits,
                std::min<size_t>(a.size, 8));
  }

  emu::Options options = emu::Options::fromEnvironment();
  options.profile |= profile;
  options.violationsAreWarnings |= warn;
  options.seed = seed;
  if (threads)
    options.threads = threads;
  auto result = (*program)->launch(kernelName, config, memory, options);
  if (!result)
    return fail(toString(result.takeError()));
  if (!dumpDir.empty()) {
    sys::fs::create_directories(dumpDir);
    for (const Buffer &b : buffers) {
      SmallString<128> path(dumpDir);
      sys::path::append(path, "arg" + Twine(b.arg) + ".bin");
      std::error_code ec;
      raw_fd_ostream os(path, ec, sys::fs::OF_None);
      if (ec)
        return fail(path + ": " + ec.message());
      os.write(static_cast<const char *>(b.data), b.bytes);
    }
  }
  outs() << "ran " << kernelName << " on emulated " << model->name << ": grid "
         << config.grid[0] << "x" << config.grid[1] << "x" << config.grid[2]
         << ", block " << config.block[0] << "x" << config.block[1] << "x"
         << config.block[2] << "\n";
  // (Violations downgraded to warnings were reported on stderr as found.)
  if (options.profile)
    outs() << result->profile.str();
  return 0;
}
