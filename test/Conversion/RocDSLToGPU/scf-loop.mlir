// RUN: rocdsl-opt %s --convert-rocdsl-to-gpu="chip=gfx942" --canonicalize --cse | FileCheck %s
// RUN: rocdsl-opt %s --convert-rocdsl-to-gpu="chip=gfx942" | FileCheck %s --check-prefix=RAW

// scf loops carry tiles as per-lane vectors: iter_args, block arguments,
// yields and results are converted together.

#l4 = #rocdsl.blocked<sizePerThread = [4], threadsPerWarp = [64], warpsPerCTA = [1], order = [0]>
#l4w = #rocdsl.blocked<sizePerThread = [4], threadsPerWarp = [64], warpsPerCTA = [2], order = [0]>

// CHECK-LABEL: gpu.func @accumulate(
// CHECK-SAME:      [[X:%[^:]+]]: !llvm.ptr<1>, [[Y:%[^:]+]]: !llvm.ptr<1>, [[N:%[^:]+]]: i32)
// CHECK-DAG:     [[ZERO:%.+]] = arith.constant dense<0.000000e+00> : vector<4xf32>
// CHECK-DAG:     [[C0:%.+]] = arith.constant 0 : i32
// CHECK-DAG:     [[C256:%.+]] = arith.constant 256 : i32
// CHECK:         [[R:%.+]] = scf.for [[I:%.+]] = [[C0]] to [[N]] step [[C256]] iter_args([[ACC:%.+]] = [[ZERO]]) -> (vector<4xf32>) : i32 {
// The resource starts at X in every iteration (LLVM hoists it); the
// induction variable goes into the lane's offset.
// CHECK-NEXT:      [[XR:%.+]] = rocdl.make.buffer.rsrc [[X]],
// CHECK:           [[POS:%.+]] = arith.addi [[I]], %{{.+}} : i32
// CHECK-NEXT:      [[VOFF:%.+]] = arith.muli [[POS]], %{{.+}} : i32
// CHECK-NEXT:      [[RAWV:%.+]] = rocdl.raw.ptr.buffer.load [[XR]], [[VOFF]],
// CHECK-NEXT:      [[T:%.+]] = llvm.bitcast [[RAWV]] : vector<4xi32> to vector<4xf32>
// CHECK-NEXT:      [[S:%.+]] = arith.addf [[ACC]], [[T]] : vector<4xf32>
// CHECK-NEXT:      scf.yield [[S]] : vector<4xf32>
// CHECK-NEXT:    }
// CHECK:         [[D:%.+]] = llvm.bitcast [[R]] : vector<4xf32> to vector<4xi32>
// CHECK-NEXT:    rocdl.raw.ptr.buffer.store [[D]],
// CHECK-NOT:     tensor<
// CHECK-NOT:     builtin.unrealized_conversion_cast
rocdsl.func @accumulate(%x: !rocdsl.ptr<f32>, %y: !rocdsl.ptr<f32>, %n: i32) attributes {num_warps = 1 : i32} {
  %c0 = arith.constant 0 : i32
  %c256 = arith.constant 256 : i32
  %zero = arith.constant dense<0.0> : tensor<256xf32, #l4>
  %r = scf.for %i = %c0 to %n step %c256 iter_args(%acc = %zero) -> (tensor<256xf32, #l4>) : i32 {
    %t = rocdsl.load %x[%i] {vec = 4 : i32} : !rocdsl.ptr<f32> -> tensor<256xf32, #l4>
    %s = arith.addf %acc, %t : tensor<256xf32, #l4>
    scf.yield %s : tensor<256xf32, #l4>
  }
  rocdsl.store %r, %y[%c0] {vec = 4 : i32} : tensor<256xf32, #l4>, !rocdsl.ptr<f32>
  rocdsl.return
}

// Two tiles and a scalar carried together; then an scf.if choosing between
// the two tile results (checked before canonicalization turns it into a
// select).
// CHECK-LABEL: gpu.func @two_carries(
// CHECK-SAME:      [[FLAG:%[^:]+]]: i1)
// CHECK-DAG:     [[ZERO:%.+]] = arith.constant dense<0.000000e+00> : vector<4xf32>
// CHECK-DAG:     [[NINF:%.+]] = arith.constant dense<0xFF800000> : vector<4xf32>
// CHECK-DAG:     [[C0:%.+]] = arith.constant 0 : i32
// CHECK:         [[R:%.+]]:3 = scf.for {{.*}} iter_args([[S:%.+]] = [[ZERO]], [[M:%.+]] = [[NINF]], [[K:%.+]] = [[C0]]) -> (vector<4xf32>, vector<4xf32>, i32) : i32 {
// CHECK:           [[T:%.+]] = llvm.bitcast %{{.+}} : vector<4xi32> to vector<4xf32>
// CHECK-NEXT:      [[S2:%.+]] = arith.addf [[S]], [[T]] : vector<4xf32>
// CHECK-NEXT:      [[M2:%.+]] = arith.maximumf [[M]], [[T]] : vector<4xf32>
// CHECK-NEXT:      [[K2:%.+]] = arith.addi [[K]], %{{.+}} : i32
// CHECK-NEXT:      scf.yield [[S2]], [[M2]], [[K2]] : vector<4xf32>, vector<4xf32>, i32
// CHECK-NEXT:    }
// CHECK-NEXT:    [[SEL:%.+]] = arith.select [[FLAG]], [[R]]#0, [[R]]#1 : vector<4xf32>
// CHECK:         llvm.bitcast [[SEL]] : vector<4xf32> to vector<4xi32>

// RAW-LABEL: gpu.func @two_carries(
// RAW:         [[R:%.+]]:3 = scf.for {{.*}} -> (vector<4xf32>, vector<4xf32>, i32) : i32 {
// RAW:           scf.yield %{{.+}}, %{{.+}}, %{{.+}} : vector<4xf32>, vector<4xf32>, i32
// RAW-NEXT:    }
// RAW-NEXT:    [[IF:%.+]] = scf.if %{{.+}} -> (vector<4xf32>) {
// RAW-NEXT:      scf.yield [[R]]#0 : vector<4xf32>
// RAW-NEXT:    } else {
// RAW-NEXT:      scf.yield [[R]]#1 : vector<4xf32>
// RAW-NEXT:    }
// RAW:         llvm.bitcast %{{.+}} : vector<4xf32> to vector<4xi32>
rocdsl.func @two_carries(%x: !rocdsl.ptr<f32>, %y: !rocdsl.ptr<f32>, %n: i32, %flag: i1) attributes {num_warps = 1 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %zero = arith.constant dense<0.0> : tensor<256xf32, #l4>
  %ninf = arith.constant dense<0xFF800000> : tensor<256xf32, #l4>
  %r:3 = scf.for %i = %c0 to %n step %c1 iter_args(%s = %zero, %m = %ninf, %k = %c0) -> (tensor<256xf32, #l4>, tensor<256xf32, #l4>, i32) : i32 {
    %t = rocdsl.load %x[%k] {vec = 4 : i32} : !rocdsl.ptr<f32> -> tensor<256xf32, #l4>
    %s2 = arith.addf %s, %t : tensor<256xf32, #l4>
    %m2 = arith.maximumf %m, %t : tensor<256xf32, #l4>
    %k2 = arith.addi %k, %c1 : i32
    scf.yield %s2, %m2, %k2 : tensor<256xf32, #l4>, tensor<256xf32, #l4>, i32
  }
  %sel = scf.if %flag -> (tensor<256xf32, #l4>) {
    scf.yield %r#0 : tensor<256xf32, #l4>
  } else {
    scf.yield %r#1 : tensor<256xf32, #l4>
  }
  rocdsl.store %sel, %y[%c0] {vec = 4 : i32} : tensor<256xf32, #l4>, !rocdsl.ptr<f32>
  rocdsl.return
}

// A cross-wave reduction inside a loop keeps both barriers inside the body,
// so the next iteration cannot overwrite LDS slots still being read.
// CHECK-LABEL: gpu.func @loop_reduce(
// CHECK:         [[R:%.+]] = scf.for {{.*}} iter_args([[ACC:%.+]] = %{{.+}}) -> (f32) : i32 {
// CHECK:           gpu.subgroup_reduce add
// CHECK:           llvm.store
// CHECK-NEXT:      gpu.barrier
// CHECK:           [[SUM:%.+]] = arith.addf %{{.+}}, %{{.+}} : f32
// CHECK-NEXT:      gpu.barrier
// CHECK-NEXT:      [[NEXT:%.+]] = arith.addf [[ACC]], [[SUM]] : f32
// CHECK-NEXT:      scf.yield [[NEXT]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    vector.broadcast [[R]] : f32 to vector<4xf32>
rocdsl.func @loop_reduce(%x: !rocdsl.ptr<f32>, %y: !rocdsl.ptr<f32>, %n: i32) attributes {num_warps = 2 : i32} {
  %c0 = arith.constant 0 : i32
  %c512 = arith.constant 512 : i32
  %z = arith.constant 0.0 : f32
  %r = scf.for %i = %c0 to %n step %c512 iter_args(%acc = %z) -> (f32) : i32 {
    %t = rocdsl.load %x[%i] {vec = 4 : i32} : !rocdsl.ptr<f32> -> tensor<512xf32, #l4w>
    %s = rocdsl.reduce add %t {axis = 0 : i32} : tensor<512xf32, #l4w> -> f32
    %a = arith.addf %acc, %s : f32
    scf.yield %a : f32
  }
  %rt = rocdsl.splat %r : f32 -> tensor<512xf32, #l4w>
  rocdsl.store %rt, %y[%c0] {vec = 4 : i32} : tensor<512xf32, #l4w>, !rocdsl.ptr<f32>
  rocdsl.return
}
