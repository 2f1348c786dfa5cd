// prec-run --profile: every category of a step's time appears for every
// rank, the runtime and the instrumented kernels count the calls the
// program makes, and the timed parts never add up to more than the step.
// No timing is asserted. 7 gemms a step: 2 forward, 2 recomputed in the
// backward, 3 gradients (the gradient of the batch, which the step does not
// read, is not computed once the backward function is inlined).
// RUN: prec-run %S/../../../examples/fsdp_step.mlir --steps 3 --scalar 4=0.02 \
// RUN:   --print none --profile > %t.txt
// RUN: FileCheck %s < %t.txt
// RUN: %python %S/Inputs/check_profile.py %t.txt 4 7 4
// RUN: prec-run %S/../../../examples/fsdp_step.mlir --steps 1 --scalar 4=0.02 \
// RUN:   --print none 2>&1 | FileCheck %s --check-prefix=QUIET

// CHECK: rank 0: profile, per step of 3 (gemm: {{.*}}):
// CHECK-NEXT: step {{ *}}{{[0-9]+\.[0-9]+}} ms
// CHECK-NEXT: gemm (precrtCompiledMatmul) {{.*}} ms {{.*}}% {{ *}}7 calls
// CHECK-NEXT: compute kernels
// CHECK-NEXT: pack/unpack kernels
// CHECK-NEXT: collectives {{.*}}4 calls
// CHECK-NEXT: of which waiting
// CHECK-NEXT: other host code
// CHECK: rank 3: profile

// QUIET-NOT: profile
// QUIET: 1 step(s)
