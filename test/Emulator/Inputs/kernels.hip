// Kernels of the field written in HIP, compiled by clang-22 for gfx942 and
// gfx950 (-nogpuinc: the builtins stand in for the HIP headers), run on the
// emulator through the HIP API by run_hip_kernels.py and checked with NumPy.
#define __global__ __attribute__((global))
#define __shared__ __attribute__((shared))
typedef __attribute__((ext_vector_type(4))) float float4_t;
typedef __attribute__((ext_vector_type(16))) float float16_t;
typedef __attribute__((ext_vector_type(4))) short short4_t;
typedef __attribute__((ext_vector_type(4))) _Float16 half4_t;
typedef __attribute__((ext_vector_type(8))) __bf16 bf16x8_t;

static __attribute__((device)) unsigned tid() { return __builtin_amdgcn_workitem_id_x(); }
static __attribute__((device)) unsigned gid() {
  return __builtin_amdgcn_workgroup_id_x() * __builtin_amdgcn_workgroup_size_x() + tid();
}
static __attribute__((device)) void sync() {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_s_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}

extern "C" __global__ void saxpy(float a, const float *x, float *y, int n) {
  unsigned i = gid();
  if (i < unsigned(n)) y[i] = a * x[i] + y[i];
}

// Block sum through LDS, 256 work-items, a grid-stride loop.
extern "C" __global__ void block_sum(const float *x, float *out, int n) {
  __shared__ float buf[256];
  unsigned t = tid();
  float s = 0;
  for (int i = gid(); i < n; i += 256 * __builtin_amdgcn_grid_size_x() / 256)
    s += x[i];
  buf[t] = s;
  sync();
  for (unsigned w = 128; w > 0; w >>= 1) {
    if (t < w) buf[t] += buf[t + w];
    sync();
  }
  if (t == 0) out[__builtin_amdgcn_workgroup_id_x()] = buf[0];
}

// Wave reduction with ds_bpermute (what __shfl_xor compiles to) and a max.
extern "C" __global__ void wave_max(const float *x, float *out) {
  unsigned i = gid();
  float v = x[i];
  for (int m = 32; m > 0; m >>= 1) {
    int other = __builtin_amdgcn_ds_bpermute(int(((tid() & 63) ^ m) << 2),
                                             __builtin_bit_cast(int, v));
    v = __builtin_fmaxf(v, __builtin_bit_cast(float, other));
  }
  out[i] = v;
}

// Half and bfloat16 conversions, integer division, double math.
extern "C" __global__ void mixed(const _Float16 *h, const __bf16 *b,
                                 const int *num, const int *den, float *f,
                                 int *q, double *d, int n) {
  unsigned i = gid();
  if (i >= unsigned(n)) return;
  f[i] = float(h[i]) * 2.0f + float(b[i]);
  q[i] = num[i] / den[i] + num[i] % den[i];
  d[i] = __builtin_sqrt(double(num[i]) * double(num[i]) + 1.0) / 3.0;
}

// Float atomics to one address per workgroup, and an integer histogram.
extern "C" __global__ void atomics(const float *x, float *sum, unsigned *hist,
                                   int n) {
  unsigned i = gid();
  if (i >= unsigned(n)) return;
  __hip_atomic_fetch_add(sum, x[i], __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  unsigned bucket = unsigned(x[i] * 4.0f + 8.0f);
  bucket = bucket > 15 ? 15 : bucket;
  __hip_atomic_fetch_add(&hist[bucket], 1u, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
}

// One wave multiplies A (32x8 bf16, row-major) by B (8x32) with
// v_mfma_f32_32x32x8_bf16, operands placed as the CDNA3 ISA guide lays
// them out: lane l holds A[l % 32][4 (l / 32) + e] and B[4 (l / 32) + e][l % 32];
// D[8 (r / 4) + 4 (l / 32) + r % 4][l % 32] is register r of lane l.
extern "C" __global__ void mfma_32x32x8_bf16(const unsigned short *a,
                                             const unsigned short *b, float *d) {
  unsigned l = tid();
  short4_t va, vb;
  for (int e = 0; e < 4; ++e) {
    va[e] = short(a[(l % 32) * 8 + 4 * (l / 32) + e]);
    vb[e] = short(b[(4 * (l / 32) + e) * 32 + l % 32]);
  }
  float16_t acc = {};
  acc = __builtin_amdgcn_mfma_f32_32x32x8bf16_1k(va, vb, acc, 0, 0, 0);
  for (int r = 0; r < 16; ++r)
    d[(8 * (r / 4) + 4 * (l / 32) + r % 4) * 32 + l % 32] = acc[r];
}

// v_mfma_f32_16x16x16_f16: lane l holds A[l % 16][4 (l / 16) + e] and
// B[4 (l / 16) + e][l % 16]; D[4 (l / 16) + r][l % 16] is register r. C is
// read from `c` in the same layout.
extern "C" __global__ void mfma_16x16x16_f16(const _Float16 *a,
                                             const _Float16 *b, const float *c,
                                             float *d) {
  unsigned l = tid();
  half4_t va, vb;
  for (int e = 0; e < 4; ++e) {
    va[e] = a[(l % 16) * 16 + 4 * (l / 16) + e];
    vb[e] = b[(4 * (l / 16) + e) * 16 + l % 16];
  }
  float4_t acc;
  for (int r = 0; r < 4; ++r)
    acc[r] = c[(4 * (l / 16) + r) * 16 + l % 16];
  acc = __builtin_amdgcn_mfma_f32_16x16x16f16(va, vb, acc, 0, 0, 0);
  for (int r = 0; r < 4; ++r)
    d[(4 * (l / 16) + r) * 16 + l % 16] = acc[r];
}

#ifdef GFX950
// gfx950's v_mfma_f32_16x16x32_bf16: 8 elements per lane, lane l holds
// A[l % 16][8 (l / 16) + e]; D as for 16x16x16.
extern "C" __global__ void mfma_16x16x32_bf16(const __bf16 *a, const __bf16 *b,
                                              float *d) {
  unsigned l = tid();
  bf16x8_t va, vb;
  for (int e = 0; e < 8; ++e) {
    va[e] = a[(l % 16) * 32 + 8 * (l / 16) + e];
    vb[e] = b[(8 * (l / 16) + e) * 16 + l % 16];
  }
  float4_t acc = {};
  acc = __builtin_amdgcn_mfma_f32_16x16x32_bf16(va, vb, acc, 0, 0, 0);
  for (int r = 0; r < 4; ++r)
    d[(4 * (l / 16) + r) * 16 + l % 16] = acc[r];
}
#endif

// A dynamically indexed private array: scratch memory (scratch_store/load
// with architected flat scratch on gfx942 and gfx950).
extern "C" __global__ void private_array(const int *idx, float *out) {
  float a[64];
  unsigned t = gid();
  for (int i = 0; i < 64; ++i)
    a[i] = float(i) * float(t) + 0.5f;
  int j = idx[t];
  out[t] = a[j & 63] - a[(j + 7) & 63];
}
