//===- AxisInfo.cpp - divisibility, contiguity and constancy of values ----===//
#include "rocdsl/Transforms/AxisInfo.h"

#include "rocdsl/Dialect/RocDSL/IR/RocDSL.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <numeric>

using namespace mlir;
using namespace mlir::rocdsl;

int64_t mlir::rocdsl::powerOfTwoDivisor(int64_t value) {
  if (value == 0)
    return AxisInfo::kMaxDivisibility;
  uint64_t v = value < 0 ? uint64_t(-(value + 1)) + 1 : uint64_t(value);
  return std::min<int64_t>(int64_t(v & (~v + 1)), AxisInfo::kMaxDivisibility);
}

AxisInfo AxisInfo::unknown(unsigned rank) {
  AxisInfo info;
  info.contiguity.assign(std::max(rank, 1u), 1);
  info.divisibility.assign(std::max(rank, 1u), 1);
  info.constancy.assign(std::max(rank, 1u), 1);
  return info;
}

AxisInfo AxisInfo::ofConstant(int64_t value, ArrayRef<int64_t> shape) {
  AxisInfo info = unknown(shape.size());
  int64_t divisor = powerOfTwoDivisor(value);
  for (unsigned d = 0; d < info.getRank(); ++d) {
    info.divisibility[d] = divisor;
    info.constancy[d] = shape.empty() ? 1 : shape[d];
  }
  return info;
}

static ArrayRef<int64_t> shapeOf(Value v) {
  if (auto tile = dyn_cast<RankedTensorType>(v.getType()))
    return tile.getShape();
  return {};
}

static int64_t gcd(int64_t a, int64_t b) { return std::gcd(a, b); }

/// Divisibility of every element along `d` (not only of run starts): the
/// run start's where runs have length 1, else 1 (start + i is divisible by
/// no more than i is).
static int64_t elementDivisibility(const AxisInfo &a, unsigned d) {
  return a.contiguity[d] > 1 ? 1 : a.divisibility[d];
}

namespace {

/// Rules for binary arith ops on values of equal shape.
AxisInfo addLike(const AxisInfo &l, const AxisInfo &r, bool subtract) {
  AxisInfo out = AxisInfo::unknown(l.getRank());
  for (unsigned d = 0; d < l.getRank(); ++d) {
    int64_t contig = gcd(l.contiguity[d], r.constancy[d]);
    if (!subtract) // c + iota steps by +1 too; c - iota steps by -1
      contig = std::max(contig, gcd(l.constancy[d], r.contiguity[d]));
    out.contiguity[d] = contig;
    out.divisibility[d] = gcd(l.divisibility[d], r.divisibility[d]);
    out.constancy[d] = gcd(l.constancy[d], r.constancy[d]);
  }
  return out;
}

AxisInfo mul(const AxisInfo &l, const AxisInfo &r) {
  AxisInfo out = AxisInfo::unknown(l.getRank());
  for (unsigned d = 0; d < l.getRank(); ++d) {
    out.divisibility[d] = std::min(
        elementDivisibility(l, d) * elementDivisibility(r, d),
        AxisInfo::kMaxDivisibility);
    out.constancy[d] = gcd(l.constancy[d], r.constancy[d]);
  }
  return out;
}

/// x < y and friends: equal over runs where the operands are, and over
/// aligned runs of k consecutive x against a y constant over them when k
/// divides both x's run starts and y (the threshold then falls between
/// runs, never inside one).
AxisInfo compare(arith::CmpIPredicate predicate, const AxisInfo &l,
                 const AxisInfo &r) {
  AxisInfo out = AxisInfo::unknown(l.getRank());
  using P = arith::CmpIPredicate;
  bool ordered = predicate != P::eq && predicate != P::ne;
  for (unsigned d = 0; d < l.getRank(); ++d) {
    int64_t constancy = gcd(l.constancy[d], r.constancy[d]);
    if (ordered) {
      auto threshold = [&](const AxisInfo &run, const AxisInfo &limit) {
        int64_t k = gcd(run.contiguity[d],
                        gcd(run.divisibility[d], limit.divisibility[d]));
        return gcd(k, limit.constancy[d]);
      };
      constancy = std::max({constancy, threshold(l, r), threshold(r, l)});
    }
    out.constancy[d] = constancy;
  }
  return out;
}

AxisInfo elementwiseConstancy(ArrayRef<AxisInfo> operands) {
  AxisInfo out = AxisInfo::unknown(operands[0].getRank());
  for (unsigned d = 0; d < out.getRank(); ++d) {
    int64_t c = operands[0].constancy[d];
    int64_t div = operands[0].divisibility[d];
    for (const AxisInfo &a : operands.drop_front()) {
      c = gcd(c, a.constancy[d]);
      div = gcd(div, a.divisibility[d]);
    }
    out.constancy[d] = c;
    out.divisibility[d] = div;
  }
  return out;
}

} // namespace

AxisInfoAnalysis::AxisInfoAnalysis(Operation *kernel) {
  // Arguments first, then every op in program order (the IR is SSA;
  // values a loop carries stay unknown). A loop's induction variable
  // steps from its lower bound by its step, so every value it takes is
  // divisible by what divides both (a K loop from 0 by BK keeps K offsets
  // aligned to BK).
  kernel->walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (auto func = dyn_cast<FuncOp>(op)) {
      for (auto [i, arg] : llvm::enumerate(func.getArguments())) {
        AxisInfo info = AxisInfo::unknown(1);
        if (auto d = func.getArgAttrOfType<IntegerAttr>(i, kDivisibilityAttr))
          info.divisibility[0] =
              powerOfTwoDivisor(std::max<int64_t>(d.getInt(), 1));
        infos[arg] = info;
      }
      return;
    }
    if (auto loop = dyn_cast<scf::ForOp>(op)) {
      AxisInfo info = AxisInfo::unknown(1);
      info.divisibility[0] =
          std::min(get(loop.getLowerBound()).divisibility[0],
                   get(loop.getStep()).divisibility[0]);
      infos[loop.getInductionVar()] = info;
    }
    for (auto [i, result] : llvm::enumerate(op->getResults()))
      infos[result] = compute(op, i);
  });
}

AxisInfo AxisInfoAnalysis::get(Value value) const {
  auto it = infos.find(value);
  if (it != infos.end())
    return it->second;
  return AxisInfo::unknown(std::max<size_t>(shapeOf(value).size(), 1));
}

int64_t AxisInfoAnalysis::getPointerAlignment(Value pointer) const {
  int64_t elementBytes = 1;
  if (auto ptr = dyn_cast<PtrType>(pointer.getType()))
    elementBytes = std::max(1u, ptr.getElementType().getIntOrFloatBitWidth() / 8);
  auto arg = dyn_cast<BlockArgument>(pointer);
  if (!arg)
    return elementBytes;
  auto func = dyn_cast<FuncOp>(arg.getOwner()->getParentOp());
  if (!func)
    return elementBytes;
  auto align =
      func.getArgAttrOfType<IntegerAttr>(arg.getArgNumber(), kAlignmentAttr);
  if (!align)
    return elementBytes;
  return std::max(elementBytes, powerOfTwoDivisor(align.getInt()));
}

AxisInfo AxisInfoAnalysis::compute(Operation *op, unsigned resultIndex) const {
  Value result = op->getResult(resultIndex);
  ArrayRef<int64_t> shape = shapeOf(result);
  unsigned rank = std::max<size_t>(shape.size(), 1);
  Type element = getElementTypeOrSelf(result.getType());
  if (!element.isIntOrIndex())
    return AxisInfo::unknown(rank);
  auto operand = [&](unsigned i) { return get(op->getOperand(i)); };

  APInt constant;
  if (matchPattern(result, m_ConstantInt(&constant)))
    return AxisInfo::ofConstant(constant.getSExtValue(), shape);

  return llvm::TypeSwitch<Operation *, AxisInfo>(op)
      .Case([&](IotaOp iota) {
        AxisInfo info = AxisInfo::unknown(1);
        info.contiguity[0] = shape[0];
        info.divisibility[0] = powerOfTwoDivisor(iota.getStart());
        return info;
      })
      .Case([&](SplatOp) {
        AxisInfo scalar = operand(0);
        AxisInfo info = AxisInfo::unknown(rank);
        for (unsigned d = 0; d < rank; ++d) {
          info.divisibility[d] = scalar.divisibility[0];
          info.constancy[d] = shape[d];
        }
        return info;
      })
      .Case([&](ExpandDimsOp expand) {
        AxisInfo src = operand(0);
        unsigned axis = expand.getAxis();
        int64_t every = AxisInfo::kMaxDivisibility;
        for (unsigned d = 0; d < src.getRank(); ++d)
          every = std::min(every, elementDivisibility(src, d));
        AxisInfo info = src;
        info.contiguity.insert(info.contiguity.begin() + axis, 1);
        info.divisibility.insert(info.divisibility.begin() + axis, every);
        info.constancy.insert(info.constancy.begin() + axis, 1);
        return info;
      })
      .Case([&](BroadcastOp) {
        AxisInfo src = operand(0);
        ArrayRef<int64_t> from = shapeOf(op->getOperand(0));
        AxisInfo info = src;
        for (unsigned d = 0; d < rank; ++d)
          if (from[d] == 1 && shape[d] != 1) {
            info.contiguity[d] = 1;
            info.constancy[d] = shape[d];
          }
        return info;
      })
      .Case([&](arith::AddIOp) { return addLike(operand(0), operand(1), false); })
      .Case([&](arith::SubIOp) { return addLike(operand(0), operand(1), true); })
      .Case([&](arith::MulIOp) { return mul(operand(0), operand(1)); })
      .Case([&](arith::CmpIOp cmp) {
        return compare(cmp.getPredicate(), operand(0), operand(1));
      })
      .Case<arith::AndIOp, arith::OrIOp, arith::XOrIOp>([&](Operation *) {
        AxisInfo out = elementwiseConstancy({operand(0), operand(1)});
        if (isa<arith::AndIOp>(op)) // a & m keeps a's multiples of m
          for (unsigned d = 0; d < rank; ++d)
            out.divisibility[d] =
                std::max(elementDivisibility(operand(0), d),
                         elementDivisibility(operand(1), d));
        return out;
      })
      .Case([&](arith::SelectOp) {
        // select(c, a, b): equal where all three are; c may be a scalar.
        AxisInfo c = operand(0);
        if (c.getRank() != rank)
          c = AxisInfo::ofConstant(0, shape);
        return elementwiseConstancy({c, operand(1), operand(2)});
      })
      .Case<arith::ExtSIOp, arith::ExtUIOp, arith::IndexCastOp>(
          [&](Operation *) { return operand(0); })
      .Case([&](arith::ShLIOp) {
        AxisInfo out = AxisInfo::unknown(rank);
        AxisInfo l = operand(0);
        APInt amount;
        if (matchPattern(op->getOperand(1), m_ConstantInt(&amount)) &&
            amount.getZExtValue() < 31)
          for (unsigned d = 0; d < rank; ++d) {
            out.divisibility[d] = std::min(
                elementDivisibility(l, d) << amount.getZExtValue(),
                AxisInfo::kMaxDivisibility);
            out.constancy[d] = l.constancy[d];
          }
        return out;
      })
      .Default([&](Operation *) { return AxisInfo::unknown(rank); });
}
