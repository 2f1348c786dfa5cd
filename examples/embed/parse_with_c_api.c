/*===- parse_with_c_api.c - prec from a compiler written in C -------------===*/
/*
 * Registers prec's dialects through its C API, parses the module in argv[1]
 * and prints the prec ops it holds: what a C (or Python, Rust...) front end
 * does before it hands the module to prec's pipelines.
 */

#include "prec-c/Dialects.h"

#include "mlir-c/IR.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static MlirWalkResult countPrecOps(MlirOperation op, void *count) {
  MlirIdentifier name = mlirOperationGetName(op);
  MlirStringRef text = mlirIdentifierStr(name);
  if (text.length > 5 && strncmp(text.data, "prec.", 5) == 0)
    ++*(int *)count;
  return MlirWalkResultAdvance;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: prec-embed-c-example FILE.mlir\n");
    return 2;
  }
  FILE *file = fopen(argv[1], "rb");
  if (!file) {
    fprintf(stderr, "prec-embed-c-example: cannot read %s\n", argv[1]);
    return 1;
  }
  fseek(file, 0, SEEK_END);
  long size = ftell(file);
  fseek(file, 0, SEEK_SET);
  char *source = malloc(size + 1);
  size_t read = fread(source, 1, size, file);
  fclose(file);
  source[read] = '\0';

  MlirDialectRegistry registry = mlirDialectRegistryCreate();
  precRegisterAllDialects(registry);
  MlirContext context = mlirContextCreateWithRegistry(registry, false);
  mlirDialectRegistryDestroy(registry);

  MlirModule module =
      mlirModuleCreateParse(context, mlirStringRefCreateFromCString(source));
  free(source);
  if (mlirModuleIsNull(module)) {
    mlirContextDestroy(context);
    return 1; /* the parser has reported why */
  }
  int count = 0;
  mlirOperationWalk(mlirModuleGetOperation(module), countPrecOps, &count,
                    MlirWalkPreOrder);
  printf("prec ops: %d\n", count);
  mlirModuleDestroy(module);
  mlirContextDestroy(context);
  return 0;
}
