"""What compiling for one chip produced, without any GPU.

    c = my_kernel.compile(chip="gfx942", BLOCK=256)     # @rocdsl.kernel
    c = rocdsl.compile("rmsnorm_fwd", ["N=4096"], chip="gfx950")
    assert "buffer_load_dwordx4" in c.asm
    assert c.stats["vgpr_spill"] == 0 and not c.hazards

AMD code comes from the same checked compile as launched code (the
wide-store hazard check and its fallbacks), so what a test inspects here is
what would run.
"""


class Compiled:
    """Artifacts of one kernel compiled for `chip`.

    mlir      the kernel's rocdsl IR
    lowered   the IR after the target pipeline (ROCDL or NVVM dialects)
    llvm_ir   LLVM IR of the lowered module
    asm       AMDGCN assembly (gfx942, gfx950) or PTX (sm_90, sm_90a)
    hsaco     the HSA code object (bytes); None for NVIDIA chips
    ptx       the PTX for NVIDIA chips; None for AMD chips
    stats     AMD: {"vgpr", "agpr", "sgpr", "vgpr_spill", "sgpr_spill",
              "scratch_bytes", "lds_bytes", "occupancy" (waves per SIMD),
              "max_workgroup_size", "wavefront_size", "store_form",
              "schedule" (LLVM's scheduling strategy kept: "default",
              "iterative-ilp", ...; ROCDSL_AMD_SCHEDULE)};
              NVIDIA: only "assumed" (ptxas runs in the driver, at load);
              "assumed": the launch facts compiled in ({"x": 16}: x
              16-byte aligned; {"N": 16}: N divisible by 16)
    hazards   wide-store hazard findings of the final code, one line each
              (always empty: code that shows one is never returned)
    rejected_hazards  findings of store forms the check rejected first
    """

    def __init__(self, name, artifacts, assumed=None):
        self.name = name
        self.chip = artifacts["chip"]
        self.mlir = artifacts["mlir"]
        self.lowered = artifacts["lowered"]
        self.llvm_ir = artifacts["llvm_ir"]
        self.asm = artifacts["asm"]
        amd = self.chip.startswith("gfx")
        self.hsaco = artifacts["binary"] if amd else None
        self.ptx = None if amd else self.asm
        self.hazards = list(artifacts["hazards"])
        self.rejected_hazards = list(artifacts["rejected_hazards"])
        self.kernel_stats = []
        for s in artifacts["stats"]:
            s = dict(s)
            s["occupancy"] = s.pop("waves_per_simd")
            s["store_form"] = artifacts["store_form"]
            s["schedule"] = artifacts.get("schedule", "") or "default"
            self.kernel_stats.append(s)
        self.stats = self.kernel_stats[0] if self.kernel_stats else {}
        # The launch facts compiled in ({parameter: 16}), on every target.
        self.stats["assumed"] = dict(assumed or {})

    def __repr__(self):
        return f"<rocdsl.Compiled {self.name} for {self.chip}>"
