// RUN: prec-opt %s --prec-generate-backward -split-input-file -verify-diagnostics
// A function named twice is differentiated once; its failed backward
// function leaves no symbol behind.
// RUN: not prec-opt %s --prec-generate-backward="functions=named_twice,named_twice" -split-input-file 2>&1 | FileCheck %s --check-prefix=TWICE

func.func @unsupported(%x: tensor<4xf32>) -> tensor<4xf32> attributes {prec.differentiable} {
  // expected-error @below {{'math.cbrt' op has no gradient rule (it does not implement BackwardOpInterface)}}
  %y = math.cbrt %x : tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// An op without a rule inside a linalg body is named, with the linalg op.
func.func @unsupported_in_body(%x: tensor<4xf32>) -> tensor<4xf32> attributes {prec.differentiable} {
  %empty = tensor.empty() : tensor<4xf32>
  // expected-note @below {{in the body of this 'linalg.generic'}}
  %y = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]}
      ins(%x : tensor<4xf32>) outs(%empty : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %e = math.exp %in : f32
    // expected-error @below {{'math.cbrt' op has no gradient rule}}
    %a = math.cbrt %e : f32
    linalg.yield %a : f32
  } -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// A reduction is differentiated only when it sums, maxes or mins.
func.func @product(%x: tensor<4xf32>, %init: tensor<f32>) -> tensor<f32> attributes {prec.differentiable} {
  // expected-error @below {{'linalg.reduce' op has no gradient rule for this reduction: expected its body to yield 'arith.addf', 'arith.maximumf' or 'arith.minimumf' of the accumulator and a value of the inputs}}
  %y = linalg.reduce ins(%x : tensor<4xf32>) outs(%init : tensor<f32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %p = arith.mulf %in, %acc : f32
      linalg.yield %p : f32
    }
  return %y : tensor<f32>
}

// -----

// Indexing maps other than projected permutations (a convolution's d0 + d1)
// have no rule.
func.func @window(%x: tensor<6xf32>, %k: tensor<3xf32>, %init: tensor<4xf32>) -> tensor<4xf32> attributes {prec.differentiable} {
  // expected-error @below {{'linalg.generic' op has no gradient rule for indexing map #0 affine_map<(d0, d1) -> (d0 + d1)>: expected a projected permutation}}
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0 + d1)>, affine_map<(d0, d1) -> (d1)>,
                                        affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x, %k : tensor<6xf32>, tensor<3xf32>) outs(%init : tensor<4xf32>) {
  ^bb0(%in: f32, %w: f32, %acc: f32):
    %p = arith.mulf %in, %w : f32
    %s = arith.addf %p, %acc : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

shard.grid @dp(shape = 8)
func.func @all_reduce_max(%x: tensor<4xf32>) -> tensor<4xf32> attributes {prec.differentiable} {
  // expected-error @below {{'prec.all_reduce' op has no gradient rule for reduction 'max'}}
  %y = prec.all_reduce %x on @dp reduction = <max> : tensor<4xf32> -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @max(%x: tensor<4xf32>) -> tensor<f32> attributes {prec.differentiable} {
  // expected-error @below {{'prec.reduce' op has no gradient rule for reduction 'max'}}
  %y = prec.reduce %x dims = [0] reduction = <max> : tensor<4xf32> -> tensor<f32>
  return %y : tensor<f32>
}

// -----

// An avg's divisor must be known.
shard.grid @dyn(shape = ?)
func.func @dynamic_group(%x: tensor<64xf32>) -> tensor<8xf32> attributes {prec.differentiable} {
  // expected-error @below {{'prec.reduce_scatter' op has no gradient rule for an avg over a group of dynamic size}}
  %y = prec.reduce_scatter %x on @dyn scatter_axis = 0 reduction = <avg> : tensor<64xf32> -> tensor<8xf32>
  return %y : tensor<8xf32>
}

// -----

// The backward function recomputes the forward ops.
func.func @effects(%x: tensor<4xf32>, %m: memref<4xf32>) -> tensor<4xf32> attributes {prec.differentiable} {
  %c0 = arith.constant 0 : index
  %f = arith.constant 1.0 : f32
  // expected-error @below {{'memref.store' op has side effects}}
  memref.store %f, %m[%c0] : memref<4xf32>
  return %x : tensor<4xf32>
}

// -----

// expected-error @below {{'func.func' op argument 0 of type 'f32' has a 'prec.grad_dtype' but no gradient}}
func.func @scalar(%x: f32 {prec.grad_dtype = f32}) -> f32 attributes {prec.differentiable} {
  return %x : f32
}

// -----

// expected-error @below {{cannot create its backward function 'clash_backward': the symbol exists and is not a declaration}}
func.func @clash(%x: tensor<4xf32>) -> tensor<4xf32> attributes {prec.differentiable} {
  return %x : tensor<4xf32>
}
func.func @clash_backward() {
  return
}

// -----

func.func @declared(%x: tensor<4xf32>) -> tensor<4xf32> attributes {prec.differentiable} {
  return %x : tensor<4xf32>
}
// expected-error @below {{declares the backward function of @declared with type '(tensor<4xf32>) -> tensor<4xf32>', expected '(tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>'}}
func.func private @declared_backward(tensor<4xf32>) -> tensor<4xf32>

// -----

// expected-error @below {{cannot be differentiated without a body}}
func.func private @external(%x: tensor<4xf32>) -> tensor<4xf32> attributes {prec.differentiable}

// -----

// expected-error @below {{expected 'prec.differentiable' to be a unit attribute on a function}}
func.func @bad_attr(%x: tensor<4xf32>) -> tensor<4xf32> attributes {prec.differentiable = 1 : i32} {
  return %x : tensor<4xf32>
}

// -----

// expected-error @below {{expected a single-block body to differentiate, got 2 blocks}}
func.func @blocks(%x: tensor<4xf32>) -> tensor<4xf32> attributes {prec.differentiable} {
  cf.br ^next
^next:
  return %x : tensor<4xf32>
}


// -----

func.func @matmul_transposed(%a: tensor<8x4xf32>, %b: tensor<16x4xf32>, %c: tensor<8x16xf32>)
    -> tensor<8x16xf32> attributes {prec.differentiable} {
  // expected-error @below {{'linalg.matmul' op has no gradient rule for non-default indexing maps}}
  %0 = linalg.matmul
         indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                          affine_map<(m, n, k) -> (n, k)>,
                          affine_map<(m, n, k) -> (m, n)>]
         ins(%a, %b : tensor<8x4xf32>, tensor<16x4xf32>)
         outs(%c : tensor<8x16xf32>) -> tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// -----

// Other chunks report that they lack @named_twice.
// TWICE:     error: 'prec.reduce_scatter' op has no gradient rule for reduction 'max'
// TWICE-NOT: error: 'prec.reduce_scatter' op has no gradient rule for reduction 'max'
shard.grid @dp(shape = 4)
func.func @named_twice(%x: tensor<8xf32>) -> tensor<2xf32> {
  %y = prec.reduce_scatter %x on @dp scatter_axis = 0 reduction = <max> : tensor<8xf32> -> tensor<2xf32>
  return %y : tensor<2xf32>
}

// -----

// A backward function made for an earlier signature of its forward function
// is not taken as up to date.
func.func @changed(%x: tensor<8xf32>) -> tensor<8xf32> attributes {prec.differentiable} {
  %0 = arith.negf %x : tensor<8xf32>
  return %0 : tensor<8xf32>
}
// expected-error @+1 {{was generated as the backward function of @changed with type '(tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>', but @changed now needs '(tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>'}}
func.func @changed_backward(%x: tensor<4xf32>, %dy: tensor<4xf32>) -> tensor<4xf32>
    attributes {prec.backward_of = @changed} {
  return %dy : tensor<4xf32>
}

// -----

func.func @grad_dtype_on_scalar(%x: f32) -> f32 {
  // expected-error @below {{expected 'prec.grad_dtype' on an op with one ranked tensor result, got 'arith.negf' with 1 results}}
  %y = arith.negf %x {prec.grad_dtype = f32} : f32
  return %y : f32
}

// -----

// Complex values carry no gradient: the op that a gradient reaches through
// them is named, never a silent zero for the real inputs (rotary embeddings
// as complex products).
func.func @complex_tensors(%x: tensor<4xf32>, %y: tensor<4xf32>,
                           %freqs: tensor<4xcomplex<f32>>) -> tensor<4xf32> attributes {prec.differentiable} {
  %ec = tensor.empty() : tensor<4xcomplex<f32>>
  %z = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]}
      ins(%x, %y : tensor<4xf32>, tensor<4xf32>) outs(%ec : tensor<4xcomplex<f32>>) {
  ^bb0(%re: f32, %im: f32, %out: complex<f32>):
    %c = complex.create %re, %im : complex<f32>
    linalg.yield %c : complex<f32>
  } -> tensor<4xcomplex<f32>>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]}
      ins(%z, %freqs : tensor<4xcomplex<f32>>, tensor<4xcomplex<f32>>) outs(%ec : tensor<4xcomplex<f32>>) {
  ^bb0(%a: complex<f32>, %b: complex<f32>, %out: complex<f32>):
    %p = complex.mul %a, %b : complex<f32>
    linalg.yield %p : complex<f32>
  } -> tensor<4xcomplex<f32>>
  %ef = tensor.empty() : tensor<4xf32>
  // expected-error @below {{'linalg.generic' op has no gradient rule for operand #0 of type 'tensor<4xcomplex<f32>>', which depends on a differentiable argument: gradients flow through ranked tensors of floats only}}
  %o = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]}
      ins(%r : tensor<4xcomplex<f32>>) outs(%ef : tensor<4xf32>) {
  ^bb0(%a: complex<f32>, %out: f32):
    %re = complex.re %a : complex<f32>
    linalg.yield %re : f32
  } -> tensor<4xf32>
  return %o : tensor<4xf32>
}

// -----

// The same inside one body: the complex op the gradient reaches is named.
func.func @complex_in_body(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> attributes {prec.differentiable} {
  %empty = tensor.empty() : tensor<4xf32>
  // expected-note @below {{in the body of this 'linalg.generic'}}
  %o = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]}
      ins(%x, %y : tensor<4xf32>, tensor<4xf32>) outs(%empty : tensor<4xf32>) {
  ^bb0(%re: f32, %im: f32, %out: f32):
    %c = complex.create %re, %im : complex<f32>
    %p = complex.mul %c, %c : complex<f32>
    // expected-error @below {{'complex.im' op has no gradient rule}}
    %i = complex.im %p : complex<f32>
    linalg.yield %i : f32
  } -> tensor<4xf32>
  return %o : tensor<4xf32>
}

// -----

// A scalar float carries no gradient: one read from a differentiable
// argument and used by an op the gradient reaches is an error.
func.func @scalar_operand(%x: tensor<4xf32>, %s: tensor<f32>) -> tensor<4xf32> attributes {prec.differentiable} {
  %v = tensor.extract %s[] : tensor<f32>
  %empty = tensor.empty() : tensor<4xf32>
  // expected-error @below {{'linalg.fill' op has no gradient rule for operand #0 of type 'f32', which depends on a differentiable argument: gradients flow through ranked tensors of floats only}}
  %f = linalg.fill ins(%v : f32) outs(%empty : tensor<4xf32>) -> tensor<4xf32>
  %y = arith.mulf %x, %f : tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// A value a body captures from outside gets no gradient from the body's
// rule: an error when it depends on a differentiable argument.
func.func @captured_scalar(%x: tensor<4xf32>, %s: tensor<f32>) -> tensor<4xf32> attributes {prec.differentiable} {
  %v = tensor.extract %s[] : tensor<f32>
  %empty = tensor.empty() : tensor<4xf32>
  // expected-error @below {{'linalg.generic' op has no gradient rule for a value its body captures from outside, which depends on a differentiable argument: pass it as an operand}}
  %y = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]}
      ins(%x : tensor<4xf32>) outs(%empty : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    // expected-note @below {{captured here}}
    %m = arith.mulf %in, %v : f32
    linalg.yield %m : f32
  } -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// expected-error @below {{'func.func' op argument 0 has both 'prec.no_grad' and 'prec.grad_dtype'}}
func.func @no_grad_with_grad_dtype(%x: tensor<4xf32> {prec.no_grad, prec.grad_dtype = f32}) -> tensor<4xf32>
    attributes {prec.differentiable} {
  return %x : tensor<4xf32>
}

// -----

// A captured float table read other than by tensor.extract (here through
// a view) has no rule: an error naming the op, never a zero gradient.
func.func @captured_table_not_extracted(%w: tensor<4x4xf32>) -> tensor<4xf32> attributes {prec.differentiable} {
  %c0 = arith.constant 0 : index
  %empty = tensor.empty() : tensor<4xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      outs(%empty : tensor<4xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    // expected-error @below {{'tensor.extract_slice' op has no gradient rule for a float tensor captured from outside the 'linalg.generic': expected only 'tensor.extract's in its body to read it}}
    %row = tensor.extract_slice %w[%i, 0] [1, 4] [1, 1] : tensor<4x4xf32> to tensor<4xf32>
    %v = tensor.extract %row[%c0] : tensor<4xf32>
    linalg.yield %v : f32
  } -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// A reduction whose two float results both take a gradient (a max and a
// sum in one op) has no rule.
func.func @two_reduced_results(%x: tensor<4x4xf32>) -> (tensor<4xf32>, tensor<4xf32>) attributes {prec.differentiable} {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<4xf32>
  %z = linalg.fill ins(%zero : f32) outs(%empty : tensor<4xf32>) -> tensor<4xf32>
  // expected-error @below {{'linalg.generic' op has no gradient rule for a reduction with gradients for results #0 and #1: expected one}}
  %r:2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>,
                                          affine_map<(d0, d1) -> (d0)>],
                         iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x4xf32>) outs(%z, %z : tensor<4xf32>, tensor<4xf32>) {
  ^bb0(%in: f32, %m: f32, %s: f32):
    %mm = arith.maximumf %in, %m : f32
    %ss = arith.addf %in, %s : f32
    linalg.yield %mm, %ss : f32, f32
  } -> (tensor<4xf32>, tensor<4xf32>)
  return %r#0, %r#1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// An argmax that reads the max's accumulator into a float (the reduced
// value then depends on the accumulator) has no rule.
func.func @reduced_reads_accumulator(%x: tensor<4x4xf32>) -> tensor<4xf32> attributes {prec.differentiable} {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<4xf32>
  %z = linalg.fill ins(%zero : f32) outs(%empty : tensor<4xf32>) -> tensor<4xf32>
  // expected-error @below {{'linalg.generic' op has no gradient rule for this reduction: expected its body to yield 'arith.addf', 'arith.maximumf' or 'arith.minimumf' of the accumulator and a value of the inputs}}
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x4xf32>) outs(%z : tensor<4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %sq = arith.mulf %in, %acc : f32
    %s = arith.addf %sq, %acc : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}
