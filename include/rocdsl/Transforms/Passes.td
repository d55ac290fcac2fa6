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

def RocDSLPipelineLoopsPass
    : Pass<"rocdsl-pipeline-loops", "::mlir::ModuleOp"> {
  let summary = "Software-pipeline loops whose global loads feed LDS: N "
                "buffers, N - 1 steps of asynchronous copies in flight";
  let description = [{
    For each `scf.for` with `rocdsl.stages = N` (N >= 2; or every loop
    when the `stages` option is set), every global `rocdsl.load` in the
    body whose one use is a `local_store` into an LDS tile only this loop
    uses (written before it is read in an iteration), or a
    `convert_layout` into a `#rocdsl.dot_operand` layout (a matrix
    operand the lowering would route through LDS), becomes an
    `async_copy` into one of N stacked buffers of that tile:

    - prologue: the copies of steps 0 .. N-2 into buffers 0 .. N-2, one
      `async_commit` per step (on AMDGPU then `async_wait {pending = 0}`:
      LLVM's wait for direct-to-LDS loads at each barrier's fence counts
      loads entering the loop, not those coming around its back edge);
    - each iteration: `async_wait {pending = N-2}`, one `barrier`, the
      copies of the step N-1 ahead into the buffer the previous iteration
      read, one commit; the body reads buffer `slot`, which the loop
      carries;
    - epilogue: the copies of the last N-1 iterations are of steps past
      the end, issued with their first bound 0 (nothing read, zeros
      written into buffers no one reads), so every group has the same
      instructions.

    One group is committed per step, so the wait's count is exact; one
    barrier per iteration both publishes the step's copies and frees the
    buffer refilled after it. Bounds and masks of the loads (the K tail)
    carry over, and a load without bounds gets bounds no index reaches;
    `other`, if any, must be zero (copies write zeros). Loops of zero or
    one iteration need no special case.

    A loop is left alone (a warning names the reason when the loop asked
    for stages, a debug line otherwise) when a load's address depends on
    a value the loop carries, the loop stores to global memory or already
    has asynchronous copies, or the buffers exceed the chip's LDS.
    Operand tiles get the swizzle of `getMatrixOperandSharedLayout` for
    `chip` (`host`: 32 banks, no transposed reads).
  }];
  let options = [
    Option<"stages", "stages", "unsigned", "0",
           "Stages for loops without rocdsl.stages (0 or 1: leave them)">,
    Option<"chip", "chip", "std::string", "\"gfx942\"",
           "Chip whose LDS the buffers are laid out for, or host">,
  ];
  let dependentDialects = ["::mlir::rocdsl::RocDSLDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect"];
}

#endif
