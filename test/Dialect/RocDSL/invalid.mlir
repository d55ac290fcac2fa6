// RUN: rocdsl-opt %s --split-input-file --verify-diagnostics

// Checks the diagnostics of the rocdsl op verifiers and custom parsers (one error per split).

//===----------------------------------------------------------------------===//
// Tile types
//===----------------------------------------------------------------------===//

#huge_share = #rocdsl.blocked<sizePerThread = [1, 4], threadsPerWarp = [1, 64], warpsPerCTA = [1, 1], order = [1, 0]>
rocdsl.func @tile_too_big_for_lanes(%s: f32) attributes {num_warps = 1 : i32} {
  // A tile whose share per lane no register file holds (lowering it would
  // take time quadratic in the share).
  // expected-error@+1 {{'rocdsl.splat' op result tile 'tensor<1x1048576xf32, #rocdsl.blocked<sizePerThread = [1, 4], threadsPerWarp = [1, 64], warpsPerCTA = [1, 1], order = [1, 0]>>' puts 16384 elements in each lane; at most 2048}}
  %t = rocdsl.splat %s : f32 -> tensor<1x1048576xf32, #huge_share>
  rocdsl.return
}

// -----

#wide_repeat = #rocdsl.blocked<sizePerThread = [4096, 4], threadsPerWarp = [1, 64], warpsPerCTA = [1, 1], order = [1, 0]>
rocdsl.func @layout_share_past_tile(%s: f32) attributes {num_warps = 1 : i32} {
  // The layout's own share per lane counts, even where the tile is smaller.
  // expected-error@+1 {{puts 16384 elements in each lane; at most 2048}}
  %t = rocdsl.splat %s : f32 -> tensor<1x256xf32, #wide_repeat>
  rocdsl.return
}

// -----

#one_per_lane = #rocdsl.blocked<sizePerThread = [1, 1], threadsPerWarp = [1, 64], warpsPerCTA = [1, 1], order = [1, 0]>
rocdsl.func @tile_share_past_32_bits(%s: f32) attributes {num_warps = 1 : i32} {
  // 2^32 rows: the share per lane must not wrap to a small count.
  // expected-error@+1 {{puts 2^32 or more elements in each lane; at most 2048}}
  %t = rocdsl.splat %s : f32 -> tensor<4294967296x64xf32, #one_per_lane>
  rocdsl.return
}

// -----

// expected-error@+1 {{'rocdsl.func' op kernel name 'my kernel' is not a symbol every target takes}}
rocdsl.func @"my kernel"(%s: f32) attributes {num_warps = 1 : i32} {
  rocdsl.return
}

// -----

// expected-error@+1 {{kernel name '0start' is not a symbol every target takes}}
rocdsl.func @"0start"(%s: f32) attributes {num_warps = 1 : i32} {
  rocdsl.return
}

// -----

rocdsl.func @tile_without_encoding(%s: f32) attributes {num_warps = 4 : i32} {
  // expected-error@+1 {{'rocdsl.splat' op result tile 'tensor<64xf32>' has no layout encoding}}
  %t = rocdsl.splat %s : f32 -> tensor<64xf32>
  rocdsl.return
}

// -----

rocdsl.func @encoding_not_a_layout(%s: f32) attributes {num_warps = 4 : i32} {
  // expected-error@+1 {{'rocdsl.splat' op result tile encoding #rocdsl.shared<vec = 1, perPhase = 1, maxPhase = 1, order = [0]> is not a tile layout}}
  %t = rocdsl.splat %s : f32 -> tensor<64xf32, #rocdsl.shared<vec = 1, perPhase = 1, maxPhase = 1, order = [0]>>
  rocdsl.return
}

// -----

#blk = #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1, 0]>
rocdsl.func @layout_rank_mismatch() attributes {num_warps = 4 : i32} {
  // expected-error@+1 {{'rocdsl.iota' op result layout has rank 2 but the tile has rank 1}}
  %t = rocdsl.iota : tensor<64xi32, #blk>
  rocdsl.return
}

// -----

#blk = #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1, 0]>
rocdsl.func @layout_warps_differ_from_kernel(%s: f32) attributes {num_warps = 8 : i32} {
  // expected-error@+1 {{'rocdsl.splat' op result layout spreads over 4 waves but the kernel has num_warps = 8}}
  %t = rocdsl.splat %s : f32 -> tensor<64x64xf32, #blk>
  rocdsl.return
}

// -----

#mfma = #rocdsl.mfma<version = 3, instrShape = [32, 32, 8], warpsPerCTA = [2, 2]>
#dotA = #rocdsl.dot_operand<opIdx = 0, parent = #mfma, kWidth = 4>
rocdsl.func @dot_operand_warps_differ_from_kernel(%p: !rocdsl.ptr<bf16>) attributes {num_warps = 2 : i32} {
  %buf = rocdsl.local_alloc -> !rocdsl.lds<64x32xbf16, #rocdsl.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>>
  // expected-error@+1 {{'rocdsl.local_load' op register tile layout spreads over 4 waves but the kernel has num_warps = 2}}
  %a = rocdsl.local_load %buf : !rocdsl.lds<64x32xbf16, #rocdsl.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>> -> tensor<64x32xbf16, #dotA>
  rocdsl.return
}

//===----------------------------------------------------------------------===//
// Kernels
//===----------------------------------------------------------------------===//

// -----

// expected-error@+1 {{'rocdsl.func' op num_warps must be a power of two in [1, 32], got 6}}
rocdsl.func @num_warps_not_power_of_two() attributes {num_warps = 6 : i32} {
  rocdsl.return
}

// -----

// expected-error@+1 {{'rocdsl.func' op num_warps must be a power of two in [1, 32], got 64}}
rocdsl.func @num_warps_too_large() attributes {num_warps = 64 : i32} {
  rocdsl.return
}

// -----

// expected-error@+1 {{'rocdsl.func' op num_warps must be a power of two in [1, 32], got 0}}
rocdsl.func @num_warps_zero() attributes {num_warps = 0 : i32} {
  rocdsl.return
}

// -----

// A negative attribute is reported as written.
// expected-error@+1 {{'rocdsl.func' op num_warps must be a power of two in [1, 32], got -1}}
rocdsl.func @num_warps_negative() attributes {num_warps = -1 : i32} {
  rocdsl.return
}

// -----

// expected-error@+1 {{'rocdsl.func' op requires attribute 'num_warps'}}
rocdsl.func @num_warps_missing() {
  rocdsl.return
}

// -----

// expected-error@+1 {{'rocdsl.func' op waves_per_eu must be in [1, 8], got 0}}
rocdsl.func @waves_per_eu_zero() attributes {num_warps = 4 : i32, waves_per_eu = 0 : i32} {
  rocdsl.return
}

// -----

// expected-error@+1 {{'rocdsl.func' op waves_per_eu must be in [1, 8], got 9}}
rocdsl.func @waves_per_eu_too_large() attributes {num_warps = 4 : i32, waves_per_eu = 9 : i32} {
  rocdsl.return
}

// -----

// expected-error@+1 {{'rocdsl.func' op kernels return nothing; write results through !rocdsl.ptr arguments}}
rocdsl.func @kernel_with_result() -> i32 attributes {num_warps = 4 : i32} {
  rocdsl.return
}

// -----

// expected-error@+1 {{'rocdsl.func' op argument #1 must be a !rocdsl.ptr or a scalar, got 'index'}}
rocdsl.func @index_argument(%p: !rocdsl.ptr<f32>, %i: index) attributes {num_warps = 4 : i32} {
  rocdsl.return
}

// -----

#b1 = #rocdsl.blocked<sizePerThread = [4], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]>
// expected-error@+1 {{'rocdsl.func' op argument #0 must be a !rocdsl.ptr or a scalar, got 'tensor<256xf32, #rocdsl.blocked<sizePerThread = [4], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]>>'}}
rocdsl.func @tile_argument(%t: tensor<256xf32, #b1>) attributes {num_warps = 4 : i32} {
  rocdsl.return
}

// -----

// expected-error@+1 {{'rocdsl.func' op region #0 ('body') failed to verify constraint: region with 1 blocks}}
rocdsl.func private @declaration(%p: !rocdsl.ptr<f32>) attributes {num_warps = 4 : i32}

// -----

func.func @return_outside_kernel() {
  // expected-error@+1 {{'rocdsl.return' op expects parent op 'rocdsl.func'}}
  rocdsl.return
}

//===----------------------------------------------------------------------===//
// Program ids, splat, iota
//===----------------------------------------------------------------------===//

// -----

rocdsl.func @program_id_bad_axis() attributes {num_warps = 4 : i32} {
  // expected-error@+1 {{expected axis x, y or z, got 'w'}}
  %p = rocdsl.program_id w : i32
  rocdsl.return
}

// -----

rocdsl.func @num_programs_bad_axis() attributes {num_warps = 4 : i32} {
  // expected-error@+1 {{expected axis x, y or z, got 'xy'}}
  %p = rocdsl.num_programs xy : i32
  rocdsl.return
}

// -----

rocdsl.func @program_id_axis_out_of_range() attributes {num_warps = 4 : i32} {
  // expected-error@+1 {{'rocdsl.program_id' op attribute 'axis' failed to satisfy constraint: 32-bit signless integer attribute whose minimum value is 0 whose maximum value is 2}}
  %p = "rocdsl.program_id"() {axis = 3 : i32} : () -> i32
  rocdsl.return
}

// -----

rocdsl.func @program_id_not_i32() attributes {num_warps = 4 : i32} {
  // expected-error@+1 {{'rocdsl.program_id' op result #0 must be 32-bit signless integer, but got 'i64'}}
  %p = rocdsl.program_id x : i64
  rocdsl.return
}

// -----

#b1 = #rocdsl.blocked<sizePerThread = [4], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]>
rocdsl.func @splat_type_mismatch(%i: i32) attributes {num_warps = 4 : i32} {
  // expected-error@+1 {{'rocdsl.splat' op scalar type 'i32' does not match tile element type 'f32'}}
  %t = rocdsl.splat %i : i32 -> tensor<256xf32, #b1>
  rocdsl.return
}

// -----

#blk = #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1, 0]>
rocdsl.func @iota_2d() attributes {num_warps = 4 : i32} {
  // expected-error@+1 {{'rocdsl.iota' op result must be a 1-D tile of i32, got 'tensor<16x64xi32, #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1, 0]>>'}}
  %t = rocdsl.iota : tensor<16x64xi32, #blk>
  rocdsl.return
}

// -----

#b1 = #rocdsl.blocked<sizePerThread = [4], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]>
rocdsl.func @iota_i64() attributes {num_warps = 4 : i32} {
  // expected-error@+1 {{'rocdsl.iota' op result must be a 1-D tile of i32, got 'tensor<256xi64,}}
  %t = rocdsl.iota : tensor<256xi64, #b1>
  rocdsl.return
}

// -----

#b1 = #rocdsl.blocked<sizePerThread = [4], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]>
rocdsl.func @iota_float() attributes {num_warps = 4 : i32} {
  // expected-error@+1 {{'rocdsl.iota' op result #0 must be ranked tensor of signless integer values, but got 'tensor<256xf32,}}
  %t = rocdsl.iota : tensor<256xf32, #b1>
  rocdsl.return
}

//===----------------------------------------------------------------------===//
// expand_dims / broadcast / convert_layout
//===----------------------------------------------------------------------===//

// -----

#blk = #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#row = #rocdsl.slice<dim = 1, parent = #blk>
rocdsl.func @expand_dims_axis_out_of_range(%t: f32) attributes {num_warps = 4 : i32} {
  %s = rocdsl.splat %t : f32 -> tensor<64xf32, #row>
  // expected-error@+1 {{'rocdsl.expand_dims' op axis 2 out of range for rank 1}}
  %e = rocdsl.expand_dims %s {axis = 2 : i32} : tensor<64xf32, #row> -> tensor<64x1xf32, #blk>
  rocdsl.return
}

// -----

#blk = #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#col = #rocdsl.slice<dim = 0, parent = #blk>
rocdsl.func @expand_dims_wrong_slice_dim(%t: f32) attributes {num_warps = 4 : i32} {
  %s = rocdsl.splat %t : f32 -> tensor<128xf32, #col>
  // expected-error@+1 {{'rocdsl.expand_dims' op operand layout must be #rocdsl.slice<dim = 1, ...>, got #rocdsl.slice<dim = 0, parent = #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1, 0]>>}}
  %e = rocdsl.expand_dims %s {axis = 1 : i32} : tensor<128xf32, #col> -> tensor<128x1xf32, #blk>
  rocdsl.return
}

// -----

#blk = #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#b1 = #rocdsl.blocked<sizePerThread = [4], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]>
rocdsl.func @expand_dims_operand_not_slice(%t: f32) attributes {num_warps = 4 : i32} {
  %s = rocdsl.splat %t : f32 -> tensor<128xf32, #b1>
  // expected-error@+1 {{'rocdsl.expand_dims' op operand layout must be #rocdsl.slice<dim = 0, ...>, got #rocdsl.blocked<sizePerThread = [4], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]>}}
  %e = rocdsl.expand_dims %s {axis = 0 : i32} : tensor<128xf32, #b1> -> tensor<1x128xf32, #blk>
  rocdsl.return
}

// -----

#blk = #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#blk2 = #rocdsl.blocked<sizePerThread = [1, 4], threadsPerWarp = [8, 8], warpsPerCTA = [2, 2], order = [1, 0]>
#row = #rocdsl.slice<dim = 1, parent = #blk>
rocdsl.func @expand_dims_wrong_result_layout(%t: f32) attributes {num_warps = 4 : i32} {
  %s = rocdsl.splat %t : f32 -> tensor<64xf32, #row>
  // expected-error@+1 {{'rocdsl.expand_dims' op result layout #rocdsl.blocked<sizePerThread = [1, 4], threadsPerWarp = [8, 8], warpsPerCTA = [2, 2], order = [1, 0]> must be the operand's slice parent #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1, 0]>}}
  %e = rocdsl.expand_dims %s {axis = 1 : i32} : tensor<64xf32, #row> -> tensor<64x1xf32, #blk2>
  rocdsl.return
}

// -----

#blk = #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#row = #rocdsl.slice<dim = 1, parent = #blk>
rocdsl.func @expand_dims_wrong_shape(%t: f32) attributes {num_warps = 4 : i32} {
  %s = rocdsl.splat %t : f32 -> tensor<64xf32, #row>
  // expected-error@+1 {{'rocdsl.expand_dims' op result must be 'tensor<64x1xf32>' (the operand with a unit dimension at 1)}}
  %e = rocdsl.expand_dims %s {axis = 1 : i32} : tensor<64xf32, #row> -> tensor<1x64xf32, #blk>
  rocdsl.return
}

// -----

#blk = #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#row = #rocdsl.slice<dim = 1, parent = #blk>
rocdsl.func @expand_dims_element_type(%t: f32) attributes {num_warps = 4 : i32} {
  %s = rocdsl.splat %t : f32 -> tensor<64xf32, #row>
  // expected-error@+1 {{'rocdsl.expand_dims' op result must be 'tensor<64x1xf32>' (the operand with a unit dimension at 1)}}
  %e = rocdsl.expand_dims %s {axis = 1 : i32} : tensor<64xf32, #row> -> tensor<64x1xf16, #blk>
  rocdsl.return
}

// -----

#blk = #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#row = #rocdsl.slice<dim = 1, parent = #blk>
rocdsl.func @broadcast_rank_change(%t: f32) attributes {num_warps = 4 : i32} {
  %s = rocdsl.splat %t : f32 -> tensor<64xf32, #row>
  // expected-error@+1 {{'rocdsl.broadcast' op operand rank 1 differs from result rank 2; use rocdsl.expand_dims first}}
  %b = rocdsl.broadcast %s : tensor<64xf32, #row> -> tensor<64x128xf32, #blk>
  rocdsl.return
}

// -----

#blk = #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#blk2 = #rocdsl.blocked<sizePerThread = [1, 4], threadsPerWarp = [8, 8], warpsPerCTA = [2, 2], order = [1, 0]>
rocdsl.func @broadcast_layout_change(%t: f32) attributes {num_warps = 4 : i32} {
  %s = rocdsl.splat %t : f32 -> tensor<64x1xf32, #blk>
  // expected-error@+1 {{'rocdsl.broadcast' op operand and result layouts differ; use rocdsl.convert_layout}}
  %b = rocdsl.broadcast %s : tensor<64x1xf32, #blk> -> tensor<64x128xf32, #blk2>
  rocdsl.return
}

// -----

#blk = #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1, 0]>
rocdsl.func @broadcast_bad_dim(%t: f32) attributes {num_warps = 4 : i32} {
  %s = rocdsl.splat %t : f32 -> tensor<64x2xf32, #blk>
  // expected-error@+1 {{'rocdsl.broadcast' op dimension 1 of size 2 cannot broadcast to 128}}
  %b = rocdsl.broadcast %s : tensor<64x2xf32, #blk> -> tensor<64x128xf32, #blk>
  rocdsl.return
}

// -----

#blk = #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1, 0]>
rocdsl.func @broadcast_shrink(%t: f32) attributes {num_warps = 4 : i32} {
  %s = rocdsl.splat %t : f32 -> tensor<64x128xf32, #blk>
  // expected-error@+1 {{'rocdsl.broadcast' op dimension 0 of size 64 cannot broadcast to 1}}
  %b = rocdsl.broadcast %s : tensor<64x128xf32, #blk> -> tensor<1x128xf32, #blk>
  rocdsl.return
}

// -----

#blk = #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1, 0]>
rocdsl.func @broadcast_element_type(%t: f32) attributes {num_warps = 4 : i32} {
  %s = rocdsl.splat %t : f32 -> tensor<64x1xf32, #blk>
  // expected-error@+1 {{'rocdsl.broadcast' op element types differ}}
  %b = rocdsl.broadcast %s : tensor<64x1xf32, #blk> -> tensor<64x128xf16, #blk>
  rocdsl.return
}

// -----

#blk = #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#mfma = #rocdsl.mfma<version = 3, instrShape = [32, 32, 8], warpsPerCTA = [2, 2]>
rocdsl.func @convert_layout_shape_change(%t: f32) attributes {num_warps = 4 : i32} {
  %s = rocdsl.splat %t : f32 -> tensor<64x128xf32, #blk>
  // expected-error@+1 {{'rocdsl.convert_layout' op only the layout may change: 'tensor<64x128xf32, #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1, 0]>>' vs 'tensor<128x64xf32, #rocdsl.mfma<version = 3, instrShape = [32, 32, 8], warpsPerCTA = [2, 2]>>'}}
  %c = rocdsl.convert_layout %s : tensor<64x128xf32, #blk> -> tensor<128x64xf32, #mfma>
  rocdsl.return
}

// -----

#blk = #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#mfma = #rocdsl.mfma<version = 3, instrShape = [32, 32, 8], warpsPerCTA = [2, 2]>
rocdsl.func @convert_layout_element_type(%t: f32) attributes {num_warps = 4 : i32} {
  %s = rocdsl.splat %t : f32 -> tensor<64x128xf32, #blk>
  // expected-error@+1 {{'rocdsl.convert_layout' op only the layout may change}}
  %c = rocdsl.convert_layout %s : tensor<64x128xf32, #blk> -> tensor<64x128xbf16, #mfma>
  rocdsl.return
}

// -----

#blk = #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#mfma8 = #rocdsl.mfma<version = 3, instrShape = [32, 32, 8], warpsPerCTA = [4, 2]>
rocdsl.func @convert_layout_to_other_wave_count(%t: f32) attributes {num_warps = 4 : i32} {
  %s = rocdsl.splat %t : f32 -> tensor<64x128xf32, #blk>
  // expected-error@+1 {{'rocdsl.convert_layout' op result layout spreads over 8 waves but the kernel has num_warps = 4}}
  %c = rocdsl.convert_layout %s : tensor<64x128xf32, #blk> -> tensor<64x128xf32, #mfma8>
  rocdsl.return
}

//===----------------------------------------------------------------------===//
// Global memory
//===----------------------------------------------------------------------===//

// -----

#blk = #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1, 0]>
rocdsl.func @load_ptr_element_type(%p: !rocdsl.ptr<f16>, %i: i32) attributes {num_warps = 4 : i32} {
  // expected-error@+1 {{'rocdsl.load' op pointer element type 'f16' does not match tile element type 'bf16'}}
  %t = rocdsl.load %p[%i, %i] strides [%i] : !rocdsl.ptr<f16> -> tensor<64x128xbf16, #blk>
  rocdsl.return
}

// -----

#blk = #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1, 0]>
rocdsl.func @load_origin_count(%p: !rocdsl.ptr<bf16>, %i: i32) attributes {num_warps = 4 : i32} {
  // expected-error@+1 {{'rocdsl.load' op expected 2 origin indices (one per tile dimension), got 1}}
  %t = rocdsl.load %p[%i] strides [%i] : !rocdsl.ptr<bf16> -> tensor<64x128xbf16, #blk>
  rocdsl.return
}

// -----

#blk = #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1, 0]>
rocdsl.func @load_strides_count(%p: !rocdsl.ptr<bf16>, %i: i32) attributes {num_warps = 4 : i32} {
  // expected-error@+1 {{'rocdsl.load' op expected 1 leading strides (the innermost stride is 1), got 2}}
  %t = rocdsl.load %p[%i, %i] strides [%i, %i] : !rocdsl.ptr<bf16> -> tensor<64x128xbf16, #blk>
  rocdsl.return
}

// -----

#blk = #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1, 0]>
rocdsl.func @load_missing_strides(%p: !rocdsl.ptr<bf16>, %i: i32) attributes {num_warps = 4 : i32} {
  // expected-error@+1 {{'rocdsl.load' op expected 1 leading strides (the innermost stride is 1), got 0}}
  %t = rocdsl.load %p[%i, %i] : !rocdsl.ptr<bf16> -> tensor<64x128xbf16, #blk>
  rocdsl.return
}

// -----

#blk = #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1, 0]>
rocdsl.func @load_bounds_count(%p: !rocdsl.ptr<bf16>, %i: i32) attributes {num_warps = 4 : i32} {
  // expected-error@+1 {{'rocdsl.load' op expected 0 or 2 bounds, got 1}}
  %t = rocdsl.load %p[%i, %i] strides [%i] bounds [%i] : !rocdsl.ptr<bf16> -> tensor<64x128xbf16, #blk>
  rocdsl.return
}

// -----

#blk = #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1, 0]>
rocdsl.func @load_mask_shape(%p: !rocdsl.ptr<bf16>, %i: i32, %b: i1) attributes {num_warps = 4 : i32} {
  %m = rocdsl.splat %b : i1 -> tensor<64x64xi1, #blk>
  // expected-error@+1 {{'rocdsl.load' op mask 'tensor<64x64xi1, #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1, 0]>>' must have the tile's shape and layout (tensor<...xi1> with the same encoding)}}
  %t = rocdsl.load %p[%i, %i] strides [%i] mask(%m : tensor<64x64xi1, #blk>) : !rocdsl.ptr<bf16> -> tensor<64x128xbf16, #blk>
  rocdsl.return
}

// -----

#blk = #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#blk2 = #rocdsl.blocked<sizePerThread = [1, 4], threadsPerWarp = [8, 8], warpsPerCTA = [2, 2], order = [1, 0]>
rocdsl.func @load_mask_layout(%p: !rocdsl.ptr<bf16>, %i: i32, %b: i1) attributes {num_warps = 4 : i32} {
  %m = rocdsl.splat %b : i1 -> tensor<64x128xi1, #blk2>
  // expected-error@+1 {{'rocdsl.load' op mask 'tensor<64x128xi1, #rocdsl.blocked<sizePerThread = [1, 4], threadsPerWarp = [8, 8], warpsPerCTA = [2, 2], order = [1, 0]>>' must have the tile's shape and layout}}
  %t = rocdsl.load %p[%i, %i] strides [%i] mask(%m : tensor<64x128xi1, #blk2>) : !rocdsl.ptr<bf16> -> tensor<64x128xbf16, #blk>
  rocdsl.return
}

// -----

#blk = #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1, 0]>
rocdsl.func @load_mask_not_i1(%p: !rocdsl.ptr<bf16>, %i: i32) attributes {num_warps = 4 : i32} {
  %m = rocdsl.splat %i : i32 -> tensor<64x128xi32, #blk>
  // expected-error@+1 {{'rocdsl.load' op operand #4 must be ranked tensor of 1-bit signless integer values, but got 'tensor<64x128xi32,}}
  %t = rocdsl.load %p[%i, %i] strides [%i] mask(%m : tensor<64x128xi32, #blk>) : !rocdsl.ptr<bf16> -> tensor<64x128xbf16, #blk>
  rocdsl.return
}

// -----

#blk = #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1, 0]>
rocdsl.func @load_other_type(%p: !rocdsl.ptr<bf16>, %i: i32, %x: f32) attributes {num_warps = 4 : i32} {
  // expected-error@+1 {{'rocdsl.load' op 'other' must be a 'bf16' scalar, got 'f32'}}
  %t = rocdsl.load %p[%i, %i] strides [%i] other(%x : f32) : !rocdsl.ptr<bf16> -> tensor<64x128xbf16, #blk>
  rocdsl.return
}

// -----

#blk = #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1, 0]>
rocdsl.func @load_vec_not_power_of_two(%p: !rocdsl.ptr<bf16>, %i: i32) attributes {num_warps = 4 : i32} {
  // expected-error@+1 {{'rocdsl.load' op vec must be a power of two, got 3}}
  %t = rocdsl.load %p[%i, %i] strides [%i] {vec = 3 : i32} : !rocdsl.ptr<bf16> -> tensor<64x128xbf16, #blk>
  rocdsl.return
}

// -----

#blk = #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1, 0]>
rocdsl.func @load_vec_zero(%p: !rocdsl.ptr<bf16>, %i: i32) attributes {num_warps = 4 : i32} {
  // expected-error@+1 {{'rocdsl.load' op vec must be a power of two, got 0}}
  %t = rocdsl.load %p[%i, %i] strides [%i] {vec = 0 : i32} : !rocdsl.ptr<bf16> -> tensor<64x128xbf16, #blk>
  rocdsl.return
}

// -----

#blk = #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1, 0]>
rocdsl.func @load_vec_negative(%p: !rocdsl.ptr<bf16>, %i: i32) attributes {num_warps = 4 : i32} {
  // expected-error@+1 {{'rocdsl.load' op vec must be a power of two, got -4}}
  %t = rocdsl.load %p[%i, %i] strides [%i] {vec = -4 : i32} : !rocdsl.ptr<bf16> -> tensor<64x128xbf16, #blk>
  rocdsl.return
}

// -----

#blk = #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1, 0]>
rocdsl.func @load_vec_over_128_bits(%p: !rocdsl.ptr<f32>, %i: i32) attributes {num_warps = 4 : i32} {
  // expected-error@+1 {{'rocdsl.load' op vec = 8 of 'f32' is 256 bits; one access moves at most 128 bits}}
  %t = rocdsl.load %p[%i, %i] strides [%i] {vec = 8 : i32} : !rocdsl.ptr<f32> -> tensor<64x128xf32, #blk>
  rocdsl.return
}

// -----

#blk4 = #rocdsl.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1, 0]>
rocdsl.func @load_vec_over_lane_elements(%p: !rocdsl.ptr<bf16>, %i: i32) attributes {num_warps = 4 : i32} {
  // expected-error@+1 {{'rocdsl.load' op vec = 8 but the layout gives each lane 4 consecutive innermost element(s)}}
  %t = rocdsl.load %p[%i, %i] strides [%i] {vec = 8 : i32} : !rocdsl.ptr<bf16> -> tensor<64x128xbf16, #blk4>
  rocdsl.return
}

// -----

// The lane's 8 elements run along dimension 0 (order = [0, 1]), not the
// contiguous innermost dimension.
#colmajor = #rocdsl.blocked<sizePerThread = [8, 8], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [0, 1]>
rocdsl.func @load_vec_column_major_layout(%p: !rocdsl.ptr<bf16>, %i: i32) attributes {num_warps = 4 : i32} {
  // expected-error@+1 {{'rocdsl.load' op vec = 8 but the layout gives each lane 1 consecutive innermost element(s)}}
  %t = rocdsl.load %p[%i, %i] strides [%i] {vec = 8 : i32} : !rocdsl.ptr<bf16> -> tensor<64x128xbf16, #colmajor>
  rocdsl.return
}

// -----

// Rows of a slice along the innermost dimension hold one element per lane.
#blk = #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#row = #rocdsl.slice<dim = 1, parent = #blk>
rocdsl.func @load_vec_slice_layout(%p: !rocdsl.ptr<bf16>, %i: i32) attributes {num_warps = 4 : i32} {
  // expected-error@+1 {{'rocdsl.load' op vec = 2 but the layout gives each lane 1 consecutive innermost element(s)}}
  %t = rocdsl.load %p[%i] {vec = 2 : i32} : !rocdsl.ptr<bf16> -> tensor<64xbf16, #row>
  rocdsl.return
}

// -----

#mfma = #rocdsl.mfma<version = 3, instrShape = [32, 32, 8], warpsPerCTA = [2, 2]>
rocdsl.func @load_vec_mfma_layout(%p: !rocdsl.ptr<f32>, %i: i32) attributes {num_warps = 4 : i32} {
  // expected-error@+1 {{'rocdsl.load' op vec = 4 but the layout gives each lane 1 consecutive innermost element(s)}}
  %t = rocdsl.load %p[%i, %i] strides [%i] {vec = 4 : i32} : !rocdsl.ptr<f32> -> tensor<64x64xf32, #mfma>
  rocdsl.return
}

// -----

rocdsl.func @load_tile_without_encoding(%p: !rocdsl.ptr<f32>, %i: i32) attributes {num_warps = 4 : i32} {
  // expected-error@+1 {{'rocdsl.load' op tile 'tensor<64xf32>' has no layout encoding}}
  %t = rocdsl.load %p[%i] : !rocdsl.ptr<f32> -> tensor<64xf32>
  rocdsl.return
}

// -----

#blk = #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1, 0]>
rocdsl.func @store_ptr_element_type(%p: !rocdsl.ptr<f32>, %i: i32, %x: bf16) attributes {num_warps = 4 : i32} {
  %t = rocdsl.splat %x : bf16 -> tensor<64x128xbf16, #blk>
  // expected-error@+1 {{'rocdsl.store' op pointer element type 'f32' does not match tile element type 'bf16'}}
  rocdsl.store %t, %p[%i, %i] strides [%i] : tensor<64x128xbf16, #blk>, !rocdsl.ptr<f32>
  rocdsl.return
}

// -----

#blk = #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#blk2 = #rocdsl.blocked<sizePerThread = [1, 4], threadsPerWarp = [8, 8], warpsPerCTA = [2, 2], order = [1, 0]>
rocdsl.func @store_mask_layout(%p: !rocdsl.ptr<bf16>, %i: i32, %x: bf16, %b: i1) attributes {num_warps = 4 : i32} {
  %t = rocdsl.splat %x : bf16 -> tensor<64x128xbf16, #blk>
  %m = rocdsl.splat %b : i1 -> tensor<64x128xi1, #blk2>
  // expected-error@+1 {{'rocdsl.store' op mask 'tensor<64x128xi1, #rocdsl.blocked<sizePerThread = [1, 4], threadsPerWarp = [8, 8], warpsPerCTA = [2, 2], order = [1, 0]>>' must have the tile's shape and layout}}
  rocdsl.store %t, %p[%i, %i] strides [%i] mask(%m : tensor<64x128xi1, #blk2>) : tensor<64x128xbf16, #blk>, !rocdsl.ptr<bf16>
  rocdsl.return
}

// -----

#blk = #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1, 0]>
rocdsl.func @store_bounds_count(%p: !rocdsl.ptr<bf16>, %i: i32, %x: bf16) attributes {num_warps = 4 : i32} {
  %t = rocdsl.splat %x : bf16 -> tensor<64x128xbf16, #blk>
  // expected-error@+1 {{'rocdsl.store' op expected 0 or 2 bounds, got 3}}
  rocdsl.store %t, %p[%i, %i] strides [%i] bounds [%i, %i, %i] : tensor<64x128xbf16, #blk>, !rocdsl.ptr<bf16>
  rocdsl.return
}

// -----

#blk = #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1, 0]>
rocdsl.func @store_vec_over_128_bits(%p: !rocdsl.ptr<f64>, %i: i32, %x: f64) attributes {num_warps = 4 : i32} {
  %t = rocdsl.splat %x : f64 -> tensor<64x128xf64, #blk>
  // expected-error@+1 {{'rocdsl.store' op vec = 4 of 'f64' is 256 bits; one access moves at most 128 bits}}
  rocdsl.store %t, %p[%i, %i] strides [%i] {vec = 4 : i32} : tensor<64x128xf64, #blk>, !rocdsl.ptr<f64>
  rocdsl.return
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

// -----

#blk = #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#row = #rocdsl.slice<dim = 1, parent = #blk>
rocdsl.func @reduce_axis_out_of_range(%x: f32) attributes {num_warps = 4 : i32} {
  %t = rocdsl.splat %x : f32 -> tensor<64x128xf32, #blk>
  // expected-error@+1 {{'rocdsl.reduce' op axis 2 out of range for rank 2}}
  %r = rocdsl.reduce add %t {axis = 2 : i32} : tensor<64x128xf32, #blk> -> tensor<64xf32, #row>
  rocdsl.return
}

// -----

#blk = #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#col = #rocdsl.slice<dim = 0, parent = #blk>
rocdsl.func @reduce_wrong_result_layout(%x: f32) attributes {num_warps = 4 : i32} {
  %t = rocdsl.splat %x : f32 -> tensor<64x64xf32, #blk>
  // expected-error@+1 {{'rocdsl.reduce' op result layout must be #rocdsl.slice<dim = 1, parent = #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1, 0]>>, got #rocdsl.slice<dim = 0, parent = #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1, 0]>>}}
  %r = rocdsl.reduce max %t {axis = 1 : i32} : tensor<64x64xf32, #blk> -> tensor<64xf32, #col>
  rocdsl.return
}

// -----

#blk = #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#b1 = #rocdsl.blocked<sizePerThread = [4], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]>
rocdsl.func @reduce_result_not_a_slice(%x: f32) attributes {num_warps = 4 : i32} {
  %t = rocdsl.splat %x : f32 -> tensor<64x128xf32, #blk>
  // expected-error@+1 {{'rocdsl.reduce' op result layout must be #rocdsl.slice<dim = 1, parent = #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1, 0]>>, got #rocdsl.blocked<sizePerThread = [4], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]>}}
  %r = rocdsl.reduce add %t {axis = 1 : i32} : tensor<64x128xf32, #blk> -> tensor<64xf32, #b1>
  rocdsl.return
}

// -----

#blk = #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#row = #rocdsl.slice<dim = 1, parent = #blk>
rocdsl.func @reduce_wrong_result_shape(%x: f32) attributes {num_warps = 4 : i32} {
  %t = rocdsl.splat %x : f32 -> tensor<64x128xf32, #blk>
  // expected-error@+1 {{'rocdsl.reduce' op result must be 'tensor<64xf32>' with a slice layout, got 'tensor<128xf32, #rocdsl.slice<dim = 1, parent = #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1, 0]>>>'}}
  %r = rocdsl.reduce add %t {axis = 1 : i32} : tensor<64x128xf32, #blk> -> tensor<128xf32, #row>
  rocdsl.return
}

// -----

#blk = #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1, 0]>
rocdsl.func @reduce_2d_to_scalar(%x: f32) attributes {num_warps = 4 : i32} {
  %t = rocdsl.splat %x : f32 -> tensor<64x128xf32, #blk>
  // expected-error@+1 {{'rocdsl.reduce' op result must be 'tensor<64xf32>' with a slice layout, got 'f32'}}
  %r = rocdsl.reduce add %t {axis = 1 : i32} : tensor<64x128xf32, #blk> -> f32
  rocdsl.return
}

// -----

#b1 = #rocdsl.blocked<sizePerThread = [4], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]>
#s0 = #rocdsl.slice<dim = 0, parent = #b1>
rocdsl.func @reduce_1d_not_scalar(%x: f32) attributes {num_warps = 4 : i32} {
  %t = rocdsl.splat %x : f32 -> tensor<256xf32, #b1>
  // expected-error@+1 {{'rocdsl.reduce' op reducing a 1-D tile gives a 'f32' scalar, got 'tensor<f32, #rocdsl.slice<dim = 0, parent = #rocdsl.blocked<sizePerThread = [4], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]>>>'}}
  %r = rocdsl.reduce add %t {axis = 0 : i32} : tensor<256xf32, #b1> -> tensor<f32, #s0>
  rocdsl.return
}

// -----

#b1 = #rocdsl.blocked<sizePerThread = [4], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]>
rocdsl.func @reduce_1d_wrong_scalar_type(%x: f32) attributes {num_warps = 4 : i32} {
  %t = rocdsl.splat %x : f32 -> tensor<256xf32, #b1>
  // expected-error@+1 {{'rocdsl.reduce' op reducing a 1-D tile gives a 'f32' scalar, got 'f16'}}
  %r = rocdsl.reduce min %t {axis = 0 : i32} : tensor<256xf32, #b1> -> f16
  rocdsl.return
}

// -----

#b1 = #rocdsl.blocked<sizePerThread = [4], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]>
rocdsl.func @reduce_unknown_kind(%x: f32) attributes {num_warps = 4 : i32} {
  %t = rocdsl.splat %x : f32 -> tensor<256xf32, #b1>
  // expected-error@+2 {{expected ::mlir::rocdsl::ReduceKind to be one of: add, mul, max, min}}
  // expected-error@+1 {{custom op 'rocdsl.reduce' failed to parse RocDSL_ReduceKindAttr parameter 'value' which is to be a `::mlir::rocdsl::ReduceKind`}}
  %r = rocdsl.reduce xor %t {axis = 0 : i32} : tensor<256xf32, #b1> -> f32
  rocdsl.return
}

//===----------------------------------------------------------------------===//
// dot
//===----------------------------------------------------------------------===//

// -----

#blk = #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#mfma = #rocdsl.mfma<version = 3, instrShape = [32, 32, 8], warpsPerCTA = [2, 2]>
#dotB = #rocdsl.dot_operand<opIdx = 1, parent = #mfma, kWidth = 4>
func.func @dot_a_blocked(%a: tensor<64x32xbf16, #blk>, %b: tensor<32x64xbf16, #dotB>, %c: tensor<64x64xf32, #mfma>) {
  // expected-error@+1 {{'rocdsl.dot' op operand a must have a #rocdsl.dot_operand<opIdx = 0, ...> layout, got #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1, 0]>}}
  %d = rocdsl.dot %a, %b, %c : tensor<64x32xbf16, #blk>, tensor<32x64xbf16, #dotB> -> tensor<64x64xf32, #mfma>
  return
}

// -----

#mfma = #rocdsl.mfma<version = 3, instrShape = [32, 32, 8], warpsPerCTA = [2, 2]>
#dotA = #rocdsl.dot_operand<opIdx = 0, parent = #mfma, kWidth = 4>
#dotB = #rocdsl.dot_operand<opIdx = 1, parent = #mfma, kWidth = 4>
func.func @dot_opidx_swapped(%a: tensor<64x32xbf16, #dotB>, %b: tensor<32x64xbf16, #dotA>, %c: tensor<64x64xf32, #mfma>) {
  // expected-error@+1 {{'rocdsl.dot' op operand a must have a #rocdsl.dot_operand<opIdx = 0, ...> layout, got #rocdsl.dot_operand<opIdx = 1,}}
  %d = rocdsl.dot %a, %b, %c : tensor<64x32xbf16, #dotB>, tensor<32x64xbf16, #dotA> -> tensor<64x64xf32, #mfma>
  return
}

// -----

#mfma = #rocdsl.mfma<version = 3, instrShape = [32, 32, 8], warpsPerCTA = [2, 2]>
#dotA = #rocdsl.dot_operand<opIdx = 0, parent = #mfma, kWidth = 4>
func.func @dot_b_opidx_0(%a: tensor<64x32xbf16, #dotA>, %b: tensor<32x64xbf16, #dotA>, %c: tensor<64x64xf32, #mfma>) {
  // expected-error@+1 {{'rocdsl.dot' op operand b must have a #rocdsl.dot_operand<opIdx = 1, ...> layout, got #rocdsl.dot_operand<opIdx = 0,}}
  %d = rocdsl.dot %a, %b, %c : tensor<64x32xbf16, #dotA>, tensor<32x64xbf16, #dotA> -> tensor<64x64xf32, #mfma>
  return
}

// -----

#mfma = #rocdsl.mfma<version = 3, instrShape = [32, 32, 8], warpsPerCTA = [2, 2]>
#mfma16 = #rocdsl.mfma<version = 3, instrShape = [16, 16, 16], warpsPerCTA = [2, 2]>
#dotA = #rocdsl.dot_operand<opIdx = 0, parent = #mfma16, kWidth = 4>
#dotB = #rocdsl.dot_operand<opIdx = 1, parent = #mfma, kWidth = 4>
func.func @dot_parent_differs(%a: tensor<64x32xbf16, #dotA>, %b: tensor<32x64xbf16, #dotB>, %c: tensor<64x64xf32, #mfma>) {
  // expected-error@+1 {{'rocdsl.dot' op operand a layout parent #rocdsl.mfma<version = 3, instrShape = [16, 16, 16], warpsPerCTA = [2, 2]> differs from the accumulator layout #rocdsl.mfma<version = 3, instrShape = [32, 32, 8], warpsPerCTA = [2, 2]>}}
  %d = rocdsl.dot %a, %b, %c : tensor<64x32xbf16, #dotA>, tensor<32x64xbf16, #dotB> -> tensor<64x64xf32, #mfma>
  return
}

// -----

#mfma = #rocdsl.mfma<version = 3, instrShape = [32, 32, 8], warpsPerCTA = [2, 2]>
#mfmaV4 = #rocdsl.mfma<version = 4, instrShape = [32, 32, 8], warpsPerCTA = [2, 2]>
#dotA = #rocdsl.dot_operand<opIdx = 0, parent = #mfma, kWidth = 4>
#dotB = #rocdsl.dot_operand<opIdx = 1, parent = #mfmaV4, kWidth = 4>
func.func @dot_b_parent_other_version(%a: tensor<64x32xbf16, #dotA>, %b: tensor<32x64xbf16, #dotB>, %c: tensor<64x64xf32, #mfma>) {
  // expected-error@+1 {{'rocdsl.dot' op operand b layout parent #rocdsl.mfma<version = 4, instrShape = [32, 32, 8], warpsPerCTA = [2, 2]> differs from the accumulator layout #rocdsl.mfma<version = 3,}}
  %d = rocdsl.dot %a, %b, %c : tensor<64x32xbf16, #dotA>, tensor<32x64xbf16, #dotB> -> tensor<64x64xf32, #mfma>
  return
}

// -----

#mfma = #rocdsl.mfma<version = 3, instrShape = [32, 32, 8], warpsPerCTA = [2, 2]>
#dotA = #rocdsl.dot_operand<opIdx = 0, parent = #mfma, kWidth = 4>
#dotB = #rocdsl.dot_operand<opIdx = 1, parent = #mfma, kWidth = 8>
func.func @dot_kwidth_mismatch(%a: tensor<64x32xbf16, #dotA>, %b: tensor<32x64xbf16, #dotB>, %c: tensor<64x64xf32, #mfma>) {
  // expected-error@+1 {{'rocdsl.dot' op operands a and b must use the same kWidth}}
  %d = rocdsl.dot %a, %b, %c : tensor<64x32xbf16, #dotA>, tensor<32x64xbf16, #dotB> -> tensor<64x64xf32, #mfma>
  return
}

// -----

#mfma = #rocdsl.mfma<version = 3, instrShape = [32, 32, 8], warpsPerCTA = [2, 2]>
#dotA = #rocdsl.dot_operand<opIdx = 0, parent = #mfma, kWidth = 4>
#dotB = #rocdsl.dot_operand<opIdx = 1, parent = #mfma, kWidth = 4>
func.func @dot_k_mismatch(%a: tensor<64x32xbf16, #dotA>, %b: tensor<16x64xbf16, #dotB>, %c: tensor<64x64xf32, #mfma>) {
  // expected-error@+1 {{'rocdsl.dot' op shape mismatch: a is 64x32, b is 16x64, accumulator is 64x64 (expected MxK, KxN, MxN)}}
  %d = rocdsl.dot %a, %b, %c : tensor<64x32xbf16, #dotA>, tensor<16x64xbf16, #dotB> -> tensor<64x64xf32, #mfma>
  return
}

// -----

#mfma = #rocdsl.mfma<version = 3, instrShape = [32, 32, 8], warpsPerCTA = [2, 2]>
#dotA = #rocdsl.dot_operand<opIdx = 0, parent = #mfma, kWidth = 4>
#dotB = #rocdsl.dot_operand<opIdx = 1, parent = #mfma, kWidth = 4>
func.func @dot_mn_mismatch(%a: tensor<64x32xbf16, #dotA>, %b: tensor<32x128xbf16, #dotB>, %c: tensor<64x64xf32, #mfma>) {
  // expected-error@+1 {{'rocdsl.dot' op shape mismatch: a is 64x32, b is 32x128, accumulator is 64x64 (expected MxK, KxN, MxN)}}
  %d = rocdsl.dot %a, %b, %c : tensor<64x32xbf16, #dotA>, tensor<32x128xbf16, #dotB> -> tensor<64x64xf32, #mfma>
  return
}

// -----

#mfma = #rocdsl.mfma<version = 3, instrShape = [32, 32, 8], warpsPerCTA = [2, 2]>
#dotA = #rocdsl.dot_operand<opIdx = 0, parent = #mfma, kWidth = 4>
#dotB = #rocdsl.dot_operand<opIdx = 1, parent = #mfma, kWidth = 4>
func.func @dot_element_type_mismatch(%a: tensor<64x32xbf16, #dotA>, %b: tensor<32x64xf16, #dotB>, %c: tensor<64x64xf32, #mfma>) {
  // expected-error@+1 {{'rocdsl.dot' op a and b must share an f16, bf16 or f8 element type, got 'bf16' and 'f16'}}
  %d = rocdsl.dot %a, %b, %c : tensor<64x32xbf16, #dotA>, tensor<32x64xf16, #dotB> -> tensor<64x64xf32, #mfma>
  return
}

// -----

#mfma = #rocdsl.mfma<version = 3, instrShape = [32, 32, 8], warpsPerCTA = [2, 2]>
#dotA = #rocdsl.dot_operand<opIdx = 0, parent = #mfma, kWidth = 4>
#dotB = #rocdsl.dot_operand<opIdx = 1, parent = #mfma, kWidth = 4>
func.func @dot_f32_operands(%a: tensor<64x32xf32, #dotA>, %b: tensor<32x64xf32, #dotB>, %c: tensor<64x64xf32, #mfma>) {
  // expected-error@+1 {{'rocdsl.dot' op a and b must share an f16, bf16 or f8 element type, got 'f32' and 'f32'}}
  %d = rocdsl.dot %a, %b, %c : tensor<64x32xf32, #dotA>, tensor<32x64xf32, #dotB> -> tensor<64x64xf32, #mfma>
  return
}

// -----

#mfma = #rocdsl.mfma<version = 3, instrShape = [32, 32, 8], warpsPerCTA = [2, 2]>
#dotA = #rocdsl.dot_operand<opIdx = 0, parent = #mfma, kWidth = 4>
#dotB = #rocdsl.dot_operand<opIdx = 1, parent = #mfma, kWidth = 4>
func.func @dot_accumulator_not_f32(%a: tensor<64x32xf16, #dotA>, %b: tensor<32x64xf16, #dotB>, %c: tensor<64x64xf16, #mfma>) {
  // expected-error@+1 {{'rocdsl.dot' op accumulator must be f32, got 'f16'}}
  %d = rocdsl.dot %a, %b, %c : tensor<64x32xf16, #dotA>, tensor<32x64xf16, #dotB> -> tensor<64x64xf16, #mfma>
  return
}

// -----

#mfma = #rocdsl.mfma<version = 3, instrShape = [32, 32, 8], warpsPerCTA = [2, 2]>
#dotA = #rocdsl.dot_operand<opIdx = 0, parent = #mfma, kWidth = 4>
#dotB = #rocdsl.dot_operand<opIdx = 1, parent = #mfma, kWidth = 4>
func.func @dot_k_not_multiple_of_instr(%a: tensor<64x4xbf16, #dotA>, %b: tensor<4x64xbf16, #dotB>, %c: tensor<64x64xf32, #mfma>) {
  // expected-error@+1 {{'rocdsl.dot' op tile 64x64x4 is not a multiple of the matrix instruction 32x32x8}}
  %d = rocdsl.dot %a, %b, %c : tensor<64x4xbf16, #dotA>, tensor<4x64xbf16, #dotB> -> tensor<64x64xf32, #mfma>
  return
}

// -----

#mfma = #rocdsl.mfma<version = 4, instrShape = [32, 32, 16], warpsPerCTA = [2, 2]>
#dotA = #rocdsl.dot_operand<opIdx = 0, parent = #mfma, kWidth = 8>
#dotB = #rocdsl.dot_operand<opIdx = 1, parent = #mfma, kWidth = 8>
func.func @dot_m_not_multiple_of_instr(%a: tensor<16x32xbf16, #dotA>, %b: tensor<32x64xbf16, #dotB>, %c: tensor<16x64xf32, #mfma>) {
  // expected-error@+1 {{'rocdsl.dot' op tile 16x64x32 is not a multiple of the matrix instruction 32x32x16}}
  %d = rocdsl.dot %a, %b, %c : tensor<16x32xbf16, #dotA>, tensor<32x64xbf16, #dotB> -> tensor<16x64xf32, #mfma>
  return
}

// -----

#blk = #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#mfma = #rocdsl.mfma<version = 3, instrShape = [32, 32, 8], warpsPerCTA = [2, 2]>
#dotA = #rocdsl.dot_operand<opIdx = 0, parent = #mfma, kWidth = 4>
#dotB = #rocdsl.dot_operand<opIdx = 1, parent = #mfma, kWidth = 4>
func.func @dot_accumulator_not_mfma(%a: tensor<64x32xbf16, #dotA>, %b: tensor<32x64xbf16, #dotB>, %c: tensor<64x64xf32, #blk>) {
  // expected-error@+1 {{'rocdsl.dot' op accumulator must have a #rocdsl.mfma (AMD) or #rocdsl.mma (NVIDIA) layout, got #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1, 0]>}}
  %d = rocdsl.dot %a, %b, %c : tensor<64x32xbf16, #dotA>, tensor<32x64xbf16, #dotB> -> tensor<64x64xf32, #blk>
  return
}

// -----

#mfma = #rocdsl.mfma<version = 3, instrShape = [32, 32, 8], warpsPerCTA = [2, 2]>
#dotA = #rocdsl.dot_operand<opIdx = 0, parent = #mfma, kWidth = 4>
#dotB = #rocdsl.dot_operand<opIdx = 1, parent = #mfma, kWidth = 4>
func.func @dot_result_differs_from_accumulator(%a: tensor<64x32xbf16, #dotA>, %b: tensor<32x64xbf16, #dotB>, %c: tensor<64x64xf32, #mfma>) {
  // expected-error@+1 {{'rocdsl.dot' op failed to verify that all of {c, result} have same type}}
  %d = "rocdsl.dot"(%a, %b, %c) : (tensor<64x32xbf16, #dotA>, tensor<32x64xbf16, #dotB>, tensor<64x64xf32, #mfma>) -> tensor<64x64xf16, #mfma>
  return
}

//===----------------------------------------------------------------------===//
// LDS
//===----------------------------------------------------------------------===//

// -----

#shared = #rocdsl.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>
#blk = #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1, 0]>
rocdsl.func @local_load_shape_mismatch() attributes {num_warps = 4 : i32} {
  %buf = rocdsl.local_alloc -> !rocdsl.lds<64x32xbf16, #shared>
  // expected-error@+1 {{'rocdsl.local_load' op register tile 'tensor<32x64xbf16, #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1, 0]>>' and LDS tile '!rocdsl.lds<64x32xbf16, #rocdsl.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>>' differ in shape or element type}}
  %t = rocdsl.local_load %buf : !rocdsl.lds<64x32xbf16, #shared> -> tensor<32x64xbf16, #blk>
  rocdsl.return
}

// -----

#shared = #rocdsl.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>
#blk = #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1, 0]>
rocdsl.func @local_store_element_type(%x: f16) attributes {num_warps = 4 : i32} {
  %buf = rocdsl.local_alloc -> !rocdsl.lds<64x32xbf16, #shared>
  %t = rocdsl.splat %x : f16 -> tensor<64x32xf16, #blk>
  // expected-error@+1 {{'rocdsl.local_store' op register tile 'tensor<64x32xf16,}}
  rocdsl.local_store %t, %buf : tensor<64x32xf16, #blk>, !rocdsl.lds<64x32xbf16, #shared>
  rocdsl.return
}

// -----

#shared = #rocdsl.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>
#blk = #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1, 0]>
rocdsl.func @local_alloc_init_shape(%x: bf16) attributes {num_warps = 4 : i32} {
  %t = rocdsl.splat %x : bf16 -> tensor<64x64xbf16, #blk>
  // expected-error-re@+1 {{'rocdsl.local_alloc' op register tile 'tensor<64x64xbf16, {{.*}}>' and LDS tile '!rocdsl.lds<64x32xbf16, {{.*}}>' differ in shape or element type}}
  %buf = rocdsl.local_alloc %t : tensor<64x64xbf16, #blk> -> !rocdsl.lds<64x32xbf16, #shared>
  rocdsl.return
}

// -----

#shared = #rocdsl.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>
rocdsl.func @local_load_without_encoding() attributes {num_warps = 4 : i32} {
  %buf = rocdsl.local_alloc -> !rocdsl.lds<64x32xbf16, #shared>
  // expected-error@+1 {{'rocdsl.local_load' op register tile 'tensor<64x32xbf16>' has no layout encoding}}
  %t = rocdsl.local_load %buf : !rocdsl.lds<64x32xbf16, #shared> -> tensor<64x32xbf16>
  rocdsl.return
}

//===----------------------------------------------------------------------===//
// Escape hatches
//===----------------------------------------------------------------------===//

// -----

rocdsl.func @wait_without_counter() attributes {num_warps = 4 : i32} {
  // expected-error@+1 {{'rocdsl.wait' op must wait on at least one counter (vmcnt or lgkmcnt)}}
  rocdsl.wait
  rocdsl.return
}

// -----

rocdsl.func @wait_vmcnt_out_of_range() attributes {num_warps = 4 : i32} {
  // expected-error@+1 {{'rocdsl.wait' op attribute 'vmcnt' failed to satisfy constraint: 32-bit signless integer attribute whose minimum value is 0 whose maximum value is 63}}
  rocdsl.wait {vmcnt = 64 : i32}
  rocdsl.return
}

// -----

rocdsl.func @wait_lgkmcnt_out_of_range() attributes {num_warps = 4 : i32} {
  // expected-error@+1 {{'rocdsl.wait' op attribute 'lgkmcnt' failed to satisfy constraint: 32-bit signless integer attribute whose minimum value is 0 whose maximum value is 15}}
  rocdsl.wait {lgkmcnt = 16 : i32}
  rocdsl.return
}

// -----

rocdsl.func @sched_group_without_class() attributes {num_warps = 4 : i32} {
  // expected-error@+1 {{'rocdsl.sched_group_barrier' op attribute 'mask' failed to satisfy constraint: 32-bit signless integer attribute whose minimum value is 1 whose maximum value is 2047}}
  rocdsl.sched_group_barrier {mask = 0 : i32, size = 1 : i32}
  rocdsl.return
}

// -----

rocdsl.func @sched_group_empty() attributes {num_warps = 4 : i32} {
  // expected-error@+1 {{'rocdsl.sched_group_barrier' op attribute 'size' failed to satisfy constraint: 32-bit signless integer attribute whose minimum value is 1}}
  rocdsl.sched_group_barrier {mask = 8 : i32, size = 0 : i32}
  rocdsl.return
}

// -----

rocdsl.func @priority_out_of_range() attributes {num_warps = 1 : i32} {
  // expected-error@+1 {{'rocdsl.set_priority' op attribute 'priority' failed to satisfy constraint: 32-bit signless integer attribute whose minimum value is 0 whose maximum value is 3}}
  rocdsl.set_priority {priority = 4 : i32}
  rocdsl.return
}

// -----

rocdsl.func @sched_group_needs_size() attributes {num_warps = 4 : i32} {
  // expected-error@+1 {{'rocdsl.sched_group_barrier' op requires attribute 'size'}}
  rocdsl.sched_group_barrier {mask = 8 : i32}
  rocdsl.return
}

// -----

#b = #rocdsl.blocked<sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]>
rocdsl.func @load_index_elements(%p: !rocdsl.ptr<index>) attributes {num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  // expected-error@+1 {{memory tiles hold 8-, 16-, 32- or 64-bit integers or floats, got 'index'}}
  %t = rocdsl.load %p[%c0] : !rocdsl.ptr<index> -> tensor<64xindex, #b>
  rocdsl.return
}

// -----

#blk = #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1, 0]>
rocdsl.func @vec_wider_than_tile(%p: !rocdsl.ptr<bf16>, %i: i32, %n: i32) attributes {num_warps = 4 : i32} {
  // expected-error@+1 {{vec = 8 does not divide the innermost tile dimension 4}}
  %t = rocdsl.load %p[%i, %i] strides [%n] {vec = 8 : i32} : !rocdsl.ptr<bf16> -> tensor<64x4xbf16, #blk>
  rocdsl.return
}

// -----

#big = #rocdsl.blocked<sizePerThread = [2048], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]>
rocdsl.func @vec_bits_overflow(%p: !rocdsl.ptr<f32>) attributes {num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  // expected-error@+1 {{vec = 2048 of 'f32' is 65536 bits; one access moves at most 128 bits}}
  %t = rocdsl.load %p[%c0] {vec = 2048 : i32} : !rocdsl.ptr<f32> -> tensor<2048xf32, #big>
  rocdsl.return
}

// -----

#w64 = #rocdsl.blocked<sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [1], order = [0]>
#w32 = #rocdsl.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]>
rocdsl.func @convert_between_wave_sizes(%x: f32) attributes {num_warps = 1 : i32} {
  %t = rocdsl.splat %x : f32 -> tensor<64xf32, #w64>
  // expected-error@+1 {{layouts assume different wave sizes (64 vs 32)}}
  %u = rocdsl.convert_layout %t : tensor<64xf32, #w64> -> tensor<64xf32, #w32>
  rocdsl.return
}

// -----

#s4 = #rocdsl.blocked<sizePerThread = [4], threadsPerWarp = [64], warpsPerCTA = [1], order = [0]>
rocdsl.func @vec_crosses_constant_bound(%p: !rocdsl.ptr<f32>) attributes {num_warps = 1 : i32} {
  %c0 = arith.constant 0 : i32
  %c6 = arith.constant 6 : i32
  // expected-error@+1 {{vec = 4 but the innermost bound 6 is not a multiple of it; groups would cross the bound}}
  %t = rocdsl.load %p[%c0] bounds [%c6] {vec = 4 : i32} : !rocdsl.ptr<f32> -> tensor<8xf32, #s4>
  rocdsl.return
}

// -----

#b = #rocdsl.blocked<sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [1], order = [0]>
rocdsl.func @load_i1(%p: !rocdsl.ptr<i1>) attributes {num_warps = 1 : i32} {
  %c0 = arith.constant 0 : i32
  // expected-error@+1 {{memory tiles hold 8-, 16-, 32- or 64-bit integers or floats, got 'i1'}}
  %t = rocdsl.load %p[%c0] : !rocdsl.ptr<i1> -> tensor<128xi1, #b>
  rocdsl.return
}

// -----

#b = #rocdsl.blocked<sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [1], order = [0]>
rocdsl.func @dynamic_tile(%x: f32) attributes {num_warps = 1 : i32} {
  // expected-error@+1 {{result tile 'tensor<?xf32, #rocdsl.blocked<sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [1], order = [0]>>' must have a static shape with every dimension at least 1}}
  %t = rocdsl.splat %x : f32 -> tensor<?xf32, #b>
  rocdsl.return
}

// -----

#b = #rocdsl.blocked<sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [1], order = [0]>
rocdsl.func @empty_tile(%x: f32) attributes {num_warps = 1 : i32} {
  // expected-error@+1 {{must have a static shape with every dimension at least 1}}
  %t = rocdsl.splat %x : f32 -> tensor<0xf32, #b>
  rocdsl.return
}

// -----

#b = #rocdsl.blocked<sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [1], order = [0]>
rocdsl.func @trans_rank1(%x: f32) attributes {num_warps = 1 : i32} {
  %t = rocdsl.splat %x : f32 -> tensor<64xf32, #b>
  // expected-error@+1 {{'rocdsl.trans' op transposes 2-D tiles, got rank 1}}
  %u = rocdsl.trans %t : tensor<64xf32, #b> -> tensor<64xf32, #b>
  rocdsl.return
}

// -----

#b = #rocdsl.blocked<sizePerThread = [1, 1], threadsPerWarp = [8, 8], warpsPerCTA = [1, 1], order = [1, 0]>
rocdsl.func @trans_shape(%x: f32) attributes {num_warps = 1 : i32} {
  %t = rocdsl.splat %x : f32 -> tensor<8x16xf32, #b>
  // expected-error@+1 {{'rocdsl.trans' op result must be the operand with its dimensions swapped}}
  %u = rocdsl.trans %t : tensor<8x16xf32, #b> -> tensor<8x16xf32, #b>
  rocdsl.return
}

// -----

#s2 = #rocdsl.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>
rocdsl.func @local_index_rank_one(%i: i32) attributes {num_warps = 4 : i32} {
  %buf = rocdsl.local_alloc -> !rocdsl.lds<64xbf16, #rocdsl.shared<vec = 1, perPhase = 1, maxPhase = 1, order = [0]>>
  // expected-error@+1 {{'rocdsl.local_index' op indexes a stack of buffers along the leading dimension; '!rocdsl.lds<64xbf16, #rocdsl.shared<vec = 1, perPhase = 1, maxPhase = 1, order = [0]>>' has rank 1}}
  %one = rocdsl.local_index %buf[%i] : !rocdsl.lds<64xbf16, #rocdsl.shared<vec = 1, perPhase = 1, maxPhase = 1, order = [0]>> -> !rocdsl.lds<64xbf16, #rocdsl.shared<vec = 1, perPhase = 1, maxPhase = 1, order = [0]>>
  rocdsl.return
}

// -----

#s3 = #rocdsl.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0]>
#s2 = #rocdsl.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>
rocdsl.func @local_index_wrong_shape(%i: i32) attributes {num_warps = 4 : i32} {
  %buf = rocdsl.local_alloc -> !rocdsl.lds<2x64x32xbf16, #s3>
  // expected-error-re@+1 {{'rocdsl.local_index' op result '!rocdsl.lds<32x64xbf16, {{.*}}>' is neither one buffer of '!rocdsl.lds<2x64x32xbf16, {{.*}}>' (its shape without the leading dimension) nor a view of its bytes: row-major with the same swizzle and row length, a whole number of swizzle periods of rows, and elements dividing one buffer's}}
  %one = rocdsl.local_index %buf[%i] : !rocdsl.lds<2x64x32xbf16, #s3> -> !rocdsl.lds<32x64xbf16, #s2>
  rocdsl.return
}

// -----

#s3 = #rocdsl.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0]>
#s2 = #rocdsl.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>
rocdsl.func @local_index_element_type(%i: i32) attributes {num_warps = 4 : i32} {
  %buf = rocdsl.local_alloc -> !rocdsl.lds<2x64x32xbf16, #s3>
  // expected-error@+1 {{must have the element type of}}
  %one = rocdsl.local_index %buf[%i] : !rocdsl.lds<2x64x32xbf16, #s3> -> !rocdsl.lds<64x32xf16, #s2>
  rocdsl.return
}

// -----

// A view of other buffers keeps each row's swizzle phase only in whole
// periods of rows (8 here): 4 rows is not one.
#s3 = #rocdsl.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0]>
rocdsl.func @local_index_view_part_of_a_period(%i: i32) attributes {num_warps = 4 : i32} {
  %buf = rocdsl.local_alloc -> !rocdsl.lds<1x128x64xbf16, #s3>
  // expected-error@+1 {{nor a view of its bytes}}
  %one = rocdsl.local_index %buf[%i] : !rocdsl.lds<1x128x64xbf16, #s3> -> !rocdsl.lds<1x4x64xbf16, #s3>
  rocdsl.return
}

// -----

// ...nor with elements that do not divide one buffer's (48 rows of 128).
#s3 = #rocdsl.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0]>
rocdsl.func @local_index_view_not_dividing(%i: i32) attributes {num_warps = 4 : i32} {
  %buf = rocdsl.local_alloc -> !rocdsl.lds<1x128x64xbf16, #s3>
  // expected-error@+1 {{nor a view of its bytes}}
  %one = rocdsl.local_index %buf[%i] : !rocdsl.lds<1x128x64xbf16, #s3> -> !rocdsl.lds<1x48x64xbf16, #s3>
  rocdsl.return
}

// -----

// An atomic_add takes one stride per dimension at most.
#atomic_2d = #rocdsl.blocked<sizePerThread = [1, 1], threadsPerWarp = [8, 8], warpsPerCTA = [1, 1], order = [1, 0]>
rocdsl.func @atomic_add_too_many_strides(%p: !rocdsl.ptr<f32>, %v: f32) attributes {num_warps = 1 : i32} {
  %c1 = arith.constant 1 : i32
  %t = rocdsl.splat %v : f32 -> tensor<8x8xf32, #atomic_2d>
  // expected-error@+1 {{'rocdsl.atomic_add' op expected 1 leading strides or 2 (one per dimension), got 3}}
  rocdsl.atomic_add %t, %p[%c1, %c1] strides [%c1, %c1, %c1] : tensor<8x8xf32, #atomic_2d>, !rocdsl.ptr<f32>
  rocdsl.return
}

// -----

#s3 = #rocdsl.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [2, 0, 1]>
#s2 = #rocdsl.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>
rocdsl.func @local_index_buffer_dim_not_slowest(%i: i32) attributes {num_warps = 4 : i32} {
  %buf = rocdsl.local_alloc -> !rocdsl.lds<2x64x32xbf16, #s3>
  // expected-error@+1 {{'rocdsl.local_index' op the source's leading (buffer) dimension must be its slowest: last in the #rocdsl.shared order}}
  %one = rocdsl.local_index %buf[%i] : !rocdsl.lds<2x64x32xbf16, #s3> -> !rocdsl.lds<64x32xbf16, #s2>
  rocdsl.return
}

// -----

#s3 = #rocdsl.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0]>
#s2 = #rocdsl.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>
rocdsl.func @local_index_other_swizzle(%i: i32) attributes {num_warps = 4 : i32} {
  %buf = rocdsl.local_alloc -> !rocdsl.lds<2x64x32xbf16, #s3>
  // expected-error@+1 {{'rocdsl.local_index' op result layout #rocdsl.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]> must be the source's #rocdsl.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0]> without the buffer dimension}}
  %one = rocdsl.local_index %buf[%i] : !rocdsl.lds<2x64x32xbf16, #s3> -> !rocdsl.lds<64x32xbf16, #s2>
  rocdsl.return
}

// -----

#s2 = #rocdsl.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>
#b = #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>
rocdsl.func @async_copy_shape(%p: !rocdsl.ptr<bf16>) attributes {num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %buf = rocdsl.local_alloc -> !rocdsl.lds<32x32xbf16, #s2>
  // expected-error-re@+1 {{'rocdsl.async_copy' op register tile 'tensor<64x32xbf16, {{.*}}>' and LDS tile '!rocdsl.lds<32x32xbf16, {{.*}}>' differ in shape or element type}}
  rocdsl.async_copy %p[%c0, %c0] strides [%c32], %buf : !rocdsl.ptr<bf16>, tensor<64x32xbf16, #b> -> !rocdsl.lds<32x32xbf16, #s2>
  rocdsl.return
}

// -----

#s2 = #rocdsl.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>
#b = #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>
rocdsl.func @async_copy_pointer(%p: !rocdsl.ptr<f16>) attributes {num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %buf = rocdsl.local_alloc -> !rocdsl.lds<64x32xbf16, #s2>
  // expected-error@+1 {{'rocdsl.async_copy' op pointer element type 'f16' does not match tile element type 'bf16'}}
  rocdsl.async_copy %p[%c0, %c0] strides [%c32], %buf : !rocdsl.ptr<f16>, tensor<64x32xbf16, #b> -> !rocdsl.lds<64x32xbf16, #s2>
  rocdsl.return
}

// -----

rocdsl.func @async_wait_count() attributes {num_warps = 4 : i32} {
  // expected-error@+1 {{'rocdsl.async_wait' op attribute 'pending' failed to satisfy constraint}}
  rocdsl.async_wait {pending = 8 : i32}
  rocdsl.return
}

// -----

#shared = #rocdsl.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>
#blk = #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1, 0]>
rocdsl.func @local_load_trans_shape() attributes {num_warps = 4 : i32} {
  %buf = rocdsl.local_alloc -> !rocdsl.lds<64x32xbf16, #shared>
  // expected-error-re@+1 {{'rocdsl.local_load' op register tile 'tensor<64x32xbf16, {{.*}}>' is not the transpose of LDS tile '!rocdsl.lds<64x32xbf16, {{.*}}>' (its shape reversed, the same element type)}}
  %t = rocdsl.local_load %buf {trans} : !rocdsl.lds<64x32xbf16, #shared> -> tensor<64x32xbf16, #blk>
  rocdsl.return
}

// -----

#shared3 = #rocdsl.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0]>
#blk = #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1, 0]>
rocdsl.func @local_load_trans_rank() attributes {num_warps = 4 : i32} {
  %buf = rocdsl.local_alloc -> !rocdsl.lds<2x64x32xbf16, #shared3>
  // expected-error@+1 {{'rocdsl.local_load' op reads a transpose of 2-D tiles only; '!rocdsl.lds<2x64x32xbf16, #rocdsl.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0]>>' has rank 3}}
  %t = rocdsl.local_load %buf {trans} : !rocdsl.lds<2x64x32xbf16, #shared3> -> tensor<32x64xbf16, #blk>
  rocdsl.return
}

// -----

rocdsl.func @warpgroup_dot_warps() attributes {num_warps = 4 : i32} {
  %a = rocdsl.local_alloc -> !rocdsl.lds<128x64xbf16, #rocdsl.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>>
  %b = rocdsl.local_alloc -> !rocdsl.lds<128x64xbf16, #rocdsl.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>>
  %c = arith.constant dense<0.0> : tensor<128x128xf32, #rocdsl.mma<version = 2, instrShape = [16, 8, 16], warpsPerCTA = [2, 2]>>
  // expected-error @+1 {{accumulator must have a #rocdsl.mma layout with warpsPerCTA = [W, 1], W a multiple of 4}}
  %d = rocdsl.warpgroup_dot %a, %b, %c : !rocdsl.lds<128x64xbf16, #rocdsl.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>>, !rocdsl.lds<128x64xbf16, #rocdsl.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>>, tensor<128x128xf32, #rocdsl.mma<version = 2, instrShape = [16, 8, 16], warpsPerCTA = [2, 2]>>
  rocdsl.return
}

// -----

rocdsl.func @warpgroup_dot_swizzle() attributes {num_warps = 4 : i32} {
  %a = rocdsl.local_alloc -> !rocdsl.lds<128x64xbf16, #rocdsl.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>>
  %b = rocdsl.local_alloc -> !rocdsl.lds<128x64xbf16, #rocdsl.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>>
  %c = arith.constant dense<0.0> : tensor<128x128xf32, #rocdsl.mma<version = 2, instrShape = [16, 8, 16], warpsPerCTA = [4, 1]>>
  // expected-error @+1 {{operand b must be laid out in the matrix unit's 128-byte swizzle}}
  %d = rocdsl.warpgroup_dot %a, %b, %c : !rocdsl.lds<128x64xbf16, #rocdsl.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>>, !rocdsl.lds<128x64xbf16, #rocdsl.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>>, tensor<128x128xf32, #rocdsl.mma<version = 2, instrShape = [16, 8, 16], warpsPerCTA = [4, 1]>>
  rocdsl.return
}

// -----

rocdsl.func @warpgroup_dot_k() attributes {num_warps = 4 : i32} {
  %a = rocdsl.local_alloc -> !rocdsl.lds<128x32xbf16, #rocdsl.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>>
  %b = rocdsl.local_alloc -> !rocdsl.lds<128x64xbf16, #rocdsl.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>>
  %c = arith.constant dense<0.0> : tensor<128x128xf32, #rocdsl.mma<version = 2, instrShape = [16, 8, 16], warpsPerCTA = [4, 1]>>
  // expected-error @+1 {{a must be an LDS tile of 128x64 (M x K, K fastest)}}
  %d = rocdsl.warpgroup_dot %a, %b, %c : !rocdsl.lds<128x32xbf16, #rocdsl.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>>, !rocdsl.lds<128x64xbf16, #rocdsl.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>>, tensor<128x128xf32, #rocdsl.mma<version = 2, instrShape = [16, 8, 16], warpsPerCTA = [4, 1]>>
  rocdsl.return
}

// -----

rocdsl.func @warpgroup_dot_panels() attributes {num_warps = 4 : i32} {
  %a = rocdsl.local_alloc -> !rocdsl.lds<128x64xbf16, #rocdsl.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>>
  %b = rocdsl.local_alloc -> !rocdsl.lds<3x64x64xbf16, #rocdsl.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0]>>
  %c = arith.constant dense<0.0> : tensor<128x128xf32, #rocdsl.mma<version = 2, instrShape = [16, 8, 16], warpsPerCTA = [4, 1]>>
  // expected-error @+1 {{b must be an LDS tile of 128x64 (N x K, K fastest) or 2x64x64 (panels of 64 columns}}
  %d = rocdsl.warpgroup_dot %a, %b, %c : !rocdsl.lds<128x64xbf16, #rocdsl.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>>, !rocdsl.lds<3x64x64xbf16, #rocdsl.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0]>>, tensor<128x128xf32, #rocdsl.mma<version = 2, instrShape = [16, 8, 16], warpsPerCTA = [4, 1]>>
  rocdsl.return
}

// -----

rocdsl.func @warpgroup_dot_type() attributes {num_warps = 4 : i32} {
  %a = rocdsl.local_alloc -> !rocdsl.lds<128x32xf32, #rocdsl.shared<vec = 4, perPhase = 1, maxPhase = 8, order = [1, 0]>>
  %b = rocdsl.local_alloc -> !rocdsl.lds<128x32xf32, #rocdsl.shared<vec = 4, perPhase = 1, maxPhase = 8, order = [1, 0]>>
  %c = arith.constant dense<0.0> : tensor<128x128xf32, #rocdsl.mma<version = 2, instrShape = [16, 8, 16], warpsPerCTA = [4, 1]>>
  // expected-error @+1 {{a and b must share an f16 or bf16 element type}}
  %d = rocdsl.warpgroup_dot %a, %b, %c : !rocdsl.lds<128x32xf32, #rocdsl.shared<vec = 4, perPhase = 1, maxPhase = 8, order = [1, 0]>>, !rocdsl.lds<128x32xf32, #rocdsl.shared<vec = 4, perPhase = 1, maxPhase = 8, order = [1, 0]>>, tensor<128x128xf32, #rocdsl.mma<version = 2, instrShape = [16, 8, 16], warpsPerCTA = [4, 1]>>
  rocdsl.return
}

// -----

#wmma = #rocdsl.mma<version = 2, instrShape = [16, 8, 16], warpsPerCTA = [4, 1]>
#wsw = #rocdsl.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>
rocdsl.func @warpgroup_dot_in_flight_stored(%p: !rocdsl.ptr<f32>) attributes {num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %a = rocdsl.local_alloc -> !rocdsl.lds<64x64xbf16, #wsw>
  %b = rocdsl.local_alloc -> !rocdsl.lds<64x64xbf16, #wsw>
  %c = arith.constant dense<0.0> : tensor<64x64xf32, #wmma>
  // expected-error @+1 {{result with pending = 1 is still being computed: it may only be another warpgroup_dot's accumulator, a warpgroup_wait's operand or a loop's carried value, not an operand of rocdsl.store}}
  %d = rocdsl.warpgroup_dot %a, %b, %c {pending = 1 : i32} : !rocdsl.lds<64x64xbf16, #wsw>, !rocdsl.lds<64x64xbf16, #wsw>, tensor<64x64xf32, #wmma>
  rocdsl.store %d, %p[%c0, %c0] strides [%c64] : tensor<64x64xf32, #wmma>, !rocdsl.ptr<f32>
  rocdsl.return
}

// -----

#wmma = #rocdsl.mma<version = 2, instrShape = [16, 8, 16], warpsPerCTA = [4, 1]>
#wsw = #rocdsl.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>
rocdsl.func @warpgroup_dot_in_flight_as_operand() attributes {num_warps = 4 : i32} {
  %a = rocdsl.local_alloc -> !rocdsl.lds<64x64xbf16, #wsw>
  %b = rocdsl.local_alloc -> !rocdsl.lds<64x64xbf16, #wsw>
  %c = arith.constant dense<0.0> : tensor<64x64xf32, #wmma>
  // expected-error @+1 {{result with pending = 2 is still being computed}}
  %d = rocdsl.warpgroup_dot %a, %b, %c {pending = 2 : i32} : !rocdsl.lds<64x64xbf16, #wsw>, !rocdsl.lds<64x64xbf16, #wsw>, tensor<64x64xf32, #wmma>
  %e = arith.addf %d, %d : tensor<64x64xf32, #wmma>
  rocdsl.return
}

// -----

#wmma = #rocdsl.mma<version = 2, instrShape = [16, 8, 16], warpsPerCTA = [4, 1]>
#wsw = #rocdsl.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>
rocdsl.func @warpgroup_dot_pending_range() attributes {num_warps = 4 : i32} {
  %a = rocdsl.local_alloc -> !rocdsl.lds<64x64xbf16, #wsw>
  %b = rocdsl.local_alloc -> !rocdsl.lds<64x64xbf16, #wsw>
  %c = arith.constant dense<0.0> : tensor<64x64xf32, #wmma>
  // expected-error @+1 {{attribute 'pending' failed to satisfy constraint}}
  %d = rocdsl.warpgroup_dot %a, %b, %c {pending = 8 : i32} : !rocdsl.lds<64x64xbf16, #wsw>, !rocdsl.lds<64x64xbf16, #wsw>, tensor<64x64xf32, #wmma>
  rocdsl.return
}

// -----

#blk = #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1, 0]>
rocdsl.func @warpgroup_wait_layout() attributes {num_warps = 4 : i32} {
  %c = arith.constant dense<0.0> : tensor<64x64xf32, #blk>
  // expected-error @+1 {{accumulator must have a #rocdsl.mma layout with warpsPerCTA = [W, 1]}}
  %d = rocdsl.warpgroup_wait %c : tensor<64x64xf32, #blk>
  rocdsl.return
}

// -----

rocdsl.func @warpgroup_dot_rows() attributes {num_warps = 8 : i32} {
  %a = rocdsl.local_alloc -> !rocdsl.lds<64x64xbf16, #rocdsl.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>>
  %b = rocdsl.local_alloc -> !rocdsl.lds<128x64xbf16, #rocdsl.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>>
  %c = arith.constant dense<0.0> : tensor<64x128xf32, #rocdsl.mma<version = 2, instrShape = [16, 8, 16], warpsPerCTA = [8, 1]>>
  // expected-error @+1 {{accumulator 64x128: M must be a multiple of 128 (16 rows a warp)}}
  %d = rocdsl.warpgroup_dot %a, %b, %c : !rocdsl.lds<64x64xbf16, #rocdsl.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>>, !rocdsl.lds<128x64xbf16, #rocdsl.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>>, tensor<64x128xf32, #rocdsl.mma<version = 2, instrShape = [16, 8, 16], warpsPerCTA = [8, 1]>>
  rocdsl.return
}

// -----

#atomic_b16 = #rocdsl.blocked<sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [1], order = [0]>
rocdsl.func @atomic_add_bf16(%p: !rocdsl.ptr<bf16>, %v: bf16) attributes {num_warps = 1 : i32} {
  %c0 = arith.constant 0 : i32
  %t = rocdsl.splat %v : bf16 -> tensor<64xbf16, #atomic_b16>
  // expected-error@+1 {{'rocdsl.atomic_add' op adds f32 or i32 elements atomically, got 'bf16'}}
  rocdsl.atomic_add %t, %p[%c0] : tensor<64xbf16, #atomic_b16>, !rocdsl.ptr<bf16>
  rocdsl.return
}

// -----

#atomic_f = #rocdsl.blocked<sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [1], order = [0]>
rocdsl.func @atomic_add_pointer_type(%p: !rocdsl.ptr<i32>, %v: f32) attributes {num_warps = 1 : i32} {
  %c0 = arith.constant 0 : i32
  %t = rocdsl.splat %v : f32 -> tensor<64xf32, #atomic_f>
  // expected-error@+1 {{'rocdsl.atomic_add' op pointer element type 'i32' does not match tile element type 'f32'}}
  rocdsl.atomic_add %t, %p[%c0] : tensor<64xf32, #atomic_f>, !rocdsl.ptr<i32>
  rocdsl.return
}

// -----

rocdsl.func @program_atomic_float(%p: !rocdsl.ptr<f32>, %v: i32) attributes {num_warps = 1 : i32} {
  // expected-error@+1 {{'rocdsl.program_atomic' op updates an i32, got a pointer to 'f32'}}
  %old = rocdsl.program_atomic add %p[%v], %v : !rocdsl.ptr<f32>
  rocdsl.return
}

// -----

rocdsl.func @program_atomic_kind(%p: !rocdsl.ptr<i32>, %v: i32) attributes {num_warps = 1 : i32} {
  // expected-error@+2 {{expected ::mlir::rocdsl::ProgramAtomicKind to be one of: add, xchg, max}}
  // expected-error@+1 {{failed to parse RocDSL_ProgramAtomicKindAttr parameter}}
  %old = rocdsl.program_atomic sub %p[%v], %v : !rocdsl.ptr<i32>
  rocdsl.return
}
