//===- KernelResources.cpp - read kernel resources from a code object -----===//
//
// The AMDGPU code object carries its kernels' resource usage in a MessagePack
// note (NT_AMDGPU_METADATA, "amdhsa.kernels"): the same numbers the loader
// and the profilers use, so --stats reports what the hardware will see.
//
//===----------------------------------------------------------------------===//
#include "rocdsl/Target/AMDGPU.h"

#include "llvm/BinaryFormat/ELF.h"
#include "llvm/BinaryFormat/MsgPackDocument.h"
#include "llvm/Object/ELF.h"
#include "llvm/Object/ELFTypes.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace llvm;

namespace {

unsigned getUInt(msgpack::MapDocNode &map, StringRef key) {
  auto it = map.find(key);
  if (it == map.end())
    return 0;
  msgpack::DocNode &node = it->second;
  if (node.getKind() == msgpack::Type::UInt)
    return node.getUInt();
  if (node.getKind() == msgpack::Type::Int)
    return node.getInt();
  return 0;
}

/// Occupancy on CDNA3/CDNA4: 512 unified VGPRs (arch + acc) per lane per
/// SIMD allocated in granules of 8, at most 8 waves per SIMD, 4 SIMDs per CU
/// sharing the LDS (64 KiB on gfx942, 160 KiB on gfx950).
unsigned computeWavesPerSimd(const rocdsl::KernelResources &k, StringRef chip) {
  unsigned waves = 8;
  unsigned archVgprs = alignTo(std::max(k.vgprs, 1u), 4);
  unsigned total = alignTo(archVgprs + k.agprs, 8);
  waves = std::min(waves, 512 / total);
  if (k.ldsBytes > 0) {
    unsigned ldsPerCu = chip == "gfx950" ? 160 * 1024 : 64 * 1024;
    unsigned groupsPerCu = ldsPerCu / k.ldsBytes;
    unsigned wavesPerGroup =
        std::max(1u, divideCeil(k.maxFlatWorkgroupSize, k.wavefrontSize));
    // Spread over the CU's 4 SIMDs; a workgroup that fits still runs.
    unsigned perSimd = divideCeil(groupsPerCu * wavesPerGroup, 4);
    waves = groupsPerCu == 0 ? 0 : std::min(waves, std::max(1u, perSimd));
  }
  return waves;
}

} // namespace

FailureOr<std::vector<rocdsl::KernelResources>>
rocdsl::readKernelResources(StringRef codeObject, StringRef chip,
                            std::string &error) {
  auto elfOrErr = object::ELF64LEFile::create(codeObject);
  if (!elfOrErr) {
    error = "not an ELF code object: " + toString(elfOrErr.takeError());
    return failure();
  }
  auto sectionsOrErr = elfOrErr->sections();
  if (!sectionsOrErr) {
    error = toString(sectionsOrErr.takeError());
    return failure();
  }
  for (const auto &section : *sectionsOrErr) {
    if (section.sh_type != ELF::SHT_NOTE)
      continue;
    Error err = Error::success();
    for (const auto &note : elfOrErr->notes(section, err)) {
      if (note.getName() != "AMDGPU" ||
          note.getType() != ELF::NT_AMDGPU_METADATA)
        continue;
      ArrayRef<uint8_t> desc = note.getDesc(section.sh_addralign);
      msgpack::Document doc;
      if (!doc.readFromBlob(
              StringRef(reinterpret_cast<const char *>(desc.data()),
                        desc.size()),
              /*Multi=*/false)) {
        error = "unreadable AMDGPU metadata note";
        return failure();
      }
      auto &root = doc.getRoot().getMap();
      auto kernels = root.find("amdhsa.kernels");
      if (kernels == root.end() ||
          kernels->second.getKind() != msgpack::Type::Array) {
        error = "code object metadata lists no kernels";
        return failure();
      }
      std::vector<KernelResources> result;
      for (msgpack::DocNode &node : kernels->second.getArray()) {
        auto &map = node.getMap();
        KernelResources k;
        if (auto it = map.find(".name"); it != map.end())
          k.name = it->second.getString().str();
        k.vgprs = getUInt(map, ".vgpr_count");
        k.agprs = getUInt(map, ".agpr_count");
        k.sgprs = getUInt(map, ".sgpr_count");
        k.vgprSpills = getUInt(map, ".vgpr_spill_count");
        k.sgprSpills = getUInt(map, ".sgpr_spill_count");
        k.scratchBytes = getUInt(map, ".private_segment_fixed_size");
        k.ldsBytes = getUInt(map, ".group_segment_fixed_size");
        k.maxFlatWorkgroupSize = getUInt(map, ".max_flat_workgroup_size");
        k.wavefrontSize = std::max(1u, getUInt(map, ".wavefront_size"));
        if (auto it = map.find(".symbol"); it != map.end())
          k.symbol = it->second.getString().str();
        k.kernargSegmentSize = getUInt(map, ".kernarg_segment_size");
        if (auto it = map.find(".reqd_workgroup_size");
            it != map.end() && it->second.getKind() == msgpack::Type::Array) {
          auto &dims = it->second.getArray();
          for (unsigned d = 0; d < 3 && d < dims.size(); ++d)
            if (dims[d].getKind() == msgpack::Type::UInt)
              k.requiredWorkgroupSize[d] = dims[d].getUInt();
        }
        if (auto it = map.find(".args");
            it != map.end() && it->second.getKind() == msgpack::Type::Array) {
          for (msgpack::DocNode &argNode : it->second.getArray()) {
            auto &arg = argNode.getMap();
            KernelArgInfo info;
            if (auto n = arg.find(".name"); n != arg.end())
              info.name = n->second.getString().str();
            if (auto v = arg.find(".value_kind"); v != arg.end())
              info.valueKind = v->second.getString().str();
            info.offset = getUInt(arg, ".offset");
            info.size = getUInt(arg, ".size");
            k.args.push_back(std::move(info));
          }
        }
        k.wavesPerSimd = computeWavesPerSimd(k, chip);
        result.push_back(std::move(k));
      }
      return result;
    }
    if (err) {
      error = toString(std::move(err));
      return failure();
    }
  }
  error = "code object has no AMDGPU metadata note";
  return failure();
}
