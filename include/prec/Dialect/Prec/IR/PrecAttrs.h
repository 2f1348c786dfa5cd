//===- PrecAttrs.h - prec attributes and enums ------------------*- C++ -*-===//

#ifndef PREC_DIALECT_PREC_IR_PRECATTRS_H
#define PREC_DIALECT_PREC_IR_PRECATTRS_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/DialectImplementation.h"

#include "prec/Dialect/Prec/IR/PrecEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "prec/Dialect/Prec/IR/PrecAttrs.h.inc"

#endif // PREC_DIALECT_PREC_IR_PRECATTRS_H
