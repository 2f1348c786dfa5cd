//===- Passes.td - prec's reverse-mode differentiation -----*- tablegen -*-===//
//
// The passes that differentiate functions: backward functions generated from
// the gradient rules (BackwardOpInterface) of every op, and declared before
// they are generated so that a module may call them.
//
//===----------------------------------------------------------------------===//

#ifndef PREC_GRADIENTS_PASSES_TD
#define PREC_GRADIENTS_PASSES_TD

include "mlir/Pass/PassBase.td"

def PrecDeclareBackward : Pass<"prec-declare-backward"> {
  let summary = "declare the backward functions a module calls before they "
                "are generated, then verify it";
  let description = [{
    Runs on a module as parsed, before the verifier has seen it: a module
    may call `@f_backward` before `prec-generate-backward` creates it, which
    the verifier of `func.call` rejects. For every undeclared `@f_backward`
    the module calls, declares `func.func private @f_backward` with the
    signature `prec-generate-backward` gives it when that pass
    differentiates `@f` (named in `functions`, else marked
    `prec.differentiable`); otherwise the call is an error that says what
    would generate it. Then verifies the operation it runs on.

    `prec-opt` parses its input without verifying it and runs this pass
    first, with the `functions` of the pipeline's `prec-generate-backward`;
    `prec-run` does the same before it lowers a module.
  }];
  let options = [
    ListOption<"functions", "functions", "std::string",
               "the forward functions prec-generate-backward differentiates "
               "(default: those carrying `prec.differentiable`)">
  ];
}

def PrecGenerateBackward
    : Pass<"prec-generate-backward", "mlir::ModuleOp"> {
  let summary = "create the backward function of a forward function";
  let description = [{
    For a forward function `@f`, creates `@f_backward` next to it:

    - arguments: the forward arguments, then one gradient per result that is
      a ranked float tensor (of the result's type);
    - results: one gradient per argument that is a ranked float tensor, in
      argument order. Other arguments (scalars such as a learning rate,
      integers, indices) get none and are left out. An argument's gradient
      has the argument's type, or the element type of its
      `prec.grad_dtype` attribute; an argument no result depends on gets
      zeros; an argument marked `prec.no_grad` gets none.

    The body recomputes the forward values it needs (a copy of the forward
    body; what the gradients do not use is erased), then applies the
    gradient rule (`BackwardOpInterface`) of every op in reverse order. The
    collectives transpose with their own dtypes: an all_gather becomes a
    reduce_scatter whose wire dtype is the gather's `backward_dtype` and
    whose reduction is its `grad_reduction` and whose partial sums cross
    hosts in its `grad_inter_host_dtype`; a reduce_scatter an all_gather
    in its `backward_dtype`; an all_reduce an all_reduce; an all_to_all the
    inverse all_to_all. A `prec.cast` casts the gradient to its
    `backward_dtype`; a `prec.reduce` broadcasts it. `linalg.matmul`,
    `linalg.batch_matmul`, `linalg.softmax`, `linalg.transpose` and
    `linalg.fill` have rules too, and so do the
    elementwise `arith` and `math` ops of one table of derivatives, on
    tensors and in the bodies of `linalg.generic`, `map`, `broadcast`,
    `reduce` and the elementwise named ops (broadcast operands get their
    gradients summed; reductions by sum, max and min, ties of max and min
    split the gradient evenly; a body's `tensor.extract` from a float table
    captured from outside scatter-adds into the table's gradient), and
    the tensor reshapes, slices, `concat` and `pad`; more ops join by
    external models.

    Gradient dtypes: the gradient of a value has the value's type
    (PyTorch's rule), except for arguments with `prec.grad_dtype`. Rules
    may return a wider gradient (a bf16 matmul returns its f32 accumulator);
    the gradients of a value used several times are summed in their common
    element type, in f32 (f64 when one is f64) when they differ, and the
    sum is rounded once to the value's gradient dtype.

    The functions differentiated are those named by `functions`, or by
    default every function carrying the unit attribute
    `prec.differentiable`. Forward functions must have one block and no
    side effects but `cf.assert` (they are recomputed); an op that needs a gradient and has
    no rule is an error naming it, and so is an op a gradient reaches that
    reads a value depending on a differentiable argument through which no
    gradient can flow (a complex tensor, a scalar float, a body's capture):
    only integers and indices are without a gradient. The backward function
    is marked `prec.backward_of = @f`, and a function so marked is left
    alone when the pass runs again: the pass can run on its own output, as
    `prec-run` does when it lowers a module that has been through it. The
    ops a gradient rule builds are at the forward op's location, named:
    `loc("gradient of prec.all_gather"(<the gather's location>))`, so that
    diagnostics and reports on them say whose gradient they compute.

    Before:
    ```mlir
    shard.grid @dp(shape = 8)
    func.func @layer(%w_shard: tensor<16x64xf32>, %x: tensor<8x128xbf16>)
        -> tensor<8x64xf32> attributes {prec.differentiable} {
      %w = prec.all_gather %w_shard on @dp gather_axis = 0
             forward_dtype = bf16 backward_dtype = f32
             : tensor<16x64xf32> -> tensor<128x64xbf16>
      %zero = arith.constant 0.0 : f32
      %empty = tensor.empty() : tensor<8x64xf32>
      %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<8x64xf32>)
                -> tensor<8x64xf32>
      %y = linalg.matmul ins(%x, %w : tensor<8x128xbf16>, tensor<128x64xbf16>)
             outs(%init : tensor<8x64xf32>) -> tensor<8x64xf32>
      return %y : tensor<8x64xf32>
    }
    ```
    After (the forward function is unchanged; `@layer_backward` is added):
    ```mlir
    func.func @layer_backward(%w_shard: tensor<16x64xf32>,
        %x: tensor<8x128xbf16>, %dy: tensor<8x64xf32>)
        -> (tensor<16x64xf32>, tensor<8x128xbf16>)
        attributes {prec.backward_of = @layer} {
      %w = prec.all_gather %w_shard on @dp gather_axis = 0
             forward_dtype = bf16 backward_dtype = f32
             : tensor<16x64xf32> -> tensor<128x64xbf16>
      // dx = dy w^T, accumulated in f32, rounded once to bf16
      %wt = linalg.transpose ins(%w : ...) outs(... : tensor<64x128xbf16>)
              permutation = [1, 0]
      %dx_acc = linalg.matmul ins(%dy, %wt : tensor<8x64xf32>, tensor<64x128xbf16>)
                  outs(%zeros : tensor<8x128xf32>) -> tensor<8x128xf32>
      // dw = x^T dy, then the gather's transpose: f32 on the wire, averaged
      %xt = linalg.transpose ins(%x : ...) outs(... : tensor<128x8xbf16>)
              permutation = [1, 0]
      %dw_acc = linalg.matmul ins(%xt, %dy : tensor<128x8xbf16>, tensor<8x64xf32>)
                  outs(%zeros2 : tensor<128x64xf32>) -> tensor<128x64xf32>
      %dw = prec.cast %dw_acc : tensor<128x64xf32> to tensor<128x64xbf16>
      %dw_shard = prec.reduce_scatter %dw on @dp scatter_axis = 0
                    reduction = <avg> forward_dtype = f32 backward_dtype = bf16
                    : tensor<128x64xbf16> -> tensor<16x64xf32>
      %dx = prec.cast %dx_acc : tensor<8x128xf32> to tensor<8x128xbf16>
      return %dw_shard, %dx : tensor<16x64xf32>, tensor<8x128xbf16>
    }
    ```
  }];
  let options = [
    ListOption<"functions", "functions", "std::string",
               "the forward functions to differentiate (default: those "
               "carrying `prec.differentiable`)">
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::func::FuncDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect",
    "::mlir::prec::PrecDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

#endif // PREC_GRADIENTS_PASSES_TD
