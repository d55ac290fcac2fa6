//===- rocdsl-opt.cpp - pass driver for rocdsl IR -------------------------===//
#include "rocdsl/Pipelines/Pipelines.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::rocdsl::registerRocDSLDialects(registry);
  mlir::rocdsl::registerRocDSLPassesAndPipelines();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "ROCDSL optimizer driver\n", registry));
}
