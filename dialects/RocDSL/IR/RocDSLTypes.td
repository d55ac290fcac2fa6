//===- RocDSLTypes.td - pointer and LDS tile types ---------*- tablegen -*-===//
#ifndef ROCDSL_TYPES_TD
#define ROCDSL_TYPES_TD

include "RocDSLAttrs.td"
include "mlir/IR/BuiltinTypeInterfaces.td"

class RocDSL_Type<string name, string typeMnemonic, list<Trait> traits = []>
    : TypeDef<RocDSL_Dialect, name, traits> {
  let mnemonic = typeMnemonic;
}

def RocDSL_PtrType : RocDSL_Type<"Ptr", "ptr"> {
  let summary = "Pointer to global memory holding elements of one type";
  let description = [{
    A kernel argument naming a buffer in global memory: `!rocdsl.ptr<bf16>`.
    Tiles are read and written through it with `rocdsl.load`/`rocdsl.store`.
  }];
  let parameters = (ins "::mlir::Type":$elementType);
  let assemblyFormat = "`<` $elementType `>`";
}

def RocDSL_LdsTileType : RocDSL_Type<"LdsTile", "lds", [ShapedTypeInterface]> {
  let summary = "A tile that lives in LDS (workgroup shared memory)";
  let description = [{
    `!rocdsl.lds<64x32xbf16, #rocdsl.shared<...>>`: storage, not a value;
    written with `rocdsl.local_store`, read into registers with
    `rocdsl.local_load`.
  }];
  let parameters = (ins ArrayRefParameter<"int64_t">:$shape,
                        "::mlir::Type":$elementType,
                        "::mlir::Attribute":$encoding);
  let assemblyFormat = "`<` custom<Shape>($shape, $elementType) `,` $encoding `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    using ShapedType::Trait<LdsTileType>::getRank;
    using ShapedType::Trait<LdsTileType>::getNumElements;
    bool hasRank() const { return true; }
    LdsTileType cloneWith(std::optional<::llvm::ArrayRef<int64_t>> shape,
                          ::mlir::Type elementType) const {
      return LdsTileType::get(getContext(), shape ? *shape : getShape(),
                              elementType, getEncoding());
    }
  }];
}

def RocDSL_Tile : RankedTensorOf<[AnyType]>;
def RocDSL_IntTile : RankedTensorOf<[AnySignlessInteger]>;
def RocDSL_MaskTile : RankedTensorOf<[I1]>;

#endif // ROCDSL_TYPES_TD
