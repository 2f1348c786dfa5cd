// RUN: prec-opt %s --prec-apply-policy -split-input-file -verify-diagnostics | FileCheck %s --enable-var-scope
// Idempotent.
// RUN: prec-opt %s --prec-apply-policy -split-input-file -verify-diagnostics | prec-opt --prec-apply-policy -split-input-file | FileCheck %s --enable-var-scope

shard.grid @dp(shape = 4)

// CHECK-LABEL: func @fsdp
// CHECK-SAME: -> tensor<32x4xf32>
func.func @fsdp(%w: tensor<8x4xf32>, %g: tensor<32x4xf32>, %h: tensor<8x4xbf16>)
    -> tensor<32x4xbf16>
    attributes {prec.policy = #prec.policy<param = bf16, reduce = f32, output = f32>} {
  // CHECK: prec.all_gather %{{.*}} gather_axis = 0 forward_dtype = bf16 backward_dtype = f32 :
  %0 = prec.all_gather %w on @dp gather_axis = 0 : tensor<8x4xf32> -> tensor<32x4xbf16>
  // Per-op annotations win.
  // CHECK: prec.all_gather %{{.*}} gather_axis = 0 forward_dtype = f32 backward_dtype = bf16 :
  %1 = prec.all_gather %w on @dp gather_axis = 0 forward_dtype = f32 backward_dtype = bf16
         : tensor<8x4xf32> -> tensor<32x4xf32>
  // CHECK: prec.reduce_scatter %{{.*}} reduction = <avg> forward_dtype = f32 :
  %2 = prec.reduce_scatter %g on @dp scatter_axis = 0 reduction = <avg> : tensor<32x4xf32> -> tensor<8x4xf32>
  // CHECK: prec.all_reduce %{{.*}} forward_dtype = f32 :
  %3 = prec.all_reduce %h on @dp : tensor<8x4xbf16> -> tensor<8x4xbf16>
  // CHECK: prec.all_to_all %{{.*}} concat_axis = 0 : tensor<32x4xf32> -> tensor<32x4xf32>
  %4 = prec.all_to_all %g on @dp split_axis = 0 concat_axis = 0 : tensor<32x4xf32> -> tensor<32x4xf32>
  // CHECK: %[[OUT:.*]] = prec.cast %{{.*}} : tensor<32x4xbf16> to tensor<32x4xf32>
  // CHECK: return %[[OUT]] : tensor<32x4xf32>
  return %0 : tensor<32x4xbf16>
}

// -----

// A module policy governs functions without their own.
module attributes {prec.policy = #prec.policy<param = bf16>} {
  shard.grid @dp(shape = 4)
  // CHECK-LABEL: func @inherits
  func.func @inherits(%w: tensor<8xf32>) -> tensor<32xf32> {
    // CHECK: prec.all_gather %{{.*}} forward_dtype = bf16 : tensor<8xf32> -> tensor<32xf32>
    %0 = prec.all_gather %w on @dp gather_axis = 0 : tensor<8xf32> -> tensor<32xf32>
    return %0 : tensor<32xf32>
  }
  // CHECK-LABEL: func @overrides
  func.func @overrides(%w: tensor<8xf32>) -> tensor<32xf32>
      attributes {prec.policy = #prec.policy<reduce = bf16>} {
    // CHECK: prec.all_gather %{{.*}} backward_dtype = bf16 : tensor<8xf32> -> tensor<32xf32>
    %0 = prec.all_gather %w on @dp gather_axis = 0 : tensor<8xf32> -> tensor<32xf32>
    return %0 : tensor<32xf32>
  }
  // Without a policy nothing changes.
  // CHECK-LABEL: func @unchanged
  // CHECK: prec.all_reduce %{{.*}} on @dp : tensor<8xf32> -> tensor<8xf32>
  func.func @unchanged(%w: tensor<8xf32>) -> tensor<8xf32> attributes {prec.policy = #prec.policy<>} {
    %0 = prec.all_reduce %w on @dp : tensor<8xf32> -> tensor<8xf32>
    return %0 : tensor<8xf32>
  }
}

// -----

shard.grid @dp(shape = 4)
func.func @fp8_param(%w: tensor<8xf32>) -> tensor<32xbf16>
    attributes {prec.policy = #prec.policy<param = f8E4M3FN>} {
  // expected-error @+1 {{cannot take forward_dtype 'f8E4M3FN' from the policy's 'param' entry: an fp8 collective needs a scaling mode}}
  %0 = prec.all_gather %w on @dp gather_axis = 0 : tensor<8xf32> -> tensor<32xbf16>
  return %0 : tensor<32xbf16>
}

// -----

// A policy entry that does not fit the op's own attributes is reported with
// the reason, not left for the verifier to find.
shard.grid @dp(shape = 4)
func.func @policy_against_acc_dtype(%x: tensor<8xf16>) -> tensor<2xf16>
    attributes {prec.policy = #prec.policy<reduce = bf16>} {
  // expected-error @+1 {{cannot take forward_dtype 'bf16' from the policy's 'reduce' entry: expected acc_dtype that represents every value of forward_dtype 'bf16', got 'f16'}}
  %0 = prec.reduce_scatter %x on @dp scatter_axis = 0 acc_dtype = f16 : tensor<8xf16> -> tensor<2xf16>
  return %0 : tensor<2xf16>
}

// -----

shard.grid @dp(shape = 4)
func.func @policy_against_ring(%x: tensor<8xf32>) -> tensor<8xf32>
    attributes {prec.policy = #prec.policy<reduce = bf16>} {
  // expected-error @+1 {{cannot take forward_dtype 'bf16' from the policy's 'reduce' entry: expected acc_dtype equal to forward_dtype 'bf16' for a ring reduction}}
  %0 = prec.all_reduce %x on @dp acc_dtype = f32 algorithm = <ring> : tensor<8xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// Only float scalars and tensors take the output dtype; buffers are left.
// CHECK-LABEL: func @buffer_result
// CHECK-SAME: -> (memref<4xf32>, tensor<4xbf16>)
// CHECK-NOT: prec.cast %{{.*}} : memref
func.func @buffer_result(%m: memref<4xf32>, %t: tensor<4xf32>) -> (memref<4xf32>, tensor<4xf32>)
    attributes {prec.policy = #prec.policy<output = bf16>} {
  return %m, %t : memref<4xf32>, tensor<4xf32>
}

// -----

// expected-error @+1 {{cannot apply the policy's output dtype 'f32': the function is referenced in the module and its result types would change under its users}}
func.func @called(%x: tensor<8xbf16>) -> tensor<8xbf16>
    attributes {prec.policy = #prec.policy<output = f32>} {
  return %x : tensor<8xbf16>
}
func.func @caller(%x: tensor<8xbf16>) -> tensor<8xbf16> {
  %0 = call @called(%x) : (tensor<8xbf16>) -> tensor<8xbf16>
  return %0 : tensor<8xbf16>
}

// -----

// The dtypes a policy gives one op are checked together: an fp8 gradient
// dtype makes the scaling mode valid next to a bf16 forward dtype.
// CHECK-LABEL: func @bf16_forward_fp8_gradient
// CHECK: prec.all_gather {{.*}} forward_dtype = bf16 backward_dtype = f8E4M3FN
shard.grid @dp(shape = 4)
func.func @bf16_forward_fp8_gradient(%x: tensor<8xf8E4M3FN>) -> tensor<32xf32>
    attributes {prec.policy = #prec.policy<param = bf16, reduce = f8E4M3FN>} {
  %0 = prec.all_gather %x on @dp gather_axis = 0 scaling = <dynamic> : tensor<8xf8E4M3FN> -> tensor<32xf32>
  return %0 : tensor<32xf32>
}

// -----

// A backward function prec-generate-backward made is left alone: its
// forward function was governed by the policy already.
// CHECK-LABEL: func @loss_backward
// CHECK-SAME: -> tensor<4xf32>
// CHECK-NOT: prec.cast
module attributes {prec.policy = #prec.policy<output = bf16>} {
  func.func @loss_backward(%x: tensor<4xf32>) -> tensor<4xf32>
      attributes {prec.backward_of = @loss} {
    return %x : tensor<4xf32>
  }
}
