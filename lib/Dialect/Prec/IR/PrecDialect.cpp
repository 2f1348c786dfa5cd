//===- PrecDialect.cpp - prec dialect -------------------------------------===//

#include "prec/Dialect/Prec/IR/PrecDialect.h"
#include "prec/Dialect/Prec/IR/PrecAttrs.h"
#include "prec/Dialect/Prec/IR/PrecOps.h"

using namespace mlir;
using namespace mlir::prec;

#include "prec/Dialect/Prec/IR/PrecOpsDialect.cpp.inc"

void PrecDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "prec/Dialect/Prec/IR/PrecOps.cpp.inc"
      >();
  registerAttributes();
}
