//===- Passes.td - prec transformation passes ---------------*- tablegen -*-===//

#ifndef PREC_DIALECT_PREC_TRANSFORMS_PASSES_TD
#define PREC_DIALECT_PREC_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def PrecInferPrecision
    : Pass<"prec-infer-precision", "mlir::func::FuncOp"> {
  let summary = "make every dtype of every prec op explicit";
  let description = [{
    Resolves the default rules of the precision contract into explicit
    attributes, so that later passes and readers see every choice:

    - collectives: `forward_dtype` = the input element type;
      `backward_dtype` = the forward dtype; for reductions `acc_dtype` = f32
      for f32 and narrower wire dtypes, f64 for f64;
    - `prec.cast`: `backward_dtype` = the input element type;
    - `prec.reduce`: `acc_dtype` by the same rule, from the input type.

    Annotations already present are kept. The pass is idempotent.

    Before:
    ```mlir
    %r = prec.reduce_scatter %g on @dp scatter_axis = 0
           : tensor<1024xbf16> -> tensor<128xbf16>
    ```
    After:
    ```mlir
    %r = prec.reduce_scatter %g on @dp scatter_axis = 0
           forward_dtype = bf16 backward_dtype = bf16 acc_dtype = f32
           : tensor<1024xbf16> -> tensor<128xbf16>
    ```
  }];
}

#endif // PREC_DIALECT_PREC_TRANSFORMS_PASSES_TD
