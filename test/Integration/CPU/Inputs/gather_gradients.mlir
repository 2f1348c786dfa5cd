// Gathers as torch-mlir exports them (a body's `tensor.extract` from a
// float table captured from outside the op), whose gradients are
// scatter-adds into the tables; run by check_gather_gradients.py.

#vec = affine_map<(d0) -> (d0)>
#rows = affine_map<(d0, d1) -> (d0)>
#id = affine_map<(d0, d1) -> (d0, d1)>

// An embedding whose table is read twice per point: rows ids[t] and
// ids2[t], column d (a loop dimension of the table's extent).
func.func private @embed(%w: tensor<8x4xf32>, %ids: tensor<6xi64>, %ids2: tensor<6xi64>) -> tensor<6x4xf32>
    attributes {prec.differentiable} {
  %e = tensor.empty() : tensor<6x4xf32>
  %y = linalg.generic {indexing_maps = [#rows, #rows, #id], iterator_types = ["parallel", "parallel"]}
      ins(%ids, %ids2 : tensor<6xi64>, tensor<6xi64>) outs(%e : tensor<6x4xf32>) {
  ^bb0(%a: i64, %b: i64, %out: f32):
    %i = arith.index_cast %a : i64 to index
    %k = arith.index_cast %b : i64 to index
    %j = linalg.index 1 : index
    %v = tensor.extract %w[%i, %j] : tensor<8x4xf32>
    %u = tensor.extract %w[%k, %j] : tensor<8x4xf32>
    %s = arith.addf %v, %u : f32
    linalg.yield %s : f32
  } -> tensor<6x4xf32>
  return %y : tensor<6x4xf32>
}

// The cross-entropy target pick: row t (a loop dimension), column
// targets[t].
func.func private @pick(%logits: tensor<6x8xf32>, %targets: tensor<6xi64>) -> tensor<6xf32>
    attributes {prec.differentiable} {
  %e = tensor.empty() : tensor<6xf32>
  %y = linalg.generic {indexing_maps = [#vec, #vec], iterator_types = ["parallel"]}
      ins(%targets : tensor<6xi64>) outs(%e : tensor<6xf32>) {
  ^bb0(%in: i64, %out: f32):
    %t = linalg.index 0 : index
    %c = arith.index_cast %in : i64 to index
    %v = tensor.extract %logits[%t, %c] : tensor<6x8xf32>
    linalg.yield %v : f32
  } -> tensor<6xf32>
  return %y : tensor<6xf32>
}

// Both indices data-dependent, and a loop (d1) that does not index the
// table: each element read sums over it.
func.func private @pair(%w: tensor<5x3xf32>, %rows: tensor<6xi64>, %cols: tensor<6xi64>) -> tensor<6x2xf32>
    attributes {prec.differentiable} {
  %e = tensor.empty() : tensor<6x2xf32>
  %y = linalg.generic {indexing_maps = [#rows, #rows, #id], iterator_types = ["parallel", "parallel"]}
      ins(%rows, %cols : tensor<6xi64>, tensor<6xi64>) outs(%e : tensor<6x2xf32>) {
  ^bb0(%r: i64, %c: i64, %out: f32):
    %i = arith.index_cast %r : i64 to index
    %j = arith.index_cast %c : i64 to index
    %v = tensor.extract %w[%i, %j] : tensor<5x3xf32>
    linalg.yield %v : f32
  } -> tensor<6x2xf32>
  return %y : tensor<6x2xf32>
}

func.func private @embed_backward(tensor<8x4xf32>, tensor<6xi64>, tensor<6xi64>, tensor<6x4xf32>) -> tensor<8x4xf32>
func.func private @pick_backward(tensor<6x8xf32>, tensor<6xi64>, tensor<6xf32>) -> tensor<6x8xf32>
func.func private @pair_backward(tensor<5x3xf32>, tensor<6xi64>, tensor<6xi64>, tensor<6x2xf32>) -> tensor<5x3xf32>

// The gradients of the three tables for the result gradients dy_*. The
// indices the runs give include repeats and indices outside the tables;
// the forward functions are not run (they would read outside the tables).
func.func @gather_gradients(%w: tensor<8x4xf32>, %ids: tensor<6xi64>, %ids2: tensor<6xi64>, %dy_embed: tensor<6x4xf32>,
                            %logits: tensor<6x8xf32>, %targets: tensor<6xi64>, %dy_pick: tensor<6xf32>,
                            %w2: tensor<5x3xf32>, %rows: tensor<6xi64>, %cols: tensor<6xi64>, %dy_pair: tensor<6x2xf32>)
    -> (tensor<8x4xf32>, tensor<6x8xf32>, tensor<5x3xf32>) {
  %dw = call @embed_backward(%w, %ids, %ids2, %dy_embed)
      : (tensor<8x4xf32>, tensor<6xi64>, tensor<6xi64>, tensor<6x4xf32>) -> tensor<8x4xf32>
  %dlogits = call @pick_backward(%logits, %targets, %dy_pick)
      : (tensor<6x8xf32>, tensor<6xi64>, tensor<6xf32>) -> tensor<6x8xf32>
  %dw2 = call @pair_backward(%w2, %rows, %cols, %dy_pair)
      : (tensor<5x3xf32>, tensor<6xi64>, tensor<6xi64>, tensor<6x2xf32>) -> tensor<5x3xf32>
  return %dw, %dlogits, %dw2 : tensor<8x4xf32>, tensor<6x8xf32>, tensor<5x3xf32>
}
