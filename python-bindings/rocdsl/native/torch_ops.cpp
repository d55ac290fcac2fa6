//===- torch_ops.cpp - rocdsl.torch's RMSNorm ops as native PyTorch ops ---===//
//
// The operators rocdsl.torch registers (rocdsl::rms_norm, ...), written
// against PyTorch's C++ API so that a call is one trip through the
// dispatcher: argument checks, output allocation, the stream query and the
// launches happen in C++, and the autograd node is a C++ node (a Python
// autograd.Function costs the engine a GIL round trip and tens of
// microseconds per backward).
//
// rocdsl/torch_native.py compiles this file on first use against the
// PyTorch it runs with (its headers and libraries) and librocdsl.so (the
// runtime the _rocdsl extension uses, so both share one launcher cache),
// and loads it with torch.ops.load_library. ROCDSL_TORCH_DEVICE_KIND
// ("cuda" or "hip") names ROCDSL's device for torch's "cuda" tensors.
//
//===----------------------------------------------------------------------===//
#include "rocdsl/API.h"

#include <ATen/core/Tensor.h>
#include <ATen/core/grad_mode.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/empty_like.h>
#include <ATen/ops/zeros.h>
#include <c10/core/impl/DeviceGuardImplInterface.h>
#include <c10/util/ArrayRef.h>
#include <c10/util/SmallVector.h>
#include <torch/csrc/autograd/custom_function.h>
#include <torch/library.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string_view>
#include <unordered_map>
#include <vector>

#ifndef ROCDSL_TORCH_DEVICE_KIND
#error "ROCDSL_TORCH_DEVICE_KIND must name ROCDSL's device kind (cuda, hip)"
#endif

namespace api = mlir::rocdsl::api;
using at::Tensor;
using torch::autograd::AutogradContext;
using torch::autograd::tensor_list;

namespace {

//===----------------------------------------------------------------------===//
// Argument checks (the messages of the Python path, as ValueError)
//===----------------------------------------------------------------------===//

bool dtypeOf(at::ScalarType type, api::DType &out, const char *&text) {
  switch (type) {
  case at::kFloat:
    out = api::DType::F32, text = "f32";
    return true;
  case at::kHalf:
    out = api::DType::F16, text = "f16";
    return true;
  case at::kBFloat16:
    out = api::DType::BF16, text = "bf16";
    return true;
  default:
    return false;
  }
}

/// "(4, 256)": a shape as Python prints tuple(t.shape).
std::string shapeText(const Tensor &t) {
  std::string out = "(";
  for (int64_t d = 0; d < t.dim(); ++d)
    out += (d ? ", " : "") + std::to_string(t.size(d));
  return out + (t.dim() == 1 ? ",)" : ")");
}

/// "torch.bfloat16": a dtype as Python prints it.
std::string dtypeText(at::ScalarType type) {
  switch (type) {
  case at::kFloat:
    return "torch.float32";
  case at::kHalf:
    return "torch.float16";
  case at::kBFloat16:
    return "torch.bfloat16";
  case at::kDouble:
    return "torch.float64";
  default:
    return std::string("torch.") + c10::toString(type);
  }
}

/// Every refusal goes through here, as a ValueError (the Python path's).
[[noreturn]] void refuse(const std::string &message) {
  TORCH_CHECK_VALUE(false, message);
  std::abort(); // not reached: the check throws
}

void checkTensor(const char *name, const Tensor &t) {
  if (!t.defined())
    refuse(std::string(name) + ": expected a tensor, got None");
  if (!t.is_cuda())
    refuse(std::string(name) +
           ": expected a GPU tensor (device type 'cuda', also on ROCm), got "
           "device " +
           t.device().str());
  api::DType dtype;
  const char *text;
  if (!dtypeOf(t.scalar_type(), dtype, text))
    refuse(std::string(name) + ": unsupported dtype " +
           dtypeText(t.scalar_type()) + " (float32, float16, bfloat16)");
  if (!t.is_contiguous())
    refuse(std::string(name) + ": must be contiguous (call .contiguous(); "
                               "ROCDSL does not copy silently)");
}

/// Checks `tensors` (named `names`; the first is the [.., N] activation,
/// the last the weight, those between are shaped like the first) and
/// returns (rows, N).
std::pair<int64_t, int64_t>
checkInputs(std::initializer_list<const char *> names,
            std::initializer_list<const Tensor *> tensors) {
  // Read in place: a call copies no tensor (no reference count traffic)
  // and allocates nothing unless it refuses.
  const char *const *name = names.begin();
  const Tensor *const *t = tensors.begin();
  const size_t count = tensors.size();
  for (size_t i = 0; i < count; ++i)
    checkTensor(name[i], *t[i]);
  const Tensor &x = *t[0];
  const Tensor &weight = *t[count - 1];
  for (size_t i = 1; i < count; ++i) {
    if (t[i]->device() != x.device())
      refuse(std::string(name[i]) + ": on " + t[i]->device().str() +
             ", but " + name[0] + " is on " + x.device().str() +
             " (all inputs on one device)");
    if (i + 1 < count && (t[i]->sizes() != x.sizes() ||
                          t[i]->scalar_type() != x.scalar_type()))
      refuse(std::string(name[i]) + ": expected " + shapeText(x) + " " +
             dtypeText(x.scalar_type()) + " like " + name[0] + ", got " +
             shapeText(*t[i]) + " " + dtypeText(t[i]->scalar_type()));
  }
  if (x.dim() < 1 || x.size(-1) == 0)
    refuse("x: expected a non-empty last dimension, got shape " +
           shapeText(x));
  int64_t n = x.size(-1);
  if (weight.dim() != 1 || weight.size(0) != n)
    refuse("weight: expected shape (" + std::to_string(n) + ",), got " +
           shapeText(weight));
  return {x.numel() / n, n};
}

//===----------------------------------------------------------------------===//
// Kernels per (op, shapes, dtypes, device), compiled on first use
//===----------------------------------------------------------------------===//

enum class Op { Forward, AddForward, Backward, AddBackward };

struct PlanKey {
  Op op;
  int64_t rows, cols;
  at::ScalarType dtype, wdtype;
  c10::DeviceIndex device;
  bool operator==(const PlanKey &o) const {
    return op == o.op && rows == o.rows && cols == o.cols &&
           dtype == o.dtype && wdtype == o.wdtype && device == o.device;
  }
};

struct PlanKeyHash {
  size_t operator()(const PlanKey &k) const {
    size_t h = std::hash<int64_t>()(k.rows) * 31 + std::hash<int64_t>()(k.cols);
    return ((h * 31 + size_t(k.op)) * 31 + size_t(k.dtype)) * 31 +
           size_t(k.wdtype) * 7 + size_t(k.device);
  }
};

/// One kernel of a plan and its last launch (read by _launch_records).
struct KernelSlot {
  std::unique_ptr<api::Kernel> kernel;
  std::atomic<uintptr_t> launcher{0};
  std::atomic<int> tier{-1}; // 0 miss, 1 memory, 2 disk
};

/// The kernels of one op (one, or two for a backward whose dw is reduced
/// over several programs) and what their launches need besides tensors.
struct Plan {
  PlanKey key;
  KernelSlot slots[2];
  int count = 0;
  api::DType dtype, wdtype;
  int64_t rows, cols;
  std::vector<int64_t> partial; // the backward's fp32 [G, N] dweight sums
  /// The backward in one launch (tree_dw), where there is one: taken for
  /// eager calls. Its dw_partial is [G + groups, N], its dw_count
  /// `treeCounts` long.
  KernelSlot tree;
  std::vector<int64_t> treePartial;
  int64_t treeCounts = 0;
  std::string device; // ROCDSL's name of the device
};

std::string deviceName(c10::DeviceIndex index) {
  std::string name = ROCDSL_TORCH_DEVICE_KIND;
  return index > 0 ? name + ":" + std::to_string(index) : name;
}

struct Plans {
  std::shared_mutex mutex;
  std::unordered_map<PlanKey, std::unique_ptr<Plan>, PlanKeyHash> byKey;
};

Plans &getPlans() {
  static Plans plans;
  return plans;
}

/// The most bytes (x, dy, dx and dresidual_out) an eager backward may
/// move and still be one tree_dw launch. Up to about here the one launch
/// costs the device no more than the two do (512x3000 f32, 17.6 MiB: 14.2
/// against 8.7 + 6.4 us on an H100) and saves the second launch's host
/// time; by 48 MiB (1024x8192: 35.8 against 25.3 + 6.5 us) the tree's
/// longer tail costs more than that launch, whose host time then hides
/// behind kernel 1 (docs/benchmarks.md).
constexpr int64_t kTreeMaxBytes = int64_t(32) << 20;

/// kTreeMaxBytes, or ROCDSL_TORCH_TREE_DW_BYTES where set (0: never the
/// one launch), read once: plans are made once per shape, so a later
/// change could not apply to the shapes already seen.
int64_t treeMaxBytes() {
  static const int64_t bytes = [] {
    const char *env = std::getenv("ROCDSL_TORCH_TREE_DW_BYTES");
    if (!env || !*env)
      return kTreeMaxBytes;
    char *end = nullptr;
    errno = 0;
    long long value = std::strtoll(env, &end, 10);
    TORCH_CHECK_VALUE(*env >= '0' && *env <= '9' && *end == '\0' &&
                          errno == 0,
                      "rocdsl: ROCDSL_TORCH_TREE_DW_BYTES must be a byte "
                      "count of 0 or more, not '",
                      env, "'");
    return int64_t(value);
  }();
  return bytes;
}

Plan &planFor(Op op, int64_t rows, int64_t cols, const Tensor &x,
              const Tensor &weight) {
  Plans &plans = getPlans();
  PlanKey key{op, rows, cols, x.scalar_type(), weight.scalar_type(),
              x.device().index()};
  {
    std::shared_lock<std::shared_mutex> lock(plans.mutex);
    auto it = plans.byKey.find(key);
    if (it != plans.byKey.end())
      return *it->second;
  }
  auto plan = std::make_unique<Plan>();
  plan->key = key;
  const char *dtype, *wdtype;
  dtypeOf(x.scalar_type(), plan->dtype, dtype);
  dtypeOf(weight.scalar_type(), plan->wdtype, wdtype);
  plan->rows = rows;
  plan->cols = cols;
  std::vector<std::string> defs = {
      "N=" + std::to_string(cols), "M=" + std::to_string(std::max<int64_t>(rows, 1)),
      std::string("dtype=") + dtype, std::string("wdtype=") + wdtype};
  static const char *const names[][2] = {
      {"rmsnorm_fwd", nullptr},
      {"rmsnorm_add_fwd", nullptr},
      {"rmsnorm_bwd", "rmsnorm_bwd_dw"},
      {"rmsnorm_add_bwd", "rmsnorm_bwd_dw"}};
  plan->device = deviceName(key.device);
  for (const char *name : names[int(op)]) {
    if (!name)
      continue;
    std::string error;
    auto kernel = api::Kernel::builtin(name, defs, plan->device, "", error);
    TORCH_CHECK_VALUE(kernel, "rocdsl: ", name, ": ", error);
    plan->slots[plan->count++].kernel = std::move(kernel);
  }
  if (plan->count == 2) {
    for (const api::ArgInfo &a : plan->slots[0].kernel->args())
      if (a.name == "dw_partial")
        plan->partial = a.shape;
    TORCH_CHECK(plan->partial.size() == 2,
                "rocdsl: the backward kernel has no [G, N] dw_partial");
    // Several programs: eager calls take the one-launch tree_dw kernel
    // where the rows fit registers (N <= 8192; otherwise there is none)
    // and the call is small enough that its host time, not its device
    // time, is what the caller waits for: the tree's tail costs the device
    // more than the second launch does (docs/benchmarks.md), which pays
    // only where that launch's host time is not hidden behind kernel 1.
    const int64_t movedBytes =
        rows * cols * x.element_size() * (op == Op::AddBackward ? 4 : 3);
    if (plan->partial[0] > 1 && movedBytes <= treeMaxBytes()) {
      std::vector<std::string> treeDefs = defs;
      treeDefs.push_back("tree_dw=1");
      std::string error;
      if (auto tree = api::Kernel::builtin(names[int(op)][0], treeDefs,
                                           plan->device, "", error)) {
        for (const api::ArgInfo &a : tree->args()) {
          if (a.name == "dw_partial")
            plan->treePartial = a.shape;
          if (a.name == "dw_count" && a.shape.size() == 1)
            plan->treeCounts = a.shape[0];
        }
        TORCH_CHECK(plan->treePartial.size() == 2 && plan->treeCounts > 0,
                    "rocdsl: the tree_dw kernel has no dw_partial or dw_count");
        plan->tree.kernel = std::move(tree);
      }
    }
    // One program (M up to a row tile): that program writes dw itself
    // (direct_dw), one launch instead of two. Rows too long for registers
    // (N > 8192) have no such kernel and keep both.
    if (plan->partial[0] == 1) {
      defs.push_back("direct_dw=1");
      std::string error;
      if (auto direct = api::Kernel::builtin(names[int(op)][0], defs,
                                             plan->device, "", error)) {
        plan->slots[0].kernel = std::move(direct);
        plan->slots[1].kernel.reset();
        plan->count = 1;
        plan->partial.clear();
      }
    }
  }
  std::unique_lock<std::shared_mutex> lock(plans.mutex);
  // Another thread may have planned the same key meanwhile: keep the first.
  auto inserted = plans.byKey.emplace(key, std::move(plan));
  return *inserted.first->second;
}

//===----------------------------------------------------------------------===//
// Launches
//===----------------------------------------------------------------------===//

api::Arg tensorArg(const Tensor &t, api::DType dtype, int64_t rows,
                   int64_t cols, bool matrix) {
  api::Arg a;
  a.kind = api::ArgKind::Tensor;
  a.dtype = dtype;
  a.data = t.data_ptr();
  a.rank = matrix ? 2 : 1;
  a.shape[0] = matrix ? rows : cols;
  a.strides[0] = matrix ? cols : 1;
  a.shape[1] = cols;
  a.strides[1] = 1;
  return a;
}

api::Arg intArg(int64_t v) {
  api::Arg a;
  a.kind = api::ArgKind::Int32;
  a.i32 = int32_t(v);
  return a;
}

api::Arg floatArg(double v) {
  api::Arg a;
  a.kind = api::ArgKind::Float32;
  a.f32 = float(v);
  return a;
}

/// The caller's current stream on `t`'s device (a CUstream, or a
/// hipStream_t on ROCm): where PyTorch's own kernels for this call go, and
/// what CUDA graph capture records.
void *currentStream(const Tensor &t) {
  const c10::impl::DeviceGuardImplInterface *impl =
      c10::impl::getDeviceGuardImpl(t.device().type());
  return impl->getStream(t.device()).native_handle();
}

/// Queues one kernel; its errors (bad eps, a failed launch, NaN found with
/// ROCDSL_CHECK_FINITE) are ValueErrors, as on the Python path.
void launch(KernelSlot &slot, c10::ArrayRef<api::Arg> args, void *stream) {
  std::string error;
  api::LaunchInfo info;
  bool ok = slot.kernel->launch(args.data(), args.size(), nullptr, stream,
                                /*wait=*/false, info, error);
  TORCH_CHECK_VALUE(ok, error);
  slot.launcher.store(info.launcher, std::memory_order_relaxed);
  int tier = std::string_view(info.tier) == "memory" ? 1
             : std::string_view(info.tier) == "disk" ? 2
                                                     : 0;
  slot.tier.store(tier, std::memory_order_relaxed);
}

/// Test support: [op, rows, cols, launcher, tier] for each kernel of each
/// plan on device `index`, from its last launch (tier 0 miss, 1 memory,
/// 2 disk, -1 never launched).
std::vector<int64_t> launchRecords(int64_t index) {
  Plans &plans = getPlans();
  std::shared_lock<std::shared_mutex> lock(plans.mutex);
  std::vector<int64_t> out;
  for (const auto &[key, plan] : plans.byKey) {
    if (key.device != index)
      continue;
    auto record = [&](const KernelSlot &slot) {
      out.insert(out.end(), {int64_t(key.op), key.rows, key.cols,
                             int64_t(slot.launcher.load()),
                             int64_t(slot.tier.load())});
    };
    for (int i = 0; i < plan->count; ++i)
      record(plan->slots[i]);
    if (plan->tree.kernel)
      record(plan->tree);
  }
  return out;
}

//===----------------------------------------------------------------------===//
// The operators' GPU implementations
//===----------------------------------------------------------------------===//

/// A fresh output shaped like `t` (contiguous, checked by checkInputs):
/// at::empty directly, since empty_like's memory-format handling and its
/// second dispatcher trip (empty_strided) cost every call host time.
Tensor emptyLike(const Tensor &t) {
  return at::empty(t.sizes(), t.options());
}

Tensor rmsNorm(const Tensor &x, const Tensor &weight, double eps) {
  auto [m, n] = checkInputs({"x", "weight"}, {&x, &weight});
  Plan &p = planFor(Op::Forward, m, n, x, weight);
  Tensor y = emptyLike(x);
  if (m)
    launch(p.slots[0],
           {tensorArg(x, p.dtype, m, n, true),
            tensorArg(weight, p.wdtype, m, n, false),
            tensorArg(y, p.dtype, m, n, true), intArg(m), floatArg(eps)},
           currentStream(x));
  return y;
}

std::tuple<Tensor, Tensor> fusedAddRmsNorm(const Tensor &x,
                                           const Tensor &residual,
                                           const Tensor &weight, double eps) {
  auto [m, n] =
      checkInputs({"x", "residual", "weight"}, {&x, &residual, &weight});
  Plan &p = planFor(Op::AddForward, m, n, x, weight);
  Tensor y = emptyLike(x), h = emptyLike(x);
  if (m)
    launch(p.slots[0],
           {tensorArg(x, p.dtype, m, n, true),
            tensorArg(residual, p.dtype, m, n, true),
            tensorArg(weight, p.wdtype, m, n, false),
            tensorArg(y, p.dtype, m, n, true),
            tensorArg(h, p.dtype, m, n, true), intArg(m), floatArg(eps)},
           currentStream(x));
  return {y, h};
}

/// Scratch the backward keeps per stream instead of allocating every eager
/// call (an allocation is a dispatcher trip, a few us of host time):
///   - the tree_dw kernel's dw_count, all zero between launches (each
///     launch leaves it so), and its dw_partial, whose rows each launch
///     writes before it reads them;
///   - the two-launch form's dw_partial, which kernel 1 writes and
///     rmsnorm_bwd_dw reads.
/// Launches on one stream run in order, so one set serves every call on a
/// stream; streams get their own, since theirs may run at once. The two
/// forms keep separate partial sums, and a two-launch call holds its
/// stream's pairMutex from its first launch to its second, so no other
/// call (another thread on the same stream) can write that buffer between
/// them. Kept only while the stream is not being captured into a graph (a
/// captured zero fill would run only at replay; graphs take their buffers
/// from the graph's own pool) and where capture can be queried. Scratch
/// cannot be freed while its stream might still run a launch that reads
/// it, so it stays for the process; a program that keeps making streams
/// would grow it without bound, so past kMaxScratchStreams streams new
/// ones keep nothing (two launches, fresh buffers). Partial sums are kept
/// up to kMaxKeptPartialBytes a stream and form (at most 2 GiB a process):
/// rows of up to 8192 columns on up to 512 programs (CUDA devices default
/// to 2 a multiprocessor; AMD kernels may take up to 1024). Larger calls
/// take a fresh buffer each time; their device time hides that
/// allocation.
constexpr size_t kMaxScratchStreams = 64;
constexpr int64_t kMaxKeptPartialBytes = int64_t(16) << 20;

struct StreamScratch {
  Tensor counts, treePartial; // guarded by KeptScratch::mutex
  std::mutex pairMutex;
  Tensor pairPartial; // guarded by pairMutex
};

struct KeptScratch {
  std::mutex mutex;
  struct Entry {
    c10::DeviceIndex device;
    void *stream;
    std::unique_ptr<StreamScratch> scratch;
  };
  std::vector<Entry> byStream;
};

KeptScratch &keptScratch() {
  static KeptScratch kept;
  return kept;
}

/// `stream`'s scratch, made on first use; null where none may be kept (see
/// above). The caller holds keptScratch().mutex.
StreamScratch *scratchForLocked(const Tensor &x, void *stream) {
  KeptScratch &kept = keptScratch();
  for (KeptScratch::Entry &each : kept.byStream)
    if (each.device == x.device().index() && each.stream == stream)
      return each.scratch.get();
  if (kept.byStream.size() >= kMaxScratchStreams)
    return nullptr;
  return kept.byStream
      .emplace_back(KeptScratch::Entry{x.device().index(), stream,
                                       std::make_unique<StreamScratch>()})
      .scratch.get();
}

bool mayKeepScratch(const Plan &p, void *stream) {
  bool capturing = true;
  std::string error;
  return api::streamIsCapturing(p.device, stream, capturing, error) &&
         !capturing;
}

bool keepsPartial(int64_t elements) {
  return elements * int64_t(sizeof(float)) <= kMaxKeptPartialBytes;
}

Tensor freshPartial(const Tensor &x, int64_t elements) {
  return at::empty({elements}, x.options().dtype(at::kFloat));
}

/// A kept partial-sums buffer of at least `elements`, grown (replaced) when
/// smaller; the caller holds the lock that guards `kept`.
const Tensor &keptPartial(Tensor &kept, const Tensor &x, int64_t elements) {
  if (!kept.defined() || kept.numel() < elements)
    kept = freshPartial(x, elements);
  return kept;
}

struct TreeScratch {
  Tensor counts, partial;
};

/// The tree_dw launch's counts and partial sums on `stream`; undefined
/// counts say to launch the two-kernel form instead.
TreeScratch treeScratch(const Plan &p, const Tensor &x, void *stream,
                        bool mayKeep) {
  if (!mayKeep)
    return {};
  const int64_t elements = p.treePartial[0] * p.treePartial[1];
  const bool keep = keepsPartial(elements);
  TreeScratch out;
  {
    KeptScratch &kept = keptScratch();
    std::lock_guard<std::mutex> lock(kept.mutex);
    StreamScratch *s = scratchForLocked(x, stream);
    if (!s)
      return {};
    if (!s->counts.defined() || s->counts.numel() < p.treeCounts)
      s->counts = at::zeros({std::max<int64_t>(p.treeCounts, 64)},
                            x.options().dtype(at::kInt));
    out.counts = s->counts;
    if (keep)
      out.partial = keptPartial(s->treePartial, x, elements);
  }
  // A partial buffer not kept is this call's alone: allocated unlocked.
  if (!keep)
    out.partial = freshPartial(x, elements);
  return out;
}

/// The two-launch form's partial sums on `stream`, and the lock to hold
/// until both kernels are queued when they are the stream's kept buffer.
struct PairScratch {
  Tensor partial;
  std::unique_lock<std::mutex> lock;
};

PairScratch pairScratch(const Plan &p, const Tensor &x, void *stream,
                        bool mayKeep) {
  const int64_t elements = p.partial[0] * p.partial[1];
  PairScratch out;
  if (mayKeep && keepsPartial(elements)) {
    StreamScratch *s;
    {
      KeptScratch &kept = keptScratch();
      std::lock_guard<std::mutex> lock(kept.mutex);
      s = scratchForLocked(x, stream);
    }
    if (s) {
      out.lock = std::unique_lock<std::mutex>(s->pairMutex);
      out.partial = keptPartial(s->pairPartial, x, elements);
      return out;
    }
  }
  out.partial = freshPartial(x, elements);
  return out;
}

/// dx (with dh added when fused) and dweight: kernel 1 writes dx and fp32
/// per-program column sums, kernel 2 reduces them and casts. A plan of one
/// kernel (one program) writes dw directly, and so does the tree_dw kernel
/// of an eager call. Partial sums and counts come from the stream's kept
/// scratch in eager calls, from PyTorch's caching allocator otherwise
/// (graph capture: the graph's pool), so concurrent calls on different
/// streams and graph replays never share them.
std::tuple<Tensor, Tensor> backward(Plan &p, const Tensor &x,
                                    const Tensor &weight, double eps,
                                    const Tensor &dy, const Tensor *dh) {
  Tensor dx = emptyLike(x);
  Tensor dw = emptyLike(weight);
  int64_t m = p.rows, n = p.cols;
  if (!m)
    return {dx, dw.zero_()};
  void *stream = currentStream(x);
  // At most ten arguments (the fused one launch): on the stack.
  c10::SmallVector<api::Arg, 10> args = {
      tensorArg(x, p.dtype, m, n, true),
      tensorArg(weight, p.wdtype, m, n, false),
      tensorArg(dy, p.dtype, m, n, true)};
  if (dh)
    args.push_back(tensorArg(*dh, p.dtype, m, n, true));
  args.push_back(tensorArg(dx, p.dtype, m, n, true));
  if (p.count == 1) {
    args.push_back(tensorArg(dw, p.wdtype, m, n, false));
    args.push_back(intArg(m));
    args.push_back(floatArg(eps));
    launch(p.slots[0], args, stream);
    return {dx, dw};
  }
  // One capture query a call, for whichever form runs.
  const bool mayKeep = mayKeepScratch(p, stream);
  if (p.tree.kernel) {
    if (TreeScratch scratch = treeScratch(p, x, stream, mayKeep);
        scratch.counts.defined()) {
      const Tensor &partial = scratch.partial, &counts = scratch.counts;
      args.push_back(tensorArg(dw, p.wdtype, m, n, false));
      args.push_back(
          tensorArg(partial, api::DType::F32, p.treePartial[0], n, true));
      args.push_back(tensorArg(counts, api::DType::I32, 1, p.treeCounts,
                               false));
      args.push_back(intArg(m));
      args.push_back(floatArg(eps));
      launch(p.tree, args, stream);
      return {dx, dw};
    }
  }
  PairScratch scratch = pairScratch(p, x, stream, mayKeep);
  int64_t g = p.partial[0];
  args.push_back(tensorArg(scratch.partial, api::DType::F32, g, n, true));
  args.push_back(intArg(m));
  args.push_back(floatArg(eps));
  launch(p.slots[0], args, stream);
  launch(p.slots[1],
         {tensorArg(scratch.partial, api::DType::F32, g, n, true),
          tensorArg(dw, p.wdtype, m, n, false), intArg(g)},
         stream);
  return {dx, dw};
}

std::tuple<Tensor, Tensor> rmsNormBackward(const Tensor &dy, const Tensor &x,
                                           const Tensor &weight, double eps) {
  auto [m, n] = checkInputs({"dy", "x", "weight"}, {&dy, &x, &weight});
  return backward(planFor(Op::Backward, m, n, x, weight), x, weight, eps, dy,
                  nullptr);
}

std::tuple<Tensor, Tensor> fusedAddRmsNormBackward(const Tensor &dy,
                                                   const Tensor &dh,
                                                   const Tensor &h,
                                                   const Tensor &weight,
                                                   double eps) {
  auto [m, n] = checkInputs({"dy", "dresidual_out", "h", "weight"},
                            {&dy, &dh, &h, &weight});
  return backward(planFor(Op::AddBackward, m, n, h, weight), h, weight, eps,
                  dy, &dh);
}

//===----------------------------------------------------------------------===//
// Autograd: C++ nodes whose backwards call the backward operators through
// the dispatcher (so torch.compile traces them as operators too)
//===----------------------------------------------------------------------===//

c10::TypedOperatorHandle<Tensor(const Tensor &, const Tensor &, double)>
forwardOp() {
  static auto op = c10::Dispatcher::singleton()
                       .findSchemaOrThrow("rocdsl::rms_norm", "")
                       .typed<Tensor(const Tensor &, const Tensor &, double)>();
  return op;
}

using Pair = std::tuple<Tensor, Tensor>;

c10::TypedOperatorHandle<Pair(const Tensor &, const Tensor &, const Tensor &,
                              double)>
backwardOp() {
  static auto op =
      c10::Dispatcher::singleton()
          .findSchemaOrThrow("rocdsl::rms_norm_backward", "")
          .typed<Pair(const Tensor &, const Tensor &, const Tensor &,
                      double)>();
  return op;
}

c10::TypedOperatorHandle<Pair(const Tensor &, const Tensor &, const Tensor &,
                              double)>
fusedForwardOp() {
  static auto op =
      c10::Dispatcher::singleton()
          .findSchemaOrThrow("rocdsl::fused_add_rms_norm", "")
          .typed<Pair(const Tensor &, const Tensor &, const Tensor &,
                      double)>();
  return op;
}

c10::TypedOperatorHandle<Pair(const Tensor &, const Tensor &, const Tensor &,
                              const Tensor &, double)>
fusedBackwardOp() {
  static auto op =
      c10::Dispatcher::singleton()
          .findSchemaOrThrow("rocdsl::fused_add_rms_norm_backward", "")
          .typed<Pair(const Tensor &, const Tensor &, const Tensor &,
                      const Tensor &, double)>();
  return op;
}

class RMSNormFunction : public torch::autograd::Function<RMSNormFunction> {
public:
  static Tensor forward(AutogradContext *ctx, const Tensor &x,
                        const Tensor &weight, double eps) {
    at::AutoDispatchBelowADInplaceOrView below;
    // save_for_backward keeps PyTorch's check that neither input was
    // modified in place before the backward runs.
    ctx->save_for_backward({x, weight});
    ctx->saved_data["eps"] = eps;
    return forwardOp().call(x, weight, eps);
  }

  static tensor_list backward(AutogradContext *ctx, tensor_list grads) {
    tensor_list saved = ctx->get_saved_variables();
    auto [dx, dw] = backwardOp().call(grads[0].contiguous(), saved[0],
                                      saved[1],
                                      ctx->saved_data["eps"].toDouble());
    return {dx, dw, Tensor()};
  }
};

class FusedAddRMSNormFunction
    : public torch::autograd::Function<FusedAddRMSNormFunction> {
public:
  static tensor_list forward(AutogradContext *ctx, const Tensor &x,
                             const Tensor &residual, const Tensor &weight,
                             double eps) {
    at::AutoDispatchBelowADInplaceOrView below;
    auto [y, h] = fusedForwardOp().call(x, residual, weight, eps);
    ctx->save_for_backward({h, weight});
    ctx->saved_data["eps"] = eps;
    return {y, h};
  }

  // Gradients PyTorch did not produce (an unused output) arrive as zeros:
  // the context materializes them.
  static tensor_list backward(AutogradContext *ctx, tensor_list grads) {
    tensor_list saved = ctx->get_saved_variables();
    auto [dx, dw] = fusedBackwardOp().call(
        grads[0].contiguous(), grads[1].contiguous(), saved[0], saved[1],
        ctx->saved_data["eps"].toDouble());
    // h = x + residual: both receive the same gradient (as with eager +).
    return {dx, dx, dw, Tensor()};
  }
};

bool needsGrad(std::initializer_list<const Tensor *> tensors) {
  if (!at::GradMode::is_enabled())
    return false;
  for (const Tensor *t : tensors)
    if (t->defined() && t->requires_grad())
      return true;
  return false;
}

// A call that records no gradient goes straight to the implementation, so
// inference pays for no autograd node.
Tensor rmsNormAutograd(const Tensor &x, const Tensor &weight, double eps) {
  if (!needsGrad({&x, &weight})) {
    at::AutoDispatchBelowADInplaceOrView below;
    return forwardOp().call(x, weight, eps);
  }
  return RMSNormFunction::apply(x, weight, eps);
}

std::tuple<Tensor, Tensor> fusedAddRmsNormAutograd(const Tensor &x,
                                                   const Tensor &residual,
                                                   const Tensor &weight,
                                                   double eps) {
  if (!needsGrad({&x, &residual, &weight})) {
    at::AutoDispatchBelowADInplaceOrView below;
    return fusedForwardOp().call(x, residual, weight, eps);
  }
  tensor_list out = FusedAddRMSNormFunction::apply(x, residual, weight, eps);
  return {out[0], out[1]};
}

// The backward operators have no derivative: the engine calls them with
// gradients off, and a double backward (create_graph=True) is refused
// rather than treated as constant.
void refuseDoubleBackward(const char *op,
                          std::initializer_list<const Tensor *> tensors) {
  TORCH_CHECK(!needsGrad(tensors), "rocdsl::", op,
              ": no derivative (double backward, create_graph=True, is not "
              "supported)");
}

std::tuple<Tensor, Tensor> rmsNormBackwardAutograd(const Tensor &dy,
                                                   const Tensor &x,
                                                   const Tensor &weight,
                                                   double eps) {
  refuseDoubleBackward("rms_norm_backward", {&dy, &x, &weight});
  at::AutoDispatchBelowADInplaceOrView below;
  return backwardOp().call(dy, x, weight, eps);
}

std::tuple<Tensor, Tensor>
fusedAddRmsNormBackwardAutograd(const Tensor &dy, const Tensor &dh,
                                const Tensor &h, const Tensor &weight,
                                double eps) {
  refuseDoubleBackward("fused_add_rms_norm_backward", {&dy, &dh, &h, &weight});
  at::AutoDispatchBelowADInplaceOrView below;
  return fusedBackwardOp().call(dy, dh, h, weight, eps);
}

//===----------------------------------------------------------------------===//
// Shapes for fake tensors (torch.compile, meta tensors)
//===----------------------------------------------------------------------===//

Tensor rmsNormMeta(const Tensor &x, const Tensor &, double) {
  return at::empty_like(x);
}

std::tuple<Tensor, Tensor> fusedAddRmsNormMeta(const Tensor &x, const Tensor &,
                                               const Tensor &, double) {
  return {at::empty_like(x), at::empty_like(x)};
}

std::tuple<Tensor, Tensor> rmsNormBackwardMeta(const Tensor &, const Tensor &x,
                                               const Tensor &weight, double) {
  return {at::empty_like(x), at::empty_like(weight)};
}

std::tuple<Tensor, Tensor>
fusedAddRmsNormBackwardMeta(const Tensor &, const Tensor &, const Tensor &h,
                            const Tensor &weight, double) {
  return {at::empty_like(h), at::empty_like(weight)};
}

} // namespace

// A fragment: rocdsl.torch's Python part defines more ops in the namespace
// (rocdsl::matmul).
TORCH_LIBRARY_FRAGMENT(rocdsl, m) {
  m.def("rms_norm(Tensor x, Tensor weight, float eps) -> Tensor");
  m.def("rms_norm_backward(Tensor dy, Tensor x, Tensor weight, float eps) "
        "-> (Tensor, Tensor)");
  m.def("fused_add_rms_norm(Tensor x, Tensor residual, Tensor weight, "
        "float eps) -> (Tensor, Tensor)");
  m.def("fused_add_rms_norm_backward(Tensor dy, Tensor dh, Tensor h, "
        "Tensor weight, float eps) -> (Tensor, Tensor)");
  m.def("_launch_records(int device) -> int[]", &launchRecords);
}

TORCH_LIBRARY_IMPL(rocdsl, CUDA, m) {
  m.impl("rms_norm", &rmsNorm);
  m.impl("rms_norm_backward", &rmsNormBackward);
  m.impl("fused_add_rms_norm", &fusedAddRmsNorm);
  m.impl("fused_add_rms_norm_backward", &fusedAddRmsNormBackward);
}

// CPU tensors reach the same checks, which name the argument that is not
// on the GPU.
TORCH_LIBRARY_IMPL(rocdsl, CPU, m) {
  m.impl("rms_norm", &rmsNorm);
  m.impl("rms_norm_backward", &rmsNormBackward);
  m.impl("fused_add_rms_norm", &fusedAddRmsNorm);
  m.impl("fused_add_rms_norm_backward", &fusedAddRmsNormBackward);
}

TORCH_LIBRARY_IMPL(rocdsl, Autograd, m) {
  m.impl("rms_norm", &rmsNormAutograd);
  m.impl("fused_add_rms_norm", &fusedAddRmsNormAutograd);
  m.impl("rms_norm_backward", &rmsNormBackwardAutograd);
  m.impl("fused_add_rms_norm_backward", &fusedAddRmsNormBackwardAutograd);
}

TORCH_LIBRARY_IMPL(rocdsl, Meta, m) {
  m.impl("rms_norm", &rmsNormMeta);
  m.impl("rms_norm_backward", &rmsNormBackwardMeta);
  m.impl("fused_add_rms_norm", &fusedAddRmsNormMeta);
  m.impl("fused_add_rms_norm_backward", &fusedAddRmsNormBackwardMeta);
}
