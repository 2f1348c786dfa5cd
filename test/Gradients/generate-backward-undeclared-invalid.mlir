// prec-opt declares the backward functions a module calls before the first
// pass and only then verifies the module: what is invalid is reported as the
// parser's verifier reported it, with or without a pass.
// RUN: prec-opt %s -split-input-file -verify-diagnostics
// RUN: prec-opt %s -split-input-file -verify-diagnostics --prec-generate-backward

// The forward function is neither marked nor named.
func.func private @loss(%x: tensor<4xf32>) -> tensor<f32> {
  %l = prec.reduce %x dims = [0] : tensor<4xf32> -> tensor<f32>
  return %l : tensor<f32>
}
func.func @grad(%x: tensor<4xf32>, %one: tensor<f32>) -> tensor<4xf32> {
  // expected-error @below {{'@loss_backward' is called but not declared; give @loss the unit attribute 'prec.differentiable' to generate it}}
  %g = call @loss_backward(%x, %one) : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return %g : tensor<4xf32>
}

// -----

// A module invalid for another reason is reported, declaration or not.
func.func private @loss(%x: tensor<4xf32>) -> tensor<f32> attributes {prec.differentiable} {
  %l = prec.reduce %x dims = [0] : tensor<4xf32> -> tensor<f32>
  return %l : tensor<f32>
}
func.func @grad(%x: tensor<4xf32>, %one: tensor<f32>) -> tensor<4xf32> {
  %g = call @loss_backward(%x, %one) : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  // expected-error @below {{'func.return' op has 0 operands, but enclosing function (@grad) returns 1}}
  return
}

// -----

// A call to another undeclared function is the verifier's to report.
func.func @grad(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{'func.call' op 'missing_backward' does not reference a valid function}}
  %g = call @missing_backward(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %g : tensor<4xf32>
}

// -----

// A called backward whose type the call does not match.
func.func private @loss(%x: tensor<4xf32>) -> tensor<f32> attributes {prec.differentiable} {
  %l = prec.reduce %x dims = [0] : tensor<4xf32> -> tensor<f32>
  return %l : tensor<f32>
}
func.func @grad(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{'func.call' op incorrect number of operands for callee}}
  %g = call @loss_backward(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %g : tensor<4xf32>
}

// -----

// A forward function whose signature is invalid gets no declaration: the
// verifier reports its attribute.
// expected-error @below {{expected 'prec.grad_dtype' of argument 0 to be a float type, got i32}}
func.func private @loss(%x: tensor<4xf32> {prec.grad_dtype = i32}) -> tensor<f32> attributes {prec.differentiable} {
  %l = prec.reduce %x dims = [0] : tensor<4xf32> -> tensor<f32>
  return %l : tensor<f32>
}
func.func @grad(%x: tensor<4xf32>, %one: tensor<f32>) -> tensor<4xf32> {
  %g = call @loss_backward(%x, %one) : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return %g : tensor<4xf32>
}
