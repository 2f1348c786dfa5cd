// RUN: prec-opt %s --prec-globals-to-arguments -split-input-file -verify-diagnostics

ml_program.global private mutable @state(dense<0> : tensor<i64>) : tensor<i64>
// expected-error @below {{'func.func' op uses a mutable global and is referenced in the module: its callers would have to pass the global}}
func.func @callee() -> tensor<i64> {
  %s = ml_program.global_load @state : tensor<i64>
  return %s : tensor<i64>
}
func.func @caller() -> tensor<i64> {
  %s = func.call @callee() : () -> tensor<i64>
  return %s : tensor<i64>
}

// -----

ml_program.global private mutable @state(dense<0> : tensor<i64>) : tensor<i64>
func.func @nested(%c: i1) -> tensor<i64> {
  %r = scf.if %c -> tensor<i64> {
    // expected-error @below {{'ml_program.global_load' op cannot become function state: expected it in the body of '@nested', not in a nested region}}
    %s = ml_program.global_load @state : tensor<i64>
    scf.yield %s : tensor<i64>
  } else {
    %z = arith.constant dense<0> : tensor<i64>
    scf.yield %z : tensor<i64>
  }
  return %r : tensor<i64>
}
