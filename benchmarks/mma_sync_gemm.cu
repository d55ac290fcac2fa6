// A hand-written GEMM on mma.sync.aligned.m16n8k16 (bf16 or f16 operands,
// f32 accumulators, C = A B with A M x K and B K x N row-major), in four
// ways of feeding shared memory, to find where a GEMM on this instruction
// stops on a Hopper GPU:
//
//   mode 0  no global loads in the K loop: every stage is filled once before
//           it, then the loop reads the same tiles with ldmatrix, products
//           and one barrier a step. The ceiling of the loop itself (the
//           result is not a product of A and B and is not checked);
//   mode 1  cp.async copies, STAGES deep, one barrier a step: the structure
//           ROCDSL's mma.sync GEMM has;
//   mode 2  TMA tile loads completing on mbarriers, no cluster;
//   mode 3  as mode 2 in clusters of two programs side by side in N that
//           share their A tile: each loads half of it and multicasts it into
//           both programs' shared memory, which cuts the L2 reads of a
//           256 x 128 tile from 384 to 256 rows a K step;
//   mode 4  as mode 2, with the loads issued by one more warp that does
//           nothing else (in modes 2 and 3 the first thread of the first
//           warp issues them between its own products);
//   mode 5  as mode 3, with the loads issued by that extra warp.
//
// Every mode uses the same shared-memory layout (128-byte rows, 16-byte
// chunks XOR-swizzled by row, TMA's SWIZZLE_128B), the same warp tiles
// (64 x 64, two ldmatrix.x4 per 16 x 16 operand pair) and the same epilogue,
// so the modes differ only in how the tiles arrive.
//
// Built on the GPU machine by benchmarks/mma_sync_gemm.py:
//   nvcc -O3 -arch=sm_90a -shared -Xcompiler -fPIC mma_sync_gemm.cu -lcuda
#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <utility>

namespace {

constexpr int kBN = 128, kBK = 64, kRowBytes = 128;

__device__ __forceinline__ uint32_t smemAddr(const void *p) {
  return uint32_t(__cvta_generic_to_shared(p));
}

// Byte offset of 16-byte chunk `chunk` of row `row` in a panel of 128-byte
// rows whose base is 1024-byte aligned: TMA's SWIZZLE_128B pattern, under
// which the eight rows an ldmatrix phase reads hit eight distinct chunks.
__device__ __forceinline__ uint32_t swizzled(int row, int chunk) {
  return uint32_t(row * kRowBytes + ((chunk ^ (row & 7)) << 4));
}

__device__ __forceinline__ void ldmatrixX4(uint32_t (&r)[4], uint32_t addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr));
}

__device__ __forceinline__ void ldmatrixX4Trans(uint32_t (&r)[4],
                                                uint32_t addr) {
  asm volatile(
      "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];"
      : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
      : "r"(addr));
}

template <bool F16>
__device__ __forceinline__ void mma(float (&d)[4], const uint32_t (&a)[4],
                                    uint32_t b0, uint32_t b1) {
  if constexpr (F16)
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
                 "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0),
                   "r"(b1));
  else
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
                 "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0),
                   "r"(b1));
}

__device__ __forceinline__ void cpAsync16(uint32_t dst, const void *src) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(dst),
               "l"(src));
}

__device__ __forceinline__ void mbarInit(uint32_t bar, uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar),
               "r"(count));
}

__device__ __forceinline__ void mbarExpectTx(uint32_t bar, uint32_t bytes) {
  asm volatile(
      "mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar),
      "r"(bytes)
      : "memory");
}

__device__ __forceinline__ void mbarWait(uint32_t bar, uint32_t parity) {
  uint32_t done = 0;
  do {
    asm volatile("{ .reg .pred p;\n"
                 "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
                 "selp.u32 %0, 1, 0, p; }"
                 : "=r"(done)
                 : "r"(bar), "r"(parity)
                 : "memory");
  } while (!done);
}

// Arrives on the barrier at the same offset in program `rank` of the
// cluster (this program's own when rank is its own). The arrival says the
// warp's reads of a stage are done; they are, since their results fed the
// products, so it needs no release beyond the default (CTA scope): a
// cluster-scope release is a memory fence each warp each step, which the
// profiler showed as 42-46% of the warps' stalls.
__device__ __forceinline__ void mbarArriveCluster(uint32_t bar,
                                                  uint32_t rank) {
  asm volatile("{ .reg .b32 remote;\n"
               "mapa.shared::cluster.u32 remote, %0, %1;\n"
               "mbarrier.arrive.shared::cluster.b64 _, [remote]; }" ::"r"(bar),
               "r"(rank)
               : "memory");
}

__device__ __forceinline__ void clusterSync() {
  asm volatile("barrier.cluster.arrive.release.aligned;\n"
               "barrier.cluster.wait.acquire.aligned;" ::
                   : "memory");
}

__device__ __forceinline__ uint32_t clusterRank() {
  uint32_t r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return r;
}

__device__ __forceinline__ void tmaLoad(uint32_t dst, const CUtensorMap *map,
                                        int x, int y, uint32_t bar) {
  asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::"
               "complete_tx::bytes [%0], [%1, {%3, %4}], [%2];" ::"r"(dst),
               "l"(map), "r"(bar), "r"(x), "r"(y)
               : "memory");
}

__device__ __forceinline__ void tmaLoadMulticast(uint32_t dst,
                                                 const CUtensorMap *map, int x,
                                                 int y, uint32_t bar,
                                                 uint16_t mask) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::"
      "bytes.multicast::cluster [%0], [%1, {%4, %5}], [%2], %3;" ::"r"(dst),
      "l"(map), "r"(bar), "h"(mask), "r"(x), "r"(y)
      : "memory");
}

template <int BM, int STAGES> struct Layout {
  static constexpr int warps = (BM / 64) * (kBN / 64);
  static constexpr int aBytes = BM * kRowBytes;  // BM rows of 64 elements
  static constexpr int bBytes = kBK * kRowBytes * 2; // two 64-column panels
  static constexpr int stageBytes = aBytes + bBytes;
  // Stages, then 2 x STAGES mbarriers, plus 1 KiB to align the base.
  static constexpr int smemBytes = STAGES * stageBytes + 2 * STAGES * 8 + 1024;
};

struct Args {
  const uint16_t *a, *b;
  uint16_t *c;
  int m, n, k, groupM;
};

// What each mode (see the file's comment) does: TMA loads on mbarriers,
// one warp more for the loads, programs in clusters of two. The kernel and
// the launch read these same functions.
constexpr int kModes = 6;
__host__ __device__ constexpr bool tmaLoads(int mode) { return mode >= 2; }
__host__ __device__ constexpr bool producerWarp(int mode) { return mode >= 4; }
__host__ __device__ constexpr int clusterSize(int mode) {
  return mode == 3 || mode == 5 ? 2 : 1;
}

template <bool F16, int BM, int STAGES, int MODE, bool AHEAD>
__global__ void __launch_bounds__(
    (Layout<BM, STAGES>::warps + producerWarp(MODE)) * 32, 1)
    gemm(const Args args, const __grid_constant__ CUtensorMap mapA,
         const __grid_constant__ CUtensorMap mapB) {
  using L = Layout<BM, STAGES>;
  constexpr int kCluster = clusterSize(MODE);
  extern __shared__ uint8_t rawSmem[];
  uint8_t *smem = reinterpret_cast<uint8_t *>(
      (reinterpret_cast<uintptr_t>(rawSmem) + 1023) & ~uintptr_t(1023));
  const uint32_t base = smemAddr(smem);
  const uint32_t fullBar = base + STAGES * L::stageBytes;
  const uint32_t emptyBar = fullBar + STAGES * 8;
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int wm = warp / (kBN / 64), wn = warp % (kBN / 64);

  // Program -> tile, grouped so that groupM row tiles share B panels in L2;
  // the programs of a cluster take neighbouring column tiles.
  const int tilesM = args.m / BM, pairsN = args.n / kBN / kCluster;
  const int cid = blockIdx.x / kCluster;
  const uint32_t rank = kCluster == 1 ? 0 : clusterRank();
  const int inGroup = args.groupM * pairsN, group = cid / inGroup;
  const int firstM = group * args.groupM;
  const int rowsInGroup = min(tilesM - firstM, args.groupM);
  const int tileM = firstM + (cid % inGroup) % rowsInGroup;
  const int tileN = ((cid % inGroup) / rowsInGroup) * kCluster + rank;
  const int m0 = tileM * BM, n0 = tileN * kBN;
  const int kTiles = args.k / kBK;

  auto stageA = [&](int s) { return base + s * L::stageBytes; };
  auto stageB = [&](int s) { return base + s * L::stageBytes + L::aBytes; };

  // cp.async copy of K tile `kt` into stage `s` by every thread.
  auto copyStage = [&](int s, int kt) {
    const int k0 = kt * kBK;
    for (int i = tid; i < BM * 8; i += L::warps * 32) {
      const int row = i >> 3, chunk = i & 7;
      cpAsync16(stageA(s) + swizzled(row, chunk),
                args.a + size_t(m0 + row) * args.k + k0 + chunk * 8);
    }
    for (int i = tid; i < kBK * 16; i += L::warps * 32) {
      const int panel = i / (kBK * 8), row = (i >> 3) % kBK, chunk = i & 7;
      cpAsync16(stageB(s) + panel * kBK * kRowBytes + swizzled(row, chunk),
                args.b + size_t(k0 + row) * args.n + n0 + panel * 64 +
                    chunk * 8);
    }
  };
  // TMA loads of K tile `kt` into stage `s`, issued by one thread. In a
  // cluster each program loads its half of the A tile into both programs.
  auto loadStage = [&](int s, int kt) {
    const int k0 = kt * kBK;
    const uint32_t bar = fullBar + s * 8;
    mbarExpectTx(bar, L::stageBytes);
    if constexpr (kCluster == 1) {
      tmaLoad(stageA(s), &mapA, k0, m0, bar);
    } else {
      constexpr int half = BM / 2;
      tmaLoadMulticast(stageA(s) + rank * half * kRowBytes, &mapA, k0,
                       m0 + int(rank) * half, bar, 0x3);
    }
    tmaLoad(stageB(s), &mapB, n0, k0, bar);
    tmaLoad(stageB(s) + kBK * kRowBytes, &mapB, n0 + 64, k0, bar);
  };

  if constexpr (tmaLoads(MODE)) {
    if (tid == 0) {
      for (int s = 0; s < STAGES; ++s) {
        mbarInit(fullBar + s * 8, 1);
        mbarInit(emptyBar + s * 8, L::warps * kCluster);
      }
      asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    if constexpr (kCluster > 1)
      clusterSync();
    else
      __syncthreads();
    if constexpr (producerWarp(MODE)) {
      // The extra warp refills each stage as soon as every consumer of it
      // (in both programs of a cluster) has let it go.
      if (warp == L::warps) {
        if (lane == 0)
          for (int kt = 0; kt < kTiles; ++kt) {
            if (kt >= STAGES)
              mbarWait(emptyBar + (kt % STAGES) * 8, (kt / STAGES - 1) & 1);
            loadStage(kt % STAGES, kt);
          }
        __syncwarp();
        if constexpr (kCluster > 1)
          clusterSync();
        return;
      }
    } else if (tid == 0) {
      for (int s = 0; s < STAGES && s < kTiles; ++s)
        loadStage(s, s);
    }
  } else {
    const int filled = MODE == 0 ? STAGES : STAGES - 1;
    for (int s = 0; s < filled; ++s) {
      if (s < kTiles)
        copyStage(s, s);
      asm volatile("cp.async.commit_group;");
    }
    if constexpr (MODE == 0) {
      asm volatile("cp.async.wait_group 0;" ::: "memory");
      __syncthreads();
    }
  }

  float acc[4][8][4];
#pragma unroll
  for (int i = 0; i < 4; ++i)
#pragma unroll
    for (int j = 0; j < 8; ++j)
#pragma unroll
      for (int e = 0; e < 4; ++e)
        acc[i][j][e] = 0.0f;

  for (int kt = 0; kt < kTiles; ++kt) {
    const int s = kt % STAGES;
    if constexpr (MODE == 0) {
      __syncthreads();
    } else if constexpr (MODE == 1) {
      asm volatile("cp.async.wait_group %0;" ::"n"(STAGES - 2) : "memory");
      __syncthreads();
      const int next = kt + STAGES - 1;
      if (next < kTiles)
        copyStage(next % STAGES, next);
      asm volatile("cp.async.commit_group;");
    } else {
      // The stage the previous step read is refilled once every consumer
      // of it (in both programs of a cluster) has let it go, one step
      // behind, so that the wait rarely stalls.
      if (!producerWarp(MODE) && tid == 0 && kt >= 1 &&
          kt - 1 + STAGES < kTiles) {
        const int done = kt - 1;
        mbarWait(emptyBar + (done % STAGES) * 8, (done / STAGES) & 1);
        loadStage(done % STAGES, done + STAGES);
      }
      __syncwarp();
      mbarWait(fullBar + s * 8, (kt / STAGES) & 1);
    }
    const uint32_t a = stageA(s), b = stageB(s) + wn * kBK * kRowBytes;
    // With AHEAD, the operands of slice kk + 1 are read before slice kk's
    // products are issued (two sets of fragments); without, each slice's
    // reads come right before its products.
    uint32_t fa[2][4][4], fb[2][4][4];
    auto readSlice = [&](int kk, uint32_t(&ta)[4][4], uint32_t(&tb)[4][4]) {
#pragma unroll
      for (int mi = 0; mi < 4; ++mi) {
        const int row = wm * 64 + mi * 16 + (lane & 15);
        ldmatrixX4(ta[mi], a + swizzled(row, kk * 2 + (lane >> 4)));
      }
#pragma unroll
      for (int nj = 0; nj < 4; ++nj) {
        const int row = kk * 16 + (lane & 7) + ((lane >> 3) & 1) * 8;
        ldmatrixX4Trans(tb[nj], b + swizzled(row, nj * 2 + (lane >> 4)));
      }
    };
    if (AHEAD)
      readSlice(0, fa[0], fb[0]);
#pragma unroll
    for (int kk = 0; kk < kBK / 16; ++kk) {
      if (!AHEAD)
        readSlice(kk, fa[kk & 1], fb[kk & 1]);
      else if (kk + 1 < kBK / 16)
        readSlice(kk + 1, fa[(kk + 1) & 1], fb[(kk + 1) & 1]);
#pragma unroll
      for (int mi = 0; mi < 4; ++mi)
#pragma unroll
        for (int nj = 0; nj < 4; ++nj) {
          mma<F16>(acc[mi][nj * 2], fa[kk & 1][mi], fb[kk & 1][nj][0],
                   fb[kk & 1][nj][1]);
          mma<F16>(acc[mi][nj * 2 + 1], fa[kk & 1][mi], fb[kk & 1][nj][2],
                   fb[kk & 1][nj][3]);
        }
    }
    if constexpr (tmaLoads(MODE)) {
      // This warp's reads of the stage are done (their results fed the
      // products): release it in every program that loads into it.
      __syncwarp();
      if (lane == 0)
        for (uint32_t r = 0; r < uint32_t(kCluster); ++r)
          mbarArriveCluster(emptyBar + s * 8, r);
    }
  }

  // Each thread's accumulators go straight to C, two elements a store.
#pragma unroll
  for (int mi = 0; mi < 4; ++mi)
#pragma unroll
    for (int ni = 0; ni < 8; ++ni)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int row = m0 + wm * 64 + mi * 16 + (lane >> 2) + h * 8;
        const int col = n0 + wn * 64 + ni * 8 + (lane & 3) * 2;
        const float x = acc[mi][ni][h * 2], y = acc[mi][ni][h * 2 + 1];
        uint32_t packed;
        if constexpr (F16)
          asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(packed) : "f"(y), "f"(x));
        else
          asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(packed) : "f"(y), "f"(x));
        *reinterpret_cast<uint32_t *>(args.c + size_t(row) * args.n + col) =
            packed;
      }
  if constexpr (kCluster > 1)
    // The other program may still arrive on this one's barriers.
    clusterSync();
}

using Kernel = void (*)(const Args, const CUtensorMap, const CUtensorMap);

// The kernel of `mode`, one instantiation per mode.
template <bool F16, int BM, int STAGES, bool AHEAD, int... Modes>
Kernel pickMode(int mode, std::integer_sequence<int, Modes...>) {
  constexpr Kernel kernels[] = {gemm<F16, BM, STAGES, Modes, AHEAD>...};
  return mode >= 0 && mode < int(sizeof...(Modes)) ? kernels[mode] : nullptr;
}

template <bool F16, int BM, int STAGES>
Kernel pickTile(int mode, bool ahead, int *smem) {
  *smem = Layout<BM, STAGES>::smemBytes;
  const auto modes = std::make_integer_sequence<int, kModes>();
  return ahead ? pickMode<F16, BM, STAGES, true>(mode, modes)
               : pickMode<F16, BM, STAGES, false>(mode, modes);
}

template <bool F16>
Kernel pick(int bm, int stages, int mode, bool ahead, int *smem) {
  if (bm == 256 && stages == 4)
    return pickTile<F16, 256, 4>(mode, ahead, smem);
  if (bm == 256 && stages == 3)
    return pickTile<F16, 256, 3>(mode, ahead, smem);
  if (bm == 128 && stages == 3)
    return pickTile<F16, 128, 3>(mode, ahead, smem);
  return nullptr;
}

// A 2-D tensor map of a row-major matrix (`rows` x `cols` 16-bit elements)
// read in boxes of boxRows x 64 with the 128-byte swizzle.
CUresult encode(CUtensorMap *map, bool f16, const void *ptr, int rows,
                int cols, int boxRows) {
  const cuuint64_t dims[2] = {cuuint64_t(cols), cuuint64_t(rows)};
  const cuuint64_t strides[1] = {cuuint64_t(cols) * 2};
  const cuuint32_t box[2] = {64, cuuint32_t(boxRows)};
  const cuuint32_t elementStrides[2] = {1, 1};
  return cuTensorMapEncodeTiled(
      map, f16 ? CU_TENSOR_MAP_DATA_TYPE_FLOAT16 : CU_TENSOR_MAP_DATA_TYPE_BFLOAT16,
      2, const_cast<void *>(ptr), dims, strides, box, elementStrides,
      CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
      CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
}

} // namespace

/// Runs C = A B (`m` x `k` times `k` x `n`, 16-bit row-major on the device)
/// `repeats` times after one warm-up launch and writes the fastest launch's
/// milliseconds. `bm` is 128 (4 warps) or 256 (8 warps), `stages` 3 or 4
/// (only 3 for 128),
/// `mode` as in the file's comment; `ahead` reads each 16-wide K slice's
/// operands while the previous slice's products run. Returns 0, a CUDA error code, or -1 for
/// shapes or options it does not take (m a multiple of bm, n of 128 -- of
/// 256 in modes 3 and 5 --, k of 64).
extern "C" int rocdslMmaSyncGemm(int f16, int bm, int stages, int mode,
                                 int ahead, int groupM, const void *a, const void *b,
                                 void *c, int m, int n, int k, int repeats,
                                 double *bestMs) {
  int smem = 0;
  Kernel kernel = f16 ? pick<true>(bm, stages, mode, ahead, &smem)
                      : pick<false>(bm, stages, mode, ahead, &smem);
  const int cluster = clusterSize(mode);
  if (!kernel || m % bm || n % (kBN * cluster) || k % kBK || k < kBK ||
      groupM < 1 || repeats < 1)
    return -1;
  CUtensorMap mapA{}, mapB{};
  if (tmaLoads(mode)) {
    if (encode(&mapA, f16, a, m, k, bm / cluster) != CUDA_SUCCESS ||
        encode(&mapB, f16, b, k, n, kBK) != CUDA_SUCCESS)
      return -1;
  }
  cudaError_t err = cudaFuncSetAttribute(
      kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
  if (err != cudaSuccess)
    return int(err);
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeClusterDimension;
  attr[0].val.clusterDim.x = cluster;
  attr[0].val.clusterDim.y = 1;
  attr[0].val.clusterDim.z = 1;
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3((m / bm) * (n / kBN));
  config.blockDim =
      dim3(((bm / 64) * (kBN / 64) + producerWarp(mode)) * 32);
  config.dynamicSmemBytes = smem;
  config.attrs = attr;
  config.numAttrs = 1;
  const Args args{static_cast<const uint16_t *>(a),
                  static_cast<const uint16_t *>(b), static_cast<uint16_t *>(c),
                  m, n, k, groupM};
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  err = cudaLaunchKernelEx(&config, kernel, args, mapA, mapB); // warm-up
  float best = -1.0f;
  for (int r = 0; r < repeats && err == cudaSuccess; ++r) {
    cudaEventRecord(start);
    err = cudaLaunchKernelEx(&config, kernel, args, mapA, mapB);
    cudaEventRecord(stop);
    if (err == cudaSuccess && (err = cudaEventSynchronize(stop)) == cudaSuccess) {
      float ms = 0.0f;
      cudaEventElapsedTime(&ms, start, stop);
      if (best < 0.0f || ms < best)
        best = ms;
    }
  }
  if (err == cudaSuccess)
    err = cudaDeviceSynchronize();
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  *bestMs = best;
  return int(err);
}
