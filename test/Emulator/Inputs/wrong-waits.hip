// Kernels whose hand-written assembly waits too little (or does what the
// emulator refuses), for negative.test. The loads are inline assembly, so
// LLVM inserts no waits of its own around them.
#define __global__ __attribute__((global))
typedef unsigned long long u64;

static __attribute__((device)) unsigned tid() { return __builtin_amdgcn_workitem_id_x(); }

// Two loads in flight; vmcnt(1) retires only the older one, so reading the
// younger one's register is too early.
extern "C" __global__ void weak_vmcnt(const int *a, const int *b, int *out) {
  int r;
  asm volatile("global_load_dword v1, %1, off\n\t"
               "global_load_dword v2, %2, off\n\t"
               "s_waitcnt vmcnt(1)\n\t"
               "v_add_u32 %0, v1, v2\n\t"
               "s_waitcnt vmcnt(0)"
               : "=v"(r) : "v"(a + tid()), "v"(b + tid()) : "v1", "v2", "memory");
  out[tid()] = r;
}

// The same loads with a counted wait that is exactly enough: vmcnt(1)
// before using the older load, vmcnt(0) before the younger.
extern "C" __global__ void counted_vmcnt(const int *a, const int *b, int *out) {
  int r;
  asm volatile("global_load_dword v1, %1, off\n\t"
               "global_load_dword v2, %2, off\n\t"
               "s_waitcnt vmcnt(1)\n\t"
               "v_mov_b32 %0, v1\n\t"
               "s_waitcnt vmcnt(0)\n\t"
               "v_add_u32 %0, %0, v2"
               : "=&v"(r) : "v"(a + tid()), "v"(b + tid()) : "v1", "v2", "memory");
  out[tid()] = r;
}

// An LDS write still in flight at the barrier that publishes it.
extern "C" __global__ void lds_no_wait(int *out) {
  __attribute__((shared)) int buf[64];
  unsigned t = tid();
  asm volatile("ds_write_b32 %0, %1\n\t"
               "s_barrier\n\t"
               "s_waitcnt lgkmcnt(0)"
               :: "v"(t * 4), "v"(int(t)) : "memory");
  out[t] = buf[63 - t];
}

// An instruction the emulator does not implement.
extern "C" __global__ void unimplemented(int *out) {
  int r;
  asm volatile("v_sad_u8 %0, %1, %2, %3" : "=v"(r) : "v"(1), "v"(2), "v"(3));
  out[tid()] = r;
}

// A store far past the end of its buffer.
extern "C" __global__ void stray_store(int *out) { out[tid() + (1 << 24)] = 1; }

// Wave 0 leaves an LDS read in flight across a barrier; wave 1 then
// overwrites what it reads before the read completes (128 work-items).
extern "C" __global__ void lds_reuse_race(int *out) {
  __attribute__((shared)) int lds[128];
  volatile int *buf = lds; // the stores stay
  unsigned t = tid();
  buf[t] = int(t);
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_s_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
  int r;
  asm volatile("ds_read_b32 %0, %1\n\ts_barrier" : "=v"(r) : "v"(t * 4) : "memory");
  if (t >= 64)
    buf[t - 64] = -1;
  else
    asm volatile(".rept 200\n\ts_nop 0\n.endr" ::: "memory");
  asm volatile("s_waitcnt lgkmcnt(0)" ::: "memory");
  out[t] = r;
}
