// The collectives of precision-report.test, each returned as its own result
// so that the report's `moves` ("result0") names it.

shard.grid @dp(shape = 4)

// A local gradient: computed in f32 and rounded to bf16 before the wire, as
// a backward function's matmul and cast deliver it.
func.func private @local_gradient(%x: tensor<64xf32>) -> tensor<64xbf16> {
  %square = arith.mulf %x, %x : tensor<64xf32>
  %gradient = prec.cast %square : tensor<64xf32> to tensor<64xbf16>
  return %gradient : tensor<64xbf16>
}

func.func @step(%x: tensor<64xf32>, %y: tensor<48xf32>)
    -> (tensor<16xf32>, tensor<12xf32>, tensor<48xf32>, tensor<192xf32>, tensor<48xbf16>) {
  // FSDP's gradient: bf16 in, f32 wire and sum, averaged.
  %gradient = call @local_gradient(%x) : (tensor<64xf32>) -> tensor<64xbf16>
  %averaged = prec.reduce_scatter %gradient on @dp scatter_axis = 0 reduction = <avg>
                forward_dtype = f32 acc_dtype = f32 : tensor<64xbf16> -> tensor<16xf32>
  // An f32 argument over a bf16 wire, summed in f32.
  %summed = prec.reduce_scatter %y on @dp scatter_axis = 0 forward_dtype = bf16
              acc_dtype = f32 : tensor<48xf32> -> tensor<12xf32>
  // A direct all_reduce: bf16 wire, f32 sum, slices gathered in bf16.
  %reduced = prec.all_reduce %y on @dp forward_dtype = bf16 acc_dtype = f32
               : tensor<48xf32> -> tensor<48xf32>
  // A computed value rounded to bf16, gathered exactly.
  %square = arith.mulf %y, %y : tensor<48xf32>
  %narrow = prec.cast %square : tensor<48xf32> to tensor<48xbf16>
  %gathered = prec.all_gather %narrow on @dp gather_axis = 0
                : tensor<48xbf16> -> tensor<192xf32>
  // The sum gathered again in bf16: its bound is relative to the
  // magnitudes of the sum's terms.
  %regathered = prec.all_gather %summed on @dp gather_axis = 0 forward_dtype = bf16
                  : tensor<12xf32> -> tensor<48xbf16>
  return %averaged, %summed, %reduced, %gathered, %regathered
    : tensor<16xf32>, tensor<12xf32>, tensor<48xf32>, tensor<192xf32>, tensor<48xbf16>
}
