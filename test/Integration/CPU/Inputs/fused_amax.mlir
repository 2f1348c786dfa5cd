// Amaxes computed in the kernel that quantizes the same input
// (prec-fuse-amax): a delayed per-tensor scale with this step's amax, and
// MX block scales, of a 64 x 256 input with zeros, infinities and NaNs.
func.func @fused(%x: tensor<64x256xf32>, %h: tensor<f32>)
    -> (tensor<64x256xf8E4M3FN>, tensor<f32>, tensor<64x256xf8E5M2>,
        tensor<64x8xf8E8M0FNU>, tensor<64x256xf8E4M3FN>, tensor<64x256xf32>) {
  %s = prec.scale_from_amax %h element_type = f8E4M3FN : tensor<f32> -> tensor<f32>
  %q = prec.quantize %x scale %s scaling = <delayed, history = 16>
         : tensor<64x256xf32>, tensor<f32> -> tensor<64x256xf8E4M3FN>
  %a = prec.amax %x : tensor<64x256xf32> -> tensor<f32>
  %ba = prec.amax %x block_size = 32 : tensor<64x256xf32> -> tensor<64x8xf32>
  %bs = prec.scale_from_amax %ba element_type = f8E5M2
          : tensor<64x8xf32> -> tensor<64x8xf8E8M0FNU>
  %bq = prec.quantize %x scale %bs scaling = <block, block_size = 32>
          : tensor<64x256xf32>, tensor<64x8xf8E8M0FNU> -> tensor<64x256xf8E5M2>
  // A block-scaled f8E4M3FN round trip through f32 scales.
  %fa = prec.amax %x block_size = 64 : tensor<64x256xf32> -> tensor<64x4xf32>
  %fs = prec.scale_from_amax %fa element_type = f8E4M3FN
          : tensor<64x4xf32> -> tensor<64x4xf32>
  %fq = prec.quantize %x scale %fs scaling = <block, block_size = 64, scale_dtype = f32>
          : tensor<64x256xf32>, tensor<64x4xf32> -> tensor<64x256xf8E4M3FN>
  %fd = prec.dequantize %fq scale %fs scaling = <block, block_size = 64, scale_dtype = f32>
          : tensor<64x256xf8E4M3FN>, tensor<64x4xf32> -> tensor<64x256xf32>
  return %q, %a, %bq, %bs, %fq, %fd
      : tensor<64x256xf8E4M3FN>, tensor<f32>, tensor<64x256xf8E5M2>,
        tensor<64x8xf8E8M0FNU>, tensor<64x256xf8E4M3FN>, tensor<64x256xf32>
}
