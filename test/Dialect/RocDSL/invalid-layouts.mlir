// RUN: rocdsl-opt %s --split-input-file --verify-diagnostics

// Checks the diagnostics of the layout-attribute and LDS/pointer type verifiers (one error per split).

//===----------------------------------------------------------------------===//
// #rocdsl.blocked
//===----------------------------------------------------------------------===//

// expected-error@+1 {{blocked layout fields must all have 2 entries (sizePerThread has 2, threadsPerWarp 1, warpsPerCTA 2)}}
func.func private @blocked_threads_length(tensor<64x64xf32, #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [64], warpsPerCTA = [4, 1], order = [1, 0]>>)

// -----

// expected-error@+1 {{blocked layout fields must all have 2 entries (sizePerThread has 2, threadsPerWarp 2, warpsPerCTA 3)}}
func.func private @blocked_warps_length(tensor<64x64xf32, #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1, 1], order = [1, 0]>>)

// -----

// expected-error@+1 {{blocked layout fields must all have 1 entries (sizePerThread has 1, threadsPerWarp 2, warpsPerCTA 2)}}
func.func private @blocked_size_length(tensor<64x64xf32, #rocdsl.blocked<sizePerThread = [8], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1, 0]>>)

// -----

// expected-error@+1 {{order has 1 entries, expected 2}}
func.func private @blocked_order_length(tensor<64x64xf32, #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1]>>)

// -----

// expected-error@+1 {{blocked layout entries must be in [1, 65536], got 0}}
func.func private @blocked_zero_size(tensor<64x64xf32, #rocdsl.blocked<sizePerThread = [0, 8], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1, 0]>>)

// -----

// expected-error@+1 {{blocked layout entries must be in [1, 65536], got 0}}
func.func private @blocked_zero_threads(tensor<64x64xf32, #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [0, 64], warpsPerCTA = [4, 1], order = [1, 0]>>)

// -----

// expected-error@+1 {{blocked layout entries must be in [1, 65536], got 0}}
func.func private @blocked_zero_warps(tensor<64x64xf32, #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 16], warpsPerCTA = [4, 0], order = [1, 0]>>)

// -----

// expected-error@+1 {{threadsPerWarp and warpsPerCTA entries must be powers of two, got 3}}
func.func private @blocked_threads_not_power_of_two(tensor<64x64xf32, #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [3, 16], warpsPerCTA = [4, 1], order = [1, 0]>>)

// -----

// expected-error@+1 {{threadsPerWarp and warpsPerCTA entries must be powers of two, got 6}}
func.func private @blocked_warps_not_power_of_two(tensor<64x64xf32, #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 16], warpsPerCTA = [6, 1], order = [1, 0]>>)

// -----

// expected-error@+1 {{threadsPerWarp must multiply to the wave size (64, or 32 for NVIDIA targets), got 128}}
func.func private @blocked_threads_product_128(tensor<64x64xf32, #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [2, 64], warpsPerCTA = [4, 1], order = [1, 0]>>)

// -----

// expected-error@+1 {{threadsPerWarp must multiply to the wave size (64, or 32 for NVIDIA targets), got 16}}
func.func private @blocked_threads_product_16(tensor<64xf32, #rocdsl.blocked<sizePerThread = [4], threadsPerWarp = [16], warpsPerCTA = [4], order = [0]>>)

// -----

// expected-error@+1 {{order must be a permutation of [0, 2)}}
func.func private @blocked_order_repeats(tensor<64x64xf32, #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1, 1]>>)

// -----

// expected-error@+1 {{order must be a permutation of [0, 3)}}
func.func private @blocked_order_out_of_range(tensor<2x64x64xf32, #rocdsl.blocked<sizePerThread = [1, 1, 8], threadsPerWarp = [1, 4, 16], warpsPerCTA = [1, 4, 1], order = [2, 3, 0]>>)

// -----

// An empty field does not parse (so a rank-0 blocked layout cannot be written).
// expected-error@+2 {{expected integer value}}
// expected-error@+1 {{failed to parse RocDSL_BlockedAttr parameter 'sizePerThread' which is to be a `::llvm::ArrayRef<unsigned>`}}
func.func private @blocked_empty(tensor<f32, #rocdsl.blocked<sizePerThread = [], threadsPerWarp = [], warpsPerCTA = [], order = []>>)

// -----

// Also rejected as a standalone attribute, not only as a tensor encoding.
// expected-error@+1 {{threadsPerWarp must multiply to the wave size (64, or 32 for NVIDIA targets), got 256}}
func.func private @blocked_standalone() attributes {layout = #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 64], warpsPerCTA = [4, 1], order = [1, 0]>}

//===----------------------------------------------------------------------===//
// #rocdsl.slice
//===----------------------------------------------------------------------===//

// -----

// expected-error@+1 {{slice dim 2 out of range for parent of rank 2}}
func.func private @slice_dim_out_of_range(tensor<64xf32, #rocdsl.slice<dim = 2, parent = #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1, 0]>>>)

// -----

// The inner slice has rank 1, so the outer one may only remove dimension 0.
// expected-error@+1 {{slice dim 1 out of range for parent of rank 1}}
func.func private @nested_slice_dim_out_of_range(tensor<f32, #rocdsl.slice<dim = 1, parent = #rocdsl.slice<dim = 0, parent = #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1, 0]>>>>)

// -----

// expected-error@+1 {{slice dim 2 out of range for parent of rank 2}}
func.func private @slice_of_mfma_dim_out_of_range(tensor<64xf32, #rocdsl.slice<dim = 2, parent = #rocdsl.mfma<version = 3, instrShape = [32, 32, 8], warpsPerCTA = [2, 2]>>>)

// -----

// expected-error@+1 {{slice parent must be a tile layout, got #rocdsl.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>}}
func.func private @slice_of_shared(tensor<64xf32, #rocdsl.slice<dim = 0, parent = #rocdsl.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>>>)

// -----

// expected-error@+1 {{slice parent must be a tile layout, got 3 : i32}}
func.func private @slice_of_integer() attributes {layout = #rocdsl.slice<dim = 0, parent = 3 : i32>}

// -----

// expected-error@+1 {{slice parent must be a tile layout, got "blocked"}}
func.func private @slice_of_string() attributes {layout = #rocdsl.slice<dim = 0, parent = "blocked">}

//===----------------------------------------------------------------------===//
// #rocdsl.mfma
//===----------------------------------------------------------------------===//

// -----

// expected-error@+1 {{mfma version must be 3 (gfx942) or 4 (gfx950), got 2}}
func.func private @mfma_version_2(tensor<64x64xf32, #rocdsl.mfma<version = 2, instrShape = [32, 32, 8], warpsPerCTA = [2, 2]>>)

// -----

// expected-error@+1 {{mfma version must be 3 (gfx942) or 4 (gfx950), got 5}}
func.func private @mfma_version_5(tensor<64x64xf32, #rocdsl.mfma<version = 5, instrShape = [32, 32, 8], warpsPerCTA = [2, 2]>>)

// -----

// expected-error@+1 {{unsupported mfma instrShape [16, 16, 8]; expected one of [32, 32, 8], [16, 16, 16], [32, 32, 16], [16, 16, 32]}}
func.func private @mfma_bad_instr_shape(tensor<64x64xf32, #rocdsl.mfma<version = 3, instrShape = [16, 16, 8], warpsPerCTA = [2, 2]>>)

// -----

// expected-error@+1 {{unsupported mfma instrShape [32, 16, 8]; expected one of}}
func.func private @mfma_non_square_instr_shape(tensor<64x64xf32, #rocdsl.mfma<version = 4, instrShape = [32, 16, 8], warpsPerCTA = [2, 2]>>)

// -----

// expected-error@+1 {{mfma instrShape must be [M, N, K]}}
func.func private @mfma_instr_shape_two_entries(tensor<64x64xf32, #rocdsl.mfma<version = 3, instrShape = [32, 32], warpsPerCTA = [2, 2]>>)

// -----

// expected-error@+1 {{mfma instrShape must be [M, N, K]}}
func.func private @mfma_instr_shape_four_entries(tensor<64x64xf32, #rocdsl.mfma<version = 3, instrShape = [32, 32, 8, 1], warpsPerCTA = [2, 2]>>)

// -----

// expected-error@+1 {{mfma warpsPerCTA must have 2 entries}}
func.func private @mfma_warps_three_entries(tensor<64x64xf32, #rocdsl.mfma<version = 3, instrShape = [32, 32, 8], warpsPerCTA = [2, 2, 1]>>)

// -----

// expected-error@+1 {{mfma warpsPerCTA entries must be powers of two}}
func.func private @mfma_warps_not_power_of_two(tensor<64x64xf32, #rocdsl.mfma<version = 3, instrShape = [32, 32, 8], warpsPerCTA = [3, 1]>>)

// -----

// expected-error@+1 {{mfma warpsPerCTA entries must be powers of two}}
func.func private @mfma_warps_zero(tensor<64x64xf32, #rocdsl.mfma<version = 4, instrShape = [16, 16, 32], warpsPerCTA = [0, 4]>>)

//===----------------------------------------------------------------------===//
// #rocdsl.dot_operand
//===----------------------------------------------------------------------===//

// -----

// expected-error@+1 {{dot_operand opIdx must be 0 (A) or 1 (B), got 2}}
func.func private @dot_operand_opidx_2(tensor<64x32xbf16, #rocdsl.dot_operand<opIdx = 2, parent = #rocdsl.mfma<version = 3, instrShape = [32, 32, 8], warpsPerCTA = [2, 2]>, kWidth = 4>>)

// -----

// expected-error@+1 {{dot_operand parent must be #rocdsl.mfma or #rocdsl.mma, got #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1, 0]>}}
func.func private @dot_operand_parent_blocked(tensor<64x32xbf16, #rocdsl.dot_operand<opIdx = 0, parent = #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1, 0]>, kWidth = 4>>)

// -----

// expected-error@+1 {{dot_operand parent must be #rocdsl.mfma or #rocdsl.mma, got #rocdsl.dot_operand<opIdx = 0, parent = #rocdsl.mfma<version = 3, instrShape = [32, 32, 8], warpsPerCTA = [2, 2]>, kWidth = 4>}}
func.func private @dot_operand_parent_dot_operand(tensor<64x32xbf16, #rocdsl.dot_operand<opIdx = 1, parent = #rocdsl.dot_operand<opIdx = 0, parent = #rocdsl.mfma<version = 3, instrShape = [32, 32, 8], warpsPerCTA = [2, 2]>, kWidth = 4>, kWidth = 4>>)

// -----

// expected-error@+1 {{dot_operand kWidth must be 1, 2, 4, 8 or 16, got 0}}
func.func private @dot_operand_kwidth_0(tensor<64x32xbf16, #rocdsl.dot_operand<opIdx = 0, parent = #rocdsl.mfma<version = 3, instrShape = [32, 32, 8], warpsPerCTA = [2, 2]>, kWidth = 0>>)

// -----

// expected-error@+1 {{dot_operand kWidth must be 1, 2, 4, 8 or 16, got 3}}
func.func private @dot_operand_kwidth_3(tensor<64x32xbf16, #rocdsl.dot_operand<opIdx = 0, parent = #rocdsl.mfma<version = 3, instrShape = [32, 32, 8], warpsPerCTA = [2, 2]>, kWidth = 3>>)

// -----

// expected-error@+1 {{dot_operand kWidth must be 1, 2, 4, 8 or 16, got 32}}
func.func private @dot_operand_kwidth_32(tensor<64x32xbf16, #rocdsl.dot_operand<opIdx = 1, parent = #rocdsl.mfma<version = 4, instrShape = [16, 16, 32], warpsPerCTA = [2, 2]>, kWidth = 32>>)

//===----------------------------------------------------------------------===//
// #rocdsl.shared and !rocdsl.lds
//===----------------------------------------------------------------------===//

// -----

// expected-error@+1 {{shared layout vec, perPhase and maxPhase must be positive}}
func.func private @shared_zero_vec() attributes {layout = #rocdsl.shared<vec = 0, perPhase = 1, maxPhase = 8, order = [1, 0]>}

// -----

// The LDS type parser adds a second error when its encoding fails.
// expected-error@+2 {{shared layout vec, perPhase and maxPhase must be positive}}
// expected-error@+1 {{failed to parse RocDSL_LdsTileType parameter 'encoding' which is to be a `::mlir::Attribute`}}
func.func private @shared_zero_per_phase(!rocdsl.lds<64x32xbf16, #rocdsl.shared<vec = 8, perPhase = 0, maxPhase = 8, order = [1, 0]>>)

// -----

// The LDS type parser adds a second error when its encoding fails.
// expected-error@+2 {{shared layout vec, perPhase and maxPhase must be positive}}
// expected-error@+1 {{failed to parse RocDSL_LdsTileType parameter 'encoding' which is to be a `::mlir::Attribute`}}
func.func private @shared_zero_max_phase(!rocdsl.lds<64x32xbf16, #rocdsl.shared<vec = 8, perPhase = 1, maxPhase = 0, order = [1, 0]>>)

// -----

// The LDS type parser adds a second error when its encoding fails.
// expected-error@+2 {{order must be a permutation of [0, 2)}}
// expected-error@+1 {{failed to parse RocDSL_LdsTileType parameter 'encoding' which is to be a `::mlir::Attribute`}}
func.func private @shared_order_not_permutation(!rocdsl.lds<64x32xbf16, #rocdsl.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [0, 0]>>)

// -----

// expected-error@+1 {{LDS tile encoding must be #rocdsl.shared, got #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1, 0]>}}
func.func private @lds_blocked_encoding(!rocdsl.lds<64x32xbf16, #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1, 0]>>)

// -----

// expected-error@+1 {{LDS tile encoding must be #rocdsl.shared, got #rocdsl.mfma<version = 3, instrShape = [32, 32, 8], warpsPerCTA = [2, 2]>}}
func.func private @lds_mfma_encoding(!rocdsl.lds<64x64xf32, #rocdsl.mfma<version = 3, instrShape = [32, 32, 8], warpsPerCTA = [2, 2]>>)

// -----

// expected-error@+1 {{#rocdsl.shared order has 1 entries but the LDS tile has rank 2}}
func.func private @lds_order_rank_mismatch(!rocdsl.lds<64x32xbf16, #rocdsl.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [0]>>)

// -----

// expected-error@+1 {{#rocdsl.shared order has 3 entries but the LDS tile has rank 2}}
func.func private @lds_order_rank_too_large(!rocdsl.lds<64x32xbf16, #rocdsl.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [2, 1, 0]>>)

// -----

// expected-error@+1 {{LDS tile dimensions must be positive, got 0}}
func.func private @lds_zero_dim(!rocdsl.lds<0x32xbf16, #rocdsl.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>>)

// -----

// expected-error@+1 {{expected static shape}}
func.func private @lds_dynamic_dim(!rocdsl.lds<?x32xbf16, #rocdsl.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>>)

// -----

// The same checks run when the type is used by an op.
rocdsl.func @lds_type_in_op() attributes {num_warps = 4 : i32} {
  // expected-error@+1 {{#rocdsl.shared order has 2 entries but the LDS tile has rank 1}}
  %buf = rocdsl.local_alloc -> !rocdsl.lds<256xf32, #rocdsl.shared<vec = 4, perPhase = 1, maxPhase = 1, order = [1, 0]>>
  rocdsl.return
}

// -----

// A layout error inside an op's tile type is reported where it is written.
rocdsl.func @bad_layout_in_op(%x: f32) attributes {num_warps = 4 : i32} {
  // expected-error@+1 {{mfma warpsPerCTA must have 2 entries}}
  %t = rocdsl.splat %x : f32 -> tensor<64x64xf32, #rocdsl.mfma<version = 3, instrShape = [32, 32, 8], warpsPerCTA = [4]>>
  rocdsl.return
}

//===----------------------------------------------------------------------===//
// !rocdsl.ptr and unknown mnemonics
//===----------------------------------------------------------------------===//

// -----

// expected-error@+2 {{expected non-function type}}
// expected-error@+1 {{failed to parse RocDSL_PtrType parameter 'elementType' which is to be a `::mlir::Type`}}
func.func private @ptr_without_element_type(!rocdsl.ptr<>)

// -----

// expected-error@+1 {{unknown  type `pointer` in dialect `rocdsl`}}
func.func private @unknown_type(!rocdsl.pointer<f32>)

// -----

// expected-error@+1 {{unknown attribute `swizzle` in dialect `rocdsl`}}
func.func private @unknown_attribute() attributes {layout = #rocdsl.swizzle<vec = 1>}

// -----

// A negative entry is rejected and reported as written.
// expected-error@+1 {{blocked layout entries must be in [1, 65536], got -8}}
func.func private @blocked_negative(tensor<64x64xf32, #rocdsl.blocked<sizePerThread = [1, -8], threadsPerWarp = [1, 64], warpsPerCTA = [4, 1], order = [1, 0]>>)

// -----

// 32x32x8 reads 4 K elements per lane: kWidth must be a multiple of 4.
// expected-error@+1 {{dot_operand kWidth 2 is not a multiple of the 4 K elements per lane that a 32x32x8 matrix instruction reads}}
func.func private @dot_operand_kwidth_below_instruction(tensor<64x32xbf16, #rocdsl.dot_operand<opIdx = 0, parent = #rocdsl.mfma<version = 3, instrShape = [32, 32, 8], warpsPerCTA = [2, 2]>, kWidth = 2>>)

// -----

// gfx950's 16x16x32 reads 8 per lane.
// expected-error@+1 {{dot_operand kWidth 4 is not a multiple of the 8 K elements per lane that a 16x16x32 matrix instruction reads}}
func.func private @dot_operand_kwidth_below_16x16x32(tensor<32x64xbf16, #rocdsl.dot_operand<opIdx = 1, parent = #rocdsl.mfma<version = 4, instrShape = [16, 16, 32], warpsPerCTA = [2, 2]>, kWidth = 4>>)

// -----

// expected-error@+1 {{mma instrShape must be [16, 8, 16] (mma.sync.aligned.m16n8k16)}}
func.func private @mma_shape(tensor<16x16xf32, #rocdsl.mma<version = 2, instrShape = [16, 16, 16], warpsPerCTA = [1, 1]>>)

// -----

// expected-error@+1 {{mma version must be 2 (mma.sync, sm_80 and later), got 3}}
func.func private @mma_version(tensor<16x8xf32, #rocdsl.mma<version = 3, instrShape = [16, 8, 16], warpsPerCTA = [1, 1]>>)

// -----

// expected-error@+1 {{dot_operand of a #rocdsl.mma parent holds K in pairs: kWidth must be 2, got 4}}
func.func private @mma_kwidth(tensor<16x16xf16, #rocdsl.dot_operand<opIdx = 0, parent = #rocdsl.mma<version = 2, instrShape = [16, 8, 16], warpsPerCTA = [1, 1]>, kWidth = 4>>)
