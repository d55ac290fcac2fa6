// The throughput ceiling of one warp-level MMA instruction on this GPU:
// mma.sync.aligned.m16n8k16 (bf16 or f16 operands, f32 accumulators), the
// instruction ROCDSL's non-warpgroup NVIDIA GEMM issues.
//
// Every warp runs `chains` independent accumulator chains, so the tensor
// pipe, not an instruction's latency, limits the rate; nothing else runs in
// the loop (no loads, no shared memory), so the figure is what a GEMM built
// on this instruction could reach at best. Operands are all ones, which
// makes each result exact: every accumulator element gains 16 per
// instruction, and each thread's sum is checked against that count.
//
// Built on the GPU machine by benchmarks/mma_sync_peak.py:
//   nvcc -O3 -arch=sm_90 -shared -Xcompiler -fPIC mma_sync_peak.cu
#include <cuda_runtime.h>

#include <cstdint>

namespace {

__device__ __forceinline__ void mmaBf16(float (&d)[4], const uint32_t (&a)[4],
                                        const uint32_t (&b)[2]) {
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
               "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
               "{%0, %1, %2, %3};"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]),
                 "r"(b[1]));
}

__device__ __forceinline__ void mmaF16(float (&d)[4], const uint32_t (&a)[4],
                                       const uint32_t (&b)[2]) {
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
               "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
               "{%0, %1, %2, %3};"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]),
                 "r"(b[1]));
}

template <bool F16, int Chains>
__global__ void mmaLoop(uint32_t onePair, int iters, float *sums) {
  // `onePair` (two 1.0 values) arrives at run time, so the compiler cannot
  // fold the products.
  const uint32_t a[4] = {onePair, onePair, onePair, onePair};
  const uint32_t b[2] = {onePair, onePair};
  float acc[Chains][4];
#pragma unroll
  for (int c = 0; c < Chains; ++c)
    acc[c][0] = acc[c][1] = acc[c][2] = acc[c][3] = 0.0f;
  for (int it = 0; it < iters; ++it) {
#pragma unroll
    for (int c = 0; c < Chains; ++c) {
      if constexpr (F16)
        mmaF16(acc[c], a, b);
      else
        mmaBf16(acc[c], a, b);
    }
  }
  float sum = 0.0f;
#pragma unroll
  for (int c = 0; c < Chains; ++c)
    sum += acc[c][0] + acc[c][1] + acc[c][2] + acc[c][3];
  sums[size_t(blockIdx.x) * blockDim.x + threadIdx.x] = sum;
}

using Kernel = void (*)(uint32_t, int, float *);

template <bool F16> Kernel pick(int chains) {
  switch (chains) {
  case 1:
    return mmaLoop<F16, 1>;
  case 2:
    return mmaLoop<F16, 2>;
  case 4:
    return mmaLoop<F16, 4>;
  case 8:
    return mmaLoop<F16, 8>;
  default:
    return nullptr;
  }
}

} // namespace

/// Times `repeats` launches of `blocksPerSM` x SMs blocks of `warpsPerBlock`
/// warps, each warp issuing `iters` x `chains` instructions. Writes the
/// fastest launch's milliseconds, the instructions a launch issued, and how
/// many threads' sums differ from the exact count. Returns 0, a CUDA error
/// code, or -1 for arguments it does not take.
extern "C" int rocdslMmaSyncPeak(int f16, int chains, int warpsPerBlock,
                                 int blocksPerSM, int iters, int repeats,
                                 double *bestMs, double *instructions,
                                 long long *mismatches) {
  Kernel kernel = f16 ? pick<true>(chains) : pick<false>(chains);
  // Each thread's sum: 4 x chains accumulator elements of 16 x iters each.
  // The check relies on it being exact in f32, so below 2^24.
  const double want = 64.0 * double(iters) * chains;
  if (!kernel || warpsPerBlock < 1 || warpsPerBlock > 32 || blocksPerSM < 1 ||
      iters < 1 || repeats < 1 || want >= double(1 << 24))
    return -1;
  int sms = 0;
  cudaError_t err =
      cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  if (err != cudaSuccess)
    return int(err);
  const int blocks = sms * blocksPerSM, threads = warpsPerBlock * 32;
  const size_t count = size_t(blocks) * threads;
  float *sums = nullptr;
  if ((err = cudaMalloc(&sums, count * sizeof(float))) != cudaSuccess)
    return int(err);
  // Poisoned, so a launch that did not run cannot pass the check.
  cudaMemset(sums, 0xff, count * sizeof(float));
  const uint32_t onePair = f16 ? 0x3c003c00u : 0x3f803f80u;
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  kernel<<<blocks, threads>>>(onePair, iters, sums); // warm-up
  float best = -1.0f;
  for (int r = 0; r < repeats && (err = cudaGetLastError()) == cudaSuccess;
       ++r) {
    cudaEventRecord(start);
    kernel<<<blocks, threads>>>(onePair, iters, sums);
    cudaEventRecord(stop);
    if ((err = cudaEventSynchronize(stop)) != cudaSuccess)
      break;
    float ms = 0.0f;
    cudaEventElapsedTime(&ms, start, stop);
    if (best < 0.0f || ms < best)
      best = ms;
  }
  long long bad = 0;
  if (err == cudaSuccess) {
    float *host = new float[count];
    err = cudaMemcpy(host, sums, count * sizeof(float), cudaMemcpyDeviceToHost);
    for (size_t i = 0; i < count; ++i)
      bad += host[i] != float(want);
    delete[] host;
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  cudaFree(sums);
  *bestMs = best;
  *instructions = double(blocks) * warpsPerBlock * double(iters) * chains;
  *mismatches = bad;
  return int(err);
}
