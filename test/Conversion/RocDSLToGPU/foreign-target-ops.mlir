// RUN: not rocdsl-opt %s -split-input-file --convert-rocdsl-to-gpu="chip=sm_90" 2>&1 | FileCheck %s --check-prefix=NVIDIA
// RUN: not rocdsl-opt %s -split-input-file --convert-rocdsl-to-gpu="chip=gfx942" 2>&1 | FileCheck %s --check-prefix=AMD
// RUN: not rocdsl-opt %s -split-input-file --convert-rocdsl-to-host 2>&1 | FileCheck %s --check-prefix=HOST
// RUN: not rocdsl-compile %s --chip sm_90 --emit ptx -o /dev/null 2>&1 | FileCheck %s --check-prefix=COMPILE

// Target operations written into a kernel by hand must be the chip's own:
// the other vendor's backend cannot select them (it used to abort with
// "LLVM ERROR: Cannot select"), and the host has neither. Each is one
// clear error at the operation; the chip's own operations still lower.

// (Diagnostics and the surviving chunk's IR may come in either order.)
// NVIDIA-DAG: error: 'rocdl.sched.barrier' is an AMDGPU operation; it cannot be compiled for sm_90
// NVIDIA-DAG: nvvm.barrier0

// AMD-DAG:    rocdl.sched.barrier 0
// AMD-DAG:    error: 'nvvm.barrier0' is an NVIDIA operation; it cannot be compiled for gfx942

// HOST: error: 'rocdl.sched.barrier' is a GPU operation; the host target cannot run it
// HOST: error: 'nvvm.barrier0' is a GPU operation; the host target cannot run it

// COMPILE-NOT: LLVM ERROR
// COMPILE:     error: 'rocdl.sched.barrier' is an AMDGPU operation; it cannot be compiled for sm_90
// COMPILE:     rocdsl-compile: error: lowering to NVVM failed

rocdsl.func @amd_op_on_nvidia(%p: !rocdsl.ptr<f32>) attributes {num_warps = 1 : i32} {
  rocdl.sched.barrier 0
  rocdsl.return
}

// -----

rocdsl.func @nvidia_op_on_amd(%p: !rocdsl.ptr<f32>) attributes {num_warps = 1 : i32} {
  nvvm.barrier0
  rocdsl.return
}
