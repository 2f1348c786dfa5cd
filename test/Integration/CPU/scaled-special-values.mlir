// The rules for amaxes of zero, infinity and NaN (docs/Prec.md): the amax
// covers finite elements only, an amax of 0 gives scale 1, infinities
// saturate to the largest finite value times the scale and NaN stays NaN;
// no element around them becomes 0 or NaN.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import struct; open('%t/z.bin', 'wb').write(struct.pack('<4f', 0, -0.0, 0, 0)); open('%t/x.bin', 'wb').write(struct.pack('<4f', 1, float('inf'), float('nan'), -2))"
// RUN: prec-run %s --arg 0=%t/z.bin --arg 1=%t/x.bin --print values | FileCheck %s
//
// Zeros: scale 1, zeros back.
// CHECK: result 0: tensor<4xf32> = [0, -0, 0, 0]
// CHECK: result 1: tensor<f32> = [1]
// x: amax 2 (the infinity and the NaN are left out), scale 2 / 448; 1 and
// -2 come back exactly, inf saturates to 448 * scale = 2, NaN stays.
// CHECK: result 2: tensor<4xf32> = [1, 2, nan, -2]
// CHECK: result 3: tensor<f32> = [0.0044642859]
// MX block of 4: scale 2^(floor(log2 2) - 8) = 2^-7; inf saturates to
// 448 * 2^-7 = 3.5.
// CHECK: result 4: tensor<4xf32> = [1, 3.5, nan, -2]
// CHECK: result 5: tensor<1xf8E8M0FNU> = [0.0078125]

shard.grid @one(shape = 1)

func.func @special(%z: tensor<4xf32>, %x: tensor<4xf32>)
    -> (tensor<4xf32>, tensor<f32>, tensor<4xf32>, tensor<f32>, tensor<4xf32>,
        tensor<1xf8E8M0FNU>) {
  %0 = prec.all_gather %z on @one gather_axis = 0 forward_dtype = f8E4M3FN
         scaling = <dynamic> : tensor<4xf32> -> tensor<4xf32>
  %za = prec.amax %z : tensor<4xf32> -> tensor<f32>
  %zs = prec.scale_from_amax %za element_type = f8E4M3FN : tensor<f32> -> tensor<f32>
  %1 = prec.all_gather %x on @one gather_axis = 0 forward_dtype = f8E4M3FN
         scaling = <dynamic> : tensor<4xf32> -> tensor<4xf32>
  %xa = prec.amax %x : tensor<4xf32> -> tensor<f32>
  %xs = prec.scale_from_amax %xa element_type = f8E4M3FN : tensor<f32> -> tensor<f32>
  %2 = prec.all_gather %x on @one gather_axis = 0 forward_dtype = f8E4M3FN
         scaling = <block, block_size = 4> : tensor<4xf32> -> tensor<4xf32>
  %ba = prec.amax %x block_size = 4 : tensor<4xf32> -> tensor<1xf32>
  %bs = prec.scale_from_amax %ba element_type = f8E4M3FN
          : tensor<1xf32> -> tensor<1xf8E8M0FNU>
  return %0, %zs, %1, %xs, %2, %bs : tensor<4xf32>, tensor<f32>, tensor<4xf32>,
      tensor<f32>, tensor<4xf32>, tensor<1xf8E8M0FNU>
}
