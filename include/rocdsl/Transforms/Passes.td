//===- Passes.td - rocdsl-to-rocdsl transformations --------*- tablegen -*-===//
#ifndef ROCDSL_TRANSFORMS_PASSES_TD
#define ROCDSL_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def RocDSLInferVectorWidthPass
    : Pass<"rocdsl-infer-vector-width", "::mlir::ModuleOp"> {
  let summary = "Give loads and stores without `vec` the widest access the "
                "facts allow";
  let description = [{
    For every `rocdsl.load` and `rocdsl.store` that sets no `vec` (an
    explicit `vec`, 1 included, is the author's and is kept), the widest
    power-of-two group of innermost elements one access may move: at most
    128 bits, at most the consecutive innermost elements the layout gives a
    lane, and no more than what divides the pointer's alignment (argument
    attribute `rocdsl.alignment`, bytes; else the element size), every
    leading stride, the innermost origin and the innermost bound (by the
    divisibility analysis: constants, `rocdsl.divisibility` argument
    attributes, and arithmetic on them). A mask must be constant over the
    group (e.g. `iota + start < n` with `start` and `n` multiples of the
    width); the access then gets `uniform_mask`. The facts are the
    runtime's specialization of a launch (integers divisible by 16, 16-byte
    aligned pointers), so a launch without them gets the generic kernel.

    Tile comparisons (`arith.cmpi` on tiles) whose result the analysis
    proves constant over aligned runs of innermost elements get
    `rocdsl.constancy` (the run length): the GPU lowering then compares
    once per run in each lane, as the masked loads and stores already
    decide once per group.
  }];
  let dependentDialects = ["::mlir::rocdsl::RocDSLDialect"];
}

#endif
