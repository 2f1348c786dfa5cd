// Arguments by name: a `prec.name`, else the SSA name in the source; results
// by `prec.name`, else the argument they feed, else their position. Scalars
// take the program's `prec.default` when no --scalar gives them.

// RUN: prec-run %s --list-args | FileCheck %s --check-prefix=LIST --match-full-lines
// LIST:      @step: 6 arguments, 4 results
// LIST-NEXT:   argument name    type          role
// LIST-NEXT:   0        w       tensor<4xf32> state  fed back by result 0
// LIST-NEXT:   1        m_a     tensor<4xf32> state  fed back by result 1
// LIST-NEXT:   2        m_b     tensor<2xf32> data
// LIST-NEXT:   3        batch   tensor<4xf32> data
// LIST-NEXT:   4        lr      f32           scalar default 0.5
// LIST-NEXT:   5        k       i32           scalar required: --scalar k=VALUE
// LIST-NEXT:   result   name    type
// LIST-NEXT:   0        w       tensor<4xf32>        feeds argument 0
// LIST-NEXT:   1        m_a     tensor<4xf32>        feeds argument 1
// LIST-NEXT:   2        lr_out  f32
// LIST-NEXT:   3        result3 i32
// LIST-EMPTY:

// By name: a file, zeros by glob, the default lr, a required scalar.
// RUN: rm -rf %t && mkdir -p %t
// RUN: printf '\000\000\200\077\000\000\200\077\000\000\200\077\000\000\200\077' > %t/ones.bin
// RUN: prec-run %s --ranks 1 --arg w=%t/ones.bin --zeros 'm_*' --scalar k=3 --print values \
// RUN:   | FileCheck %s --check-prefix=NAMED
// NAMED: rank 0: result 0: tensor<4xf32> = [1, 1, 1, 1]
// NAMED: rank 0: result 1: tensor<4xf32> = [0, 0, 0, 0]
// NAMED: rank 0: result 2: f32 = [0.5]
// NAMED: rank 0: result 3: i32 = [3]
// Positions keep working, and a --scalar overrides the default.
// RUN: prec-run %s --ranks 1 --arg 0=%t/ones.bin --zeros 1,2 --scalar 5=4 --scalar 4=0.25 \
// RUN:   --print values | FileCheck %s --check-prefix=POSITIONS
// POSITIONS: rank 0: result 0: tensor<4xf32> = [1, 1, 1, 1]
// POSITIONS: rank 0: result 1: tensor<4xf32> = [0, 0, 0, 0]
// POSITIONS: rank 0: result 2: f32 = [0.25]
// POSITIONS: rank 0: result 3: i32 = [4]
// Without --zeros the state is random: the zeros above came from it.
// RUN: prec-run %s --ranks 1 --scalar k=3 --print values | FileCheck %s --check-prefix=RANDOM
// RANDOM: rank 0: result 1: tensor<4xf32> = [{{.*[1-9].*}}]

// Mistakes name what there is.
// RUN: not prec-run %s --scalar lrr=1 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// UNKNOWN: prec-run: error: --scalar lrr=1: no argument named 'lrr'; the arguments of @step are w, m_a, m_b, batch, lr, k (--list-args lists them)
// UNKNOWN-NOT: compiled
// RUN: not prec-run %s --scalar k=1 --zeros 'adam_*' 2>&1 | FileCheck %s --check-prefix=NO-MATCH
// NO-MATCH: prec-run: error: --zeros adam_*: no argument name matches 'adam_*'; the arguments of @step are w, m_a, m_b, batch, lr, k (--list-args lists them)
// RUN: not prec-run %s --scalar k=1 --replicate 'q?' 2>&1 | FileCheck %s --check-prefix=NO-MATCH-REPLICATE
// NO-MATCH-REPLICATE: prec-run: error: --replicate q?: no argument name matches 'q?'
// A glob is a name in --scalar and --arg.
// RUN: not prec-run %s --scalar 'l*=1' --scalar k=1 2>&1 | FileCheck %s --check-prefix=NO-GLOB
// NO-GLOB: prec-run: error: --scalar l*=1: no argument named 'l*'
// RUN: not prec-run %s --scalar k=1 --zeros lr 2>&1 | FileCheck %s --check-prefix=ZEROS-SCALAR
// ZEROS-SCALAR: prec-run: error: --zeros lr: argument 4 'lr' (f32) is a scalar: give it with --scalar lr=VALUE
// RUN: not prec-run %s --scalar k=1 --arg w=%t/ones.bin --zeros '*' 2>&1 | FileCheck %s --check-prefix=TWICE
// TWICE: prec-run: error: argument 0 'w' (tensor<4xf32>) is given twice: --arg w={{.*}}ones.bin and --zeros *
// RUN: not prec-run %s --scalar k=1 --zeros m_a --replicate 'm_*' 2>&1 | FileCheck %s --check-prefix=REPLICATE-ZEROS
// REPLICATE-ZEROS: prec-run: error: --replicate m_*: argument 1 'm_a' (tensor<4xf32>) is given by --zeros m_a, not generated from the seed
// RUN: not prec-run %s 2>&1 | FileCheck %s --check-prefix=REQUIRED
// REQUIRED: prec-run: error: argument 5 'k' (i32) is a scalar: give it with --scalar k=VALUE
// RUN: not prec-run %s --scalar k=1 --scalar 7=1 2>&1 | FileCheck %s --check-prefix=RANGE
// RANGE: prec-run: error: --scalar 7=1: argument index 7 out of range: the entry function has 6 arguments

// --output-dir describes the files it writes in manifest.json.
// RUN: prec-run %s --ranks 1 --scalar k=3 --zeros m_a --output-dir %t/out --print none
// RUN: %python -c "import json, os, sys; m = json.load(open(sys.argv[1])); \
// RUN:   print(m['entry'], m['ranks'], m['steps']); \
// RUN:   [print(kind, v['index'], v['name'], v['dtype'], v['shape'], v['bytes'], v.get('role', '-'), v.get('default', '-'), v.get('feeds_argument', '-'), ' '.join(v['files']), all(os.path.getsize(os.path.join(os.path.dirname(sys.argv[1]), f)) == v['bytes'] for f in v['files'])) \
// RUN:    for kind in ('arguments', 'results') for v in m[kind]]" %t/out/manifest.json \
// RUN:   | FileCheck %s --check-prefix=MANIFEST --match-full-lines
// MANIFEST:      step 1 1
// MANIFEST-NEXT: arguments 0 w f32 [4] 16 state - - rank0_arg0.bin True
// MANIFEST-NEXT: arguments 1 m_a f32 [4] 16 state - - rank0_arg1.bin True
// MANIFEST-NEXT: arguments 2 m_b f32 [2] 8 data - - rank0_arg2.bin True
// MANIFEST-NEXT: arguments 3 batch f32 [4] 16 data - - rank0_arg3.bin True
// MANIFEST-NEXT: arguments 4 lr f32 [] 4 scalar 0.5 - rank0_arg4.bin True
// MANIFEST-NEXT: arguments 5 k i32 [] 4 scalar - - rank0_arg5.bin True
// MANIFEST-NEXT: results 0 w f32 [4] 16 - - 0 rank0_result0.bin True
// MANIFEST-NEXT: results 1 m_a f32 [4] 16 - - 1 rank0_result1.bin True
// MANIFEST-NEXT: results 2 lr_out f32 [] 4 - - - rank0_result2.bin True
// MANIFEST-NEXT: results 3 result3 i32 [] 4 - - - rank0_result3.bin True

func.func @step(%w: tensor<4xf32>, %m_a: tensor<4xf32>, %m_b: tensor<2xf32>,
                %data: tensor<4xf32> {prec.name = "batch"},
                %lr: f32 {prec.default = 0.5 : f32}, %k: i32)
    -> (tensor<4xf32>, tensor<4xf32>, f32 {prec.name = "lr_out"}, i32) {
  return %w, %m_a, %lr, %k : tensor<4xf32>, tensor<4xf32>, f32, i32
}
