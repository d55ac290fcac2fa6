// RUN: rocdsl-opt %s | rocdsl-opt | FileCheck %s
// RUN: rocdsl-opt %s --mlir-print-op-generic | rocdsl-opt | FileCheck %s
// RUN: rocdsl-opt %s --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC
// RUN: rocdsl-opt %s > %t.custom
// RUN: rocdsl-opt %s --mlir-print-op-generic | rocdsl-opt > %t.from-generic
// RUN: diff %t.custom %t.from-generic

// Checks that every rocdsl op round-trips through the custom and the generic form (and both print back identically).

#blk = #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#row = #rocdsl.slice<dim = 1, parent = #blk>
#col = #rocdsl.slice<dim = 0, parent = #blk>
#b1 = #rocdsl.blocked<sizePerThread = [4], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]>
#b1w8 = #rocdsl.blocked<sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [8], order = [0]>
#mfma = #rocdsl.mfma<version = 3, instrShape = [32, 32, 8], warpsPerCTA = [2, 2]>
#dotA = #rocdsl.dot_operand<opIdx = 0, parent = #mfma, kWidth = 4>
#dotB = #rocdsl.dot_operand<opIdx = 1, parent = #mfma, kWidth = 4>
#shared = #rocdsl.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>

// CHECK-LABEL: rocdsl.func @kernel_attrs(
// CHECK-SAME: %arg0: !rocdsl.ptr<f32> {rocdsl.align = 16 : i32, rocdsl.noalias},
// CHECK-SAME: %arg1: !rocdsl.ptr<bf16>,
// CHECK-SAME: %arg2: i32 {rocdsl.uniform},
// CHECK-SAME: %arg3: f32)
// CHECK-SAME: attributes {num_warps = 8 : i32, waves_per_eu = 2 : i32} {
// CHECK-NEXT: rocdsl.return
// CHECK-NEXT: }
// GENERIC-LABEL: "rocdsl.func"() <{
// GENERIC-SAME: arg_attrs = [{rocdsl.align = 16 : i32, rocdsl.noalias}, {}, {rocdsl.uniform}, {}]
// GENERIC-SAME: function_type = (!rocdsl.ptr<f32>, !rocdsl.ptr<bf16>, i32, f32) -> ()
// GENERIC-SAME: num_warps = 8 : i32
// GENERIC-SAME: sym_name = "kernel_attrs"
// GENERIC-SAME: waves_per_eu = 2 : i32}>
// GENERIC: "rocdsl.return"() : () -> ()
rocdsl.func @kernel_attrs(%p: !rocdsl.ptr<f32> {rocdsl.noalias, rocdsl.align = 16 : i32},
                          %q: !rocdsl.ptr<bf16>, %n: i32 {rocdsl.uniform}, %s: f32)
    attributes {num_warps = 8 : i32, waves_per_eu = 2 : i32} {
  rocdsl.return
}

// CHECK-LABEL: rocdsl.func @program_ids()
// CHECK-SAME: attributes {num_warps = 1 : i32} {
// CHECK-NEXT: [[PX:%.+]] = rocdsl.program_id x : i32
// CHECK-NEXT: [[PY:%.+]] = rocdsl.program_id y : i32
// CHECK-NEXT: [[PZ:%.+]] = rocdsl.program_id z : i32
// CHECK-NEXT: [[NX:%.+]] = rocdsl.num_programs x : i32
// CHECK-NEXT: [[NY:%.+]] = rocdsl.num_programs y : i32
// CHECK-NEXT: [[NZ:%.+]] = rocdsl.num_programs z : i32
// CHECK-NEXT: arith.addi [[PX]], [[NZ]] : i32
// CHECK-NEXT: arith.addi [[PY]], [[NY]] : i32
// CHECK-NEXT: arith.addi [[PZ]], [[NX]] : i32
// GENERIC-LABEL: sym_name = "program_ids"
// GENERIC: "rocdsl.program_id"() <{axis = 0 : i32}> : () -> i32
// GENERIC: "rocdsl.program_id"() <{axis = 1 : i32}> : () -> i32
// GENERIC: "rocdsl.program_id"() <{axis = 2 : i32}> : () -> i32
// GENERIC: "rocdsl.num_programs"() <{axis = 0 : i32}> : () -> i32
// GENERIC: "rocdsl.num_programs"() <{axis = 1 : i32}> : () -> i32
// GENERIC: "rocdsl.num_programs"() <{axis = 2 : i32}> : () -> i32
rocdsl.func @program_ids() attributes {num_warps = 1 : i32} {
  %px = rocdsl.program_id x : i32
  %py = rocdsl.program_id y : i32
  %pz = rocdsl.program_id z : i32
  %nx = rocdsl.num_programs x : i32
  %ny = rocdsl.num_programs y : i32
  %nz = rocdsl.num_programs z : i32
  %0 = arith.addi %px, %nz : i32
  %1 = arith.addi %py, %ny : i32
  %2 = arith.addi %pz, %nx : i32
  rocdsl.return
}

// CHECK-LABEL: rocdsl.func @tile_construction(
// CHECK-SAME: [[S:%.+]]: f32, [[I:%.+]]: i32)
// CHECK: [[SPLAT:%.+]] = rocdsl.splat [[S]] : f32 -> tensor<64xf32, #rocdsl.slice<dim = 1, parent = #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1, 0]>>>
// CHECK: [[ISPLAT:%.+]] = rocdsl.splat [[I]] : i32 -> tensor<64x128xi32, #rocdsl.blocked<
// CHECK: [[IOTA0:%.+]] = rocdsl.iota : tensor<128xi32, #rocdsl.slice<dim = 0,
// CHECK: [[IOTA16:%.+]] = rocdsl.iota {start = 16 : i32} : tensor<64xi32, #rocdsl.slice<dim = 1,
// CHECK: [[ROW:%.+]] = rocdsl.expand_dims [[SPLAT]] {axis = 1 : i32} : tensor<64xf32, #rocdsl.slice<dim = 1, {{.*}}>> -> tensor<64x1xf32, #rocdsl.blocked<{{.*}}>>
// CHECK: [[COL:%.+]] = rocdsl.expand_dims [[IOTA0]] {axis = 0 : i32} : tensor<128xi32, #rocdsl.slice<dim = 0, {{.*}}>> -> tensor<1x128xi32, #rocdsl.blocked<{{.*}}>>
// CHECK: [[ROWB:%.+]] = rocdsl.broadcast [[ROW]] : tensor<64x1xf32, #rocdsl.blocked<{{.*}}>> -> tensor<64x128xf32, #rocdsl.blocked<{{.*}}>>
// CHECK: [[COLB:%.+]] = rocdsl.broadcast [[COL]] : tensor<1x128xi32, {{.*}}> -> tensor<64x128xi32,
// CHECK: arith.addi [[COLB]], [[ISPLAT]]
// CHECK: [[CVT:%.+]] = rocdsl.convert_layout [[ROWB]] : tensor<64x128xf32, #rocdsl.blocked<{{.*}}>> -> tensor<64x128xf32, #rocdsl.mfma<version = 3, instrShape = [32, 32, 8], warpsPerCTA = [2, 2]>>
// CHECK: rocdsl.convert_layout [[CVT]] : tensor<64x128xf32, #rocdsl.mfma<{{.*}}>> -> tensor<64x128xf32, #rocdsl.dot_operand<opIdx = 0, parent = #rocdsl.mfma<version = 3, instrShape = [32, 32, 8], warpsPerCTA = [2, 2]>, kWidth = 4>>
// CHECK: [[IOTA_E:%.+]] = rocdsl.iota : tensor<128xi32, #rocdsl.slice<dim = 0,
// CHECK-SAME: parent = #rocdsl.slice<dim = 2,
// GENERIC-LABEL: sym_name = "tile_construction"
// GENERIC: "rocdsl.splat"(%{{.*}}) : (f32) -> tensor<64xf32,
// GENERIC: "rocdsl.iota"() <{start = 0 : i32}> : () -> tensor<128xi32,
// GENERIC: "rocdsl.iota"() <{start = 16 : i32}> : () -> tensor<64xi32,
// GENERIC: "rocdsl.expand_dims"(%{{.*}}) <{axis = 1 : i32}> : (tensor<64xf32,
// GENERIC: "rocdsl.broadcast"(%{{.*}}) : (tensor<64x1xf32,
// GENERIC: "rocdsl.convert_layout"(%{{.*}}) : (tensor<64x128xf32,
rocdsl.func @tile_construction(%s: f32, %i: i32) attributes {num_warps = 4 : i32} {
  %splat = rocdsl.splat %s : f32 -> tensor<64xf32, #row>
  %isplat = rocdsl.splat %i : i32 -> tensor<64x128xi32, #blk>
  %iota = rocdsl.iota : tensor<128xi32, #col>
  %iota16 = rocdsl.iota {start = 16 : i32} : tensor<64xi32, #row>
  %row = rocdsl.expand_dims %splat {axis = 1 : i32} : tensor<64xf32, #row> -> tensor<64x1xf32, #blk>
  %col = rocdsl.expand_dims %iota {axis = 0 : i32} : tensor<128xi32, #col> -> tensor<1x128xi32, #blk>
  %rowb = rocdsl.broadcast %row : tensor<64x1xf32, #blk> -> tensor<64x128xf32, #blk>
  %colb = rocdsl.broadcast %col : tensor<1x128xi32, #blk> -> tensor<64x128xi32, #blk>
  %idx = arith.addi %colb, %isplat : tensor<64x128xi32, #blk>
  %acc = rocdsl.convert_layout %rowb : tensor<64x128xf32, #blk> -> tensor<64x128xf32, #mfma>
  %opa = rocdsl.convert_layout %acc : tensor<64x128xf32, #mfma> -> tensor<64x128xf32, #dotA>
  // A slice of a slice of a 3-D layout is a 1-D layout.
  %iota3 = rocdsl.iota : tensor<128xi32, #rocdsl.slice<dim = 0, parent = #rocdsl.slice<dim = 2, parent = #rocdsl.blocked<sizePerThread = [1, 1, 4], threadsPerWarp = [2, 2, 16], warpsPerCTA = [1, 2, 2], order = [2, 1, 0]>>>>
  rocdsl.return
}

// CHECK-LABEL: rocdsl.func @global_memory(
// CHECK-SAME: [[X:%.+]]: !rocdsl.ptr<bf16>, [[Y:%.+]]: !rocdsl.ptr<bf16>, [[M:%.+]]: i32, [[N:%.+]]: i32, [[F:%.+]]: !rocdsl.ptr<f32>)
// CHECK: [[C0:%.+]] = arith.constant 0 : i32
// CHECK: [[PAD:%.+]] = arith.constant 0.000000e+00 : bf16
// CHECK: [[L1:%.+]] = rocdsl.load [[F]][[[C0]]] : !rocdsl.ptr<f32> -> tensor<256xf32, #rocdsl.blocked<sizePerThread = [4], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]>>
// CHECK: [[L2:%.+]] = rocdsl.load [[X]][[[C0]], [[C0]]] strides[[[N]]] : !rocdsl.ptr<bf16> -> tensor<64x128xbf16,
// CHECK: [[L3:%.+]] = rocdsl.load [[X]][[[C0]], [[C0]]] strides[[[N]]] bounds[[[M]], [[N]]] {vec = 8 : i32} : !rocdsl.ptr<bf16> -> tensor<64x128xbf16,
// CHECK: [[MASK:%.+]] = arith.cmpi slt,
// CHECK: [[L4:%.+]] = rocdsl.load [[X]][[[C0]], [[C0]]] strides[[[N]]] bounds[[[M]], [[N]]] mask([[MASK]] : tensor<64x128xi1, #rocdsl.blocked<{{.*}}>>) other([[PAD]] : bf16) {vec = 4 : i32} : !rocdsl.ptr<bf16> -> tensor<64x128xbf16,
// CHECK: [[L5:%.+]] = rocdsl.load [[X]][[[C0]], [[C0]]] strides[[[N]]] other([[PAD]] : bf16) : !rocdsl.ptr<bf16>
// CHECK: rocdsl.store [[L4]], [[Y]][[[C0]], [[C0]]] strides[[[N]]] bounds[[[M]], [[N]]] mask([[MASK]] : tensor<64x128xi1, {{.*}}>) {vec = 8 : i32} : tensor<64x128xbf16, {{.*}}>, !rocdsl.ptr<bf16>
// CHECK: rocdsl.store [[L3]], [[Y]][[[C0]], [[C0]]] strides[[[N]]] : tensor<64x128xbf16,
// CHECK: rocdsl.store [[L1]], [[F]][[[C0]]] bounds[[[N]]] {vec = 4 : i32} : tensor<256xf32,
// GENERIC-LABEL: sym_name = "global_memory"
// A load without vec has no vec attribute (inference may set one later).
// GENERIC: "rocdsl.load"(%{{.*}}, %{{.*}}) <{operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0>}>
// GENERIC: "rocdsl.load"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) <{operandSegmentSizes = array<i32: 1, 2, 1, 0, 0, 0>}>
// GENERIC: "rocdsl.load"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) <{operandSegmentSizes = array<i32: 1, 2, 1, 2, 0, 0>, vec = 8 : i32}>
// GENERIC: "rocdsl.load"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) <{operandSegmentSizes = array<i32: 1, 2, 1, 2, 1, 1>, vec = 4 : i32}>
// GENERIC: "rocdsl.load"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) <{operandSegmentSizes = array<i32: 1, 2, 1, 0, 0, 1>}>
// GENERIC: "rocdsl.store"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) <{operandSegmentSizes = array<i32: 1, 1, 2, 1, 2, 1>, vec = 8 : i32}>
rocdsl.func @global_memory(%x: !rocdsl.ptr<bf16>, %y: !rocdsl.ptr<bf16>, %m: i32, %n: i32, %f: !rocdsl.ptr<f32>)
    attributes {num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %pad = arith.constant 0.0 : bf16
  %l1 = rocdsl.load %f[%c0] : !rocdsl.ptr<f32> -> tensor<256xf32, #b1>
  %l2 = rocdsl.load %x[%c0, %c0] strides [%n] : !rocdsl.ptr<bf16> -> tensor<64x128xbf16, #blk>
  %l3 = rocdsl.load %x[%c0, %c0] strides [%n] bounds [%m, %n] {vec = 8 : i32} : !rocdsl.ptr<bf16> -> tensor<64x128xbf16, #blk>
  %cols = rocdsl.iota : tensor<128xi32, #col>
  %cols2 = rocdsl.expand_dims %cols {axis = 0 : i32} : tensor<128xi32, #col> -> tensor<1x128xi32, #blk>
  %colsb = rocdsl.broadcast %cols2 : tensor<1x128xi32, #blk> -> tensor<64x128xi32, #blk>
  %lim = rocdsl.splat %n : i32 -> tensor<64x128xi32, #blk>
  %mask = arith.cmpi slt, %colsb, %lim : tensor<64x128xi32, #blk>
  %l4 = rocdsl.load %x[%c0, %c0] strides [%n] bounds [%m, %n] mask(%mask : tensor<64x128xi1, #blk>) other(%pad : bf16) {vec = 4 : i32} : !rocdsl.ptr<bf16> -> tensor<64x128xbf16, #blk>
  %l5 = rocdsl.load %x[%c0, %c0] strides [%n] other(%pad : bf16) : !rocdsl.ptr<bf16> -> tensor<64x128xbf16, #blk>
  rocdsl.store %l4, %y[%c0, %c0] strides [%n] bounds [%m, %n] mask(%mask : tensor<64x128xi1, #blk>) {vec = 8 : i32} : tensor<64x128xbf16, #blk>, !rocdsl.ptr<bf16>
  rocdsl.store %l3, %y[%c0, %c0] strides [%n] : tensor<64x128xbf16, #blk>, !rocdsl.ptr<bf16>
  rocdsl.store %l1, %f[%c0] bounds [%n] {vec = 4 : i32} : tensor<256xf32, #b1>, !rocdsl.ptr<f32>
  rocdsl.return
}

// CHECK-LABEL: rocdsl.func @reductions(
// CHECK-SAME: [[P:%.+]]: !rocdsl.ptr<f32>)
// CHECK: [[T:%.+]] = rocdsl.load [[P]]
// CHECK: [[ADD:%.+]] = rocdsl.reduce add [[T]] {axis = 1 : i32} : tensor<64x128xf32, #rocdsl.blocked<{{.*}}>> -> tensor<64xf32, #rocdsl.slice<dim = 1, parent = #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1, 0]>>>
// CHECK: [[MUL:%.+]] = rocdsl.reduce mul [[T]] {axis = 0 : i32} : tensor<64x128xf32, #rocdsl.blocked<{{.*}}>> -> tensor<128xf32, #rocdsl.slice<dim = 0,
// CHECK: [[MAX:%.+]] = rocdsl.reduce max [[T]] {axis = 1 : i32}
// CHECK: [[MIN:%.+]] = rocdsl.reduce min [[T]] {axis = 0 : i32}
// CHECK: [[SUM:%.+]] = rocdsl.reduce add [[ADD]] {axis = 0 : i32} : tensor<64xf32, #rocdsl.slice<dim = 1, {{.*}}>> -> f32
// CHECK: [[TOP:%.+]] = rocdsl.reduce max [[MAX]] {axis = 0 : i32} : tensor<64xf32, {{.*}}> -> f32
// CHECK: arith.addf [[SUM]], [[TOP]] : f32
// CHECK: rocdsl.reduce min {{%.+}} {axis = 0 : i32} : tensor<64xi32, #rocdsl.blocked<sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]>> -> i32
// GENERIC-LABEL: sym_name = "reductions"
// GENERIC: "rocdsl.reduce"(%{{.*}}) <{axis = 1 : i32, kind = #rocdsl<reduce_kind add>}>
// GENERIC: "rocdsl.reduce"(%{{.*}}) <{axis = 0 : i32, kind = #rocdsl<reduce_kind mul>}>
// GENERIC: "rocdsl.reduce"(%{{.*}}) <{axis = 1 : i32, kind = #rocdsl<reduce_kind max>}>
// GENERIC: "rocdsl.reduce"(%{{.*}}) <{axis = 0 : i32, kind = #rocdsl<reduce_kind min>}>
// GENERIC: "rocdsl.reduce"(%{{.*}}) <{axis = 0 : i32, kind = #rocdsl<reduce_kind add>}> : (tensor<64xf32, {{.*}}) -> f32
rocdsl.func @reductions(%p: !rocdsl.ptr<f32>) attributes {num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c128 = arith.constant 128 : i32
  %t = rocdsl.load %p[%c0, %c0] strides [%c128] : !rocdsl.ptr<f32> -> tensor<64x128xf32, #blk>
  %add = rocdsl.reduce add %t {axis = 1 : i32} : tensor<64x128xf32, #blk> -> tensor<64xf32, #row>
  %mul = rocdsl.reduce mul %t {axis = 0 : i32} : tensor<64x128xf32, #blk> -> tensor<128xf32, #col>
  %max = rocdsl.reduce max %t {axis = 1 : i32} : tensor<64x128xf32, #blk> -> tensor<64xf32, #row>
  %min = rocdsl.reduce min %t {axis = 0 : i32} : tensor<64x128xf32, #blk> -> tensor<128xf32, #col>
  %sum = rocdsl.reduce add %add {axis = 0 : i32} : tensor<64xf32, #row> -> f32
  %top = rocdsl.reduce max %max {axis = 0 : i32} : tensor<64xf32, #row> -> f32
  %both = arith.addf %sum, %top : f32
  %ints = rocdsl.iota : tensor<64xi32, #rocdsl.blocked<sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]>>
  %imin = rocdsl.reduce min %ints {axis = 0 : i32} : tensor<64xi32, #rocdsl.blocked<sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]>> -> i32
  rocdsl.return
}

// CHECK-LABEL: func.func @matmul(
// CHECK-SAME: [[A:%.+]]: tensor<64x32xbf16, #rocdsl.dot_operand<opIdx = 0, parent = #rocdsl.mfma<version = 3, instrShape = [32, 32, 8], warpsPerCTA = [2, 2]>, kWidth = 4>>
// CHECK-SAME: [[B:%.+]]: tensor<32x64xbf16, #rocdsl.dot_operand<opIdx = 1, parent = #rocdsl.mfma<version = 3, instrShape = [32, 32, 8], warpsPerCTA = [2, 2]>, kWidth = 4>>
// CHECK-SAME: [[C:%.+]]: tensor<64x64xf32, #rocdsl.mfma<version = 3, instrShape = [32, 32, 8], warpsPerCTA = [2, 2]>>
// CHECK: [[D:%.+]] = rocdsl.dot [[A]], [[B]], [[C]] : tensor<64x32xbf16, #rocdsl.dot_operand<opIdx = 0, {{.*}}>>, tensor<32x64xbf16, #rocdsl.dot_operand<opIdx = 1, {{.*}}>> -> tensor<64x64xf32, #rocdsl.mfma<{{.*}}>>
// CHECK: rocdsl.dot [[A]], [[B]], [[D]]
// GENERIC-LABEL: sym_name = "matmul"
// GENERIC: "rocdsl.dot"(%{{.*}}, %{{.*}}, %{{.*}}) : (tensor<64x32xbf16, {{.*}}>, tensor<32x64xbf16, {{.*}}>, tensor<64x64xf32, {{.*}}>) -> tensor<64x64xf32,
// The tile ops also verify outside a kernel (no num_warps to compare with).
func.func @matmul(%a: tensor<64x32xbf16, #dotA>, %b: tensor<32x64xbf16, #dotB>, %c: tensor<64x64xf32, #mfma>) -> tensor<64x64xf32, #mfma> {
  %d = rocdsl.dot %a, %b, %c : tensor<64x32xbf16, #dotA>, tensor<32x64xbf16, #dotB> -> tensor<64x64xf32, #mfma>
  %e = rocdsl.dot %a, %b, %d : tensor<64x32xbf16, #dotA>, tensor<32x64xbf16, #dotB> -> tensor<64x64xf32, #mfma>
  return %e : tensor<64x64xf32, #mfma>
}

// CHECK-LABEL: rocdsl.func @lds(
// CHECK-SAME: [[P:%.+]]: !rocdsl.ptr<bf16>)
// CHECK: [[T:%.+]] = rocdsl.load [[P]]
// CHECK: [[BUF:%.+]] = rocdsl.local_alloc -> !rocdsl.lds<64x32xbf16, #rocdsl.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>>
// CHECK: [[INIT:%.+]] = rocdsl.local_alloc [[T]] : tensor<64x32xbf16, #rocdsl.blocked<{{.*}}>> -> !rocdsl.lds<64x32xbf16, #rocdsl.shared<{{.*}}>>
// CHECK: rocdsl.local_store [[T]], [[BUF]] : tensor<64x32xbf16, #rocdsl.blocked<{{.*}}>>, !rocdsl.lds<64x32xbf16, #rocdsl.shared<{{.*}}>>
// CHECK: rocdsl.barrier
// CHECK: [[OPA:%.+]] = rocdsl.local_load [[BUF]] : !rocdsl.lds<64x32xbf16, {{.*}}> -> tensor<64x32xbf16, #rocdsl.dot_operand<opIdx = 0,
// CHECK: [[BT:%.+]] = rocdsl.local_alloc -> !rocdsl.lds<32x64xbf16,
// CHECK: [[OPB:%.+]] = rocdsl.local_load [[BT]] : !rocdsl.lds<32x64xbf16, {{.*}}> -> tensor<32x64xbf16, #rocdsl.dot_operand<opIdx = 1,
// CHECK-NOT: rocdsl.local_load
// CHECK: rocdsl.dot [[OPA]], [[OPB]], %{{.+}}
// GENERIC-LABEL: sym_name = "lds"
// GENERIC: "rocdsl.local_alloc"() : () -> !rocdsl.lds<64x32xbf16,
// GENERIC: "rocdsl.local_alloc"(%{{.*}}) : (tensor<64x32xbf16, {{.*}}>) -> !rocdsl.lds<64x32xbf16,
// GENERIC: "rocdsl.local_store"(%{{.*}}, %{{.*}}) : (tensor<64x32xbf16, {{.*}}>, !rocdsl.lds<64x32xbf16, {{.*}}>) -> ()
// GENERIC: "rocdsl.barrier"() : () -> ()
// GENERIC: "rocdsl.local_load"(%{{.*}}) : (!rocdsl.lds<64x32xbf16,
rocdsl.func @lds(%p: !rocdsl.ptr<bf16>) attributes {num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %t = rocdsl.load %p[%c0, %c0] strides [%c32] {vec = 8 : i32} : !rocdsl.ptr<bf16> -> tensor<64x32xbf16, #blk>
  %buf = rocdsl.local_alloc -> !rocdsl.lds<64x32xbf16, #shared>
  %init = rocdsl.local_alloc %t : tensor<64x32xbf16, #blk> -> !rocdsl.lds<64x32xbf16, #shared>
  rocdsl.local_store %t, %buf : tensor<64x32xbf16, #blk>, !rocdsl.lds<64x32xbf16, #shared>
  rocdsl.barrier
  %a = rocdsl.local_load %buf : !rocdsl.lds<64x32xbf16, #shared> -> tensor<64x32xbf16, #dotA>
  %bt = rocdsl.local_alloc -> !rocdsl.lds<32x64xbf16, #shared>
  %b = rocdsl.local_load %bt : !rocdsl.lds<32x64xbf16, #shared> -> tensor<32x64xbf16, #dotB>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32, #mfma>
  %d = rocdsl.dot %a, %b, %zero : tensor<64x32xbf16, #dotA>, tensor<32x64xbf16, #dotB> -> tensor<64x64xf32, #mfma>
  rocdsl.return
}

// CHECK-LABEL: rocdsl.func @lds_trans(
// CHECK: [[K:%.+]] = rocdsl.local_alloc -> !rocdsl.lds<64x32xbf16,
// CHECK: rocdsl.local_load [[K]] {trans} : !rocdsl.lds<64x32xbf16, {{.*}}> -> tensor<32x64xbf16, #rocdsl.dot_operand<opIdx = 1,
// GENERIC-LABEL: sym_name = "lds_trans"
// GENERIC: "rocdsl.local_load"(%{{.*}}) <{trans}> : (!rocdsl.lds<64x32xbf16,
rocdsl.func @lds_trans() attributes {num_warps = 4 : i32} {
  %k = rocdsl.local_alloc -> !rocdsl.lds<64x32xbf16, #shared>
  %kt = rocdsl.local_load %k {trans} : !rocdsl.lds<64x32xbf16, #shared> -> tensor<32x64xbf16, #dotB>
  rocdsl.return
}

// CHECK-LABEL: rocdsl.func @warpgroup_dot(
// CHECK: rocdsl.warpgroup_dot %{{.*}}, %{{.*}}, %{{.*}} : !rocdsl.lds<128x64xbf16, {{.*}}>, !rocdsl.lds<2x64x64xbf16, {{.*}}>, tensor<128x128xf32, #rocdsl.mma<version = 2, instrShape = [16, 8, 16], warpsPerCTA = [4, 1]>>
// GENERIC-LABEL: sym_name = "warpgroup_dot"
// GENERIC: "rocdsl.warpgroup_dot"(%{{.*}}, %{{.*}}, %{{.*}}) <{pending = 0 : i32}> : (!rocdsl.lds<128x64xbf16,
rocdsl.func @warpgroup_dot() attributes {num_warps = 4 : i32} {
  %a = rocdsl.local_alloc -> !rocdsl.lds<128x64xbf16, #rocdsl.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>>
  %b = rocdsl.local_alloc -> !rocdsl.lds<2x64x64xbf16, #rocdsl.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0]>>
  %c = arith.constant dense<0.0> : tensor<128x128xf32, #rocdsl.mma<version = 2, instrShape = [16, 8, 16], warpsPerCTA = [4, 1]>>
  %d = rocdsl.warpgroup_dot %a, %b, %c : !rocdsl.lds<128x64xbf16, #rocdsl.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>>, !rocdsl.lds<2x64x64xbf16, #rocdsl.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0]>>, tensor<128x128xf32, #rocdsl.mma<version = 2, instrShape = [16, 8, 16], warpsPerCTA = [4, 1]>>
  rocdsl.return
}

// CHECK-LABEL: rocdsl.func @warpgroup_in_flight(
// CHECK: [[D:%.+]] = rocdsl.warpgroup_dot %{{.*}}, %{{.*}}, %{{.*}} {pending = 1 : i32} :
// CHECK: rocdsl.warpgroup_wait [[D]] : tensor<64x64xf32,
// CHECK: rocdsl.warpgroup_wait %{{.*}} {pending = 2 : i32} : tensor<64x64xf32,
// GENERIC-LABEL: sym_name = "warpgroup_in_flight"
// GENERIC: "rocdsl.warpgroup_dot"(%{{.*}}, %{{.*}}, %{{.*}}) <{pending = 1 : i32}>
// GENERIC: "rocdsl.warpgroup_wait"(%{{.*}}) <{pending = 0 : i32}> : (tensor<64x64xf32,
// GENERIC: "rocdsl.warpgroup_wait"(%{{.*}}) <{pending = 2 : i32}> : (tensor<64x64xf32,
rocdsl.func @warpgroup_in_flight() attributes {num_warps = 4 : i32} {
  %a = rocdsl.local_alloc -> !rocdsl.lds<64x64xbf16, #rocdsl.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>>
  %b = rocdsl.local_alloc -> !rocdsl.lds<64x64xbf16, #rocdsl.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>>
  %c = arith.constant dense<0.0> : tensor<64x64xf32, #rocdsl.mma<version = 2, instrShape = [16, 8, 16], warpsPerCTA = [4, 1]>>
  %d = rocdsl.warpgroup_dot %a, %b, %c {pending = 1 : i32} : !rocdsl.lds<64x64xbf16, #rocdsl.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>>, !rocdsl.lds<64x64xbf16, #rocdsl.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>>, tensor<64x64xf32, #rocdsl.mma<version = 2, instrShape = [16, 8, 16], warpsPerCTA = [4, 1]>>
  %e = rocdsl.warpgroup_wait %d : tensor<64x64xf32, #rocdsl.mma<version = 2, instrShape = [16, 8, 16], warpsPerCTA = [4, 1]>>
  %f = rocdsl.warpgroup_wait %e {pending = 2 : i32} : tensor<64x64xf32, #rocdsl.mma<version = 2, instrShape = [16, 8, 16], warpsPerCTA = [4, 1]>>
  rocdsl.return
}

// CHECK-LABEL: rocdsl.func @sync()
// CHECK-SAME: attributes {num_warps = 8 : i32} {
// CHECK-NEXT: rocdsl.barrier{{$}}
// CHECK-NEXT: rocdsl.barrier {unaligned}
// CHECK-NEXT: rocdsl.wait {vmcnt = 0 : i32}
// CHECK-NEXT: rocdsl.wait {lgkmcnt = 0 : i32}
// CHECK-NEXT: rocdsl.wait {lgkmcnt = 15 : i32, vmcnt = 63 : i32}
// CHECK-NEXT: rocdsl.sched_barrier{{$}}
// CHECK-NEXT: rocdsl.sched_barrier {mask = 6 : i32}
// CHECK-NEXT: rocdsl.sched_group_barrier {mask = 8 : i32, size = 1 : i32}
// CHECK-NEXT: rocdsl.sched_group_barrier {mask = 256 : i32, size = 3 : i32, sync_id = 2 : i32}
// CHECK-NEXT: rocdsl.set_priority {priority = 3 : i32}
// CHECK-NEXT: %{{.*}} = rocdsl.warp_id : i32
// CHECK-NEXT: rocdsl.return
// GENERIC-LABEL: sym_name = "sync"
// GENERIC: "rocdsl.barrier"() : () -> ()
// GENERIC-NEXT: "rocdsl.barrier"() <{unaligned}> : () -> ()
// GENERIC-NEXT: "rocdsl.wait"() <{vmcnt = 0 : i32}> : () -> ()
// GENERIC-NEXT: "rocdsl.wait"() <{lgkmcnt = 0 : i32}> : () -> ()
// GENERIC-NEXT: "rocdsl.wait"() <{lgkmcnt = 15 : i32, vmcnt = 63 : i32}> : () -> ()
// GENERIC-NEXT: "rocdsl.sched_barrier"() <{mask = 0 : i32}> : () -> ()
// GENERIC-NEXT: "rocdsl.sched_barrier"() <{mask = 6 : i32}> : () -> ()
// GENERIC-NEXT: "rocdsl.sched_group_barrier"() <{mask = 8 : i32, size = 1 : i32, sync_id = 0 : i32}> : () -> ()
rocdsl.func @sync() attributes {num_warps = 8 : i32} {
  rocdsl.barrier
  rocdsl.barrier {unaligned}
  rocdsl.wait {vmcnt = 0 : i32}
  rocdsl.wait {lgkmcnt = 0 : i32}
  rocdsl.wait {vmcnt = 63 : i32, lgkmcnt = 15 : i32}
  rocdsl.sched_barrier
  rocdsl.sched_barrier {mask = 6 : i32}
  rocdsl.sched_group_barrier {mask = 8 : i32, size = 1 : i32}
  rocdsl.sched_group_barrier {mask = 256 : i32, size = 3 : i32, sync_id = 2 : i32}
  rocdsl.set_priority {priority = 3 : i32}
  %w = rocdsl.warp_id : i32
  rocdsl.return
}

// CHECK-LABEL: rocdsl.func @eight_waves(
// CHECK: rocdsl.iota {start = 3 : i32} : tensor<512xi32, #rocdsl.blocked<sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [8], order = [0]>>
rocdsl.func @eight_waves(%p: !rocdsl.ptr<i32>) attributes {num_warps = 8 : i32} {
  %c0 = arith.constant 0 : i32
  %i = rocdsl.iota {start = 3 : i32} : tensor<512xi32, #b1w8>
  rocdsl.store %i, %p[%c0] : tensor<512xi32, #b1w8>, !rocdsl.ptr<i32>
  rocdsl.return
}

// Two buffers stacked along a leading dimension (slowest in the order) and
// one of them picked by a runtime index.
// CHECK-LABEL: rocdsl.func @lds_buffers(
// CHECK-SAME: [[I:%.+]]: i32)
// CHECK: [[BUFS:%.+]] = rocdsl.local_alloc -> !rocdsl.lds<2x64x32xbf16, #rocdsl.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0]>>
// CHECK: rocdsl.local_index [[BUFS]][[[I]]] : !rocdsl.lds<2x64x32xbf16, {{.*}}> -> !rocdsl.lds<64x32xbf16, #rocdsl.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>>
// GENERIC-LABEL: sym_name = "lds_buffers"
// GENERIC: "rocdsl.local_index"(%{{.*}}, %{{.*}}) : (!rocdsl.lds<2x64x32xbf16, {{.*}}>, i32) -> !rocdsl.lds<64x32xbf16,
rocdsl.func @lds_buffers(%i: i32) attributes {num_warps = 4 : i32} {
  %bufs = rocdsl.local_alloc -> !rocdsl.lds<2x64x32xbf16, #rocdsl.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0]>>
  %one = rocdsl.local_index %bufs[%i] : !rocdsl.lds<2x64x32xbf16, #rocdsl.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0]>> -> !rocdsl.lds<64x32xbf16, #rocdsl.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>>
  rocdsl.return
}

// The same bytes viewed as buffers of another shape: rows [64 i, 64 i + 64)
// of one 128-row buffer as a 1 x 64 x 64 stack.
// CHECK-LABEL: rocdsl.func @lds_view(
// CHECK: rocdsl.local_index %{{.*}}[%{{.*}}] : !rocdsl.lds<1x128x64xbf16, {{.*}}> -> !rocdsl.lds<1x64x64xbf16, #rocdsl.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0]>>
rocdsl.func @lds_view(%i: i32) attributes {num_warps = 4 : i32} {
  %bufs = rocdsl.local_alloc -> !rocdsl.lds<1x128x64xbf16, #rocdsl.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0]>>
  %half = rocdsl.local_index %bufs[%i] : !rocdsl.lds<1x128x64xbf16, #rocdsl.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0]>> -> !rocdsl.lds<1x64x64xbf16, #rocdsl.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0]>>
  rocdsl.return
}

// An asynchronous copy into LDS with bounds and a vector width, a commit
// and a wait that lets one group run on.
// CHECK-LABEL: rocdsl.func @async_copy(
// CHECK: rocdsl.async_copy %{{.*}}[%{{.*}}, %{{.*}}] strides[%{{.*}}] bounds[%{{.*}}, %{{.*}}], %{{.*}} {vec = 8 : i32} : !rocdsl.ptr<bf16>, tensor<64x32xbf16, #rocdsl.blocked<{{.*}}>> -> !rocdsl.lds<64x32xbf16,
// CHECK-NEXT: rocdsl.async_commit
// CHECK-NEXT: rocdsl.async_wait {pending = 1 : i32}
// GENERIC-LABEL: sym_name = "async_copy"
// GENERIC: "rocdsl.async_copy"
// GENERIC: "rocdsl.async_wait"() <{pending = 1 : i32}>
rocdsl.func @async_copy(%p: !rocdsl.ptr<bf16>, %m: i32) attributes {num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %buf = rocdsl.local_alloc -> !rocdsl.lds<64x32xbf16, #rocdsl.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>>
  rocdsl.async_copy %p[%c0, %c0] strides [%c32] bounds [%m, %c32], %buf {vec = 8 : i32} : !rocdsl.ptr<bf16>, tensor<64x32xbf16, #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>> -> !rocdsl.lds<64x32xbf16, #rocdsl.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>>
  rocdsl.async_commit
  rocdsl.async_wait {pending = 1 : i32}
  rocdsl.return
}

// CHECK-LABEL: rocdsl.func @atomics
// CHECK: rocdsl.atomic_add %{{.*}}, %{{.*}}[%{{.*}}] bounds[%{{.*}}] mask(%{{.*}} : tensor<64xi1, #{{.*}}>) : tensor<64xf32, #{{.*}}>, !rocdsl.ptr<f32>
// CHECK: rocdsl.atomic_add %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] strides[%{{.*}}, %{{.*}}] : tensor<8x8xf32, #{{.*}}>, !rocdsl.ptr<f32>
// CHECK: rocdsl.program_atomic add %{{.*}}[%{{.*}}], %{{.*}} : !rocdsl.ptr<i32>
// CHECK: rocdsl.program_atomic xchg
// CHECK: rocdsl.program_atomic max
// CHECK: rocdsl.program_atomic xchg relaxed %{{.*}}[%{{.*}}], %{{.*}} : !rocdsl.ptr<i32>
#atomics_l = #rocdsl.blocked<sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [1], order = [0]>
#atomics_2d = #rocdsl.blocked<sizePerThread = [1, 1], threadsPerWarp = [8, 8], warpsPerCTA = [1, 1], order = [1, 0]>
rocdsl.func @atomics(%acc: !rocdsl.ptr<f32>, %count: !rocdsl.ptr<i32>, %v: f32, %n: i32) attributes {num_warps = 1 : i32} {
  %c0 = arith.constant 0 : i32
  %i = rocdsl.iota : tensor<64xi32, #atomics_l>
  %nt = rocdsl.splat %n : i32 -> tensor<64xi32, #atomics_l>
  %m = arith.cmpi slt, %i, %nt : tensor<64xi32, #atomics_l>
  %t = rocdsl.splat %v : f32 -> tensor<64xf32, #atomics_l>
  rocdsl.atomic_add %t, %acc[%c0] bounds [%n] mask(%m : tensor<64xi1, #atomics_l>) : tensor<64xf32, #atomics_l>, !rocdsl.ptr<f32>
  // Transposed: every stride given, the innermost too.
  %t2 = rocdsl.splat %v : f32 -> tensor<8x8xf32, #atomics_2d>
  rocdsl.atomic_add %t2, %acc[%c0, %c0] strides [%c0, %n] : tensor<8x8xf32, #atomics_2d>, !rocdsl.ptr<f32>
  %old = rocdsl.program_atomic add %count[%c0], %n : !rocdsl.ptr<i32>
  %x = rocdsl.program_atomic xchg %count[%c0], %old : !rocdsl.ptr<i32>
  %y = rocdsl.program_atomic max %count[%c0], %x : !rocdsl.ptr<i32>
  %z = rocdsl.program_atomic xchg relaxed %count[%c0], %c0 : !rocdsl.ptr<i32>
  rocdsl.return
}
