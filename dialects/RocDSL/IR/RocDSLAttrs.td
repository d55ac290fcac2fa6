//===- RocDSLAttrs.td - layout encodings -------------------*- tablegen -*-===//
#ifndef ROCDSL_ATTRS_TD
#define ROCDSL_ATTRS_TD

include "RocDSLDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def RocDSL_LayoutEncodingAttrInterface
    : AttrInterface<"LayoutEncodingAttrInterface"> {
  let cppNamespace = "::mlir::rocdsl";
  let description = [{
    Implemented by every tile layout: how a tile of a given rank is spread
    over the lanes and waves of a workgroup.
  }];
  let methods = [
    InterfaceMethod<"Rank of the tiles this layout distributes.",
                    "unsigned", "getLayoutRank">,
    InterfaceMethod<"Waves (warps) per workgroup the layout assumes.",
                    "unsigned", "getLayoutNumWarps">,
    InterfaceMethod<"Lanes per wave the layout assumes.",
                    "unsigned", "getLayoutWarpSize">,
    InterfaceMethod<[{
      How dimension `dim` of a tile `size` elements long is spread over
      registers, lanes and waves (see TileMapping.h); std::nullopt when the
      layout cannot hold it.
    }], "std::optional<::mlir::rocdsl::DimMapping>", "getDimMapping",
        (ins "unsigned":$dim, "int64_t":$size)>,
    InterfaceMethod<"Tile dimensions, fastest-varying in a lane's register "
                    "vector first.",
                    "::llvm::SmallVector<unsigned>", "getRegisterOrder">,
  ];
}

class RocDSL_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<RocDSL_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

class RocDSL_LayoutAttr<string name, string attrMnemonic>
    : RocDSL_Attr<name, attrMnemonic, [DeclareAttrInterfaceMethods<
          RocDSL_LayoutEncodingAttrInterface>]>;

def RocDSL_BlockedAttr : RocDSL_LayoutAttr<"Blocked", "blocked"> {
  let summary = "Blocked distribution of a tile over registers, lanes, waves";
  let description = [{
    Each lane owns `sizePerThread` contiguous elements per dimension; lanes
    of a wave are laid out `threadsPerWarp`, waves `warpsPerCTA`; `order`
    lists dimensions fastest first. The pattern repeats over the tile:

    ```mlir
    #rocdsl.blocked<sizePerThread = [1, 8], threadsPerWarp = [1, 64],
                    warpsPerCTA = [4, 1], order = [1, 0]>
    ```
    gives four rows per workgroup, one per wave, eight consecutive elements
    (128 bits of bf16) per lane per repetition.
  }];
  let parameters = (ins ArrayRefParameter<"unsigned">:$sizePerThread,
                        ArrayRefParameter<"unsigned">:$threadsPerWarp,
                        ArrayRefParameter<"unsigned">:$warpsPerCTA,
                        ArrayRefParameter<"unsigned">:$order);
  let assemblyFormat = [{
    `<` `sizePerThread` `=` `[` $sizePerThread `]` `,`
        `threadsPerWarp` `=` `[` $threadsPerWarp `]` `,`
        `warpsPerCTA` `=` `[` $warpsPerCTA `]` `,`
        `order` `=` `[` $order `]` `>`
  }];
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The layout ROCDSL picks when the author gives none: the fastest
    /// dimension is the last, each lane owns up to 128 bits of it (no more
    /// than the tile has per lane, unless an access asks for at least
    /// `minPerThread` consecutive elements), lanes cover it before the next
    /// dimension, waves split the leading dimension first.
    static BlockedAttr getDefault(::mlir::MLIRContext *ctx,
                                  ::llvm::ArrayRef<int64_t> shape,
                                  unsigned numWarps, unsigned warpSize,
                                  unsigned elementBits,
                                  unsigned minPerThread = 1);
  }];
}

def RocDSL_SliceAttr : RocDSL_LayoutAttr<"Slice", "slice"> {
  let summary = "A parent layout with one dimension removed";
  let description = [{
    The layout of a reduction result, or of a 1-D tile meant to be expanded
    back into its parent: lanes that differed only along `dim` hold the same
    element.

    ```mlir
    #rocdsl.slice<dim = 1, parent = #blocked>
    ```
  }];
  let parameters = (ins "unsigned":$dim, "::mlir::Attribute":$parent);
  let assemblyFormat = "`<` `dim` `=` $dim `,` `parent` `=` $parent `>`";
  let genVerifyDecl = 1;
}

def RocDSL_MfmaAttr : RocDSL_LayoutAttr<"Mfma", "mfma"> {
  let summary = "Result layout of AMD matrix-core (MFMA) instructions";
  let description = [{
    Accumulator tiles of `v_mfma` with instruction shape `instrShape`
    (M, N, K) repeated over `warpsPerCTA` waves. `version` is the matrix
    core generation: 3 for CDNA3 (gfx942), 4 for CDNA4 (gfx950).

    ```mlir
    #rocdsl.mfma<version = 3, instrShape = [32, 32, 8], warpsPerCTA = [2, 2]>
    ```
  }];
  let parameters = (ins "unsigned":$version,
                        ArrayRefParameter<"unsigned">:$instrShape,
                        ArrayRefParameter<"unsigned">:$warpsPerCTA);
  let assemblyFormat = [{
    `<` `version` `=` $version `,` `instrShape` `=` `[` $instrShape `]` `,`
        `warpsPerCTA` `=` `[` $warpsPerCTA `]` `>`
  }];
  let genVerifyDecl = 1;
}

def RocDSL_NvidiaMmaAttr : RocDSL_LayoutAttr<"NvidiaMma", "mma"> {
  let summary = "Result layout of NVIDIA warp-level MMA instructions";
  let description = [{
    Accumulator tiles of `mma.sync` with instruction shape `instrShape`
    (M, N, K) repeated over `warpsPerCTA` warps of 32 lanes. `version` 2 is
    the Ampere/Hopper `mma.sync.aligned.m16n8k16` generation.

    ```mlir
    #rocdsl.mma<version = 2, instrShape = [16, 8, 16], warpsPerCTA = [2, 2]>
    ```
  }];
  let parameters = (ins "unsigned":$version,
                        ArrayRefParameter<"unsigned">:$instrShape,
                        ArrayRefParameter<"unsigned">:$warpsPerCTA);
  let assemblyFormat = [{
    `<` `version` `=` $version `,` `instrShape` `=` `[` $instrShape `]` `,`
        `warpsPerCTA` `=` `[` $warpsPerCTA `]` `>`
  }];
  let genVerifyDecl = 1;
}

def RocDSL_DotOperandAttr : RocDSL_LayoutAttr<"DotOperand", "dot_operand"> {
  let summary = "Layout of the A (opIdx 0) or B (opIdx 1) operand of a dot";
  let description = [{
    ```mlir
    #rocdsl.dot_operand<opIdx = 0, parent = #mfma, kWidth = 4>
    ```
    `kWidth` is the number of consecutive K elements a lane holds: a
    multiple of what one MFMA instruction reads (K * M / 64); 2 for an
    NVIDIA `#rocdsl.mma` parent (its operands are pairs).
  }];
  let parameters = (ins "unsigned":$opIdx, "::mlir::Attribute":$parent,
                        "unsigned":$kWidth);
  let assemblyFormat = [{
    `<` `opIdx` `=` $opIdx `,` `parent` `=` $parent `,` `kWidth` `=` $kWidth `>`
  }];
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// K elements per lane one instruction of the parent shape reads
    /// (K * M / 64 for MFMA, 2 for NVIDIA MMA): kWidth must be a multiple
    /// of it.
    unsigned getInstrKPerLane() const;
    /// The parent's instruction shape (M, N, K) and warpsPerCTA.
    ::llvm::ArrayRef<unsigned> getParentInstrShape() const;
    ::llvm::ArrayRef<unsigned> getParentWarpsPerCTA() const;
  }];
}

def RocDSL_SharedAttr : RocDSL_Attr<"Shared", "shared"> {
  let summary = "Swizzled layout of a tile in LDS";
  let description = [{
    XOR swizzle against bank conflicts: `vec` elements stay together,
    `perPhase` rows share a phase, `maxPhase` phases; `order` fastest first.

    ```mlir
    #rocdsl.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>
    ```
  }];
  let parameters = (ins "unsigned":$vec, "unsigned":$perPhase,
                        "unsigned":$maxPhase,
                        ArrayRefParameter<"unsigned">:$order);
  let assemblyFormat = [{
    `<` `vec` `=` $vec `,` `perPhase` `=` $perPhase `,` `maxPhase` `=` $maxPhase
        `,` `order` `=` `[` $order `]` `>`
  }];
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// This layout for a stack of such buffers (rocdsl.local_index's
    /// source): a leading buffer dimension, slowest of all, and the same
    /// swizzle within each buffer.
    SharedAttr withBufferDim() const;
    /// The layout of one buffer of a stack with this layout; null when the
    /// leading dimension is not the slowest (not a stack of buffers).
    SharedAttr withoutBufferDim() const;
  }];
}

def RocDSL_ReduceKind : I32EnumAttr<"ReduceKind", "combining function of a reduction", [
    I32EnumAttrCase<"Add", 0, "add">,
    I32EnumAttrCase<"Mul", 1, "mul">,
    I32EnumAttrCase<"Max", 2, "max">,
    I32EnumAttrCase<"Min", 3, "min">]> {
  let cppNamespace = "::mlir::rocdsl";
  let genSpecializedAttr = 0;
}
def RocDSL_ReduceKindAttr : EnumAttr<RocDSL_Dialect, RocDSL_ReduceKind, "reduce_kind">;

def RocDSL_ProgramAtomicKind : I32EnumAttr<"ProgramAtomicKind",
    "read-modify-write of rocdsl.program_atomic", [
    I32EnumAttrCase<"Add", 0, "add">,
    I32EnumAttrCase<"Xchg", 1, "xchg">,
    I32EnumAttrCase<"Max", 2, "max">]> {
  let cppNamespace = "::mlir::rocdsl";
  let genSpecializedAttr = 0;
}
def RocDSL_ProgramAtomicKindAttr : EnumAttr<RocDSL_Dialect,
    RocDSL_ProgramAtomicKind, "program_atomic_kind">;

#endif // ROCDSL_ATTRS_TD
