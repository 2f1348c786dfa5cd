// A tensor argument's `prec.default` fills every element when nothing else
// gives it (prec-fully-shard's optimizer state starts at zero); --arg and
// --zeros still win, and the generator fills the others.
// RUN: %python -c "import struct,sys; open(sys.argv[1],'wb').write(struct.pack('<4f',1,2,3,4))" %t.bin
// RUN: prec-run %s --ranks 1 --print values | FileCheck %s
// CHECK: result 0: tensor<4xf32> = [0, 0, 0, 0]
// CHECK: result 1: tensor<3xi32> = [7, 7, 7]
// CHECK: result 2: tensor<2xf32> = [{{-?0\.[0-9]*[1-9][0-9]*}}, {{.*}}]
// RUN: prec-run %s --list-args | FileCheck %s --check-prefix=LIST
// LIST: 0        m    tensor<4xf32> state  fed back by result 0, default 0
// LIST: 1        n    tensor<3xi32> state  fed back by result 1, default 7
// RUN: prec-run %s --ranks 1 --print values --zeros n --arg m=%t.bin | FileCheck %s --check-prefix=GIVEN
// GIVEN: result 0: tensor<4xf32> = [1, 2, 3, 4]
// GIVEN: result 1: tensor<3xi32> = [0, 0, 0]
func.func @step(%m: tensor<4xf32> {prec.default = 0.0 : f32},
                %n: tensor<3xi32> {prec.default = 7 : i32},
                %g: tensor<2xf32>) -> (tensor<4xf32>, tensor<3xi32>, tensor<2xf32>) {
  return %m, %n, %g : tensor<4xf32>, tensor<3xi32>, tensor<2xf32>
}
