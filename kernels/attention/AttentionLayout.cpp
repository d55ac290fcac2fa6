//===- AttentionLayout.cpp - where heads and sequences lie ----------------===//
//
// The three tensor layouts (Attention.h) reduce to one view for the
// kernels: a head of a sequence is rows of a 2-D view, `stride` elements
// apart, starting at some row and column. BHSD keeps each head's rows
// together ([B * H * S, D]); BSHD and the packed varlen layout interleave
// the heads in each row ([rows, H * D]), a head taking D columns.
//
//===----------------------------------------------------------------------===//
#include "Attention.h"

#include "common/MatrixTiles.h"

#include <algorithm>
#include <cstdlib>
#include <random>

using namespace mlir;
using namespace mlir::rocdsl;
using namespace mlir::rocdsl::dsl;

/// Entry `index` of the i32 vector `ptr` of `size` entries (0 past it).
static Scalar loadEntry(KernelBuilder &kb, const AttentionConfig &c, Ptr ptr,
                        Scalar index, int64_t size) {
  // A two-element tile whose second element is masked off, summed to the
  // first: a uniform scalar on every target.
  AccessOptions o;
  o.bounds = {kb.min(index + 1, kb.i32(size))};
  Layout layout = kb.defaultLayout({2}, DType::I32, c.waveSize);
  return kb.load(ptr, {index}, {2}, layout, o).sumAll();
}

Sequences mlir::rocdsl::getSequences(KernelBuilder &kb,
                                     const AttentionConfig &c, Scalar batch) {
  Sequences seq;
  if (!c.varlen()) {
    seq.qStart = batch * c.sq;
    seq.kStart = batch * c.sk;
    seq.qLength = kb.i32(c.sq);
    seq.kLength = kb.i32(c.sk);
  } else {
    // cu_seqlens as given, clamped so that whatever they hold, every row
    // read or written lies in the packed tensors (a longer sequence than
    // Sq or Sk is cut there: the grid covers that many rows).
    auto bounds = [&](StringRef name, int64_t total, int64_t longest,
                      Scalar &start, Scalar &length) {
      Ptr cu = kb.ptrArg(name);
      Scalar zero = kb.i32(0), rows = kb.i32(total);
      start =
          kb.min(kb.max(loadEntry(kb, c, cu, batch, c.batch + 1), zero), rows);
      Scalar end = kb.min(
          kb.max(loadEntry(kb, c, cu, batch + 1, c.batch + 1), start), rows);
      length = kb.min(end - start, kb.i32(longest));
    };
    bounds("cu_seqlens_q", c.tq, c.sq, seq.qStart, seq.qLength);
    bounds("cu_seqlens_k", c.tk, c.sk, seq.kStart, seq.kLength);
  }
  Scalar offset = kb.i32(0);
  if (c.bottomRight)
    offset = seq.kLength - seq.qLength;
  if (c.windowLeft >= 0)
    seq.lower = offset - c.windowLeft;
  if (c.rightBound() >= 0)
    seq.upper = offset + c.rightBound();
  return seq;
}

void mlir::rocdsl::withinSequence(KernelBuilder &kb, const AttentionConfig &c,
                                  Scalar row0, Scalar length,
                                  function_ref<void()> body) {
  if (c.varlen())
    kb.ifThenElse(kb.compare(Cmp::LT, row0, length), body);
  else
    body();
}

HeadRows mlir::rocdsl::getHeadRows(KernelBuilder &kb, const AttentionConfig &c,
                                   const Sequences &seq, Scalar batch,
                                   Scalar head, bool query, int64_t cols) {
  int64_t heads = query ? c.hq : c.hkv, extent = query ? c.sq : c.sk;
  HeadRows view;
  view.cols = cols;
  if (c.layout == AttentionLayout::BHSD) {
    view.first = (batch * heads + head) * extent;
    view.end = view.first + extent;
    view.column = kb.i32(0);
    view.stride = cols;
    return view;
  }
  view.first = query ? seq.qStart : seq.kStart;
  view.end = view.first + (query ? seq.qLength : seq.kLength);
  view.column = head * cols;
  view.stride = heads * cols;
  return view;
}

HeadRows mlir::rocdsl::boundedRows(KernelBuilder &kb, const HeadRows &view,
                                   Scalar hi) {
  HeadRows walked = view;
  walked.end = kb.min(view.end, view.first + hi);
  return walked;
}

HeadRows mlir::rocdsl::columnRange(const HeadRows &view, int64_t col,
                                   int64_t cols) {
  HeadRows range = view;
  range.column = view.column + col;
  range.cols = cols;
  return range;
}

Layout mlir::rocdsl::warpgroupOperandLayout(KernelBuilder &kb,
                                            ArrayRef<int64_t> shape,
                                            DType dtype) {
  SmallVector<unsigned> order;
  for (unsigned i = shape.size(); i-- > 0;)
    order.push_back(i);
  return kb.sharedLayout(shape, dtype, order, 32);
}

LdsTile mlir::rocdsl::allocWarpgroupTiles(KernelBuilder &kb,
                                          const AttentionConfig &c,
                                          unsigned count,
                                          ArrayRef<int64_t> shape) {
  return kb.localAllocBuffers(count, shape, c.dtype,
                              warpgroupOperandLayout(kb, shape, c.dtype));
}

void mlir::rocdsl::copyColumnBlocks(KernelBuilder &kb, const AttentionConfig &c,
                                    Ptr ptr, const HeadRows &view, Scalar row0,
                                    LdsTile blocks) {
  for (int64_t p = 0, n = blocks.getShape()[0]; p < n; ++p)
    copyHeadRows(kb, c, ptr,
                 columnRange(view, p * kWarpgroupBlock, kWarpgroupBlock), row0,
                 blocks.index(kb.i32(p)));
}

void mlir::rocdsl::storeColumnBlocks(KernelBuilder &kb,
                                     const AttentionConfig &c, Ptr ptr,
                                     const HeadRows &view, Scalar row0,
                                     LdsTile tiles,
                                     function_ref<Tile(Tile)> transform) {
  int64_t rows = tiles.getShape()[1];
  for (int64_t p = 0, n = tiles.getShape()[0]; p < n; ++p) {
    Tile block = loadHeadRows(
        kb, c, ptr, columnRange(view, p * kWarpgroupBlock, kWarpgroupBlock),
        row0, rows);
    tiles.index(kb.i32(p)).store(transform ? transform(block) : block);
  }
}

HeadRows mlir::rocdsl::getLseRows(KernelBuilder &kb, const AttentionConfig &c,
                                  const Sequences &seq, Scalar batch,
                                  Scalar head) {
  HeadRows view;
  view.first =
      c.varlen() ? head * c.tq + seq.qStart : (batch * c.hq + head) * c.sq;
  view.end = view.first + seq.qLength;
  view.column = kb.i32(0);
  view.stride = 1;
  return view;
}

namespace {
/// How `rows` rows of a head view are accessed: in the coalesced layout,
/// bounded by the view, as wide as the row allows.
struct RowAccess {
  Layout layout;
  AccessOptions options;
  SmallVector<Scalar> origin;
};
} // namespace

static RowAccess rowAccess(KernelBuilder &kb, const AttentionConfig &c,
                           const HeadRows &view, Scalar row0, int64_t rows,
                           DType dtype) {
  RowAccess a;
  a.layout = kb.defaultLayout({rows, view.cols}, dtype, c.waveSize);
  a.options.strides = {kb.i32(view.stride)};
  a.options.bounds = {view.end, view.column + view.cols};
  a.options.vec = accessWidth(view.cols, dtype, a.layout);
  a.origin = {view.first + row0, view.column};
  return a;
}

Tile mlir::rocdsl::loadRowStats(KernelBuilder &kb, Ptr ptr,
                                const HeadRows &view, Scalar row0,
                                int64_t count, Layout layout) {
  AccessOptions o;
  o.bounds = {view.end};
  return kb.load(ptr, {view.first + row0}, {count}, layout, o);
}

void mlir::rocdsl::storeRowStats(KernelBuilder &kb, Tile stats, Ptr ptr,
                                 const HeadRows &view, Scalar row0) {
  AccessOptions o;
  o.bounds = {view.end};
  kb.store(stats, ptr, {view.first + row0}, o);
}

Tile mlir::rocdsl::loadHeadRows(KernelBuilder &kb, const AttentionConfig &c,
                                Ptr ptr, const HeadRows &view, Scalar row0,
                                int64_t rows, std::optional<DType> dtype) {
  RowAccess a = rowAccess(kb, c, view, row0, rows, dtype.value_or(c.dtype));
  return kb.load(ptr, a.origin, {rows, view.cols}, a.layout, a.options);
}

void mlir::rocdsl::copyHeadRows(KernelBuilder &kb, const AttentionConfig &c,
                                Ptr ptr, const HeadRows &view, Scalar row0,
                                LdsTile dst) {
  RowAccess a = rowAccess(kb, c, view, row0, dst.getShape()[0], c.dtype);
  kb.asyncCopy(ptr, a.origin, a.layout, dst, a.options);
}

void mlir::rocdsl::storeHeadRows(KernelBuilder &kb, const AttentionConfig &c,
                                 Tile tile, Ptr ptr, const HeadRows &view,
                                 Scalar row0, std::optional<DType> dtype) {
  DType type = dtype.value_or(c.dtype);
  RowAccess a = rowAccess(kb, c, view, row0, tile.getShape()[0], type);
  kb.store(tile.to(type).convertTo(a.layout), ptr, a.origin, a.options);
}

std::vector<int64_t> mlir::rocdsl::attentionShape(const AttentionConfig &c,
                                                  bool query, int64_t cols) {
  int64_t heads = query ? c.hq : c.hkv;
  switch (c.layout) {
  case AttentionLayout::BHSD:
    return {c.batch, heads, query ? c.sq : c.sk, cols};
  case AttentionLayout::BSHD:
    return {c.batch, query ? c.sq : c.sk, heads, cols};
  case AttentionLayout::Varlen:
    return {query ? c.tq : c.tk, heads, cols};
  }
  return {};
}

std::vector<int64_t> mlir::rocdsl::attentionLseShape(const AttentionConfig &c) {
  if (c.varlen())
    return {c.hq, c.tq};
  return {c.batch, c.hq, c.sq};
}

void mlir::rocdsl::appendSequenceArgs(const AttentionConfig &c,
                                      std::vector<ArgSignature> &args) {
  if (!c.varlen())
    return;
  for (const char *name : {"cu_seqlens_q", "cu_seqlens_k"})
    args.push_back(
        attentionTensorArg(name, DType::I32, {c.batch + 1}, /*output=*/false));
}

void mlir::rocdsl::appendSequenceArgSpecs(const AttentionConfig &c,
                                          SmallVectorImpl<ArgSpec> &args) {
  if (c.varlen())
    for (const char *name : {"cu_seqlens_q", "cu_seqlens_k"})
      args.push_back(ArgSpec::ptr(name, DType::I32));
}

std::vector<double> mlir::rocdsl::raggedSequences(int64_t batch, int64_t total,
                                                  int64_t longest,
                                                  uint64_t seed) {
  // Random lengths in [0, longest], then rows moved from the longest
  // entries or to the shortest until they sum to `total` (which
  // configureAttention keeps within [0, batch * longest]).
  std::mt19937_64 rng(seed);
  std::vector<int64_t> lengths(static_cast<size_t>(batch));
  int64_t sum = 0;
  for (int64_t &n : lengths)
    sum += n = int64_t(rng() % uint64_t(longest + 1));
  while (sum != total) {
    auto it = sum > total ? std::max_element(lengths.begin(), lengths.end())
                          : std::min_element(lengths.begin(), lengths.end());
    int64_t move = std::min<int64_t>(std::abs(total - sum),
                                     sum > total ? *it : longest - *it);
    move = std::max<int64_t>(1, (move + 1) / 2);
    *it += sum > total ? -move : move;
    sum += sum > total ? -move : move;
  }
  std::vector<double> cu(1, 0.0);
  for (int64_t n : lengths)
    cu.push_back(cu.back() + double(n));
  return cu;
}
