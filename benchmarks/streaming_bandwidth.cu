// Can cache hints move a streaming kernel past a plain one on this GPU?
//
// The RMSNorm forwards at 32768 x 8192 bf16 read and write each element
// once; whether any load or store form moves bytes faster than the plain
// 128-bit one bounds what those kernels can still gain. Each variant is a
// grid-stride kernel over 512 MiB tensors: `copy` (y = a, one read and one
// write) and `add2` (y = a + b, z = a: two of each, the fused add's mix).
//   L: 0 plain ld.global, 1 ld.global.nc.L1::no_allocate, 2 ld.global.cs,
//      3 ld.global.nc.L1::no_allocate.L2::256B
//   S: 0 plain st.global, 1 st.global.cs, 2 st.global.L1::no_allocate
//   U: 128-bit accesses a thread has in flight, G: 256-thread blocks a
//      multiprocessor
// Outputs are poisoned before each variant and compared in full after it
// (on the device) against the inputs, which are a hash of the index.
//
//   nvcc -O3 -arch=sm_90 -std=c++17 benchmarks/streaming_bandwidth.cu -o bw && ./bw
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cuda_runtime.h>
#include <vector>

#define CHECK_CUDA(x)                                                         \
  do {                                                                        \
    cudaError_t e = (x);                                                      \
    if (e != cudaSuccess) {                                                   \
      std::printf("CUDA error %s at line %d\n", cudaGetErrorString(e),        \
                  __LINE__);                                                  \
      std::exit(1);                                                           \
    }                                                                         \
  } while (0)

template <int L> __device__ __forceinline__ uint4 load(const uint4 *p) {
  uint4 v;
  if (L == 0)
    v = *p;
  else if (L == 1)
    asm volatile("ld.global.nc.L1::no_allocate.v4.u32 {%0,%1,%2,%3}, [%4];"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p));
  else if (L == 2)
    asm volatile("ld.global.cs.v4.u32 {%0,%1,%2,%3}, [%4];"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p));
  else
    asm volatile(
        "ld.global.nc.L1::no_allocate.L2::256B.v4.u32 {%0,%1,%2,%3}, [%4];"
        : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p));
  return v;
}

template <int S> __device__ __forceinline__ void store(uint4 *p, uint4 v) {
  if (S == 0)
    *p = v;
  else if (S == 1)
    asm volatile("st.global.cs.v4.u32 [%0], {%1,%2,%3,%4};" ::"l"(p),
                 "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w) : "memory");
  else
    asm volatile("st.global.L1::no_allocate.v4.u32 [%0], {%1,%2,%3,%4};" ::"l"(p),
                 "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w) : "memory");
}

__device__ __forceinline__ uint4 add(uint4 a, uint4 b) {
  return make_uint4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w);
}

template <int L, int S, int U>
__global__ void copyKernel(const uint4 *a, uint4 *y, size_t n) {
  size_t stride = (size_t)gridDim.x * blockDim.x * U;
  for (size_t i = (size_t)blockIdx.x * blockDim.x * U + threadIdx.x; i < n;
       i += stride) {
    uint4 v[U];
#pragma unroll
    for (int u = 0; u < U; u++) {
      size_t j = i + (size_t)u * blockDim.x;
      if (j < n)
        v[u] = load<L>(a + j);
    }
#pragma unroll
    for (int u = 0; u < U; u++) {
      size_t j = i + (size_t)u * blockDim.x;
      if (j < n)
        store<S>(y + j, v[u]);
    }
  }
}

template <int L, int S, int U>
__global__ void add2Kernel(const uint4 *a, const uint4 *b, uint4 *y, uint4 *z,
                           size_t n) {
  size_t stride = (size_t)gridDim.x * blockDim.x * U;
  for (size_t i = (size_t)blockIdx.x * blockDim.x * U + threadIdx.x; i < n;
       i += stride) {
    uint4 v[U], w[U];
#pragma unroll
    for (int u = 0; u < U; u++) {
      size_t j = i + (size_t)u * blockDim.x;
      if (j < n) {
        v[u] = load<L>(a + j);
        w[u] = load<L>(b + j);
      }
    }
#pragma unroll
    for (int u = 0; u < U; u++) {
      size_t j = i + (size_t)u * blockDim.x;
      if (j < n) {
        store<S>(y + j, add(v[u], w[u]));
        store<S>(z + j, v[u]);
      }
    }
  }
}

__device__ __forceinline__ bool same(uint4 a, uint4 b) {
  return a.x == b.x && a.y == b.y && a.z == b.z && a.w == b.w;
}

// Counts elements where y != a + b (when b is given, else y != a) or z != a.
__global__ void countMismatches(const uint4 *a, const uint4 *b, const uint4 *y,
                                const uint4 *z, size_t n,
                                unsigned long long *bad) {
  unsigned long long local = 0;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x) {
    local += !same(y[i], b ? add(a[i], b[i]) : a[i]);
    if (z)
      local += !same(z[i], a[i]);
  }
  if (local)
    atomicAdd(bad, local);
}

int main() {
  const size_t bytes = (size_t)32768 * 8192 * 2, n = bytes / 16;
  int sms;
  CHECK_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  cudaDeviceProp prop;
  CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
  std::printf("%s, %d SMs, tensors of %zu MiB\n", prop.name, sms, bytes >> 20);

  uint4 *a, *b, *y, *z;
  unsigned long long *bad;
  for (uint4 **p : {&a, &b, &y, &z})
    CHECK_CUDA(cudaMalloc(p, bytes));
  CHECK_CUDA(cudaMalloc(&bad, sizeof(*bad)));
  std::vector<uint32_t> host(bytes / 4);
  for (size_t i = 0; i < host.size(); i++)
    host[i] = (uint32_t)(i * 2654435761u);
  CHECK_CUDA(cudaMemcpy(a, host.data(), bytes, cudaMemcpyHostToDevice));
  for (size_t i = 0; i < host.size(); i++)
    host[i] = (uint32_t)(i * 40503u + 12345u);
  CHECK_CUDA(cudaMemcpy(b, host.data(), bytes, cudaMemcpyHostToDevice));

  cudaEvent_t start, stop;
  CHECK_CUDA(cudaEventCreate(&start));
  CHECK_CUDA(cudaEventCreate(&stop));
  int failures = 0;
  // Poisons the outputs, runs `launch` once and checks it, then times 15
  // runs and prints the best and the median.
  auto measure = [&](const char *name, int tensorsMoved, bool twoInputs,
                     auto launch) {
    CHECK_CUDA(cudaMemset(y, 0xff, bytes));
    CHECK_CUDA(cudaMemset(z, 0xff, bytes));
    CHECK_CUDA(cudaMemset(bad, 0, sizeof(*bad)));
    launch();
    countMismatches<<<sms * 8, 256>>>(a, twoInputs ? b : nullptr, y,
                                      twoInputs ? z : nullptr, n, bad);
    unsigned long long mismatches;
    CHECK_CUDA(cudaMemcpy(&mismatches, bad, sizeof(mismatches),
                          cudaMemcpyDeviceToHost));
    std::vector<float> ms;
    for (int r = 0; r < 15; r++) {
      CHECK_CUDA(cudaEventRecord(start));
      launch();
      CHECK_CUDA(cudaEventRecord(stop));
      CHECK_CUDA(cudaEventSynchronize(stop));
      float t;
      CHECK_CUDA(cudaEventElapsedTime(&t, start, stop));
      ms.push_back(t);
    }
    std::sort(ms.begin(), ms.end());
    double moved = (double)tensorsMoved * bytes;
    std::printf("%-22s best %7.1f us  median %7.1f us  %5.0f / %5.0f GB/s  %s\n",
                name, ms[0] * 1e3, ms[ms.size() / 2] * 1e3, moved / (ms[0] * 1e6),
                moved / (ms[ms.size() / 2] * 1e6),
                mismatches ? "MISMATCH" : "checked");
    failures += mismatches != 0;
  };

  measure("cudaMemcpy D2D", 2, false, [&] {
    CHECK_CUDA(cudaMemcpyAsync(y, a, bytes, cudaMemcpyDeviceToDevice));
  });
#define COPY(L, S, U, G)                                                      \
  measure("copy L" #L " S" #S " U" #U " G" #G, 2, false,                      \
          [&] { copyKernel<L, S, U><<<sms * G, 256>>>(a, y, n); });
#define ADD2(L, S, U, G)                                                      \
  measure("add2 L" #L " S" #S " U" #U " G" #G, 4, true,                       \
          [&] { add2Kernel<L, S, U><<<sms * G, 256>>>(a, b, y, z, n); });
  COPY(0, 0, 1, 8) COPY(0, 0, 4, 8) COPY(0, 0, 4, 16) COPY(1, 0, 4, 8)
  COPY(0, 1, 4, 8) COPY(1, 1, 4, 8) COPY(3, 1, 4, 8) COPY(1, 2, 4, 8)
  COPY(2, 1, 4, 8) COPY(1, 1, 2, 8) COPY(1, 1, 4, 4) COPY(1, 1, 8, 8)
  ADD2(0, 0, 1, 8) ADD2(0, 0, 2, 8) ADD2(0, 0, 4, 8) ADD2(1, 0, 2, 8)
  ADD2(0, 1, 2, 8) ADD2(1, 1, 2, 8) ADD2(3, 1, 2, 8) ADD2(1, 2, 2, 8)
  ADD2(1, 1, 4, 8) ADD2(1, 1, 2, 16) ADD2(1, 1, 1, 8)
  CHECK_CUDA(cudaDeviceSynchronize());
  std::printf("%s\n", failures ? "FAILED" : "all outputs checked");
  return failures ? 1 : 0;
}
