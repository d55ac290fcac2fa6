//===- ChipInfo.cpp - the one table of target-chip facts ------------------===//
#include "rocdsl/Support/ChipInfo.h"

#include "llvm/ADT/STLExtras.h"

using namespace mlir::rocdsl;

llvm::ArrayRef<ChipInfo> mlir::rocdsl::getChips() {
  // CDNA3 (MI300X): 64 KiB LDS per CU in 32 banks; CDNA4 (MI355X): 160 KiB
  // in 64 banks (304 and 256 CUs). Hopper: 48 KiB of static shared memory per block.
  static const ChipInfo chips[] = {
      {"gfx942", ChipVendor::AMD, 64, 64 * 1024, 32, 304, ":sramecc+:xnack-",
       true},
      {"gfx950", ChipVendor::AMD, 64, 160 * 1024, 64, 256, ":sramecc+:xnack-",
       false},
      {"sm_90", ChipVendor::NVIDIA, 32, 48 * 1024, 32, 132, "", false},
      {"sm_90a", ChipVendor::NVIDIA, 32, 48 * 1024, 32, 132, "", false},
  };
  return chips;
}

const ChipInfo *mlir::rocdsl::lookupChip(llvm::StringRef name) {
  for (const ChipInfo &chip : getChips())
    if (chip.name == name)
      return &chip;
  return nullptr;
}

static std::string join(bool (*keep)(const ChipInfo &, ChipVendor),
                        ChipVendor vendor) {
  std::string out;
  for (const ChipInfo &chip : getChips())
    if (keep(chip, vendor))
      out += (out.empty() ? "" : ", ") + chip.name.str();
  return out;
}

std::string mlir::rocdsl::listChips() {
  return join([](const ChipInfo &, ChipVendor) { return true; },
              ChipVendor::AMD);
}

std::string mlir::rocdsl::listChips(ChipVendor vendor) {
  return join([](const ChipInfo &c, ChipVendor v) { return c.vendor == v; },
              vendor);
}
