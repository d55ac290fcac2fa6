//===- KernelResources.cpp - read kernel resources from a code object -----===//
//
// The AMDGPU code object carries its kernels' resource usage in a MessagePack
// note (NT_AMDGPU_METADATA, "amdhsa.kernels"): the same numbers the loader
// and the profilers use, so --stats reports what the hardware will see.
//
//===----------------------------------------------------------------------===//
#include "rocdsl/Target/AMDGPU.h"

#include "rocdsl/Support/ChipInfo.h"

#include "llvm/BinaryFormat/ELF.h"
#include "llvm/BinaryFormat/MsgPackDocument.h"
#include "llvm/BinaryFormat/MsgPackReader.h"
#include "llvm/Object/ELF.h"
#include "llvm/Object/ELFTypes.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace llvm;

namespace {

// Metadata comes from files anyone can write: every node's kind is checked
// before it is read as a map, array or string (reading a node as the wrong
// kind is undefined behaviour in LLVM's msgpack document).

/// Whether msgpack::Document::readFromBlob can read `blob` safely: one
/// well-formed object whose map keys are all strings. LLVM's document orders
/// map keys with a comparison that is unreachable for maps, arrays and
/// floats, so a blob with such a key is undefined behaviour there; AMDGPU
/// metadata only ever has string keys.
bool isReadableMetadata(StringRef blob) {
  msgpack::Reader reader(blob);
  struct Level {
    uint64_t remaining; // elements (map: keys and values) still to read
    bool isMap;
    bool nextIsKey;
  };
  SmallVector<Level, 8> stack;
  bool first = true;
  while (first || !stack.empty()) {
    first = false;
    msgpack::Object obj;
    Expected<bool> read = reader.read(obj);
    if (!read) {
      consumeError(read.takeError());
      return false;
    }
    if (!*read)
      return false; // ended inside an object
    if (!stack.empty()) {
      Level &top = stack.back();
      if (top.isMap && top.nextIsKey && obj.Kind != msgpack::Type::String)
        return false;
      if (top.isMap)
        top.nextIsKey = !top.nextIsKey;
      --top.remaining;
    }
    switch (obj.Kind) {
    case msgpack::Type::Map:
      if (obj.Length > blob.size())
        return false;
      stack.push_back({2 * uint64_t(obj.Length), true, true});
      break;
    case msgpack::Type::Array:
      if (obj.Length > blob.size())
        return false;
      stack.push_back({uint64_t(obj.Length), false, false});
      break;
    case msgpack::Type::Binary:
    case msgpack::Type::Extension:
      return false; // not supported by the document either
    default:
      break;
    }
    while (!stack.empty() && stack.back().remaining == 0)
      stack.pop_back();
  }
  return true;
}

msgpack::MapDocNode *asMap(msgpack::DocNode &node) {
  return node.getKind() == msgpack::Type::Map ? &node.getMap() : nullptr;
}

msgpack::ArrayDocNode *findArray(msgpack::MapDocNode &map, StringRef key) {
  auto it = map.find(key);
  if (it == map.end() || it->second.getKind() != msgpack::Type::Array)
    return nullptr;
  return &it->second.getArray();
}

std::string getString(msgpack::MapDocNode &map, StringRef key) {
  auto it = map.find(key);
  if (it == map.end() || it->second.getKind() != msgpack::Type::String)
    return "";
  return it->second.getString().str();
}

unsigned getUInt(msgpack::MapDocNode &map, StringRef key) {
  auto it = map.find(key);
  if (it == map.end())
    return 0;
  msgpack::DocNode &node = it->second;
  // Out-of-range values read as the largest unsigned: never as a small
  // number that would make a malformed kernel look launchable.
  if (node.getKind() == msgpack::Type::UInt)
    return unsigned(std::min<uint64_t>(node.getUInt(), UINT32_MAX));
  if (node.getKind() == msgpack::Type::Int)
    return node.getInt() < 0
               ? UINT32_MAX
               : unsigned(std::min<int64_t>(node.getInt(), UINT32_MAX));
  return 0;
}

/// Occupancy on CDNA3/CDNA4, from the chip table: the unified register
/// file (arch + acc VGPRs per lane per SIMD) allocated in granules of 8,
/// at most maxWavesPerSimd waves per SIMD, the CU's SIMDs sharing its LDS.
/// A chip outside the table (another compiler's code object for gfx90a,
/// say) is judged by the table's first AMD chip, whose CU has the same
/// shape.
const rocdsl::ChipInfo &occupancyChip(StringRef chip) {
  if (const rocdsl::ChipInfo *info = rocdsl::lookupChip(chip))
    if (info->isAMD())
      return *info;
  for (const rocdsl::ChipInfo &info : rocdsl::getChips())
    if (info.isAMD())
      return info;
  llvm_unreachable("the chip table has no AMD chip");
}

unsigned computeWavesPerSimd(const rocdsl::KernelResources &k, StringRef chip) {
  const rocdsl::ChipInfo &info = occupancyChip(chip);
  unsigned registerFile = info.vgprs + info.agprs;
  unsigned waves = info.maxWavesPerSimd;
  uint64_t archVgprs = alignTo(uint64_t(std::max(k.vgprs, 1u)), 4);
  uint64_t total = alignTo(archVgprs + k.agprs, 8);
  if (total > registerFile)
    return 0;
  waves = std::min<unsigned>(waves, unsigned(registerFile / total));
  if (k.ldsBytes > 0) {
    unsigned groupsPerCu = info.sharedMemoryBytes / k.ldsBytes;
    unsigned wavesPerGroup =
        std::max(1u, divideCeil(k.maxFlatWorkgroupSize, k.wavefrontSize));
    // Spread over the CU's SIMDs; a workgroup that fits still runs.
    uint64_t perSimd = divideCeil(uint64_t(groupsPerCu) * wavesPerGroup,
                                  info.simdsPerComputeUnit);
    waves = groupsPerCu == 0
                ? 0
                : unsigned(std::min<uint64_t>(waves, std::max<uint64_t>(1, perSimd)));
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
      StringRef blob(reinterpret_cast<const char *>(desc.data()), desc.size());
      if (!isReadableMetadata(blob) ||
          !doc.readFromBlob(blob, /*Multi=*/false)) {
        error = "unreadable AMDGPU metadata note";
        return failure();
      }
      msgpack::MapDocNode *root = asMap(doc.getRoot());
      msgpack::ArrayDocNode *kernels =
          root ? findArray(*root, "amdhsa.kernels") : nullptr;
      if (!kernels) {
        error = "code object metadata lists no kernels";
        return failure();
      }
      std::vector<KernelResources> result;
      for (msgpack::DocNode &node : *kernels) {
        msgpack::MapDocNode *kernelMap = asMap(node);
        if (!kernelMap) {
          error = "malformed AMDGPU metadata: a kernel entry is not a map";
          return failure();
        }
        auto &map = *kernelMap;
        KernelResources k;
        k.name = getString(map, ".name");
        k.vgprs = getUInt(map, ".vgpr_count");
        k.agprs = getUInt(map, ".agpr_count");
        k.sgprs = getUInt(map, ".sgpr_count");
        k.vgprSpills = getUInt(map, ".vgpr_spill_count");
        k.sgprSpills = getUInt(map, ".sgpr_spill_count");
        k.scratchBytes = getUInt(map, ".private_segment_fixed_size");
        k.ldsBytes = getUInt(map, ".group_segment_fixed_size");
        k.maxFlatWorkgroupSize = getUInt(map, ".max_flat_workgroup_size");
        k.wavefrontSize = std::max(1u, getUInt(map, ".wavefront_size"));
        k.symbol = getString(map, ".symbol");
        k.kernargSegmentSize = getUInt(map, ".kernarg_segment_size");
        if (msgpack::ArrayDocNode *dims =
                findArray(map, ".reqd_workgroup_size")) {
          for (unsigned d = 0; d < 3 && d < dims->size(); ++d)
            if ((*dims)[d].getKind() == msgpack::Type::UInt)
              k.requiredWorkgroupSize[d] = (*dims)[d].getUInt();
        }
        if (msgpack::ArrayDocNode *args = findArray(map, ".args")) {
          for (msgpack::DocNode &argNode : *args) {
            msgpack::MapDocNode *argMap = asMap(argNode);
            if (!argMap) {
              error = "malformed AMDGPU metadata: a kernel argument of " +
                      k.name + " is not a map";
              return failure();
            }
            auto &arg = *argMap;
            KernelArgInfo info;
            info.name = getString(arg, ".name");
            info.valueKind = getString(arg, ".value_kind");
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
