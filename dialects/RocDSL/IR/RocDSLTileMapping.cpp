//===- RocDSLTileMapping.cpp - layout semantics ---------------------------===//
//
// Every layout's answer to "which register of which lane of which wave
// holds tile element (i, j)". The matrix-core layouts follow AMD's Matrix
// Instruction Calculator (CDNA3, `-d`) and gem5's Inst_VOP3P_MAI__V_MFMA;
// the formulas are stated at each layout.
//
//===----------------------------------------------------------------------===//
#include "rocdsl/Dialect/RocDSL/IR/RocDSL.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <cstdint>
#include <set>

using namespace mlir;
using namespace mlir::rocdsl;

//===----------------------------------------------------------------------===//
// DimMapping / TileMapping
//===----------------------------------------------------------------------===//

/// Entries a lane holds along one dimension, saturated at the largest
/// `unsigned`: a tile too large for any lane must stay too large for the
/// verifier's per-lane limit instead of wrapping to a small count.
static unsigned saturatedCount(int64_t count) {
  return unsigned(std::clamp<int64_t>(count, 0, UINT32_MAX));
}

static int64_t sumTerms(ArrayRef<MappingTerm> terms, int64_t x) {
  int64_t c = 0;
  for (const MappingTerm &t : terms)
    c += t.eval(x);
  return c;
}

int64_t DimMapping::regCoord(unsigned index) const {
  return sumTerms(reg, index);
}

int64_t DimMapping::laneCoord(unsigned laneId, unsigned waveId) const {
  return sumTerms(lane, laneId) + sumTerms(wave, waveId);
}

int64_t DimMapping::coord(unsigned index, unsigned laneId,
                          unsigned waveId) const {
  int64_t c = regCoord(index) + laneCoord(laneId, waveId);
  return wraps ? c % size : c;
}

std::optional<TileMapping> TileMapping::get(RankedTensorType type) {
  auto layout =
      dyn_cast_or_null<LayoutEncodingAttrInterface>(type.getEncoding());
  if (!layout || layout.getLayoutRank() != type.getRank())
    return std::nullopt;
  TileMapping m;
  for (unsigned d = 0; d < type.getRank(); ++d) {
    std::optional<DimMapping> dim =
        layout.getDimMapping(d, type.getDimSize(d));
    if (!dim)
      return std::nullopt;
    m.dims.push_back(std::move(*dim));
  }
  m.order = layout.getRegisterOrder();
  m.warpSize = layout.getLayoutWarpSize();
  m.numWarps = layout.getLayoutNumWarps();
  return m;
}

unsigned TileMapping::getNumRegisters() const {
  unsigned n = 1;
  for (const DimMapping &d : dims)
    n *= d.elems;
  return n;
}

SmallVector<unsigned> TileMapping::delinearize(unsigned reg) const {
  SmallVector<unsigned> index(getRank(), 0);
  for (unsigned d : order) {
    index[d] = reg % dims[d].elems;
    reg /= dims[d].elems;
  }
  return index;
}

unsigned TileMapping::linearize(ArrayRef<unsigned> index) const {
  unsigned reg = 0, stride = 1;
  for (unsigned d : order) {
    reg += index[d] * stride;
    stride *= dims[d].elems;
  }
  return reg;
}

SmallVector<int64_t> TileMapping::coordOf(unsigned reg, unsigned lane,
                                          unsigned wave) const {
  SmallVector<unsigned> index = delinearize(reg);
  SmallVector<int64_t> coord;
  for (unsigned d = 0; d < getRank(); ++d)
    coord.push_back(dims[d].coord(index[d], lane, wave));
  return coord;
}

SmallVector<TileOwner> TileMapping::ownersOf(ArrayRef<int64_t> coord) const {
  SmallVector<TileOwner> owners;
  for (unsigned wave = 0; wave < numWarps; ++wave)
    for (unsigned lane = 0; lane < warpSize; ++lane)
      for (unsigned reg = 0, e = getNumRegisters(); reg < e; ++reg)
        if (ArrayRef<int64_t>(coordOf(reg, lane, wave)) == coord)
          owners.push_back({reg, lane, wave});
  return owners;
}

std::optional<SmallVector<TileMapping::SoleHolder>>
TileMapping::soleHolders() const {
  // A lane (wave) bit only picks among copies of register `reg`'s element
  // when flipping it never changes the element, for any lane and wave.
  auto freeBits = [&](unsigned reg, unsigned count, bool lanes) {
    unsigned mask = 0;
    for (unsigned bit = 1; bit < count; bit <<= 1) {
      bool free = true;
      for (unsigned w = 0; w < numWarps && free; ++w)
        for (unsigned l = 0; l < warpSize && free; ++l) {
          unsigned l2 = lanes ? l ^ bit : l, w2 = lanes ? w : w ^ bit;
          free = l2 < warpSize && w2 < numWarps &&
                 coordOf(reg, l, w) == coordOf(reg, l2, w2);
        }
      if (free)
        mask |= bit;
    }
    return mask;
  };
  SmallVector<SoleHolder> holders;
  std::set<SmallVector<int64_t>> covered;
  for (unsigned reg = 0, e = getNumRegisters(); reg < e; ++reg) {
    SoleHolder h{false, freeBits(reg, warpSize, true),
                 freeBits(reg, numWarps, false)};
    std::set<SmallVector<int64_t>> mine;
    unsigned selected = 0, seen = 0;
    for (unsigned w = 0; w < numWarps; ++w)
      for (unsigned l = 0; l < warpSize; ++l) {
        if ((l & h.laneMask) || (w & h.waveMask))
          continue;
        SmallVector<int64_t> c = coordOf(reg, l, w);
        ++selected;
        seen += covered.count(c);
        mine.insert(std::move(c));
      }
    // Copies the bits did not separate: two selected holders of one
    // element.
    if (mine.size() != selected)
      return std::nullopt;
    if (seen == selected) { // an earlier register holds all of these
      h.skip = true;
    } else if (seen) {
      return std::nullopt;
    } else {
      covered.insert(mine.begin(), mine.end());
    }
    holders.push_back(h);
  }
  return holders;
}

unsigned TileMapping::contiguousAlong(unsigned d) const {
  if (order.empty() || order[0] != d)
    return 1;
  const DimMapping &dim = dims[d];
  // The widest power of two c such that every aligned group of c entries
  // holds c consecutive elements (after wrapping).
  unsigned best = 1;
  for (unsigned c = 2; c <= dim.elems && dim.elems % c == 0; c *= 2) {
    bool ok = true;
    for (unsigned e = 0; e < dim.elems && ok; ++e) {
      int64_t first = dim.regCoord(e - e % c);
      int64_t here = dim.regCoord(e);
      if (dim.wraps)
        ok = (first % dim.size) + e % c < dim.size &&
             here % dim.size == first % dim.size + e % c;
      else
        ok = here == first + e % c;
    }
    if (!ok)
      break;
    best = c;
  }
  return best;
}

//===----------------------------------------------------------------------===//
// blocked
//===----------------------------------------------------------------------===//

/// Lanes (or waves) are numbered along `order`, fastest first: the stride
/// between neighbours along dimension `dim`.
static unsigned strideAlong(ArrayRef<unsigned> counts, ArrayRef<unsigned> order,
                            unsigned dim) {
  unsigned stride = 1;
  for (unsigned p : order) {
    if (p == dim)
      break;
    stride *= counts[p];
  }
  return stride;
}

std::optional<DimMapping> BlockedAttr::getDimMapping(unsigned dim,
                                                     int64_t size) const {
  unsigned spt = getSizePerThread()[dim], tpw = getThreadsPerWarp()[dim],
           wpc = getWarpsPerCTA()[dim];
  int64_t cta = int64_t(spt) * tpw * wpc;
  // A tile holds whole repetitions of the layout or fits in one.
  if (size > cta && size % cta != 0)
    return std::nullopt;
  DimMapping m;
  m.size = size;
  m.elems = saturatedCount(std::max<int64_t>(1, size / cta) * spt);
  m.wraps = size < cta;
  m.reg = {{1, spt, 1}, {spt, 0, cta}};
  if (tpw > 1)
    m.lane = {{strideAlong(getThreadsPerWarp(), getOrder(), dim), tpw,
               int64_t(spt)}};
  if (wpc > 1)
    m.wave = {{strideAlong(getWarpsPerCTA(), getOrder(), dim), wpc,
               int64_t(spt) * tpw}};
  return m;
}

SmallVector<unsigned> BlockedAttr::getRegisterOrder() const {
  return SmallVector<unsigned>(getOrder());
}

//===----------------------------------------------------------------------===//
// slice
//===----------------------------------------------------------------------===//

/// The parent dimension that slice dimension `dim` is.
static unsigned parentDimOf(SliceAttr slice, unsigned dim) {
  return dim < slice.getDim() ? dim : dim + 1;
}

std::optional<DimMapping> SliceAttr::getDimMapping(unsigned dim,
                                                   int64_t size) const {
  // Lanes that differed only along the removed dimension now hold the same
  // element: the surviving dimensions keep the parent's terms.
  return cast<LayoutEncodingAttrInterface>(getParent())
      .getDimMapping(parentDimOf(*this, dim), size);
}

SmallVector<unsigned> SliceAttr::getRegisterOrder() const {
  SmallVector<unsigned> order;
  for (unsigned p :
       cast<LayoutEncodingAttrInterface>(getParent()).getRegisterOrder()) {
    if (p == getDim())
      continue;
    order.push_back(p < getDim() ? p : p - 1);
  }
  return order;
}

//===----------------------------------------------------------------------===//
// mfma (the accumulator D of v_mfma_f32_{M}x{N}x{K}, one block)
//===----------------------------------------------------------------------===//
//
// Per instruction tile, a lane holds R = M*N/64 f32 registers. D[i][j] is
// in register (i mod 4) + 4*floor(i / (4*MI)) of lane j + N*(floor(i/4) mod
// MI), MI = 64/N lane groups; inverted: i = r mod 4 + 4*MI*floor(r/4) +
// 4*floor(lane/N), j = lane mod N. Waves are numbered with N fastest:
// wave w covers instruction tiles (w / wn) mod wm along M, w mod wn along
// N; a tile larger than instr*waves repeats, the repetitions being the
// lane's further registers.

/// Wave w's index along matrix dimension `dim` (dimension 1 fastest).
static MappingTerm matrixWaveTerm(ArrayRef<unsigned> warps, unsigned dim,
                                  int64_t mul) {
  return {dim == 1 ? 1u : warps[1], warps[dim], mul};
}

/// M (dim 0) or N (dim 1) of a matrix-core tile: the instruction tile
/// (`instr` elements) repeated over the waves, whole repetitions or a
/// divisor of one (then lanes or waves hold copies; rocdsl.dot itself
/// needs multiples of the instruction). Lane and in-instruction register terms come
/// from the caller.
static std::optional<DimMapping>
matrixOuterDim(ArrayRef<unsigned> warpsPerCTA, unsigned dim, unsigned instr,
               int64_t size, unsigned perInstr,
               ArrayRef<MappingTerm> inInstrReg,
               ArrayRef<MappingTerm> laneTerms) {
  unsigned warps = warpsPerCTA[dim];
  int64_t cta = int64_t(instr) * warps;
  // Whole repetitions, or a divisor of one (a broadcast row of a bias, a
  // tile smaller than the waves cover): then coordinates wrap.
  if (size > cta ? size % cta != 0 : cta % size != 0)
    return std::nullopt;
  DimMapping m;
  m.size = size;
  m.elems = saturatedCount(std::max<int64_t>(1, size / cta) * perInstr);
  m.wraps = size < cta;
  m.reg.assign(inInstrReg.begin(), inInstrReg.end());
  m.reg.push_back({perInstr, 0, cta});
  m.lane.assign(laneTerms.begin(), laneTerms.end());
  if (warps > 1)
    m.wave = {matrixWaveTerm(warpsPerCTA, dim, instr)};
  return m;
}

std::optional<DimMapping> MfmaAttr::getDimMapping(unsigned dim,
                                                  int64_t size) const {
  unsigned M = getInstrShape()[0], N = getInstrShape()[1];
  unsigned lanesPerRow = N, rowGroups = 64 / N;
  if (dim == 1)
    return matrixOuterDim(getWarpsPerCTA(), 1, N, size, 1, {},
                          {{1, lanesPerRow, 1}});
  unsigned regs = M * N / 64;
  SmallVector<MappingTerm> reg = {{1, 4, 1}};
  if (regs > 4)
    reg.push_back({4, regs / 4, int64_t(4) * rowGroups});
  return matrixOuterDim(getWarpsPerCTA(), 0, M, size, regs, reg,
                        {{lanesPerRow, rowGroups, 4}});
}

SmallVector<unsigned> MfmaAttr::getRegisterOrder() const { return {0, 1}; }

//===----------------------------------------------------------------------===//
// mma (NVIDIA mma.sync.aligned.m16n8k16, f32 accumulators)
//===----------------------------------------------------------------------===//
//
// PTX ISA, "Matrix Fragments for mma.m16n8k16": with groupID = lane / 4
// and t = lane mod 4, accumulator ci is at row groupID + 8 floor(i / 2),
// column 2t + (i mod 2); A's ai at row groupID + 8 (floor(i / 2) mod 2),
// column (K) 2t + (i mod 2) + 8 floor(i / 4); B's bi at row (K) 2t +
// (i mod 2) + 8 floor(i / 2), column groupID. Per dimension: two rows per
// instruction (8 apart) and two columns (adjacent), K in two pairs 8 apart.

/// groupID (lane / 4) and 2t (t = lane mod 4).
static constexpr MappingTerm kMmaGroup{4, 8, 1}, kMmaPair{1, 4, 2};
/// K of one 16-wide block: two adjacent elements, twice, 8 apart.
static const MappingTerm kMmaK[] = {{1, 2, 1}, {2, 2, 8}};

std::optional<DimMapping> NvidiaMmaAttr::getDimMapping(unsigned dim,
                                                       int64_t size) const {
  ArrayRef<unsigned> instr = getInstrShape();
  if (dim == 0)
    return matrixOuterDim(getWarpsPerCTA(), 0, instr[0], size, 2, {{1, 2, 8}},
                          {kMmaGroup});
  return matrixOuterDim(getWarpsPerCTA(), 1, instr[1], size, 2, {{1, 2, 1}},
                        {kMmaPair});
}

SmallVector<unsigned> NvidiaMmaAttr::getRegisterOrder() const {
  return {1, 0};
}

//===----------------------------------------------------------------------===//
// dot_operand
//===----------------------------------------------------------------------===//
//
// MFMA parent: A[i][k] of v_mfma_{M}x{N}x{K} is in lane i + M*floor(k / KL),
// element k mod KL, KL = K*M/64 (B likewise with j for i). With kWidth =
// n*KL a lane holds kWidth consecutive k: k = kWidth*floor(lane/M) + (e mod
// kWidth) + G*kWidth*floor(e/kWidth), G = 64/M lane groups; the
// instruction for step t of a group reads elements [t*KL, (t+1)*KL), and
// since A and B agree on (lane, element) -> k, every product pairs the same
// k. Waves split the non-K dimension as the accumulator does and hold
// copies along the other. NVIDIA parent: the PTX fragments above.

unsigned DotOperandAttr::getInstrKPerLane() const {
  if (isa<NvidiaMmaAttr>(getParent()))
    return 2;
  ArrayRef<unsigned> instr = cast<MfmaAttr>(getParent()).getInstrShape();
  return instr[2] * instr[getOpIdx() == 0 ? 0 : 1] / 64;
}

std::optional<DimMapping> DotOperandAttr::getDimMapping(unsigned dim,
                                                        int64_t size) const {
  unsigned opIdx = getOpIdx();
  unsigned outerDim = opIdx == 0 ? 0 : 1; // M of A, N of B
  ArrayRef<unsigned> instr = getParentInstrShape();
  ArrayRef<unsigned> warps = getParentWarpsPerCTA();
  if (isa<NvidiaMmaAttr>(getParent())) {
    if (dim == outerDim)
      return opIdx == 0 ? matrixOuterDim(warps, 0, instr[0], size, 2,
                                         {{1, 2, 8}}, {kMmaGroup})
                        : matrixOuterDim(warps, 1, instr[1], size, 1, {},
                                         {kMmaGroup});
    if (size % instr[2] != 0)
      return std::nullopt;
    DimMapping m;
    m.size = size;
    m.elems = saturatedCount(size / instr[2] * 4);
    m.reg.assign(std::begin(kMmaK), std::end(kMmaK));
    m.reg.push_back({4, 0, int64_t(instr[2])});
    m.lane = {kMmaPair};
    return m;
  }
  unsigned rows = instr[outerDim];
  unsigned groups = 64 / rows;
  unsigned kWidth = getKWidth();
  if (kWidth % getInstrKPerLane() != 0)
    return std::nullopt;
  if (dim == outerDim)
    return matrixOuterDim(warps, outerDim, rows, size, 1, {}, {{1, rows, 1}});
  int64_t kBlock = int64_t(groups) * kWidth;
  if (size % kBlock != 0)
    return std::nullopt;
  DimMapping m;
  m.size = size;
  m.elems = saturatedCount(size / groups);
  m.reg = {{1, kWidth, 1}, {kWidth, 0, kBlock}};
  m.lane = {{rows, groups, int64_t(kWidth)}};
  return m;
}

SmallVector<unsigned> DotOperandAttr::getRegisterOrder() const {
  // K fastest: a lane's kWidth elements are consecutive registers.
  return getOpIdx() == 0 ? SmallVector<unsigned>{1, 0}
                         : SmallVector<unsigned>{0, 1};
}
