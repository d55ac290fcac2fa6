//===- RocDSLDialect.td - the rocdsl tile dialect ----------*- tablegen -*-===//
#ifndef ROCDSL_DIALECT_TD
#define ROCDSL_DIALECT_TD

include "mlir/IR/OpBase.td"

def RocDSL_Dialect : Dialect {
  let name = "rocdsl";
  let cppNamespace = "::mlir::rocdsl";
  let summary = "Tile-level IR for AMD Instinct kernels";
  let description = [{
    Values are tiles: ranked tensors whose encoding attribute says how the
    elements are spread over registers, lanes and waves of a workgroup
    (`#rocdsl.blocked`, `#rocdsl.slice`, `#rocdsl.mfma`, `#rocdsl.dot_operand`).
    Elementwise math is plain `arith`/`math` on tiles; this dialect adds the
    operations whose meaning depends on the distribution: structured global
    memory accesses with bounds and masks, reductions, broadcasts, `dot` on
    matrix-core layouts, LDS tiles, program ids, and expert escape hatches
    (explicit waits, scheduling barriers).

    Structured accesses (`origin`, leading `strides`, `bounds`) let the
    compiler know contiguity by construction: no pointer tensors and no
    alias analysis are needed to emit 128-bit accesses.
  }];
  let useDefaultAttributePrinterParser = 1;
  let useDefaultTypePrinterParser = 1;
  let hasConstantMaterializer = 1;
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::scf::SCFDialect"];
}

class RocDSL_Op<string mnemonic, list<Trait> traits = []>
    : Op<RocDSL_Dialect, mnemonic, traits>;

#endif // ROCDSL_DIALECT_TD
