// Gradient rules of what PyTorch exports through torch-mlir emit beside
// the ops of the other gradients-*.mlir tests: keepdim reductions read
// through a constant-0 map result, a max reduction with an unused argmax
// result (log_softmax), bounds checks (`cf.assert`) in bodies, and gathers
// (`tensor.extract` from a table captured from outside the op at
// data-dependent indices: embeddings and the cross-entropy target pick;
// torch.flip, whose table is also the op's input), against central
// differences on every coordinate of every argument, in f64.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/check_finite_differences.py prec-run %s %t keepdim log_softmax gather flip | FileCheck %s
// CHECK: finite differences: 71 values compared ({{[0-9]+}} that 0 would fail), 0 outside tolerance

#id = affine_map<(d0, d1) -> (d0, d1)>
#keep = affine_map<(d0, d1) -> (d0, 0)>
#rows = affine_map<(d0, d1) -> (d0)>
#vec = affine_map<(d0) -> (d0)>
#scalar = affine_map<(d0) -> ()>

// sum(p * (x - mean_row(x))^2), the mean kept as a 2x1 tensor.
func.func private @keepdim(%x: tensor<2x4xf64>, %p: tensor<2x4xf64>) -> tensor<f64>
    attributes {prec.differentiable} {
  %zero = arith.constant 0.0 : f64
  %n = arith.constant 4.0 : f64
  %e21 = tensor.empty() : tensor<2x1xf64>
  %z21 = linalg.fill ins(%zero : f64) outs(%e21 : tensor<2x1xf64>) -> tensor<2x1xf64>
  %sum = linalg.generic {indexing_maps = [#id, #keep], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<2x4xf64>) outs(%z21 : tensor<2x1xf64>) {
  ^bb0(%in: f64, %out: f64):
    %s = arith.addf %in, %out : f64
    linalg.yield %s : f64
  } -> tensor<2x1xf64>
  %e24 = tensor.empty() : tensor<2x4xf64>
  %y = linalg.generic {indexing_maps = [#id, #keep, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %sum, %p : tensor<2x4xf64>, tensor<2x1xf64>, tensor<2x4xf64>) outs(%e24 : tensor<2x4xf64>) {
  ^bb0(%v: f64, %s: f64, %w: f64, %out: f64):
    %m = arith.divf %s, %n : f64
    %c = arith.subf %v, %m : f64
    %two = arith.constant 2 : i64
    %sq = math.fpowi %c, %two : f64, i64
    %o = arith.mulf %sq, %w : f64
    linalg.yield %o : f64
  } -> tensor<2x4xf64>
  %l = prec.reduce %y dims = [0, 1] reduction = <sum> acc_dtype = f64 : tensor<2x4xf64> -> tensor<f64>
  return %l : tensor<f64>
}

// sum(p * log_softmax(x)) over the rows, the max taken with its argmax as
// torch-mlir lowers aten.max.dim; the argmax is not used.
func.func private @log_softmax(%x: tensor<2x4xf64>, %p: tensor<2x4xf64>) -> tensor<f64>
    attributes {prec.differentiable} {
  %zero = arith.constant 0.0 : f64
  %ninf = arith.constant 0xFFF0000000000000 : f64
  %c0 = arith.constant 0 : i64
  %e2 = tensor.empty() : tensor<2xf64>
  %m0 = linalg.fill ins(%ninf : f64) outs(%e2 : tensor<2xf64>) -> tensor<2xf64>
  %ei = tensor.empty() : tensor<2xi64>
  %i0 = linalg.fill ins(%c0 : i64) outs(%ei : tensor<2xi64>) -> tensor<2xi64>
  %max:2 = linalg.generic {indexing_maps = [#id, #rows, #rows], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<2x4xf64>) outs(%m0, %i0 : tensor<2xf64>, tensor<2xi64>) {
  ^bb0(%in: f64, %out: f64, %arg: i64):
    %j = linalg.index 1 : index
    %ji = arith.index_cast %j : index to i64
    %m = arith.maximumf %in, %out : f64
    %gt = arith.cmpf ogt, %in, %out : f64
    %a = arith.select %gt, %ji, %arg : i64
    linalg.yield %m, %a : f64, i64
  } -> (tensor<2xf64>, tensor<2xi64>)
  %e24 = tensor.empty() : tensor<2x4xf64>
  %shifted = linalg.generic {indexing_maps = [#id, #rows, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %max#0 : tensor<2x4xf64>, tensor<2xf64>) outs(%e24 : tensor<2x4xf64>) {
  ^bb0(%v: f64, %m: f64, %out: f64):
    %d = arith.subf %v, %m : f64
    linalg.yield %d : f64
  } -> tensor<2x4xf64>
  %s0 = linalg.fill ins(%zero : f64) outs(%e2 : tensor<2xf64>) -> tensor<2xf64>
  %sum = linalg.generic {indexing_maps = [#id, #rows], iterator_types = ["parallel", "reduction"]}
      ins(%shifted : tensor<2x4xf64>) outs(%s0 : tensor<2xf64>) {
  ^bb0(%in: f64, %out: f64):
    %e = math.exp %in : f64
    %s = arith.addf %e, %out : f64
    linalg.yield %s : f64
  } -> tensor<2xf64>
  %y = linalg.generic {indexing_maps = [#id, #rows, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%shifted, %sum, %p : tensor<2x4xf64>, tensor<2xf64>, tensor<2x4xf64>) outs(%e24 : tensor<2x4xf64>) {
  ^bb0(%v: f64, %s: f64, %w: f64, %out: f64):
    %ls = math.log %s : f64
    %d = arith.subf %v, %ls : f64
    %o = arith.mulf %d, %w : f64
    linalg.yield %o : f64
  } -> tensor<2x4xf64>
  %l = prec.reduce %y dims = [0, 1] reduction = <sum> acc_dtype = f64 : tensor<2x4xf64> -> tensor<f64>
  return %l : tensor<f64>
}

// A tied embedding as torch-mlir exports it: rows of the table w (5x3)
// picked by token ids with bounds checks (the id 1 twice, so that two
// adjoints add into one row), h = tanh(w[ids]) * s, logits = h w^T (the
// tied lm_head), and the sum of the logits picked at the targets (the
// cross-entropy pick: row i, column target[i]). w gets the gathers'
// scatter-adds plus the lm_head's gradient.
func.func private @gather(%w: tensor<5x3xf64>, %s: tensor<4x3xf64>) -> tensor<f64>
    attributes {prec.differentiable} {
  %ids = arith.constant dense<[1, 3, 1, 0]> : tensor<4xi64>
  %targets = arith.constant dense<[4, 1, 1, 2]> : tensor<4xi64>
  %c5 = arith.constant 5 : index
  %c0_i64 = arith.constant 0 : i64
  %zero = arith.constant 0.0 : f64
  %e43 = tensor.empty() : tensor<4x3xf64>
  %rows = linalg.generic {indexing_maps = [#rows, #id], iterator_types = ["parallel", "parallel"]}
      ins(%ids : tensor<4xi64>) outs(%e43 : tensor<4x3xf64>) {
  ^bb0(%in: i64, %out: f64):
    %i = arith.index_cast %in : i64 to index
    %j = linalg.index 1 : index
    %lt = arith.cmpi slt, %i, %c5 : index
    cf.assert %lt, "index must be smaller than dim size"
    %ge = arith.cmpi sge, %in, %c0_i64 : i64
    cf.assert %ge, "index must be larger or equal to 0"
    %v = tensor.extract %w[%i, %j] : tensor<5x3xf64>
    %t = math.tanh %v : f64
    linalg.yield %t : f64
  } -> tensor<4x3xf64>
  %h = arith.mulf %rows, %s : tensor<4x3xf64>
  %e35 = tensor.empty() : tensor<3x5xf64>
  %wt = linalg.transpose ins(%w : tensor<5x3xf64>) outs(%e35 : tensor<3x5xf64>) permutation = [1, 0]
  %e45 = tensor.empty() : tensor<4x5xf64>
  %z45 = linalg.fill ins(%zero : f64) outs(%e45 : tensor<4x5xf64>) -> tensor<4x5xf64>
  %logits = linalg.matmul ins(%h, %wt : tensor<4x3xf64>, tensor<3x5xf64>) outs(%z45 : tensor<4x5xf64>) -> tensor<4x5xf64>
  %e4 = tensor.empty() : tensor<4xf64>
  %picked = linalg.generic {indexing_maps = [#vec, #vec], iterator_types = ["parallel"]}
      ins(%targets : tensor<4xi64>) outs(%e4 : tensor<4xf64>) {
  ^bb0(%in: i64, %out: f64):
    %i = linalg.index 0 : index
    %t = arith.index_cast %in : i64 to index
    %v = tensor.extract %logits[%i, %t] : tensor<4x5xf64>
    %sq = arith.mulf %v, %v : f64
    linalg.yield %sq : f64
  } -> tensor<4xf64>
  %l = prec.reduce %picked dims = [0] reduction = <sum> acc_dtype = f64 : tensor<4xf64> -> tensor<f64>
  return %l : tensor<f64>
}

// sum(p * flip(x)) along the rows, as torch-mlir lowers aten.flip: x is the
// generic's input (its block argument unused) and read by a
// `tensor.extract` at row 2 - i; x * p first, so that x's gradient is not
// p's value alone.
func.func private @flip(%x: tensor<3x2xf64>, %p: tensor<3x2xf64>) -> tensor<f64>
    attributes {prec.differentiable} {
  %c2 = arith.constant 2 : index
  %e = tensor.empty() : tensor<3x2xf64>
  %xp = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %p : tensor<3x2xf64>, tensor<3x2xf64>) outs(%e : tensor<3x2xf64>) {
  ^bb0(%a: f64, %b: f64, %out: f64):
    %m = arith.mulf %a, %b : f64
    linalg.yield %m : f64
  } -> tensor<3x2xf64>
  %f = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%xp : tensor<3x2xf64>) outs(%e : tensor<3x2xf64>) {
  ^bb0(%in: f64, %out: f64):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %r = arith.subi %c2, %i : index
    %v = tensor.extract %xp[%r, %j] : tensor<3x2xf64>
    linalg.yield %v : f64
  } -> tensor<3x2xf64>
  %y = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%f, %x : tensor<3x2xf64>, tensor<3x2xf64>) outs(%e : tensor<3x2xf64>) {
  ^bb0(%a: f64, %b: f64, %out: f64):
    %m = arith.mulf %a, %b : f64
    linalg.yield %m : f64
  } -> tensor<3x2xf64>
  %l = prec.reduce %y dims = [0, 1] reduction = <sum> acc_dtype = f64 : tensor<3x2xf64> -> tensor<f64>
  return %l : tensor<f64>
}
