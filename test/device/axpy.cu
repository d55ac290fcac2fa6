// A minimal kernel whose PTX exercises ROCDSL's CUDA device plumbing
// (module load from PTX, argument passing, launch, events, copies).
extern "C" __global__ void axpy(const float *x, const float *y, float *out,
                                float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = a * x[i] + y[i];
}
