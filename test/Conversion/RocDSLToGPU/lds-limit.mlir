// A cross-wave reduction whose LDS does not fit the chip is a clear error
// from the conversion, not a backend abort.
// RUN: not rocdsl-opt %s --convert-rocdsl-to-gpu="chip=gfx942" 2>&1 | FileCheck %s --check-prefix=GFX942
// RUN: not rocdsl-opt %s --convert-rocdsl-to-gpu="chip=gfx950" 2>&1 | FileCheck %s --check-prefix=GFX950

#b = #rocdsl.blocked<sizePerThread = [1, 4], threadsPerWarp = [1, 64], warpsPerCTA = [16, 1], order = [1, 0]>
#s = #rocdsl.slice<dim = 0, parent = #b>
rocdsl.func @big(%x: !rocdsl.ptr<f32>) attributes {num_warps = 16 : i32} {
  %c0 = arith.constant 0 : i32
  %n = arith.constant 8192 : i32
  %t = rocdsl.load %x[%c0, %c0] strides [%n] {vec = 4 : i32} : !rocdsl.ptr<f32> -> tensor<16x8192xf32, #b>
  %r = rocdsl.reduce add %t {axis = 0 : i32} : tensor<16x8192xf32, #b> -> tensor<8192xf32, #s>
  rocdsl.store %r, %x[%c0] {vec = 4 : i32} : tensor<8192xf32, #s>, !rocdsl.ptr<f32>
  rocdsl.return
}

// 16 waves x 8192 floats = 524288 bytes: too much for either chip.
// GFX942: error: kernels need 524288 bytes of shared memory (LDS) for reductions, LDS tiles and layout conversions, more than the 65536 bytes gfx942 offers
// GFX950: error: kernels need 524288 bytes of shared memory (LDS) for reductions, LDS tiles and layout conversions, more than the 163840 bytes gfx950 offers
