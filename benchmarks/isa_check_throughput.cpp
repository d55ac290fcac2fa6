//===- isa_check_throughput.cpp - wide-store hazard check on 100k lines ---===//
//
// Generates a 100k-line AMDGCN assembly file shaped like llc output (many
// kernels with loops, branches, loads, VALU work, wide and narrow stores,
// s_nop and s_waitcnt, resource directives, comments and a metadata block)
// and times checkAssembly on it: the median of several runs, in seconds and
// lines per second. The goal is under 0.5 s for the 100k lines.
//
//   isa_check_throughput [lines]
//
//===----------------------------------------------------------------------===//
#include "rocdsl/ISA/HazardCheck.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

using namespace mlir::rocdsl;
using Clock = std::chrono::steady_clock;

namespace {

class Generator {
public:
  explicit Generator(unsigned targetLines) : target(targetLines) {}

  std::string run() {
    line("\t.amdgcn_target \"amdgcn-amd-amdhsa--gfx942\"");
    line("\t.amdhsa_code_object_version 6");
    line("\t.text");
    // Room for the metadata block: about 9 lines per kernel.
    while (lines + 9 * (kernels + 1) + 120 < target)
      kernel();
    metadata();
    return std::move(text);
  }

  unsigned lineCount() const { return lines; }
  unsigned kernelCount() const { return kernels; }

private:
  void line(const llvm::Twine &s) {
    text += s.str();
    text += '\n';
    ++lines;
  }

  unsigned pick(unsigned n) { return rng() % n; }

  void kernel() {
    std::string name = llvm::formatv("kernel_{0}", kernels).str();
    unsigned k = kernels++;
    line("\t.globl\t" + name + "                  ; -- Begin function " + name);
    line("\t.p2align\t8");
    line("\t.type\t" + name + ",@function");
    line(name + ":                            ; @" + name);
    line("; %bb.0:");
    line("\ts_load_dwordx4 s[8:11], s[4:5], 0x0");
    line("\ts_load_dwordx2 s[12:13], s[4:5], 0x10");
    line("\tv_and_b32_e32 v0, 0x3ff, v0");
    line("\tv_lshlrev_b32_e32 v0, 4, v0");
    line("\ts_waitcnt lgkmcnt(0)");
    unsigned blocks = 8 + pick(8);
    for (unsigned b = 1; b <= blocks; ++b)
      block(k, b, blocks);
    line("\ts_endpgm");
    line("\t.section\t.rodata,\"a\",@progbits");
    line("\t.p2align\t6, 0x0");
    line("\t.amdhsa_kernel " + name);
    line("\t\t.amdhsa_group_segment_fixed_size " + llvm::Twine(pick(4) * 1024));
    line("\t\t.amdhsa_private_segment_fixed_size 0");
    line("\t\t.amdhsa_next_free_vgpr 24");
    line("\t\t.amdhsa_next_free_sgpr 20");
    line("\t\t.amdhsa_accum_offset 24");
    line("\t.end_amdhsa_kernel");
    line("\t.text");
    line(llvm::formatv(".Lfunc_end{0}:", k).str());
    line(llvm::formatv("\t.size\t{0}, .Lfunc_end{1}-{0}", name, k).str());
    line("                                        ; -- End function");
    line("\t.set " + name + ".num_vgpr, 24");
    line("\t.set " + name + ".num_agpr, 0");
    line("\t.set " + name + ".numbered_sgpr, 20");
    line("\t.set " + name + ".private_seg_size, 0");
    line("; Kernel info:");
    line("; TotalNumSgprs: 26");
    line("; NumVgprs: 24");
    line("; ScratchSize: 0");
    line("; LDSByteSize: 0 bytes/workgroup (compile time only)");
  }

  void block(unsigned k, unsigned b, unsigned blocks) {
    line(llvm::formatv(".LBB{0}_{1}:                                ; %bb{1}",
                       k, b)
             .str());
    unsigned base = 4 * pick(4);
    std::string data = llvm::formatv("v[{0}:{1}]", base + 2, base + 5).str();
    line("\tbuffer_load_dwordx4 " + data + ", v0, s[8:11], 0 offen");
    line("\ts_add_i32 s13, s13, -1");
    line("\ts_waitcnt vmcnt(0)");
    for (unsigned i = 0, e = 8 + pick(12); i < e; ++i) {
      unsigned r = base + 2 + pick(4);
      switch (pick(6)) {
      case 0:
        line(llvm::formatv("\tv_mul_lo_u32 v{0}, v{0}, v{0}", r).str());
        break;
      case 1:
        line(llvm::formatv("\tv_add_u32_e32 v{0}, 0x{1:x}, v{0}", 20 + pick(4),
                           pick(4096))
                 .str());
        break;
      case 2:
        line(llvm::formatv("\tv_fma_f32 v{0}, v{1}, v{2}, v{0}", r, 18, 19)
                 .str());
        break;
      case 3:
        line("\ts_mul_i32 s14, s14, s15");
        break;
      case 4:
        line(llvm::formatv("\tds_read_b64 v[{0}:{1}], v1", 18, 19).str());
        break;
      default:
        line(llvm::formatv("\tv_mov_b32_e32 v{0}, s{1}", 16 + pick(4),
                           14 + pick(2))
                 .str());
        break;
      }
    }
    // A wide store: with an SGPR or constant soffset, protected or not.
    bool sgpr = pick(2);
    line("\tbuffer_store_dwordx4 " + data + ", v0, s[8:11], " +
         (sgpr ? "s12" : "0") + " offen");
    switch (pick(4)) {
    case 0:
      line("\ts_nop 1");
      break;
    case 1:
      line("\ts_waitcnt vmcnt(0)");
      break;
    default:
      break;
    }
    line(llvm::formatv("\tv_mul_lo_u32 v{0}, v{0}, v{0}", base + 2 + pick(6))
             .str());
    line("\tglobal_store_dwordx2 v1, v[16:17], s[12:13]");
    line("\tv_mov_b32_e32 v16, 0");
    line("\ts_cmp_lg_u32 s13, 0");
    if (b == blocks) {
      // Loop back to the kernel's first block.
      line(llvm::formatv("\ts_cbranch_scc1 .LBB{0}_1", k).str());
    } else if (pick(3) == 0) {
      line(llvm::formatv("\ts_cbranch_execz .LBB{0}_{1}", k,
                         std::min(blocks, b + 2))
               .str());
    }
  }

  void metadata() {
    line("\t.amdgpu_metadata");
    line("---");
    line("amdhsa.kernels:");
    for (unsigned k = 0; k < kernels; ++k) {
      line("  - .agpr_count:     0");
      line("    .group_segment_fixed_size: 0");
      line(llvm::formatv("    .name:           kernel_{0}", k).str());
      line("    .private_segment_fixed_size: 0");
      line("    .sgpr_count:     26");
      line("    .sgpr_spill_count: 0");
      line(llvm::formatv("    .symbol:         kernel_{0}.kd", k).str());
      line("    .vgpr_count:     24");
      line("    .vgpr_spill_count: 0");
    }
    line("amdhsa.target:   amdgcn-amd-amdhsa--gfx942");
    line("...");
    line("\t.end_amdgpu_metadata");
    // Pad to the requested size with comments, as llc's trailing notes.
    while (lines < target)
      line("; padding");
  }

  unsigned target;
  unsigned lines = 0, kernels = 0;
  std::string text;
  std::mt19937 rng{42};
};

} // namespace

int main(int argc, char **argv) {
  unsigned targetLines = 100000;
  if (argc > 2 ||
      (argc == 2 && llvm::StringRef(argv[1]).getAsInteger(10, targetLines))) {
    bool help = argc == 2 && (llvm::StringRef(argv[1]) == "--help" ||
                              llvm::StringRef(argv[1]) == "-h");
    (help ? llvm::outs() : llvm::errs())
        << "usage: rocdsl-bench-isa-check [LINES]\n"
           "Times the wide-store hazard check on about LINES (default "
           "100000) lines of generated assembly.\n";
    return help ? 0 : 2;
  }
  Generator generator(std::max(targetLines, 200u));
  std::string text = generator.run();

  // One run to warm caches, then the median of five.
  size_t hazards = 0;
  std::vector<double> seconds;
  for (unsigned run = 0; run < 6; ++run) {
    auto start = Clock::now();
    llvm::Expected<isa::CheckResult> result =
        isa::checkAssembly(text, "generated.s", "");
    double s = std::chrono::duration<double>(Clock::now() - start).count();
    if (!result) {
      llvm::errs() << "isa_check_throughput: error: "
                   << llvm::toString(result.takeError()) << "\n";
      return 1;
    }
    hazards = 0;
    for (const isa::KernelReport &k : result->kernels)
      hazards += k.hazards.size();
    if (run > 0)
      seconds.push_back(s);
  }
  std::sort(seconds.begin(), seconds.end());
  double median = seconds[seconds.size() / 2];
  llvm::outs() << llvm::formatv(
      "checkAssembly: {0} lines ({1} kernels, {2} hazards) in {3:f3} s "
      "(median of {4}): {5:f0} lines/s; target < 0.5 s for 100k lines: {6}\n",
      generator.lineCount(), generator.kernelCount(), hazards, median,
      seconds.size(), generator.lineCount() / median,
      generator.lineCount() * 5e-6 > median ? "met" : "missed");
  return 0;
}
