//===- PrecDialect.h - prec dialect -----------------------------*- C++ -*-===//

#ifndef PREC_DIALECT_PREC_IR_PRECDIALECT_H
#define PREC_DIALECT_PREC_IR_PRECDIALECT_H

#include "mlir/Dialect/Shard/IR/ShardDialect.h"
#include "mlir/IR/Dialect.h"

#include "prec/Dialect/Prec/IR/PrecOpsDialect.h.inc"

#endif // PREC_DIALECT_PREC_IR_PRECDIALECT_H
