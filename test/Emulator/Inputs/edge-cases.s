; Hand-written kernels for the emulator's and the checker's edge cases:
;  two_wide_stores  - a VALU write of the first of two back-to-back wide
;                     stores' data, 1 wait state after it (2 needed);
;  cmpswap_data     - a VALU write of a 64-bit compare-and-swap's four data
;                     dwords right after it (2 needed);
;  reload_after_one - a load into a wide store's data 1 wait state after it
;                     (1 needed: clean);
;  bad_word         - an instruction word LLVM 22's decoder crashes on.
; One global_buffer argument each; 32 bytes a work-item at most.
	.amdgcn_target "amdgcn-amd-amdhsa--gfx942"
	.amdhsa_code_object_version 5
	.text
	.globl two_wide_stores
	.p2align 8
	.type two_wide_stores,@function
two_wide_stores:
  s_load_dwordx2 s[4:5], s[0:1], 0x0
  v_lshlrev_b32 v1, 5, v0
  v_mov_b32 v2, 1
  v_mov_b32 v3, 2
  v_mov_b32 v4, 3
  v_mov_b32 v5, 4
  v_mov_b32 v6, 5
  v_mov_b32 v7, 6
  v_mov_b32 v8, 7
  v_mov_b32 v9, 8
  s_waitcnt lgkmcnt(0)
  global_store_dwordx4 v1, v[2:5], s[4:5]
  global_store_dwordx4 v1, v[6:9], s[4:5] offset:16
  v_mov_b32 v2, 0
  s_waitcnt vmcnt(0)
  s_endpgm
.Lfunc_end0:
	.size two_wide_stores, .Lfunc_end0-two_wide_stores
	.globl cmpswap_data
	.p2align 8
	.type cmpswap_data,@function
cmpswap_data:
  s_load_dwordx2 s[4:5], s[0:1], 0x0
  v_lshlrev_b32 v1, 3, v0
  v_mov_b32 v2, 1
  v_mov_b32 v3, 0
  v_mov_b32 v4, 0
  v_mov_b32 v5, 0
  s_waitcnt lgkmcnt(0)
  global_atomic_cmpswap_x2 v1, v[2:5], s[4:5]
  v_mov_b32 v2, 7
  s_waitcnt vmcnt(0)
  s_endpgm
.Lfunc_end1:
	.size cmpswap_data, .Lfunc_end1-cmpswap_data
	.globl reload_after_one
	.p2align 8
	.type reload_after_one,@function
reload_after_one:
  s_load_dwordx2 s[4:5], s[0:1], 0x0
  v_lshlrev_b32 v1, 4, v0
  v_mov_b32 v2, 1
  v_mov_b32 v3, 2
  v_mov_b32 v4, 3
  v_mov_b32 v5, 4
  s_waitcnt lgkmcnt(0)
  global_store_dwordx4 v1, v[2:5], s[4:5]
  s_nop 0
  global_load_dword v2, v1, s[4:5] offset:4
  s_waitcnt vmcnt(0)
  s_endpgm
.Lfunc_end2:
	.size reload_after_one, .Lfunc_end2-reload_after_one
	.globl bad_word
	.p2align 8
	.type bad_word,@function
bad_word:
  s_load_dwordx2 s[4:5], s[0:1], 0x0
  .long 0xd2080002, 0x0411ff08
  s_endpgm
.Lfunc_end3:
	.size bad_word, .Lfunc_end3-bad_word
	.rodata
	.p2align 6
	.amdhsa_kernel two_wide_stores
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_next_free_vgpr 16
		.amdhsa_next_free_sgpr 16
		.amdhsa_accum_offset 16
		.amdhsa_kernarg_size 8
	.end_amdhsa_kernel
	.rodata
	.p2align 6
	.amdhsa_kernel cmpswap_data
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_next_free_vgpr 16
		.amdhsa_next_free_sgpr 16
		.amdhsa_accum_offset 16
		.amdhsa_kernarg_size 8
	.end_amdhsa_kernel
	.rodata
	.p2align 6
	.amdhsa_kernel reload_after_one
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_next_free_vgpr 16
		.amdhsa_next_free_sgpr 16
		.amdhsa_accum_offset 16
		.amdhsa_kernarg_size 8
	.end_amdhsa_kernel
	.rodata
	.p2align 6
	.amdhsa_kernel bad_word
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_next_free_vgpr 16
		.amdhsa_next_free_sgpr 16
		.amdhsa_accum_offset 16
		.amdhsa_kernarg_size 8
	.end_amdhsa_kernel
	.amdgpu_metadata
---
amdhsa.kernels:
  - .args:
      - .name: out
        .offset: 0
        .size: 8
        .value_kind: global_buffer
        .address_space: global
    .group_segment_fixed_size: 0
    .kernarg_segment_align: 8
    .kernarg_segment_size: 8
    .max_flat_workgroup_size: 256
    .name: two_wide_stores
    .private_segment_fixed_size: 0
    .sgpr_count: 16
    .symbol: two_wide_stores.kd
    .vgpr_count: 16
    .wavefront_size: 64
  - .args:
      - .name: out
        .offset: 0
        .size: 8
        .value_kind: global_buffer
        .address_space: global
    .group_segment_fixed_size: 0
    .kernarg_segment_align: 8
    .kernarg_segment_size: 8
    .max_flat_workgroup_size: 256
    .name: cmpswap_data
    .private_segment_fixed_size: 0
    .sgpr_count: 16
    .symbol: cmpswap_data.kd
    .vgpr_count: 16
    .wavefront_size: 64
  - .args:
      - .name: out
        .offset: 0
        .size: 8
        .value_kind: global_buffer
        .address_space: global
    .group_segment_fixed_size: 0
    .kernarg_segment_align: 8
    .kernarg_segment_size: 8
    .max_flat_workgroup_size: 256
    .name: reload_after_one
    .private_segment_fixed_size: 0
    .sgpr_count: 16
    .symbol: reload_after_one.kd
    .vgpr_count: 16
    .wavefront_size: 64
  - .args:
      - .name: out
        .offset: 0
        .size: 8
        .value_kind: global_buffer
        .address_space: global
    .group_segment_fixed_size: 0
    .kernarg_segment_align: 8
    .kernarg_segment_size: 8
    .max_flat_workgroup_size: 256
    .name: bad_word
    .private_segment_fixed_size: 0
    .sgpr_count: 16
    .symbol: bad_word.kd
    .vgpr_count: 16
    .wavefront_size: 64
amdhsa.target: amdgcn-amd-amdhsa--gfx942
amdhsa.version: [1, 2]
...
	.end_amdgpu_metadata
